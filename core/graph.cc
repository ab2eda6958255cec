#include "core/graph.h"

#include <memory>
#include <set>
#include <unordered_map>

namespace webnx {

const char* AttributeTypeName(Attribute::Type type) {
  switch (type) {
    case Attribute::Type::kFloat:
      return "float";
    case Attribute::Type::kInt:
      return "int";
    case Attribute::Type::kString:
      return "string";
    case Attribute::Type::kTensor:
      return "tensor";
    case Attribute::Type::kFloats:
      return "floats";
    case Attribute::Type::kInts:
      return "ints";
    case Attribute::Type::kStrings:
      return "strings";
    case Attribute::Type::kGraph:
      return "graph";
    case Attribute::Type::kUndefined:
      break;
  }
  return "undefined";
}

std::string Node::Describe() const {
  return "node '" + name + "' (" + op_type + ")";
}

namespace {

using ProducerMap = std::unordered_map<std::string, int>;  // value -> node, -1 for sources

// Kahn's algorithm, stable with respect to the source order. MalformedModel when a node reads
// a value nothing defines, or on a cycle.
Status OrderNodes(const Graph& graph, const ProducerMap& producer, std::vector<int>* order) {
  const int n = static_cast<int>(graph.nodes.size());
  std::vector<int> pending(n, 0);
  std::vector<std::vector<int>> users(n);
  for (int i = 0; i < n; ++i) {
    std::set<int> deps;
    for (const auto& in : graph.nodes[i].inputs) {
      if (in.empty()) continue;
      auto it = producer.find(in);
      if (it == producer.end()) {
        return Status(ErrorCode::kMalformedModel,
                      graph.nodes[i].Describe() + " reads value '" + in +
                          "' that no input, initializer or node defines");
      }
      if (it->second >= 0) deps.insert(it->second);
    }
    for (int d : deps) users[d].push_back(i);
    pending[i] = static_cast<int>(deps.size());
  }
  order->clear();
  order->reserve(n);
  std::vector<int> ready;
  for (int i = n - 1; i >= 0; --i)
    if (pending[i] == 0) ready.push_back(i);
  while (!ready.empty()) {
    int i = ready.back();
    ready.pop_back();
    order->push_back(i);
    for (int u : users[i]) {
      if (--pending[u] == 0) ready.push_back(u);
    }
  }
  for (int i = 0; i < n; ++i) {
    if (pending[i] > 0) {
      return Status(ErrorCode::kMalformedModel,
                    "the graph has a cycle through " + graph.nodes[i].Describe());
    }
  }
  return Status::Ok();
}

}  // namespace

Status TopologicalOrder(const Graph& graph, std::vector<int>* order) {
  ProducerMap producer;
  for (const auto& in : graph.inputs) producer[in.name] = -1;
  for (const auto& kv : graph.initializers) producer[kv.first] = -1;
  for (size_t i = 0; i < graph.nodes.size(); ++i)
    for (const auto& out : graph.nodes[i].outputs)
      if (!out.empty()) producer[out] = static_cast<int>(i);
  return OrderNodes(graph, producer, order);
}

Status SortAndValidateGraph(Graph* graph) {
  ProducerMap producer;
  auto define = [&](const std::string& name, int who, const std::string& where) -> Status {
    if (name.empty()) return Status::Ok();
    if (!producer.emplace(name, who).second) {
      return Status(ErrorCode::kMalformedModel,
                    "value '" + name + "' is defined twice (" + where + ")");
    }
    return Status::Ok();
  };
  for (const auto& in : graph->inputs) {
    if (in.name.empty()) return Status(ErrorCode::kMalformedModel, "a graph input has no name");
    WEBNX_RETURN_IF_ERROR(define(in.name, -1, "graph input"));
  }
  for (const auto& kv : graph->initializers)
    WEBNX_RETURN_IF_ERROR(define(kv.first, -1, "initializer"));
  for (size_t i = 0; i < graph->nodes.size(); ++i) {
    for (const auto& out : graph->nodes[i].outputs) {
      WEBNX_RETURN_IF_ERROR(
          define(out, static_cast<int>(i), "output of " + graph->nodes[i].Describe()));
    }
  }
  std::vector<int> order;
  WEBNX_RETURN_IF_ERROR(OrderNodes(*graph, producer, &order));
  std::vector<Node> sorted;
  sorted.reserve(order.size());
  for (int i : order) sorted.push_back(std::move(graph->nodes[i]));
  graph->nodes = std::move(sorted);
  for (const auto& out : graph->outputs) {
    if (!producer.count(out.name)) {
      return Status(ErrorCode::kMalformedModel,
                    "graph output '" + out.name + "' is never produced");
    }
  }
  return Status::Ok();
}

std::vector<std::string> OuterScopeReads(const Graph& graph) {
  std::set<std::string> defined;
  for (const auto& in : graph.inputs) defined.insert(in.name);
  for (const auto& kv : graph.initializers) defined.insert(kv.first);
  for (const Node& node : graph.nodes) defined.insert(node.outputs.begin(), node.outputs.end());
  std::vector<std::string> reads;
  std::set<std::string> seen;
  auto read = [&](const std::string& name) {
    if (!name.empty() && !defined.count(name) && seen.insert(name).second) reads.push_back(name);
  };
  for (const Node& node : graph.nodes)
    for (const std::string& name : node.inputs) read(name);
  for (const auto& out : graph.outputs) read(out.name);
  return reads;
}

void CaptureOuterScope(Node* node, const std::vector<Graph*>& subgraphs) {
  std::vector<std::string> captured;
  std::set<std::string> seen;
  for (const Graph* sub : subgraphs) {
    for (std::string& name : OuterScopeReads(*sub))
      if (seen.insert(name).second) captured.push_back(std::move(name));
  }
  for (Graph* sub : subgraphs) {
    for (const std::string& name : captured) {
      ValueInfo info;  // its dtype and shape are the outer value's, known when planned
      info.name = name;
      sub->inputs.push_back(std::move(info));
    }
  }
  node->inputs.insert(node->inputs.end(), captured.begin(), captured.end());
  node->captured_inputs += static_cast<int>(captured.size());
}

void RenameInSubgraphs(Node* node, const std::string& from, const std::string& to) {
  for (auto& [name, a] : node->attrs) {
    if (a.type != Attribute::Type::kGraph || !a.g) continue;
    auto body = std::make_shared<Graph>(*a.g);  // subgraphs may be shared: a copy of its own
    for (ValueInfo& in : body->inputs) {
      if (in.name == from) in.name = to;
    }
    for (ValueInfo& out : body->outputs) {
      if (out.name == from) out.name = to;
    }
    RenameReads(body.get(), from, to);
    a.g = std::move(body);
  }
}

void RenameReads(Graph* graph, const std::string& from, const std::string& to) {
  for (Node& node : graph->nodes) {
    bool captured = false;
    for (size_t k = 0; k < node.inputs.size(); ++k) {
      if (node.inputs[k] != from) continue;
      node.inputs[k] = to;
      captured |= IsCapturedInput(node, k);
    }
    if (captured) RenameInSubgraphs(&node, from, to);
  }
}

std::vector<const Tensor*> ConstantInputs(const Graph& graph, const Node& node) {
  std::vector<const Tensor*> constants;
  for (const std::string& name : node.inputs) {
    auto it = name.empty() ? graph.initializers.end() : graph.initializers.find(name);
    constants.push_back(it == graph.initializers.end() ? nullptr : &it->second);
  }
  return constants;
}

std::set<std::string> ValueNames(const Graph& graph) {
  std::set<std::string> names;
  for (const auto& kv : graph.initializers) names.insert(kv.first);
  for (const auto& in : graph.inputs) names.insert(in.name);
  for (const Node& node : graph.nodes)
    for (const auto& name : node.outputs) names.insert(name);
  return names;
}

std::string FreshName(std::set<std::string>* used, const std::string& base) {
  std::string name = base;
  for (int i = 1; used->count(name); ++i) name = base + "_" + std::to_string(i);
  used->insert(name);
  return name;
}

}  // namespace webnx
