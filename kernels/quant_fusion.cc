#include "kernels/quant_fusion.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

namespace webnx::quant {
namespace {

bool Is(const Node& node, const char* op) {
  return node.domain.empty() && node.op_type == op;
}

// The input of binary `node` other than `value`, or "" when `value` is not one of its two.
std::string OtherInput(const Node& node, const std::string& value) {
  if (node.inputs.size() != 2) return "";
  if (node.inputs[0] == value) return node.inputs[1];
  if (node.inputs[1] == value) return node.inputs[0];
  return "";
}

// A float constant that broadcasts against an output of `rank` dims along `axis` only, with
// `count` values there (or one value for all): per tensor or per output channel.
bool PerChannel(const Tensor* t, size_t rank, size_t axis, int64_t count) {
  if (!t || t->dtype != DType::kFloat32 || t->shape.size() > rank) return false;
  if (t->numel() == 1) return true;
  const size_t lead = rank - t->shape.size();
  for (size_t d = 0; d < t->shape.size(); ++d) {
    if (t->shape[d] != (lead + d == axis ? count : 1)) return false;
  }
  return true;
}

// The chain after the integer product at `product`, whose output has `rank` dims and `count`
// channels on `axis`; fills the fused node's inputs (x, W, W_scale, W_zp, bias), outputs and the
// nodes it replaces.
bool MatchChain(const FusionContext& ctx, int product, size_t rank, size_t axis, int64_t count,
                FusedNode* fused) {
  const Node& p = ctx.node(product);
  const int dql = ctx.Producer(p.inputs[0]);
  if (dql < 0 || !Is(ctx.node(dql), "DynamicQuantizeLinear") || p.inputs.size() < 3 ||
      ctx.node(dql).outputs.size() != 3 || p.inputs[2] != ctx.node(dql).outputs[2]) {
    return false;
  }
  const Node& quantize = ctx.node(dql);
  const int cast = ctx.OnlyReader(p.outputs[0]);
  if (cast < 0 || !Is(ctx.node(cast), "Cast")) return false;
  const Attribute* to = ctx.node(cast).attr("to");
  if (!to || to->i != 1) return false;  // FLOAT
  const int mul = ctx.OnlyReader(ctx.node(cast).outputs[0]);
  if (mul < 0 || !Is(ctx.node(mul), "Mul")) return false;
  const std::string scale = OtherInput(ctx.node(mul), ctx.node(cast).outputs[0]);
  const int scale_mul = scale.empty() ? -1 : ctx.Producer(scale);
  if (scale_mul < 0 || !Is(ctx.node(scale_mul), "Mul") || ctx.OnlyReader(scale) != mul)
    return false;
  const std::string w_scale = OtherInput(ctx.node(scale_mul), quantize.outputs[1]);
  if (w_scale.empty() || !PerChannel(ctx.Constant(w_scale), rank, axis, count)) return false;
  fused->replaced = {product, cast, scale_mul, mul};
  std::string bias, output = ctx.node(mul).outputs[0];
  const int add = ctx.OnlyReader(output);
  if (add >= 0 && Is(ctx.node(add), "Add")) {
    const std::string b = OtherInput(ctx.node(add), output);
    if (!b.empty() && b != output && PerChannel(ctx.Constant(b), rank, axis, count)) {
      bias = b;
      output = ctx.node(add).outputs[0];
      fused->replaced.push_back(add);
    }
  }
  const std::string w_zp = p.inputs.size() > 3 ? p.inputs[3] : "";
  fused->node.name = p.name;
  fused->node.inputs = {quantize.inputs[0], p.inputs[1], w_scale, w_zp, bias};
  while (fused->node.inputs.back().empty()) fused->node.inputs.pop_back();
  fused->node.outputs = {output};
  return true;
}

// W (and its zero point, if any) are 8-bit constants.
bool EightBit(const Tensor* t) {
  return t && (t->dtype == DType::kInt8 || t->dtype == DType::kUint8);
}

bool ConstantWeights(const FusionContext& ctx, const Node& p, const Tensor** w) {
  *w = p.inputs.size() > 1 ? ctx.Constant(p.inputs[1]) : nullptr;
  if (!EightBit(*w)) return false;
  return p.inputs.size() < 4 || p.inputs[3].empty() || ctx.Constant(p.inputs[3]);
}

// A scalar float32 constant `scale` and a scalar uint8 constant `zp` ("": 0): a per-tensor
// uint8 quantization, its values in *s and *z.
bool UintScalars(const FusionContext& ctx, const std::string& scale, const std::string& zp,
                 float* s, int* z) {
  const Tensor* st = ctx.Constant(scale);
  if (!st || st->dtype != DType::kFloat32 || st->numel() != 1) return false;
  *s = st->ptr<float>()[0];
  *z = 0;
  if (zp.empty()) return true;
  const Tensor* zt = ctx.Constant(zp);
  if (!zt || zt->dtype != DType::kUint8 || zt->numel() != 1) return false;
  *z = zt->ptr<uint8_t>()[0];
  return true;
}

// The same of a QuantizeLinear's or DequantizeLinear's inputs 1 and 2.
bool UintScalarParams(const FusionContext& ctx, const Node& node, float* scale, int* zp) {
  if (node.inputs.size() < 2) return false;
  return UintScalars(ctx, node.inputs[1], node.inputs.size() > 2 ? node.inputs[2] : "", scale, zp);
}

// A QuantizeLinear to uint8 of the spec's plain arithmetic: none of the later opsets' attributes
// that change what it computes (output_dtype, block_size, precision) set.
bool PlainQuantize(const Node& node) {
  return Is(node, "QuantizeLinear") && !node.attr("output_dtype") && !node.attr("block_size") &&
         !node.attr("precision");
}

// A QDQConv that quantizes its output (ProposeQuantizedOutput): its y_scale and y_zp at 8, 9.
bool WritesUint8(const Node& node) {
  return node.domain == "com.webnx" && node.op_type == "QDQConv" && node.inputs.size() == 10 &&
         !node.inputs[9].empty();
}

// DequantizeLinear of constants per tensor or along `channel_axis` (one scale per output
// channel, `channels` of them): its node.
int DequantizedConstant(const FusionContext& ctx, const std::string& value, int64_t channels,
                        int64_t channel_axis) {
  const int dq = ctx.Producer(value);
  if (dq < 0 || !Is(ctx.node(dq), "DequantizeLinear") || ctx.OnlyReader(value) < 0) return -1;
  const Node& node = ctx.node(dq);
  const Tensor* data = ctx.Constant(node.inputs[0]);
  const Tensor* scale = node.inputs.size() > 1 ? ctx.Constant(node.inputs[1]) : nullptr;
  if (!data || !scale || scale->dtype != DType::kFloat32) return -1;
  const Attribute* axis_attr = node.attr("axis");
  const int64_t rank = static_cast<int64_t>(data->shape.size());
  int64_t axis = axis_attr ? axis_attr->i : 1;  // the spec's default
  if (axis < 0) axis += rank;
  const bool per_tensor = scale->numel() == 1 && scale->shape.size() <= 1;
  const bool per_channel = scale->shape == Shape{channels} && axis == channel_axis && axis < rank &&
                           data->shape[axis] == channels;
  if (!per_tensor && !per_channel) return -1;
  if (node.inputs.size() > 2 && !node.inputs[2].empty() && !ctx.Constant(node.inputs[2])) return -1;
  return node.attr("block_size") ? -1 : dq;
}

// Input i of `node` is absent or a constant of zeros.
bool ZeroOrAbsent(const FusionContext& ctx, const Node& node, size_t i) {
  if (node.inputs.size() <= i || node.inputs[i].empty()) return true;
  const Tensor* t = ctx.Constant(node.inputs[i]);
  if (!t) return false;
  const auto* bytes = static_cast<const uint8_t*>(t->data);
  return std::all_of(bytes, bytes + t->nbytes(), [](uint8_t b) { return b == 0; });
}

// `value` = DequantizeLinear(QuantizeLinear(x)) with one uint8 scale and zero point, given by
// name in both: the DequantizeLinear's node (its scale and zero point inputs), x in *x.
int QuantizedActivation(const FusionContext& ctx, const std::string& value, std::string* x) {
  const int dq = ctx.Producer(value);
  if (dq < 0 || !Is(ctx.node(dq), "DequantizeLinear")) return -1;
  const int q = ctx.Producer(ctx.node(dq).inputs[0]);
  float s_dq = 0, s_q = 0;
  int z_dq = 0, z_q = 0;
  if (q < 0 || !UintScalarParams(ctx, ctx.node(dq), &s_dq, &z_dq)) return -1;
  const Node& qn = ctx.node(q);
  if (WritesUint8(qn)) {  // 8-bit already, quantized so: the product reads them as they are
    if (!UintScalars(ctx, qn.inputs[8], qn.inputs[9], &s_q, &z_q) || s_dq != s_q || z_dq != z_q)
      return -1;
    *x = ctx.node(dq).inputs[0];
    return dq;
  }
  if (!PlainQuantize(qn) || !UintScalarParams(ctx, qn, &s_q, &z_q) || s_dq != s_q || z_dq != z_q ||
      qn.inputs.size() < 3 || qn.inputs[2].empty()) {
    return -1;  // a Q without a zero point makes uint8 only by default: named ones only
  }
  *x = qn.inputs[0];
  return dq;
}

// `value`'s contents when an initializer or a Constant node's tensor holds it (Constant nodes
// fold into initializers only after the first fusions).
const Tensor* Known(const FusionContext& ctx, const std::string& value) {
  if (const Tensor* t = ctx.Constant(value)) return t;
  const int p = value.empty() ? -1 : ctx.Producer(value);
  const Attribute* a = p >= 0 && Is(ctx.node(p), "Constant") ? ctx.node(p).attr("value") : nullptr;
  return a && a->type == Attribute::Type::kTensor ? &a->t : nullptr;
}

// `node` is a Relu or a Clip of known float32 bounds reading `value`: its bounds.
bool ClampOf(const FusionContext& ctx, int index, const std::string& value, float* lo, float* hi) {
  const Node& node = ctx.node(index);
  if (node.inputs.empty() || node.inputs[0] != value || node.outputs.size() != 1) return false;
  if (Is(node, "Relu")) {
    *lo = 0.f;
    return true;
  }
  if (!Is(node, "Clip")) return false;
  if (ctx.since_version(index) < 11) {
    const Attribute* min = node.attr("min");
    const Attribute* max = node.attr("max");
    *lo = min ? min->f : std::numeric_limits<float>::lowest();  // the spec's defaults
    *hi = max ? max->f : std::numeric_limits<float>::max();
    return !std::isnan(*lo) && !std::isnan(*hi);
  }
  for (size_t i = 1; i < node.inputs.size() && i < 3; ++i) {
    if (node.inputs[i].empty()) continue;
    const Tensor* t = Known(ctx, node.inputs[i]);
    if (!t || t->dtype != DType::kFloat32 || t->numel() != 1 || std::isnan(t->ptr<float>()[0]))
      return false;
    (i == 1 ? *lo : *hi) = t->ptr<float>()[0];
  }
  return true;
}

// A bias of `channels` values, or one for all.
bool OnePerChannel(const Tensor* b, int64_t channels) {
  return b->shape == Shape{channels} || (b->numel() == 1 && b->shape.size() <= 1);
}

// Input 2 of `node`, the bias: absent, a float constant, or DequantizeLinear of an int32
// constant (zero point absent or zeros), one value per channel or one for all; the
// DequantizeLinear joins the replaced nodes.
bool QdqBias(const FusionContext& ctx, const Node& node, int64_t channels, FusedNode* fused,
             std::string* bias, std::string* bias_scale) {
  if (node.inputs.size() < 3 || node.inputs[2].empty()) return true;
  const int dq = DequantizedConstant(ctx, node.inputs[2], channels, 0);
  if (dq < 0) {
    const Tensor* b = ctx.Constant(node.inputs[2]);
    *bias = node.inputs[2];
    return b && b->dtype == DType::kFloat32 && OnePerChannel(b, channels);
  }
  const Tensor* b = ctx.Constant(ctx.node(dq).inputs[0]);
  if (b->dtype != DType::kInt32 || !OnePerChannel(b, channels) ||
      !ZeroOrAbsent(ctx, ctx.node(dq), 2)) {
    return false;
  }
  *bias = ctx.node(dq).inputs[0];
  *bias_scale = ctx.node(dq).inputs[1];
  fused->replaced.push_back(dq);
  return true;
}

// What a QDQ product reads: x, its DequantizeLinear, the weights' one, the bias and its scale.
struct QdqOperands {
  std::string x;
  int dq_x = -1, dq_w = -1;
  std::string bias, bias_scale;
};

// The com.webnx `op_type` replacing `node`: (x, x_scale, x_zp, W, W_scale, W_zp, bias,
// bias_scale), the optional ones at the end dropped when absent.
void FillQdqNode(const FusionContext& ctx, const Node& node, const char* op_type,
                 const QdqOperands& in, FusedNode* fused) {
  const Node& dqx = ctx.node(in.dq_x);
  const Node& wn = ctx.node(in.dq_w);
  fused->node.name = node.name;
  fused->node.domain = "com.webnx";
  fused->node.op_type = op_type;
  fused->node.inputs = {in.x,         dqx.inputs[1], dqx.inputs[2],
                        wn.inputs[0], wn.inputs[1],  wn.inputs.size() > 2 ? wn.inputs[2] : "",
                        in.bias,      in.bias_scale};
  while (fused->node.inputs.back().empty()) fused->node.inputs.pop_back();
  fused->node.outputs = {node.outputs[0]};
  fused->since_version = 1;
}

// Input 0 of `node` DequantizeLinear(QuantizeLinear(x)) and input 1 DequantizeLinear of 8-bit
// constants (*w): their nodes into *in.
bool QdqInputs(const FusionContext& ctx, const Node& node, QdqOperands* in, const Tensor** w) {
  in->dq_x = node.inputs.size() < 2 ? -1 : QuantizedActivation(ctx, node.inputs[0], &in->x);
  if (in->dq_x < 0) return false;
  in->dq_w = ctx.Producer(node.inputs[1]);
  const bool has_data = in->dq_w >= 0 && !ctx.node(in->dq_w).inputs.empty();
  *w = has_data ? ctx.Constant(ctx.node(in->dq_w).inputs[0]) : nullptr;
  return EightBit(*w);
}

}  // namespace

bool ProposeQdqConv(const FusionContext& ctx, FusedNode* fused) {
  const Node& conv = ctx.node(ctx.node_index());
  QdqOperands in;
  const Tensor* w = nullptr;
  if (!QdqInputs(ctx, conv, &in, &w) || w->shape.size() < 3 ||
      DequantizedConstant(ctx, conv.inputs[1], w->shape[0], 0) != in.dq_w) {
    return false;
  }
  fused->replaced = {ctx.node_index(), in.dq_w};
  if (!QdqBias(ctx, conv, w->shape[0], fused, &in.bias, &in.bias_scale)) return false;
  FillQdqNode(ctx, conv, "QDQConv", in, fused);
  fused->node.attrs = conv.attrs;
  return true;
}

bool ProposeQuantizedOutput(const FusionContext& ctx, FusedNode* fused) {
  const Node& conv = ctx.node(ctx.node_index());
  if (conv.inputs.size() > 8 || conv.outputs.size() != 1) return false;
  fused->replaced = {ctx.node_index()};
  float lo = -INFINITY, hi = INFINITY;
  std::string value = conv.outputs[0];
  int next = ctx.OnlyReader(value);
  if (next >= 0 && ClampOf(ctx, next, value, &lo, &hi)) {
    fused->replaced.push_back(next);
    value = ctx.node(next).outputs[0];
    next = ctx.OnlyReader(value);
  }
  float scale = 0;
  int zero_point = 0;
  if (next < 0) return false;
  const Node& q = ctx.node(next);
  if (!PlainQuantize(q) || q.inputs[0] != value || q.inputs.size() < 3 || q.inputs[2].empty() ||
      !UintScalarParams(ctx, q, &scale, &zero_point))
    return false;
  fused->replaced.push_back(next);
  fused->node = conv;
  fused->node.inputs.resize(8);
  fused->node.inputs.push_back(q.inputs[1]);
  fused->node.inputs.push_back(q.inputs[2]);
  Attribute bound;
  bound.type = Attribute::Type::kFloat;
  if (lo > -INFINITY) bound.f = lo, fused->node.attrs["clip_min"] = bound;
  if (hi < INFINITY) bound.f = hi, fused->node.attrs["clip_max"] = bound;
  fused->node.outputs = {q.outputs[0]};
  fused->since_version = 1;
  return true;
}

bool ProposeQdqMatMul(const FusionContext& ctx, FusedNode* fused) {
  const Node& node = ctx.node(ctx.node_index());
  bool trans_b = false;
  if (Is(node, "Gemm")) {
    const Attribute* trans_a = node.attr("transA");
    const Attribute* alpha = node.attr("alpha");
    const Attribute* beta = node.attr("beta");
    const Attribute* transposed = node.attr("transB");
    if ((trans_a && trans_a->i != 0) || (alpha && alpha->f != 1.f) || (beta && beta->f != 1.f)) {
      return false;
    }
    trans_b = transposed && transposed->i != 0;
  }
  QdqOperands in;
  const Tensor* w = nullptr;
  if (!QdqInputs(ctx, node, &in, &w) || w->shape.size() != 2) return false;
  const int64_t column_axis = trans_b ? 0 : 1, columns = w->shape[column_axis];
  if (DequantizedConstant(ctx, node.inputs[1], columns, column_axis) != in.dq_w) return false;
  fused->replaced = {ctx.node_index(), in.dq_w};
  if (!QdqBias(ctx, node, columns, fused, &in.bias, &in.bias_scale)) return false;
  FillQdqNode(ctx, node, "QDQMatMul", in, fused);
  if (trans_b) fused->node.attrs["transB"] = *node.attr("transB");
  return true;
}

bool ProposeDynamicConv(const FusionContext& ctx, FusedNode* fused) {
  const Node& conv = ctx.node(ctx.node_index());
  const Tensor* w = nullptr;
  if (!ConstantWeights(ctx, conv, &w) || w->shape.size() < 3) return false;
  if (!MatchChain(ctx, ctx.node_index(), w->shape.size(), 1, w->shape[0], fused)) return false;
  fused->node.domain = "com.webnx";
  fused->node.op_type = "DynamicQuantizeConv";
  fused->node.attrs = conv.attrs;
  fused->since_version = 1;
  return true;
}

bool ProposeDynamicMatMul(const FusionContext& ctx, FusedNode* fused) {
  const Node& matmul = ctx.node(ctx.node_index());
  const Tensor* w = nullptr;
  if (!ConstantWeights(ctx, matmul, &w) || w->shape.size() != 2) return false;
  // Scales and bias of rank 1 at most: more would broadcast the output to a higher rank.
  if (!MatchChain(ctx, ctx.node_index(), 1, 0, w->shape[1], fused)) return false;
  fused->node.domain = "com.microsoft";
  fused->node.op_type = "DynamicQuantizeMatMul";
  fused->since_version = 1;
  return true;
}

}  // namespace webnx::quant
