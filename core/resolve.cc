#include "core/resolve.h"

#include <map>
#include <string>
#include <vector>

#include "core/graph_limits.h"
#include "core/loaders/onnx_loader.h"
#include "core/op_registry.h"
#include "core/plan.h"

namespace webnx {
namespace {

// Unsupported operators, one entry per distinct (domain, op, opset) listing its nodes.
struct Unsupported {
  std::map<std::string, std::vector<std::string>> ops;
  bool unknown_op = false;  // missing altogether, not only at this opset
};

// The node's op version, or 0 after noting why there is none.
int ResolveNode(const Node& node, const std::map<std::string, int64_t>& opsets,
                Unsupported* unsupported) {
  const OpRegistry& registry = OpRegistry::Default();
  auto opset = opsets.find(node.domain);
  const std::string op = node.domain.empty() ? node.op_type : node.domain + ":" + node.op_type;
  if (opset == opsets.end()) {
    unsupported->ops[op + " (domain '" + node.domain + "' is not imported by the model)"].push_back(
        node.name);
    unsupported->unknown_op = true;
    return 0;
  }
  const int v = registry.Resolve(node.domain, node.op_type, opset->second);
  if (v == 0) {
    const bool known = registry.Knows(node.domain, node.op_type);
    unsupported->unknown_op = unsupported->unknown_op || !known;
    unsupported
        ->ops[op + " at opset " + std::to_string(opset->second) +
              (known ? " (no implementation of a version that old)" : "")]
        .push_back(node.name);
  }
  return v;
}

// The unsupported operators of subgraphs (any depth), which share the model's opsets.
void CollectInSubgraphs(const Node& node, const std::map<std::string, int64_t>& opsets,
                        Unsupported* unsupported) {
  for (const auto& kv : node.attrs) {
    if (!kv.second.g) continue;
    for (const Node& inner : kv.second.g->nodes) {
      ResolveNode(inner, opsets, unsupported);
      CollectInSubgraphs(inner, opsets, unsupported);
    }
  }
}

Status UnsupportedError(const Graph& graph, const Unsupported& unsupported) {
  auto def = graph.opsets.find("");
  const bool old_opset =
      !unsupported.unknown_op && def != graph.opsets.end() && def->second < kMinDefaultOpset;
  std::string msg =
      old_opset ? "the model imports opset " + std::to_string(def->second) +
                      " of the default domain; webnx supports opsets " +
                      std::to_string(kMinDefaultOpset) + " to " + std::to_string(kMaxDefaultOpset) +
                      ", and older ones only where it implements every op at that opset: "
                : std::string();
  msg += std::to_string(unsupported.ops.size()) + " unsupported operator" +
         (unsupported.ops.size() == 1 ? "" : "s") + ": ";
  bool first = true;
  for (const auto& kv : unsupported.ops) {
    msg += (first ? "" : "; ") + kv.first + " used by ";
    first = false;
    for (size_t i = 0; i < kv.second.size() && i < 3; ++i)
      msg += (i ? ", '" : "'") + kv.second[i] + "'";
    if (kv.second.size() > 3) msg += " and " + std::to_string(kv.second.size() - 3) + " more";
  }
  return Status(old_opset ? ErrorCode::kUnsupportedOpset : ErrorCode::kUnsupportedOperator, msg);
}

bool HasSubgraph(const Node& node) {
  for (const auto& kv : node.attrs)
    if (kv.second.g) return true;
  return false;
}

}  // namespace

Status ResolveNodes(ResolvedGraph* rg) {
  const Graph& graph = rg->graph;
  rg->since_versions.assign(graph.nodes.size(), 0);
  Unsupported unsupported;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    rg->since_versions[i] = ResolveNode(graph.nodes[i], graph.opsets, &unsupported);
    CollectInSubgraphs(graph.nodes[i], graph.opsets, &unsupported);
  }
  if (!unsupported.ops.empty()) return UnsupportedError(graph, unsupported);
  // Input and output counts once, at load: a malformed node fails here, not in every plan.
  for (size_t i = 0; i < graph.nodes.size(); ++i)
    WEBNX_RETURN_IF_ERROR(OpRegistry::Default().CheckArity(graph.nodes[i], rg->since_versions[i]));
  return Status::Ok();
}

Status PrepareGraphConstants(const ResolvedGraph& rg, ConstantCache* cache) {
  const OpRegistry& registry = OpRegistry::Default();
  const Graph& graph = rg.graph;
  std::vector<ConstantCache::Declared> declared;
  std::vector<ConstantForm> forms;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const Node& node = graph.nodes[n];
    std::unique_ptr<Kernel> kernel = registry.Create(node.domain, node.op_type);
    if (!kernel) continue;
    FormContext ctx(node, rg.since_versions[n], ConstantInputs(graph, node));
    forms.clear();
    kernel->DeclareForms(ctx, &forms);
    for (ConstantForm& form : forms) {
      if (const Tensor* c = ctx.constant(form.input))
        declared.push_back(ConstantCache::Declared{c, std::move(form)});
    }
  }
  return cache->Prepare(graph, declared);
}

Status FoldConstantNodes(ResolvedGraph* rg) {
  Graph& graph = rg->graph;
  const OpRegistry& registry = OpRegistry::Default();
  std::vector<bool> folded(graph.nodes.size(), false);
  // Folded outputs join the weights under limits.maxInitializerBytes.
  int64_t constant_bytes = 0;
  for (const auto& kv : graph.initializers) constant_bytes += kv.second.nbytes();
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const Node& node = graph.nodes[n];
    if (HasSubgraph(node)) continue;
    std::vector<const Tensor*> inputs;
    bool all_constant = true;
    for (const auto& name : node.inputs) {
      auto it = name.empty() ? graph.initializers.end() : graph.initializers.find(name);
      all_constant = all_constant && (name.empty() || it != graph.initializers.end());
      inputs.push_back(it == graph.initializers.end() ? nullptr : &it->second);
    }
    if (!all_constant) continue;
    std::vector<Tensor> outputs;
    WEBNX_RETURN_IF_ERROR(
        EvaluateNode(node, rg->since_versions[n], registry, inputs, &outputs, rg->limits));
    for (size_t i = 0; i < outputs.size(); ++i) {
      WEBNX_RETURN_IF_ERROR(AddInitializerBytes(static_cast<int64_t>(outputs[i].nbytes()),
                                                rg->limits, node.Describe(), &constant_bytes));
    }
    for (size_t i = 0; i < node.outputs.size(); ++i) {
      if (!node.outputs[i].empty()) graph.initializers[node.outputs[i]] = std::move(outputs[i]);
    }
    folded[n] = true;
  }
  rg->RemoveNodes(folded);
  return Status::Ok();
}

}  // namespace webnx
