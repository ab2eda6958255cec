// Tensor: a dtype, a concrete shape and a pointer to contiguous row-major data. Storage is
// shared (shared_ptr holder) so that plan-time constants, arena views and caller buffers all
// look the same to kernels.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"

namespace webnx {

// Compute dtypes. Values match ONNX TensorProto.DataType so loaders can map them directly.
enum class DType : int32_t {
  kUndefined = 0,
  kFloat32 = 1,
  kInt32 = 6,
  kInt64 = 7,
  kBool = 9,
};

const char* DTypeName(DType dtype);
size_t DTypeSize(DType dtype);
bool IsSupportedDType(int32_t onnx_dtype);

using Shape = std::vector<int64_t>;

std::string ShapeToString(const Shape& shape);
// Number of elements; false when a dim is negative or the product overflows int64.
bool ShapeNumel(const Shape& shape, int64_t* numel);

template <typename T>
struct DTypeOf;
template <>
struct DTypeOf<float> {
  static constexpr DType value = DType::kFloat32;
};
template <>
struct DTypeOf<int64_t> {
  static constexpr DType value = DType::kInt64;
};
template <>
struct DTypeOf<int32_t> {
  static constexpr DType value = DType::kInt32;
};
template <>
struct DTypeOf<bool> {
  static constexpr DType value = DType::kBool;
};

struct Tensor {
  DType dtype = DType::kUndefined;
  Shape shape;
  std::shared_ptr<void> holder;  // keeps the storage alive; may be empty for borrowed data
  void* data = nullptr;

  int64_t numel() const;
  size_t nbytes() const { return static_cast<size_t>(numel()) * DTypeSize(dtype); }
  int64_t rank() const { return static_cast<int64_t>(shape.size()); }

  template <typename T>
  T* ptr() {
    return static_cast<T*>(data);
  }
  template <typename T>
  const T* ptr() const {
    return static_cast<const T*>(data);
  }

  // Allocates zero-initialised storage (64-byte aligned). OutOfMemory when the size
  // overflows or the heap cannot grow.
  static Status Allocate(DType dtype, const Shape& shape, Tensor* out);
  // The same without the zeroing, for storage its owner overwrites before reading it (the
  // activation arena, packed weights, scratch): zeroing megabytes costs a plan real time.
  static Status AllocateUninitialized(DType dtype, const Shape& shape, Tensor* out);
  // A tensor over memory owned by someone else (the caller keeps it alive).
  static Tensor Borrow(DType dtype, const Shape& shape, void* data);
  // Deep copy.
  Status Clone(Tensor* out) const;
  // Scalar/1-D helpers used by shape-computing ops: reads element i as int64 (int32/int64/bool).
  int64_t IntAt(int64_t i) const;
  // Reads a float32/int tensor element as double.
  double DoubleAt(int64_t i) const;
};

}  // namespace webnx
