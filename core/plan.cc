#include "core/plan.h"

#include <algorithm>
#include <climits>
#include <cstdint>

#include "core/clock.h"
#include "core/memory_plan.h"
#include "core/separate_function.h"

namespace webnx {
namespace {

// Plans one node: returns its kernel with outputs' dtypes and shapes in `outputs`.
Status PlanNode(const Node& node, int since_version, int threads, ConstantCache* constants,
                const OpRegistry& registry, const std::vector<const PlannedValue*>& inputs,
                std::unique_ptr<Kernel>* kernel, std::vector<PlannedValue>* outputs) {
  *kernel = registry.Create(node.domain, node.op_type);
  if (!*kernel) {
    return Status(ErrorCode::kUnsupportedOperator, node.Describe() + " has no registered kernel");
  }
  PlanContext ctx(node, since_version, inputs);
  ctx.set_threads(threads);
  ctx.set_constants(constants);
  WEBNX_RETURN_IF_ERROR((*kernel)->Plan(ctx));
  WEBNX_RETURN_IF_ERROR(ctx.attrs().status());
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    if (ctx.has_output(i) && ctx.outputs()[i].dtype == DType::kUndefined) {
      return Status(ErrorCode::kUnsupportedOperator, node.Describe() + " does not produce output " +
                                                         std::to_string(i) + " ('" +
                                                         node.outputs[i] + "')");
    }
  }
  *outputs = ctx.outputs();
  return Status::Ok();
}

// Every output within the session's limits before anything is allocated or placed for it
// (this also catches a kernel's shape inference going negative or overflowing).
Status CheckPlannedOutputs(const Node& node, const std::vector<PlannedValue>& planned,
                           const SessionLimits& limits) {
  for (size_t i = 0; i < planned.size(); ++i) {
    if (node.outputs[i].empty()) continue;
    WEBNX_RETURN_IF_ERROR(CheckShapeLimits(planned[i].shape, DTypeSize(planned[i].dtype), limits,
                                           node.Describe() + ", output '" + node.outputs[i] + "'"));
  }
  return Status::Ok();
}

Status AllocateOutputs(const Node& node, const std::vector<PlannedValue>& planned,
                       std::vector<Tensor>* tensors) {
  tensors->assign(planned.size(), Tensor());
  for (size_t i = 0; i < planned.size(); ++i) {
    if (node.outputs[i].empty()) continue;
    Status s = Tensor::Allocate(planned[i].dtype, planned[i].shape, &(*tensors)[i]);
    if (!s.ok())
      return Status(s.code(),
                    node.Describe() + ", output '" + node.outputs[i] + "': " + s.message());
  }
  return Status::Ok();
}

// Bytes of a planned tensor (within limits: CheckPlannedOutputs ran).
int64_t PlannedBytes(const PlannedValue& pv) {
  int64_t n = 0;
  return ShapeNumel(pv.shape, &n) ? n * static_cast<int64_t>(DTypeSize(pv.dtype)) : 0;
}

// A plan's activations and plan-time constants share one budget. `where`: "" or the node that
// passed it.
Status CheckPlanBytes(int64_t bytes, const SessionLimits& limits, const std::string& where) {
  if (bytes <= limits.max_arena_bytes) return Status::Ok();
  return LimitError(ErrorCode::kOutOfMemory, "the plan needs", bytes,
                    " bytes for activations and plan-time constants" +
                        (where.empty() ? std::string() : " (at " + where + ")"),
                    limits.max_arena_bytes, "maxArenaBytes");
}

// Runs a kernel on host-known inputs into owned outputs. A view's output 0 then shares the
// storage (and ownership) of the input it aliases.
Status RunKernel(const Node& node, Kernel& kernel, std::vector<const Tensor*> inputs,
                 std::vector<Tensor>* outputs) {
  std::vector<Tensor*> out_ptrs;
  for (size_t i = 0; i < outputs->size(); ++i) {
    out_ptrs.push_back(node.outputs[i].empty() ? nullptr : &(*outputs)[i]);
  }
  const int alias = kernel.OutputAliasesInput();
  const Tensor* source =
      alias >= 0 && alias < static_cast<int>(inputs.size()) ? inputs[alias] : nullptr;
  RunContext ctx(std::move(inputs), std::move(out_ptrs));
  WEBNX_RETURN_IF_ERROR(kernel.Run(ctx));
  if (source && !outputs->empty()) (*outputs)[0].holder = source->holder;
  return Status::Ok();
}

}  // namespace

