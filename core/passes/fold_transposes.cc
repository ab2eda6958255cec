#include "core/passes/fold_transposes.h"

#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/graph_index.h"

namespace webnx {
namespace {

using Perm = std::vector<int64_t>;

bool Undoes(const Perm& q, const Perm& p) {
  if (q.size() != p.size()) return false;
  for (size_t i = 0; i < q.size(); ++i)
    if (q[i] < 0 || q[i] >= static_cast<int64_t>(p.size()) || p[q[i]] != static_cast<int64_t>(i))
      return false;
  return true;
}

// A permutation of 0..n-1 (output dim i is input dim perm[i]), checked because a kernel
// declared it from an attribute the model wrote.
bool IsPermutation(const Perm& perm) {
  std::vector<bool> seen(perm.size(), false);
  for (int64_t d : perm) {
    if (d < 0 || d >= static_cast<int64_t>(perm.size()) || seen[d]) return false;
    seen[d] = true;
  }
  return true;
}

// `c`, its shape left-padded with 1s to the permutation's rank, transposed by `perm`: the
// operand that, read before the transpose, gives what `c` gave after it. Any dtype (bytes).
bool TransposedConstant(const Tensor& c, const Perm& perm, Tensor* out) {
  const size_t rank = perm.size();
  if (c.shape.size() > rank) return false;
  Shape padded(rank - c.shape.size(), 1);
  padded.insert(padded.end(), c.shape.begin(), c.shape.end());
  Shape shape(rank);
  for (size_t i = 0; i < rank; ++i) shape[i] = padded[perm[i]];
  if (!Tensor::AllocateUninitialized(c.dtype, shape, out).ok()) return false;
  std::vector<int64_t> in_strides(rank, 1);
  for (size_t i = rank; i-- > 1;) in_strides[i - 1] = in_strides[i] * padded[i];
  const size_t elem = DTypeSize(c.dtype);
  std::vector<int64_t> index(rank, 0);  // the output element's index
  const auto* src = static_cast<const uint8_t*>(c.data);
  auto* dst = static_cast<uint8_t*>(out->data);
  for (int64_t k = 0; k < out->numel(); ++k) {
    int64_t offset = 0;
    for (size_t i = 0; i < rank; ++i) offset += index[i] * in_strides[perm[i]];
    std::memcpy(dst + k * elem, src + offset * elem, elem);
    for (size_t i = rank; i-- > 0 && ++index[i] == shape[i];) index[i] = 0;
  }
  return true;
}

// The rewrites, on nodes that keep their positions until Finish: a rewrite then costs the
// nodes it touches, not a pass over the graph, and the index stays right by bookkeeping.
class TransposeFolder {
 public:
  TransposeFolder(ResolvedGraph* rg, const OpRegistry& registry)
      : rg_(rg), graph_(rg->graph), index_(graph_), names_(ValueNames(graph_)) {
    for (size_t n = 0; n < graph_.nodes.size(); ++n) {
      const Node& node = graph_.nodes[n];
      std::unique_ptr<Kernel> kernel = registry.Create(node.domain, node.op_type);
      FormContext ctx(node, rg->since_versions[n], ConstantInputs(graph_, node));
      Perm perm;
      kinds_.push_back(kernel ? kernel->Elementwise() : ElementwiseKind::kNone);
      const bool transpose = kernel && node.inputs.size() == 1 && node.outputs.size() == 1 &&
                             kernel->IsTranspose(ctx, &perm) && IsPermutation(perm);
      perms_.push_back(transpose ? perm : Perm());
    }
    removed_.assign(graph_.nodes.size(), false);
  }

  // Passes over the nodes until one changes nothing; returns the transposes removed.
  int Run() {
    // A real NHWC export settles in two or three passes; the budget keeps a hostile graph
    // (transposes that push each other around) from taking hours: past it the graph runs as it
    // is, only slower.
    constexpr size_t kNodeVisits = size_t{1} << 24;
    const size_t nodes = graph_.nodes.size();
    bool changed = true;
    for (size_t visits = 0; changed && visits + nodes <= kNodeVisits; visits += nodes) {
      changed = false;
      for (size_t n = 0; n < nodes; ++n) {
        if (removed_[n]) continue;
        const int i = static_cast<int>(n);
        changed = CancelPair(i) || RemoveIfDead(i) || PushThrough(i) || changed;
      }
    }
    return removed_count_;
  }

