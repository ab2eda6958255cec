// The scalar conv paths: any rank, runtime weights, and the reference the SIMD ones are tested
// against.
//  - one input channel per group (depthwise, or a single-channel input): direct accumulation of
//    each kernel tap into output rows;
//  - 1x1, stride 1, no padding: the input already is the GEMM's right-hand matrix;
//  - otherwise im2col into a scratch buffer, a band of output rows at a time, then GEMM.
#pragma once

#include <cstdint>
#include <vector>

#include "core/kernel.h"
#include "kernels/conv_shape.h"

namespace webnx::conv {

// How the reference computes a group; the SIMD strategies follow it (ChooseStrategy).
enum class Path { kBiasOnly, kDirect, kPointwise, kIm2Col };

// For each tap kw of the innermost axis, the outputs [lo, hi) whose input lies inside [0, in).
struct TapSpan {
  int64_t offset = 0;  // input index = o * stride + offset
  int64_t lo = 0, hi = 0;
};

class Reference {
 public:
  Reference(const ConvShape& shape, Path path) : s_(shape), path_(path) {}
  // The tap spans, and for im2col the column buffer.
  Status Plan(const PlanContext& ctx);
  void Run(const RunContext& ctx, const RunArgs& args);
  int64_t col_rows() const { return col_rows_; }

 private:
  void RunIm2Col(const float* xg, const float* wg, float* yg);

  const ConvShape& s_;
  Path path_;
  std::vector<TapSpan> inner_spans_;  // per innermost-axis tap
  int64_t col_rows_ = 0;              // group_in * kernel_size
  int64_t band_rows_ = 0;             // output rows per im2col band
  PlannedBuffers buffers_;            // scratch: im2col's, col_rows_ x (band_rows_ * output width)
};

}  // namespace webnx::conv
