// JSON Pointers (RFC 6901) for loader errors: every JSON loader error starts with the place in
// the document it is about, e.g. "/nodes/12/attrs/strides: expected 2 integers, got 3".
#pragma once

#include <cstddef>
#include <string>

#include "core/status.h"

namespace webnx {
namespace jsonl {

// "~" and "/" inside a key are escaped so the pointer stays unambiguous.
inline std::string Child(const std::string& pointer, const std::string& key) {
  std::string out = pointer;
  out.reserve(pointer.size() + key.size() + 1);
  out += '/';
  for (char c : key) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

inline std::string Child(const std::string& pointer, size_t index) {
  return pointer + "/" + std::to_string(index);
}

// The root pointer is the empty string; messages show it as "(document)".
inline std::string ShowPointer(const std::string& pointer) {
  return pointer.empty() ? std::string("(document)") : pointer;
}

inline Status ErrorAt(ErrorCode code, const std::string& pointer, const std::string& message) {
  return Status(code, ShowPointer(pointer) + ": " + message);
}

inline Status MalformedAt(const std::string& pointer, const std::string& message) {
  return ErrorAt(ErrorCode::kMalformedModel, pointer, message);
}

}  // namespace jsonl
}  // namespace webnx
