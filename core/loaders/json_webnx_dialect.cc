// webnx-graph documents: { "format": "webnx-graph", "version": 1, "inputs", "outputs",
// "tensors", "nodes" }. Reads the document, checks its names, then lowers every node through
// the op table (json_dsl_ops.cc) into ONNX nodes of the IR.
#include <set>

#include "core/loaders/json_dialects.h"
#include "core/loaders/json_dsl_ops.h"
#include "core/loaders/json_graph_check.h"
#include "core/loaders/json_graph_tidy.h"
#include "core/loaders/json_lowering.h"
#include "core/loaders/json_webnx.h"
#include "core/loaders/json_webnx_fields.h"
#include "core/loaders/json_webnx_nodes.h"
#include "core/loaders/onnx_loader.h"

namespace webnx {
namespace jsonl {
namespace {

constexpr const char* kDocumentKeys[] = {"format",   "version", "opset",  "layout", "metadata",
                                         "producer", "name",    "doc",    "inputs", "outputs",
                                         "tensors",  "nodes",   "$schema"};

Status ReadOpsets(const Json* v, Graph* graph) {
  graph->opsets[""] = kDefaultWebnxGraphOpset;
  if (!v) return Status::Ok();
  auto set = [&](const std::string& domain, const Json& version, const std::string& at) {
    int64_t n = 0;
    WEBNX_RETURN_IF_ERROR(ReadInt(version, at, &n));
    if (domain.empty() && (n < kOldestDefaultOpset || n > kMaxDefaultOpset)) {
      return ErrorAt(ErrorCode::kUnsupportedOpset, at,
                     "opset " + std::to_string(n) + " is not supported; webnx supports opsets " +
                         std::to_string(kMinDefaultOpset) + " to " +
                         std::to_string(kMaxDefaultOpset));
    }
    graph->opsets[domain] = n;
    return Status::Ok();
  };
  if (!v->is_object()) return set("", *v, "/opset");
  for (auto it = v->begin(); it != v->end(); ++it) {
    WEBNX_RETURN_IF_ERROR(set(NormalizeDomain(it.key()), it.value(), Child("/opset", it.key())));
  }
  return Status::Ok();
}

Status ReadMetadata(const Json& doc, Graph* graph) {
  if (const Json* p = Member(doc, "producer")) {
    WEBNX_RETURN_IF_ERROR(ReadString(*p, "/producer", &graph->producer));
  }
  const Json* meta = Member(doc, "metadata");
  if (!meta) return Status::Ok();
  WEBNX_RETURN_IF_ERROR(ExpectObject(*meta, "/metadata"));
  for (auto it = meta->begin(); it != meta->end(); ++it) {
    graph->metadata[it.key()] =
        it.value().is_string() ? it.value().get_ref<const std::string&>() : JsonText(it.value());
  }
  return Status::Ok();
}

// The document's own fields: known keys, version, opsets, the default layout, metadata.
Status ReadDocumentFields(const Json& doc, Graph* graph, bool* nhwc) {
  WEBNX_RETURN_IF_ERROR(ExpectObject(doc, ""));
  WEBNX_RETURN_IF_ERROR(CheckKeys(doc, "", kDocumentKeys, "a webnx-graph document"));
  if (const Json* v = Member(doc, "version")) {
    int64_t version = 0;
    WEBNX_RETURN_IF_ERROR(ReadInt(*v, "/version", &version));
    if (version != 1) {
      return MalformedAt("/version", "webnx reads webnx-graph version 1, this is version " +
                                         std::to_string(version));
    }
  }
  WEBNX_RETURN_IF_ERROR(ReadOpsets(Member(doc, "opset"), graph));
  if (const Json* l = Member(doc, "layout")) WEBNX_RETURN_IF_ERROR(ReadLayout(*l, "/layout", nhwc));
  return ReadMetadata(doc, graph);
}

// "/inputs" or "/outputs": value declarations, each also a name reference at its pointer.
Status ReadValueDecls(const Json& v, const std::string& pointer, bool need_dtype,
                      std::vector<ValueInfo>* infos, std::vector<NamedRef>* refs) {
  WEBNX_RETURN_IF_ERROR(ExpectArray(v, pointer));
  for (size_t i = 0; i < v.size(); ++i) {
    ValueInfo info;
    WEBNX_RETURN_IF_ERROR(ReadValueDecl(v[i], Child(pointer, i), need_dtype, &info));
    refs->push_back(NamedRef{info.name, Child(pointer, i)});
    infos->push_back(std::move(info));
  }
  return Status::Ok();
}

Status ReadTensors(const Json& v, const JsonExternalFiles& files, Graph* graph,
                   std::vector<NamedRef>* sources) {
  auto add = [&](const std::string& name, const Json& t, const std::string& at) -> Status {
    if (name.empty()) return MalformedAt(at, "a tensor needs a name");
    Tensor tensor;
    WEBNX_RETURN_IF_ERROR(ReadWebnxTensor(t, at, files, &tensor));
    graph->initializers[name] = std::move(tensor);
    sources->push_back(NamedRef{name, at});
    return Status::Ok();
  };
  if (v.is_object()) {
    for (auto it = v.begin(); it != v.end(); ++it) {
      WEBNX_RETURN_IF_ERROR(add(it.key(), it.value(), Child("/tensors", it.key())));
    }
    return Status::Ok();
  }
  // Also a list of tensors that carry their "name".
  WEBNX_RETURN_IF_ERROR(ExpectArray(v, "/tensors"));
  for (size_t i = 0; i < v.size(); ++i) {
    const std::string at = Child("/tensors", i);
    const Json* name = Member(v[i], "name");
    std::string s;
    if (!name) return MalformedAt(at, "a tensor in a list needs a name");
    WEBNX_RETURN_IF_ERROR(ReadString(*name, Child(at, "name"), &s));
    if (graph->initializers.count(s)) {
      return MalformedAt(Child(at, "name"), "tensor '" + s + "' is defined twice");
    }
    WEBNX_RETURN_IF_ERROR(add(s, v[i], at));
  }
  return Status::Ok();
}

// Lowers the compute nodes in `order`; added names avoid every name the document defines.
Status LowerNodes(const std::vector<DslNode>& nodes, const std::vector<NodeRefs>& refs,
                  const std::vector<NamedRef>& sources, const std::vector<int>& order,
                  const JsonExternalFiles& files, Graph* graph) {
  std::set<std::string> taken;
  for (const auto& s : sources) taken.insert(s.name);
  for (const auto& r : refs) {
    for (const auto& o : r.outputs) taken.insert(o.name);
  }
  Lowering lowering(graph, files, std::move(taken));
  for (int i : order) WEBNX_RETURN_IF_ERROR(LowerDslNode(nodes[i], &lowering));
  return Status::Ok();
}

}  // namespace

Status LoadWebnxGraphDocument(const Json& doc, const JsonExternalFiles& files, Graph* graph) {
  *graph = Graph();
  bool nhwc = true;
  WEBNX_RETURN_IF_ERROR(ReadDocumentFields(doc, graph, &nhwc));

  std::vector<NamedRef> sources;
  if (const Json* inputs = Member(doc, "inputs")) {
    WEBNX_RETURN_IF_ERROR(ReadValueDecls(*inputs, "/inputs", true, &graph->inputs, &sources));
  }
  if (const Json* tensors = Member(doc, "tensors")) {
    WEBNX_RETURN_IF_ERROR(ReadTensors(*tensors, files, graph, &sources));
  }

  std::vector<DslNode> nodes;
  std::vector<NodeRefs> refs;
  const Json* list = Member(doc, "nodes");
  if (!list) return MalformedAt("/nodes", "the document has no nodes");
  WEBNX_RETURN_IF_ERROR(ReadNodes(*list, files, nhwc, graph, &sources, &nodes, &refs));

  std::vector<NamedRef> output_refs;
  const Json* outputs = Member(doc, "outputs");
  if (!outputs) return MalformedAt("/outputs", "the document has no outputs");
  WEBNX_RETURN_IF_ERROR(ReadValueDecls(*outputs, "/outputs", false, &graph->outputs, &output_refs));
  std::vector<int> order;
  WEBNX_RETURN_IF_ERROR(CheckGraphRefs(sources, refs, output_refs, &order));

  WEBNX_RETURN_IF_ERROR(LowerNodes(nodes, refs, sources, order, files, graph));
  CancelTransposePairs(graph);
  DropDeadNodes(graph);
  return SortAndValidateGraph(graph);
}

}  // namespace jsonl
}  // namespace webnx
