// Errors are values: every fallible call returns a Status with a code and a message that names
// the node, op and value involved. No exceptions cross any boundary (wasm builds disable them).
#pragma once

#include <string>
#include <utility>

namespace webnx {

enum class ErrorCode {
  kOk = 0,
  kUnsupportedOpset,
  kUnsupportedDtype,
  kUnsupportedOperator,
  kMalformedModel,
  kInvalidInput,
  kShapeMismatch,
  kOutOfMemory,
  kInvalidArgument,
  kInternal,
};

// Stable string names, the same ones the JS package puts on Error.code.
const char* ErrorCodeName(ErrorCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(ErrorCode code, std::string message) : code_(code), message_(std::move(message)) {}
  static Status Ok() { return Status(); }

  bool ok() const { return code_ == ErrorCode::kOk; }
  ErrorCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "Code: message", for logs and test failure output.
  std::string ToString() const;

 private:
  ErrorCode code_ = ErrorCode::kOk;
  std::string message_;
};

#define WEBNX_RETURN_IF_ERROR(expr)                \
  do {                                             \
    ::webnx::Status _webnx_status = (expr);        \
    if (!_webnx_status.ok()) return _webnx_status; \
  } while (0)

}  // namespace webnx
