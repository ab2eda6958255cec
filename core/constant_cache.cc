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

Status ConstantCache::CheckNotRewritten(const Tensor& source, const std::string& kind) const {
  const Derived* form = Find(source, nullptr);  // a rewritten constant has that one form only
  if (form && form->rewritten) {
    return Status(ErrorCode::kInternal,
                  "a constant rewritten as '" + form->kind + "' was asked for as '" + kind + "'");
  }
  return Status::Ok();
}

bool ConstantCache::MayRewrite(const Tensor& source) const {
  return exclusive_.count(&source) && source.dtype == DType::kFloat32;
}

void ConstantCache::Remember(Derived d) {
  auto first = first_form_.find(d.source);
  if (first != first_form_.end()) d.next = first->second;
  first_form_[d.source] = static_cast<long>(derived_.size());
  derived_.push_back(std::move(d));
}

Status ConstantCache::Get(const Tensor& source, const std::string& kind, size_t floats,
                          const Derive& derive, Tensor* out, Placement placement) {
  if (!initializers_.count(&source)) return DeriveConstant(source, floats, derive, out);
  if (const Derived* found = Find(source, &kind)) {
    *out = found->tensor;
    return Status::Ok();
  }
  WEBNX_RETURN_IF_ERROR(CheckNotRewritten(source, kind));
  Derived d{&source, kind, Tensor(), Tensor(), false, -1};
  d.rewritten = placement == Placement::kMayRewrite && MayRewrite(source) && floats > 0 &&
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
  Remember(std::move(d));
  return Status::Ok();
}

Status ConstantCache::GetSplit(const Tensor& source, const std::string& kind, size_t floats,
                               size_t granule, const DeriveSplit& derive, Tensor* head,
                               Tensor* tail) {
  const auto whole = [&](Tensor* to) {
    WEBNX_RETURN_IF_ERROR(
        Tensor::AllocateUninitialized(DType::kFloat32, {static_cast<int64_t>(floats)}, to));
    derive(source.ptr<float>(), to->ptr<float>(), (floats + granule - 1) / granule, nullptr);
    return Status::Ok();
  };
  *tail = Tensor();
  if (!initializers_.count(&source)) return whole(head);
  if (const Derived* found = Find(source, &kind)) {
    *head = found->tensor;
    *tail = found->tail;
    return Status::Ok();
  }
  WEBNX_RETURN_IF_ERROR(CheckNotRewritten(source, kind));
  Derived d{&source, kind, Tensor(), Tensor(), false, -1};
  const size_t head_granules = granule > 0 ? static_cast<size_t>(source.numel()) / granule : 0;
  d.rewritten = MayRewrite(source) && head_granules > 0 && head_granules * granule < floats;
  if (d.rewritten) {
    const size_t head_floats = head_granules * granule;
    WEBNX_RETURN_IF_ERROR(Tensor::AllocateUninitialized(
        DType::kFloat32, {static_cast<int64_t>(floats - head_floats)}, &d.tail));
    d.tensor = source;  // the same storage, and the holder keeping it alive
    d.tensor.shape = {static_cast<int64_t>(head_floats)};
    derive(d.tensor.ptr<float>(), d.tensor.ptr<float>(), head_granules, d.tail.ptr<float>());
    rewritten_bytes_ += head_floats * sizeof(float);
    derived_bytes_ += (floats - head_floats) * sizeof(float);
  } else {
    WEBNX_RETURN_IF_ERROR(whole(&d.tensor));
    derived_bytes_ += floats * sizeof(float);
  }
  *head = d.tensor;
  *tail = d.tail;
  Remember(std::move(d));
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
