#include "core/loaders/onnx_loader.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>

#include "core/graph_limits.h"
#include "core/limits.h"
#include "core/loaders/onnx_graph.h"
#include "core/loaders/onnx_payloads.h"
#include "core/loaders/onnx_tensors.h"
#include "onnx/onnx.pb.h"

namespace webnx {
namespace {

// Subgraph nesting is bounded before anything is read (each level is recursion for anything
// that walks them), and so are the nodes of every graph together (`nodes` counts them).
Status CheckSubgraphNesting(const onnx::GraphProto& g, int64_t depth, const SessionLimits& limits,
                            int64_t* nodes) {
  *nodes += g.node_size();
  if (*nodes > limits.max_nodes) {
    return LimitError(ErrorCode::kMalformedModel, "the model has", *nodes,
                      " nodes with its subgraphs'", limits.max_nodes, "maxNodes");
  }
  for (const auto& node : g.node()) {
    for (const auto& attr : node.attribute()) {
      if (!attr.has_g() && attr.graphs_size() == 0) continue;
      if (depth + 1 > limits.max_subgraph_depth) {
        return LimitError(
            ErrorCode::kMalformedModel,
            "node '" + node.name() + "' (" + node.op_type() + ") nests subgraphs at depth",
            depth + 1, "", limits.max_subgraph_depth, "maxSubgraphDepth");
      }
      if (attr.has_g())
        WEBNX_RETURN_IF_ERROR(CheckSubgraphNesting(attr.g(), depth + 1, limits, nodes));
      for (const auto& sub : attr.graphs())
        WEBNX_RETURN_IF_ERROR(CheckSubgraphNesting(sub, depth + 1, limits, nodes));
    }
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
                     Graph* graph, const std::map<std::string, std::string>* files) {
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
  int64_t all_nodes = 0;
  WEBNX_RETURN_IF_ERROR(CheckSubgraphNesting(g, 0, limits, &all_nodes));
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
    const bool external = init.data_location() == onnx::TensorProto_DataLocation_EXTERNAL;
    if (external) {
      WEBNX_RETURN_IF_ERROR(ExternalRawData(init, files, what, &raw));
      init.set_data_location(onnx::TensorProto_DataLocation_DEFAULT);  // its bytes are `raw`
    }
    WEBNX_RETURN_IF_ERROR(CheckTensorProto(init, raw, what, &budget));
    Tensor t;
    // An external tensor's bytes are copied: the side files go once the model is loaded.
    if (external || !AdoptRawData(&init, raw, &t))
      WEBNX_RETURN_IF_ERROR(TensorFromProto(init, raw, what, &t));
    if (!graph->initializers.emplace(init.name(), std::move(t)).second) {
      return Malformed("initializer '" + init.name() + "' is defined twice");
    }
  }
  if (g.sparse_initializer_size() > 0) {
    return Malformed("sparse initializers are not supported");
  }
  WEBNX_RETURN_IF_ERROR(ReadGraphBody(g, "", &budget, graph));
  return SortAndValidateGraph(graph);
}

}  // namespace webnx
