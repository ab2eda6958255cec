#include "kernels/conv_pointwise_depthwise.h"

#include <algorithm>

#include "kernels/epilogue_function.h"
#include "kernels/simd/activation.h"
#include "kernels/simd/gemm.h"

namespace webnx::conv {

Status PointwiseDepthwise::PlanBuffers(const ConvShape& shape, const Tensor& packed,
                                       PlannedBuffers* buffers) {
  const int64_t tail = shape.out_plane % simd::kGemmNr ? shape.group_in * simd::kGemmNr : 0;
  WEBNX_RETURN_IF_ERROR(
      Tensor::AllocateUninitialized(DType::kFloat32, {shape.batch * tail}, &buffers->scratch));
  buffers->weights = packed;
  return Status::Ok();
}

// Tasks over (image, block of four channels), each computing the block's intermediate planes
// into the depthwise conv's scratch, then the depthwise outputs from there.
void PointwiseDepthwise::Run(const RunContext& ctx, const RunArgs& args) {
  const float* x = args.x;
  const float* bias = args.bias;
  float* y = args.y;
  const int k = static_cast<int>(s_.group_in);
  const int n = static_cast<int>(s_.out_plane);
  const int64_t in_image = s_.in_channels * s_.in_plane;
  const int64_t out_channels = s_.out_channels;
  const int64_t blocks = (out_channels + 3) / 4;
  const float* dw_bias = dw_.constant_bias();
  const int full = n / simd::kGemmNr * simd::kGemmNr;
  const size_t tail_floats = static_cast<size_t>(k) * simd::kGemmNr;
  for (int64_t image = 0; image < s_.batch && full < n; ++image) {
    simd::PackRhs(x + image * in_image + full, k, n - full, n,
                  buffers_.scratch.ptr<float>() + image * tail_floats);
  }
  const Epilogue& ep = s_.epilogue;
  ctx.ParallelFor(s_.batch * blocks, [&](int64_t task, int slot) {
    const int64_t image = task / blocks;
    const int c0 = static_cast<int>(task % blocks * 4);
    const int count = static_cast<int>(std::min<int64_t>(4, out_channels - c0));
    float* scratch = dw_.BlockScratch(slot);
    const simd::InterleavedImage mid = dw_.BlockInput(scratch);
    simd::GemmPanelInterleaved(n, k, buffers_.weights.ptr<float>() + static_cast<size_t>(c0) * k,
                               count, x + image * in_image, n, bias ? bias + c0 : nullptr,
                               ep.clamp_lo, ep.clamp_hi, mid,
                               buffers_.scratch.ptr<float>() + image * tail_floats);
    if (ep.HasFunction()) {
      for (int r = 0; r < mid.rows; ++r)
        simd::ApplyActivation(ActivationOf(ep.function), mid.origin + r * mid.row_stride,
                              mid.cols * 4);
    }
    dw_.BlockOutputs(dw_bias, c0, count, scratch,
                     y + (image * out_channels + c0) * dw_.out_plane());
  });
}

}  // namespace webnx::conv
