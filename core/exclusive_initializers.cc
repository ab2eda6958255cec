#include "core/exclusive_initializers.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "core/graph_index.h"

namespace webnx {

InitializerSet ExclusiveInitializers(const Graph& graph) {
  const GraphIndex index(graph);
  // Each holder's references from the graph: more references than these come from outside.
  std::unordered_map<const void*, long> holds;
  std::vector<const Tensor*> stored;
  // (address, index in `stored`): sorted like the memory planner's pairs, with no new sort.
  std::vector<std::pair<size_t, size_t>> by_address;
  for (const auto& kv : graph.initializers) {
    const Tensor& t = kv.second;
    if (t.holder) ++holds[t.holder.get()];
    if (t.data && t.nbytes() > 0) {
      by_address.emplace_back(reinterpret_cast<size_t>(t.data), stored.size());
      stored.push_back(&t);
    }
  }
  std::sort(by_address.begin(), by_address.end());
  InitializerSet overlapping;
  size_t reach = 0;  // the furthest end so far, and whose it is
  const Tensor* reached_by = nullptr;
  for (const auto& entry : by_address) {
    const Tensor* t = stored[entry.second];
    if (entry.first < reach) overlapping[t] = overlapping[reached_by] = 1;
    if (entry.first + t->nbytes() > reach) {
      reach = entry.first + t->nbytes();
      reached_by = t;
    }
  }
  InitializerSet exclusive;
  for (const auto& kv : graph.initializers) {
    const Tensor& t = kv.second;
    if (index.Readers(kv.first) == 1 && t.holder && !overlapping.count(&t) &&
        t.holder.use_count() == holds[t.holder.get()]) {
      exclusive[&t] = 1;
    }
  }
  return exclusive;
}

}  // namespace webnx
