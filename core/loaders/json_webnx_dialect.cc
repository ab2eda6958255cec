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
#include "core/loaders/onnx_loader.h"

namespace webnx {
namespace jsonl {
namespace {

constexpr const char* kDocumentKeys[] = {"format",   "version", "opset",  "layout", "metadata",
                                         "producer", "name",    "doc",    "inputs", "outputs",
                                         "tensors",  "nodes",   "$schema"};
constexpr const char* kNodeKeys[] = {"id",     "name",    "op",    "domain", "inputs",
                                     "output", "outputs", "attrs", "layout", "tensor",
                                     "dtype",  "shape",   "doc"};

template <size_t N>
Status CheckKeys(const Json& obj, const std::string& pointer, const char* const (&keys)[N],
                 const char* what) {
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    bool known = false;
    for (const char* k : keys) known = known || it.key() == k;
    // "_comment"-style keys are free for writers' notes.
    if (!known && (it.key().empty() || it.key()[0] != '_')) {
      std::string list;
      for (const char* k : keys) list += (list.empty() ? "" : ", ") + std::string(k);
      return MalformedAt(Child(pointer, it.key()),
                         std::string("unknown field of ") + what + " (expected " + list + ")");
    }
  }
  return Status::Ok();
}

Status ReadLayout(const Json& v, const std::string& pointer, bool* nhwc) {
  std::string layout;
  WEBNX_RETURN_IF_ERROR(ReadString(v, pointer, &layout));
  if (layout != "NHWC" && layout != "NCHW") {
    return MalformedAt(pointer,
                       "layout is \"NHWC\" or \"NCHW\", got '" + layout.substr(0, 20) + "'");
  }
  *nhwc = layout == "NHWC";
  return Status::Ok();
}

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
        it.value().is_string() ? it.value().get_ref<const std::string&>()
                               : it.value().dump(-1, ' ', false, Json::error_handler_t::replace);
  }
  return Status::Ok();
}

// Declared dims: numbers (fixed), strings (named dynamic dims), null (unknown).
Status ReadDeclaredShape(const Json& v, const std::string& pointer, ValueInfo* info) {
  WEBNX_RETURN_IF_ERROR(ExpectArray(v, pointer));
  info->has_shape = true;
  info->dims.clear();
  for (size_t i = 0; i < v.size(); ++i) {
    const std::string at = Child(pointer, i);
    Dim dim;
    if (v[i].is_string()) {
      dim.symbol = v[i].get_ref<const std::string&>();
    } else if (!v[i].is_null()) {
      WEBNX_RETURN_IF_ERROR(ReadInt(v[i], at, &dim.value));
      if (dim.value < 0) return MalformedAt(at, "a dimension cannot be negative (null: unknown)");
    }
    info->dims.push_back(dim);
  }
  return Status::Ok();
}

// { "name", "dtype", "shape" }; dtype defaults to float32, no shape means unknown rank.
Status ReadValueDecl(const Json& v, const std::string& pointer, bool need_dtype, ValueInfo* info) {
  if (v.is_string() && !need_dtype) {
    info->name = v.get_ref<const std::string&>();
  } else {
    WEBNX_RETURN_IF_ERROR(ExpectObject(v, pointer));
    static constexpr const char* kKeys[] = {"name", "dtype", "shape", "doc"};
    WEBNX_RETURN_IF_ERROR(CheckKeys(v, pointer, kKeys, "a value"));
    const Json* name = Member(v, "name");
    if (!name) return MalformedAt(pointer, "the value has no name");
    WEBNX_RETURN_IF_ERROR(ReadString(*name, Child(pointer, "name"), &info->name));
    if (const Json* d = Member(v, "dtype")) {
      WEBNX_RETURN_IF_ERROR(ReadInputDType(*d, Child(pointer, "dtype"), &info->dtype));
    } else if (need_dtype) {
      info->dtype = DType::kFloat32;
    }
    if (const Json* s = Member(v, "shape")) {
      WEBNX_RETURN_IF_ERROR(ReadDeclaredShape(*s, Child(pointer, "shape"), info));
    }
  }
  if (info->name.empty()) return MalformedAt(pointer, "the name is empty");
  return Status::Ok();
}

