#include "core/loaders/json_dsl_ops.h"

#include <functional>

#include "core/loaders/json_dsl_attrs.h"

namespace webnx {
namespace jsonl {
namespace {

// NHWC (the DSL's vision layout) <-> NCHW (ONNX's): the lowered node runs NCHW between a pair
// of transposes, and Lowering pairs twins so consecutive NHWC ops share one layout change.
const std::vector<int64_t> kHwioToOihw = {3, 2, 0, 1};
const std::vector<int64_t> kNhwcToNchw = {0, 3, 1, 2};

using Attrs = std::map<std::string, Attribute>;

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

// The first input, which must be given.
Status ExpectData(const DslNode& node) {
  if (!node.inputs.empty() && !node.inputs[0].empty()) return Status::Ok();
  return MalformedAt(node.InputPointer(0), node.op + " needs its data input");
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

// A constant operand of an elementwise op, re-laid out for the NCHW twin of its NHWC partner:
// left-padded to rank 4 (numpy broadcasting) and permuted.
std::string ConstantToNchw(const std::string& name, const Tensor& c, Lowering& ctx) {
  Tensor padded = c;
  padded.shape.insert(padded.shape.begin(), 4 - c.shape.size(), 1);
  Tensor t;
  if (!PermuteTensor(padded, kNhwcToNchw, &t).ok()) return "";
  return ctx.AddInitializer(name + "#nchw", std::move(t));
}

using EmitFn =
    std::function<Status(Lowering&, const std::vector<std::string>&, const std::string&)>;

// An op whose result does not depend on the layout (elementwise): computed on the NCHW twins
// of its inputs when it has some, so an NHWC chain does not bounce through transposes.
Status LowerLayoutFree(const DslNode& node, Lowering& ctx, const EmitFn& emit) {
  if (node.outputs.size() != 1)
    return emit(ctx, node.inputs, node.outputs.empty() ? "" : node.outputs[0]);
  std::vector<std::string> nchw;
  bool any_twin = false;
  for (const auto& in : node.inputs) {
    if (in.empty()) {
      nchw.push_back(in);
    } else if (const std::string* twin = ctx.TwinOf(in)) {
      nchw.push_back(*twin);
      any_twin = true;
    } else if (const Tensor* c = ctx.Constant(in)) {
      if (c->rank() > 4) return emit(ctx, node.inputs, node.outputs[0]);
      nchw.push_back(c->numel() == 1 ? in : ConstantToNchw(in, *c, ctx));
      if (nchw.back().empty()) return emit(ctx, node.inputs, node.outputs[0]);
    } else {
      return emit(ctx, node.inputs, node.outputs[0]);  // a plain NHWC value: stay NHWC
    }
  }
  if (!any_twin) return emit(ctx, node.inputs, node.outputs[0]);
  const std::string out = ctx.FreshName(node.outputs[0] + "#nchw");
  WEBNX_RETURN_IF_ERROR(emit(ctx, nchw, out));
  ctx.FromNchw(out, node.outputs[0], node.id);
  return Status::Ok();
}

// --- elementwise ---------------------------------------------------------------------------

Status LowerElementwise(const DslNode& node, Lowering& ctx) {
  Attrs attrs;
  WEBNX_RETURN_IF_ERROR(ConvertAttributes(node, ctx.files(), &attrs));
  if (!node.domain.empty()) return Passthrough(node, ctx);
  return LowerLayoutFree(
      node, ctx, [&](Lowering& c, const std::vector<std::string>& ins, const std::string& out) {
        if (node.outputs.size() != 1) return Passthrough(node, c);
        c.Emit(node.op, node.id, ins, {out}, attrs);
        return Status::Ok();
      });
}

// Relu6 = Clip(0, 6): bounds are inputs from opset 11, attributes before.
Status LowerRelu6(const DslNode& node, Lowering& ctx) {
  WEBNX_RETURN_IF_ERROR(ExpectInputs(node, 1, 1));
  WEBNX_RETURN_IF_ERROR(ExpectData(node));
  WEBNX_RETURN_IF_ERROR(ExpectOneOutput(node));
  WEBNX_RETURN_IF_ERROR(DslAttrs(node).Finish());
  return LowerLayoutFree(
      node, ctx, [&](Lowering& c, const std::vector<std::string>& ins, const std::string& out) {
        if (c.opset() >= 11) {
          const std::string lo = c.AddScalarFloat(node.id + "#min", 0.f);
          const std::string hi = c.AddScalarFloat(node.id + "#max", 6.f);
          c.Emit("Clip", node.id, {ins[0], lo, hi}, {out});
        } else {
          c.Emit("Clip", node.id, {ins[0]}, {out},
                 {{"min", FloatAttribute(0.f)}, {"max", FloatAttribute(6.f)}});
        }
        return Status::Ok();
      });
}

// HardSwish is ONNX from opset 14; before, x * HardSigmoid(x; 1/6, 0.5) is the same function.
Status LowerHardSwish(const DslNode& node, Lowering& ctx) {
  WEBNX_RETURN_IF_ERROR(ExpectInputs(node, 1, 1));
  WEBNX_RETURN_IF_ERROR(ExpectData(node));
  WEBNX_RETURN_IF_ERROR(ExpectOneOutput(node));
  WEBNX_RETURN_IF_ERROR(DslAttrs(node).Finish());
  return LowerLayoutFree(
      node, ctx, [&](Lowering& c, const std::vector<std::string>& ins, const std::string& out) {
        if (c.opset() >= 14) {
          c.Emit("HardSwish", node.id, {ins[0]}, {out});
          return Status::Ok();
        }
        const std::string gate = c.FreshName(out + "#gate");
        c.Emit("HardSigmoid", node.id + "#gate", {ins[0]}, {gate},
               {{"alpha", FloatAttribute(1.f / 6.f)}, {"beta", FloatAttribute(0.5f)}});
        c.Emit("Mul", node.id, {ins[0], gate}, {out});
        return Status::Ok();
      });
}

// --- convolutions --------------------------------------------------------------------------

struct ConvAttrs {
  std::vector<int64_t> kernel_shape, strides, pads, dilations;
  bool has_kernel_shape = false;
};

Status ReadConvAttrs(DslAttrs& a, ConvAttrs* c) {
  c->has_kernel_shape = a.Has("kernel_shape");
  WEBNX_RETURN_IF_ERROR(a.Ints("kernel_shape", 2, 1, {}, &c->kernel_shape));
  WEBNX_RETURN_IF_ERROR(a.Ints("strides", 2, 1, {1, 1}, &c->strides));
  // [top, left, bottom, right] is also ONNX's 2-D order (begins, then ends).
  WEBNX_RETURN_IF_ERROR(a.Ints("pads", 4, 0, {0, 0, 0, 0}, &c->pads));
  return a.Ints("dilations", 2, 1, {1, 1}, &c->dilations);
}

// A constant 4-D kernel: checks its rank and that kernel_shape agrees with it.
Status CheckKernel(const DslNode& node, const Tensor& k, const char* layout, ConvAttrs* c) {
  if (k.rank() != 4) {
    return MalformedAt(node.InputPointer(1), node.op + " kernel must be 4-D " + layout + ", got " +
                                                 ShapeToString(k.shape));
  }
  if (c->has_kernel_shape &&
      (c->kernel_shape[0] != k.shape[0] || c->kernel_shape[1] != k.shape[1])) {
    return MalformedAt(node.AttrPointer("kernel_shape"),
                       "is [" + std::to_string(c->kernel_shape[0]) + ", " +
                           std::to_string(c->kernel_shape[1]) + "] but the kernel is " +
                           ShapeToString(k.shape));
  }
  c->kernel_shape = {k.shape[0], k.shape[1]};
  c->has_kernel_shape = true;
  return Status::Ok();
}

Status EmitConv(const DslNode& node, Lowering& ctx, const std::string& weights, const ConvAttrs& c,
                int64_t group) {
  std::vector<std::string> ins = {ctx.ToNchw(node.inputs[0]), weights};
  if (node.inputs.size() > 2 && !node.inputs[2].empty()) ins.push_back(node.inputs[2]);
  Attrs attrs = {{"strides", IntsAttribute(c.strides)},
                 {"pads", IntsAttribute(c.pads)},
                 {"dilations", IntsAttribute(c.dilations)},
                 {"group", IntAttribute(group)}};
  if (c.has_kernel_shape) attrs["kernel_shape"] = IntsAttribute(c.kernel_shape);
  const std::string out = ctx.FreshName(node.outputs[0] + "#nchw");
  ctx.Emit("Conv", node.id, ins, {out}, std::move(attrs));
  ctx.FromNchw(out, node.outputs[0], node.id);
  return Status::Ok();
}

// Conv2D: NHWC input, HWIO kernel [Kh, Kw, Cin/group, Cout] -> ONNX Conv with OIHW weights.
Status LowerConv2D(const DslNode& node, Lowering& ctx) {
  WEBNX_RETURN_IF_ERROR(ExpectInputs(node, 2, 3));
  WEBNX_RETURN_IF_ERROR(ExpectData(node));
  WEBNX_RETURN_IF_ERROR(ExpectOneOutput(node));
  DslAttrs a(node);
  ConvAttrs c;
  int64_t group = 1;
  WEBNX_RETURN_IF_ERROR(ReadConvAttrs(a, &c));
  WEBNX_RETURN_IF_ERROR(a.Int("group", 1, &group));
  WEBNX_RETURN_IF_ERROR(a.Finish());
  if (group < 1) return MalformedAt(node.AttrPointer("group"), "must be at least 1");
  if (node.inputs[1].empty()) return MalformedAt(node.InputPointer(1), "Conv2D needs a kernel");
  if (const Tensor* k = ctx.Constant(node.inputs[1])) {
    WEBNX_RETURN_IF_ERROR(CheckKernel(node, *k, "[Kh, Kw, Cin/group, Cout]", &c));
    if (k->shape[3] % group != 0) {
      return MalformedAt(node.AttrPointer("group"), "Cout (" + std::to_string(k->shape[3]) +
                                                        ") is not divisible by group " +
                                                        std::to_string(group));
    }
  }
  // A computed kernel gets a Transpose node; a constant one is re-laid out now.
  const std::string weights = ctx.Permuted(node.inputs[1], kHwioToOihw, node.id + "#kernel");
  return EmitConv(node, ctx, weights, c, group);
}

// DepthwiseConv2D: kernel [Kh, Kw, C, M]; output channel c*M + m (TensorFlow's order), which
// is ONNX's grouped Conv with group = C and weights [C*M, 1, Kh, Kw].
Status LowerDepthwiseConv2D(const DslNode& node, Lowering& ctx) {
  WEBNX_RETURN_IF_ERROR(ExpectInputs(node, 2, 3));
  WEBNX_RETURN_IF_ERROR(ExpectData(node));
  WEBNX_RETURN_IF_ERROR(ExpectOneOutput(node));
  DslAttrs a(node);
  ConvAttrs c;
  int64_t multiplier = 0;
  WEBNX_RETURN_IF_ERROR(ReadConvAttrs(a, &c));
  const bool has_multiplier = a.Has("depth_multiplier");
  WEBNX_RETURN_IF_ERROR(a.Int("depth_multiplier", 1, &multiplier));
  WEBNX_RETURN_IF_ERROR(a.Finish());
  const Tensor* k = node.inputs[1].empty() ? nullptr : ctx.Constant(node.inputs[1]);
  if (!k) {
    return MalformedAt(node.InputPointer(1),
                       "DepthwiseConv2D needs a constant kernel [Kh, Kw, C, multiplier] (a "
                       "tensor or a Constant node): its channel count sets the group");
  }
  WEBNX_RETURN_IF_ERROR(CheckKernel(node, *k, "[Kh, Kw, C, multiplier]", &c));
  if (has_multiplier && multiplier != k->shape[3]) {
    return MalformedAt(node.AttrPointer("depth_multiplier"),
                       "is " + std::to_string(multiplier) + " but the kernel " +
                           ShapeToString(k->shape) + " has " + std::to_string(k->shape[3]));
  }
  Tensor w;
  WEBNX_RETURN_IF_ERROR(PermuteTensor(*k, {2, 3, 0, 1}, &w));  // [C, M, Kh, Kw]
  const int64_t channels = k->shape[2];
  w.shape = {channels * k->shape[3], 1, k->shape[0], k->shape[1]};
  const std::string weights = ctx.AddInitializer(node.inputs[1] + "#oihw", std::move(w));
  return EmitConv(node, ctx, weights, c, channels);
}

// BatchNorm (inference): inputs x, scale, bias, mean, variance over the channel axis.
Status LowerBatchNorm(const DslNode& node, Lowering& ctx) {
  WEBNX_RETURN_IF_ERROR(ExpectInputs(node, 5, 5));
  WEBNX_RETURN_IF_ERROR(ExpectData(node));
  WEBNX_RETURN_IF_ERROR(ExpectOneOutput(node));
  DslAttrs a(node);
  float epsilon = 0, momentum = 0;
  WEBNX_RETURN_IF_ERROR(a.Float("epsilon", 1e-5f, &epsilon));
  WEBNX_RETURN_IF_ERROR(a.Float("momentum", 0.9f, &momentum));  // training only: ignored
  WEBNX_RETURN_IF_ERROR(a.Finish());
  std::vector<std::string> ins = node.inputs;
  ins[0] = ctx.ToNchw(node.inputs[0]);
  const std::string out = ctx.FreshName(node.outputs[0] + "#nchw");
  ctx.Emit("BatchNormalization", node.id, ins, {out}, {{"epsilon", FloatAttribute(epsilon)}});
  ctx.FromNchw(out, node.outputs[0], node.id);
  return Status::Ok();
}

// --- pooling: NHWC in an NHWC document, ONNX's NCHW ops otherwise ---------------------------

Status EmitPool(const DslNode& node, Lowering& ctx, const char* op, Attrs attrs) {
  const std::string out = ctx.FreshName(node.outputs[0] + "#nchw");
  ctx.Emit(op, node.id, {ctx.ToNchw(node.inputs[0])}, {out}, std::move(attrs));
  ctx.FromNchw(out, node.outputs[0], node.id);
  return Status::Ok();
}

Status CheckPoolIo(const DslNode& node) {
  WEBNX_RETURN_IF_ERROR(ExpectInputs(node, 1, 1));
  WEBNX_RETURN_IF_ERROR(ExpectData(node));
  return ExpectOneOutput(node);
}

Status LowerWindowPool(const DslNode& node, Lowering& ctx) {
  if (!node.nhwc) return Passthrough(node, ctx);
  WEBNX_RETURN_IF_ERROR(CheckPoolIo(node));
  const bool average = node.op == "AveragePool";
  DslAttrs a(node);
  std::vector<int64_t> kernel, strides, pads, dilations;
  bool ceil_mode = false, count_include_pad = false;
  if (!a.Has("kernel_shape")) {
    return MalformedAt(node.AttrPointer("kernel_shape"), node.op + " needs kernel_shape [kh, kw]");
  }
  WEBNX_RETURN_IF_ERROR(a.Ints("kernel_shape", 2, 1, {}, &kernel));
  WEBNX_RETURN_IF_ERROR(a.Ints("strides", 2, 1, {1, 1}, &strides));
  WEBNX_RETURN_IF_ERROR(a.Ints("pads", 4, 0, {0, 0, 0, 0}, &pads));
  WEBNX_RETURN_IF_ERROR(a.Bool("ceil_mode", false, &ceil_mode));
  Attrs attrs = {{"kernel_shape", IntsAttribute(kernel)},
                 {"strides", IntsAttribute(strides)},
                 {"pads", IntsAttribute(pads)}};
  if (ceil_mode) attrs["ceil_mode"] = IntAttribute(1);
  if (average) {
    WEBNX_RETURN_IF_ERROR(a.Bool("count_include_pad", false, &count_include_pad));
    attrs["count_include_pad"] = IntAttribute(count_include_pad ? 1 : 0);
  } else {
    WEBNX_RETURN_IF_ERROR(a.Ints("dilations", 2, 1, {1, 1}, &dilations));
    attrs["dilations"] = IntsAttribute(dilations);
  }
  WEBNX_RETURN_IF_ERROR(a.Finish());
  return EmitPool(node, ctx, average ? "AveragePool" : "MaxPool", std::move(attrs));
}

// NHWC [N, H, W, C] -> [N, 1, 1, C].
Status LowerGlobalPool(const DslNode& node, Lowering& ctx) {
  if (!node.nhwc) return Passthrough(node, ctx);
  WEBNX_RETURN_IF_ERROR(CheckPoolIo(node));
  WEBNX_RETURN_IF_ERROR(DslAttrs(node).Finish());
  return EmitPool(node, ctx, node.op == "GlobalAveragePool" ? "GlobalAveragePool" : "GlobalMaxPool",
                  {});
}

// --- matrices and shapes -------------------------------------------------------------------

// transA/transB: constants are transposed at load (last two dims); computed operands get a
// Transpose node, which reverses all dims, so they must be 2-D (the editor's MatMul is 2-D).
Status LowerMatMul(const DslNode& node, Lowering& ctx) {
  DslAttrs a(node);
  if (!a.Has("transA") && !a.Has("transB")) return Passthrough(node, ctx);
  WEBNX_RETURN_IF_ERROR(ExpectInputs(node, 2, 2));
  WEBNX_RETURN_IF_ERROR(ExpectOneOutput(node));
  bool trans[2] = {false, false};
  WEBNX_RETURN_IF_ERROR(a.Bool("transA", false, &trans[0]));
  WEBNX_RETURN_IF_ERROR(a.Bool("transB", false, &trans[1]));
  WEBNX_RETURN_IF_ERROR(a.Finish());
  std::vector<std::string> ins = node.inputs;
  for (int i = 0; i < 2; ++i) {
    if (ins[i].empty()) return MalformedAt(node.InputPointer(i), "MatMul needs two inputs");
    if (!trans[i]) continue;
    std::vector<int64_t> perm = {1, 0};
    if (const Tensor* c = ctx.Constant(ins[i])) {
      if (c->rank() < 2) {
        return MalformedAt(node.AttrPointer(i == 0 ? "transA" : "transB"),
                           "cannot transpose the " + std::to_string(c->rank()) + "-D operand");
      }
      perm.resize(c->rank());
      for (size_t d = 0; d < perm.size(); ++d) perm[d] = static_cast<int64_t>(d);
      std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
    }
    ins[i] = ctx.Permuted(ins[i], perm, node.id + (i == 0 ? "#transA" : "#transB"));
  }
  ctx.Emit("MatMul", node.id, ins, node.outputs);
  return Status::Ok();
}

// Reshape { shape, allowzero } -> ONNX Reshape with the shape as an int64 initializer.
Status LowerReshape(const DslNode& node, Lowering& ctx) {
  DslAttrs a(node);
  if (!a.Has("shape")) return Passthrough(node, ctx);
  if (node.inputs.size() != 1) {
    return MalformedAt(
        node.pointer + "/inputs",
        "Reshape with a shape attribute takes 1 input, got " + std::to_string(node.inputs.size()));
  }
  WEBNX_RETURN_IF_ERROR(ExpectData(node));
  WEBNX_RETURN_IF_ERROR(ExpectOneOutput(node));
  std::vector<int64_t> shape;
  bool present = false, allowzero = false;
  WEBNX_RETURN_IF_ERROR(a.IntList("shape", &shape, &present));
  WEBNX_RETURN_IF_ERROR(a.Bool("allowzero", false, &allowzero));
  WEBNX_RETURN_IF_ERROR(a.Finish());
  Attrs attrs;
  if (allowzero) {
    if (ctx.opset() < 14) {
      return MalformedAt(node.AttrPointer("allowzero"), "needs opset 14 or later");
    }
    attrs["allowzero"] = IntAttribute(1);
  }
  const std::string target = ctx.AddInt64s(node.id + "#shape", shape);
  ctx.Emit("Reshape", node.id, {node.inputs[0], target}, node.outputs, std::move(attrs));
  return Status::Ok();
}

// Concat of NHWC values that all have NCHW twins concatenates the twins (axis remapped).
Status LowerConcat(const DslNode& node, Lowering& ctx) {
  if (!node.domain.empty()) return Passthrough(node, ctx);
  DslAttrs a(node);
  if (!a.Has("axis")) return MalformedAt(node.AttrPointer("axis"), "Concat needs an axis");
  int64_t axis = 0;
  WEBNX_RETURN_IF_ERROR(a.Int("axis", 0, &axis));
  WEBNX_RETURN_IF_ERROR(a.Finish());
  WEBNX_RETURN_IF_ERROR(ExpectOneOutput(node));
  if (node.inputs.empty()) return MalformedAt(node.pointer + "/inputs", "Concat needs inputs");
  std::vector<std::string> twins;
  for (const auto& in : node.inputs) {
    const std::string* twin = in.empty() ? nullptr : ctx.TwinOf(in);
    if (!twin) break;
    twins.push_back(*twin);
  }
  if (twins.size() != node.inputs.size() || axis < -4 || axis > 3) {
    ctx.Emit("Concat", node.id, node.inputs, node.outputs, {{"axis", IntAttribute(axis)}});
    return Status::Ok();
  }
  static const int64_t kNhwcAxisInNchw[] = {0, 2, 3, 1};
  const int64_t nchw_axis = kNhwcAxisInNchw[axis < 0 ? axis + 4 : axis];
  const std::string out = ctx.FreshName(node.outputs[0] + "#nchw");
  ctx.Emit("Concat", node.id, twins, {out}, {{"axis", IntAttribute(nchw_axis)}});
  ctx.FromNchw(out, node.outputs[0], node.id);
  return Status::Ok();
}

// --- the table -----------------------------------------------------------------------------

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
