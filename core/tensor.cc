#include "core/tensor.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "core/float16.h"
#include "core/limits.h"

namespace webnx {

const char* DTypeName(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return "float32";
    case DType::kUint8:
      return "uint8";
    case DType::kInt8:
      return "int8";
    case DType::kUint16:
      return "uint16";
    case DType::kInt16:
      return "int16";
    case DType::kInt32:
      return "int32";
    case DType::kInt64:
      return "int64";
    case DType::kBool:
      return "bool";
    case DType::kFloat16:
      return "float16";
    case DType::kFloat64:
      return "float64";
    case DType::kUint32:
      return "uint32";
    case DType::kUint64:
      return "uint64";
    case DType::kUndefined:
      break;
  }
  return "undefined";
}

size_t DTypeSize(DType dtype) {
  switch (dtype) {
    case DType::kUint8:
    case DType::kInt8:
    case DType::kBool:
      return 1;
    case DType::kUint16:
    case DType::kInt16:
    case DType::kFloat16:
      return 2;
    case DType::kFloat32:
    case DType::kInt32:
    case DType::kUint32:
      return 4;
    case DType::kInt64:
    case DType::kFloat64:
    case DType::kUint64:
      return 8;
    case DType::kUndefined:
      break;
  }
  return 0;
}

bool IsSupportedDType(int32_t onnx_dtype) {
  return (onnx_dtype >= 1 && onnx_dtype <= 7) || (onnx_dtype >= 9 && onnx_dtype <= 13);
}

namespace {

template <typename T>
void Store(T value, void* dst) {
  std::memcpy(dst, &value, sizeof(T));
}

}  // namespace

void WriteElement(DType dtype, double value, void* dst) {
  switch (dtype) {
    case DType::kFloat32:
      return Store(static_cast<float>(value), dst);
    case DType::kFloat64:
      return Store(value, dst);
    case DType::kFloat16:
      return Store(FloatToHalf(static_cast<float>(value)), dst);
    case DType::kBool:
      return Store(value != 0, dst);
    case DType::kUint64:
      return Store(static_cast<uint64_t>(value), dst);
    case DType::kUndefined:
      return;
    default: {
      // The other integers: their low bytes (two's complement, little-endian).
      const int64_t v = static_cast<int64_t>(value);
      std::memcpy(dst, &v, DTypeSize(dtype));
      return;
    }
  }
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
    case DType::kUint8:
      return ptr<uint8_t>()[i];
    case DType::kInt8:
      return ptr<int8_t>()[i];
    case DType::kUint16:
      return ptr<uint16_t>()[i];
    case DType::kInt16:
      return ptr<int16_t>()[i];
    case DType::kUint32:
      return ptr<uint32_t>()[i];
    case DType::kUint64:  // past INT64_MAX saturates, as the floats do
      return static_cast<int64_t>(std::min<uint64_t>(ptr<uint64_t>()[i], INT64_MAX));
    case DType::kFloat32:
    case DType::kFloat16:
    case DType::kFloat64: {
      // Saturating: casting NaN or a float beyond int64 is undefined behaviour.
      const double f = DoubleAt(i);
      if (!(f == f)) return 0;
      if (f >= 9.2233720368547758e18) return INT64_MAX;
      if (f <= -9.2233720368547758e18) return INT64_MIN;
      return static_cast<int64_t>(f);
    }
    case DType::kUndefined:
      break;
  }
  return 0;
}

double Tensor::DoubleAt(int64_t i) const {
  switch (dtype) {
    case DType::kFloat32:
      return ptr<float>()[i];
    case DType::kFloat64:
      return ptr<double>()[i];
    case DType::kFloat16:
      return HalfToFloat(ptr<uint16_t>()[i]);
    case DType::kUint64:
      return static_cast<double>(ptr<uint64_t>()[i]);
    default:
      return static_cast<double>(IntAt(i));
  }
}

}  // namespace webnx
