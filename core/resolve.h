// Load-time steps every graph goes through, the main graph and each subgraph alike
// (core/session.cc, core/subgraph.cc).
#pragma once

#include "core/resolved_graph.h"

namespace webnx {

// Maps every node to the newest registered op version not above the graph's opset, and checks
// its input and output counts. Every unsupported operator, those inside subgraphs included, is
// reported at once.
Status ResolveNodes(ResolvedGraph* rg);

// Evaluates once every node whose inputs are all initializers (Constant nodes, weight
// reshapes...), its outputs becoming initializers. Nodes with subgraphs are left to the plans.
Status FoldConstantNodes(ResolvedGraph* rg);

// Asks every node for the forms it reads constants in, and lets `cache` replace the constants
// the rule of core/constant_cache.h allows, before any plan can see them.
Status PrepareGraphConstants(const ResolvedGraph& rg, ConstantCache* cache);

}  // namespace webnx
