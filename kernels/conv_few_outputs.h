// 2-D stride-1 convs of one group with one to three output channels (a decoder's or a
// segmentation head's last conv), constant W read as given: each output row straight from X
// (kernels/simd/conv_rows.h), no im2col. Bias, a residual, a clamp and a function are applied
// as each row is written.
#pragma once

#include <cstdint>

#include "core/kernel.h"
#include "kernels/conv_shape.h"
#include "kernels/simd/conv_rows.h"

namespace webnx::conv {

class FewOutputs {
 public:
  // Fewer output channels than the GEMM's tile has rows, a kernel wider than 1x1 (a pointwise
  // conv reads X in place already).
  static bool Takes(const ConvShape& shape);
  // The part of Takes known from W and the attributes, when a 2-D conv's W form is declared at
  // load (conv_forms::Declare keeps W as given for these).
  static bool TakesWeights(int64_t groups, int64_t out_channels, bool unit_strides, int64_t taps);
  // `weights`: W as given (constants outlive every plan).
  FewOutputs(const ConvShape& shape, const float* weights) : s_(shape), weights_(weights) {}
  Status Plan(const PlanContext& ctx);
  void Run(const RunContext& ctx, const RunArgs& args);

 private:
  const ConvShape& s_;
  const float* weights_;
  simd::ConvRowsShape rows_{};
  int64_t rows_per_task_ = 1;
};

}  // namespace webnx::conv
