// webnx-graph tensor objects and dtype names.
#include <cstring>

#include "core/loaders/json_base64.h"
#include "core/loaders/json_tensor_data.h"
#include "core/loaders/json_webnx.h"

namespace webnx {
namespace jsonl {
namespace {

struct DTypeName {
  const char* name;
  int32_t stored;
};

constexpr DTypeName kDTypes[] = {
    {"float32", kStoredFloat},  {"float", kStoredFloat},   {"float16", kStoredFloat16},
    {"float64", kStoredDouble}, {"double", kStoredDouble}, {"int8", kStoredInt8},
    {"uint8", kStoredUint8},    {"int16", kStoredInt16},   {"uint16", kStoredUint16},
    {"int32", kStoredInt32},    {"uint32", kStoredUint32}, {"int64", kStoredInt64},
    {"uint64", kStoredUint64},  {"bool", kStoredBool},
};

// Real dtypes webnx does not hold: UnsupportedDtype rather than "unknown".
constexpr const char* kUnsupported[] = {"bfloat16", "string"};

Status ReadStoredType(const Json& v, const std::string& pointer, int32_t* out) {
  std::string name;
  WEBNX_RETURN_IF_ERROR(ReadString(v, pointer, &name));
  for (const auto& d : kDTypes) {
    if (name == d.name) {
      *out = d.stored;
      return Status::Ok();
    }
  }
  for (const char* u : kUnsupported) {
    if (name == u) {
      return ErrorAt(ErrorCode::kUnsupportedDtype, pointer,
                     "dtype '" + name + "' is not supported; use a numeric type or bool");
    }
  }
  return MalformedAt(pointer, "unknown dtype '" + name.substr(0, 40) +
                                  "' (float16/32/64, int8/16/32/64, uint8/16/32/64 or bool)");
}

constexpr const char* kTensorKeys[] = {"dtype",  "shape",  "data", "base64", "file",
                                       "offset", "length", "name", "doc"};

}  // namespace

Status ReadInputDType(const Json& v, const std::string& pointer, DType* out) {
  int32_t stored = 0;
  WEBNX_RETURN_IF_ERROR(ReadStoredType(v, pointer, &stored));
  if (stored == kStoredFloat16) {
    return ErrorAt(ErrorCode::kUnsupportedDtype, pointer,
                   "float16 graph inputs are not supported (float16 tensors are widened to "
                   "float32 at load; inputs are fed as they are)");
  }
  *out = static_cast<DType>(stored);
  return Status::Ok();
}

Status ReadWebnxTensor(const Json& v, const std::string& pointer, const JsonExternalFiles& files,
                       Tensor* out) {
  WEBNX_RETURN_IF_ERROR(ExpectObject(v, pointer));
  for (auto it = v.begin(); it != v.end(); ++it) {
    bool known = false;
    for (const char* k : kTensorKeys) known = known || it.key() == k;
    if (!known) {
      return MalformedAt(Child(pointer, it.key()),
                         "unknown tensor field (a tensor has dtype, shape, and data, base64 or "
                         "file + offset)");
    }
  }
  int32_t stored = kStoredFloat;
  if (const Json* d = Member(v, "dtype")) {
    WEBNX_RETURN_IF_ERROR(ReadStoredType(*d, Child(pointer, "dtype"), &stored));
  }
  const Json* data = Member(v, "data");
  const Json* base64 = Member(v, "base64");
  const Json* file = Member(v, "file");
  const int sources = (data ? 1 : 0) + (base64 ? 1 : 0) + (file ? 1 : 0);
  if (sources != 1) {
    return MalformedAt(pointer, sources == 0 ? "the tensor has no data, base64 or file"
                                             : "give only one of data, base64 and file");
  }
  Shape shape;
  if (const Json* s = Member(v, "shape")) {
    std::vector<int64_t> dims;
    WEBNX_RETURN_IF_ERROR(ReadInts(*s, Child(pointer, "shape"), &dims));
    shape.assign(dims.begin(), dims.end());
  } else if (data && data->is_array()) {
    // Without a shape a flat list is 1-D; nested lists need one.
    for (size_t i = 0; i < data->size(); ++i) {
      if ((*data)[i].is_array()) {
        return MalformedAt(pointer, "nested data needs a shape");
      }
    }
    shape = {static_cast<int64_t>(data->size())};
  } else if (!data) {
    return MalformedAt(pointer, "the tensor needs a shape");
  }  // one bare number: a scalar
  if (data) return TensorFromValues(stored, shape, *data, Child(pointer, "data"), false, out);
  if (base64) {
    const std::string at = Child(pointer, "base64");
    std::string text, bytes;
    WEBNX_RETURN_IF_ERROR(ReadString(*base64, at, &text));
    if (!DecodeBase64(text, &bytes)) return MalformedAt(at, "not valid base64");
    return TensorFromBytes(stored, shape, bytes.data(), bytes.size(), at, out);
  }
  std::string name;
  WEBNX_RETURN_IF_ERROR(ReadString(*file, Child(pointer, "file"), &name));
  int64_t offset = 0, length = -1;
  if (const Json* o = Member(v, "offset")) {
    WEBNX_RETURN_IF_ERROR(ReadInt(*o, Child(pointer, "offset"), &offset));
  }
  if (const Json* l = Member(v, "length")) {
    WEBNX_RETURN_IF_ERROR(ReadInt(*l, Child(pointer, "length"), &length));
    if (length < 0) return MalformedAt(Child(pointer, "length"), "a length cannot be negative");
  }
  return TensorFromFile(stored, shape, files, name, offset, length, pointer, out);
}

}  // namespace jsonl
}  // namespace webnx
