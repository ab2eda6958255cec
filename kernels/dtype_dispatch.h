// Calls a generic lambda with a value of the C++ type of a runtime dtype, so one templated body
// serves every supported element type.
#pragma once

#include <cstdint>

#include "core/tensor.h"

namespace webnx {

// Calls fn(T{}) with T the C++ type of `dtype` (nothing for kUndefined).
template <typename Fn>
void DispatchDType(DType dtype, Fn&& fn) {
  switch (dtype) {
    case DType::kFloat32:
      fn(float{});
      break;
    case DType::kInt32:
      fn(int32_t{});
      break;
    case DType::kInt64:
      fn(int64_t{});
      break;
    case DType::kBool:
      fn(bool{});
      break;
    case DType::kUndefined:
      break;
  }
}

}  // namespace webnx
