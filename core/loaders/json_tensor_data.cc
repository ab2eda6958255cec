#include "core/loaders/json_tensor_data.h"

#include <cstring>
#include <limits>

#include "core/float16.h"

namespace webnx {
namespace jsonl {
namespace {

DType ComputeType(int32_t stored) {
  return stored == kStoredFloat16 ? DType::kFloat32 : static_cast<DType>(stored);
}

// Leaves of a (possibly nested) array; depth is bounded by the pre-parse scan.
int64_t CountLeaves(const Json& v) {
  if (!v.is_array()) return 1;
  int64_t n = 0;
  for (const Json& item : v) n += CountLeaves(item);
  return n;
}

class ValueWriter {
 public:
  ValueWriter(int32_t type, bool half_bits, Tensor* t)
      : type_(type), half_bits_(half_bits), t_(t) {}

  Status Write(const Json& v, const std::string& pointer) {
    if (v.is_array()) {
      for (size_t i = 0; i < v.size(); ++i) WEBNX_RETURN_IF_ERROR(Write(v[i], Child(pointer, i)));
      return Status::Ok();
    }
    return WriteOne(v, pointer);
  }

 private:
  Status WriteOne(const Json& v, const std::string& pointer) {
    switch (type_) {
      case kStoredFloat:
        return ReadFloat(v, pointer, t_->ptr<float>() + next_++);
      case kStoredFloat16: {
        if (!half_bits_) return ReadFloat(v, pointer, t_->ptr<float>() + next_++);
        int64_t bits = 0;
        WEBNX_RETURN_IF_ERROR(ReadInt(v, pointer, &bits));
        if (bits < 0 || bits > 0xffff) return MalformedAt(pointer, "not a float16 bit pattern");
        t_->ptr<float>()[next_++] = HalfToFloat(static_cast<uint16_t>(bits));
        return Status::Ok();
      }
      case kStoredInt64:
        return ReadInt(v, pointer, t_->ptr<int64_t>() + next_++);
      case kStoredUint64: {
        uint64_t u = 0;
        if (!AsUint64(v, &u)) return MalformedAt(pointer, "expected a uint64, got " + KindOf(v));
        t_->ptr<uint64_t>()[next_++] = u;
        return Status::Ok();
      }
      case kStoredDouble: {
        double d = 0;
        if (!AsDouble(v, &d)) return MalformedAt(pointer, "expected a number, got " + KindOf(v));
        t_->ptr<double>()[next_++] = d;
        return Status::Ok();
      }
      case kStoredUint8:
      case kStoredInt8:
      case kStoredUint16:
      case kStoredInt16:
      case kStoredInt32:
      case kStoredUint32:
        return WriteInteger(v, pointer);
      case kStoredBool: {
        bool b = false;
        WEBNX_RETURN_IF_ERROR(ReadBool(v, pointer, &b));
        t_->ptr<bool>()[next_++] = b;
        return Status::Ok();
      }
      default:
        return MalformedAt(pointer, "unsupported element type");
    }
  }

  // An integer of up to 32 bits, checked against its type's range, stored little-endian.
  Status WriteInteger(const Json& v, const std::string& pointer) {
    int64_t i = 0;
    WEBNX_RETURN_IF_ERROR(ReadInt(v, pointer, &i));
    const DType dtype = static_cast<DType>(type_);
    const size_t size = DTypeSize(dtype);
    const bool is_signed =
        dtype == DType::kInt8 || dtype == DType::kInt16 || dtype == DType::kInt32;
    const int64_t hi = (int64_t{1} << (8 * size - is_signed)) - 1;
    const int64_t lo = is_signed ? -hi - 1 : 0;
    if (i < lo || i > hi) {
      return MalformedAt(pointer, std::to_string(i) + " does not fit in " + DTypeName(dtype));
    }
    std::memcpy(static_cast<char*>(t_->data) + size * next_++, &i, size);
    return Status::Ok();
  }

