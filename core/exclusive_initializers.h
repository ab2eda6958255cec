// The initializers whose storage only one node can see: it alone reads them, they are no graph
// output, no other initializer shares their bytes (a folded view of another), and nothing
// outside the graph holds them (a copy of the graph given to another session). Such storage
// may be rewritten in place by whoever transforms the weight for that node: the BatchNorm fold,
// or the packing of a session's weights (core/constant_cache.h).
#pragma once

#include <unordered_map>

#include "core/graph.h"

namespace webnx {

// Keyed by the initializer's Tensor* (values unused): a map type the runtime instantiates
// anyway, where a set would add its own code to the .wasm.
using InitializerSet = std::unordered_map<const void*, long>;

InitializerSet ExclusiveInitializers(const Graph& graph);

}  // namespace webnx
