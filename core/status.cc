#include "core/status.h"

namespace webnx {

const char* ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kOk:
      return "Ok";
    case ErrorCode::kUnsupportedOpset:
      return "UnsupportedOpset";
    case ErrorCode::kUnsupportedDtype:
      return "UnsupportedDtype";
    case ErrorCode::kUnsupportedOperator:
      return "UnsupportedOperator";
    case ErrorCode::kMalformedModel:
      return "MalformedModel";
    case ErrorCode::kInvalidInput:
      return "InvalidInput";
    case ErrorCode::kShapeMismatch:
      return "ShapeMismatch";
    case ErrorCode::kOutOfMemory:
      return "OutOfMemory";
    case ErrorCode::kInvalidArgument:
      return "InvalidArgument";
    case ErrorCode::kInternal:
      return "Internal";
  }
  return "Internal";
}

std::string Status::ToString() const {
  if (ok()) return "Ok";
  return std::string(ErrorCodeName(code_)) + ": " + message_;
}

}  // namespace webnx
