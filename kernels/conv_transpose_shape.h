// One ConvTranspose as its paths see it (kernels/conv_transpose.cc): channels, groups and, per
// spatial axis, where input position i and kernel tap k land in the output:
//   o = i * stride + k * dilation - pad_begin,
// kept only when 0 <= o < out. pad_begin may be negative (an output_shape larger than the full
// result, or SAME with a kernel shorter than the stride): the output then starts before it.
#pragma once

#include <cstdint>
#include <vector>

#include "core/kernel.h"

namespace webnx::conv_transpose {

struct Axis {
  int64_t in = 1;
  int64_t out = 1;
  int64_t kernel = 1;
  int64_t stride = 1;
  int64_t dilation = 1;
  int64_t pad_begin = 0;

  int64_t OutputOf(int64_t i, int64_t k) const { return i * stride + k * dilation - pad_begin; }
};

struct ConvTransposeShape {
  int64_t batch = 0;
  int64_t in_channels = 0, out_channels = 0;
  int64_t groups = 1;
  int64_t group_in = 0, group_out = 0;  // channels per group
  std::vector<Axis> axes;               // one per spatial axis, outermost first
  int64_t in_plane = 0, out_plane = 0;  // spatial sizes
  int64_t kernel_size = 0;              // taps per (input, output) channel pair
  bool has_bias = false;
  bool empty_output = false;  // nothing to compute
};

// Validates X [N, C, in...], W [C, M/group, k...], B [M] and the attributes, fills `shape` and
// sets the node's output. Every error names the node.
Status PlanShape(PlanContext& ctx, ConvTransposeShape* shape);

}  // namespace webnx::conv_transpose
