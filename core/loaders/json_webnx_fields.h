// Field readers shared by the webnx-graph document and node readers: known-key checks, layouts,
// declared shapes and value declarations.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/loaders/json_loader.h"
#include "core/loaders/json_values.h"

namespace webnx {
namespace jsonl {

// MalformedModel at the first key of `obj` not in `keys` ("_comment"-style keys are allowed).
Status CheckKeys(const Json& obj, const std::string& pointer, const char* const* keys,
                 size_t n_keys, const char* what);
template <size_t N>
Status CheckKeys(const Json& obj, const std::string& pointer, const char* const (&keys)[N],
                 const char* what) {
  return CheckKeys(obj, pointer, keys, N, what);
}

// "NHWC" (*nhwc = true) or "NCHW".
Status ReadLayout(const Json& v, const std::string& pointer, bool* nhwc);

// Declared dims: numbers (fixed), strings (named dynamic dims), null (unknown).
Status ReadDeclaredShape(const Json& v, const std::string& pointer, ValueInfo* info);

// { "name", "dtype", "shape" }; dtype defaults to float32, no shape means unknown rank. A bare
// name string is accepted when `need_dtype` is false.
Status ReadValueDecl(const Json& v, const std::string& pointer, bool need_dtype, ValueInfo* info);

// An array of strings.
Status ReadNameArray(const Json& v, const std::string& pointer, std::vector<std::string>* out);

}  // namespace jsonl
}  // namespace webnx
