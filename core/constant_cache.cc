#include "core/constant_cache.h"

namespace webnx {

Status ConstantCache::Prepare(const Graph& graph, const std::vector<Declared>& declared) {
  initializers_.clear();
  for (const auto& kv : graph.initializers) initializers_[&kv.second] = 1;
  const InitializerSet exclusive = ExclusiveInitializers(graph);
  // Forms declared per constant: only a constant with exactly one may be replaced by it.
  InitializerSet forms;
  for (const Declared& d : declared) ++forms[d.constant];
  for (const Declared& d : declared) {
    const Tensor& c = *d.constant;
    if (!exclusive.count(&c) || forms[&c] != 1 || c.dtype != DType::kFloat32) continue;
    bool replaced = false;
    Status s = Replace(c, d.form, &replaced);
    if (s.code() == ErrorCode::kOutOfMemory) continue;  // the form is made beside it, or not
    WEBNX_RETURN_IF_ERROR(s);
  }
  return Status::Ok();
}

bool ConstantCache::Replaced(const Tensor& constant) const {
  return replaced_.count(&constant) > 0;
}

const ConstantCache::Entry* ConstantCache::Find(const Tensor& source,
                                                const std::string& kind) const {
  auto first = first_entry_.find(&source);
  for (long i = first == first_entry_.end() ? -1 : first->second; i >= 0; i = entries_[i].next)
    if (entries_[i].kind == kind) return &entries_[i];
  return nullptr;
}

void ConstantCache::Remember(Entry e) {
  auto first = first_entry_.find(e.source);
  e.next = first == first_entry_.end() ? -1 : first->second;
  first_entry_[e.source] = static_cast<long>(entries_.size());
  entries_.push_back(std::move(e));
}

Status ConstantCache::Replace(const Tensor& source, const ConstantForm& form, bool* replaced) {
  const size_t numel = static_cast<size_t>(source.numel());
  Entry e{&source, form.kind, DerivedForm(), -1};
  *replaced = false;
  if (form.granule == 0) {
    if (form.floats == 0 || form.floats != numel) return Status::Ok();
    e.form.head = source;  // the same storage, and the holder keeping it alive
    e.form.head.shape = {static_cast<int64_t>(numel)};
    form.derive(e.form.head.ptr<float>(), e.form.head.ptr<float>());
    replaced_bytes_ += numel * sizeof(float);
  } else {
    const size_t head_granules = numel / form.granule;
    const size_t head_floats = head_granules * form.granule;
    if (head_granules == 0 || head_floats >= form.floats) return Status::Ok();
    // The tail first: nothing is written over the constant unless the whole form can be made.
    WEBNX_RETURN_IF_ERROR(Tensor::AllocateUninitialized(
        DType::kFloat32, {static_cast<int64_t>(form.floats - head_floats)}, &e.form.tail));
    e.form.head = source;
    e.form.head.shape = {static_cast<int64_t>(head_floats)};
    form.derive_split(e.form.head.ptr<float>(), e.form.head.ptr<float>(), head_granules,
                      e.form.tail.ptr<float>());
    replaced_bytes_ += head_floats * sizeof(float);
    derived_bytes_ += (form.floats - head_floats) * sizeof(float);
  }
  replaced_[&source] = static_cast<long>(entries_.size());
  Remember(std::move(e));
  *replaced = true;
  return Status::Ok();
}

Status ConstantCache::Get(const Tensor& source, const ConstantForm& form, DerivedForm* out) {
  if (const Entry* found = Find(source, form.kind)) {
    *out = found->form;
    return Status::Ok();
  }
  auto replaced = replaced_.find(&source);
  if (replaced != replaced_.end()) {
    return Status(ErrorCode::kInternal, "a constant replaced by its form '" +
                                            entries_[replaced->second].kind +
                                            "' was asked for as '" + form.kind + "'");
  }
  if (!initializers_.count(&source)) return DeriveForm(source, form, out);
  Entry e{&source, form.kind, DerivedForm(), -1};
  WEBNX_RETURN_IF_ERROR(DeriveForm(source, form, &e.form));
  derived_bytes_ += form.floats * sizeof(float);
  *out = e.form;
  Remember(std::move(e));
  return Status::Ok();
}

Status DeriveForm(const Tensor& source, const ConstantForm& form, DerivedForm* out) {
  out->tail = Tensor();
  WEBNX_RETURN_IF_ERROR(Tensor::AllocateUninitialized(
      DType::kFloat32, {static_cast<int64_t>(form.floats)}, &out->head));
  if (form.granule == 0) {
    form.derive(source.ptr<float>(), out->head.ptr<float>());
  } else {
    const size_t granules = (form.floats + form.granule - 1) / form.granule;
    form.derive_split(source.ptr<float>(), out->head.ptr<float>(), granules, nullptr);
  }
  return Status::Ok();
}

}  // namespace webnx
