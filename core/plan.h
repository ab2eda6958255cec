// A plan: the graph specialised to one set of concrete input shapes. Making it infers every
// shape, evaluates on the host every node whose outputs are known from shapes and constants
// (the shape-tensor fast path), creates and prepares the kernels, and allocates every
// intermediate tensor, so Run() only calls kernels.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/graph.h"
#include "core/kernel.h"
#include "core/limits.h"
#include "core/op_registry.h"
#include "core/resolved_graph.h"

namespace webnx {

// Evaluates one node on the host on known inputs (nullptr = omitted optional input).
// Outputs are checked against `limits` before they are allocated.
Status EvaluateNode(const Node& node, int since_version, const OpRegistry& registry,
                    const std::vector<const Tensor*>& inputs, std::vector<Tensor>* outputs,
                    const SessionLimits& limits = SessionLimits());

// Time of one run step, for session.run(feeds, { profile: true }).
struct StepTiming {
  std::string node;
  std::string op_type;
  Shape output_shape;
  double ms = 0;
};

struct PlanStats {
  size_t graph_nodes = 0;   // nodes in the graph the plan was made from
  size_t run_steps = 0;     // kernels executed per run
  size_t folded_nodes = 0;  // nodes evaluated at plan time
  size_t fused_nodes = 0;   // nodes done by the producing kernel's epilogue (clamps, sums...)
  // Run steps whose outputs are all integer or bool tensors: shape computations that could not
  // be evaluated when the plan was made (0 for every model whose shapes follow from its inputs').
  size_t shape_steps = 0;
  size_t activation_bytes = 0;  // size of the activation arena
  double build_ms = 0;          // time taken to make the plan (weights packed, arena placed)
};

class Plan {
 public:
  // `inputs[i]` is graph input i (already validated): its shape always, and its contents too
  // when `specialize[i]` is set — small integer inputs (shapes, axes, pads fed at run time)
  // are then evaluated on the host like constants, and the plan is only valid for them.
  // `fetched[k]` is '1' when graph output k is wanted, '0' when not (empty: all are): the plan
  // holds only the nodes the wanted ones depend on, and its other outputs are null.
  static Status Build(const ResolvedGraph& rg, const OpRegistry& registry,
                      const std::vector<const Tensor*>& inputs, const std::vector<bool>& specialize,
                      const std::string& fetched, std::unique_ptr<Plan>* out);

  // `inputs[i]` is graph input i with the shape the plan was built for. Output pointers stay
  // valid until the next Run of this plan: outputs that alias an input (the input itself, or a
  // view of it) keep that input's storage alive until then.
  // With `profile`, also records each step's wall time.
  Status Run(const std::vector<const Tensor*>& inputs, std::vector<const Tensor*>* outputs,
             std::vector<StepTiming>* profile = nullptr);

  ~Plan();

  const PlanStats& stats() const { return stats_; }
  // True when a node's output shapes are known only once it has run (NonZero...): the plan
  // then ends at that node, and the rest is planned per the shapes runs produce.
  bool outputs_follow_data() const { return continuation_ != nullptr; }
  const std::vector<Shape>& output_shapes() const { return output_shapes_; }
  // Output k's dtype and shape; its contents too when they were known as the plan was made
  // (output_known: the same in every run, and readable before any). Only for fetched outputs.
  const Tensor& output(size_t k) const { return *output_slots_[k]; }
  bool output_known(size_t k) const { return output_known_[k]; }

 private:
  // Build's state and steps (core/plan_builder.h).
  class Builder;
  // The rest of the graph after a node whose output shapes only its run tells
  // (core/plan_continuation.cc).
  struct Continuation;

  Plan() = default;
  // Runs the steps, adding to `profile`, then the continuation planned for this run's shapes.
  Status RunSteps(std::vector<const Tensor*>* outputs, std::vector<StepTiming>* profile);
  // The continuation's plan for the shapes the last steps produced, made the first time.
  Status ContinuationPlan(Plan** plan);

  struct Step {
    const Node* node;
    std::unique_ptr<Kernel> kernel;
    std::vector<const Tensor*> inputs;
    std::vector<Tensor*> outputs;
  };
  std::unordered_map<std::string, Tensor> values_;  // node-based: pointers stay valid
  std::vector<Tensor> specialized_inputs_;          // copies of inputs the plan was specialised on
  std::vector<Tensor*> input_slots_;
  std::vector<const Tensor*> output_slots_;
  std::vector<Shape> output_shapes_;
  std::vector<bool> output_known_;
  std::vector<Step> steps_;
  Tensor arena_;  // every activation of the plan, placed by liveness
  int threads_ = 1;
  PlanStats stats_;
  std::unique_ptr<Continuation> continuation_;
};

}  // namespace webnx
