// 2-D depthwise convs with constant weights on the SIMD depthwise kernels: one input and one
// output channel per group. Bias, a clamp and an activation are applied as each plane is
// written. Reads W as given (a form only for the four-channel kernel, beside W).
#pragma once

#include <cstdint>

#include "core/kernel.h"
#include "kernels/conv_shape.h"
#include "kernels/simd/dwconv.h"
#include "kernels/simd/gemm.h"

namespace webnx::conv {

class Depthwise {
 public:
  // `weights`: W as given (constants outlive every plan).
  Depthwise(const ConvShape& shape, const float* weights) : s_(shape), weights_(weights) {}
  Status Plan(PlanContext& ctx);
  void Run(const RunContext& ctx, const RunArgs& args);

  // For a producer writing this conv's input itself (PointwiseDepthwise):
  // Whether this conv can read `channels` planes of `plane` pixels for `batch` images
  // interleaved by a producer (FuseConsumer): a depthwise conv planned for the four-channel
  // kernel, its weights and bias known when planned. (Wide stride-1 planes keep the row
  // kernel: measured on MobileNetV2, it beats the four-channel kernel by more than the fusion
  // saves.)
  bool TakesInterleavedInput(int64_t batch, int64_t channels, int64_t plane) const;
  // The four-channel kernel's scratch for thread `slot`: its padded, interleaved input first.
  float* BlockScratch(int slot) { return buffers_.scratch.ptr<float>() + slot * scratch_floats_; }
  // Where a producer writes the interleaved input of a block of four channels in that scratch.
  simd::InterleavedImage BlockInput(float* scratch) const;
  // Channels [c0, c0 + count) of one image (`out`: channel c0's plane) from the input already
  // in `scratch` (interleaved there, or written by a fused producer), then the activation
  // fused into this conv.
  void BlockOutputs(const float* bias, int c0, int count, float* scratch, float* out) const;
  // The bias copied when planned, or null.
  const float* constant_bias() const { return s_.bias.empty() ? nullptr : s_.bias.data(); }
  int64_t out_plane() const { return s_.out_plane; }

 private:
  static constexpr int kDepthwise4MaxWidth = 16;
  const ConvShape& s_;
  const float* weights_;
  simd::DepthwiseShape shape_{};
  bool four_ = false;  // four channels at a time, weights packed in buffers_
  // weights: W packed for the four-channel kernel; scratch: per thread, a zero-padded copy of
  // one plane (of four, interleaved, for the four-channel kernel).
  PlannedBuffers buffers_;
  int64_t scratch_floats_ = 0;
  int64_t planes_per_task_ = 1;  // consecutive planes per task
};

}  // namespace webnx::conv