Status ReadNameArray(const Json& v, const std::string& pointer, std::vector<std::string>* out) {
  WEBNX_RETURN_IF_ERROR(ExpectArray(v, pointer));
  out->clear();
  for (size_t i = 0; i < v.size(); ++i) {
    std::string s;
    WEBNX_RETURN_IF_ERROR(ReadString(v[i], Child(pointer, i), &s));
    out->push_back(std::move(s));
  }
  return Status::Ok();
}

// A node as written: op, id, inputs, output(s), attrs; the output defaults to the id.
Status ReadNode(const Json& n, const std::string& pointer, size_t index, bool doc_nhwc,
                DslNode* node, NodeRefs* refs) {
  WEBNX_RETURN_IF_ERROR(ExpectObject(n, pointer));
  WEBNX_RETURN_IF_ERROR(CheckKeys(n, pointer, kNodeKeys, "a node"));
  node->pointer = pointer;
  const Json* op = Member(n, "op");
  if (!op) return MalformedAt(pointer, "the node has no op");
  WEBNX_RETURN_IF_ERROR(ReadString(*op, Child(pointer, "op"), &node->op));
  if (node->op.empty()) return MalformedAt(Child(pointer, "op"), "op is empty");
  const Json* id = nullptr;
  std::string id_at;
  WEBNX_RETURN_IF_ERROR(MemberOf(n, pointer, {"id", "name"}, &id, &id_at));
  if (id) WEBNX_RETURN_IF_ERROR(ReadString(*id, id_at, &node->id));
  if (const Json* d = Member(n, "domain")) {
    WEBNX_RETURN_IF_ERROR(ReadString(*d, Child(pointer, "domain"), &node->domain));
    node->domain = NormalizeDomain(node->domain);
  }
  node->nhwc = doc_nhwc;
  if (const Json* l = Member(n, "layout")) {
    WEBNX_RETURN_IF_ERROR(ReadLayout(*l, Child(pointer, "layout"), &node->nhwc));
  }
  if (const Json* ins = Member(n, "inputs")) {
    WEBNX_RETURN_IF_ERROR(ReadNameArray(*ins, Child(pointer, "inputs"), &node->inputs));
  }
  const Json* out = nullptr;
  std::string out_at;
  WEBNX_RETURN_IF_ERROR(MemberOf(n, pointer, {"output", "outputs"}, &out, &out_at));
  std::vector<std::string> out_pointers;
  if (out && out->is_string()) {
    node->outputs = {out->get_ref<const std::string&>()};
    out_pointers = {out_at};
  } else if (out) {
    WEBNX_RETURN_IF_ERROR(ReadNameArray(*out, out_at, &node->outputs));
    for (size_t i = 0; i < node->outputs.size(); ++i) out_pointers.push_back(Child(out_at, i));
  } else {
    if (node->id.empty()) return MalformedAt(pointer, "the node needs an id or an output");
    node->outputs = {node->id};
    out_pointers = {id_at};
  }
  if (node->id.empty()) {
    node->id = !node->outputs.empty() && !node->outputs[0].empty()
                   ? node->outputs[0]
                   : node->op + "_" + std::to_string(index);
  }
  if (const Json* attrs = Member(n, "attrs")) {
    WEBNX_RETURN_IF_ERROR(ExpectObject(*attrs, Child(pointer, "attrs")));
    node->attrs = attrs;
  }
  refs->pointer = pointer;
  refs->label = node->id;
  for (size_t i = 0; i < node->inputs.size(); ++i) {
    refs->inputs.push_back(NamedRef{node->inputs[i], node->InputPointer(i)});
  }
  for (size_t i = 0; i < node->outputs.size(); ++i) {
    refs->outputs.push_back(NamedRef{node->outputs[i], out_pointers[i]});
  }
  return Status::Ok();
}

// The single named value an Input or Constant node defines.
Status SourceName(const DslNode& node, const NodeRefs& refs, NamedRef* out) {
  if (!node.inputs.empty()) {
    return MalformedAt(node.pointer + "/inputs", node.op + " nodes take no inputs");
  }
  if (refs.outputs.size() != 1 || refs.outputs[0].name.empty()) {
    return MalformedAt(node.pointer, node.op + " nodes define exactly one value");
  }
  *out = refs.outputs[0];
  return Status::Ok();
}

