// Plan::Build's state and steps (internal to core/plan*.cc). A plan is built node by node:
//  - plan_builder.cc: binds inputs and constants, plans each node's kernel, evaluates on the
//    host what is known (the shape-tensor fast path), or adds a step;
//  - plan_fusion.cc: lets an earlier step take a node over in its epilogue (clamps, functions,
//    gates, sums, consumers), from what the kernels declare about themselves;
//  - buffer_plan.h: which buffer holds each activation, and the arena they are laid out in.
//
// Each node is planned by its own function, and the fold, fuse and new-step paths are functions
// of their own too: V8 recompiles a wasm function with TurboFan once it has run enough code, and
// one loop over every node inside one big function made the planner itself a 7-35 ms compile,
// competing with the kernels' own compiles during the first run, for code that runs once per
// plan.
#pragma once

#include <list>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/buffer_plan.h"
#include "core/graph_index.h"
#include "core/plan.h"
#include "core/separate_function.h"

namespace webnx {

// Values' tensors by name, for continuations: a <string, int> map (the .wasm's one string-keyed
// hash table instantiation) over a vector.
class TensorRefs {
 public:
  const Tensor* at(const std::string& name) const { return refs_[index_.at(name)]; }
  void set(const std::string& name, const Tensor* t) {
    auto added = index_.emplace(name, static_cast<int>(refs_.size()));
    if (added.second) {
      refs_.push_back(t);
    } else {
      refs_[added.first->second] = t;
    }
  }

 private:
  std::unordered_map<std::string, int> index_;
  std::vector<const Tensor*> refs_;
};

struct Plan::Continuation {
  const ResolvedGraph* rg = nullptr;
  const OpRegistry* registry = nullptr;
  size_t next_node = 0;        // the first node the continuation plans
  std::string fetched;         // the plan's fetched outputs (Builder::fetched_)
  const Node* node = nullptr;  // the node whose output shapes follow its data
  // Its output slots (null for omitted outputs): each run sets their shapes, which key the plans.
  std::vector<const Tensor*> outputs;
  // Every value defined before the continuation, and where each run-time one lives (a slot of
  // the plan before it, which keeps it alive to its end).
  std::unordered_map<std::string, PlannedValue> known;
  TensorRefs slots;
  std::list<std::pair<std::string, std::unique_ptr<Plan>>> plans;  // most recently used first
};

class Plan::Builder {
 public:
  Builder(const ResolvedGraph& rg, const OpRegistry& registry, std::unique_ptr<Plan> plan)
      : rg_(rg), graph_(rg.graph), registry_(registry), index_(rg.graph), plan_(std::move(plan)) {}

  Status Build(const std::vector<const Tensor*>& inputs, const std::vector<bool>& specialize,
               const std::string& fetched);
  // plan_continuation.cc: the graph from `from.next_node` on, for the shapes the node before it
  // produced in this run.
  Status BuildContinuation(const Continuation& from);
  std::unique_ptr<Plan> Release() { return std::move(plan_); }

 private:
  using PlannedInputs = std::vector<const PlannedValue*>;
  using PlannedOutputs = std::vector<PlannedValue>;

  // plan_builder.cc
  WEBNX_SEPARATE_FUNCTION void BindConstants();
  WEBNX_SEPARATE_FUNCTION Status BindInputs(const std::vector<const Tensor*>& inputs,
                                            const std::vector<bool>& specialize);
  // Marks the nodes the fetched outputs depend on (needed_ stays empty when all are fetched).
  WEBNX_SEPARATE_FUNCTION void SelectNodes(const std::string& fetched);
  bool Needed(size_t n) const { return needed_.empty() || needed_[n] == '1'; }
  bool Fetched(size_t k) const { return fetched_.empty() || fetched_[k] == '1'; }
  WEBNX_SEPARATE_FUNCTION Status AddNode(size_t n);
  // Host evaluation at plan time: the node never runs for this shape signature.
  WEBNX_SEPARATE_FUNCTION Status FoldOnHost(const Node& node, Kernel& kernel,
                                            const PlannedInputs& in_planned,
                                            const PlannedOutputs& out_planned);
  WEBNX_SEPARATE_FUNCTION void AddStep(const Node& node, std::unique_ptr<Kernel> kernel,
                                       const PlannedInputs& in_planned,
                                       const PlannedOutputs& out_planned);
  WEBNX_SEPARATE_FUNCTION Status PlaceArena();
  WEBNX_SEPARATE_FUNCTION void Finish(double start_ms);
  // The slot of a value computed at run time, bound to its buffer once buffers are placed.
  Tensor& DeclareOutput(const std::string& name, const PlannedValue& planned);
  // Where a run-time value lives: this plan's slot, or the one of the plan it continues.
  const Tensor* Slot(const std::string& name) const;
  // Inputs the step's kernel would read where its output 0 holds them
  // (Kernel::InputPlacesInOutput): their buffers are placed there, so their producers write them
  // in place.
  void PlaceInputsInOutput(const Node& node, const Step& step);
  // plan_continuation.cc: ends the plan after node `n`, whose output shapes follow its data.
  void ContinueAfter(size_t n);

