// ONNX-JSON documents: a ModelProto (or { "graph": ... }, or a bare GraphProto) in any of the
// spellings JSON writers use: protobuf's mapping (camelCase, int64 strings, enum names,
// base64 bytes) and the snake_case form of JS exporters such as NeatapticTS (plural "inputs",
// "outputs", "attributes", the attribute type as a string, float_data arrays).
#include <cctype>

#include "core/loaders/json_dialects.h"
#include "core/loaders/json_graph_check.h"
#include "core/loaders/json_graph_tidy.h"
#include "core/loaders/onnx_loader.h"

namespace webnx {
namespace jsonl {
namespace {

Status ReadNameList(const Json& obj, const std::string& pointer,
                    std::initializer_list<const char*> keys, std::vector<NamedRef>* out) {
  const Json* list = nullptr;
  std::string at;
  WEBNX_RETURN_IF_ERROR(MemberOf(obj, pointer, keys, &list, &at));
  out->clear();
  if (!list) return Status::Ok();
  WEBNX_RETURN_IF_ERROR(ExpectArray(*list, at));
  for (size_t i = 0; i < list->size(); ++i) {
    NamedRef ref{std::string(), Child(at, i)};
    WEBNX_RETURN_IF_ERROR(ReadString((*list)[i], ref.pointer, &ref.name));
    out->push_back(std::move(ref));
  }
  return Status::Ok();
}

Status ReadElemType(const Json& v, const std::string& pointer, DType* out) {
  int64_t code = 0;
  if (!v.is_number() || !AsInt64(v, &code)) {
    // An enum name ("FLOAT"), any case.
    static const char* const kNames[] = {"UNDEFINED", "FLOAT", "UINT8",   "INT8",
                                         "UINT16",    "INT16", "INT32",   "INT64",
                                         "STRING",    "BOOL",  "FLOAT16", "DOUBLE"};
    const auto* s = v.get_ptr<const Json::string_t*>();
    if (!s) return MalformedAt(pointer, "expected an element type, got " + KindOf(v));
    code = -1;
    for (size_t i = 0; i < sizeof(kNames) / sizeof(kNames[0]); ++i) {
      std::string upper = *s;
      for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      if (upper == kNames[i]) code = static_cast<int64_t>(i);
    }
    if (code < 0) {
      return ErrorAt(ErrorCode::kUnsupportedDtype, pointer,
                     "element type '" + s->substr(0, 40) +
                         "' is not supported; graph inputs and outputs can have any numeric "
                         "type");
    }
  }
  if (code < 0 || code > 1000 || !IsSupportedDType(static_cast<int32_t>(code))) {
    return ErrorAt(ErrorCode::kUnsupportedDtype, pointer,
                   "element type " + std::to_string(code) +
                       " is not supported; graph inputs and outputs can have any numeric type");
  }
  *out = static_cast<DType>(code);
  return Status::Ok();
}

Status ReadDim(const Json& d, const std::string& pointer, Dim* dim) {
  WEBNX_RETURN_IF_ERROR(ExpectObject(d, pointer));
  const Json* value = nullptr;
  const Json* param = nullptr;
  std::string value_at, param_at;
  WEBNX_RETURN_IF_ERROR(MemberOf(d, pointer, {"dim_value", "dimValue"}, &value, &value_at));
  WEBNX_RETURN_IF_ERROR(MemberOf(d, pointer, {"dim_param", "dimParam"}, &param, &param_at));
  if (value) {
    WEBNX_RETURN_IF_ERROR(ReadInt(*value, value_at, &dim->value));
    if (dim->value < 0) return MalformedAt(value_at, "a dimension cannot be negative");
  } else if (param) {
    WEBNX_RETURN_IF_ERROR(ReadString(*param, param_at, &dim->symbol));
  }
  return Status::Ok();
}

// ValueInfoProto. Inputs need an element type; outputs may leave the type out.
Status ReadValueInfo(const Json& v, const std::string& pointer, bool need_type, ValueInfo* info) {
  WEBNX_RETURN_IF_ERROR(ExpectObject(v, pointer));
  *info = ValueInfo();
  const Json* name = Member(v, "name");
  if (!name) return MalformedAt(pointer, "the value has no name");
  WEBNX_RETURN_IF_ERROR(ReadString(*name, Child(pointer, "name"), &info->name));
  if (info->name.empty()) return MalformedAt(Child(pointer, "name"), "the name is empty");
  const Json* type = Member(v, "type");
  const std::string type_at = Child(pointer, "type");
  const Json* tensor = nullptr;
  std::string tensor_at;
  if (type) {
    WEBNX_RETURN_IF_ERROR(ExpectObject(*type, type_at));
    WEBNX_RETURN_IF_ERROR(
        MemberOf(*type, type_at, {"tensor_type", "tensorType"}, &tensor, &tensor_at));
    if (!tensor && !type->empty()) {
      return ErrorAt(ErrorCode::kUnsupportedDtype, type_at,
                     "'" + info->name +
                         "' is not a tensor (sequences, maps and optionals are "
                         "not supported)");
    }
  }
  const Json* elem = nullptr;
  std::string elem_at;
  if (tensor) {
    WEBNX_RETURN_IF_ERROR(ExpectObject(*tensor, tensor_at));
    WEBNX_RETURN_IF_ERROR(MemberOf(*tensor, tensor_at, {"elem_type", "elemType"}, &elem, &elem_at));
  }
  if (!elem) {
    if (need_type) {
      return MalformedAt(tensor ? tensor_at : pointer,
                         "graph input '" + info->name + "' needs a tensor type with elem_type");
    }
    return Status::Ok();
  }
  WEBNX_RETURN_IF_ERROR(ReadElemType(*elem, elem_at, &info->dtype));
  const Json* shape = Member(*tensor, "shape");
  if (!shape) return Status::Ok();
  const std::string shape_at = Child(tensor_at, "shape");
  WEBNX_RETURN_IF_ERROR(ExpectObject(*shape, shape_at));
  info->has_shape = true;
  const Json* dims = Member(*shape, "dim");
  if (!dims) return Status::Ok();  // rank 0: protobuf's JSON mapping leaves empty lists out
  const std::string dims_at = Child(shape_at, "dim");
  WEBNX_RETURN_IF_ERROR(ExpectArray(*dims, dims_at));
  for (size_t i = 0; i < dims->size(); ++i) {
    Dim dim;
    WEBNX_RETURN_IF_ERROR(ReadDim((*dims)[i], Child(dims_at, i), &dim));
    info->dims.push_back(dim);
  }
  return Status::Ok();
}

Status ReadOpsets(const Json& model, Graph* graph) {
  const Json* list = nullptr;
  std::string at;
  WEBNX_RETURN_IF_ERROR(MemberOf(model, "", {"opset_import", "opsetImport"}, &list, &at));
  if (list) {
    WEBNX_RETURN_IF_ERROR(ExpectArray(*list, at));
    for (size_t i = 0; i < list->size(); ++i) {
      const std::string entry_at = Child(at, i);
      const Json& entry = (*list)[i];
      WEBNX_RETURN_IF_ERROR(ExpectObject(entry, entry_at));
      std::string domain;
      int64_t version = 0;
      if (const Json* d = Member(entry, "domain"))
        WEBNX_RETURN_IF_ERROR(ReadString(*d, Child(entry_at, "domain"), &domain));
      if (const Json* v = Member(entry, "version"))
        WEBNX_RETURN_IF_ERROR(ReadInt(*v, Child(entry_at, "version"), &version));
      domain = NormalizeDomain(domain);
      if (domain.empty() && (version < kOldestDefaultOpset || version > kMaxDefaultOpset)) {
        return ErrorAt(ErrorCode::kUnsupportedOpset, Child(entry_at, "version"),
                       "the model imports opset " + std::to_string(version) +
                           " of the default domain; webnx supports opsets " +
                           std::to_string(kMinDefaultOpset) + " to " +
                           std::to_string(kMaxDefaultOpset));
      }
      graph->opsets[domain] = version;
    }
  }
  // Many JS exporters write no opset_import at all.
  if (!graph->opsets.count("")) graph->opsets[""] = kDefaultOnnxJsonOpset;
  return Status::Ok();
}

Status ReadMetadata(const Json& model, Graph* graph) {
  const Json* name = nullptr;
  std::string at;
  WEBNX_RETURN_IF_ERROR(MemberOf(model, "", {"producer_name", "producerName"}, &name, &at));
  if (name) WEBNX_RETURN_IF_ERROR(ReadString(*name, at, &graph->producer));
  const Json* ir = nullptr;
  WEBNX_RETURN_IF_ERROR(MemberOf(model, "", {"ir_version", "irVersion"}, &ir, &at));
  int64_t ir_version = 0;
  if (ir) WEBNX_RETURN_IF_ERROR(ReadInt(*ir, at, &ir_version));
  const Json* props = nullptr;
  WEBNX_RETURN_IF_ERROR(MemberOf(model, "", {"metadata_props", "metadataProps"}, &props, &at));
  if (!props) return Status::Ok();
  WEBNX_RETURN_IF_ERROR(ExpectArray(*props, at));
  for (size_t i = 0; i < props->size(); ++i) {
    const std::string entry_at = Child(at, i);
    const Json& entry = (*props)[i];
    WEBNX_RETURN_IF_ERROR(ExpectObject(entry, entry_at));
    const Json* key = Member(entry, "key");
    if (!key) return MalformedAt(entry_at, "a metadata entry needs a 'key'");
    std::string k;
    WEBNX_RETURN_IF_ERROR(ReadString(*key, Child(entry_at, "key"), &k));
    const Json* value = Member(entry, "value");
    if (!value) {
      graph->metadata[k] = "";
    } else if (value->is_string()) {
      graph->metadata[k] = value->get_ref<const std::string&>();
    } else {
      // Some exporters store JSON values (layer_sizes: [4, 3]); keep them as JSON text.
      graph->metadata[k] = JsonText(*value);
    }
  }
  return Status::Ok();
}

Status ReadNode(const Json& n, const std::string& pointer, size_t index,
                const JsonExternalFiles& files, Node* node, NodeRefs* refs) {
  WEBNX_RETURN_IF_ERROR(ExpectObject(n, pointer));
  const Json* op = nullptr;
  std::string op_at;
  WEBNX_RETURN_IF_ERROR(MemberOf(n, pointer, {"op_type", "opType"}, &op, &op_at));
  if (!op) return MalformedAt(pointer, "the node has no op_type");
  WEBNX_RETURN_IF_ERROR(ReadString(*op, op_at, &node->op_type));
  if (node->op_type.empty()) return MalformedAt(op_at, "op_type is empty");
  if (const Json* d = Member(n, "domain"))
    WEBNX_RETURN_IF_ERROR(ReadString(*d, Child(pointer, "domain"), &node->domain));
  node->domain = NormalizeDomain(node->domain);
  if (const Json* name = Member(n, "name"))
    WEBNX_RETURN_IF_ERROR(ReadString(*name, Child(pointer, "name"), &node->name));
  if (node->name.empty()) node->name = node->op_type + "_" + std::to_string(index);

  refs->pointer = pointer;
  refs->label = node->name;
  WEBNX_RETURN_IF_ERROR(ReadNameList(n, pointer, {"input", "inputs"}, &refs->inputs));
  WEBNX_RETURN_IF_ERROR(ReadNameList(n, pointer, {"output", "outputs"}, &refs->outputs));
  for (const auto& r : refs->inputs) node->inputs.push_back(r.name);
  for (const auto& r : refs->outputs) node->outputs.push_back(r.name);

  const Json* attrs = nullptr;
  std::string attrs_at;
  WEBNX_RETURN_IF_ERROR(MemberOf(n, pointer, {"attribute", "attributes"}, &attrs, &attrs_at));
  if (!attrs) return Status::Ok();
  WEBNX_RETURN_IF_ERROR(ExpectArray(*attrs, attrs_at));
  for (size_t i = 0; i < attrs->size(); ++i) {
    const std::string at = Child(attrs_at, i);
    std::string name;
    Attribute a;
    WEBNX_RETURN_IF_ERROR(ReadOnnxAttribute((*attrs)[i], at, files, &name, &a));
    if (name.empty()) return MalformedAt(at, "the attribute has no name");
    if (!node->attrs.emplace(name, std::move(a)).second) {
      return MalformedAt(at, "attribute '" + name + "' is given twice");
    }
  }
  return Status::Ok();
}

Status ReadGraph(const Json& g, const std::string& pointer, const JsonExternalFiles& files,
                 Graph* graph) {
  WEBNX_RETURN_IF_ERROR(ExpectObject(g, pointer));
  std::vector<NamedRef> sources;
  const Json* inits = nullptr;
  std::string at;
  WEBNX_RETURN_IF_ERROR(MemberOf(g, pointer, {"initializer", "initializers"}, &inits, &at));
  if (inits) {
    WEBNX_RETURN_IF_ERROR(ExpectArray(*inits, at));
    for (size_t i = 0; i < inits->size(); ++i) {
      const std::string init_at = Child(at, i);
      std::string name;
      Tensor t;
      WEBNX_RETURN_IF_ERROR(ReadOnnxTensor((*inits)[i], init_at, files, &name, &t));
      if (name.empty()) return MalformedAt(init_at, "an initializer needs a name");
      if (!graph->initializers.emplace(name, std::move(t)).second) {
        return MalformedAt(Child(init_at, "name"), "initializer '" + name + "' is defined twice");
      }
      sources.push_back(NamedRef{name, init_at});
    }
  }
  const Json* sparse = nullptr;
  WEBNX_RETURN_IF_ERROR(
      MemberOf(g, pointer, {"sparse_initializer", "sparseInitializer"}, &sparse, &at));
  if (sparse && !(sparse->is_array() && sparse->empty())) {
    return MalformedAt(at, "sparse initializers are not supported");
  }

  const Json* list = nullptr;
  WEBNX_RETURN_IF_ERROR(MemberOf(g, pointer, {"input", "inputs"}, &list, &at));
  if (list) {
    WEBNX_RETURN_IF_ERROR(ExpectArray(*list, at));
    for (size_t i = 0; i < list->size(); ++i) {
      ValueInfo info;
      WEBNX_RETURN_IF_ERROR(ReadValueInfo((*list)[i], Child(at, i), false, &info));
      if (graph->initializers.count(info.name)) continue;  // IR < 4 lists weights as inputs
      WEBNX_RETURN_IF_ERROR(ReadValueInfo((*list)[i], Child(at, i), true, &info));
      sources.push_back(NamedRef{info.name, Child(at, i)});
      graph->inputs.push_back(std::move(info));
    }
  }
  std::vector<NamedRef> output_refs;
  WEBNX_RETURN_IF_ERROR(MemberOf(g, pointer, {"output", "outputs"}, &list, &at));
  if (!list) return MalformedAt(pointer, "the graph has no outputs");
  WEBNX_RETURN_IF_ERROR(ExpectArray(*list, at));
  for (size_t i = 0; i < list->size(); ++i) {
    ValueInfo info;
    WEBNX_RETURN_IF_ERROR(ReadValueInfo((*list)[i], Child(at, i), false, &info));
    output_refs.push_back(NamedRef{info.name, Child(Child(at, i), "name")});
    graph->outputs.push_back(std::move(info));
  }

  std::vector<NodeRefs> refs;
  WEBNX_RETURN_IF_ERROR(MemberOf(g, pointer, {"node", "nodes"}, &list, &at));
  if (list) {
    WEBNX_RETURN_IF_ERROR(ExpectArray(*list, at));
    graph->nodes.reserve(list->size());
    for (size_t i = 0; i < list->size(); ++i) {
      Node node;
      NodeRefs r;
      WEBNX_RETURN_IF_ERROR(ReadNode((*list)[i], Child(at, i), i, files, &node, &r));
      graph->nodes.push_back(std::move(node));
      refs.push_back(std::move(r));
    }
  }
  return CheckGraphRefs(sources, refs, output_refs);
}

}  // namespace

Status LoadOnnxJsonDocument(const Json& doc, const JsonExternalFiles& files, Graph* graph) {
  *graph = Graph();
  const Json* g = Member(doc, "graph");
  if (g) {
    WEBNX_RETURN_IF_ERROR(ReadOpsets(doc, graph));
    WEBNX_RETURN_IF_ERROR(ReadMetadata(doc, graph));
    WEBNX_RETURN_IF_ERROR(ReadGraph(*g, "/graph", files, graph));
  } else {
    graph->opsets[""] = kDefaultOnnxJsonOpset;  // a bare GraphProto carries no opsets
    WEBNX_RETURN_IF_ERROR(ReadGraph(doc, "", files, graph));
  }
  // Exporters leave side paths no output reads (NeatapticTS' experimental fused LSTM/GRU). Sorted
  // first: the drop walks the nodes in order, and a document may list them in any order.
  WEBNX_RETURN_IF_ERROR(SortAndValidateGraph(graph));
  DropDeadNodes(graph);
  return Status::Ok();
}

}  // namespace jsonl
}  // namespace webnx
