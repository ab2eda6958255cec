// A subgraph (If's branch, Loop's or Scan's body; core/subgraph.h) as its control-flow kernel
// runs it: planned once, when the kernel is planned, for what is known of its inputs then
// (shapes, and contents where known: those it folds like constants), then run by binding
// inputs, with no planning per run or per iteration.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/kernel.h"
#include "core/plan.h"
#include "core/subgraph.h"

namespace webnx {

class SubgraphRunner {
 public:
  // Plans `sub` for inputs[j], what is known of its input j. `where` names the node and the
  // subgraph in errors.
  Status Plan(ResolvedSubgraph& sub, const std::vector<PlannedValue>& inputs,
              const std::string& where);

  size_t num_inputs() const { return inputs_.size(); }
  size_t num_outputs() const { return results_.size(); }
  // Output k's dtype and shape; and contents when known as it was planned (output_known).
  const Tensor& output(size_t k) const { return plan_->output(k); }
  bool output_known(size_t k) const { return plan_->output_known(k); }

  // Binds input j for the next runs: `t` must have the planned shape and outlive them.
  void Bind(size_t j, const Tensor* t) { inputs_[j] = t; }
  // Runs the plan on the bound inputs. result(k) is valid until the next Run, and may be (a
  // view of) a bound input.
  Status Run();
  const Tensor& result(size_t k) const { return *results_[k]; }

 private:
  std::unique_ptr<webnx::Plan> plan_;
  std::string where_;
  std::vector<const Tensor*> inputs_;
  std::vector<const Tensor*> results_;
};

// For each of the subgraph's inputs from `first` on (the values it reads from the node's graph,
// CaptureOuterScope), the position of the node's input of that name.
Status CapturedInputPositions(const PlanContext& ctx, const ResolvedSubgraph& sub, size_t first,
                              std::vector<int>* positions);

// The planned value of every node input, for passing on to a subgraph.
PlannedValue PlannedInput(const PlanContext& ctx, int i);

// Copies `from` into `to`, of the same dtype and element count.
void CopyTensor(const Tensor& from, Tensor& to);

}  // namespace webnx
