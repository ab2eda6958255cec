#include "core/loaders/onnx_graph.h"

#include <memory>
#include <utility>
#include <vector>

#include "core/graph_limits.h"
#include "onnx/onnx.pb.h"

namespace webnx {
namespace {

// A subgraph's value infos may leave their type out (ONNX infers it from the node): the value
// then takes the outer value's type when planned.
Status ReadValueInfo(const onnx::ValueInfoProto& proto, bool in_subgraph, ValueInfo* info) {
  info->name = proto.name();
  const std::string what = "graph value '" + info->name + "'";
  if (in_subgraph && !proto.has_type()) return Status::Ok();
  if (!proto.has_type() || !proto.type().has_tensor_type()) {
    return Status(ErrorCode::kUnsupportedDtype,
                  what + " is not a tensor (sequences, maps and optionals are not supported)");
  }
  const auto& tt = proto.type().tensor_type();
  int32_t et = tt.elem_type();
  if (in_subgraph && et == 0) return Status::Ok();
  if (!IsSupportedDType(et)) return UnsupportedDtype(et, what);
  info->dtype = static_cast<DType>(et);
  info->has_shape = tt.has_shape();
  info->dims.clear();
  if (info->has_shape) {
    for (const auto& d : tt.shape().dim()) {
      Dim dim;
      if (d.has_dim_value()) {
        if (d.dim_value() < 0) return Malformed(what + " has a negative dimension");
        dim.value = d.dim_value();
      } else if (d.has_dim_param()) {
        dim.symbol = d.dim_param();
      }
      info->dims.push_back(dim);
    }
  }
  return Status::Ok();
}

// A subgraph: its initializers, values and nodes, validated once its outer-scope reads are
// inputs (the caller appends them). `scope` is "<node name>/<attribute name>".
Status ReadSubgraph(const onnx::GraphProto& proto, const std::string& scope, LoadBudget* budget,
                    Graph* graph) {
  const std::string where = "subgraph '" + scope + "'";
  if (proto.sparse_initializer_size() > 0)
    return Malformed(where + ": sparse initializers are not supported");
  for (const auto& init : proto.initializer()) {
    if (init.name().empty()) return Malformed(where + ": an initializer has no name");
    const std::string what = "initializer '" + init.name() + "' of " + where;
    const RawData raw = RawDataOf(init);
    WEBNX_RETURN_IF_ERROR(CheckTensorProto(init, raw, what, budget));
    Tensor t;
    WEBNX_RETURN_IF_ERROR(TensorFromProto(init, raw, what, &t));
    if (!graph->initializers.emplace(init.name(), std::move(t)).second)
      return Malformed(what + " is defined twice");
  }
  return ReadGraphBody(proto, scope, budget, graph);
}

Status ReadGraphAttribute(const onnx::AttributeProto& proto, const Node& node, LoadBudget* budget,
                          Attribute* a) {
  if (proto.graphs_size() > 0 || !proto.has_g()) {
    a->type = Attribute::Type::kUndefined;  // lists of graphs: no ONNX op takes one
    return Status::Ok();
  }
  auto sub = std::make_shared<Graph>();
  WEBNX_RETURN_IF_ERROR(ReadSubgraph(proto.g(), node.name + "/" + proto.name(), budget, sub.get()));
  a->type = Attribute::Type::kGraph;
  a->g = std::move(sub);
  return Status::Ok();
}

Status ReadAttribute(const onnx::AttributeProto& proto, const Node& node, LoadBudget* budget,
                     Attribute* a) {
  const std::string where = node.Describe();
  using AP = onnx::AttributeProto;
  int type = proto.type();
  if (type == AP::UNDEFINED) {  // very old models leave the type out: infer it from the field set
    if (proto.has_f())
      type = AP::FLOAT;
    else if (proto.has_i())
      type = AP::INT;
    else if (proto.has_s())
      type = AP::STRING;
    else if (proto.has_t())
      type = AP::TENSOR;
    else if (proto.has_g())
      type = AP::GRAPH;
    else if (proto.floats_size())
      type = AP::FLOATS;
    else if (proto.ints_size())
      type = AP::INTS;
    else if (proto.strings_size())
      type = AP::STRINGS;
  }
  switch (type) {
    case AP::FLOAT:
      a->type = Attribute::Type::kFloat;
      a->f = proto.f();
      break;
    case AP::INT:
      a->type = Attribute::Type::kInt;
      a->i = proto.i();
      break;
    case AP::STRING:
      a->type = Attribute::Type::kString;
      a->s = proto.s();
      break;
    case AP::TENSOR: {
      a->type = Attribute::Type::kTensor;
      const std::string what = "attribute '" + proto.name() + "' of " + where;
      WEBNX_RETURN_IF_ERROR(CheckTensorProto(proto.t(), RawDataOf(proto.t()), what, budget));
      return TensorFromProto(proto.t(), RawDataOf(proto.t()), what, &a->t);
    }
    case AP::FLOATS:
      a->type = Attribute::Type::kFloats;
      a->floats.assign(proto.floats().begin(), proto.floats().end());
      break;
    case AP::INTS:
      a->type = Attribute::Type::kInts;
      a->ints.assign(proto.ints().begin(), proto.ints().end());
      break;
    case AP::STRINGS:
      a->type = Attribute::Type::kStrings;
      a->strings.assign(proto.strings().begin(), proto.strings().end());
      break;
    case AP::GRAPH:
    case AP::GRAPHS:
      return ReadGraphAttribute(proto, node, budget, a);
    default:
      // Sparse tensors, type protos: kept as undefined, so an op that reads them reports it.
      a->type = Attribute::Type::kUndefined;
      break;
  }
  return Status::Ok();
}

// A node and its attributes; its subgraphs' outer-scope reads become its inputs, and each
// subgraph is then validated on its own.
Status ReadNode(const onnx::NodeProto& np, const std::string& generated_name, LoadBudget* budget,
                Node* node) {
  node->op_type = np.op_type();
  node->domain = np.domain() == "ai.onnx" ? std::string() : np.domain();
  node->name = np.name().empty() ? generated_name : np.name();
  if (node->op_type.empty()) return Malformed("node '" + node->name + "' has no op_type");
  node->inputs.assign(np.input().begin(), np.input().end());
  node->outputs.assign(np.output().begin(), np.output().end());
  std::vector<Graph*> subgraphs;
  for (const auto& ap : np.attribute()) {
    Attribute a;
    WEBNX_RETURN_IF_ERROR(ReadAttribute(ap, *node, budget, &a));
    auto placed = node->attrs.emplace(ap.name(), std::move(a));
    if (!placed.second)
      return Malformed(node->Describe() + " has attribute '" + ap.name() + "' twice");
    if (placed.first->second.g)
      subgraphs.push_back(const_cast<Graph*>(placed.first->second.g.get()));  // ours until done
  }
  CaptureOuterScope(node, subgraphs);
  for (Graph* sub : subgraphs) {
    Status s = SortAndValidateGraph(sub);
    if (!s.ok())
      return Status(s.code(), "in a subgraph of " + node->Describe() + ": " + s.message());
  }
  return Status::Ok();
}

}  // namespace

Status CheckTensorProto(const onnx::TensorProto& proto, const RawData& raw, const std::string& what,
                        LoadBudget* budget) {
  const int32_t dt = proto.data_type();
  if (!IsSupportedDType(dt)) return Status::Ok();
  const Shape shape(proto.dims().begin(), proto.dims().end());
  int64_t numel = 0;
  if (!ShapeNumel(shape, &numel)) return Status::Ok();
  const int64_t stored_elem = DTypeSize(static_cast<DType>(dt));
  const int64_t stored =
      raw.present ? static_cast<int64_t>(raw.size) / stored_elem : StoredValueCount(proto);
  if (stored != numel) return Status::Ok();
  const size_t elem = DTypeSize(static_cast<DType>(dt));
  WEBNX_RETURN_IF_ERROR(CheckShapeLimits(shape, elem, budget->limits, what));
  return AddInitializerBytes(numel * static_cast<int64_t>(elem), budget->limits, what,
                             &budget->initializer_bytes);
}

Status ReadGraphBody(const onnx::GraphProto& proto, const std::string& scope, LoadBudget* budget,
                     Graph* graph) {
  const bool in_subgraph = !scope.empty();
  graph->inputs.clear();
  for (const auto& in : proto.input()) {
    if (graph->initializers.count(in.name())) continue;  // IR < 4 lists weights as inputs
    ValueInfo info;
    WEBNX_RETURN_IF_ERROR(ReadValueInfo(in, in_subgraph, &info));
    graph->inputs.push_back(std::move(info));
  }
  graph->outputs.clear();
  for (const auto& out : proto.output()) {
    ValueInfo info;
    WEBNX_RETURN_IF_ERROR(ReadValueInfo(out, in_subgraph, &info));
    graph->outputs.push_back(std::move(info));
  }
  graph->nodes.clear();
  graph->nodes.reserve(proto.node_size());
  const std::string prefix = in_subgraph ? scope + "/" : std::string();
  for (int i = 0; i < proto.node_size(); ++i) {
    const onnx::NodeProto& np = proto.node(i);
    Node node;
    WEBNX_RETURN_IF_ERROR(
        ReadNode(np, prefix + np.op_type() + "_" + std::to_string(i), budget, &node));
    graph->nodes.push_back(std::move(node));
  }
  return Status::Ok();
}

}  // namespace webnx
