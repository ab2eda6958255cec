#include "core/graph_limits.h"

#include <algorithm>
#include <unordered_map>

namespace webnx {
namespace {

Status CheckString(const std::string& s, const SessionLimits& limits, const std::string& what) {
  if (static_cast<int64_t>(s.size()) <= limits.max_string_length) return Status::Ok();
  return LimitError(ErrorCode::kMalformedModel, what + " is", static_cast<int64_t>(s.size()),
                    " bytes long", limits.max_string_length, "maxStringLength");
}

Status CheckValueInfo(const ValueInfo& info, bool is_input, const SessionLimits& limits) {
  const std::string what = std::string(is_input ? "graph input" : "graph output");
  WEBNX_RETURN_IF_ERROR(CheckString(info.name, limits, "the name of a " + what));
  const std::string named = what + " '" + info.name + "'";
  Shape fixed;
  for (const Dim& d : info.dims) {
    WEBNX_RETURN_IF_ERROR(CheckString(d.symbol, limits, "a dimension name of " + named));
    fixed.push_back(d.fixed() ? d.value : 1);
  }
  if (!info.has_shape) return Status::Ok();
  // Symbolic dims count as 1: what is checked is what the declaration alone demands. Sizes
  // are only checked for inputs; declared output shapes are informational.
  return CheckShapeLimits(fixed, is_input ? DTypeSize(info.dtype) : 0, limits, named);
}

Status CheckNode(const Node& node, size_t index, const SessionLimits& limits) {
  const std::string where = "node " + std::to_string(index);
  WEBNX_RETURN_IF_ERROR(CheckString(node.name, limits, "the name of " + where));
  const std::string what = node.Describe();
  WEBNX_RETURN_IF_ERROR(CheckString(node.op_type, limits, "the op_type of " + what));
  WEBNX_RETURN_IF_ERROR(CheckString(node.domain, limits, "the domain of " + what));
  for (const auto& name : node.inputs)
    WEBNX_RETURN_IF_ERROR(CheckString(name, limits, "an input name of " + what));
  for (const auto& name : node.outputs)
    WEBNX_RETURN_IF_ERROR(CheckString(name, limits, "an output name of " + what));
  for (const auto& kv : node.attrs) {
    WEBNX_RETURN_IF_ERROR(CheckString(kv.first, limits, "an attribute name of " + what));
    const std::string attr = "attribute '" + kv.first + "' of " + what;
    WEBNX_RETURN_IF_ERROR(CheckString(kv.second.s, limits, attr));
    for (const auto& s : kv.second.strings)
      WEBNX_RETURN_IF_ERROR(CheckString(s, limits, "a string in " + attr));
  }
  return Status::Ok();
}

// Longest chain of nodes from any source to any node.
int64_t GraphDepth(const Graph& graph) {
  std::unordered_map<std::string, int> depth_of;  // <string, int>: no hash table of its own
  int deepest = 0;
  for (const Node& node : graph.nodes) {
    int depth = 0;
    for (const auto& in : node.inputs) {
      auto it = depth_of.find(in);
      if (it != depth_of.end()) depth = std::max(depth, it->second);
    }
    ++depth;
    for (const auto& out : node.outputs) depth_of[out] = depth;
    deepest = std::max(deepest, depth);
  }
  return deepest;
}

}  // namespace

Status AddInitializerBytes(int64_t bytes, const SessionLimits& limits, const std::string& what,
                           int64_t* total) {
  // Both terms are below 2^62 (tensor bytes are capped at 2^32), so the sum cannot overflow.
  *total += std::min<int64_t>(bytes, int64_t{1} << 62);
  if (*total <= limits.max_initializer_bytes) return Status::Ok();
  return LimitError(ErrorCode::kOutOfMemory,
                    "the model's initializers and constants reach " + what + " at", *total,
                    " bytes", limits.max_initializer_bytes, "maxInitializerBytes");
}

Status CheckGraphLimits(const Graph& graph, const SessionLimits& limits) {
  const int64_t nodes = static_cast<int64_t>(graph.nodes.size());
  if (nodes > limits.max_nodes) {
    return LimitError(ErrorCode::kMalformedModel, "the model has", nodes, " nodes",
                      limits.max_nodes, "maxNodes");
  }
  WEBNX_RETURN_IF_ERROR(CheckString(graph.producer, limits, "the producer name"));
  for (const auto& kv : graph.metadata) {
    WEBNX_RETURN_IF_ERROR(CheckString(kv.first, limits, "a metadata key"));
    WEBNX_RETURN_IF_ERROR(CheckString(kv.second, limits, "metadata '" + kv.first + "'"));
  }
  for (const auto& in : graph.inputs) WEBNX_RETURN_IF_ERROR(CheckValueInfo(in, true, limits));
  for (const auto& out : graph.outputs) WEBNX_RETURN_IF_ERROR(CheckValueInfo(out, false, limits));
  int64_t total = 0;
  for (const auto& kv : graph.initializers) {
    WEBNX_RETURN_IF_ERROR(CheckString(kv.first, limits, "the name of an initializer"));
    const std::string what = "initializer '" + kv.first + "'";
    const Tensor& t = kv.second;
    WEBNX_RETURN_IF_ERROR(CheckShapeLimits(t.shape, DTypeSize(t.dtype), limits, what));
    WEBNX_RETURN_IF_ERROR(
        AddInitializerBytes(static_cast<int64_t>(t.nbytes()), limits, what, &total));
  }
  for (size_t i = 0; i < graph.nodes.size(); ++i)
    WEBNX_RETURN_IF_ERROR(CheckNode(graph.nodes[i], i, limits));
  const int64_t depth = GraphDepth(graph);
  if (depth > limits.max_graph_depth) {
    return LimitError(ErrorCode::kMalformedModel, "the graph is", depth, " nodes deep",
                      limits.max_graph_depth, "maxGraphDepth");
  }
  return Status::Ok();
}

}  // namespace webnx
