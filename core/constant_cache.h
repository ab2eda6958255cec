// Forms of a session's constant tensors that kernels derive when planning (packed weights):
// made once per session, shared by every plan the session makes.
//
// A constant whose storage only one node can see (core/exclusive_initializers.h) is rewritten in
// place when the derived form has the same size, so the session holds its weights once instead
// of raw and packed. Its raw values are then gone: a kernel that may read them asks RewrittenAs
// first.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/exclusive_initializers.h"
#include "core/graph.h"
#include "core/status.h"
#include "core/tensor.h"

namespace webnx {

class ConstantCache {
 public:
  // Writes the derived form (`to`) from the constant's float32 values (`from`). When the
  // constant is rewritten in place `to` is `from`: what is written over must be read first.
  using Derive = std::function<void(const float* from, float* to)>;

  // Notes the graph's initializers and which of them only one node can see. Call once the graph
  // is final.
  void Init(const Graph& graph);

  // Where a derived form may go: over its constant when only one node can see that and the
  // sizes match, or always beside it (for a kernel that may still read the raw values).
  enum class Placement { kMayRewrite, kBeside };

  // The form `kind` of float32 constant `source`, `floats` long: derived on the first request
  // when `source` is one of the graph's initializers (others, computed by a plan, live only as
  // long as it: derived anew). InternalError when `source` was rewritten as another kind.
  Status Get(const Tensor& source, const std::string& kind, size_t floats, const Derive& derive,
             Tensor* out, Placement placement = Placement::kMayRewrite);
  // A form bigger than its constant, `floats` long, in two parts. Where kMayRewrite would
  // rewrite a constant of the same size, as many whole granules (`granule` floats each) as fit
  // go over the constant (`head`) and the rest into new storage (`tail`), so the session holds
  // the constant's bytes once plus the excess; otherwise `head` holds the whole form (all its
  // granules, the last maybe short) and `tail` is empty. derive(from, head, head_granules, tail)
  // writes both; the tail is allocated before anything is written over the constant.
  using DeriveSplit =
      std::function<void(const float* from, float* head, size_t head_granules, float* tail)>;
  Status GetSplit(const Tensor& source, const std::string& kind, size_t floats, size_t granule,
                  const DeriveSplit& derive, Tensor* head, Tensor* tail);

  // The kind `source` was rewritten as, or "" while it holds its own values.
  std::string RewrittenAs(const Tensor& source) const;

  size_t derived_bytes() const { return derived_bytes_; }      // held besides the constants
  size_t rewritten_bytes() const { return rewritten_bytes_; }  // derived in the constants' place

 private:
  struct Derived {
    const Tensor* source;
    std::string kind;
    Tensor tensor;
    Tensor tail;     // a split form's second part (GetSplit)
    bool rewritten;  // `tensor` is the source's own storage
    long next;       // the source's next form in derived_, or -1
  };
  const Derived* Find(const Tensor& source, const std::string* kind) const;
  // Whether a form of `source` may be written over it: only one node sees it.
  bool MayRewrite(const Tensor& source) const;
  Status CheckNotRewritten(const Tensor& source, const std::string& kind) const;
  void Remember(Derived d);

  InitializerSet initializers_;
  InitializerSet exclusive_;  // those only one node can see
  std::vector<Derived> derived_;
  std::unordered_map<const void*, long> first_form_;  // source -> its first entry in derived_
  size_t derived_bytes_ = 0;
  size_t rewritten_bytes_ = 0;
};

// The same without a session: derives into new storage every time.
Status DeriveConstant(const Tensor& source, size_t floats, const ConstantCache::Derive& derive,
                      Tensor* out);

}  // namespace webnx
