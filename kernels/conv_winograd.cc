#include "kernels/conv_winograd.h"

#include <algorithm>

#include "core/separate_function.h"
#include "kernels/conv_weight_forms.h"

namespace webnx::conv {

bool Winograd::Takes(const ConvShape& shape) {
  const nn::WindowAxis& ah = shape.axes[1];
  const nn::WindowAxis& aw = shape.axes[2];
  const bool unit_strides = ah.stride == 1 && aw.stride == 1;
  const bool unit_dilations = ah.dilation == 1 && aw.dilation == 1;
  return conv_forms::TakesWinograd(ah.kernel, aw.kernel, unit_strides, unit_dilations, shape.groups,
                                   shape.group_in, shape.group_out, ah.pad_begin, aw.pad_begin);
}

WEBNX_PLAN_TIME bool Winograd::ReadWeights(const PlanContext& ctx) {
  const nn::WindowAxis& ah = s_.axes[1];
  const nn::WindowAxis& aw = s_.axes[2];
  shape_ = simd::WinogradShape{static_cast<int>(s_.group_in),  static_cast<int>(s_.group_out),
                               static_cast<int>(ah.in),        static_cast<int>(aw.in),
                               static_cast<int>(ah.out),       static_cast<int>(aw.out),
                               static_cast<int>(ah.pad_begin), static_cast<int>(aw.pad_begin)};
  // A W only this conv reads was replaced at load, 9/16 of the form over it (ResNet18: 38 of
  // 67 MB); failing that (out of memory) the form is made here, or the im2col path taken.
  DerivedForm form;
  if (!ctx.Form(conv_forms::Winograd(shape_.in_channels, shape_.out_channels), &form).ok()) {
    return false;
  }
  buffers_.weights = form.head;
  buffers_.weights_tail = form.tail;
  const Tensor& head = buffers_.weights;
  const int64_t group_floats = static_cast<int64_t>(simd::WinogradGroupFloats(shape_));
  weights_ = simd::WinogradWeights{
      // a head alone ends in a group maybe short
      head.ptr<float>(), static_cast<int>((head.numel() + group_floats - 1) / group_floats),
      buffers_.weights_tail.ptr<float>()};
  return true;
}

WEBNX_PLAN_TIME Status Winograd::Plan(const PlanContext& ctx) {
  scratch_floats_ = static_cast<int64_t>(simd::WinogradScratchFloats(shape_));
  tiles_ = simd::WinogradTiles(shape_);
  blocks_ = (tiles_ + simd::kWinogradTilesPerBlock - 1) / simd::kWinogradTilesPerBlock;
  // Few tasks (small late-layer planes): split the output channels too.
  const nn::RowChunks chunks = nn::SplitRows(s_.group_out, s_.batch * blocks_, ctx.threads());
  row_chunks_ = chunks.count;
  chunk_rows_ = chunks.rows;
  return Tensor::AllocateUninitialized(DType::kFloat32, {scratch_floats_ * ctx.threads()},
                                       &buffers_.scratch);
}

// Tasks over (image, block of tiles, channel chunk): small planes have few blocks, so their
// output channels are split too (each chunk transforms the block's inputs itself).
void Winograd::Run(const RunContext& ctx, const RunArgs& args) {
  const float* x = args.x;
  const float* bias = args.bias;
  const float* addend = args.addend;
  float* y = args.y;
  const int64_t out_channels = s_.out_channels;
  ctx.ParallelFor(s_.batch * blocks_ * row_chunks_, [&](int64_t task, int slot) {
    const int64_t chunk = task % row_chunks_;
    const int64_t block = task / row_chunks_ % blocks_;
    const int64_t image = task / row_chunks_ / blocks_;
    const int row0 = static_cast<int>(chunk * chunk_rows_);
    const int rows = static_cast<int>(std::min<int64_t>(chunk_rows_, out_channels - row0));
    if (rows <= 0) return;
    const int first = static_cast<int>(block) * simd::kWinogradTilesPerBlock;
    simd::GemmEpilogue ep;
    ep.bias = bias;
    ep.min = s_.epilogue.clamp_lo;
    ep.max = s_.epilogue.clamp_hi;
    ep.addend = addend ? addend + image * out_channels * s_.out_plane : nullptr;
    simd::WinogradBlock(shape_, x + image * s_.in_channels * s_.in_plane, weights_, first,
                        std::min(simd::kWinogradTilesPerBlock, tiles_ - first), row0, rows, ep,
                        y + image * out_channels * s_.out_plane,
                        buffers_.scratch.ptr<float>() + slot * scratch_floats_);
  });
}

}  // namespace webnx::conv
