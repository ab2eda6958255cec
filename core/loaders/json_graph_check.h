// Name checks of a JSON graph before it is lowered, so that dangling names, names defined twice
// and cycles are reported at their JSON Pointer rather than by the generic IR validation.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"

namespace webnx {
namespace jsonl {

struct NamedRef {
  std::string name;
  std::string pointer;
};

struct NodeRefs {
  std::string pointer;            // the node, e.g. "/nodes/3"
  std::string label;              // its id or name, for cycle messages
  std::vector<NamedRef> inputs;   // "" names an omitted optional input
  std::vector<NamedRef> outputs;  // "" names an omitted optional output
};

// Every value defined once (by a source or one node output), every node input and graph
// output defined, and no cycle. `order` (optional) receives a topological order of the nodes,
// stable with respect to the document order.
Status CheckGraphRefs(const std::vector<NamedRef>& sources, const std::vector<NodeRefs>& nodes,
                      const std::vector<NamedRef>& graph_outputs,
                      std::vector<int>* order = nullptr);

}  // namespace jsonl
}  // namespace webnx
