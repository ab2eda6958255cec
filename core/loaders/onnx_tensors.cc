#include "core/loaders/onnx_tensors.h"

#include <cstring>
#include <limits>
#include <type_traits>

#include "core/float16.h"
#include "core/limits.h"
#include "core/loaders/json_values.h"

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

Status CheckCount(int64_t count, int64_t numel, const std::string& what, const char* name) {
  if (count != numel) {
    return Malformed(what + " has " + std::to_string(count) + " values in " + name +
                     " but its shape needs " + std::to_string(numel));
  }
  return Status::Ok();
}

// The int32_data values of a narrow type, each truncated to its bits (the proto stores int8,
// uint8, int16, uint16, bool and float16 bit patterns one per int32).
template <typename T>
void NarrowFromInt32(const onnx::TensorProto& proto, Tensor* t) {
  T* out = t->ptr<T>();
  for (int64_t i = 0; i < proto.int32_data_size(); ++i) {
    if constexpr (std::is_same_v<T, bool>) {
      out[i] = proto.int32_data(i) != 0;
    } else {
      out[i] = static_cast<T>(proto.int32_data(i));
    }
  }
}

Status ReadTypedFields(const onnx::TensorProto& proto, const std::string& what, Tensor* t) {
  const int64_t n = t->numel();
  switch (t->dtype) {
    case DType::kFloat32:
      WEBNX_RETURN_IF_ERROR(CheckCount(proto.float_data_size(), n, what, "float_data"));
      std::copy(proto.float_data().begin(), proto.float_data().end(), t->ptr<float>());
      return Status::Ok();
    case DType::kFloat64:
      WEBNX_RETURN_IF_ERROR(CheckCount(proto.double_data_size(), n, what, "double_data"));
      std::copy(proto.double_data().begin(), proto.double_data().end(), t->ptr<double>());
      return Status::Ok();
    case DType::kInt64:
      WEBNX_RETURN_IF_ERROR(CheckCount(proto.int64_data_size(), n, what, "int64_data"));
      std::copy(proto.int64_data().begin(), proto.int64_data().end(), t->ptr<int64_t>());
      return Status::Ok();
    case DType::kUint64:
      WEBNX_RETURN_IF_ERROR(CheckCount(proto.uint64_data_size(), n, what, "uint64_data"));
      std::copy(proto.uint64_data().begin(), proto.uint64_data().end(), t->ptr<uint64_t>());
      return Status::Ok();
    case DType::kUint32:
      WEBNX_RETURN_IF_ERROR(CheckCount(proto.uint64_data_size(), n, what, "uint64_data"));
      for (int64_t i = 0; i < n; ++i)
        t->ptr<uint32_t>()[i] = static_cast<uint32_t>(proto.uint64_data(i));
      return Status::Ok();
    case DType::kInt32:
      WEBNX_RETURN_IF_ERROR(CheckCount(proto.int32_data_size(), n, what, "int32_data"));
      std::copy(proto.int32_data().begin(), proto.int32_data().end(), t->ptr<int32_t>());
      return Status::Ok();
    default:
      break;
  }
  WEBNX_RETURN_IF_ERROR(CheckCount(proto.int32_data_size(), n, what, "int32_data"));
  switch (DTypeSize(t->dtype)) {
    case 1:
      if (t->dtype == DType::kBool) {
        NarrowFromInt32<bool>(proto, t);
      } else {
        NarrowFromInt32<uint8_t>(proto, t);  // int8 keeps its two's-complement bits
      }
      return Status::Ok();
    case 2:
      NarrowFromInt32<uint16_t>(proto, t);
      return Status::Ok();
    default:
      return UnsupportedDtype(proto.data_type(), what);
  }
}

Status ReadRawData(const RawData& raw, const std::string& what, Tensor* t) {
  const size_t need = t->nbytes();
  if (raw.size != need) {
    return Malformed(what + " has " + std::to_string(raw.size) +
                     " bytes of raw_data but its shape " + ShapeToString(t->shape) + " needs " +
                     std::to_string(need));
  }
  if (t->dtype == DType::kBool) {
    for (size_t i = 0; i < need; ++i) t->ptr<bool>()[i] = raw.data[i] != 0;
  } else if (need) {
    std::memcpy(t->data, raw.data, need);
  }
  return Status::Ok();
}