// Constant: { "tensor": {...} }, or attrs value (a tensor object), value_float(s),
// value_int(s) as ONNX's Constant has them.
Status ReadConstant(const Json& n, const DslNode& node, const JsonExternalFiles& files,
                    Tensor* out) {
  if (const Json* t = Member(n, "tensor")) {
    if (node.attrs && !node.attrs->empty()) {
      return MalformedAt(node.pointer + "/attrs", "give the value as tensor or as attrs, not both");
    }
    return ReadWebnxTensor(*t, node.pointer + "/tensor", files, out);
  }
  if (!node.attrs || node.attrs->size() != 1) {
    return MalformedAt(node.pointer, "a Constant needs a tensor (or one value attribute)");
  }
  const std::string key = node.attrs->begin().key();
  const Json& v = node.attrs->begin().value();
  const std::string at = node.AttrPointer(key);
  if (key == "value") return ReadWebnxTensor(v, at, files, out);
  Attribute a;
  if (key != "value_float" && key != "value_floats" && key != "value_int" && key != "value_ints") {
    return MalformedAt(at, "a Constant takes value, value_float(s) or value_int(s)");
  }
  WEBNX_RETURN_IF_ERROR(ConvertAttribute(key, v, at, files, &a));
  const bool is_float = key == "value_float" || key == "value_floats";
  const bool is_list = key == "value_floats" || key == "value_ints";
  const size_t n_values = is_list ? (is_float ? a.floats.size() : a.ints.size()) : 1;
  if (is_list != (a.type == Attribute::Type::kFloats || a.type == Attribute::Type::kInts)) {
    return MalformedAt(at, is_list ? "expected a list" : "expected one number");
  }
  if (!is_float && a.type != Attribute::Type::kInt && a.type != Attribute::Type::kInts) {
    return MalformedAt(at, "expected integers");
  }
  Shape shape;
  if (is_list) shape = {static_cast<int64_t>(n_values)};
  WEBNX_RETURN_IF_ERROR(Tensor::Allocate(is_float ? DType::kFloat32 : DType::kInt64, shape, out));
  for (size_t i = 0; i < n_values; ++i) {
    if (is_float)
      out->ptr<float>()[i] = is_list ? a.floats[i] : a.f;
    else
      out->ptr<int64_t>()[i] = is_list ? a.ints[i] : a.i;
  }
  return Status::Ok();
}

// Input node: merges with a top-level "inputs" entry of the same name, or declares one.
Status ReadInputNode(const Json& n, const DslNode& node, const NamedRef& name, Graph* graph,
                     std::vector<NamedRef>* sources) {
  ValueInfo info;
  info.name = name.name;
  info.dtype = DType::kFloat32;
  const Json* holder = node.attrs ? node.attrs : &n;
  const std::string holder_at = node.attrs ? node.pointer + "/attrs" : node.pointer;
  if (node.attrs) {
    static constexpr const char* kKeys[] = {"dtype", "shape"};
    WEBNX_RETURN_IF_ERROR(CheckKeys(*node.attrs, holder_at, kKeys, "an Input"));
    if (Member(n, "dtype") || Member(n, "shape")) {
      return MalformedAt(node.pointer, "give dtype and shape in the node or in attrs, not both");
    }
  }
  const Json* dtype = Member(*holder, "dtype");
  const Json* shape = Member(*holder, "shape");
  if (dtype) WEBNX_RETURN_IF_ERROR(ReadInputDType(*dtype, Child(holder_at, "dtype"), &info.dtype));
  if (shape) WEBNX_RETURN_IF_ERROR(ReadDeclaredShape(*shape, Child(holder_at, "shape"), &info));
  for (auto& declared : graph->inputs) {
    if (declared.name != info.name) continue;
    if ((dtype && declared.dtype != info.dtype) ||
        (shape && (!declared.has_shape || declared.dims.size() != info.dims.size()))) {
      return MalformedAt(node.pointer,
                         "Input '" + info.name + "' disagrees with its declaration in /inputs");
    }
    return Status::Ok();  // declared at the top: the node only names it
  }
  graph->inputs.push_back(std::move(info));
  sources->push_back(name);
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

}  // namespace

