// Load-time fusion of chains of nodes into one node, as kernels propose it
// (Kernel::ProposeFusion): a kernel that recognises the chain around its node (exporters'
// patterns, such as a dynamically quantized convolution's five nodes) names the nodes the
// replacement takes the place of and the replacement itself, an op its family registers. The
// pass checks that no value the chain computes is read outside it, puts the replacement where
// the chain ended, and drops producers left with no reader.
#pragma once

#include <string>
#include <vector>

#include "core/graph.h"
#include "core/graph_index.h"
#include "core/op_registry.h"
#include "core/resolved_graph.h"

namespace webnx {

// What a kernel proposes: `node` (its inputs, attributes and the outputs of the chain's last
// node) replacing the nodes `replaced` (the proposing node among them).
struct FusedNode {
  Node node;
  int since_version = 1;
  std::vector<int> replaced;
};

// The graph around a node, as a kernel proposing a fusion reads it.
class FusionContext {
 public:
  FusionContext(const ResolvedGraph& rg, const GraphIndex& index, int node)
      : rg_(rg), index_(index), node_(node) {}
  int node_index() const { return node_; }
  const Node& node(int i) const { return rg_.graph.nodes[i]; }
  int since_version(int i) const { return rg_.since_versions[i]; }
  // The node writing `value`, or -1.
  int Producer(const std::string& value) const { return index_.Producer(value); }
  // The node that is the only reader of `value` (a graph output counts as a reader), or -1.
  int OnlyReader(const std::string& value) const;
  // `value`'s contents when it is an initializer, else null.
  const Tensor* Constant(const std::string& value) const;

 private:
  const ResolvedGraph& rg_;
  const GraphIndex& index_;
  int node_;
};

// Applies every fusion the kernels propose; returns how many.
int FuseChains(ResolvedGraph* rg, const OpRegistry& registry);

}  // namespace webnx
