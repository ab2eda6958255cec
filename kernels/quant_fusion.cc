#include "kernels/quant_fusion.h"

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
bool ConstantWeights(const FusionContext& ctx, const Node& p, const Tensor** w) {
  *w = p.inputs.size() > 1 ? ctx.Constant(p.inputs[1]) : nullptr;
  if (!*w || ((*w)->dtype != DType::kInt8 && (*w)->dtype != DType::kUint8)) return false;
  return p.inputs.size() < 4 || p.inputs[3].empty() || ctx.Constant(p.inputs[3]);
}

}  // namespace

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