  // Drops the removed nodes and the constants only they read, and restores a topological
  // order (a pushed transpose now reads a node that came after it).
  Status Finish();

 private:
  const Perm* TransposeAt(int n) const {
    return n >= 0 && !removed_[n] && !perms_[n].empty() ? &perms_[n] : nullptr;
  }
  int TransposeWriting(const std::string& value) const {
    const int n = index_.Producer(value);
    return TransposeAt(n) ? n : -1;
  }

  void SetInput(Node& node, size_t i, const std::string& value) {
    index_.AddReaders(node.inputs[i], -1);
    index_.AddReaders(value, 1);
    node.inputs[i] = value;
  }

  void Remove(int n) {
    Node& node = graph_.nodes[n];
    for (const std::string& in : node.inputs) index_.AddReaders(in, -1);
    removed_[n] = true;
    ++removed_count_;
  }

  // T_q(T_p(x)) with q undoing p, T_q's output no graph output: its readers read x instead.
  bool CancelPair(int b) {
    const Perm* q = TransposeAt(b);
    if (!q) return false;
    const Node& second = graph_.nodes[b];
    const int a = TransposeWriting(second.inputs[0]);
    if (a < 0 || !Undoes(*q, perms_[a])) return false;
    if (IsGraphOutput(second.outputs[0])) return WriteOutputDirectly(a, b);
    const std::string x = graph_.nodes[a].inputs[0], y = second.outputs[0];
    for (size_t n = 0; n < graph_.nodes.size(); ++n) {
      if (removed_[n]) continue;
      Node& node = graph_.nodes[n];
      bool captured = false;
      for (size_t i = 0; i < node.inputs.size(); ++i) {
        if (node.inputs[i] != y) continue;
        SetInput(node, i, x);
        captured |= IsCapturedInput(node, i);
      }
      // Its subgraphs read y under that name (fuzz-diff seed 22312245: a Loop body).
      if (captured) RenameInSubgraphs(&node, y, x);
    }
    Remove(b);
    return true;
  }

  // T_q(T_p(x)) with q undoing p writing graph output y, x read by T_p alone and written by a
  // node: that node writes y instead, and both transposes go.
  bool WriteOutputDirectly(int a, int b) {
    const std::string x = graph_.nodes[a].inputs[0], y = graph_.nodes[b].outputs[0];
    const int producer = index_.Producer(x);
    if (producer < 0 || removed_[producer] || index_.Readers(x) != 1 ||
        index_.Readers(graph_.nodes[a].outputs[0]) != 1) {
      return false;
    }
    for (std::string& out : graph_.nodes[producer].outputs)
      if (out == x) out = y;
    index_.SetProducer(x, -1);
    index_.SetProducer(y, producer);
    Remove(b);
    Remove(a);
    return true;
  }

  // A transpose nothing reads (and no graph output).
  bool RemoveIfDead(int n) {
    if (!TransposeAt(n) || index_.Readers(graph_.nodes[n].outputs[0]) > 0) return false;
    Remove(n);
    return true;
  }

  struct Operand {
    std::string source;
    const Tensor* constant;  // to be transposed, or null
  };
  // U(T_p(x), ...) -> T_p(U(x, ...)): the transpose node is reused after the elementwise one;
  // its other operands are scalars (unary), or (broadcasting) transposes by p that it alone
  // reads, or constants, given transposed by p's inverse.
  bool PushThrough(int e);
  int PushedInput(int e) const;
  bool OperandBefore(int e, size_t i, const Perm& p, Operand* operand) const;
  bool IsGraphOutput(const std::string& value) const;
  bool IsScalarConstant(const std::string& value) const {
    auto it = graph_.initializers.find(value);
    return value.empty() || (it != graph_.initializers.end() && it->second.numel() == 1);
  }

