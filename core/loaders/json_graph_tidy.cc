#include "core/loaders/json_graph_tidy.h"

#include <set>
#include <unordered_map>

namespace webnx {
namespace jsonl {
namespace {

const std::vector<int64_t>* PermOf(const Node& node) {
  if (node.op_type != "Transpose" || !node.domain.empty() || node.inputs.size() != 1 ||
      node.outputs.size() != 1) {
    return nullptr;
  }
  const Attribute* perm = node.attr("perm");
  return perm && perm->type == Attribute::Type::kInts ? &perm->ints : nullptr;
}

// second(first(x)) == x: output dim i of the pair is input dim first[second[i]].
bool Cancels(const std::vector<int64_t>& first, const std::vector<int64_t>& second) {
  if (first.size() != second.size()) return false;
  const int64_t rank = static_cast<int64_t>(first.size());
  for (int64_t i = 0; i < rank; ++i) {
    if (second[i] < 0 || second[i] >= rank || first[second[i]] != i) return false;
  }
  return true;
}

}  // namespace

void CancelTransposePairs(Graph* graph) {
  std::set<std::string> graph_outputs;
  for (const auto& o : graph->outputs) graph_outputs.insert(o.name);
  // <string, int> maps and no unordered_set: one hash-table instantiation the .wasm already has.
  std::unordered_map<std::string, int> producer;
  std::unordered_map<std::string, int> alias;  // value -> the value it equals, in equals
  std::vector<std::string> equals;
  auto resolve = [&](const std::string& name) {
    auto it = alias.find(name);
    return it == alias.end() ? name : equals[it->second];
  };
  // Nodes are in topological order, so one pass sees every pair after its first half.
  for (size_t n = 0; n < graph->nodes.size(); ++n) {
    Node& node = graph->nodes[n];
    for (auto& in : node.inputs) in = resolve(in);
    for (const auto& out : node.outputs) producer[out] = static_cast<int>(n);
    const std::vector<int64_t>* second = PermOf(node);
    if (!second) continue;
    auto p = producer.find(node.inputs[0]);
    if (p == producer.end()) continue;
    const Node& before = graph->nodes[p->second];
    const std::vector<int64_t>* first = PermOf(before);
    if (!first || !Cancels(*first, *second)) continue;
    if (graph_outputs.count(node.outputs[0])) {
      // The output name must survive: keep it as a view of the original value.
      node.op_type = "Identity";
      node.attrs.clear();
      node.inputs[0] = before.inputs[0];
    } else {
      alias[node.outputs[0]] = static_cast<int>(equals.size());
      equals.push_back(before.inputs[0]);
    }
  }
}

void DropDeadNodes(Graph* graph) {
  std::unordered_map<std::string, int> live;  // as a set (see producer above)
  for (const auto& o : graph->outputs) live[o.name] = 1;
  std::vector<bool> keep(graph->nodes.size(), false);
  for (size_t n = graph->nodes.size(); n-- > 0;) {
    const Node& node = graph->nodes[n];
    for (const auto& out : node.outputs) {
      if (!out.empty() && live.count(out)) keep[n] = true;
    }
    if (!keep[n]) continue;
    for (const auto& in : node.inputs) live[in] = 1;
  }
  std::vector<Node> kept;
  kept.reserve(graph->nodes.size());
  for (size_t n = 0; n < graph->nodes.size(); ++n) {
    if (keep[n]) kept.push_back(std::move(graph->nodes[n]));
  }
  graph->nodes = std::move(kept);
  for (auto it = graph->initializers.begin(); it != graph->initializers.end();) {
    it = live.count(it->first) ? std::next(it) : graph->initializers.erase(it);
  }
}

}  // namespace jsonl
}  // namespace webnx
