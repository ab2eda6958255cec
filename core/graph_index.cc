#include "core/graph_index.h"

namespace webnx {

GraphIndex::GraphIndex(const Graph& graph) {
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    for (const std::string& name : graph.nodes[n].inputs) ++readers_[name];
    for (const std::string& name : graph.nodes[n].outputs)
      if (!name.empty()) producer_[name] = static_cast<int>(n);
  }
  for (const ValueInfo& out : graph.outputs) ++readers_[out.name];
}

int GraphIndex::Readers(const std::string& value) const {
  auto it = readers_.find(value);
  return it == readers_.end() ? 0 : it->second;
}

int GraphIndex::Producer(const std::string& value) const {
  auto it = producer_.find(value);
  return it == producer_.end() ? -1 : it->second;
}

}  // namespace webnx
