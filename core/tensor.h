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

// Element types: every numeric ONNX tensor type. Values match ONNX TensorProto.DataType so
// loaders can map them directly. Every kernel that only moves elements takes all of them (it
// moves them by size); a kernel that computes lists the dtypes it computes in.
enum class DType : int32_t {
  kUndefined = 0,
  kFloat32 = 1,
  kUint8 = 2,
  kInt8 = 3,
  kUint16 = 4,
  kInt16 = 5,
  kInt32 = 6,
  kInt64 = 7,
  kBool = 9,
  kFloat16 = 10,  // IEEE binary16, stored as its bits (uint16_t)
  kFloat64 = 11,
  kUint32 = 12,
  kUint64 = 13,
};

const char* DTypeName(DType dtype);
size_t DTypeSize(DType dtype);
// True for the ONNX dtype codes that are a DType (every numeric type; not strings, complex,
// bfloat16 or the float8 types).
bool IsSupportedDType(int32_t onnx_dtype);

// Writes a small exact value (a 0, a 1, a count) as one element of `dtype` at `dst`.
void WriteElement(DType dtype, double value, void* dst);

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
template <>
struct DTypeOf<double> {
  static constexpr DType value = DType::kFloat64;
};
template <>
struct DTypeOf<uint8_t> {
  static constexpr DType value = DType::kUint8;
};
template <>
struct DTypeOf<int8_t> {
  static constexpr DType value = DType::kInt8;
};
template <>
struct DTypeOf<int16_t> {
  static constexpr DType value = DType::kInt16;
};
template <>
struct DTypeOf<uint32_t> {
  static constexpr DType value = DType::kUint32;
};
template <>
struct DTypeOf<uint64_t> {
  static constexpr DType value = DType::kUint64;
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
  // Scalar/1-D helpers used by shape-computing ops: reads element i as int64 (integers and
  // bool exactly; floats truncated toward zero, saturating, NaN as 0).
  int64_t IntAt(int64_t i) const;
  // Reads element i of any dtype as double.
  double DoubleAt(int64_t i) const;
};

}  // namespace webnx