  // plan_fusion.cc. True when an earlier step took the node over.
  WEBNX_SEPARATE_FUNCTION bool TryFuse(const Node& node, std::unique_ptr<Kernel>& kernel,
                                       const PlannedInputs& in_planned,
                                       const PlannedOutputs& out_planned);
  // The step whose output 0 is the node's input 0 when nothing else reads that value and it
  // matches the node's output 0 in dtype and shape: an elementwise node that step can apply in
  // its epilogue then needs no step of its own. Otherwise -1.
  int ElementwiseProducer(const Node& node, const PlannedOutputs& outputs) const;
  // A clamp of a value only it reads: true when the producing step applies it instead.
  bool TryFuseClamp(const Node& node, const EpilogueStage& stage, const PlannedOutputs& outputs);
  // A sum whose one input comes from a step that can add the other in its epilogue: returns
  // that step's index (the sum then needs no step of its own) and sets *addend to the index
  // of the other input; or returns -1.
  int TryFuseSum(const Node& node, const EpilogueStage& stage, const PlannedOutputs& outputs,
                 const PlannedInputs& inputs, int* addend);
  // An epilogue function (Sigmoid, HardSigmoid...) of a value only it reads: true when the
  // producing step applies it instead.
  bool TryFuseFunction(const Node& node, const EpilogueStage& stage, const PlannedOutputs& outputs);
  // A product x * f(x) where f is the last step planned and x's producer can apply the gated
  // function: drops f's step, names its output in *gate_output and returns the index of x
  // among the product's inputs (its producer's buffer is then the product's), or -1.
  int TryFuseGated(const Node& node, const EpilogueStage& stage, const PlannedOutputs& outputs,
                   std::string* gate_output);
  // A node reading, besides constants, only a value that nothing else reads: returns the step
  // producing that value when its kernel takes this node's kernel over (Kernel::FuseConsumer),
  // else -1.
  int TryFuseConsumer(const Node& node, std::unique_ptr<Kernel>& kernel,
                      const PlannedInputs& inputs);
  // A node fused into the step producing `source`: its output is that step's buffer.
  void OutputIsBufferOf(const Node& node, const PlannedValue& planned, const std::string& source);
  // The epilogue of step `step` (-1: none), or null when its kernel applies none.
  Epilogue* EpilogueOf(int step) const;
  // The step whose output 0 is `value`, or -1; and that step when nothing else reads the value
  // (a fusion may then change what the step writes).
  int Producer(const std::string& value) const;
  int SoleReaderProducer(const std::string& value) const;
  // The step after which `value` holds its contents, whichever output of it (a view's pointer is
  // set by its step too), or -1 for a value no step writes (an input, a constant).
  int WrittenAt(const std::string& value) const;

  const ResolvedGraph& rg_;
  const Graph& graph_;
  const OpRegistry& registry_;
  const GraphIndex index_;  // readers of each value (graph outputs count as one)
  std::unique_ptr<Plan> plan_;
  // What is known about each value while planning.
  std::unordered_map<std::string, PlannedValue> known_;
  BufferPlan buffers_;  // views and fused nodes share their source's buffer
  // The step producing each value as its output 0 (fused nodes' outputs included).
  std::unordered_map<std::string, int> first_output_of_step_;
  // The step writing each value that is not its step's output 0 or is a view.
  std::unordered_map<std::string, int> other_output_of_step_;
  int64_t plan_constant_bytes_ = 0;  // outputs of nodes evaluated at plan time
  // A continuation's run-time values from the plans before it (core/plan_continuation.cc).
  TensorRefs external_;
  // Per node and per graph output, '1' or '0': planned, and fetched (empty: all of them). Strings
  // rather than vectors of flags: the .wasm has their code already.
  std::string needed_;
  std::string fetched_;
};

}  // namespace webnx
