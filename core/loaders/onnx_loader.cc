#include "core/loaders/onnx_loader.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>

#include "core/graph_limits.h"
#include "core/limits.h"
#include "core/loaders/float16.h"
#include "core/loaders/onnx_payloads.h"
#include "core/loaders/onnx_tensors.h"
#include "onnx/onnx.pb.h"

namespace webnx {
namespace {

Status ReadValueInfo(const onnx::ValueInfoProto& proto, ValueInfo* info) {
  info->name = proto.name();
  const std::string what = "graph value '" + info->name + "'";
  if (!proto.has_type() || !proto.type().has_tensor_type()) {
    return Status(ErrorCode::kUnsupportedDtype,
                  what + " is not a tensor (sequences, maps and optionals are not supported)");
  }
  const auto& tt = proto.type().tensor_type();
  int32_t et = tt.elem_type();
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

// What loading one model accumulates against its limits.
struct LoadBudget {
  const SessionLimits& limits;
  int64_t initializer_bytes = 0;
};

// A tensor's declared shape within the limits, and its bytes within the running total, before
// it is converted (float16 counts widened to float32). Unsupported dtypes and data that does
// not match the shape are left to TensorFromProto, which names them more precisely.
Status CheckTensorProto(const onnx::TensorProto& proto, const RawData& raw, const std::string& what,
                        LoadBudget* budget) {
  const int32_t dt = proto.data_type();
  if (!IsSupportedDType(dt) && dt != kOnnxFloat16) return Status::Ok();
  const Shape shape(proto.dims().begin(), proto.dims().end());
  int64_t numel = 0;
  if (!ShapeNumel(shape, &numel)) return Status::Ok();
  const int64_t stored_elem = dt == kOnnxFloat16 ? 2 : DTypeSize(static_cast<DType>(dt));
  const int64_t stored =
      raw.present ? static_cast<int64_t>(raw.size) / stored_elem : StoredValueCount(proto);
  if (stored != numel) return Status::Ok();
  const size_t elem = dt == kOnnxFloat16 ? 4 : DTypeSize(static_cast<DType>(dt));
  WEBNX_RETURN_IF_ERROR(CheckShapeLimits(shape, elem, budget->limits, what));
  return AddInitializerBytes(numel * static_cast<int64_t>(elem), budget->limits, what,
                             &budget->initializer_bytes);
}

// Subgraphs (If/Loop/Scan bodies) are not run, but their nesting is bounded: each level is
// recursion for anything that walks them.
Status CheckSubgraphNesting(const onnx::GraphProto& g, int64_t depth, const SessionLimits& limits) {
  for (const auto& node : g.node()) {
    for (const auto& attr : node.attribute()) {
      if (!attr.has_g() && attr.graphs_size() == 0) continue;
      if (depth + 1 > limits.max_subgraph_depth) {
        return LimitError(
            ErrorCode::kMalformedModel,
            "node '" + node.name() + "' (" + node.op_type() + ") nests subgraphs at depth",
            depth + 1, "", limits.max_subgraph_depth, "maxSubgraphDepth");
      }
      if (attr.has_g()) WEBNX_RETURN_IF_ERROR(CheckSubgraphNesting(attr.g(), depth + 1, limits));
      for (const auto& sub : attr.graphs())
        WEBNX_RETURN_IF_ERROR(CheckSubgraphNesting(sub, depth + 1, limits));
    }
  }
  return Status::Ok();
}

Status ReadAttribute(const onnx::AttributeProto& proto, const std::string& where,
                     LoadBudget* budget, Attribute* a) {
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
      return TensorFromProto(proto.t(), what, &a->t);
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
      a->type = Attribute::Type::kGraph;
      break;  // no supported op reads subgraphs
    default:
      // Sparse tensors, type protos: kept as undefined, so an op that reads them reports it.
      a->type = Attribute::Type::kUndefined;
      break;
  }
  return Status::Ok();
}

std::string NormalizeDomain(const std::string& domain) {
  return domain == "ai.onnx" ? std::string() : domain;
}

}  // namespace

Status LoadOnnxModel(const uint8_t* data, size_t size, Graph* graph) {
  return LoadOnnxModel(data, size, SessionLimits(), graph);
}

Status LoadOnnxModel(const uint8_t* data, size_t size, const SessionLimits& limits, Graph* graph) {
  std::shared_ptr<uint8_t> bytes(static_cast<uint8_t*>(std::malloc(size ? size : 1)), std::free);
  if (!bytes) {
    return Status(ErrorCode::kOutOfMemory,
                  "cannot hold a model of " + std::to_string(size) + " bytes");
  }
  if (size) std::memcpy(bytes.get(), data, size);
  return LoadOnnxModel(std::move(bytes), size, limits, graph);
}

Status LoadOnnxModel(std::shared_ptr<uint8_t> bytes, size_t size, const SessionLimits& limits,
                     Graph* graph) {
  if (size == 0) return Malformed("the model is empty (0 bytes)");
  if (size > static_cast<size_t>(std::numeric_limits<int>::max())) {
    return Malformed("the model is larger than 2 GiB, which protobuf cannot parse");
  }
  DetachedPayloads payloads;
  const bool detached = DetachInitializerPayloads(bytes.get(), size, kMinDetachedBytes, &payloads);
  if (detached) AlignDetachedPayloads(bytes.get(), kDetachedAlignment, &payloads);
  onnx::ModelProto model;
  const bool parsed = detached ? model.ParseFromArray(payloads.skeleton.data(),
                                                      static_cast<int>(payloads.skeleton.size()))
                               : model.ParseFromArray(bytes.get(), static_cast<int>(size));
  payloads.skeleton = std::string();
  if (!parsed) {
    return Malformed("not a valid ONNX model: the protobuf could not be parsed (" +
                     std::to_string(size) + " bytes; truncated or not an .onnx file?)");
  }
  if (!model.has_graph()) return Malformed("not a valid ONNX model: it has no graph");

  graph->opsets.clear();
  for (const auto& op : model.opset_import()) {
    graph->opsets[NormalizeDomain(op.domain())] = op.version();
  }
  auto def = graph->opsets.find("");
  if (def == graph->opsets.end()) {
    if (model.opset_import_size() == 0) {
      return Status(ErrorCode::kUnsupportedOpset, "the model declares no opset (IR version " +
                                                      std::to_string(model.ir_version()) +
                                                      "); webnx supports default-domain opsets " +
                                                      std::to_string(kMinDefaultOpset) + " to " +
                                                      std::to_string(kMaxDefaultOpset));
    }
  } else if (def->second < kOldestDefaultOpset || def->second > kMaxDefaultOpset) {
    return Status(ErrorCode::kUnsupportedOpset,
                  "the model imports opset " + std::to_string(def->second) +
                      " of the default domain; webnx supports opsets " +
                      std::to_string(kMinDefaultOpset) + " to " + std::to_string(kMaxDefaultOpset));
  }
  graph->producer = model.producer_name();
  graph->metadata.clear();
  for (const auto& kv : model.metadata_props()) graph->metadata[kv.key()] = kv.value();

  const onnx::GraphProto& g = model.graph();
  if (g.node_size() > limits.max_nodes) {
    return LimitError(ErrorCode::kMalformedModel, "the model has", g.node_size(), " nodes",
                      limits.max_nodes, "maxNodes");
  }
  WEBNX_RETURN_IF_ERROR(CheckSubgraphNesting(g, 0, limits));
  LoadBudget budget{limits};
  graph->initializers.clear();
  if (detached && payloads.initializers.size() != static_cast<size_t>(g.initializer_size())) {
    return Malformed("not a valid ONNX model: its initializers could not be read");
  }
  for (int i = 0; i < g.initializer_size(); ++i) {
    onnx::TensorProto& init = *model.mutable_graph()->mutable_initializer(i);
    if (init.name().empty()) return Malformed("an initializer has no name");
    const std::string what = "initializer '" + init.name() + "'";
    RawData raw = RawDataOf(init);
    if (detached && payloads.initializers[i].detached) {
      const ByteSpan span = payloads.initializers[i].raw;
      raw =
          RawData{true, reinterpret_cast<const char*>(bytes.get()) + span.offset, span.size, bytes};
    }
    WEBNX_RETURN_IF_ERROR(CheckTensorProto(init, raw, what, &budget));
    Tensor t;
    if (!AdoptRawData(&init, raw, &t)) WEBNX_RETURN_IF_ERROR(TensorFromProto(init, raw, what, &t));
    if (!graph->initializers.emplace(init.name(), std::move(t)).second) {
      return Malformed("initializer '" + init.name() + "' is defined twice");
    }
  }
  if (g.sparse_initializer_size() > 0) {
    return Malformed("sparse initializers are not supported");
  }
  graph->inputs.clear();
  for (const auto& in : g.input()) {
    if (graph->initializers.count(in.name())) continue;  // IR < 4 lists weights as inputs
    ValueInfo info;
    WEBNX_RETURN_IF_ERROR(ReadValueInfo(in, &info));
    graph->inputs.push_back(std::move(info));
  }
  graph->outputs.clear();
  for (const auto& out : g.output()) {
    ValueInfo info;
    WEBNX_RETURN_IF_ERROR(ReadValueInfo(out, &info));
    graph->outputs.push_back(std::move(info));
  }
  graph->nodes.clear();
  graph->nodes.reserve(g.node_size());
  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto& np = g.node(i);
    Node node;
    node.op_type = np.op_type();
    node.domain = NormalizeDomain(np.domain());
    node.name = np.name().empty() ? node.op_type + "_" + std::to_string(i) : np.name();
    if (node.op_type.empty()) return Malformed("node " + std::to_string(i) + " has no op_type");
    node.inputs.assign(np.input().begin(), np.input().end());
    node.outputs.assign(np.output().begin(), np.output().end());
    for (const auto& ap : np.attribute()) {
      Attribute a;
      WEBNX_RETURN_IF_ERROR(ReadAttribute(ap, node.Describe(), &budget, &a));
      if (!node.attrs.emplace(ap.name(), std::move(a)).second) {
        return Malformed(node.Describe() + " has attribute '" + ap.name() + "' twice");
      }
    }
    graph->nodes.push_back(std::move(node));
  }
  return SortAndValidateGraph(graph);
}

}  // namespace webnx
