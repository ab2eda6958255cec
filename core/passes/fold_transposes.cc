#include "core/passes/fold_transposes.h"

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/graph_index.h"

namespace webnx {
namespace {

using Perm = std::vector<int64_t>;

// What the kernels declare about each node, and who reads what.
class Layout {
 public:
  Layout(ResolvedGraph* rg, const OpRegistry& registry)
      : rg_(rg), graph_(rg->graph), index_(graph_) {
    for (const ValueInfo& out : graph_.outputs) graph_outputs_.insert(out.name);
    for (size_t n = 0; n < graph_.nodes.size(); ++n) {
      const Node& node = graph_.nodes[n];
      std::unique_ptr<Kernel> kernel = registry.Create(node.domain, node.op_type);
      FormContext ctx(node, rg->since_versions[n], ConstantInputs(graph_, node));
      Perm perm;
      kinds_.push_back(kernel ? kernel->Elementwise() : ElementwiseKind::kNone);
      const bool transpose = kernel && node.inputs.size() == 1 && node.outputs.size() == 1 &&
                             kernel->IsTranspose(ctx, &perm);
      perms_.push_back(transpose ? perm : Perm());
    }
  }

  // Node n is a transpose (its permutation), or nullptr.
  const Perm* TransposeAt(int n) const {
    return n >= 0 && !perms_[n].empty() ? &perms_[n] : nullptr;
  }
  // The transpose node writing `value`, or -1.
  int TransposeWriting(const std::string& value) const {
    const int n = index_.Producer(value);
    return TransposeAt(n) ? n : -1;
  }
  int Readers(const std::string& value) const { return index_.Readers(value); }
  bool IsGraphOutput(const std::string& value) const { return graph_outputs_.count(value) > 0; }
  ElementwiseKind Kind(int n) const { return kinds_[n]; }
  bool IsScalarConstant(const std::string& value) const {
    auto it = graph_.initializers.find(value);
    return value.empty() || (it != graph_.initializers.end() && it->second.numel() == 1);
  }

 private:
  ResolvedGraph* rg_;
  const Graph& graph_;
  GraphIndex index_;
  std::set<std::string> graph_outputs_;
  std::vector<ElementwiseKind> kinds_;
  std::vector<Perm> perms_;
};

bool Undoes(const Perm& q, const Perm& p) {
  if (q.size() != p.size()) return false;
  for (size_t i = 0; i < q.size(); ++i)
    if (q[i] < 0 || q[i] >= static_cast<int64_t>(p.size()) || p[q[i]] != static_cast<int64_t>(i))
      return false;
  return true;
}

// Moves node `from` to just after node `after` (from < after), keeping since_versions in step.
void MoveAfter(ResolvedGraph* rg, size_t from, size_t after) {
  auto& nodes = rg->graph.nodes;
  auto& versions = rg->since_versions;
  Node moved = std::move(nodes[from]);
  const int version = versions[from];
  nodes.erase(nodes.begin() + from);
  versions.erase(versions.begin() + from);
  nodes.insert(nodes.begin() + after, std::move(moved));  // `after` shifted down by one
  versions.insert(versions.begin() + after, version);
}

// T_q(T_p(x)) with q undoing p, T_q's output no graph output: its readers read x instead.
bool CancelPair(ResolvedGraph* rg, const Layout& layout, size_t b) {
  Graph& graph = rg->graph;
  const Perm* q = layout.TransposeAt(static_cast<int>(b));
  if (!q) return false;
  const Node& second = graph.nodes[b];
  const int a = layout.TransposeWriting(second.inputs[0]);
  if (a < 0 || !Undoes(*q, *layout.TransposeAt(a)) || layout.IsGraphOutput(second.outputs[0]))
    return false;
  const std::string x = graph.nodes[a].inputs[0], y = second.outputs[0];
  for (Node& node : graph.nodes)
    for (std::string& in : node.inputs)
      if (in == y) in = x;
  std::vector<bool> removed(graph.nodes.size(), false);
  removed[b] = true;
  rg->RemoveNodes(removed);
  return true;
}

// U(T_p(x)) -> T_p(U(x)), or B(T_p(x), T_p(y), ...) -> T_p(B(x, y, ...)): the first transpose
// node is reused after the elementwise one, the others lose their reader.
bool PushThrough(ResolvedGraph* rg, const Layout& layout, size_t e, std::set<std::string>* names) {
  Graph& graph = rg->graph;
  const Node& node = graph.nodes[e];
  const ElementwiseKind kind = layout.Kind(static_cast<int>(e));
  if (kind == ElementwiseKind::kNone || node.outputs.size() != 1 || node.inputs.empty())
    return false;
  const int first = layout.TransposeWriting(node.inputs[0]);
  if (first < 0 || layout.Readers(node.inputs[0]) != 1) return false;
  const Perm& p = *layout.TransposeAt(first);
  std::vector<std::string> sources = {graph.nodes[first].inputs[0]};
  for (size_t i = 1; i < node.inputs.size(); ++i) {
    const std::string& in = node.inputs[i];
    if (kind == ElementwiseKind::kUnary) {
      if (!layout.IsScalarConstant(in)) return false;
      sources.push_back(in);
      continue;
    }
    const int t = layout.TransposeWriting(in);
    if (t < 0 || *layout.TransposeAt(t) != p || layout.Readers(in) != 1) return false;
    sources.push_back(graph.nodes[t].inputs[0]);
  }
  const std::string out = node.outputs[0];
  const std::string inner = FreshName(names, out + "/before_transpose");
  Node& elementwise = graph.nodes[e];
  elementwise.inputs = sources;
  elementwise.outputs[0] = inner;
  Node& transpose = graph.nodes[first];
  transpose.inputs[0] = inner;
  transpose.outputs[0] = out;
  MoveAfter(rg, static_cast<size_t>(first), e);
  return true;
}

// A transpose nothing reads (and no graph output).
bool RemoveIfDead(ResolvedGraph* rg, const Layout& layout, size_t n) {
  if (!layout.TransposeAt(static_cast<int>(n))) return false;
  const std::string& out = rg->graph.nodes[n].outputs[0];
  if (layout.Readers(out) > 0 || layout.IsGraphOutput(out)) return false;
  std::vector<bool> removed(rg->graph.nodes.size(), false);
  removed[n] = true;
  rg->RemoveNodes(removed);
  return true;
}

// One rewrite anywhere in the graph, or false when none applies.
bool RewriteOnce(ResolvedGraph* rg, const OpRegistry& registry, std::set<std::string>* names,
                 int* removed) {
  const Layout layout(rg, registry);
  for (size_t n = 0; n < rg->graph.nodes.size(); ++n) {
    if (CancelPair(rg, layout, n) || RemoveIfDead(rg, layout, n)) {
      ++*removed;
      return true;
    }
    if (PushThrough(rg, layout, n, names)) return true;
  }
  return false;
}

}  // namespace

int FoldTransposes(ResolvedGraph* rg, const OpRegistry& registry) {
  int removed = 0;
  // Each rewrite costs a pass over the nodes. A real NHWC export needs a few per transpose; the
  // budget keeps a hostile graph (a million transposes) from taking hours: past it the graph
  // runs as it is, only slower.
  constexpr size_t kNodeVisits = size_t{1} << 25;
  const size_t nodes = rg->graph.nodes.size();
  std::set<std::string> names = ValueNames(rg->graph);
  for (size_t visits = 0;
       visits + nodes <= kNodeVisits && RewriteOnce(rg, registry, &names, &removed);
       visits += nodes) {
  }
  return removed;
}

}  // namespace webnx
