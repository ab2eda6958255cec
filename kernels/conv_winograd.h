// 3x3, stride 1, one group, enough channels for the transforms to pay: Winograd F(2x2, 3x3) on
// the SIMD kernels, with W transformed (its form, kernels/conv_weight_forms.h). Bias, a residual
// and a clamp are applied in the epilogue.
#pragma once

#include <cstdint>

#include "core/kernel.h"
#include "kernels/conv_shape.h"
#include "kernels/simd/winograd.h"

namespace webnx::conv {

class Winograd {
 public:
  explicit Winograd(const ConvShape& shape) : s_(shape) {}
  // Whether an im2col conv (Path::kIm2Col) takes Winograd (conv_forms::TakesWinograd).
  static bool Takes(const ConvShape& shape);
  // The transformed weights; false when they cannot be had (the GEMM then runs instead).
  bool ReadWeights(const PlanContext& ctx);
  // The tasks and their scratch, once the weights are read.
  Status Plan(const PlanContext& ctx);
  void Run(const RunContext& ctx, const RunArgs& args);

 private:
  const ConvShape& s_;
  simd::WinogradShape shape_{};
  // weights and weights_tail: the transformed weights (see simd::WinogradWeights); scratch: per
  // thread.
  PlannedBuffers buffers_;
  simd::WinogradWeights weights_{};  // in buffers_
  int64_t scratch_floats_ = 0;
  int tiles_ = 0;           // output tiles per image
  int64_t blocks_ = 0;      // tasks per image
  int64_t row_chunks_ = 1;  // ... output-channel chunks (threads on small planes)
  int64_t chunk_rows_ = 0;  // ... rows per chunk, a multiple of 4
};

}  // namespace webnx::conv