struct Plan::ValueUse {
  const std::unordered_map<std::string, int>& readers;  // graph outputs count as readers
  const std::unordered_map<std::string, int>& first_output_of_step;

  int Readers(const std::string& value) const {
    auto it = readers.find(value);
    return it == readers.end() ? 0 : it->second;
  }
  // The step whose output 0 is `value`, or -1.
  int Producer(const std::string& value) const {
    auto it = first_output_of_step.find(value);
    return it == first_output_of_step.end() ? -1 : it->second;
  }
  // The producer when nothing else reads the value (a fusion may then change what that step
  // writes), or -1.
  int SoleReaderProducer(const std::string& value) const {
    return Readers(value) == 1 ? Producer(value) : -1;
  }
};

int Plan::ElementwiseProducer(const Node& node, const std::vector<PlannedValue>& outputs,
                              const ValueUse& use, const Plan& plan) {
  if (node.inputs.empty() || node.outputs.size() != 1) return -1;
  const int producer = use.SoleReaderProducer(node.inputs[0]);
  if (producer < 0) return -1;
  const Tensor* produced = plan.steps_[producer].outputs[0];
  if (produced->dtype != outputs[0].dtype || produced->shape != outputs[0].shape) return -1;
  return producer;
}

bool Plan::TryFuseClamp(const Node& node, const Kernel& kernel,
                        const std::vector<PlannedValue>& outputs, const ValueUse& use, Plan* plan) {
  float lo = 0, hi = 0;
  if (!kernel.IsClamp(&lo, &hi)) return false;
  const int producer = ElementwiseProducer(node, outputs, use, *plan);
  return producer >= 0 && plan->steps_[producer].kernel->FuseClamp(lo, hi);
}

int Plan::TryFuseSum(const Node& node, const Kernel& kernel,
                     const std::vector<PlannedValue>& outputs,
                     const std::vector<const PlannedValue*>& inputs, const ValueUse& use,
                     Plan* plan, int* addend_input) {
  if (node.inputs.size() != 2 || node.outputs.size() != 1 || !kernel.IsSum()) return -1;
  if (!inputs[0] || !inputs[1] || inputs[0]->shape != inputs[1]->shape ||
      inputs[0]->shape != outputs[0].shape) {
    return -1;
  }
  // The step to fuse into is the later producer of the two: the other input must exist by
  // the time it runs, and its output must have no reader but this sum.
  int best = -1, addend = -1;
  for (int i = 0; i < 2; ++i) {
    const int producer = use.SoleReaderProducer(node.inputs[i]);
    if (producer > best) {
      best = producer;
      addend = 1 - i;
    }
  }
  if (best < 0 || use.Producer(node.inputs[addend]) > best) return -1;
  Step& step = plan->steps_[best];
  const Tensor* produced = step.outputs[0];
  if (produced->dtype != DType::kFloat32 || produced->shape != outputs[0].shape) return -1;
  const int slot = step.kernel->FuseAddend();
  if (slot < 0) return -1;
  if (step.inputs.size() <= static_cast<size_t>(slot)) step.inputs.resize(slot + 1, nullptr);
  const PlannedValue* value = inputs[addend];
  step.inputs[slot] = value->value ? value->value : &plan->values_.at(node.inputs[addend]);
  *addend_input = addend;
  return best;
}

bool Plan::TryFuseFunction(const Node& node, const Kernel& kernel,
                           const std::vector<PlannedValue>& outputs, const ValueUse& use,
                           Plan* plan) {
  EpilogueFunction f;
  if (node.inputs.size() != 1 || !kernel.IsEpilogueFunction(&f)) return false;
  const int producer = ElementwiseProducer(node, outputs, use, *plan);
  return producer >= 0 && plan->steps_[producer].kernel->FuseFunction(f);
}

