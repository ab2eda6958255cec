// A control-flow node's subgraph (If's branches, Loop's and Scan's bodies) as the session
// prepares it once at load, like the main graph: resolved against the registry, constants
// folded, layout passes run, constant forms declared. Control-flow kernels plan it for their
// inputs' shapes (Plan::Build) when they are planned themselves.
#pragma once

#include "core/constant_cache.h"
#include "core/resolved_graph.h"

namespace webnx {

struct ResolvedSubgraph {
  // The subgraph's inputs are its own formal inputs, then the run-time values it reads from
  // enclosing graphs (by their names). Values enclosing graphs hold as constants are its
  // initializers instead, sharing their storage: nothing is ever written over them.
  ResolvedGraph rg;
  ConstantCache constants;
};

// Prepares every subgraph of `parent`'s nodes (any depth) into parent->subgraphs. Call once the
// parent's constants are folded: those are the constants its subgraphs see.
Status ResolveSubgraphs(ResolvedGraph* parent);

}  // namespace webnx
