#include "core/constant_cache.h"

#include <algorithm>
#include <cstdint>
#include <unordered_map>

namespace webnx {

void ConstantCache::Init(const Graph& graph) {
  initializers_.clear();
  std::unordered_map<std::string, int> readers;
  for (const Node& node : graph.nodes)
    for (const std::string& name : node.inputs) ++readers[name];
  for (const ValueInfo& out : graph.outputs) ++readers[out.name];
  // Storage referenced from outside the graph (a copy of it given to another session) is not
  // the session's to rewrite: count each holder's references from the graph.
  std::unordered_map<const void*, long> holds;
  std::vector<const Tensor*> stored;
  // (address, index in `stored`): sorted like the memory planner's pairs, with no new sort.
  std::vector<std::pair<size_t, size_t>> by_address;
  for (const auto& kv : graph.initializers) {
    const Tensor& t = kv.second;
    initializers_[&t] = kInitializer;
    if (t.holder) ++holds[t.holder.get()];
    if (t.data && t.nbytes() > 0) {
      by_address.emplace_back(reinterpret_cast<size_t>(t.data), stored.size());
      stored.push_back(&t);
    }
  }
  // Constants sharing bytes (a folded view of another) are not exclusive either.
  std::sort(by_address.begin(), by_address.end());
  std::unordered_map<const void*, long> overlapping;
  size_t reach = 0;  // the furthest end so far, and whose it is
  const Tensor* reached_by = nullptr;
  for (const auto& entry : by_address) {
    const Tensor* t = stored[entry.second];
    if (entry.first < reach) overlapping[t] = overlapping[reached_by] = 1;
    if (entry.first + t->nbytes() > reach) {
      reach = entry.first + t->nbytes();
      reached_by = t;
    }
  }
  for (const auto& kv : graph.initializers) {
    const Tensor& t = kv.second;
    auto r = readers.find(kv.first);
    if (r != readers.end() && r->second == 1 && t.holder && !overlapping.count(&t) &&
        t.holder.use_count() == holds[t.holder.get()]) {
      initializers_[&t] |= kExclusive;
    }
  }
}

const ConstantCache::Derived* ConstantCache::Find(const Tensor& source,
                                                  const std::string* kind) const {
  auto first = first_form_.find(&source);
  for (long i = first == first_form_.end() ? -1 : first->second; i >= 0; i = derived_[i].next)
    if (!kind || derived_[i].kind == *kind) return &derived_[i];
  return nullptr;
}

Status ConstantCache::Get(const Tensor& source, const std::string& kind, size_t floats,
                          const Derive& derive, Tensor* out) {
  auto found_source = initializers_.find(&source);
  if (found_source == initializers_.end()) return DeriveConstant(source, floats, derive, out);
  if (const Derived* found = Find(source, &kind)) {
    *out = found->tensor;
    return Status::Ok();
  }
  const std::string rewritten = RewrittenAs(source);
  if (!rewritten.empty()) {
    return Status(ErrorCode::kInternal,
                  "a constant rewritten as '" + rewritten + "' was asked for as '" + kind + "'");
  }
  Derived d{&source, kind, Tensor(), false, -1};
  d.rewritten = (found_source->second & kExclusive) && source.dtype == DType::kFloat32 &&
                floats > 0 && static_cast<int64_t>(floats) == source.numel();
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
