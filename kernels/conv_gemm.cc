#include "kernels/conv_gemm.h"

#include <algorithm>

#include "core/separate_function.h"
#include "kernels/conv_weight_forms.h"
#include "kernels/epilogue_function.h"
#include "kernels/simd/gemm.h"

namespace webnx::conv {

PackedGemm::PackedGemm(const ConvShape& shape, bool pointwise)
    : s_(shape), pointwise_(pointwise), k_(static_cast<int>(shape.group_in * shape.kernel_size)) {}

WEBNX_PLAN_TIME Status PackedGemm::Plan(PlanContext& ctx) {
  DerivedForm packed;
  WEBNX_RETURN_IF_ERROR(ctx.Form(conv_forms::PackedLhs(s_.groups, s_.group_out, k_), &packed));
  buffers_.weights = packed.head;
  geometry_ = Geometry();
  const nn::WindowAxis& ad = s_.axes[0];
  im2col_3d_ = !pointwise_ && (ad.kernel != 1 || ad.out != 1 || ad.in != 1);
  depth_out_ = im2col_3d_ ? ad.out : 1;
  slice_plane_ = s_.out_plane / depth_out_;
  depth_ = simd::DepthWindow{static_cast<int>(ad.in), static_cast<int>(ad.kernel),
                             static_cast<int>(ad.stride), static_cast<int>(ad.pad_begin),
                             static_cast<int>(ad.dilation)};
  PlanTasks(ctx.threads());
  int block = 0;  // the widest column block
  for (int64_t b = 0; b < col_blocks_; ++b)
    block = std::max(block, ColumnBlockStart(b + 1) - ColumnBlockStart(b));
  panel_floats_ = static_cast<int64_t>(simd::PackedRhsSize(k_, block));
  return Tensor::AllocateUninitialized(DType::kFloat32, {panel_floats_ * ctx.threads()},
                                       &buffers_.scratch);
}

// The tasks: (image, group, output depth slice, column block, row chunk).
void PackedGemm::PlanTasks(int threads) {
  const int64_t images = s_.batch * s_.groups * depth_out_;
  unpacked_rhs_ = pointwise_ && simd::GemmPrefersUnpackedRhs(static_cast<int>(s_.group_out), k_);
  const int column_block = simd::GemmColumnBlock(k_);
  col_blocks_ = (slice_plane_ + column_block - 1) / column_block;
  if (threads > 1 && images * col_blocks_ < 8 * threads) {
    // Few tasks: as many column blocks as make their count a multiple of the threads, of
    // nearly equal widths, so that no thread waits for another's last block (MobileNetV2's
    // 28x28 1x1 convs had 5 blocks: 3 on one thread, 2 on the other; its 14x14 ones split
    // 196 columns 56/56/56/28).
    while ((images * col_blocks_) % threads != 0) ++col_blocks_;
  }
  // Few tasks otherwise (small late-layer planes): split each group's output channels too.
  const nn::RowChunks chunks = nn::SplitRows(s_.group_out, images * col_blocks_, threads);
  row_chunks_ = chunks.count;
  chunk_rows_ = chunks.rows;
}

// The first output column of column block `b` (b = col_blocks_: the end): blocks of nearly
// equal widths, each starting at a multiple of the GEMM's panel width.
int PackedGemm::ColumnBlockStart(int64_t b) const {
  if (b >= col_blocks_) return static_cast<int>(slice_plane_);
  return static_cast<int>(b * slice_plane_ / col_blocks_ / simd::kGemmNr * simd::kGemmNr);
}

simd::Conv2DGeometry PackedGemm::Geometry() const {
  const nn::WindowAxis& ah = s_.axes[1];
  const nn::WindowAxis& aw = s_.axes[2];
  simd::Conv2DGeometry g{};
  g.channels = static_cast<int>(s_.group_in);
  g.in_h = static_cast<int>(ah.in);
  g.in_w = static_cast<int>(aw.in);
  g.out_h = static_cast<int>(ah.out);
  g.out_w = static_cast<int>(aw.out);
  g.kernel_h = static_cast<int>(ah.kernel);
  g.kernel_w = static_cast<int>(aw.kernel);
  g.stride_h = static_cast<int>(ah.stride);
  g.stride_w = static_cast<int>(aw.stride);
  g.pad_top = static_cast<int>(ah.pad_begin);
  g.pad_left = static_cast<int>(aw.pad_begin);
  g.dilation_h = static_cast<int>(ah.dilation);
  g.dilation_w = static_cast<int>(aw.dilation);
  return g;
}

// Work is split into tasks over (image, group, depth slice, column block, row chunk); each task
// writes its own outputs with its own scratch.
void PackedGemm::Run(const RunContext& ctx, const RunArgs& args) {
  const float* x = args.x;
  const float* bias = args.bias;
  const float* addend = args.addend;
  float* y = args.y;
  const int k = k_;
  const int64_t images = s_.batch * s_.groups;
  const int n = static_cast<int>(s_.out_plane);
  const int64_t slices = depth_out_;
  const size_t per_group = simd::PackedLhsSize(static_cast<int>(s_.group_out), k);
  ctx.ParallelFor(images * slices * col_blocks_ * row_chunks_, [&](int64_t task, int slot) {
    const int64_t row_chunk = task % row_chunks_;
    const int64_t col_block = task / row_chunks_ % col_blocks_;
    const int64_t slice = task / row_chunks_ / col_blocks_ % slices;
    const int64_t image = task / row_chunks_ / col_blocks_ / slices;
    const int64_t nb = image / s_.groups, g = image % s_.groups;
    const int64_t row0 = row_chunk * chunk_rows_;
    const int rows = static_cast<int>(std::min(chunk_rows_, s_.group_out - row0));
    if (rows <= 0) return;
    const int j0 = ColumnBlockStart(col_block);
    const int cols = ColumnBlockStart(col_block + 1) - j0;
    if (cols <= 0) return;  // more blocks than panels of columns
    const float* xg = x + (nb * s_.in_channels + g * s_.group_in) * s_.in_plane;
    float* panels = buffers_.scratch.ptr<float>() + slot * panel_floats_;
    simd::GemmEpilogue ep;
    ep.bias = bias ? bias + g * s_.group_out + row0 : nullptr;
    ep.min = s_.epilogue.clamp_lo;
    ep.max = s_.epilogue.clamp_hi;
    ep.activation = ActivationOf(s_.epilogue.function);
    const float* packed_w = buffers_.weights.ptr<float>() + g * per_group + row0 * k;
    const int64_t out_offset =
        (nb * s_.out_channels + g * s_.group_out + row0) * s_.out_plane + slice * slice_plane_;
    float* yg = y + out_offset;
    ep.addend = addend ? addend + out_offset + j0 : nullptr;
    if (unpacked_rhs_) {
      simd::GemmUnpackedRhs(rows, cols, k, packed_w, xg + j0, n, yg + j0, n, ep, panels);
      return;
    }
    if (pointwise_) {
      simd::PackRhs(xg + j0, k, cols, n, panels);
    } else if (im2col_3d_) {
      simd::Im2ColPanels3D(geometry_, depth_, static_cast<int>(slice), xg, j0, cols, panels);
    } else {
      simd::Im2ColPanels(geometry_, xg, j0, cols, panels);
    }
    simd::GemmPacked(rows, cols, k, packed_w, panels, yg + j0, n, ep);
  });
}

}  // namespace webnx::conv
