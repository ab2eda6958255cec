// Who reads and who writes each value of a graph: the index the graph passes, the constant
// cache and the planner share instead of each counting readers itself.
#pragma once

#include <string>
#include <unordered_map>

#include "core/graph.h"

namespace webnx {

class GraphIndex {
 public:
  explicit GraphIndex(const Graph& graph);

  // Nodes reading `value` (once per input position), graph outputs counting as one reader each.
  int Readers(const std::string& value) const;
  // The index of the node writing `value`, or -1 (graph inputs, initializers, unknown names).
  int Producer(const std::string& value) const;

  // Bookkeeping for passes that rewrite the graph as they go.
  void AddReaders(const std::string& value, int delta) { readers_[value] += delta; }
  void SetProducer(const std::string& value, int node) { producer_[value] = node; }

 private:
  std::unordered_map<std::string, int> readers_;
  std::unordered_map<std::string, int> producer_;
};

}  // namespace webnx
