#include "tests/unit/model_builder.h"

#include <cstring>

#include "core/loaders/onnx_loader.h"

namespace webnx::testing {
namespace {

onnx::AttributeProto* AddAttr(onnx::NodeProto* node, const std::string& name,
                              onnx::AttributeProto_AttributeType type) {
  onnx::AttributeProto* a = node->add_attribute();
  a->set_name(name);
  a->set_type(type);
  return a;
}

void SetValueInfo(onnx::ValueInfoProto* vi, const std::string& name, int32_t elem_type,
                  const std::vector<D>* dims) {
  vi->set_name(name);
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(elem_type);
  if (!dims) return;
  auto* shape = tt->mutable_shape();
  for (const D& d : *dims) {
    auto* dim = shape->add_dim();
    if (!d.param.empty()) {
      dim->set_dim_param(d.param);
    } else if (d.value >= 0) {
      dim->set_dim_value(d.value);
    }
  }
}

}  // namespace

NodeRef& NodeRef::Int(const std::string& name, int64_t v) {
  AddAttr(node_, name, onnx::AttributeProto::INT)->set_i(v);
  return *this;
}
NodeRef& NodeRef::Float(const std::string& name, float v) {
  AddAttr(node_, name, onnx::AttributeProto::FLOAT)->set_f(v);
  return *this;
}
NodeRef& NodeRef::String(const std::string& name, const std::string& v) {
  AddAttr(node_, name, onnx::AttributeProto::STRING)->set_s(v);
  return *this;
}
NodeRef& NodeRef::Ints(const std::string& name, const std::vector<int64_t>& v) {
  auto* a = AddAttr(node_, name, onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
  return *this;
}
NodeRef& NodeRef::Floats(const std::string& name, const std::vector<float>& v) {
  auto* a = AddAttr(node_, name, onnx::AttributeProto::FLOATS);
  for (float x : v) a->add_floats(x);
  return *this;
}
NodeRef& NodeRef::TensorAttr(const std::string& name, const onnx::TensorProto& t) {
  *AddAttr(node_, name, onnx::AttributeProto::TENSOR)->mutable_t() = t;
  return *this;
}
NodeRef& NodeRef::Graph(const std::string& name, const onnx::GraphProto& g) {
  *AddAttr(node_, name, onnx::AttributeProto::GRAPH)->mutable_g() = g;
  return *this;
}
NodeRef& NodeRef::Domain(const std::string& domain) {
  node_->set_domain(domain);
  return *this;
}

onnx::TensorProto FloatTensor(const std::vector<int64_t>& dims, const std::vector<float>& values,
                              bool raw, const std::string& name) {
  onnx::TensorProto t;
  if (!name.empty()) t.set_name(name);
  t.set_data_type(kOnnxFloat);
  for (int64_t d : dims) t.add_dims(d);
  if (raw) {
    std::string bytes(values.size() * sizeof(float), '\0');
    if (!values.empty()) std::memcpy(&bytes[0], values.data(), bytes.size());
    t.set_raw_data(bytes);
  } else {
    for (float v : values) t.add_float_data(v);
  }
  return t;
}

onnx::TensorProto Int64Tensor(const std::vector<int64_t>& dims, const std::vector<int64_t>& values,
                              bool raw, const std::string& name) {
  onnx::TensorProto t;
  if (!name.empty()) t.set_name(name);
  t.set_data_type(kOnnxInt64);
  for (int64_t d : dims) t.add_dims(d);
  if (raw) {
    std::string bytes(values.size() * sizeof(int64_t), '\0');
    if (!values.empty()) std::memcpy(&bytes[0], values.data(), bytes.size());
    t.set_raw_data(bytes);
  } else {
    for (int64_t v : values) t.add_int64_data(v);
  }
  return t;
}

ModelBuilder::ModelBuilder(int64_t opset) {
  model_.set_ir_version(8);
  model_.set_producer_name("webnx-tests");
  if (opset > 0) Opset("", opset);
  model_.mutable_graph()->set_name("test_graph");
}

ModelBuilder& ModelBuilder::Opset(const std::string& domain, int64_t version) {
  auto* op = model_.add_opset_import();
  op->set_domain(domain);
  op->set_version(version);
  return *this;
}

ModelBuilder& ModelBuilder::Input(const std::string& name, int32_t elem_type,
                                  const std::vector<D>& dims) {
  SetValueInfo(graph().add_input(), name, elem_type, &dims);
  return *this;
}

ModelBuilder& ModelBuilder::InputNoShape(const std::string& name, int32_t elem_type) {
  SetValueInfo(graph().add_input(), name, elem_type, nullptr);
  return *this;
}

ModelBuilder& ModelBuilder::Output(const std::string& name, int32_t elem_type,
                                   const std::vector<D>& dims) {
  SetValueInfo(graph().add_output(), name, elem_type, &dims);
  return *this;
}

onnx::TensorProto* ModelBuilder::Initializer(const std::string& name,
                                             const onnx::TensorProto& tensor) {
  onnx::TensorProto* t = graph().add_initializer();
  *t = tensor;
  t->set_name(name);
  return t;
}

onnx::TensorProto* ModelBuilder::FloatInit(const std::string& name,
                                           const std::vector<int64_t>& dims,
                                           const std::vector<float>& values, bool raw) {
  return Initializer(name, FloatTensor(dims, values, raw));
}

onnx::TensorProto* ModelBuilder::Int64Init(const std::string& name,
                                           const std::vector<int64_t>& dims,
                                           const std::vector<int64_t>& values, bool raw) {
  return Initializer(name, Int64Tensor(dims, values, raw));
}

NodeRef ModelBuilder::Node(const std::string& op_type, const std::vector<std::string>& inputs,
                           const std::vector<std::string>& outputs, const std::string& name) {
  onnx::NodeProto* n = graph().add_node();
  n->set_op_type(op_type);
  if (!name.empty()) n->set_name(name);
  for (const auto& in : inputs) n->add_input(in);
  for (const auto& out : outputs) n->add_output(out);
  return NodeRef(n);
}

Status LoadBytes(const std::string& bytes, Graph* graph) {
  return LoadOnnxModel(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), graph);
}

Status CreateSession(const std::string& bytes, std::unique_ptr<Session>* session,
                     const SessionOptions& options) {
  return Session::CreateFromOnnx(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(),
                                 options, session);
}

}  // namespace webnx::testing
