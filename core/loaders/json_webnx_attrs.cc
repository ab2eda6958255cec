// webnx-graph attribute values of ONNX ops: plain JSON values typed by their shape and name.
#include <cmath>

#include "core/loaders/json_dialects.h"
#include "core/loaders/json_webnx.h"

namespace webnx {
namespace jsonl {
namespace {

// Attributes that are floats in every ONNX op that has them. JSON writers print 1.0 as 1, so
// without this list `"alpha": 1` would become an int the kernel rejects.
constexpr const char* kFloatAttributes[] = {"alpha",         "beta",
                                            "gamma",         "epsilon",
                                            "momentum",      "bias",
                                            "lambd",         "min",
                                            "max",           "ratio",
                                            "scale",         "scales",
                                            "spatial_scale", "extrapolation_value",
                                            "cubic_coeff_a", "value_float",
                                            "value_floats"};

bool IsFloatAttribute(const std::string& name) {
  for (const char* f : kFloatAttributes) {
    if (name == f) return true;
  }
  return false;
}

bool IsIntegral(const Json& v) {
  return v.is_number_integer() || v.is_boolean();
}

Status ConvertList(const std::string& name, const Json& v, const std::string& pointer,
                   Attribute* out) {
  bool all_numbers = true, all_strings = true, all_integral = true;
  for (const Json& item : v) {
    all_numbers = all_numbers && (item.is_number() || item.is_boolean());
    all_strings = all_strings && item.is_string();
    all_integral = all_integral && IsIntegral(item);
  }
  if (!v.empty() && all_strings) {
    out->type = Attribute::Type::kStrings;
    return ReadStrings(v, pointer, &out->strings);
  }
  if (!all_numbers) {
    return MalformedAt(pointer, "a list attribute must hold only numbers or only strings");
  }
  if (IsFloatAttribute(name) || !all_integral) {
    out->type = Attribute::Type::kFloats;
    out->floats.clear();
    for (size_t i = 0; i < v.size(); ++i) {
      float f = 0;
      if (v[i].is_boolean()) {
        f = v[i].get_ref<const bool&>() ? 1.f : 0.f;
      } else {
        WEBNX_RETURN_IF_ERROR(ReadFloat(v[i], Child(pointer, i), &f));
      }
      out->floats.push_back(f);
    }
    return Status::Ok();
  }
  out->type = Attribute::Type::kInts;
  out->ints.clear();
  for (size_t i = 0; i < v.size(); ++i) {
    int64_t x = 0;
    if (v[i].is_boolean()) {
      x = v[i].get_ref<const bool&>() ? 1 : 0;
    } else {
      WEBNX_RETURN_IF_ERROR(ReadInt(v[i], Child(pointer, i), &x));
    }
    out->ints.push_back(x);
  }
  return Status::Ok();
}

}  // namespace

Status ConvertAttribute(const std::string& name, const Json& v, const std::string& pointer,
                        const JsonExternalFiles& files, Attribute* out) {
  if (const auto* b = v.get_ptr<const Json::boolean_t*>()) {
    out->type = Attribute::Type::kInt;
    out->i = *b ? 1 : 0;
    return Status::Ok();
  }
  if (v.is_number()) {
    if (IsFloatAttribute(name) || v.is_number_float()) {
      out->type = Attribute::Type::kFloat;
      return ReadFloat(v, pointer, &out->f);
    }
    out->type = Attribute::Type::kInt;
    return ReadInt(v, pointer, &out->i);
  }
  if (v.is_string()) {
    out->type = Attribute::Type::kString;
    return ReadString(v, pointer, &out->s);
  }
  if (v.is_array()) return ConvertList(name, v, pointer, out);
  if (v.is_object()) {
    if (Member(v, "type")) {
      std::string ignored;
      return ReadOnnxAttribute(v, pointer, files, &ignored, out);
    }
    out->type = Attribute::Type::kTensor;
    return ReadWebnxTensor(v, pointer, files, &out->t);
  }
  return MalformedAt(pointer, "an attribute cannot be null");
}

Status ConvertAttributes(const DslNode& node, const JsonExternalFiles& files,
                         std::map<std::string, Attribute>* out) {
  out->clear();
  if (!node.attrs) return Status::Ok();
  for (auto it = node.attrs->begin(); it != node.attrs->end(); ++it) {
    Attribute a;
    WEBNX_RETURN_IF_ERROR(
        ConvertAttribute(it.key(), it.value(), node.AttrPointer(it.key()), files, &a));
    (*out)[it.key()] = std::move(a);
  }
  return Status::Ok();
}

}  // namespace jsonl
}  // namespace webnx