// The dtype and shape of an initializer whose raw_data can be used as it is: exactly the
// tensor's bytes (no bool conversion), at least 64 of them, aligned to `alignment`.
// False sends it down the copying path, which also reports a tensor over the byte limit.
bool UsableInPlace(const onnx::TensorProto& proto, const RawData& raw, size_t alignment,
                   DType* dtype, Shape* shape) {
  if (!raw.present || !IsSupportedDType(proto.data_type()) ||
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
  return Status(ErrorCode::kUnsupportedDtype,
                what + " has dtype " + OnnxTypeName(t) + " (" + std::to_string(t) +
                    "); webnx supports the numeric types: float16/32/64, int8/16/32/64, "
                    "uint8/16/32/64 and bool");
}

Status Malformed(const std::string& message) {
  return Status(ErrorCode::kMalformedModel, message);
}

int64_t StoredValueCount(const onnx::TensorProto& proto) {
  switch (proto.data_type()) {
    case onnx::TensorProto_DataType_FLOAT:
      return proto.float_data_size();
    case onnx::TensorProto_DataType_DOUBLE:
      return proto.double_data_size();
    case onnx::TensorProto_DataType_INT64:
      return proto.int64_data_size();
    case onnx::TensorProto_DataType_UINT32:
    case onnx::TensorProto_DataType_UINT64:
      return proto.uint64_data_size();
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
    return Malformed(what + " keeps its data in an external file, which only the main graph's " +
                     "initializers may");
  }
  const int32_t dt = proto.data_type();
  if (!IsSupportedDType(dt)) return UnsupportedDtype(dt, what);
  Shape shape(proto.dims().begin(), proto.dims().end());
  int64_t numel = 0;
  if (!ShapeNumel(shape, &numel)) {
    return Malformed(what + " has an invalid shape " + ShapeToString(shape));
  }
  const DType dtype = static_cast<DType>(dt);
  // The data must match the shape before anything the size of the shape is allocated.
  const int64_t stored =
      raw.present ? static_cast<int64_t>(raw.size) / static_cast<int64_t>(DTypeSize(dtype))
                  : StoredValueCount(proto);
  if (stored != numel) {
    return Malformed(what + " stores " + std::to_string(stored) + " values but its shape " +
                     ShapeToString(shape) + " needs " + std::to_string(numel));
  }
  WEBNX_RETURN_IF_ERROR(Tensor::Allocate(dtype, shape, out));
  if (raw.present) return ReadRawData(raw, what, out);
  return ReadTypedFields(proto, what, out);
}

Status ExternalRawData(const onnx::TensorProto& proto,
                       const std::map<std::string, std::string>* files, const std::string& what,
                       RawData* raw) {
  std::string location;
  int64_t offset = 0, length = -1;
  bool numbers = true;  // "checksum" and other keys do not change the bytes
  for (const auto& entry : proto.external_data()) {
    if (entry.key() == "location") location = entry.value();
    if (entry.key() == "offset") numbers = numbers && jsonl::ParseInt64(entry.value(), &offset);
    if (entry.key() == "length") numbers = numbers && jsonl::ParseInt64(entry.value(), &length);
  }
  const auto file =
      files ? files->find(location) : std::map<std::string, std::string>::const_iterator();
  if (!files || file == files->end()) {
    return Status(ErrorCode::kInvalidArgument,
                  what + " keeps its data in '" + location + "', a file not given");
  }
  const int64_t size = static_cast<int64_t>(file->second.size());
  if (!numbers || offset < 0 || length < -1 || offset > size || length > size - offset) {
    return Malformed(what + " has an external_data offset or length outside '" + location + "' (" +
                     std::to_string(size) + " bytes)");
  }
  *raw = RawData{true, file->second.data() + offset,
                 static_cast<size_t>(length >= 0 ? length : size - offset), nullptr};
  return Status::Ok();
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
