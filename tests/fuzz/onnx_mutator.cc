#include "tests/fuzz/onnx_mutator.h"

#include <cstring>
#include <limits>

#include "core/op_registry.h"

namespace webnx::fuzz {
namespace {

const char* const kAttrNames[] = {"axis",
                                  "axes",
                                  "perm",
                                  "pads",
                                  "strides",
                                  "kernel_shape",
                                  "dilations",
                                  "group",
                                  "keepdims",
                                  "epsilon",
                                  "alpha",
                                  "beta",
                                  "transA",
                                  "transB",
                                  "mode",
                                  "auto_pad",
                                  "ceil_mode",
                                  "count_include_pad",
                                  "split",
                                  "to",
                                  "value",
                                  "allowzero",
                                  "num_outputs",
                                  "noop_with_empty_axes",
                                  "coordinate_transformation_mode",
                                  "nearest_mode",
                                  "scales",
                                  "sizes",
                                  "min",
                                  "max",
                                  "batch_dims",
                                  "output_padding",
                                  "cubic_coeff_a",
                                  "exclude_outside",
                                  "extrapolation_value",
                                  "antialias",
                                  "keep_aspect_ratio_policy",
                                  "stash_type",
                                  "approximate",
                                  "fmod",
                                  "ratio",
                                  "training_mode",
                                  "is_test",
                                  "consumed_inputs",
                                  "spatial",
                                  "momentum",
                                  "bias",
                                  "size",
                                  "value_float",
                                  "value_ints",
                                  "value_int",
                                  "value_floats",
                                  "storage_order",
                                  "select_last_index",
                                  "saturate",
                                  "lambd",
                                  "gamma"};

const char* const kStrings[] = {"NOTSET",
                                "SAME_UPPER",
                                "SAME_LOWER",
                                "VALID",
                                "nearest",
                                "linear",
                                "cubic",
                                "constant",
                                "reflect",
                                "edge",
                                "wrap",
                                "asymmetric",
                                "half_pixel",
                                "align_corners",
                                "pytorch_half_pixel",
                                "tf_crop_and_resize",
                                "round_prefer_floor",
                                "floor",
                                "ceil",
                                "tanh",
                                "none",
                                "bogus",
                                ""};

template <typename T, size_t N>
const T& Pick(const T (&items)[N], uint32_t r) {
  return items[r % N];
}

}  // namespace

int64_t OnnxMutator::Int() {
  static const int64_t kInteresting[] = {0,
                                         1,
                                         -1,
                                         2,
                                         -2,
                                         3,
                                         4,
                                         7,
                                         64,
                                         255,
                                         -128,
                                         1 << 16,
                                         int64_t{1} << 31,
                                         -(int64_t{1} << 31),
                                         int64_t{1} << 32,
                                         std::numeric_limits<int64_t>::max(),
                                         std::numeric_limits<int64_t>::min(),
                                         std::numeric_limits<int64_t>::max() - 1};
  if (OneIn(3)) return static_cast<int64_t>(Below(9)) - 4;
  return Pick(kInteresting, rng_());
}

float OnnxMutator::Float() {
  static const float kInteresting[] = {0.f,
                                       -0.f,
                                       1.f,
                                       -1.f,
                                       0.5f,
                                       1e-30f,
                                       1e30f,
                                       3.4e38f,
                                       std::numeric_limits<float>::infinity(),
                                       -std::numeric_limits<float>::infinity(),
                                       std::numeric_limits<float>::quiet_NaN(),
                                       std::numeric_limits<float>::denorm_min()};
  if (OneIn(3)) return static_cast<float>(static_cast<int>(Below(200)) - 100) / 16.f;
  return Pick(kInteresting, rng_());
}

std::string OnnxMutator::OpType() {
  static const std::vector<std::string> names = OpRegistry::Default().OpNames();
  if (OneIn(20)) return "NoSuchOp";
  return names[Below(static_cast<uint32_t>(names.size()))];
}

std::vector<std::string> OnnxMutator::ValueNames(const onnx::GraphProto& g) const {
  std::vector<std::string> names;
  for (const auto& in : g.input()) names.push_back(in.name());
  for (const auto& t : g.initializer()) names.push_back(t.name());
  for (const auto& n : g.node())
    for (const auto& out : n.output()) names.push_back(out);
  return names;
}

std::string OnnxMutator::ValueName(const onnx::GraphProto& g) {
  if (OneIn(16)) return OneIn(2) ? "" : "no_such_value";
  std::vector<std::string> names = ValueNames(g);
  return names.empty() ? "x" : names[Below(static_cast<uint32_t>(names.size()))];
}

void OnnxMutator::EditAttribute(onnx::NodeProto* node) {
  if (node->attribute_size() == 0) return AddAttribute(node);
  onnx::AttributeProto* a = node->mutable_attribute(Below(node->attribute_size()));
  switch (Below(8)) {
    case 0:  // retype, keeping whatever fields are set
      a->set_type(static_cast<onnx::AttributeProto_AttributeType>(Below(14)));
      break;
    case 1:
      a->set_i(Int());
      break;
    case 2:
      a->set_f(Float());
      break;
    case 3:
      if (a->ints_size()) a->set_ints(Below(a->ints_size()), Int());
      break;
    case 4:
      if (OneIn(2) && a->ints_size()) {
        a->mutable_ints()->RemoveLast();
      } else {
        a->add_ints(Int());
      }
      break;
    case 5:
      if (a->floats_size()) a->set_floats(Below(a->floats_size()), Float());
      break;
    case 6:
      a->set_s(Pick(kStrings, rng_()));
      break;
    case 7:
      if (a->has_t()) EditInitializer(a->mutable_t());
      break;
  }
}

void OnnxMutator::AddAttribute(onnx::NodeProto* node) {
  onnx::AttributeProto* a = node->add_attribute();
  a->set_name(Pick(kAttrNames, rng_()));
  switch (Below(4)) {
    case 0:
      a->set_type(onnx::AttributeProto::INT);
      a->set_i(Int());
      break;
    case 1:
      a->set_type(onnx::AttributeProto::INTS);
      for (uint32_t i = 0, n = Below(6); i < n; ++i) a->add_ints(Int());
      break;
    case 2:
      a->set_type(onnx::AttributeProto::FLOAT);
      a->set_f(Float());
      break;
    case 3:
      a->set_type(onnx::AttributeProto::STRING);
      a->set_s(Pick(kStrings, rng_()));
      break;
  }
}

void OnnxMutator::EditValueInfo(onnx::ValueInfoProto* info) {
  auto* tt = info->mutable_type()->mutable_tensor_type();
  if (OneIn(4)) {
    tt->set_elem_type(OneIn(2) ? static_cast<int32_t>(Below(20)) : 1 + 6 * Below(2));
    return;
  }
  auto* shape = tt->mutable_shape();
  if (shape->dim_size() == 0 || OneIn(5)) {
    shape->add_dim()->set_dim_value(1 + Below(4));
    return;
  }
  auto* dim = shape->mutable_dim(Below(shape->dim_size()));
  switch (Below(4)) {
    case 0:
      dim->set_dim_value(OneIn(4) ? Int() : Below(6));
      break;
    case 1:
      dim->set_dim_param(OneIn(2) ? "N" : "M");
      break;
    case 2:
      dim->Clear();
      break;
    case 3:
      shape->mutable_dim()->RemoveLast();
      break;
  }
}

// New data of a fresh small shape that matches it, so that the tensor loads and its values
// (shapes, axes, indices, weights) reach the kernels.
void OnnxMutator::RefillInitializer(onnx::TensorProto* t) {
  static const int32_t kTypes[] = {1, 1, 1, 7, 7, 6, 9, 10};
  if (OneIn(3)) t->set_data_type(Pick(kTypes, rng_()));
  t->clear_dims();
  int64_t numel = 1;
  for (uint32_t r = 0, rank = Below(5); r < rank; ++r) {
    const int64_t d = Below(5);
    t->add_dims(d);
    numel *= d;
  }
  t->clear_raw_data();
  t->clear_float_data();
  t->clear_int32_data();
  t->clear_int64_data();
  for (int64_t i = 0; i < numel; ++i) {
    switch (t->data_type()) {
      case 1:
        t->add_float_data(Float());
        break;
      case 7:
        t->add_int64_data(OneIn(4) ? Int() : static_cast<int64_t>(Below(6)) - 1);
        break;
      default:  // int32, bool and float16 bits all live in int32_data
        t->add_int32_data(static_cast<int32_t>(Below(8)) - 2);
        break;
    }
  }
}

void OnnxMutator::EditInitializer(onnx::TensorProto* t) {
  switch (Below(5)) {
    case 0:
      return RefillInitializer(t);
    case 1:
      if (t->int64_data_size()) {
        t->set_int64_data(Below(t->int64_data_size()), Int());
      } else if (t->float_data_size()) {
        t->set_float_data(Below(t->float_data_size()), Float());
      }
      return;
    case 2:
      if (!t->raw_data().empty()) {
        std::string* raw = t->mutable_raw_data();
        (*raw)[Below(static_cast<uint32_t>(raw->size()))] ^= static_cast<char>(1 << Below(8));
      }
      return;
    case 3:  // a dim that no longer matches the data
      if (t->dims_size()) t->set_dims(Below(t->dims_size()), OneIn(2) ? Int() : Below(5));
      return;
    case 4:
      t->set_data_type(static_cast<int32_t>(Below(20)));
      return;
  }
}

void OnnxMutator::EditEdge(onnx::GraphProto* g) {
  if (g->node_size() == 0) return;
  onnx::NodeProto* node = g->mutable_node(Below(g->node_size()));
  const std::string name = ValueName(*g);
  if (node->input_size() && !OneIn(4)) {
    node->set_input(Below(node->input_size()), name);
  } else if (OneIn(2)) {
    node->add_input(name);
  } else if (node->input_size()) {
    node->mutable_input()->RemoveLast();
  }
  if (OneIn(8) && g->output_size()) {
    g->mutable_output(Below(g->output_size()))->set_name(ValueName(*g));
  }
}

// A node of any registered op reading existing values; its output becomes a graph output, so
// it is live.
void OnnxMutator::InsertNode(onnx::GraphProto* g) {
  onnx::NodeProto node;
  node.set_op_type(OpType());
  for (uint32_t i = 0, n = 1 + Below(3); i < n; ++i) node.add_input(ValueName(*g));
  const std::string out = "fuzz_" + std::to_string(g->node_size());
  node.add_output(out);
  for (uint32_t i = 0, n = Below(3); i < n; ++i) AddAttribute(&node);
  const int at = static_cast<int>(Below(g->node_size() + 1));
  *g->add_node() = node;
  for (int i = g->node_size() - 1; i > at; --i) g->mutable_node()->SwapElements(i, i - 1);
  auto* vi = g->add_output();
  vi->set_name(out);
  vi->mutable_type()->mutable_tensor_type()->set_elem_type(1 + 6 * Below(2));
}

void OnnxMutator::EditNode(onnx::GraphProto* g) {
  if (g->node_size() == 0) return InsertNode(g);
  const int i = static_cast<int>(Below(g->node_size()));
  switch (Below(5)) {
    case 0:
      g->mutable_node(i)->set_op_type(OpType());
      return;
    case 1:  // delete
      g->mutable_node()->SwapElements(i, g->node_size() - 1);
      g->mutable_node()->RemoveLast();
      return;
    case 2:
      *g->add_node() = g->node(i);
      return;
    case 3:
      g->mutable_node(i)->add_output(OneIn(2) ? "" : "extra_" + std::to_string(i));
      return;
    case 4:
      if (g->node(i).output_size()) g->mutable_node(i)->mutable_output()->RemoveLast();
      return;
  }
}

void OnnxMutator::Mutate(onnx::ModelProto* model) {
  onnx::GraphProto* g = model->mutable_graph();
  for (uint32_t edit = 0, edits = 1 + Below(4); edit < edits; ++edit) {
    switch (Below(10)) {
      case 0:
      case 1:
        if (g->node_size()) EditAttribute(g->mutable_node(Below(g->node_size())));
        break;
      case 2:
        if (g->node_size()) AddAttribute(g->mutable_node(Below(g->node_size())));
        break;
      case 3:
        if (g->input_size() && (OneIn(2) || !g->output_size())) {
          EditValueInfo(g->mutable_input(Below(g->input_size())));
        } else if (g->output_size()) {
          EditValueInfo(g->mutable_output(Below(g->output_size())));
        }
        break;
      case 4:
      case 5:
        if (g->initializer_size())
          EditInitializer(g->mutable_initializer(Below(g->initializer_size())));
        break;
      case 6:
        EditEdge(g);
        break;
      case 7:
        InsertNode(g);
        break;
      case 8:
        EditNode(g);
        break;
      case 9:
        for (auto& op : *model->mutable_opset_import())
          if (op.domain().empty() || op.domain() == "ai.onnx") op.set_version(6 + Below(20));
        break;
    }
  }
}

}  // namespace webnx::fuzz
