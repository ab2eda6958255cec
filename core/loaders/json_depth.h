// Bounds how deeply a JSON document nests before it is parsed, so hostile input ("[[[[...")
// cannot exhaust the stack of the parser or of the loaders' recursive readers.
#pragma once

#include <cstddef>

#include "core/status.h"

namespace webnx {
namespace jsonl {

constexpr int kMaxJsonDepth = 256;

// MalformedModel naming the JSON Pointer of the first container nested deeper than
// `max_depth`. Brackets inside strings do not count. Syntax is not checked here.
Status CheckJsonDepth(const char* text, size_t size, int max_depth = kMaxJsonDepth);

}  // namespace jsonl
}  // namespace webnx
