#include "core/loaders/onnx_tensors.h"

#include <cstring>
#include <limits>

#include "core/limits.h"
#include "core/loaders/float16.h"

namespace webnx {

namespace {

const char* OnnxTypeName(int32_t t) {
  static const char* const kNames[] = {
      "undefined",      "float32",  "uint8",        "int8",           "uint16",
      "int16",          "int32",    "int64",        "string",         "bool",
      "float16",        "float64",  "uint32",       "uint64",         "complex64",
      "complex128",     "bfloat16", "float8e4m3fn", "float8e4m3fnuz", "float8e5m2",
      "float8e5m2fnuz", "uint4",    "int4",         "float4e2m1",     "float8e8m0",
      "uint2",          "int2"};
  if (t >= 0 && t < static_cast<int32_t>(sizeof(kNames) / sizeof(kNames[0]))) return kNames[t];
  return "unknown";
}

template <typename Field>
Status CheckCount(const Field& field, int64_t numel, const std::string& what, const char* name) {
  if (static_cast<int64_t>(field.size()) != numel) {
    return Malformed(what + " has " + std::to_string(field.size()) + " values in " + name +
                     " but its shape needs " + std::to_string(numel));
  }
  return Status::Ok();
}

// Values stored in the typed field the dtype uses (float16 and bool use int32_data).

Status ReadTypedFields(const onnx::TensorProto& proto, const std::string& what, Tensor* t) {
  const int64_t n = t->numel();
  switch (proto.data_type()) {
    case onnx::TensorProto_DataType_FLOAT:
      WEBNX_RETURN_IF_ERROR(CheckCount(proto.float_data(), n, what, "float_data"));
      std::copy(proto.float_data().begin(), proto.float_data().end(), t->ptr<float>());
      return Status::Ok();
    case onnx::TensorProto_DataType_INT64:
      WEBNX_RETURN_IF_ERROR(CheckCount(proto.int64_data(), n, what, "int64_data"));
      std::copy(proto.int64_data().begin(), proto.int64_data().end(), t->ptr<int64_t>());
      return Status::Ok();
    case onnx::TensorProto_DataType_INT32:
      WEBNX_RETURN_IF_ERROR(CheckCount(proto.int32_data(), n, what, "int32_data"));
      std::copy(proto.int32_data().begin(), proto.int32_data().end(), t->ptr<int32_t>());
      return Status::Ok();
    case onnx::TensorProto_DataType_BOOL:
      WEBNX_RETURN_IF_ERROR(CheckCount(proto.int32_data(), n, what, "int32_data"));
      for (int64_t i = 0; i < n; ++i) t->ptr<bool>()[i] = proto.int32_data(i) != 0;
      return Status::Ok();
    case kOnnxFloat16:  // float16 bits are stored one per int32
      WEBNX_RETURN_IF_ERROR(CheckCount(proto.int32_data(), n, what, "int32_data"));
      for (int64_t i = 0; i < n; ++i) {
        t->ptr<float>()[i] = HalfToFloat(static_cast<uint16_t>(proto.int32_data(i)));
      }
      return Status::Ok();
    default:
      return UnsupportedDtype(proto.data_type(), what);
  }
}

Status ReadRawData(const RawData& raw, bool half, const std::string& what, Tensor* t) {
  const size_t need = static_cast<size_t>(t->numel()) * (half ? 2 : DTypeSize(t->dtype));
  if (raw.size != need) {
    return Malformed(what + " has " + std::to_string(raw.size) +
                     " bytes of raw_data but its shape " + ShapeToString(t->shape) + " needs " +
                     std::to_string(need));
  }
  if (half) {
    for (int64_t i = 0; i < t->numel(); ++i) {
      uint16_t bits;
      std::memcpy(&bits, raw.data + 2 * i, 2);
      t->ptr<float>()[i] = HalfToFloat(bits);
    }
  } else if (t->dtype == DType::kBool) {
    for (size_t i = 0; i < need; ++i) t->ptr<bool>()[i] = raw.data[i] != 0;
  } else if (need) {
    std::memcpy(t->data, raw.data, need);
  }
  return Status::Ok();
}

// The dtype and shape of an initializer whose raw_data can be used as it is: exactly the
// tensor's bytes (no float16 or bool conversion), at least 64 of them, aligned to `alignment`.
// False sends it down the copying path, which also reports a tensor over the byte limit.
bool UsableInPlace(const onnx::TensorProto& proto, const RawData& raw, size_t alignment,
                   DType* dtype, Shape* shape) {
  if (!raw.present || proto.data_type() == kOnnxFloat16 || !IsSupportedDType(proto.data_type()) ||
      proto.data_location() != onnx::TensorProto_DataLocation_DEFAULT) {
    return false;
  }
  *dtype = static_cast<DType>(proto.data_type());
  if (*dtype == DType::kBool) return false;
  shape->assign(proto.dims().begin(), proto.dims().end());
  int64_t numel = 0;
  if (!ShapeNumel(*shape, &numel) || numel == 0) return false;
  const size_t bytes = static_cast<size_t>(numel) * DTypeSize(*dtype);
  return raw.size == bytes && bytes >= 64 &&
         reinterpret_cast<uintptr_t>(raw.data) % alignment == 0 &&
         numel <= CurrentTensorByteLimit() / static_cast<int64_t>(DTypeSize(*dtype));
}

}  // namespace

Status UnsupportedDtype(int32_t t, const std::string& what) {
  return Status(
      ErrorCode::kUnsupportedDtype,
      what + " has dtype " + OnnxTypeName(t) + " (" + std::to_string(t) +
          "); webnx supports float32, int64, int32 and bool (float16 weights are widened)");
}

Status Malformed(const std::string& message) {
  return Status(ErrorCode::kMalformedModel, message);
}

int64_t StoredValueCount(const onnx::TensorProto& proto) {
  switch (proto.data_type()) {
    case onnx::TensorProto_DataType_FLOAT:
      return proto.float_data_size();
    case onnx::TensorProto_DataType_INT64:
      return proto.int64_data_size();
    default:
      return proto.int32_data_size();
  }
}

RawData RawDataOf(const onnx::TensorProto& proto) {
  RawData raw;
  raw.present = proto.has_raw_data();
  raw.data = proto.raw_data().data();
  raw.size = proto.raw_data().size();
  return raw;
}

Status TensorFromProto(const onnx::TensorProto& proto, const RawData& raw, const std::string& what,
                       Tensor* out) {
  if (proto.data_location() == onnx::TensorProto_DataLocation_EXTERNAL) {
    return Malformed(what + " keeps its data in an external file; external data is not supported");
  }
  const int32_t dt = proto.data_type();
  if (!IsSupportedDType(dt) && dt != kOnnxFloat16) return UnsupportedDtype(dt, what);
  Shape shape(proto.dims().begin(), proto.dims().end());
  int64_t numel = 0;
  if (!ShapeNumel(shape, &numel)) {
    return Malformed(what + " has an invalid shape " + ShapeToString(shape));
  }
  DType dtype = dt == kOnnxFloat16 ? DType::kFloat32 : static_cast<DType>(dt);
  // The data must match the shape before anything the size of the shape is allocated.
  const int64_t stored = raw.present
                             ? static_cast<int64_t>(raw.size) /
                                   static_cast<int64_t>(dt == kOnnxFloat16 ? 2 : DTypeSize(dtype))
                             : StoredValueCount(proto);
  if (stored != numel) {
    return Malformed(what + " stores " + std::to_string(stored) + " values but its shape " +
                     ShapeToString(shape) + " needs " + std::to_string(numel));
  }
  WEBNX_RETURN_IF_ERROR(Tensor::Allocate(dtype, shape, out));
  if (raw.present) return ReadRawData(raw, dt == kOnnxFloat16, what, out);
  return ReadTypedFields(proto, what, out);
}

bool AdoptRawData(onnx::TensorProto* proto, const RawData& raw, Tensor* out) {
  DType dtype;
  Shape shape;
  // A string's heap buffer is 8-aligned.
  if (!UsableInPlace(*proto, raw, raw.owner ? kDetachedAlignment : 8, &dtype, &shape)) return false;
  if (raw.owner) {
    out->data = const_cast<char*>(raw.data);
    out->holder = raw.owner;
  } else {
    auto holder = std::make_shared<std::string>(std::move(*proto->mutable_raw_data()));
    if (reinterpret_cast<uintptr_t>(holder->data()) % 8 != 0) {  // a move must keep the buffer
      *proto->mutable_raw_data() = std::move(*holder);
      return false;
    }
    out->data = &(*holder)[0];
    out->holder = std::move(holder);
  }
  out->dtype = dtype;
  out->shape = std::move(shape);
  return true;
}

Status TensorFromProto(const onnx::TensorProto& proto, const std::string& what, Tensor* out) {
  return TensorFromProto(proto, RawDataOf(proto), what, out);
}

}  // namespace webnx
