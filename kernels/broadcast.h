// Numpy-style (multidirectional) broadcasting: the output shape of elementwise ops and a walker
// that visits the output in long runs so inner loops stay simple and vectorisable.
#pragma once

#include <array>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"

namespace webnx {

// The numpy broadcast of all `shapes` (right-aligned; each dim equal or 1). On failure returns
// ShapeMismatch naming every shape; the caller prefixes the node (PlanContext::Error).
Status BroadcastShapes(const std::vector<Shape>& shapes, Shape* out);

// True when `from` broadcasts to exactly `to` (unidirectional broadcasting, as PRelu needs).
bool BroadcastsTo(const Shape& from, const Shape& to);

// Visits an output of shape `out` where each element reads one element of every operand
// (operands broadcast to `out`). Dims are collapsed first, so a same-shape operand, a scalar, a
// per-channel [1,C,1,1] or per-row [N] operand become long runs in which each operand either
// advances by one element (step 1) or repeats one element (step 0).
class BroadcastWalker {
 public:
  static constexpr int kMaxOperands = 3;

  // Every operand shape must broadcast to `out` (check with BroadcastShapes first).
  void Init(const Shape& out, const std::vector<Shape>& operands);

  int64_t numel() const { return numel_; }
  // 1 when operand k advances within a run, 0 when it repeats one element.
  int64_t step(int k) const { return inner_step_[k]; }
  // Length of every run (the collapsed innermost dim).
  int64_t run_length() const { return inner_; }

  // Calls run(offsets, out_offset, n) for each run of n output elements starting at
  // out_offset; offsets[k] is where operand k's run starts (in elements).
  template <typename RunFn>
  void ForEachRun(RunFn&& run) {
    using Fn = std::remove_reference_t<RunFn>;
    ForEachRun([](void* fn, const int64_t* offsets, int64_t out_offset,
                  int64_t n) { (*static_cast<Fn*>(fn))(offsets, out_offset, n); },
               const_cast<void*>(static_cast<const void*>(&run)));
  }

  // The same through a plain callback: one odometer for every op and dtype, so only the loop
  // over a run is instantiated per (op, dtype) (the odometer inlined into each was ~30 KB).
  using RunCallback = void (*)(void* fn, const int64_t* offsets, int64_t out_offset, int64_t n);
  void ForEachRun(RunCallback run, void* fn);

 private:
  int num_operands_ = 0;
  int64_t numel_ = 0;
  int64_t inner_ = 1;
  std::array<int64_t, kMaxOperands> inner_step_{};
  std::vector<int64_t> outer_dims_;
  std::vector<std::array<int64_t, kMaxOperands>> outer_strides_;
  std::vector<int64_t> counter_;  // odometer scratch, sized in Init so runs never allocate
};

}  // namespace webnx
