// The dynamically quantized chains onnxruntime's quantizer (and webnx's) writes, recognised at
// load (core/passes/fuse_chains.h) so that one kernel runs each:
//   DynamicQuantizeLinear(x) -> ConvInteger / MatMulInteger(x_q, W, x_zp, W_zp) -> Cast(float)
//     -> Mul(by Mul(x_scale, W_scale)) [-> Add(bias)]
// with W, W_zp, W_scale and the bias constants, per tensor or per output channel (column).
// The fused node reads x itself; the chain's float arithmetic is kept in order, so its results
// are the chain's, bitwise.
#pragma once

#include "core/passes/fuse_chains.h"

namespace webnx::quant {

// From the ConvInteger at ctx.node_index(): com.webnx DynamicQuantizeConv(x, W, W_scale, W_zp,
// bias) with the convolution's attributes.
bool ProposeDynamicConv(const FusionContext& ctx, FusedNode* fused);

// From the MatMulInteger at ctx.node_index(): com.microsoft DynamicQuantizeMatMul(x, W,
// W_scale, W_zp, bias).
bool ProposeDynamicMatMul(const FusionContext& ctx, FusedNode* fused);

// From a float Conv at ctx.node_index() whose input is DequantizeLinear(QuantizeLinear(x)) (one
// uint8 scale and zero point) and whose weights (and bias) are DequantizeLinear of constants
// (the QDQ format): com.webnx QDQConv(x, x_scale, x_zp, W, W_scale, W_zp, bias, bias_scale),
// the product in int8. Runs before constants fold, which would dequantize the weights.
bool ProposeQdqConv(const FusionContext& ctx, FusedNode* fused);

// From a QDQConv at ctx.node_index() whose float output goes, through a Relu or a Clip of
// constant bounds or directly, to a QuantizeLinear by one uint8 scale and zero point, read by
// nothing else: the QDQConv with that scale and zero point as inputs 8 and 9 and the clamp as
// attributes clip_min and clip_max, writing the QuantizeLinear's uint8 output itself. A
// QDQConv reading it through its DequantizeLinear then takes the 8-bit values as they are, and
// the float32 activation between the two is never stored.
bool ProposeQuantizedOutput(const FusionContext& ctx, FusedNode* fused);

// From a float MatMul (B 2-D) or Gemm (transA 0, alpha and beta 1) at ctx.node_index() whose A
// is DequantizeLinear(QuantizeLinear(x)) as QDQConv's input and whose B is DequantizeLinear of
// 8-bit constants, per tensor or per output column; Gemm's C absent, float32 per column, or
// DequantizeLinear of int32: com.webnx QDQMatMul(x, x_scale, x_zp, B, B_scale, B_zp, bias,
// bias_scale) with Gemm's transB, the product in int8.
bool ProposeQdqMatMul(const FusionContext& ctx, FusedNode* fused);

}  // namespace webnx::quant