  int32_t type_;
  bool half_bits_;
  Tensor* t_;
  int64_t next_ = 0;
};

}  // namespace

Status CheckStoredType(int32_t type, const std::string& pointer) {
  if (type >= kStoredFloat && type <= kStoredUint64 && type != 8) return Status::Ok();  // 8: string
  return ErrorAt(ErrorCode::kUnsupportedDtype, pointer,
                 "element type " + std::to_string(type) +
                     " is not supported; a JSON document stores the numeric types and bool "
                     "(ONNX codes 1-7 and 9-13), not strings, bfloat16, float8 or 4-bit");
}

size_t StoredSize(int32_t type) {
  return type == kStoredFloat16 ? 2 : DTypeSize(static_cast<DType>(type));
}

Status CheckedNumel(const Shape& shape, const std::string& pointer, int64_t* numel) {
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 0) {
      return MalformedAt(Child(pointer, i), "a tensor dimension cannot be negative");
    }
  }
  // Also bounds the byte count, so later size arithmetic cannot overflow.
  if (!ShapeNumel(shape, numel) || *numel > std::numeric_limits<int64_t>::max() / 8) {
    return MalformedAt(pointer, "the shape " + ShapeToString(shape) + " is too large");
  }
  return Status::Ok();
}

Status TensorFromBytes(int32_t type, const Shape& shape, const char* bytes, size_t size,
                       const std::string& pointer, Tensor* out) {
  int64_t numel = 0;
  WEBNX_RETURN_IF_ERROR(CheckedNumel(shape, pointer, &numel));
  const uint64_t need = static_cast<uint64_t>(numel) * StoredSize(type);
  if (size != need) {
    return MalformedAt(pointer, "has " + std::to_string(size) + " bytes but the shape " +
                                    ShapeToString(shape) + " needs " + std::to_string(need));
  }
  WEBNX_RETURN_IF_ERROR(Tensor::Allocate(ComputeType(type), shape, out));
  if (type == kStoredFloat16) {
    for (int64_t i = 0; i < numel; ++i) {
      uint16_t bits;
      std::memcpy(&bits, bytes + 2 * i, 2);
      out->ptr<float>()[i] = HalfToFloat(bits);
    }
  } else if (type == kStoredBool) {
    for (int64_t i = 0; i < numel; ++i) out->ptr<bool>()[i] = bytes[i] != 0;
  } else if (need) {
    std::memcpy(out->data, bytes, need);  // little-endian on every target webnx builds for
  }
  return Status::Ok();
}

Status TensorFromValues(int32_t type, const Shape& shape, const Json& values,
                        const std::string& pointer, bool half_bits, Tensor* out) {
  int64_t numel = 0;
  WEBNX_RETURN_IF_ERROR(CheckedNumel(shape, pointer, &numel));
  const int64_t have = CountLeaves(values);
  if (have != numel) {
    return MalformedAt(pointer, "has " + std::to_string(have) + " values but the shape " +
                                    ShapeToString(shape) + " needs " + std::to_string(numel));
  }
  WEBNX_RETURN_IF_ERROR(Tensor::Allocate(ComputeType(type), shape, out));
  ValueWriter writer(type, half_bits, out);
  return writer.Write(values, pointer);
}

Status TensorFromFile(int32_t type, const Shape& shape, const JsonExternalFiles& files,
                      const std::string& file, int64_t offset, int64_t length,
                      const std::string& pointer, Tensor* out) {
  auto it = files.find(file);
  if (it == files.end()) {
    return ErrorAt(ErrorCode::kInvalidArgument, pointer,
                   "the side file '" + file +
                       "' was not provided (pass it in the files option, or load the .json "
                       "from a path or URL next to it)");
  }
  int64_t numel = 0;
  WEBNX_RETURN_IF_ERROR(CheckedNumel(shape, pointer, &numel));
  const int64_t need = numel * static_cast<int64_t>(StoredSize(type));
  if (length >= 0 && length != need) {
    return MalformedAt(pointer, "length is " + std::to_string(length) + " bytes but the shape " +
                                    ShapeToString(shape) + " needs " + std::to_string(need));
  }
  const int64_t file_size = static_cast<int64_t>(it->second.size());
  if (offset < 0 || offset > file_size || need > file_size - offset) {
    return MalformedAt(pointer, "needs " + std::to_string(need) + " bytes at offset " +
                                    std::to_string(offset) + " but '" + file + "' has " +
                                    std::to_string(file_size) + " bytes");
  }
  return TensorFromBytes(type, shape, it->second.data() + offset, static_cast<size_t>(need),
                         pointer, out);
}

}  // namespace jsonl
}  // namespace webnx
