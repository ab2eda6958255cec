// A graph whose nodes are resolved against the registry (node i runs the op version in
// since_versions[i]), with what every plan of a session shares.
#pragma once

#include <map>
#include <memory>
#include <vector>

#include "core/constant_cache.h"
#include "core/graph.h"
#include "core/limits.h"

namespace webnx {

struct ResolvedSubgraph;  // core/subgraph.h
// A graph's nodes' subgraphs, prepared at load, by the Attribute::g they were prepared from.
using SubgraphMap = std::map<const Graph*, std::shared_ptr<ResolvedSubgraph>>;

struct ResolvedGraph {
  Graph graph;
  std::vector<int> since_versions;
  int threads = 1;  // threads each run may use
  SessionLimits limits;
  ConstantCache* constants = nullptr;  // the session's (plans derive packed weights through it)
  SubgraphMap subgraphs;               // its nodes' subgraphs (core/subgraph.h)

  // Drops the nodes marked in `removed`, keeping since_versions in step.
  void RemoveNodes(const std::vector<bool>& removed) {
    size_t kept = 0;
    for (size_t n = 0; n < graph.nodes.size(); ++n) {
      if (removed[n]) continue;
      if (kept != n) {
        graph.nodes[kept] = std::move(graph.nodes[n]);
        since_versions[kept] = since_versions[n];
      }
      ++kept;
    }
    graph.nodes.resize(kept);
    since_versions.resize(kept);
  }

  // Puts the nodes back in a topological order after a pass moved values between them,
  // keeping since_versions in step. A pass that made a cycle is a bug: Internal.
  Status SortNodes() {
    std::vector<int> order;
    Status s = TopologicalOrder(graph, &order);
    if (!s.ok())
      return Status(ErrorCode::kInternal, "a graph pass left no topological order: " + s.message());
    std::vector<Node> nodes;
    std::vector<int> versions;
    for (int n : order) {
      nodes.push_back(std::move(graph.nodes[n]));
      versions.push_back(since_versions[n]);
    }
    graph.nodes = std::move(nodes);
    since_versions = std::move(versions);
    return Status::Ok();
  }
};

}  // namespace webnx
