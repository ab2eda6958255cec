#include "core/attrs.h"

namespace webnx {

const Attribute* Attrs::Find(const std::string& name, Attribute::Type want) {
  const Attribute* a = node_.attr(name);
  if (!a) return nullptr;
  if (a->type != want) {
    Fail("attribute '" + name + "' should be " + AttributeTypeName(want) + ", got " +
         AttributeTypeName(a->type));
    return nullptr;
  }
  return a;
}

void Attrs::Fail(const std::string& what) {
  if (status_.ok()) status_ = Status(ErrorCode::kMalformedModel, node_.Describe() + ": " + what);
}

int64_t Attrs::Int(const std::string& name, int64_t fallback) {
  const Attribute* a = Find(name, Attribute::Type::kInt);
  return a ? a->i : fallback;
}

float Attrs::Float(const std::string& name, float fallback) {
  const Attribute* a = Find(name, Attribute::Type::kFloat);
  return a ? a->f : fallback;
}

std::string Attrs::String(const std::string& name, const std::string& fallback) {
  const Attribute* a = Find(name, Attribute::Type::kString);
  return a ? a->s : fallback;
}

std::vector<int64_t> Attrs::Ints(const std::string& name, const std::vector<int64_t>& fallback) {
  const Attribute* a = Find(name, Attribute::Type::kInts);
  return a ? a->ints : fallback;
}

std::vector<float> Attrs::Floats(const std::string& name, const std::vector<float>& fallback) {
  const Attribute* a = Find(name, Attribute::Type::kFloats);
  return a ? a->floats : fallback;
}

const Tensor* Attrs::TensorAttr(const std::string& name) {
  const Attribute* a = Find(name, Attribute::Type::kTensor);
  return a ? &a->t : nullptr;
}

}  // namespace webnx