Status LoadWebnxGraphDocument(const Json& doc, const JsonExternalFiles& files, Graph* graph) {
  *graph = Graph();
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
  bool nhwc = true;
  if (const Json* l = Member(doc, "layout"))
    WEBNX_RETURN_IF_ERROR(ReadLayout(*l, "/layout", &nhwc));
  WEBNX_RETURN_IF_ERROR(ReadMetadata(doc, graph));

  std::vector<NamedRef> sources;
  if (const Json* inputs = Member(doc, "inputs")) {
    WEBNX_RETURN_IF_ERROR(ExpectArray(*inputs, "/inputs"));
    for (size_t i = 0; i < inputs->size(); ++i) {
      ValueInfo info;
      WEBNX_RETURN_IF_ERROR(ReadValueDecl((*inputs)[i], Child("/inputs", i), true, &info));
      sources.push_back(NamedRef{info.name, Child("/inputs", i)});
      graph->inputs.push_back(std::move(info));
    }
  }
  if (const Json* tensors = Member(doc, "tensors")) {
    WEBNX_RETURN_IF_ERROR(ReadTensors(*tensors, files, graph, &sources));
  }

  std::vector<DslNode> nodes;
  std::vector<NodeRefs> refs;
  const Json* list = Member(doc, "nodes");
  if (!list) return MalformedAt("/nodes", "the document has no nodes");
  WEBNX_RETURN_IF_ERROR(ExpectArray(*list, "/nodes"));
  for (size_t i = 0; i < list->size(); ++i) {
    DslNode node;
    NodeRefs r;
    const Json& n = (*list)[i];
    WEBNX_RETURN_IF_ERROR(ReadNode(n, Child("/nodes", i), i, nhwc, &node, &r));
    if (node.op == "Input" || node.op == "Constant") {
      NamedRef name;
      WEBNX_RETURN_IF_ERROR(SourceName(node, r, &name));
      if (node.op == "Input") {
        WEBNX_RETURN_IF_ERROR(ReadInputNode(n, node, name, graph, &sources));
      } else {
        Tensor t;
        WEBNX_RETURN_IF_ERROR(ReadConstant(n, node, files, &t));
        if (graph->initializers.count(name.name)) {
          return MalformedAt(name.pointer, "'" + name.name + "' is already defined");
        }
        graph->initializers[name.name] = std::move(t);
        sources.push_back(name);
      }
      continue;
    }
    for (const char* k : {"tensor", "dtype", "shape"}) {
      if (Member(n, k)) {
        return MalformedAt(Child(node.pointer, k),
                           std::string("only Input and Constant nodes take '") + k + "'");
      }
    }
    nodes.push_back(std::move(node));
    refs.push_back(std::move(r));
  }

  std::vector<NamedRef> output_refs;
  const Json* outputs = Member(doc, "outputs");
  if (!outputs) return MalformedAt("/outputs", "the document has no outputs");
  WEBNX_RETURN_IF_ERROR(ExpectArray(*outputs, "/outputs"));
  for (size_t i = 0; i < outputs->size(); ++i) {
    ValueInfo info;
    WEBNX_RETURN_IF_ERROR(ReadValueDecl((*outputs)[i], Child("/outputs", i), false, &info));
    output_refs.push_back(NamedRef{info.name, Child("/outputs", i)});
    graph->outputs.push_back(std::move(info));
  }
  std::vector<int> order;
  WEBNX_RETURN_IF_ERROR(CheckGraphRefs(sources, refs, output_refs, &order));

  std::set<std::string> taken;
  for (const auto& s : sources) taken.insert(s.name);
  for (const auto& r : refs) {
    for (const auto& o : r.outputs) taken.insert(o.name);
  }
  Lowering lowering(graph, files, std::move(taken));
  for (int i : order) WEBNX_RETURN_IF_ERROR(LowerDslNode(nodes[i], &lowering));
  CancelTransposePairs(graph);
  DropDeadNodes(graph);
  return SortAndValidateGraph(graph);
}

}  // namespace jsonl
}  // namespace webnx
