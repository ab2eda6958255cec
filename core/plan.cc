// A plan's entry points: Build (core/plan_builder.h holds how), the executor (Run: each step's
// kernel on its bound tensors, in order), and EvaluateNode for load-time constant folding.
#include "core/plan.h"

#include "core/clock.h"
#include "core/plan_builder.h"
#include "core/plan_node.h"

namespace webnx {

Status Plan::Build(const ResolvedGraph& rg, const OpRegistry& registry,
                   const std::vector<const Tensor*>& inputs, const std::vector<bool>& specialize,
                   const std::string& fetched, std::unique_ptr<Plan>* out) {
  Builder builder(rg, registry, std::unique_ptr<Plan>(new Plan()));
  WEBNX_RETURN_IF_ERROR(builder.Build(inputs, specialize, fetched));
  *out = builder.Release();
  return Status::Ok();
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
      PlanNode(node, since_version, nullptr, registry, planned_ptrs, &kernel, &out_planned));
  WEBNX_RETURN_IF_ERROR(CheckPlannedOutputs(node, out_planned, limits));
  WEBNX_RETURN_IF_ERROR(AllocateOutputs(node, out_planned, outputs));
  return RunKernel(node, *kernel, inputs, outputs);
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
  Status s = RunSteps(outputs, profile);
  // The input slots keep their holders until the next run: outputs may alias a feed.
  if (!s.ok())
    for (Tensor* slot : input_slots_) slot->holder.reset();
  return s;
}

Status Plan::RunSteps(std::vector<const Tensor*>* outputs, std::vector<StepTiming>* profile) {
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
    if (!s.ok()) return s;
  }
  if (!continuation_) {
    *outputs = output_slots_;
    return Status::Ok();
  }
  Plan* next = nullptr;
  WEBNX_RETURN_IF_ERROR(ContinuationPlan(&next));
  return next->RunSteps(outputs, profile);
}

}  // namespace webnx
