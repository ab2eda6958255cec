// The contract between the planner and an operator implementation. An op registers a factory
// for a Kernel; the planner calls Plan() once per input-shape signature, then Run() per run.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/attrs.h"
#include "core/constant_cache.h"
#include "core/epilogue.h"
#include "core/graph.h"
#include "core/resolved_graph.h"
#include "core/tensor.h"
#include "core/thread_pool.h"

namespace webnx {

class FusionContext;  // core/passes/fuse_chains.h
struct FusedNode;

// What the planner knows about a value when a plan is made.
struct PlannedValue {
  DType dtype = DType::kUndefined;
  Shape shape;
  // Contents, when known at plan time (initializer or folded); null for a constant replaced by
  // its derived form (core/constant_cache.h), whose raw values are gone.
  const Tensor* value = nullptr;
  const Tensor* initializer = nullptr;  // the graph's initializer this value is, if any

  bool is_constant() const { return value || initializer; }
};

// What a kernel knows of its node before any input shape is known: its attributes and which
// inputs are initializers. Kernels declare from it the forms they read constants in.
class FormContext {
 public:
  FormContext(const Node& node, int since_version, std::vector<const Tensor*> constants)
      : node_(node),
        since_version_(since_version),
        attrs_(node),
        constants_(std::move(constants)) {}
  const Node& node() const { return node_; }
  int since_version() const { return since_version_; }
  Attrs& attrs() { return attrs_; }
  // Input i when it is an initializer, else nullptr.
  const Tensor* constant(int i) const {
    return i >= 0 && i < static_cast<int>(constants_.size()) ? constants_[i] : nullptr;
  }

 private:
  const Node& node_;
  int since_version_;
  Attrs attrs_;
  std::vector<const Tensor*> constants_;
};

class PlanContext {
 public:
  PlanContext(const Node& node, int since_version, std::vector<const PlannedValue*> inputs);
  // The same node, graph and threads, with other inputs (a kernel that plans another for it).
  PlanContext WithInputs(std::vector<const PlannedValue*> inputs) const;

  const Node& node() const { return node_; }
  int since_version() const { return since_version_; }
  // Threads a run may use (size per-thread scratch for this many).
  int threads() const { return threads_; }
  void set_threads(int threads) { threads_ = threads < 1 ? 1 : threads; }
  Attrs& attrs() { return attrs_; }

  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  // Present in the node and not the empty name of an omitted optional input.
  bool has_input(int i) const { return i >= 0 && i < num_inputs() && inputs_[i] != nullptr; }
  DType dtype(int i) const { return inputs_[i]->dtype; }
  const Shape& shape(int i) const { return inputs_[i]->shape; }
  // The input's contents when known at plan time, else nullptr (also for a constant replaced
  // by its derived form: its raw values are gone).
  const Tensor* constant(int i) const { return has_input(i) ? inputs_[i]->value : nullptr; }
  // True for a constant input, replaced or not.
  bool is_constant(int i) const { return has_input(i) && inputs_[i]->is_constant(); }
  // The session's derived constants (none when planning outside a session).
  void set_constants(ConstantCache* constants) { constants_ = constants; }
  // Constant input form.input in `form`: made once per session and shared by its plans
  // (ConstantCache), or the form that replaced it. Only float32 constants are ever replaced; a
  // form of another dtype's constant reads its bytes through `from` (int8 weights).
  Status Form(const ConstantForm& form, DerivedForm* out) const;
  // The graph the node is in, as its session resolved it (null outside a session): its
  // threads, derived constants, subgraphs and limits.
  void set_graph(const ResolvedGraph* graph);
  // The node's subgraph attribute `name` as the session prepared it (core/subgraph.h), or null.
  ResolvedSubgraph* subgraph(const std::string& name) const;
  const SessionLimits& limits() const { return limits_; }

