#include "core/constant_cache.h"

namespace webnx {

void ConstantCache::Init(const Graph& graph) {
  initializers_.clear();
  for (const auto& kv : graph.initializers) initializers_[&kv.second] = 1;
  exclusive_ = ExclusiveInitializers(graph);
}

const ConstantCache::Derived* ConstantCache::Find(const Tensor& source,
                                                  const std::string* kind) const {
  auto first = first_form_.find(&source);
  for (long i = first == first_form_.end() ? -1 : first->second; i >= 0; i = derived_[i].next)
    if (!kind || derived_[i].kind == *kind) return &derived_[i];
  return nullptr;
}

Status ConstantCache::Get(const Tensor& source, const std::string& kind, size_t floats,
                          const Derive& derive, Tensor* out, Placement placement) {
  if (!initializers_.count(&source)) return DeriveConstant(source, floats, derive, out);
  if (const Derived* found = Find(source, &kind)) {
    *out = found->tensor;
    return Status::Ok();
  }
  const Derived* form = Find(source, nullptr);  // a rewritten constant has that one form only
  if (form && form->rewritten) {
    return Status(ErrorCode::kInternal,
                  "a constant rewritten as '" + form->kind + "' was asked for as '" + kind + "'");
  }
  Derived d{&source, kind, Tensor(), false, -1};
  d.rewritten = placement == Placement::kMayRewrite && exclusive_.count(&source) &&
                source.dtype == DType::kFloat32 && floats > 0 &&
                static_cast<int64_t>(floats) == source.numel();
  if (d.rewritten) {
    d.tensor = source;  // the same storage, and the holder keeping it alive
    d.tensor.shape = {static_cast<int64_t>(floats)};
    derive(d.tensor.ptr<float>(), d.tensor.ptr<float>());
    rewritten_bytes_ += floats * sizeof(float);
  } else {
    WEBNX_RETURN_IF_ERROR(DeriveConstant(source, floats, derive, &d.tensor));
    derived_bytes_ += floats * sizeof(float);
  }
  *out = d.tensor;
  auto first = first_form_.find(&source);
  if (first != first_form_.end()) d.next = first->second;
  first_form_[&source] = static_cast<long>(derived_.size());
  derived_.push_back(std::move(d));
  return Status::Ok();
}

std::string ConstantCache::RewrittenAs(const Tensor& source) const {
  const Derived* d = Find(source, nullptr);  // a rewritten constant has that one form only
  return d && d->rewritten ? d->kind : std::string();
}

Status DeriveConstant(const Tensor& source, size_t floats, const ConstantCache::Derive& derive,
                      Tensor* out) {
  WEBNX_RETURN_IF_ERROR(
      Tensor::AllocateUninitialized(DType::kFloat32, {static_cast<int64_t>(floats)}, out));
  derive(source.ptr<float>(), out->ptr<float>());
  return Status::Ok();
}

}  // namespace webnx