int Plan::TryFuseGated(const Node& node, const Kernel& kernel,
                       const std::vector<PlannedValue>& outputs, const ValueUse& use, Plan* plan,
                       std::string* gate_output) {
  if (node.inputs.size() != 2 || node.outputs.size() != 1 || !kernel.IsProduct() ||
      plan->steps_.empty()) {
    return -1;
  }
  const Step& gate = plan->steps_.back();
  EpilogueFunction f;
  if (gate.node->inputs.size() != 1 || gate.node->outputs.size() != 1 ||
      !gate.kernel->IsEpilogueFunction(&f) || f.gated) {
    return -1;
  }
  const std::string& x = gate.node->inputs[0];
  const std::string& fx = gate.node->outputs[0];
  int x_input = -1;
  if (node.inputs[0] == x && node.inputs[1] == fx) x_input = 0;
  if (node.inputs[1] == x && node.inputs[0] == fx) x_input = 1;
  // x is read by f and the product only, f(x) by the product only.
  if (x_input < 0 || use.Readers(x) != 2 || use.Readers(fx) != 1) return -1;
  const int producer = use.Producer(x);
  if (producer < 0) return -1;
  Step& step = plan->steps_[producer];
  const Tensor* produced = step.outputs[0];
  if (produced->dtype != DType::kFloat32 || produced->shape != outputs[0].shape) return -1;
  f.gated = true;
  if (!step.kernel->FuseFunction(f)) return -1;
  *gate_output = fx;
  plan->steps_.pop_back();
  return x_input;
}

int Plan::TryFuseConsumer(const Node& node, std::unique_ptr<Kernel>& kernel,
                          const std::vector<const PlannedValue*>& inputs, const ValueUse& use,
                          Plan* plan) {
  if (node.inputs.empty() || node.inputs[0].empty() || node.outputs.size() != 1) return -1;
  for (size_t i = 1; i < inputs.size(); ++i)
    if (inputs[i] && !inputs[i]->is_constant()) return -1;
  const int producer = use.SoleReaderProducer(node.inputs[0]);
  if (producer < 0 || plan->steps_[producer].outputs.size() != 1) return -1;
  return plan->steps_[producer].kernel->FuseConsumer(kernel) ? producer : -1;
}

Status EvaluateNode(const Node& node, int since_version, const OpRegistry& registry,
                    const std::vector<const Tensor*>& inputs, std::vector<Tensor>* outputs,
                    const SessionLimits& limits) {
  std::vector<PlannedValue> planned(inputs.size());
  std::vector<const PlannedValue*> planned_ptrs(inputs.size(), nullptr);
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i]) continue;
    planned[i] = PlannedValue{inputs[i]->dtype, inputs[i]->shape, inputs[i]};
    planned_ptrs[i] = &planned[i];
  }
  std::unique_ptr<Kernel> kernel;
  std::vector<PlannedValue> out_planned;
  WEBNX_RETURN_IF_ERROR(
      PlanNode(node, since_version, 1, nullptr, registry, planned_ptrs, &kernel, &out_planned));
  WEBNX_RETURN_IF_ERROR(CheckPlannedOutputs(node, out_planned, limits));
  WEBNX_RETURN_IF_ERROR(AllocateOutputs(node, out_planned, outputs));
  return RunKernel(node, *kernel, inputs, outputs);
}

// Plan::Build's state and steps. Each node is planned by its own function, and the fold, fuse
// and new-step paths are functions of their own too: V8 recompiles a wasm function with
// TurboFan once it has run enough code, and one loop over every node inside one big function
// made the planner itself a 7-35 ms compile, competing with the kernels' own compiles during
// the first run, for code that runs once per plan.
class Plan::Builder {
 public:
  Builder(const ResolvedGraph& rg, const OpRegistry& registry, std::unique_ptr<Plan> plan)
      : rg_(rg), graph_(rg.graph), registry_(registry), plan_(std::move(plan)) {}

  Status Build(const std::vector<const Tensor*>& inputs, const std::vector<bool>& specialize,
               std::vector<int>* unknown_inputs);
  std::unique_ptr<Plan> Release() { return std::move(plan_); }

