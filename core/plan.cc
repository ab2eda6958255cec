#include "core/plan.h"

namespace webnx {
namespace {

// Plans one node: returns its kernel with outputs' dtypes and shapes in `outputs`.
Status PlanNode(const Node& node, int since_version, const OpRegistry& registry,
                const std::vector<const PlannedValue*>& inputs, std::unique_ptr<Kernel>* kernel,
                std::vector<PlannedValue>* outputs) {
  *kernel = registry.Create(node.domain, node.op_type);
  if (!*kernel) {
    return Status(ErrorCode::kUnsupportedOperator, node.Describe() + " has no registered kernel");
  }
  PlanContext ctx(node, since_version, inputs);
  WEBNX_RETURN_IF_ERROR((*kernel)->Plan(ctx));
  WEBNX_RETURN_IF_ERROR(ctx.attrs().status());
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    if (ctx.has_output(i) && ctx.outputs()[i].dtype == DType::kUndefined) {
      return Status(ErrorCode::kUnsupportedOperator,
                    node.Describe() + " does not produce output " + std::to_string(i) + " ('" +
                        node.outputs[i] + "')");
    }
  }
  *outputs = ctx.outputs();
  return Status::Ok();
}

Status AllocateOutputs(const Node& node, const std::vector<PlannedValue>& planned,
                       std::vector<Tensor>* tensors) {
  tensors->assign(planned.size(), Tensor());
  for (size_t i = 0; i < planned.size(); ++i) {
    if (node.outputs[i].empty()) continue;
    Status s = Tensor::Allocate(planned[i].dtype, planned[i].shape, &(*tensors)[i]);
    if (!s.ok()) return Status(s.code(), node.Describe() + ", output '" + node.outputs[i] + "': " + s.message());
  }
  return Status::Ok();
}

Status RunKernel(const Node& node, Kernel& kernel, std::vector<const Tensor*> inputs,
                 std::vector<Tensor>* outputs) {
  std::vector<Tensor*> out_ptrs;
  for (size_t i = 0; i < outputs->size(); ++i) {
    out_ptrs.push_back(node.outputs[i].empty() ? nullptr : &(*outputs)[i]);
  }
  RunContext ctx(std::move(inputs), std::move(out_ptrs));
  return kernel.Run(ctx);
}

}  // namespace

Status EvaluateNode(const Node& node, int since_version, const OpRegistry& registry,
                    const std::vector<const Tensor*>& inputs, std::vector<Tensor>* outputs) {
  std::vector<PlannedValue> planned(inputs.size());
  std::vector<const PlannedValue*> planned_ptrs(inputs.size(), nullptr);
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i]) continue;
    planned[i] = PlannedValue{inputs[i]->dtype, inputs[i]->shape, inputs[i]};
    planned_ptrs[i] = &planned[i];
  }
  std::unique_ptr<Kernel> kernel;
  std::vector<PlannedValue> out_planned;
  WEBNX_RETURN_IF_ERROR(PlanNode(node, since_version, registry, planned_ptrs, &kernel, &out_planned));
  WEBNX_RETURN_IF_ERROR(AllocateOutputs(node, out_planned, outputs));
  return RunKernel(node, *kernel, inputs, outputs);
}

Status Plan::Build(const ResolvedGraph& rg, const OpRegistry& registry,
                   const std::vector<Shape>& input_shapes, std::unique_ptr<Plan>* out) {
  const Graph& graph = rg.graph;
  auto plan = std::unique_ptr<Plan>(new Plan());
  plan->stats_.graph_nodes = graph.nodes.size();
  // What is known about each value while planning.
  std::unordered_map<std::string, PlannedValue> known;
  for (const auto& kv : graph.initializers) {
    known[kv.first] = PlannedValue{kv.second.dtype, kv.second.shape, &kv.second};
  }
  for (size_t i = 0; i < graph.inputs.size(); ++i) {
    const ValueInfo& in = graph.inputs[i];
    Tensor& slot = plan->values_[in.name];
    slot = Tensor::Borrow(in.dtype, input_shapes[i], nullptr);  // bound to caller data per run
    plan->input_slots_.push_back(&slot);
    known[in.name] = PlannedValue{in.dtype, input_shapes[i], nullptr};
  }

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
    WEBNX_RETURN_IF_ERROR(
        PlanNode(node, rg.since_versions[n], registry, in_planned, &kernel, &out_planned));
    const bool fold = all_known || kernel->ReadsOnlyInputShapes();

    std::vector<Tensor> outputs;
    WEBNX_RETURN_IF_ERROR(AllocateOutputs(node, out_planned, &outputs));
    if (fold) {
      // Host evaluation at plan time: the node never runs again for this shape.
      std::vector<Tensor> shape_only(node.inputs.size());
      std::vector<const Tensor*> in_tensors;
      for (size_t i = 0; i < node.inputs.size(); ++i) {
        const PlannedValue* pv = in_planned[i];
        if (!pv) {
          in_tensors.push_back(nullptr);
        } else if (pv->value) {
          in_tensors.push_back(pv->value);
        } else {
          shape_only[i] = Tensor::Borrow(pv->dtype, pv->shape, nullptr);
          in_tensors.push_back(&shape_only[i]);
        }
      }
      WEBNX_RETURN_IF_ERROR(RunKernel(node, *kernel, in_tensors, &outputs));
      ++plan->stats_.folded_nodes;
    }
    Step step{&node, std::move(kernel), {}, {}};
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      const std::string& name = node.inputs[i];
      if (name.empty()) {
        step.inputs.push_back(nullptr);
      } else if (in_planned[i]->value) {
        step.inputs.push_back(in_planned[i]->value);
      } else {
        step.inputs.push_back(&plan->values_.at(name));
      }
    }
    for (size_t i = 0; i < node.outputs.size(); ++i) {
      const std::string& name = node.outputs[i];
      if (name.empty()) {
        step.outputs.push_back(nullptr);
        continue;
      }
      Tensor& slot = plan->values_[name];
      slot = std::move(outputs[i]);
      if (!fold) plan->stats_.activation_bytes += slot.nbytes();
      step.outputs.push_back(&slot);
      known[name] = PlannedValue{slot.dtype, slot.shape, fold ? &slot : nullptr};
    }
    if (!fold) plan->steps_.push_back(std::move(step));
  }

  for (const auto& out : graph.outputs) {
    auto it = plan->values_.find(out.name);
    const Tensor* t = nullptr;
    if (it != plan->values_.end()) {
      t = &it->second;
    } else {
      t = known.at(out.name).value;  // an initializer exported directly as an output
    }
    plan->output_slots_.push_back(t);
    plan->output_shapes_.push_back(t->shape);
  }
  plan->stats_.run_steps = plan->steps_.size();
  *out = std::move(plan);
  return Status::Ok();
}

Status Plan::Run(const std::vector<const Tensor*>& inputs, std::vector<const Tensor*>* outputs) {
  if (inputs.size() != input_slots_.size()) {
    return Status(ErrorCode::kInternal, "plan run with the wrong number of inputs");
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    input_slots_[i]->data = inputs[i]->data;
    input_slots_[i]->holder = inputs[i]->holder;
  }
  for (Step& step : steps_) {
    RunContext ctx(step.inputs, step.outputs);
    Status s = step.kernel->Run(ctx);
    if (!s.ok()) {
      for (Tensor* slot : input_slots_) slot->holder.reset();
      return s;
    }
  }
  for (Tensor* slot : input_slots_) slot->holder.reset();  // do not keep caller data alive
  *outputs = output_slots_;
  return Status::Ok();
}

}  // namespace webnx
