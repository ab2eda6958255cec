#include "core/subgraph.h"

#include <string>
#include <utility>
#include <vector>

#include "core/op_registry.h"
#include "core/passes/fold_channel_affine.h"
#include "core/passes/fold_transposes.h"
#include "core/passes/fuse_chains.h"
#include "core/resolve.h"

namespace webnx {
namespace {

// The subgraph's outer-scope reads that the parent holds as constants become its initializers
// (a copy of a Tensor shares its storage); the rest stay inputs, fed when it runs.
void BorrowOuterConstants(const Graph& parent, int captured, Graph* sub) {
  const size_t formal = sub->inputs.size() - static_cast<size_t>(captured);
  std::vector<ValueInfo> inputs(sub->inputs.begin(), sub->inputs.begin() + formal);
  for (size_t i = formal; i < sub->inputs.size(); ++i) {
    auto c = parent.initializers.find(sub->inputs[i].name);
    if (c != parent.initializers.end())
      sub->initializers[c->first] = c->second;
    else
      inputs.push_back(std::move(sub->inputs[i]));
  }
  sub->inputs = std::move(inputs);
}

Status PrepareSubgraph(const ResolvedGraph& parent, const Node& node, const Graph& graph,
                       ResolvedSubgraph* sub) {
  const OpRegistry& registry = OpRegistry::Default();
  ResolvedGraph& rg = sub->rg;
  rg.graph = graph;
  rg.graph.opsets = parent.graph.opsets;
  rg.threads = parent.threads;
  rg.limits = parent.limits;
  BorrowOuterConstants(parent.graph, node.captured_inputs, &rg.graph);
  WEBNX_RETURN_IF_ERROR(ResolveNodes(&rg));
  FuseChains(&rg, registry);  // before folding: QDQ weights are still 8-bit
  WEBNX_RETURN_IF_ERROR(FoldConstantNodes(&rg));
  WEBNX_RETURN_IF_ERROR(FoldTransposes(&rg, registry));
  FoldChannelAffines(&rg, registry);
  FuseChains(&rg, registry);
  WEBNX_RETURN_IF_ERROR(ResolveSubgraphs(&rg));
  WEBNX_RETURN_IF_ERROR(PrepareGraphConstants(rg, &sub->constants));
  rg.constants = &sub->constants;
  return Status::Ok();
}

}  // namespace

Status ResolveSubgraphs(ResolvedGraph* parent) {
  for (const Node& node : parent->graph.nodes) {
    for (const auto& kv : node.attrs) {
      const Graph* graph = kv.second.g.get();
      if (!graph || parent->subgraphs.count(graph)) continue;
      if (graph->inputs.size() < static_cast<size_t>(node.captured_inputs)) {
        return Status(ErrorCode::kInternal, "subgraph '" + kv.first + "' of " + node.Describe() +
                                                " lacks the inputs its node captured");
      }
      auto sub = std::make_shared<ResolvedSubgraph>();
      Status s = PrepareSubgraph(*parent, node, *graph, sub.get());
      if (!s.ok()) {
        return Status(s.code(),
                      "in subgraph '" + kv.first + "' of " + node.Describe() + ": " + s.message());
      }
      parent->subgraphs[graph] = std::move(sub);
    }
  }
  return Status::Ok();
}

}  // namespace webnx
