// webnx-graph nodes as written: the compute nodes the op table lowers, and the Input and
// Constant nodes that define graph inputs and initializers.
#include "core/loaders/json_webnx_nodes.h"

#include "core/loaders/json_dialects.h"
#include "core/loaders/json_webnx_fields.h"

namespace webnx {
namespace jsonl {
namespace {

constexpr const char* kNodeKeys[] = {"id",     "name",    "op",    "domain", "inputs",
                                     "output", "outputs", "attrs", "layout", "tensor",
                                     "dtype",  "shape",   "doc"};

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

// Input and Constant nodes: the one value each defines becomes a graph input or initializer.
Status AddSourceNode(const Json& n, const DslNode& node, const NodeRefs& refs,
                     const JsonExternalFiles& files, Graph* graph, std::vector<NamedRef>* sources) {
  NamedRef name;
  WEBNX_RETURN_IF_ERROR(SourceName(node, refs, &name));
  if (node.op == "Input") return ReadInputNode(n, node, name, graph, sources);
  Tensor t;
  WEBNX_RETURN_IF_ERROR(ReadConstant(n, node, files, &t));
  if (graph->initializers.count(name.name)) {
    return MalformedAt(name.pointer, "'" + name.name + "' is already defined");
  }
  graph->initializers[name.name] = std::move(t);
  sources->push_back(name);
  return Status::Ok();
}

// The fields only Input and Constant nodes take.
Status CheckComputeNode(const Json& n, const DslNode& node) {
  for (const char* k : {"tensor", "dtype", "shape"}) {
    if (Member(n, k)) {
      return MalformedAt(Child(node.pointer, k),
                         std::string("only Input and Constant nodes take '") + k + "'");
    }
  }
  return Status::Ok();
}

}  // namespace

Status ReadNodes(const Json& list, const JsonExternalFiles& files, bool doc_nhwc, Graph* graph,
                 std::vector<NamedRef>* sources, std::vector<DslNode>* nodes,
                 std::vector<NodeRefs>* refs) {
  WEBNX_RETURN_IF_ERROR(ExpectArray(list, "/nodes"));
  for (size_t i = 0; i < list.size(); ++i) {
    DslNode node;
    NodeRefs r;
    const Json& n = list[i];
    WEBNX_RETURN_IF_ERROR(ReadNode(n, Child("/nodes", i), i, doc_nhwc, &node, &r));
    if (node.op == "Input" || node.op == "Constant") {
      WEBNX_RETURN_IF_ERROR(AddSourceNode(n, node, r, files, graph, sources));
      continue;
    }
    WEBNX_RETURN_IF_ERROR(CheckComputeNode(n, node));
    nodes->push_back(std::move(node));
    refs->push_back(std::move(r));
  }
  return Status::Ok();
}

}  // namespace jsonl
}  // namespace webnx
