// The DSL's NHWC vision ops: Conv2D, DepthwiseConv2D, BatchNorm and pooling, lowered to ONNX's
// NCHW ops between layout changes.
#include "core/loaders/json_dsl_attrs.h"
#include "core/loaders/json_dsl_rules.h"

namespace webnx {
namespace jsonl {

// --- convolutions --------------------------------------------------------------------------

namespace {

const std::vector<int64_t> kHwioToOihw = {3, 2, 0, 1};

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
  OnnxAttrs attrs = {{"strides", IntsAttribute(c.strides)},
                     {"pads", IntsAttribute(c.pads)},
                     {"dilations", IntsAttribute(c.dilations)},
                     {"group", IntAttribute(group)}};
  if (c.has_kernel_shape) attrs["kernel_shape"] = IntsAttribute(c.kernel_shape);
  const std::string out = ctx.FreshName(node.outputs[0] + "#nchw");
  ctx.Emit("Conv", node.id, ins, {out}, std::move(attrs));
  ctx.FromNchw(out, node.outputs[0], node.id);
  return Status::Ok();
}

}  // namespace

// Conv2D: NHWC input, HWIO kernel [Kh, Kw, Cin/group, Cout] -> ONNX Conv with OIHW weights.
Status LowerConv2D(const DslNode& node, Lowering& ctx) {
  WEBNX_RETURN_IF_ERROR(ExpectDataNode(node, 2, 3));
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
  WEBNX_RETURN_IF_ERROR(ExpectDataNode(node, 2, 3));
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
  WEBNX_RETURN_IF_ERROR(ExpectDataNode(node, 5, 5));
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

namespace {

Status EmitPool(const DslNode& node, Lowering& ctx, const char* op, OnnxAttrs attrs) {
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

}  // namespace

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
  OnnxAttrs attrs = {{"kernel_shape", IntsAttribute(kernel)},
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

}  // namespace jsonl
}  // namespace webnx