  ResolvedGraph* rg_;
  Graph& graph_;
  GraphIndex index_;
  std::set<std::string> names_;
  std::vector<ElementwiseKind> kinds_;
  std::vector<Perm> perms_;  // empty for nodes that are no transpose
  std::vector<bool> removed_;
  int removed_count_ = 0;
  std::vector<std::pair<std::string, std::string>> moved_constants_;  // (constant, copy)
};

bool TransposeFolder::IsGraphOutput(const std::string& value) const {
  for (const ValueInfo& out : graph_.outputs)
    if (out.name == value) return true;
  return false;
}

// How operand `i` of elementwise node `e` is read before a transpose by `p`: a value as it is
// (`source`), or a constant to transpose by p's inverse first. False when it cannot be.
bool TransposeFolder::OperandBefore(int e, size_t i, const Perm& p, Operand* operand) const {
  const std::string& in = graph_.nodes[e].inputs[i];
  operand->source = in;
  operand->constant = nullptr;
  if (kinds_[e] == ElementwiseKind::kUnary) return IsScalarConstant(in);
  if (in.empty()) return false;
  const int t = TransposeWriting(in);
  if (t >= 0) {
    operand->source = graph_.nodes[t].inputs[0];
    return perms_[t] == p && index_.Readers(in) == 1;
  }
  auto constant = graph_.initializers.find(in);
  if (constant == graph_.initializers.end() ||
      constant->second.rank() > static_cast<int64_t>(p.size()))
    return false;
  operand->constant = &constant->second;
  return true;
}

// The first input written by a transpose that only node `e` reads (input 0 for unary nodes).
int TransposeFolder::PushedInput(int e) const {
  const Node& node = graph_.nodes[e];
  const size_t candidates = kinds_[e] == ElementwiseKind::kUnary ? 1 : node.inputs.size();
  for (size_t i = 0; i < candidates; ++i)
    if (TransposeWriting(node.inputs[i]) >= 0 && index_.Readers(node.inputs[i]) == 1)
      return static_cast<int>(i);
  return -1;
}

bool TransposeFolder::PushThrough(int e) {
  const Node& node = graph_.nodes[e];
  if (kinds_[e] == ElementwiseKind::kNone || node.outputs.size() != 1) return false;
  const int pushed = PushedInput(e);
  if (pushed < 0) return false;
  const int first = TransposeWriting(node.inputs[pushed]);
  const Perm p = perms_[first];
  std::vector<Operand> operands(node.inputs.size());
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    if (static_cast<int>(i) == pushed)
      operands[i] = Operand{graph_.nodes[first].inputs[0], nullptr};
    else if (!OperandBefore(e, i, p, &operands[i]))
      return false;
  }
  Perm inverse(p.size());
  for (size_t k = 0; k < p.size(); ++k) inverse[p[k]] = static_cast<int64_t>(k);
  for (Operand& operand : operands) {
    if (!operand.constant) continue;
    Tensor moved;
    if (!TransposedConstant(*operand.constant, inverse, &moved)) return false;
    const std::string name = FreshName(&names_, operand.source + "/before_transpose");
    moved_constants_.emplace_back(operand.source, name);
    graph_.initializers.emplace(name, std::move(moved));
    operand.source = name;
  }
  Node& elementwise = graph_.nodes[e];
  for (size_t i = 0; i < operands.size(); ++i) SetInput(elementwise, i, operands[i].source);
  const std::string out = elementwise.outputs[0];
  const std::string inner = FreshName(&names_, out + "/before_transpose");
  elementwise.outputs[0] = inner;
  index_.SetProducer(inner, e);
  Node& transpose = graph_.nodes[first];
  index_.SetProducer(transpose.outputs[0], -1);
  SetInput(transpose, 0, inner);
  transpose.outputs[0] = out;
  index_.SetProducer(out, first);
  return true;
}

Status TransposeFolder::Finish() {
  for (const auto& moved : moved_constants_)  // constants now read only as transposed copies
    if (index_.Readers(moved.first) == 0) graph_.initializers.erase(moved.first);
  rg_->RemoveNodes(removed_);
  return rg_->SortNodes();
}

}  // namespace

Status FoldTransposes(ResolvedGraph* rg, const OpRegistry& registry, int* removed) {
  TransposeFolder folder(rg, registry);
  const int count = folder.Run();
  if (removed) *removed = count;
  return folder.Finish();
}

}  // namespace webnx