 private:
  WEBNX_SEPARATE_FUNCTION Status BindInputs(const std::vector<const Tensor*>& inputs,
                                            const std::vector<bool>& specialize);
  WEBNX_SEPARATE_FUNCTION void CountReaders();
  WEBNX_SEPARATE_FUNCTION Status AddNode(size_t n, const std::vector<bool>& specialize,
                                         std::vector<int>* unknown_inputs);
  // Host evaluation at plan time: the node never runs for this shape signature.
  WEBNX_SEPARATE_FUNCTION Status FoldOnHost(const Node& node, Kernel& kernel,
                                            const std::vector<const PlannedValue*>& in_planned,
                                            const std::vector<PlannedValue>& out_planned);
  // True when an earlier step took the node over (a clamp, function, gate, sum or consumer
  // fused into its epilogue).
  WEBNX_SEPARATE_FUNCTION bool TryFuse(const Node& node, std::unique_ptr<Kernel>& kernel,
                                       const std::vector<const PlannedValue*>& in_planned,
                                       const std::vector<PlannedValue>& out_planned);
  WEBNX_SEPARATE_FUNCTION void AddStep(const Node& node, std::unique_ptr<Kernel> kernel,
                                       const std::vector<const PlannedValue*>& in_planned,
                                       const std::vector<PlannedValue>& out_planned);
  WEBNX_SEPARATE_FUNCTION Status PlaceArena();
  WEBNX_SEPARATE_FUNCTION void Finish(double start_ms);

  // The slot of a value computed at run time, bound to its buffer once buffers are placed.
  Tensor& DeclareOutput(const std::string& name, const PlannedValue& planned);
  // A buffer of its own for `slot`, written by step `step`.
  void NewBuffer(const std::string& name, Tensor& slot, int step);
  // A value a fusion removed: never written, it takes no arena space and no step produces it.
  void NeverStored(const std::string& value);
  // A node fused into the step producing `source`: its output is that step's buffer.
  void OutputIsBufferOf(const Node& node, const PlannedValue& planned, const std::string& source);

  const ResolvedGraph& rg_;
  const Graph& graph_;
  const OpRegistry& registry_;
  std::unique_ptr<Plan> plan_;
  // What is known about each value while planning.
  std::unordered_map<std::string, PlannedValue> known_;
  // Activation buffers for the memory plan; views share their source's buffer.
  std::vector<BufferLifetime> buffers_;
  std::vector<std::vector<Tensor*>> buffer_tensors_;
  std::unordered_map<std::string, int> buffer_of_;
  // Readers of each value (graph outputs count as one), and the step producing its output 0.
  std::unordered_map<std::string, int> readers_;
  std::unordered_map<std::string, int> first_output_of_step_;
  const ValueUse use_{readers_, first_output_of_step_};
  int64_t plan_constant_bytes_ = 0;  // outputs of nodes evaluated at plan time
};

Status Plan::Build(const ResolvedGraph& rg, const OpRegistry& registry,
                   const std::vector<const Tensor*>& inputs, const std::vector<bool>& specialize,
                   std::unique_ptr<Plan>* out, std::vector<int>* unknown_inputs) {
  Builder builder(rg, registry, std::unique_ptr<Plan>(new Plan()));
  WEBNX_RETURN_IF_ERROR(builder.Build(inputs, specialize, unknown_inputs));
  *out = builder.Release();
  return Status::Ok();
}

Status Plan::Builder::Build(const std::vector<const Tensor*>& inputs,
                            const std::vector<bool>& specialize, std::vector<int>* unknown_inputs) {
  const double start_ms = NowMs();
  plan_->stats_.graph_nodes = graph_.nodes.size();
  WEBNX_RETURN_IF_ERROR(BindInputs(inputs, specialize));
  CountReaders();
  for (size_t n = 0; n < graph_.nodes.size(); ++n)
    WEBNX_RETURN_IF_ERROR(AddNode(n, specialize, unknown_inputs));
  WEBNX_RETURN_IF_ERROR(PlaceArena());
  Finish(start_ms);
  return Status::Ok();
}

Status Plan::Builder::BindInputs(const std::vector<const Tensor*>& inputs,
                                 const std::vector<bool>& specialize) {
  for (const auto& kv : graph_.initializers) {
    const Tensor& c = kv.second;
    const bool replaced = rg_.constants && rg_.constants->Replaced(c);
    known_[kv.first] = PlannedValue{c.dtype, c.shape, replaced ? nullptr : &c, &c};
    // A replaced constant's step input: its shape, never its (gone) values.
    if (replaced) plan_->values_[kv.first] = Tensor::Borrow(c.dtype, c.shape, nullptr);
  }
  plan_->specialized_inputs_.resize(graph_.inputs.size());
  for (size_t i = 0; i < graph_.inputs.size(); ++i) {
    const ValueInfo& in = graph_.inputs[i];
    Tensor& slot = plan_->values_[in.name];
    slot = Tensor::Borrow(in.dtype, inputs[i]->shape, nullptr);  // bound to caller data per run
    plan_->input_slots_.push_back(&slot);
    const Tensor* value = nullptr;
    if (specialize[i]) {
      WEBNX_RETURN_IF_ERROR(inputs[i]->Clone(&plan_->specialized_inputs_[i]));
      value = &plan_->specialized_inputs_[i];
    }
    known_[in.name] = PlannedValue{in.dtype, inputs[i]->shape, value};
  }
  return Status::Ok();
}

