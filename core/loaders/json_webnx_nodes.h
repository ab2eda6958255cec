// The "nodes" list of a webnx-graph document as written: Input and Constant nodes become graph
// inputs and initializers, every other node is kept, with its name references, for lowering.
#pragma once

#include <vector>

#include "core/loaders/json_graph_check.h"
#include "core/loaders/json_webnx.h"

namespace webnx {
namespace jsonl {

// Reads the /nodes array. Values that Input and Constant nodes define join `sources`; the
// compute nodes go to `nodes` and their references to `refs`, in document order. `doc_nhwc` is
// the document's layout, the default of each node's.
Status ReadNodes(const Json& list, const JsonExternalFiles& files, bool doc_nhwc, Graph* graph,
                 std::vector<NamedRef>* sources, std::vector<DslNode>* nodes,
                 std::vector<NodeRefs>* refs);

}  // namespace jsonl
}  // namespace webnx
