// Forms of a session's constant tensors that kernels derive (packed weights): each a pure
// function of its constant and the kernel's static attributes, made once per session, keyed by
// (constant, kind) and shared by every plan the session makes.
//
// Constants never change. One rule, applied once at load by Prepare(), decides when a constant's
// storage is reused for its form instead: only one node reads it, that node declared (from its
// attributes and the constant's shape, never an input shape) that it reads it in that one form
// for every input shape, and the form fits over it. Such a constant is *replaced*: no plan is
// given its raw values again (PlannedValue::value is null for it), so none can read them.
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

// A derived form of a constant input, as a kernel describes it: `floats` long, written by
// `derive` from the constant's values (float32; a constant of another dtype, never replaced,
// is read as its bytes). When `granule` is set the form is made of granules of
// that many floats and may lie partly over the constant (ConstantCache::Prepare), written by
// `derive_split`.
struct ConstantForm {
  // Writes the form (`to`) from the constant's values (`from`). When the constant is replaced by
  // a form of its own size, `to` is `from`: what is written over must be read first.
  using Derive = std::function<void(const float* from, float* to)>;
  // Writes the first `head_granules` granules to `head` and the rest to `tail`.
  using DeriveSplit =
      std::function<void(const float* from, float* head, size_t head_granules, float* tail)>;

  int input = -1;
  std::string kind;
  size_t floats = 0;
  Derive derive;
  size_t granule = 0;
  DeriveSplit derive_split;
};

// A derived form: `head`, and for a split form whose head lies over its constant, `tail`.
struct DerivedForm {
  Tensor head;
  Tensor tail;
};

class ConstantCache {
 public:
  // One node's declared forms: the node reads each named constant only in that form.
  struct Declared {
    const Tensor* constant;
    ConstantForm form;
  };
  // Notes the graph's initializers, and replaces each constant that the rule above allows by
  // the one form its only reader declared. Call once the graph is final, before any plan.
  Status Prepare(const Graph& graph, const std::vector<Declared>& declared);

  // True when `constant` was replaced by a form: its raw values are gone.
  bool Replaced(const Tensor& constant) const;

  // The form of `source` (a constant): derived beside it on the first request when it
  // is one of the graph's initializers (others, computed by a plan, live only as long as it:
  // derived anew). InternalError when `source` was replaced by another form.
  Status Get(const Tensor& source, const ConstantForm& form, DerivedForm* out);

  size_t derived_bytes() const { return derived_bytes_; }    // held besides the constants
  size_t replaced_bytes() const { return replaced_bytes_; }  // derived in the constants' place

 private:
  struct Entry {
    const Tensor* source;
    std::string kind;
    DerivedForm form;
    long next;  // the source's next entry in entries_, or -1
  };
  const Entry* Find(const Tensor& source, const std::string& kind) const;
  void Remember(Entry e);
  // Derives `form` over the storage of `source` when it fits there (*replaced says whether).
  Status Replace(const Tensor& source, const ConstantForm& form, bool* replaced);

  // Keyed by the constant's address, InitializerSet's map type: the wasm build then carries
  // no other map's code.
  InitializerSet initializers_;
  InitializerSet replaced_;  // constant -> the index of the entry replacing it
  std::vector<Entry> entries_;
  InitializerSet first_entry_;  // constant -> its first entry in entries_
  size_t derived_bytes_ = 0;
  size_t replaced_bytes_ = 0;
};

// The form in new storage, without a session.
Status DeriveForm(const Tensor& source, const ConstantForm& form, DerivedForm* out);

}  // namespace webnx
