// Calls a generic lambda with a value of the C++ type of a runtime dtype, so one templated body
// serves every supported element type.
#pragma once

#include <cstdint>

#include "core/tensor.h"

namespace webnx {

// Calls fn(T{}) with T the C++ type of one of the compute dtypes float32, int32, int64 and bool;
// nothing for any other dtype (a kernel's Plan rejects the dtypes it does not compute in).
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
    default:
      break;
  }
}

// Calls fn(T{}) with T the unsigned integer as wide as one element of `elem_size` bytes: for
// kernels that only move elements, one instantiation per size serves every dtype.
template <typename Fn>
void DispatchBySize(size_t elem_size, Fn&& fn) {
  switch (elem_size) {
    case 1:
      fn(uint8_t{});
      break;
    case 2:
      fn(uint16_t{});
      break;
    case 4:
      fn(uint32_t{});
      break;
    case 8:
      fn(uint64_t{});
      break;
    default:
      break;
  }
}

}  // namespace webnx
