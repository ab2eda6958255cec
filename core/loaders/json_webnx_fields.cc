// Field readers shared by the webnx-graph document and node readers.
#include "core/loaders/json_webnx_fields.h"

#include "core/loaders/json_webnx.h"

namespace webnx {
namespace jsonl {

Status CheckKeys(const Json& obj, const std::string& pointer, const char* const* keys,
                 size_t n_keys, const char* what) {
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    bool known = false;
    for (size_t i = 0; i < n_keys; ++i) known = known || it.key() == keys[i];
    // "_comment"-style keys are free for writers' notes.
    if (!known && (it.key().empty() || it.key()[0] != '_')) {
      std::string list;
      for (size_t i = 0; i < n_keys; ++i) list += (list.empty() ? "" : ", ") + std::string(keys[i]);
      return MalformedAt(Child(pointer, it.key()),
                         std::string("unknown field of ") + what + " (expected " + list + ")");
    }
  }
  return Status::Ok();
}

Status ReadLayout(const Json& v, const std::string& pointer, bool* nhwc) {
  std::string layout;
  WEBNX_RETURN_IF_ERROR(ReadString(v, pointer, &layout));
  if (layout != "NHWC" && layout != "NCHW") {
    return MalformedAt(pointer,
                       "layout is \"NHWC\" or \"NCHW\", got '" + layout.substr(0, 20) + "'");
  }
  *nhwc = layout == "NHWC";
  return Status::Ok();
}

Status ReadDeclaredShape(const Json& v, const std::string& pointer, ValueInfo* info) {
  WEBNX_RETURN_IF_ERROR(ExpectArray(v, pointer));
  info->has_shape = true;
  info->dims.clear();
  for (size_t i = 0; i < v.size(); ++i) {
    const std::string at = Child(pointer, i);
    Dim dim;
    if (v[i].is_string()) {
      dim.symbol = v[i].get_ref<const std::string&>();
    } else if (!v[i].is_null()) {
      WEBNX_RETURN_IF_ERROR(ReadInt(v[i], at, &dim.value));
      if (dim.value < 0) return MalformedAt(at, "a dimension cannot be negative (null: unknown)");
    }
    info->dims.push_back(dim);
  }
  return Status::Ok();
}

Status ReadValueDecl(const Json& v, const std::string& pointer, bool need_dtype, ValueInfo* info) {
  if (v.is_string() && !need_dtype) {
    info->name = v.get_ref<const std::string&>();
  } else {
    WEBNX_RETURN_IF_ERROR(ExpectObject(v, pointer));
    static constexpr const char* kKeys[] = {"name", "dtype", "shape", "doc"};
    WEBNX_RETURN_IF_ERROR(CheckKeys(v, pointer, kKeys, "a value"));
    const Json* name = Member(v, "name");
    if (!name) return MalformedAt(pointer, "the value has no name");
    WEBNX_RETURN_IF_ERROR(ReadString(*name, Child(pointer, "name"), &info->name));
    if (const Json* d = Member(v, "dtype")) {
      WEBNX_RETURN_IF_ERROR(ReadInputDType(*d, Child(pointer, "dtype"), &info->dtype));
    } else if (need_dtype) {
      info->dtype = DType::kFloat32;
    }
    if (const Json* s = Member(v, "shape")) {
      WEBNX_RETURN_IF_ERROR(ReadDeclaredShape(*s, Child(pointer, "shape"), info));
    }
  }
  if (info->name.empty()) return MalformedAt(pointer, "the name is empty");
  return Status::Ok();
}

Status ReadNameArray(const Json& v, const std::string& pointer, std::vector<std::string>* out) {
  WEBNX_RETURN_IF_ERROR(ExpectArray(v, pointer));
  out->clear();
  for (size_t i = 0; i < v.size(); ++i) {
    std::string s;
    WEBNX_RETURN_IF_ERROR(ReadString(v[i], Child(pointer, i), &s));
    out->push_back(std::move(s));
  }
  return Status::Ok();
}

}  // namespace jsonl
}  // namespace webnx
