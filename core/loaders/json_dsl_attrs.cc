#include "core/loaders/json_dsl_attrs.h"

namespace webnx {
namespace jsonl {

bool DslAttrs::Has(const char* key) const {
  return node_.attrs && Member(*node_.attrs, key);
}

const Json* DslAttrs::Get(const char* key) {
  known_.insert(key);
  return node_.attrs ? Member(*node_.attrs, key) : nullptr;
}

Status DslAttrs::Int(const char* key, int64_t fallback, int64_t* out) {
  const Json* v = Get(key);
  *out = fallback;
  return v ? ReadInt(*v, node_.AttrPointer(key), out) : Status::Ok();
}

Status DslAttrs::Float(const char* key, float fallback, float* out) {
  const Json* v = Get(key);
  *out = fallback;
  return v ? ReadFloat(*v, node_.AttrPointer(key), out) : Status::Ok();
}

Status DslAttrs::Bool(const char* key, bool fallback, bool* out) {
  const Json* v = Get(key);
  *out = fallback;
  return v ? ReadBool(*v, node_.AttrPointer(key), out) : Status::Ok();
}

Status DslAttrs::Ints(const char* key, size_t count, int64_t min, std::vector<int64_t> fallback,
                      std::vector<int64_t>* out) {
  const Json* v = Get(key);
  *out = std::move(fallback);
  if (!v) return Status::Ok();
  const std::string at = node_.AttrPointer(key);
  WEBNX_RETURN_IF_ERROR(ReadIntsN(*v, at, count, out));
  for (size_t i = 0; i < out->size(); ++i) {
    if ((*out)[i] < min) {
      return MalformedAt(Child(at, i), "must be at least " + std::to_string(min) + ", got " +
                                           std::to_string((*out)[i]));
    }
  }
  return Status::Ok();
}

Status DslAttrs::IntList(const char* key, std::vector<int64_t>* out, bool* present) {
  const Json* v = Get(key);
  *present = v != nullptr;
  out->clear();
  return v ? ReadInts(*v, node_.AttrPointer(key), out) : Status::Ok();
}

Status DslAttrs::Finish() const {
  if (!node_.attrs) return Status::Ok();
  for (auto it = node_.attrs->begin(); it != node_.attrs->end(); ++it) {
    if (known_.count(it.key())) continue;
    std::string list;
    for (const auto& k : known_) list += (list.empty() ? "" : ", ") + k;
    return MalformedAt(node_.AttrPointer(it.key()),
                       node_.op + " has no attribute '" + it.key() + "'" +
                           (list.empty() ? " (it takes none)" : " (it takes " + list + ")"));
  }
  return Status::Ok();
}

}  // namespace jsonl
}  // namespace webnx