  int num_outputs() const { return static_cast<int>(node_.outputs.size()); }
  bool has_output(int i) const { return i < num_outputs() && !node_.outputs[i].empty(); }
  void SetOutput(int i, DType dtype, Shape shape);
  // Output i's shape is known only once the node has run (NonZero, Unique...): Plan gives the
  // largest it can be, of the rank it has; Run writes the outputs within that and sets their
  // shapes. The planner then plans the rest of the graph per the shapes runs produce
  // (core/plan_continuation.cc).
  void SetOutputBound(int i, DType dtype, Shape bound) {
    SetOutput(i, dtype, std::move(bound));
    outputs_follow_data_ = true;
  }
  bool outputs_follow_data() const { return outputs_follow_data_; }
  const std::vector<PlannedValue>& outputs() const { return outputs_; }

  // An error that names this node: "node 'conv1' (Conv): <message>".
  Status Error(ErrorCode code, const std::string& message) const;
  // Checks the count of present inputs: MalformedModel when outside [min, max].
  Status ExpectInputs(int min, int max) const;
  // MalformedModel naming input i unless it is present (not omitted with an empty name).
  Status ExpectPresent(int i) const;
  // MalformedModel naming input i unless it is present and has one of the given dtypes.
  Status ExpectDType(int i, std::initializer_list<DType> allowed) const;
  // The same for kernels that only move elements: any dtype.
  Status ExpectAnyDType(int i) const;
  // Records that the kernel takes input i's dtype (ExpectDType and ExpectAnyDType do it). After
  // Plan, an input of a dtype beyond float32, int32, int64 and bool that no check accepted is
  // refused (PlanNode): a kernel written before webnx had that dtype never computes it silently.
  void AcceptDType(int i) const;
  bool DTypeAccepted(int i) const;

 private:
  const Node& node_;
  int since_version_;
  int threads_ = 1;
  ConstantCache* constants_ = nullptr;
  const SubgraphMap* subgraphs_ = nullptr;
  SessionLimits limits_;
  bool outputs_follow_data_ = false;
  mutable std::vector<bool> accepted_;  // per input: its dtype checked by the kernel
  Attrs attrs_;
  std::vector<const PlannedValue*> inputs_;
  std::vector<PlannedValue> outputs_;
};

class RunContext {
 public:
  RunContext(std::vector<const Tensor*> inputs, std::vector<Tensor*> outputs, int threads = 1)
      : inputs_(std::move(inputs)), outputs_(std::move(outputs)), threads_(threads) {}
  int threads() const { return threads_; }
  // Runs fn(task, slot) for every task in [0, tasks) on up to threads() threads; `slot` <
  // threads() picks the caller's per-thread scratch. Tasks must write disjoint outputs.
  void ParallelFor(int64_t tasks, const ThreadPool::TaskFn& fn) const {
    ThreadPool::Global().Run(threads_, tasks, fn);
  }
  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  bool has_input(int i) const { return i >= 0 && i < num_inputs() && inputs_[i] != nullptr; }
  const Tensor& input(int i) const { return *inputs_[i]; }
  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  bool has_output(int i) const { return i < num_outputs() && outputs_[i] != nullptr; }
  Tensor& output(int i) { return *outputs_[i]; }

