// SessionLimits applied to a loaded Graph, whichever loader made it: node count, graph depth,
// string lengths, declared ranks and dims, initializer shapes and their total size.
#pragma once

#include "core/graph.h"
#include "core/limits.h"

namespace webnx {

// MalformedModel (structure) or OutOfMemory (sizes) naming the first limit exceeded and where.
// Expects graph.nodes in topological order (SortAndValidateGraph) for an exact depth.
Status CheckGraphLimits(const Graph& graph, const SessionLimits& limits);

// Adds `bytes` to `*total` and checks it against limits.maxInitializerBytes (OutOfMemory).
Status AddInitializerBytes(int64_t bytes, const SessionLimits& limits, const std::string& what,
                           int64_t* total);

}  // namespace webnx
