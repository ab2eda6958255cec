// The webnx-graph op table: which rule lowers each op, and the checks every rule shares.
#include "core/loaders/json_dsl_ops.h"

#include "core/loaders/json_dsl_attrs.h"
#include "core/loaders/json_dsl_rules.h"

namespace webnx {
namespace jsonl {

Status ExpectInputs(const DslNode& node, size_t min, size_t max) {
  if (node.inputs.size() >= min && node.inputs.size() <= max) return Status::Ok();
  const std::string want =
      min == max ? std::to_string(min) : std::to_string(min) + " to " + std::to_string(max);
  return MalformedAt(node.pointer + "/inputs", node.op + " takes " + want + " inputs, got " +
                                                   std::to_string(node.inputs.size()));
}

Status ExpectOneOutput(const DslNode& node) {
  if (node.outputs.size() == 1 && !node.outputs[0].empty()) return Status::Ok();
  return MalformedAt(node.pointer, node.op + " has exactly one output, got " +
                                       std::to_string(node.outputs.size()));
}

Status ExpectData(const DslNode& node) {
  if (!node.inputs.empty() && !node.inputs[0].empty()) return Status::Ok();
  return MalformedAt(node.InputPointer(0), node.op + " needs its data input");
}

Status ExpectDataNode(const DslNode& node, size_t min, size_t max) {
  WEBNX_RETURN_IF_ERROR(ExpectInputs(node, min, max));
  WEBNX_RETURN_IF_ERROR(ExpectData(node));
  return ExpectOneOutput(node);
}

Status ExpectPlainUnary(const DslNode& node) {
  WEBNX_RETURN_IF_ERROR(ExpectDataNode(node, 1, 1));
  return DslAttrs(node).Finish();
}

Status Passthrough(const DslNode& node, Lowering& ctx) {
  Node n;
  n.name = node.id;
  n.op_type = node.op;
  n.domain = node.domain;
  n.inputs = node.inputs;
  n.outputs = node.outputs;
  WEBNX_RETURN_IF_ERROR(ConvertAttributes(node, ctx.files(), &n.attrs));
  ctx.Emit(std::move(n));
  return Status::Ok();
}

namespace {

struct Rule {
  const char* op;
  Status (*lower)(const DslNode&, Lowering&);
};

constexpr Rule kRules[] = {
    // The DSL's own ops (the MobileNet editor's NHWC vision set).
    {"Conv2D", LowerConv2D},
    {"DepthwiseConv2D", LowerDepthwiseConv2D},
    {"BatchNorm", LowerBatchNorm},
    {"Relu6", LowerRelu6},
    {"HardSwish", LowerHardSwish},
    {"AveragePool", LowerWindowPool},
    {"MaxPool", LowerWindowPool},
    {"GlobalAveragePool", LowerGlobalPool},
    {"GlobalMaxPool", LowerGlobalPool},
    {"MatMul", LowerMatMul},
    {"Reshape", LowerReshape},
    {"Concat", LowerConcat},
    // ONNX elementwise ops: unchanged, but they keep an NHWC chain in NCHW.
    {"Relu", LowerElementwise},
    {"LeakyRelu", LowerElementwise},
    {"PRelu", LowerElementwise},
    {"Sigmoid", LowerElementwise},
    {"HardSigmoid", LowerElementwise},
    {"Tanh", LowerElementwise},
    {"Elu", LowerElementwise},
    {"Selu", LowerElementwise},
    {"Softplus", LowerElementwise},
    {"Clip", LowerElementwise},
    {"Exp", LowerElementwise},
    {"Log", LowerElementwise},
    {"Sqrt", LowerElementwise},
    {"Neg", LowerElementwise},
    {"Abs", LowerElementwise},
    {"Reciprocal", LowerElementwise},
    {"Identity", LowerElementwise},
    {"Add", LowerElementwise},
    {"Sub", LowerElementwise},
    {"Mul", LowerElementwise},
    {"Div", LowerElementwise},
    {"Pow", LowerElementwise},
    {"Max", LowerElementwise},
    {"Min", LowerElementwise},
};

}  // namespace

Status LowerDslNode(const DslNode& node, Lowering* ctx) {
  if (node.domain.empty()) {
    for (const Rule& rule : kRules) {
      if (node.op == rule.op) return rule.lower(node, *ctx);
    }
  }
  return Passthrough(node, *ctx);
}

}  // namespace jsonl
}  // namespace webnx