void Plan::Builder::CountReaders() {
  for (const Node& node : graph_.nodes)
    for (const auto& name : node.inputs) ++readers_[name];
  for (const auto& out : graph_.outputs) ++readers_[out.name];
}

Tensor& Plan::Builder::DeclareOutput(const std::string& name, const PlannedValue& planned) {
  Tensor& slot = plan_->values_[name];
  slot = Tensor::Borrow(planned.dtype, planned.shape, nullptr);
  known_[name] = PlannedValue{slot.dtype, slot.shape, nullptr};
  return slot;
}

void Plan::Builder::NewBuffer(const std::string& name, Tensor& slot, int step) {
  buffer_of_[name] = static_cast<int>(buffers_.size());
  buffers_.push_back(BufferLifetime{slot.nbytes(), step, step});
  buffer_tensors_.push_back({&slot});
}

void Plan::Builder::NeverStored(const std::string& value) {
  auto b = buffer_of_.find(value);
  if (b != buffer_of_.end()) buffers_[b->second].bytes = 0;
  first_output_of_step_.erase(value);
}

void Plan::Builder::OutputIsBufferOf(const Node& node, const PlannedValue& planned,
                                     const std::string& source) {
  Tensor& slot = DeclareOutput(node.outputs[0], planned);
  const int b = buffer_of_.at(source);
  buffer_of_[node.outputs[0]] = b;
  buffer_tensors_[b].push_back(&slot);
  // Later fusions see the step as this node's producer.
  auto producer = first_output_of_step_.find(source);
  if (producer != first_output_of_step_.end())
    first_output_of_step_[node.outputs[0]] = producer->second;
  ++plan_->stats_.fused_nodes;
}

Status Plan::Builder::AddNode(size_t n, const std::vector<bool>& specialize,
                              std::vector<int>* unknown_inputs) {
  const Node& node = graph_.nodes[n];
  std::vector<const PlannedValue*> in_planned;
  bool all_known = true;
  for (const auto& name : node.inputs) {
    if (name.empty()) {
      in_planned.push_back(nullptr);
      continue;
    }
    const PlannedValue& pv = known_.at(name);  // the loader checked every name is defined
    in_planned.push_back(&pv);
    all_known = all_known && pv.value != nullptr;
  }
  std::unique_ptr<Kernel> kernel;
  std::vector<PlannedValue> out_planned;
  Status planned = PlanNode(node, rg_.since_versions[n], rg_.threads, rg_.constants, registry_,
                            in_planned, &kernel, &out_planned);
  if (!planned.ok()) {
    for (size_t i = 0; unknown_inputs && i < graph_.inputs.size(); ++i) {
      const bool read = std::find(node.inputs.begin(), node.inputs.end(), graph_.inputs[i].name) !=
                        node.inputs.end();
      if (read && !specialize[i]) unknown_inputs->push_back(static_cast<int>(i));
    }
    return planned;
  }
  WEBNX_RETURN_IF_ERROR(CheckPlannedOutputs(node, out_planned, rg_.limits));
  if (all_known || kernel->ReadsOnlyInputShapes())
    return FoldOnHost(node, *kernel, in_planned, out_planned);
  if (!TryFuse(node, kernel, in_planned, out_planned))
    AddStep(node, std::move(kernel), in_planned, out_planned);
  return Status::Ok();
}

