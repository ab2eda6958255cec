// One conv as every strategy (kernels/conv_strategy.h) sees it: shapes, groups, window axes and
// bias, computed once by ConvKernel::Plan (kernels/conv.cc), and the epilogue the planner fuses
// into it afterwards. 1-D and 2-D inputs are described as 3-D with leading unit axes.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/epilogue.h"
#include "core/tensor.h"
#include "kernels/nn_common.h"
#include "kernels/simd/activation.h"

namespace webnx::conv {

constexpr size_t kMaxSpatialRank = 3;

struct ConvShape {
  bool has_bias = false;
  int64_t groups = 1;
  int64_t batch = 0;
  int64_t in_channels = 0, out_channels = 0;
  int64_t group_in = 0, group_out = 0;  // channels per group
  std::vector<nn::WindowAxis> axes;     // exactly 3: (depth, height, width)
  int64_t in_plane = 0, out_plane = 0;  // spatial sizes
  int64_t kernel_size = 0;              // taps per (output, input) channel pair
  bool skip_run = false;                // empty output
  std::vector<float> bias;              // constant bias, when there is one and a SIMD strategy runs
  // What the planner fuses into the conv after planning it (core/epilogue.h), applied after
  // the bias: a residual (passed as input 3), a clamp (Relu, Clip), a function (Sigmoid,
  // HardSigmoid, x * them; its kind a simd::ActivationKind).
  Epilogue epilogue;
};

// What a strategy allocates or reads when planned: W in the form it reads, and its scratch. One
// type for every strategy, made and destroyed out of line (conv_shape.cc): each strategy's own
// members would repeat that code in the .wasm.
struct PlannedBuffers {
  PlannedBuffers();
  PlannedBuffers(PlannedBuffers&& other);
  ~PlannedBuffers();
  Tensor weights;       // W in the strategy's form (packed or transformed), if it has one
  Tensor weights_tail;  // Winograd: the transformed weights' groups that do not fit over W
  Tensor scratch;       // per thread, or per image: see each strategy
};

// A run's tensors, as ConvKernel::Run passes them to the strategy.
struct RunArgs {
  const float* x;
  const float* w;       // W as given: read by the reference only
  const float* bias;    // B (its plan-time copy when there is one), or null
  const float* addend;  // the residual fused into the epilogue, or null
  float* y;
};

}  // namespace webnx::conv
