#include "core/passes/float16_in_float32.h"

#include <memory>
#include <set>
#include <string>
#include <utility>

#include "core/float16.h"

namespace webnx {
namespace {

constexpr int64_t kOnnxFloat = 1;  // TensorProto.DataType numbers
constexpr int64_t kOnnxFloat16 = 10;

Status Widen(Tensor* t, int* retyped) {
  if (t->dtype != DType::kFloat16) return Status::Ok();
  Tensor wide;
  WEBNX_RETURN_IF_ERROR(Tensor::AllocateUninitialized(DType::kFloat32, t->shape, &wide));
  const uint16_t* half = t->ptr<uint16_t>();
  float* out = wide.ptr<float>();
  for (int64_t i = 0; i < t->numel(); ++i) out[i] = HalfToFloat(half[i]);
  *t = std::move(wide);
  ++*retyped;
  return Status::Ok();
}

void Retarget(ValueInfo* v, int* retyped) {
  if (v->dtype != DType::kFloat16) return;
  v->dtype = DType::kFloat32;
  ++*retyped;
}

// A dtype attribute naming float16 (an int, or Cast-1's string) now names float32. Only nodes
// with such a value ask their kernel which attribute is a dtype.
void RetargetDTypeAttribute(Node* node, const OpRegistry& registry, int* retyped) {
  bool names_float16 = false;
  for (const auto& [name, a] : node->attrs) {
    names_float16 |= (a.type == Attribute::Type::kInt && a.i == kOnnxFloat16) ||
                     (a.type == Attribute::Type::kString && a.s == "FLOAT16");
  }
  if (!names_float16) return;
  const std::unique_ptr<Kernel> kernel = registry.Create(node->domain, node->op_type);
  const char* dtype_attribute = kernel ? kernel->DTypeAttribute() : nullptr;
  if (dtype_attribute == nullptr) return;
  auto it = node->attrs.find(dtype_attribute);
  if (it == node->attrs.end()) return;
  Attribute& a = it->second;
  if (a.type == Attribute::Type::kInt && a.i == kOnnxFloat16) {
    a.i = kOnnxFloat;
    ++*retyped;
  } else if (a.type == Attribute::Type::kString && a.s == "FLOAT16") {
    a.s = "FLOAT";
    ++*retyped;
  }
}

// Every float16 inside `graph`: its constants, its nodes' attributes, its subgraphs, and its
// own inputs and outputs when `with_io` (a subgraph's, bound to retyped outer values).
Status RetypeInside(Graph* graph, const OpRegistry& registry, bool with_io, int* retyped) {
  for (auto& [name, t] : graph->initializers) WEBNX_RETURN_IF_ERROR(Widen(&t, retyped));
  for (Node& node : graph->nodes) {
    for (auto& [name, a] : node.attrs) {
      if (a.type == Attribute::Type::kTensor) WEBNX_RETURN_IF_ERROR(Widen(&a.t, retyped));
      if (a.type != Attribute::Type::kGraph || !a.g) continue;
      auto body = std::make_shared<Graph>(*a.g);  // subgraphs are shared: retype a copy
      const int before = *retyped;
      WEBNX_RETURN_IF_ERROR(RetypeInside(body.get(), registry, true, retyped));
      if (*retyped != before) a.g = std::move(body);
    }
    RetargetDTypeAttribute(&node, registry, retyped);
  }
  if (with_io) {
    for (ValueInfo& v : graph->inputs) Retarget(&v, retyped);
    for (ValueInfo& v : graph->outputs) Retarget(&v, retyped);
  }
  return Status::Ok();
}

Node Conversion(const OpRegistry& registry, const std::string& from, const std::string& to,
                int64_t onnx_dtype) {
  const OpRegistry::Conversion& c = registry.conversion();
  Node node;
  node.name = "float16 boundary of '" + (onnx_dtype == kOnnxFloat ? from : to) + "'";
  node.op_type = c.op_type;
  node.domain = c.domain;
  node.inputs = {from};
  node.outputs = {to};
  Attribute a;
  a.type = Attribute::Type::kInt;
  a.i = onnx_dtype;
  node.attrs[c.dtype_attribute] = a;
  return node;
}

// The graph's float16 inputs widened by a conversion node before anything reads them, its
// float16 outputs rounded by one after the value is computed in float32 under a new name.
void ConvertAtTheBoundary(Graph* graph, const OpRegistry& registry) {
  std::set<std::string> names = ValueNames(*graph);
  std::set<std::string> inputs;
  std::vector<Node> first;
  for (const ValueInfo& in : graph->inputs) {
    inputs.insert(in.name);
    if (in.dtype != DType::kFloat16) continue;
    const std::string wide = FreshName(&names, in.name + "_float32");
    RenameReads(graph, in.name, wide);
    first.push_back(Conversion(registry, in.name, wide, kOnnxFloat));
  }
  for (Node& node : graph->nodes) first.push_back(std::move(node));
  graph->nodes.swap(first);
  std::set<std::string> rounded;
  for (const ValueInfo& out : graph->outputs) {
    if (out.dtype != DType::kFloat16 || inputs.count(out.name) || !rounded.insert(out.name).second)
      continue;  // an input passed through is float16 already
    const std::string wide = FreshName(&names, out.name + "_float32");
    auto init = graph->initializers.find(out.name);
    if (init != graph->initializers.end()) {
      Tensor t = std::move(init->second);
      graph->initializers.erase(init);
      graph->initializers[wide] = std::move(t);
    }
    for (Node& node : graph->nodes) {
      for (std::string& o : node.outputs) {
        if (o == out.name) o = wide;
      }
    }
    RenameReads(graph, out.name, wide);
    graph->nodes.push_back(Conversion(registry, wide, out.name, kOnnxFloat16));
  }
}

}  // namespace

Status ComputeFloat16InFloat32(Graph* graph, const OpRegistry& registry, int* retyped) {
  *retyped = 0;
  if (registry.conversion().op_type == nullptr) return Status::Ok();  // a registry without one
  for (const ValueInfo& v : graph->inputs) *retyped += v.dtype == DType::kFloat16;
  for (const ValueInfo& v : graph->outputs) *retyped += v.dtype == DType::kFloat16;
  const bool float16_io = *retyped != 0;
  WEBNX_RETURN_IF_ERROR(RetypeInside(graph, registry, false, retyped));
  if (float16_io) ConvertAtTheBoundary(graph, registry);
  return Status::Ok();
}

}  // namespace webnx