Status Plan::Builder::FoldOnHost(const Node& node, Kernel& kernel,
                                 const std::vector<const PlannedValue*>& in_planned,
                                 const std::vector<PlannedValue>& out_planned) {
  for (size_t i = 0; i < out_planned.size(); ++i)
    if (!node.outputs[i].empty()) plan_constant_bytes_ += PlannedBytes(out_planned[i]);
  WEBNX_RETURN_IF_ERROR(CheckPlanBytes(plan_constant_bytes_, rg_.limits, node.Describe()));
  std::vector<Tensor> outputs;
  WEBNX_RETURN_IF_ERROR(AllocateOutputs(node, out_planned, &outputs));
  std::vector<Tensor> shape_only(node.inputs.size());
  std::vector<const Tensor*> in_tensors;
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    const PlannedValue* pv = in_planned[i];
    if (pv && !pv->value) shape_only[i] = Tensor::Borrow(pv->dtype, pv->shape, nullptr);
    in_tensors.push_back(!pv ? nullptr : pv->value ? pv->value : &shape_only[i]);
  }
  WEBNX_RETURN_IF_ERROR(RunKernel(node, kernel, in_tensors, &outputs));
  ++plan_->stats_.folded_nodes;
  for (size_t i = 0; i < node.outputs.size(); ++i) {
    if (node.outputs[i].empty()) continue;
    Tensor& slot = plan_->values_[node.outputs[i]];
    slot = std::move(outputs[i]);
    known_[node.outputs[i]] = PlannedValue{slot.dtype, slot.shape, &slot};
  }
  return Status::Ok();
}

bool Plan::Builder::TryFuse(const Node& node, std::unique_ptr<Kernel>& kernel,
                            const std::vector<const PlannedValue*>& in_planned,
                            const std::vector<PlannedValue>& out_planned) {
  Plan* plan = plan_.get();
  if (TryFuseClamp(node, *kernel, out_planned, use_, plan)) {
    OutputIsBufferOf(node, out_planned[0], node.inputs[0]);  // clamped in the producer's epilogue
    return true;
  }
  if (TryFuseFunction(node, *kernel, out_planned, use_, plan)) {
    OutputIsBufferOf(node, out_planned[0], node.inputs[0]);
    return true;
  }
  std::string gate_output;
  const int gated_input = TryFuseGated(node, *kernel, out_planned, use_, plan, &gate_output);
  if (gated_input >= 0) {
    NeverStored(gate_output);  // the dropped gate step's output
    ++plan_->stats_.fused_nodes;
    OutputIsBufferOf(node, out_planned[0], node.inputs[gated_input]);
    return true;
  }

  int addend_input = -1;
  const int sum_into =
      TryFuseSum(node, *kernel, out_planned, in_planned, use_, plan, &addend_input);
  if (sum_into >= 0) {
    // The step adds the other input in its epilogue: this node's output is its buffer, and
    // the other input's buffer must live until that step.
    auto ab = buffer_of_.find(node.inputs[addend_input]);
    if (ab != buffer_of_.end())
      buffers_[ab->second].last_step = std::max(buffers_[ab->second].last_step, sum_into);
    OutputIsBufferOf(node, out_planned[0], node.inputs[1 - addend_input]);
    first_output_of_step_[node.outputs[0]] = sum_into;  // a clamp after the sum can fuse too
    return true;
  }

  const int consumed_by = TryFuseConsumer(node, kernel, in_planned, use_, plan);
  if (consumed_by >= 0) {
    // That step now writes this node's output; the value between them is never stored.
    NeverStored(node.inputs[0]);
    Tensor& slot = DeclareOutput(node.outputs[0], out_planned[0]);
    plan_->steps_[consumed_by].outputs[0] = &slot;
    first_output_of_step_[node.outputs[0]] = consumed_by;
    NewBuffer(node.outputs[0], slot, consumed_by);
    ++plan_->stats_.fused_nodes;
    return true;
  }
  return false;
}

