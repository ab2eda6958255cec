#include "core/tensor.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "core/limits.h"

namespace webnx {

const char* DTypeName(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return "float32";
    case DType::kInt32:
      return "int32";
    case DType::kInt64:
      return "int64";
    case DType::kBool:
      return "bool";
    case DType::kUndefined:
      break;
  }
  return "undefined";
}

size_t DTypeSize(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
    case DType::kInt32:
      return 4;
    case DType::kInt64:
      return 8;
    case DType::kBool:
      return 1;
    case DType::kUndefined:
      break;
  }
  return 0;
}

bool IsSupportedDType(int32_t onnx_dtype) {
  return onnx_dtype == 1 || onnx_dtype == 6 || onnx_dtype == 7 || onnx_dtype == 9;
}

std::string ShapeToString(const Shape& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

bool ShapeNumel(const Shape& shape, int64_t* numel) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) return false;
    if (d != 0 && n > INT64_MAX / d) return false;
    n *= d;
  }
  *numel = n;
  return true;
}

int64_t Tensor::numel() const {
  int64_t n = 0;
  return ShapeNumel(shape, &n) ? n : 0;
}

namespace {

// Storage is a whole number of 64-byte lines, at least one.
size_t StorageBytes(size_t bytes) {
  return std::max<size_t>(64, (bytes + 63) / 64 * 64);
}

}  // namespace

Status Tensor::Allocate(DType dtype, const Shape& shape, Tensor* out) {
  WEBNX_RETURN_IF_ERROR(AllocateUninitialized(dtype, shape, out));
  std::memset(out->data, 0, StorageBytes(out->nbytes()));
  return Status::Ok();
}

Status Tensor::AllocateUninitialized(DType dtype, const Shape& shape, Tensor* out) {
  int64_t n = 0;
  size_t elem = DTypeSize(dtype);
  if (elem == 0) return Status(ErrorCode::kUnsupportedDtype, "cannot allocate an undefined dtype");
  // One tensor never exceeds the 4 GiB wasm32 heap, so native and wasm refuse the same sizes;
  // a session's limits.maxTensorBytes may cap it lower (kernel scratch included).
  const int64_t max_bytes = CurrentTensorByteLimit();
  if (!ShapeNumel(shape, &n) || n > max_bytes / static_cast<int64_t>(elem)) {
    return Status(ErrorCode::kOutOfMemory, "tensor of shape " + ShapeToString(shape) +
                                               " is too large to allocate (the limit is " +
                                               std::to_string(max_bytes) +
                                               " bytes, limits.maxTensorBytes)");
  }
  size_t bytes = static_cast<size_t>(n) * elem;
  void* p = std::aligned_alloc(64, StorageBytes(bytes));
  if (!p) {
    return Status(ErrorCode::kOutOfMemory, "out of memory allocating " + std::to_string(bytes) +
                                               " bytes for shape " + ShapeToString(shape));
  }
  out->dtype = dtype;
  out->shape = shape;
  out->holder = std::shared_ptr<void>(p, std::free);
  out->data = p;
  return Status::Ok();
}

Tensor Tensor::Borrow(DType dtype, const Shape& shape, void* data) {
  Tensor t;
  t.dtype = dtype;
  t.shape = shape;
  t.data = data;
  return t;
}

Status Tensor::Clone(Tensor* out) const {
  WEBNX_RETURN_IF_ERROR(Allocate(dtype, shape, out));
  if (nbytes()) std::memcpy(out->data, data, nbytes());
  return Status::Ok();
}

int64_t Tensor::IntAt(int64_t i) const {
  switch (dtype) {
    case DType::kInt64:
      return ptr<int64_t>()[i];
    case DType::kInt32:
      return ptr<int32_t>()[i];
    case DType::kBool:
      return ptr<bool>()[i] ? 1 : 0;
    case DType::kFloat32: {
      // Saturating: casting NaN or a float beyond int64 is undefined behaviour.
      const float f = ptr<float>()[i];
      if (!(f == f)) return 0;
      if (f >= 9.2233720368547758e18f) return INT64_MAX;
      if (f <= -9.2233720368547758e18f) return INT64_MIN;
      return static_cast<int64_t>(f);
    }
    case DType::kUndefined:
      break;
  }
  return 0;
}

double Tensor::DoubleAt(int64_t i) const {
  if (dtype == DType::kFloat32) return ptr<float>()[i];
  return static_cast<double>(IntAt(i));
}

}  // namespace webnx
