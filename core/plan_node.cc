#include "core/plan_node.h"

namespace webnx {

Status PlanNode(const Node& node, int since_version, const ResolvedGraph* graph,
                const OpRegistry& registry, const std::vector<const PlannedValue*>& inputs,
                std::unique_ptr<Kernel>* kernel, std::vector<PlannedValue>* outputs,
                bool* outputs_follow_data) {
  *kernel = registry.Create(node.domain, node.op_type);
  if (!*kernel) {
    return Status(ErrorCode::kUnsupportedOperator, node.Describe() + " has no registered kernel");
  }
  PlanContext ctx(node, since_version, inputs);
  ctx.set_graph(graph);
  WEBNX_RETURN_IF_ERROR((*kernel)->Plan(ctx));
  WEBNX_RETURN_IF_ERROR(ctx.attrs().status());
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    if (!ctx.has_input(i) || ctx.DTypeAccepted(i)) continue;
    const DType d = ctx.dtype(i);
    if (d == DType::kFloat32 || d == DType::kInt32 || d == DType::kInt64 || d == DType::kBool)
      continue;
    return ctx.Error(ErrorCode::kUnsupportedDtype, "input " + std::to_string(i) + " ('" +
                                                       node.inputs[i] + "') is " + DTypeName(d) +
                                                       ", a dtype this op does not take in webnx");
  }
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    if (ctx.has_output(i) && ctx.outputs()[i].dtype == DType::kUndefined) {
      return Status(ErrorCode::kUnsupportedOperator, node.Describe() + " does not produce output " +
                                                         std::to_string(i) + " ('" +
                                                         node.outputs[i] + "')");
    }
  }
  *outputs = ctx.outputs();
  if (outputs_follow_data) *outputs_follow_data = ctx.outputs_follow_data();
  return Status::Ok();
}

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

int64_t PlannedBytes(const PlannedValue& pv) {
  int64_t n = 0;
  return ShapeNumel(pv.shape, &n) ? n * static_cast<int64_t>(DTypeSize(pv.dtype)) : 0;
}

Status CheckPlanBytes(int64_t bytes, const SessionLimits& limits, const std::string& where) {
  if (bytes <= limits.max_arena_bytes) return Status::Ok();
  return LimitError(ErrorCode::kOutOfMemory, "the plan needs", bytes,
                    " bytes for activations and plan-time constants" +
                        (where.empty() ? std::string() : " (at " + where + ")"),
                    limits.max_arena_bytes, "maxArenaBytes");
}

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

}  // namespace webnx
