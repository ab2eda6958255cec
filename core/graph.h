// The graph IR every loader produces: values with (possibly symbolic) shapes, nodes with typed
// attributes, and initializers. Nothing here knows any operator.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace webnx {

// One dimension of a declared shape: a fixed size, a named symbol (ONNX dim_param), or unknown.
struct Dim {
  int64_t value = -1;  // >= 0 when fixed
  std::string symbol;  // non-empty for a named dynamic dim
  bool fixed() const { return value >= 0; }
};

struct ValueInfo {
  std::string name;
  DType dtype = DType::kUndefined;
  bool has_shape = false;  // false: rank unknown
  std::vector<Dim> dims;
};

struct Graph;

struct Attribute {
  enum class Type { kUndefined, kFloat, kInt, kString, kTensor, kFloats, kInts, kStrings, kGraph };
  Type type = Type::kUndefined;
  float f = 0;
  int64_t i = 0;
  std::string s;
  Tensor t;
  std::vector<float> floats;
  std::vector<int64_t> ints;
  std::vector<std::string> strings;
  // kGraph: a subgraph (If's branches, Loop's and Scan's bodies). Shared by copies of the node;
  // loaders make it and nothing changes it afterwards.
  std::shared_ptr<const Graph> g;
};

const char* AttributeTypeName(Attribute::Type type);

struct Node {
  std::string name;  // may be empty in the source; loaders fill a stable one
  std::string op_type;
  std::string domain;               // "" is the default ONNX domain
  std::vector<std::string> inputs;  // "" marks an omitted optional input
  std::vector<std::string> outputs;
  std::map<std::string, Attribute> attrs;
  // The last `captured_inputs` inputs are values of this graph that the node's subgraphs read
  // from their outer scope, made explicit by CaptureOuterScope: they
  // order the node after their producers and keep them alive, like any input.
  int captured_inputs = 0;

  const Attribute* attr(const std::string& key) const {
    auto it = attrs.find(key);
    return it == attrs.end() ? nullptr : &it->second;
  }
  // "node 'name' (OpType)" for error messages.
  std::string Describe() const;
};

struct Graph {
  std::vector<ValueInfo> inputs;  // graph inputs that are not initializers
  std::vector<ValueInfo> outputs;
  std::map<std::string, Tensor> initializers;
  std::vector<Node> nodes;                // topologically sorted by the loader
  std::map<std::string, int64_t> opsets;  // domain -> version ("" = default domain)
  std::map<std::string, std::string> metadata;
  std::string producer;
};

// Orders graph.nodes topologically and checks that every input is produced exactly once
// (by a graph input, an initializer or one node). MalformedModel on cycles, dangling or
// duplicate names.
Status SortAndValidateGraph(Graph* graph);
// The nodes' indices in a topological order, stable with respect to their order where it can
// be. MalformedModel when a node reads a value nothing defines, or on a cycle.
Status TopologicalOrder(const Graph& graph, std::vector<int>* order);

// Names `graph` reads (node inputs, graph outputs) that it does not define: values of an
// enclosing scope, in the order they are first read.
std::vector<std::string> OuterScopeReads(const Graph& graph);
// Makes the outer-scope reads of a node's subgraphs (before they are validated) explicit: each
// name is appended to the node's inputs (counted by captured_inputs) and to every subgraph's
// inputs, in one order, so that each graph then validates and sorts on its own.
void CaptureOuterScope(Node* node, const std::vector<Graph*>& subgraphs);
// Whether input `i` of `node` is one its subgraphs read from this graph (CaptureOuterScope).
inline bool IsCapturedInput(const Node& node, size_t i) {
  return i + static_cast<size_t>(node.captured_inputs) >= node.inputs.size();
}
// Every read of `from` in `graph` now reads `to`, in subgraphs too: a subgraph reads an outer
// value under its name, as one of its (captured) inputs.
void RenameReads(Graph* graph, const std::string& from, const std::string& to);
// The same inside `node`'s subgraphs only, for a pass that renamed one of its captured inputs.
void RenameInSubgraphs(Node* node, const std::string& from, const std::string& to);

// The initializers among a node's inputs, by position (null where an input is none).
std::vector<const Tensor*> ConstantInputs(const Graph& graph, const Node& node);
// Every name the graph gives a value: initializers, graph inputs, node outputs.
std::set<std::string> ValueNames(const Graph& graph);
// `base`, or `base_1`, `base_2`... the first not in `used`, which then holds it.
std::string FreshName(std::set<std::string>* used, const std::string& base);

}  // namespace webnx
