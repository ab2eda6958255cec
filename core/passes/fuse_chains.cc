#include "core/passes/fuse_chains.h"

#include <algorithm>
#include <memory>
#include <set>

#include "core/kernel.h"

namespace webnx {
namespace {

// True when every value the replaced nodes write, but the chain's outputs, is read only inside it.
bool Contained(const Graph& graph, const FusedNode& fused) {
  std::vector<std::string> internal;
  for (int n : fused.replaced) {
    for (const std::string& out : graph.nodes[n].outputs) {
      if (std::find(fused.node.outputs.begin(), fused.node.outputs.end(), out) ==
          fused.node.outputs.end())
        internal.push_back(out);
    }
  }
  auto is_internal = [&](const std::string& v) {
    return std::find(internal.begin(), internal.end(), v) != internal.end();
  };
  for (const ValueInfo& out : graph.outputs)
    if (is_internal(out.name)) return false;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const auto& replaced = fused.replaced;
    if (std::find(replaced.begin(), replaced.end(), static_cast<int>(n)) != replaced.end())
      continue;
    for (const std::string& in : graph.nodes[n].inputs)
      if (is_internal(in)) return false;
  }
  return true;
}

// Puts `fused` in place of its chain: at the position of the chain's last node, whose outputs
// it writes (its inputs are written before the chain's first node reads them).
void Replace(ResolvedGraph* rg, FusedNode fused) {
  const int last = *std::max_element(fused.replaced.begin(), fused.replaced.end());
  rg->graph.nodes[last] = std::move(fused.node);
  rg->since_versions[last] = fused.since_version;
  std::vector<bool> removed(rg->graph.nodes.size(), false);
  for (int n : fused.replaced) removed[n] = n != last;
  rg->RemoveNodes(removed);
}

// Drops the nodes in `candidates` (by their first output) whose outputs nothing reads, then
// those it leaves unread in turn (a QuantizeLinear whose DequantizeLinear went).
void DropUnread(ResolvedGraph* rg, std::set<std::string> candidates) {
  for (bool dropped = true; dropped;) {
    const GraphIndex index(rg->graph);
    std::vector<bool> removed(rg->graph.nodes.size(), false);
    dropped = false;
    for (size_t n = 0; n < rg->graph.nodes.size(); ++n) {
      const Node& node = rg->graph.nodes[n];
      if (node.outputs.empty() || !candidates.count(node.outputs[0])) continue;
      removed[n] = std::all_of(node.outputs.begin(), node.outputs.end(), [&](const std::string& v) {
        return v.empty() || index.Readers(v) == 0;
      });
      if (!removed[n]) continue;
      dropped = true;
      for (const std::string& in : node.inputs) {
        const int p = index.Producer(in);
        if (p >= 0 && !rg->graph.nodes[p].outputs.empty())
          candidates.insert(rg->graph.nodes[p].outputs[0]);
      }
    }
    rg->RemoveNodes(removed);
  }
}

}  // namespace

int FusionContext::OnlyReader(const std::string& value) const {
  if (index_.Readers(value) != 1) return -1;
  for (size_t n = 0; n < rg_.graph.nodes.size(); ++n) {
    const std::vector<std::string>& inputs = rg_.graph.nodes[n].inputs;
    if (std::find(inputs.begin(), inputs.end(), value) != inputs.end()) return static_cast<int>(n);
  }
  return -1;  // the reader is a graph output
}

const Tensor* FusionContext::Constant(const std::string& value) const {
  auto it = rg_.graph.initializers.find(value);
  return it == rg_.graph.initializers.end() ? nullptr : &it->second;
}

int FuseChains(ResolvedGraph* rg, const OpRegistry& registry) {
  int fused_count = 0;
  std::set<std::string> maybe_unread;                    // producers of what the chains read
  auto index = std::make_unique<GraphIndex>(rg->graph);  // made anew after each fusion
  size_t n = 0;
  while (n < rg->graph.nodes.size()) {
    const Node& node = rg->graph.nodes[n];
    std::unique_ptr<Kernel> kernel = registry.Create(node.domain, node.op_type);
    FusedNode fused;
    if (!kernel ||
        !kernel->ProposeFusion(FusionContext(*rg, *index, static_cast<int>(n)), &fused) ||
        fused.replaced.empty() || !Contained(rg->graph, fused) ||
        !registry.CheckArity(fused.node, fused.since_version).ok()) {
      ++n;
      continue;
    }
    for (int r : fused.replaced) {
      for (const std::string& in : rg->graph.nodes[r].inputs) {
        const int p = index->Producer(in);
        if (p >= 0 && !rg->graph.nodes[p].outputs.empty())
          maybe_unread.insert(rg->graph.nodes[p].outputs[0]);
      }
    }
    // Nodes after the chain's first move up: look again from there.
    n = static_cast<size_t>(*std::min_element(fused.replaced.begin(), fused.replaced.end()));
    Replace(rg, std::move(fused));
    index = std::make_unique<GraphIndex>(rg->graph);
    ++fused_count;
  }
  if (fused_count > 0) DropUnread(rg, maybe_unread);
  return fused_count;
}

}  // namespace webnx
