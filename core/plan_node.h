// Planning and running one node on its own: what the plan builder, load-time constant folding
// (EvaluateNode) and host evaluation at plan time share.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/kernel.h"
#include "core/limits.h"
#include "core/op_registry.h"

namespace webnx {

// Plans one node: returns its kernel with outputs' dtypes and shapes in `outputs` (bounds, when
// `outputs_follow_data` comes back true: PlanContext::SetOutputBound).
// `graph`: the graph the node is in (null outside a session: one thread, no derived constants).
Status PlanNode(const Node& node, int since_version, const ResolvedGraph* graph,
                const OpRegistry& registry, const std::vector<const PlannedValue*>& inputs,
                std::unique_ptr<Kernel>* kernel, std::vector<PlannedValue>* outputs,
                bool* outputs_follow_data = nullptr);
// Every output within the session's limits before anything is allocated or placed for it
// (this also catches a kernel's shape inference going negative or overflowing).
Status CheckPlannedOutputs(const Node& node, const std::vector<PlannedValue>& planned,
                           const SessionLimits& limits);
Status AllocateOutputs(const Node& node, const std::vector<PlannedValue>& planned,
                       std::vector<Tensor>* tensors);
// Bytes of a planned tensor (within limits: CheckPlannedOutputs ran).
int64_t PlannedBytes(const PlannedValue& pv);
// A plan's activations and plan-time constants share one budget. `where`: "" or the node that
// passed it.
Status CheckPlanBytes(int64_t bytes, const SessionLimits& limits, const std::string& where);
// Runs a kernel on host-known inputs into owned outputs. A view's output 0 then shares the
// storage (and ownership) of the input it aliases.
Status RunKernel(const Node& node, Kernel& kernel, std::vector<const Tensor*> inputs,
                 std::vector<Tensor>* outputs);

}  // namespace webnx
