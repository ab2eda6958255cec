// 2-D and 3-D convs with constant weights on the SIMD GEMM microkernel: W packed per group as the
// GEMM's left matrix (its form, kernels/conv_weight_forms.h), the right matrix built a block of
// columns at a time into 8-column panels: the input itself for 1x1 convs (pointwise), its im2col
// otherwise (a 3-D conv's blocks lie within one output depth slice). Bias, a residual, a clamp
// and an activation are applied in the GEMM's epilogue.
#pragma once

#include <cstdint>

#include "core/kernel.h"
#include "kernels/conv_shape.h"
#include "kernels/simd/im2col.h"

namespace webnx::conv {

class PackedGemm {
 public:
  // `pointwise`: 1x1, stride 1, no padding (Path::kPointwise), else im2col.
  PackedGemm(const ConvShape& shape, bool pointwise);
  Status Plan(PlanContext& ctx);
  void Run(const RunContext& ctx, const RunArgs& args);
  bool pointwise() const { return pointwise_; }
  const Tensor& packed() const { return buffers_.weights; }  // read by PointwiseDepthwise

 private:
  void PlanTasks(int threads);
  int ColumnBlockStart(int64_t b) const;
  simd::Conv2DGeometry Geometry() const;

  const ConvShape& s_;
  const bool pointwise_;
  const int k_;  // the GEMM's depth: group_in * kernel_size
  // weights: per group, W packed as the GEMM's left matrix; scratch: per thread, one block of
  // the right matrix in 8-column panels.
  PlannedBuffers buffers_;
  int64_t panel_floats_ = 0;  // scratch floats per thread
  simd::Conv2DGeometry geometry_{};
  // 3-D im2col: the depth axis, output depth slices, and the output positions of one slice
  // (for 2-D and pointwise convs: one slice, the whole output plane).
  bool im2col_3d_ = false;
  simd::DepthWindow depth_{};
  int64_t depth_out_ = 1;
  int64_t slice_plane_ = 0;
  bool unpacked_rhs_ = false;  // 1x1: the GEMM reads the input in place
  int64_t col_blocks_ = 0;     // column blocks per image (tasks)
  int64_t row_chunks_ = 1;     // ... output-channel chunks (threads on small planes)
  int64_t chunk_rows_ = 0;     // ... rows per chunk, a multiple of 4
};

}  // namespace webnx::conv
