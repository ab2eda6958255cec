// ONNX-JSON leaves: TensorProto and AttributeProto in protobuf's JSON mapping (camelCase,
// int64 as strings, base64 bytes, enum names) or as JS exporters write them (snake_case,
// numbers, plain strings, the attribute type as a string or left out).
#include <cctype>
#include <limits>

#include "core/loaders/json_base64.h"
#include "core/loaders/json_dialects.h"
#include "core/loaders/json_tensor_data.h"
#include "core/onnx_type_names.h"

namespace webnx {
namespace jsonl {
namespace {

constexpr const char* kAttributeTypeNames[] = {
    "UNDEFINED",      "FLOAT",      "INT",        "STRING",  "TENSOR", "GRAPH",
    "FLOATS",         "INTS",       "STRINGS",    "TENSORS", "GRAPHS", "SPARSE_TENSOR",
    "SPARSE_TENSORS", "TYPE_PROTO", "TYPE_PROTOS"};

enum AttrType {
  kUndefined = 0,
  kFloat = 1,
  kInt = 2,
  kString = 3,
  kTensor = 4,
  kGraph = 5,
  kFloats = 6,
  kInts = 7,
  kStrings = 8,
  kTensors = 9,
  kGraphs = 10,
};

bool EqualsIgnoreCase(const std::string& a, const char* b) {
  size_t i = 0;
  for (; i < a.size() && b[i]; ++i) {
    if (std::toupper(static_cast<unsigned char>(a[i])) != b[i]) return false;
  }
  return i == a.size() && !b[i];
}

// An enum: its number, or its name in any case.
template <size_t N>
Status ReadEnum(const Json& v, const std::string& pointer, const char* const (&names)[N],
                const char* what, int32_t* out) {
  int64_t number = 0;
  if (v.is_number() && AsInt64(v, &number) && number >= std::numeric_limits<int32_t>::min() &&
      number <= std::numeric_limits<int32_t>::max()) {
    *out = static_cast<int32_t>(number);
    return Status::Ok();
  }
  if (const auto* s = v.get_ptr<const Json::string_t*>()) {
    for (size_t i = 0; i < N; ++i) {
      if (EqualsIgnoreCase(*s, names[i])) {
        *out = static_cast<int32_t>(i);
        return Status::Ok();
      }
    }
    return MalformedAt(pointer, "'" + s->substr(0, 40) + "' is not a known " + what);
  }
  return MalformedAt(pointer,
                     std::string("expected a ") + what + " (a name or a number), got " + KindOf(v));
}

// A protobuf-JSON `bytes` string is base64; exporters writing plain JSON put the text itself.
std::string BytesOrText(const std::string& s) {
  std::string decoded;
  return LooksLikeBase64Text(s, &decoded) ? decoded : s;
}

Status ReadShapeDims(const Json& t, const std::string& pointer, Shape* shape) {
  const Json* dims = nullptr;
  std::string at;
  WEBNX_RETURN_IF_ERROR(MemberOf(t, pointer, {"dims"}, &dims, &at));
  shape->clear();
  if (!dims) return Status::Ok();  // a scalar: protobuf's JSON leaves empty lists out
  std::vector<int64_t> values;
  WEBNX_RETURN_IF_ERROR(ReadInts(*dims, at, &values));
  shape->assign(values.begin(), values.end());
  return Status::Ok();
}

// external_data: [{ key: "location" | "offset" | "length", value }], values as strings.
Status ReadExternal(const Json& t, const std::string& pointer, int32_t type, const Shape& shape,
                    const JsonExternalFiles& files, Tensor* out) {
  const Json* entries = nullptr;
  std::string at;
  WEBNX_RETURN_IF_ERROR(MemberOf(t, pointer, {"external_data", "externalData"}, &entries, &at));
  if (!entries)
    return MalformedAt(pointer, "data_location is EXTERNAL but external_data is missing");
  WEBNX_RETURN_IF_ERROR(ExpectArray(*entries, at));
  std::string location;
  int64_t offset = 0, length = -1;
  for (size_t i = 0; i < entries->size(); ++i) {
    const std::string entry_at = Child(at, i);
    const Json& e = (*entries)[i];
    WEBNX_RETURN_IF_ERROR(ExpectObject(e, entry_at));
    std::string key;
    const Json* k = Member(e, "key");
    const Json* v = Member(e, "value");
    if (!k || !v) return MalformedAt(entry_at, "expected { \"key\", \"value\" }");
    WEBNX_RETURN_IF_ERROR(ReadString(*k, Child(entry_at, "key"), &key));
    if (key == "location") {
      WEBNX_RETURN_IF_ERROR(ReadString(*v, Child(entry_at, "value"), &location));
    } else if (key == "offset") {
      WEBNX_RETURN_IF_ERROR(ReadInt(*v, Child(entry_at, "value"), &offset));
    } else if (key == "length") {
      WEBNX_RETURN_IF_ERROR(ReadInt(*v, Child(entry_at, "value"), &length));
    }  // "checksum" and others do not change the bytes
  }
  if (location.empty()) return MalformedAt(at, "external data has no 'location'");
  return TensorFromFile(type, shape, files, location, offset, length, at, out);
}

// The typed field that holds `type`'s elements when raw_data is absent.
struct TypedField {
  const char* snake;
  const char* camel;
  bool half_bits;
};

TypedField FieldFor(int32_t type) {
  switch (type) {
    case kStoredFloat:
      return {"float_data", "floatData", false};
    case kStoredInt64:
      return {"int64_data", "int64Data", false};
    case kStoredFloat16:
      return {"int32_data", "int32Data", true};
    case kStoredDouble:
      return {"double_data", "doubleData", false};
    case kStoredUint32:
    case kStoredUint64:
      return {"uint64_data", "uint64Data", false};
    default:  // the 8, 16 and 32-bit integers and bool
      return {"int32_data", "int32Data", false};
  }
}

}  // namespace

Status ReadOnnxTensor(const Json& t, const std::string& pointer, const JsonExternalFiles& files,
                      std::string* name, Tensor* out) {
  WEBNX_RETURN_IF_ERROR(ExpectObject(t, pointer));
  name->clear();
  if (const Json* n = Member(t, "name"))
    WEBNX_RETURN_IF_ERROR(ReadString(*n, Child(pointer, "name"), name));
  Shape shape;
  WEBNX_RETURN_IF_ERROR(ReadShapeDims(t, pointer, &shape));
  const Json* dt = nullptr;
  std::string dt_at;
  WEBNX_RETURN_IF_ERROR(MemberOf(t, pointer, {"data_type", "dataType"}, &dt, &dt_at));
  if (!dt) return MalformedAt(pointer, "the tensor has no data_type");
  int32_t type = 0;
  WEBNX_RETURN_IF_ERROR(ReadEnum(*dt, dt_at, kOnnxDataTypeNames, "tensor data type", &type));
  WEBNX_RETURN_IF_ERROR(CheckStoredType(type, dt_at));
  if (Member(t, "segment"))
    return MalformedAt(Child(pointer, "segment"), "segmented tensors are not supported");

  const Json* location = nullptr;
  std::string loc_at;
  WEBNX_RETURN_IF_ERROR(
      MemberOf(t, pointer, {"data_location", "dataLocation"}, &location, &loc_at));
  int32_t loc = 0;
  if (location) {
    static constexpr const char* kLocations[] = {"DEFAULT", "EXTERNAL"};
    WEBNX_RETURN_IF_ERROR(ReadEnum(*location, loc_at, kLocations, "data location", &loc));
  }
  if (loc == 1) return ReadExternal(t, pointer, type, shape, files, out);

  const TypedField field = FieldFor(type);
  const Json* raw = nullptr;
  const Json* typed = nullptr;
  std::string raw_at, typed_at;
  WEBNX_RETURN_IF_ERROR(MemberOf(t, pointer, {"raw_data", "rawData"}, &raw, &raw_at));
  WEBNX_RETURN_IF_ERROR(MemberOf(t, pointer, {field.snake, field.camel}, &typed, &typed_at));
  if (raw && typed) {
    return MalformedAt(typed_at, std::string("the tensor has both raw_data and ") + field.snake);
  }
  if (raw) {
    std::string text, bytes;
    WEBNX_RETURN_IF_ERROR(ReadString(*raw, raw_at, &text));
    if (!DecodeBase64(text, &bytes)) return MalformedAt(raw_at, "raw_data is not valid base64");
    return TensorFromBytes(type, shape, bytes.data(), bytes.size(), raw_at, out);
  }
  if (typed) {
    WEBNX_RETURN_IF_ERROR(ExpectArray(*typed, typed_at));
    return TensorFromValues(type, shape, *typed, typed_at, field.half_bits, out);
  }
  // Protobuf's JSON mapping leaves empty lists out, so no data field means no elements.
  int64_t numel = 0;
  WEBNX_RETURN_IF_ERROR(CheckedNumel(shape, pointer, &numel));
  if (numel != 0) {
    return MalformedAt(pointer, std::string("the tensor has no data (raw_data or ") + field.snake +
                                    ") but its shape " + ShapeToString(shape) + " needs " +
                                    std::to_string(numel) + " values");
  }
  return Tensor::Allocate(type == kStoredFloat16 ? DType::kFloat32 : static_cast<DType>(type),
                          shape, out);
}

Status ReadOnnxAttribute(const Json& a, const std::string& pointer, const JsonExternalFiles& files,
                         std::string* name, Attribute* out) {
  WEBNX_RETURN_IF_ERROR(ExpectObject(a, pointer));
  name->clear();
  if (const Json* n = Member(a, "name"))
    WEBNX_RETURN_IF_ERROR(ReadString(*n, Child(pointer, "name"), name));
  const Json* ref = nullptr;
  WEBNX_RETURN_IF_ERROR(MemberOf(a, pointer, {"ref_attr_name", "refAttrName"}, &ref, nullptr));
  if (ref) {
    return MalformedAt(pointer,
                       "refers to a function attribute; model-local functions are "
                       "not supported");
  }
  int32_t type = kUndefined;
  if (const Json* t = Member(a, "type")) {
    WEBNX_RETURN_IF_ERROR(
        ReadEnum(*t, Child(pointer, "type"), kAttributeTypeNames, "attribute type", &type));
  } else {
    // Old models and hand-written JSON leave the type out: the field that is set says it.
    static const std::pair<const char*, int32_t> kInfer[] = {
        {"f", kFloat},         {"i", kInt},         {"s", kString},  {"t", kTensor},
        {"g", kGraph},         {"floats", kFloats}, {"ints", kInts}, {"strings", kStrings},
        {"tensors", kTensors}, {"graphs", kGraphs}};
    for (const auto& entry : kInfer) {
      if (Member(a, entry.first)) {
        type = entry.second;
        break;
      }
    }
    if (type == kUndefined) {
      return MalformedAt(pointer,
                         "the attribute has no type and no value (f, i, s, t, floats, "
                         "ints or strings)");
    }
  }
  // A missing value field is the type's default: protobuf's JSON mapping omits 0, "" and [].
  auto field = [&](const char* key) { return Member(a, key); };
  const std::string at_f = Child(pointer, "f"), at_i = Child(pointer, "i"),
                    at_s = Child(pointer, "s");
  switch (type) {
    case kFloat:
      out->type = Attribute::Type::kFloat;
      out->f = 0;
      return field("f") ? ReadFloat(*field("f"), at_f, &out->f) : Status::Ok();
    case kInt:
      out->type = Attribute::Type::kInt;
      out->i = 0;
      return field("i") ? ReadInt(*field("i"), at_i, &out->i) : Status::Ok();
    case kString:
      out->type = Attribute::Type::kString;
      out->s.clear();
      if (field("s")) {
        WEBNX_RETURN_IF_ERROR(ReadString(*field("s"), at_s, &out->s));
        out->s = BytesOrText(out->s);
      }
      return Status::Ok();
    case kTensor: {
      out->type = Attribute::Type::kTensor;
      if (!field("t")) return MalformedAt(pointer, "a TENSOR attribute needs 't'");
      std::string ignored;
      return ReadOnnxTensor(*field("t"), Child(pointer, "t"), files, &ignored, &out->t);
    }
    case kFloats:
      out->type = Attribute::Type::kFloats;
      out->floats.clear();
      return field("floats") ? ReadFloats(*field("floats"), Child(pointer, "floats"), &out->floats)
                             : Status::Ok();
    case kInts:
      out->type = Attribute::Type::kInts;
      out->ints.clear();
      return field("ints") ? ReadInts(*field("ints"), Child(pointer, "ints"), &out->ints)
                           : Status::Ok();
    case kStrings:
      out->type = Attribute::Type::kStrings;
      out->strings.clear();
      if (field("strings")) {
        WEBNX_RETURN_IF_ERROR(
            ReadStrings(*field("strings"), Child(pointer, "strings"), &out->strings));
        for (auto& s : out->strings) s = BytesOrText(s);
      }
      return Status::Ok();
    case kGraph:
    case kGraphs:
      out->type = Attribute::Type::kGraph;  // no supported op reads subgraphs
      return Status::Ok();
    default:
      // Tensor lists, sparse tensors, type protos: kept undefined so an op reading one says so.
      out->type = Attribute::Type::kUndefined;
      return Status::Ok();
  }
}

}  // namespace jsonl
}  // namespace webnx
