#include "core/plan.h"

#include <algorithm>
#include <climits>
#include <cstdint>

#include "core/clock.h"
#include "core/memory_plan.h"

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
    if (inputs[i] && !inputs[i]->value) return -1;
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

Status Plan::Build(const ResolvedGraph& rg, const OpRegistry& registry,
                   const std::vector<const Tensor*>& inputs, const std::vector<bool>& specialize,
                   std::unique_ptr<Plan>* out, std::vector<int>* unknown_inputs) {
  const double start_ms = NowMs();
  const Graph& graph = rg.graph;
  auto plan = std::unique_ptr<Plan>(new Plan());
  plan->stats_.graph_nodes = graph.nodes.size();
  // What is known about each value while planning.
  std::unordered_map<std::string, PlannedValue> known;
  for (const auto& kv : graph.initializers) {
    known[kv.first] = PlannedValue{kv.second.dtype, kv.second.shape, &kv.second};
  }
  plan->specialized_inputs_.resize(graph.inputs.size());
  for (size_t i = 0; i < graph.inputs.size(); ++i) {
    const ValueInfo& in = graph.inputs[i];
    Tensor& slot = plan->values_[in.name];
    slot = Tensor::Borrow(in.dtype, inputs[i]->shape, nullptr);  // bound to caller data per run
    plan->input_slots_.push_back(&slot);
    const Tensor* value = nullptr;
    if (specialize[i]) {
      WEBNX_RETURN_IF_ERROR(inputs[i]->Clone(&plan->specialized_inputs_[i]));
      value = &plan->specialized_inputs_[i];
    }
    known[in.name] = PlannedValue{in.dtype, inputs[i]->shape, value};
  }

  // Activation buffers for the memory plan; views share their source's buffer.
  std::vector<BufferLifetime> buffers;
  std::vector<std::vector<Tensor*>> buffer_tensors;
  std::unordered_map<std::string, int> buffer_of;
  // Readers of each value (graph outputs count as one), and the step producing its output 0.
  std::unordered_map<std::string, int> readers;
  for (const Node& node : graph.nodes)
    for (const auto& name : node.inputs) ++readers[name];
  for (const auto& out : graph.outputs) ++readers[out.name];
  std::unordered_map<std::string, int> first_output_of_step;
  const ValueUse use{readers, first_output_of_step};
  int64_t plan_constant_bytes = 0;  // outputs of nodes evaluated at plan time

  // The slot of a value computed at run time, bound to its buffer once buffers are placed.
  const auto declare_output = [&](const std::string& name, const PlannedValue& planned) -> Tensor& {
    Tensor& slot = plan->values_[name];
    slot = Tensor::Borrow(planned.dtype, planned.shape, nullptr);
    known[name] = PlannedValue{slot.dtype, slot.shape, nullptr};
    return slot;
  };
  // A buffer of its own for `slot`, written by step `step`.
  const auto new_buffer = [&](const std::string& name, Tensor& slot, int step) {
    buffer_of[name] = static_cast<int>(buffers.size());
    buffers.push_back(BufferLifetime{slot.nbytes(), step, step});
    buffer_tensors.push_back({&slot});
  };
  // A value a fusion removed: never written, it takes no arena space and no step produces it.
  const auto never_stored = [&](const std::string& value) {
    auto b = buffer_of.find(value);
    if (b != buffer_of.end()) buffers[b->second].bytes = 0;
    first_output_of_step.erase(value);
  };

  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const Node& node = graph.nodes[n];
    std::vector<const PlannedValue*> in_planned;
    bool all_known = true;
    for (const auto& name : node.inputs) {
      if (name.empty()) {
        in_planned.push_back(nullptr);
        continue;
      }
      const PlannedValue& pv = known.at(name);  // the loader checked every name is defined
      in_planned.push_back(&pv);
      all_known = all_known && pv.value != nullptr;
    }
    std::unique_ptr<Kernel> kernel;
    std::vector<PlannedValue> out_planned;
    Status planned = PlanNode(node, rg.since_versions[n], rg.threads, rg.constants, registry,
                              in_planned, &kernel, &out_planned);
    if (!planned.ok()) {
      for (size_t i = 0; unknown_inputs && i < graph.inputs.size(); ++i) {
        const bool read = std::find(node.inputs.begin(), node.inputs.end(), graph.inputs[i].name) !=
                          node.inputs.end();
        if (read && !specialize[i]) unknown_inputs->push_back(static_cast<int>(i));
      }
      return planned;
    }
    WEBNX_RETURN_IF_ERROR(CheckPlannedOutputs(node, out_planned, rg.limits));

    if (all_known || kernel->ReadsOnlyInputShapes()) {
      // Host evaluation at plan time: the node never runs for this shape signature.
      for (size_t i = 0; i < out_planned.size(); ++i)
        if (!node.outputs[i].empty()) plan_constant_bytes += PlannedBytes(out_planned[i]);
      WEBNX_RETURN_IF_ERROR(CheckPlanBytes(plan_constant_bytes, rg.limits, node.Describe()));
      std::vector<Tensor> outputs;
      WEBNX_RETURN_IF_ERROR(AllocateOutputs(node, out_planned, &outputs));
      std::vector<Tensor> shape_only(node.inputs.size());
      std::vector<const Tensor*> in_tensors;
      for (size_t i = 0; i < node.inputs.size(); ++i) {
        const PlannedValue* pv = in_planned[i];
        if (pv && !pv->value) shape_only[i] = Tensor::Borrow(pv->dtype, pv->shape, nullptr);
        in_tensors.push_back(!pv ? nullptr : pv->value ? pv->value : &shape_only[i]);
      }
      WEBNX_RETURN_IF_ERROR(RunKernel(node, *kernel, in_tensors, &outputs));
      ++plan->stats_.folded_nodes;
      for (size_t i = 0; i < node.outputs.size(); ++i) {
        if (node.outputs[i].empty()) continue;
        Tensor& slot = plan->values_[node.outputs[i]];
        slot = std::move(outputs[i]);
        known[node.outputs[i]] = PlannedValue{slot.dtype, slot.shape, &slot};
      }
      continue;
    }

    // A node fused into the step producing `source`: its output is that step's buffer.
    const auto output_is_buffer_of = [&](const std::string& source) {
      Tensor& slot = declare_output(node.outputs[0], out_planned[0]);
      const int b = buffer_of.at(source);
      buffer_of[node.outputs[0]] = b;
      buffer_tensors[b].push_back(&slot);
      // Later fusions see the step as this node's producer.
      auto producer = first_output_of_step.find(source);
      if (producer != first_output_of_step.end())
        first_output_of_step[node.outputs[0]] = producer->second;
      ++plan->stats_.fused_nodes;
    };

    if (TryFuseClamp(node, *kernel, out_planned, use, plan.get())) {
      output_is_buffer_of(node.inputs[0]);  // clamped in the producer's epilogue
      continue;
    }
    if (TryFuseFunction(node, *kernel, out_planned, use, plan.get())) {
      output_is_buffer_of(node.inputs[0]);
      continue;
    }
    std::string gate_output;
    const int gated_input = TryFuseGated(node, *kernel, out_planned, use, plan.get(), &gate_output);
    if (gated_input >= 0) {
      never_stored(gate_output);  // the dropped gate step's output
      ++plan->stats_.fused_nodes;
      output_is_buffer_of(node.inputs[gated_input]);
      continue;
    }

    int addend_input = -1;
    const int sum_into =
        TryFuseSum(node, *kernel, out_planned, in_planned, use, plan.get(), &addend_input);
    if (sum_into >= 0) {
      // The step adds the other input in its epilogue: this node's output is its buffer, and
      // the other input's buffer must live until that step.
      auto ab = buffer_of.find(node.inputs[addend_input]);
      if (ab != buffer_of.end())
        buffers[ab->second].last_step = std::max(buffers[ab->second].last_step, sum_into);
      output_is_buffer_of(node.inputs[1 - addend_input]);
      first_output_of_step[node.outputs[0]] = sum_into;  // a clamp after the sum can fuse too
      continue;
    }

    const int consumed_by = TryFuseConsumer(node, kernel, in_planned, use, plan.get());
    if (consumed_by >= 0) {
      // That step now writes this node's output; the value between them is never stored.
      never_stored(node.inputs[0]);
      Tensor& slot = declare_output(node.outputs[0], out_planned[0]);
      plan->steps_[consumed_by].outputs[0] = &slot;
      first_output_of_step[node.outputs[0]] = consumed_by;
      new_buffer(node.outputs[0], slot, consumed_by);
      ++plan->stats_.fused_nodes;
      continue;
    }

    const int step_index = static_cast<int>(plan->steps_.size());
    Step step{&node, std::move(kernel), {}, {}};
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      const std::string& name = node.inputs[i];
      if (name.empty()) {
        step.inputs.push_back(nullptr);
      } else if (in_planned[i]->value) {
        step.inputs.push_back(in_planned[i]->value);
      } else {
        step.inputs.push_back(&plan->values_.at(name));
        auto b = buffer_of.find(name);
        if (b != buffer_of.end()) buffers[b->second].last_step = step_index;
      }
    }
    const int alias = step.kernel->OutputAliasesInput();
    for (size_t i = 0; i < node.outputs.size(); ++i) {
      const std::string& name = node.outputs[i];
      if (name.empty()) {
        step.outputs.push_back(nullptr);
        continue;
      }
      Tensor& slot = declare_output(name, out_planned[i]);
      step.outputs.push_back(&slot);
      if (i == 0 && alias >= 0) {
        // A view: its Run points it at the source; the source's buffer must outlive it.
        auto b = buffer_of.find(node.inputs[alias]);
        if (b != buffer_of.end()) buffer_of[name] = b->second;
        continue;
      }
      if (i == 0) first_output_of_step[name] = step_index;
      new_buffer(name, slot, step_index);
    }
    plan->steps_.push_back(std::move(step));
  }

  for (const auto& out : graph.outputs) {
    auto b = buffer_of.find(out.name);
    if (b != buffer_of.end()) buffers[b->second].last_step = INT_MAX;  // read after the run
  }
  size_t arena_bytes = 0;
  std::vector<size_t> offsets = PlaceBuffers(buffers, &arena_bytes);
  const int64_t arena = arena_bytes == SIZE_MAX ? INT64_MAX : static_cast<int64_t>(arena_bytes);
  WEBNX_RETURN_IF_ERROR(CheckPlanBytes(
      plan_constant_bytes > INT64_MAX - arena ? INT64_MAX : plan_constant_bytes + arena, rg.limits,
      ""));
  {
    ScopedTensorByteLimit arena_cap(rg.limits.max_arena_bytes);  // one tensor, not a weight
    WEBNX_RETURN_IF_ERROR(Tensor::AllocateUninitialized(
        DType::kBool, Shape{static_cast<int64_t>(arena_bytes)}, &plan->arena_));
  }
  for (size_t b = 0; b < buffers.size(); ++b) {
    for (Tensor* t : buffer_tensors[b]) t->data = plan->arena_.ptr<uint8_t>() + offsets[b];
  }
  plan->stats_.activation_bytes = arena_bytes;

  for (const auto& out : graph.outputs) {
    auto it = plan->values_.find(out.name);
    const Tensor* t = it != plan->values_.end() ? &it->second : known.at(out.name).value;
    plan->output_slots_.push_back(t);
    plan->output_shapes_.push_back(t->shape);
  }
  plan->threads_ = rg.threads;
  plan->stats_.run_steps = plan->steps_.size();
  for (const Step& step : plan->steps_) {
    bool integer_only = !step.outputs.empty();
    for (const Tensor* t : step.outputs)
      integer_only = integer_only && (!t || t->dtype != DType::kFloat32);
    if (integer_only) ++plan->stats_.shape_steps;
  }
  plan->stats_.build_ms = NowMs() - start_ms;
  *out = std::move(plan);
  return Status::Ok();
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
