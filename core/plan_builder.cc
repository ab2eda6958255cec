#include "core/plan_builder.h"

#include <algorithm>
#include <climits>
#include <cstdint>

#include "core/clock.h"
#include "core/plan_node.h"

namespace webnx {

Status Plan::Builder::Build(const std::vector<const Tensor*>& inputs,
                            const std::vector<bool>& specialize, const std::string& fetched) {
  const double start_ms = NowMs();
  plan_->stats_.graph_nodes = graph_.nodes.size();
  SelectNodes(fetched);
  BindConstants();
  WEBNX_RETURN_IF_ERROR(BindInputs(inputs, specialize));
  for (size_t n = 0; n < graph_.nodes.size() && !plan_->continuation_; ++n)
    if (Needed(n)) WEBNX_RETURN_IF_ERROR(AddNode(n));
  WEBNX_RETURN_IF_ERROR(PlaceArena());
  Finish(start_ms);
  return Status::Ok();
}

void Plan::Builder::SelectNodes(const std::string& fetched) {
  if (fetched.find('0') == std::string::npos) return;  // all
  fetched_ = fetched;
  needed_.assign(graph_.nodes.size(), '0');
  std::vector<int> pending;
  const auto need = [&](const std::string& value) {
    const int producer = index_.Producer(value);
    if (producer < 0 || needed_[producer] == '1') return;
    needed_[producer] = '1';
    pending.push_back(producer);
  };
  for (size_t k = 0; k < graph_.outputs.size(); ++k)
    if (fetched_[k] == '1') need(graph_.outputs[k].name);
  while (!pending.empty()) {
    const Node& node = graph_.nodes[pending.back()];
    pending.pop_back();
    for (const std::string& input : node.inputs)
      if (!input.empty()) need(input);
  }
}

void Plan::Builder::BindConstants() {
  for (const auto& kv : graph_.initializers) {
    const Tensor& c = kv.second;
    const bool replaced = rg_.constants && rg_.constants->Replaced(c);
    known_[kv.first] = PlannedValue{c.dtype, c.shape, replaced ? nullptr : &c, &c};
    // A replaced constant's step input: its shape, never its (gone) values.
    if (replaced) plan_->values_[kv.first] = Tensor::Borrow(c.dtype, c.shape, nullptr);
  }
}

Status Plan::Builder::BindInputs(const std::vector<const Tensor*>& inputs,
                                 const std::vector<bool>& specialize) {
  plan_->specialized_inputs_.resize(graph_.inputs.size());
  for (size_t i = 0; i < graph_.inputs.size(); ++i) {
    const ValueInfo& in = graph_.inputs[i];
    Tensor& slot = plan_->values_[in.name];
    // A subgraph's captured inputs declare no dtype: the value's own is the one (the session
    // checked a main graph's feeds against the declared dtypes).
    const DType dtype = inputs[i]->dtype;
    slot = Tensor::Borrow(dtype, inputs[i]->shape, nullptr);  // bound to caller data per run
    plan_->input_slots_.push_back(&slot);
    const Tensor* value = nullptr;
    if (specialize[i]) {
      WEBNX_RETURN_IF_ERROR(inputs[i]->Clone(&plan_->specialized_inputs_[i]));
      value = &plan_->specialized_inputs_[i];
    }
    known_[in.name] = PlannedValue{dtype, inputs[i]->shape, value};
  }
  return Status::Ok();
}

const Tensor* Plan::Builder::Slot(const std::string& name) const {
  auto own = plan_->values_.find(name);
  return own != plan_->values_.end() ? &own->second : external_.at(name);
}

Tensor& Plan::Builder::DeclareOutput(const std::string& name, const PlannedValue& planned) {
  Tensor& slot = plan_->values_[name];
  slot = Tensor::Borrow(planned.dtype, planned.shape, nullptr);
  known_[name] = PlannedValue{slot.dtype, slot.shape, nullptr};
  return slot;
}

Status Plan::Builder::AddNode(size_t n) {
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
  bool follows_data = false;
  WEBNX_RETURN_IF_ERROR(PlanNode(node, rg_.since_versions[n], &rg_, registry_, in_planned, &kernel,
                                 &out_planned, &follows_data));
  WEBNX_RETURN_IF_ERROR(CheckPlannedOutputs(node, out_planned, rg_.limits));
  if (all_known || kernel->ReadsOnlyInputShapes())
    return FoldOnHost(node, *kernel, in_planned, out_planned);
  if (follows_data) {
    AddStep(node, std::move(kernel), in_planned, out_planned);
    ContinueAfter(n);
  } else if (!TryFuse(node, kernel, in_planned, out_planned)) {
    AddStep(node, std::move(kernel), in_planned, out_planned);
  }
  return Status::Ok();
}

Status Plan::Builder::FoldOnHost(const Node& node, Kernel& kernel, const PlannedInputs& in_planned,
                                 const PlannedOutputs& out_planned) {
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

void Plan::Builder::AddStep(const Node& node, std::unique_ptr<Kernel> kernel,
                            const PlannedInputs& in_planned, const PlannedOutputs& out_planned) {
  const int step_index = static_cast<int>(plan_->steps_.size());
  Step step{&node, std::move(kernel), {}, {}};
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    const std::string& name = node.inputs[i];
    if (name.empty()) {
      step.inputs.push_back(nullptr);
    } else if (in_planned[i]->value) {
      step.inputs.push_back(in_planned[i]->value);
    } else {
      step.inputs.push_back(Slot(name));
      buffers_.ReadAt(name, step_index);
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
      buffers_.Share(name, node.inputs[alias], nullptr);
      other_output_of_step_[name] = step_index;
      continue;
    }
    (i == 0 ? first_output_of_step_ : other_output_of_step_)[name] = step_index;
    buffers_.Add(name, &slot, step_index);
  }
  PlaceInputsInOutput(node, step);
  plan_->steps_.push_back(std::move(step));
}

void Plan::Builder::PlaceInputsInOutput(const Node& node, const Step& step) {
  if (node.outputs.empty() || node.outputs[0].empty()) return;
  const std::vector<int64_t> places = step.kernel->InputPlacesInOutput();
  for (size_t i = 0; i < places.size() && i < node.inputs.size(); ++i) {
    if (places[i] < 0 || !step.inputs[i]) continue;
    // False (and copied by the step) for a constant, an input, a view of part of a buffer, or a
    // value placed already (a second Concat of it, or the same value twice).
    buffers_.PlaceInside(node.inputs[i], node.outputs[0], static_cast<size_t>(places[i]),
                         step.inputs[i]->nbytes());
  }
}

Status Plan::Builder::PlaceArena() {
  for (size_t k = 0; k < graph_.outputs.size(); ++k)  // read after the run
    if (Fetched(k)) buffers_.ReadAt(graph_.outputs[k].name, INT_MAX);
  const size_t arena_bytes = buffers_.Layout();
  const int64_t arena = arena_bytes == SIZE_MAX ? INT64_MAX : static_cast<int64_t>(arena_bytes);
  WEBNX_RETURN_IF_ERROR(CheckPlanBytes(
      plan_constant_bytes_ > INT64_MAX - arena ? INT64_MAX : plan_constant_bytes_ + arena,
      rg_.limits, ""));
  {
    ScopedTensorByteLimit arena_cap(rg_.limits.max_arena_bytes);  // one tensor, not a weight
    WEBNX_RETURN_IF_ERROR(Tensor::AllocateUninitialized(
        DType::kBool, Shape{static_cast<int64_t>(arena_bytes)}, &plan_->arena_));
  }
  buffers_.Bind(plan_->arena_.ptr<uint8_t>());
  plan_->stats_.activation_bytes = arena_bytes;
  return Status::Ok();
}

void Plan::Builder::Finish(double start_ms) {
  Plan& plan = *plan_;
  for (size_t k = 0; k < graph_.outputs.size() && !plan.continuation_; ++k) {
    // (after a continuation, the outputs are its plans')
    const ValueInfo& out = graph_.outputs[k];
    if (!Fetched(k)) {
      plan.output_slots_.push_back(nullptr);
      plan.output_known_.push_back(false);
      plan.output_shapes_.emplace_back();
      continue;
    }
    auto own = plan.values_.find(out.name);
    const PlannedValue& planned = known_.at(out.name);
    const Tensor* t = own != plan.values_.end() ? &own->second
                      : planned.value           ? planned.value
                                                : external_.at(out.name);
    plan.output_slots_.push_back(t);
    plan.output_known_.push_back(known_.at(out.name).value != nullptr);
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

}  // namespace webnx