void Plan::Builder::AddStep(const Node& node, std::unique_ptr<Kernel> kernel,
                            const std::vector<const PlannedValue*>& in_planned,
                            const std::vector<PlannedValue>& out_planned) {
  const int step_index = static_cast<int>(plan_->steps_.size());
  Step step{&node, std::move(kernel), {}, {}};
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    const std::string& name = node.inputs[i];
    if (name.empty()) {
      step.inputs.push_back(nullptr);
    } else if (in_planned[i]->value) {
      step.inputs.push_back(in_planned[i]->value);
    } else {
      step.inputs.push_back(&plan_->values_.at(name));
      auto b = buffer_of_.find(name);
      if (b != buffer_of_.end()) buffers_[b->second].last_step = step_index;
    }
  }
  const int alias = step.kernel->OutputAliasesInput();
  for (size_t i = 0; i < node.outputs.size(); ++i) {
    const std::string& name = node.outputs[i];
    if (name.empty()) {
      step.outputs.push_back(nullptr);
      continue;
    }
    Tensor& slot = DeclareOutput(name, out_planned[i]);
    step.outputs.push_back(&slot);
    if (i == 0 && alias >= 0) {
      // A view: its Run points it at the source; the source's buffer must outlive it.
      auto b = buffer_of_.find(node.inputs[alias]);
      if (b != buffer_of_.end()) buffer_of_[name] = b->second;
      continue;
    }
    if (i == 0) first_output_of_step_[name] = step_index;
    NewBuffer(name, slot, step_index);
  }
  plan_->steps_.push_back(std::move(step));
}

Status Plan::Builder::PlaceArena() {
  for (const auto& out : graph_.outputs) {
    auto b = buffer_of_.find(out.name);
    if (b != buffer_of_.end()) buffers_[b->second].last_step = INT_MAX;  // read after the run
  }
  size_t arena_bytes = 0;
  std::vector<size_t> offsets = PlaceBuffers(buffers_, &arena_bytes);
  const int64_t arena = arena_bytes == SIZE_MAX ? INT64_MAX : static_cast<int64_t>(arena_bytes);
  WEBNX_RETURN_IF_ERROR(CheckPlanBytes(
      plan_constant_bytes_ > INT64_MAX - arena ? INT64_MAX : plan_constant_bytes_ + arena,
      rg_.limits, ""));
  {
    ScopedTensorByteLimit arena_cap(rg_.limits.max_arena_bytes);  // one tensor, not a weight
    WEBNX_RETURN_IF_ERROR(Tensor::AllocateUninitialized(
        DType::kBool, Shape{static_cast<int64_t>(arena_bytes)}, &plan_->arena_));
  }
  for (size_t b = 0; b < buffers_.size(); ++b) {
    for (Tensor* t : buffer_tensors_[b]) t->data = plan_->arena_.ptr<uint8_t>() + offsets[b];
  }
  plan_->stats_.activation_bytes = arena_bytes;
  return Status::Ok();
}

void Plan::Builder::Finish(double start_ms) {
  Plan& plan = *plan_;
  for (const auto& out : graph_.outputs) {
    auto it = plan.values_.find(out.name);
    const Tensor* t = it != plan.values_.end() ? &it->second : known_.at(out.name).value;
    plan.output_slots_.push_back(t);
    plan.output_shapes_.push_back(t->shape);
  }
  plan.threads_ = rg_.threads;
  plan.stats_.run_steps = plan.steps_.size();
  for (const Step& step : plan.steps_) {
    bool integer_only = !step.outputs.empty();
    for (const Tensor* t : step.outputs)
      integer_only = integer_only && (!t || t->dtype != DType::kFloat32);
    if (integer_only) ++plan.stats_.shape_steps;
  }
  plan.stats_.build_ms = NowMs() - start_ms;
}

Status Plan::Run(const std::vector<const Tensor*>& inputs, std::vector<const Tensor*>* outputs,
                 std::vector<StepTiming>* profile) {
  if (inputs.size() != input_slots_.size()) {
    return Status(ErrorCode::kInternal, "plan run with the wrong number of inputs");
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    input_slots_[i]->data = inputs[i]->data;
    input_slots_[i]->holder = inputs[i]->holder;
  }
  if (profile) profile->clear();
  for (Step& step : steps_) {
    RunContext ctx(step.inputs, step.outputs, threads_);
    const double start = profile ? NowMs() : 0;
    Status s = step.kernel->Run(ctx);
    if (profile) {
      profile->push_back(
          StepTiming{step.node->name, step.node->op_type,
                     step.outputs.empty() || !step.outputs[0] ? Shape() : step.outputs[0]->shape,
                     NowMs() - start});
    }
    if (!s.ok()) {
      for (Tensor* slot : input_slots_) slot->holder.reset();
      return s;
    }
  }
  // The input slots keep their holders until the next run: outputs may alias a feed.
  *outputs = output_slots_;
  return Status::Ok();
}

}  // namespace webnx