 private:
  std::vector<const Tensor*> inputs_;
  std::vector<Tensor*> outputs_;
  int threads_ = 1;
};

// A per-channel affine map over axis 1 with constant parameters, y = (x - center[c]) * scale[c] +
// shift[c] (an inference BatchNormalization): what a producer that absorbs it folds into its
// weights at load (core/passes/fold_channel_affine.cc).
struct ChannelAffine {
  std::vector<float> center, scale, shift;
};

// Where a node keeps per-output-channel parameters that a channel affine after it folds into:
// output channel c is weight row c (dim 0 of input `weight_input`) plus bias[c] (input
// `bias_input`, which may be absent).
struct AffineAbsorber {
  int weight_input = -1;
  int bias_input = -1;
};

// How a node's output follows its inputs position by position, for layout passes
// (core/passes/fold_transposes.cc): kUnary, output i from input 0's element i (other inputs, if
// any, are scalars); kBroadcast, output i from every input's element at i under numpy
// broadcasting.
enum class ElementwiseKind { kNone, kUnary, kBroadcast };

class Kernel {
 public:
  virtual ~Kernel() = default;
  // Validates attributes and inputs, sets the dtype and shape of every output, and prepares
  // what Run needs (packed weights, index tables, scratch). Called once per plan.
  virtual Status Plan(PlanContext& ctx) = 0;
  // Computes the outputs into tensors already allocated with the planned shapes. Must not
  // allocate; scratch space belongs to the kernel and is sized in Plan.
  virtual Status Run(RunContext& ctx) = 0;
  // Declares the forms the node reads constant inputs in, for every input shape (from attributes
  // and the constants alone). A constant only this node reads, declared in one form, may be
  // replaced by it at load (core/constant_cache.h): Plan then sees it only through Form().
  virtual void DeclareForms(FormContext& ctx, std::vector<ConstantForm>* forms) const {}
  // Input positions whose contents Plan needs (they set the output shape) and that may be
  // float: a small graph input read there is then specialised on, each of its values getting
  // a plan of its own (core/session.cc). Small integer inputs always are, being shape-like.
  virtual void DeclarePlanTimeInputs(FormContext& ctx, std::vector<int>* inputs) const {}
  // Load-time folds: true when the node is a channel affine of input 0 (parameters filled from
  // its constants); true when a channel affine after the node folds into its weights.
  virtual bool IsChannelAffine(FormContext& ctx, ChannelAffine* affine) const { return false; }
  virtual bool AbsorbsChannelAffine(FormContext& ctx, AffineAbsorber* absorber) const {
    return false;
  }
  // Load-time fusion (core/passes/fuse_chains.h): true when the node and nodes around it form
  // a chain the kernel's family runs as one node, described in *fused.
  virtual bool ProposeFusion(const FusionContext& ctx, FusedNode* fused) const { return false; }
  // The attribute naming a dtype the op outputs (Cast's "to"), for load-time passes that
  // change dtypes; null when the op's output dtypes follow its inputs.
  virtual const char* DTypeAttribute() const { return nullptr; }
  // Layout passes: how the node is elementwise (ElementwiseKind), and whether it is a transpose
  // of input 0 (filling the permutation: output dim i is input dim perm[i]).
  virtual ElementwiseKind Elementwise() const { return ElementwiseKind::kNone; }
  virtual bool IsTranspose(FormContext& ctx, std::vector<int64_t>* perm) const { return false; }
  // True when the outputs depend only on the input shapes, never their contents (Shape,
  // Size): the planner then evaluates the node on the host once shapes are known.
  virtual bool ReadsOnlyInputShapes() const { return false; }
  // Index of the input whose storage output 0 shares (a view: Reshape, Squeeze, Identity...),
  // or -1. A view's Run points output 0 at that input's data instead of copying; the planner
  // then keeps that storage alive for as long as the view is used.
  virtual int OutputAliasesInput() const { return -1; }
  // Per input, the byte offset where output 0 holds it as one contiguous run (a Concat along an
  // axis with only 1s before it), or -1. The planner may then have the input's producer write
  // it there; Run must skip an input whose data is already at its place. Empty: none.
  virtual std::vector<int64_t> InputPlacesInOutput() const { return {}; }
  // Fusion (core/epilogue.h): what this node is inside a producer's epilogue, and the epilogue
  // this kernel applies after its own output 0 (null when it applies none).
  virtual EpilogueStage AsEpilogueStage() const { return {}; }
  virtual Epilogue* epilogue() { return nullptr; }
  // Asks the kernel to take over `consumer`, planned for the only reader of output 0, which
  // reads it as input 0 and has constants for its other inputs and a single output: this kernel
  // then writes the consumer's output in place of its own output 0 (never stored), and the
  // fusions asked of it later apply to that output. True when it has taken `consumer`.
  virtual bool FuseConsumer(std::unique_ptr<Kernel>& consumer) { return false; }
  // The address of a tag unique to the kernel's class, for a FuseConsumer that takes only its
  // own kind (the wasm build has no RTTI, so no dynamic_cast); null for most kernels.
  virtual const void* ClassTag() const { return nullptr; }
};

}  // namespace webnx
