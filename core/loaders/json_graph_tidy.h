// Clean-up of a lowered JSON graph: cancels Transpose pairs (the NHWC ops' layout changes
// meet here) and drops nodes and initializers that no graph output depends on (dead layout
// changes, source weights replaced by their re-laid-out copies, exporters' unused side paths).
#pragma once

#include "core/graph.h"

namespace webnx {
namespace jsonl {

// Matches default-domain Transpose nodes with a "perm" attribute whose input comes from another
// such Transpose with the inverse permutation: readers get the first one's input instead.
void CancelTransposePairs(Graph* graph);

// Keeps only nodes with an output some graph output depends on, and only initializers read.
// Graph inputs stay (callers feed them whether or not they are used).
void DropDeadNodes(Graph* graph);

}  // namespace jsonl
}  // namespace webnx
