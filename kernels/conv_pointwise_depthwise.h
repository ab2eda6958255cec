// A pointwise conv (MobileNet's expand) and the depthwise conv reading its output, fused
// (ConvKernel::FuseConsumer): both run per block of four channels, the GEMM writing straight
// into the depthwise kernel's interleaved, zero-padded input. The wide intermediate is never
// stored and never interleaved by a pass of its own.
#pragma once

#include <utility>

#include "core/kernel.h"
#include "kernels/conv_depthwise.h"
#include "kernels/conv_shape.h"

namespace webnx::conv {

class PointwiseDepthwise {
 public:
  // The buffers of the pointwise conv `shape` (one group, its epilogue applied to the
  // intermediate) whose W PackedGemm packed as `packed`: that W, and the input's tail columns'
  // panels.
  static Status PlanBuffers(const ConvShape& shape, const Tensor& packed, PlannedBuffers* buffers);
  // `dw`: the depthwise conv's strategy, which applies that conv's epilogue.
  PointwiseDepthwise(const ConvShape& shape, PlannedBuffers&& buffers, Depthwise& dw)
      : s_(shape), buffers_(std::move(buffers)), dw_(dw) {}
  void Run(const RunContext& ctx, const RunArgs& args);

 private:
  const ConvShape& s_;
  // weights: the pointwise W packed as the GEMM's left matrix; scratch: per image, the input's
  // last out_plane % 8 columns packed as a GEMM panel.
  PlannedBuffers buffers_;
  Depthwise& dw_;
};

}  // namespace webnx::conv
