// The ways of computing a conv (kernels/conv_shape.h), each its own class:
//  - Reference (conv_reference.cc): the scalar paths, any rank, runtime weights;
//  - PackedGemm (conv_gemm.cc): 2-D, constant W packed as the SIMD GEMM's left matrix;
//  - Winograd (conv_winograd.cc): 2-D 3x3 stride 1, F(2x2, 3x3) on transformed constant W;
//  - Depthwise (conv_depthwise.cc): 2-D, one input and one output channel per group;
//  - PointwiseDepthwise (conv_pointwise_depthwise.cc): a pointwise PackedGemm and the depthwise
//    conv reading its output, fused (ConvKernel::FuseConsumer);
//  - FewOutputs (conv_few_outputs.cc): 2-D stride 1, one group, 1-3 output channels, from X's
//    rows without im2col.
// ChooseStrategy picks one when the conv is planned; ConvKernel::Run calls its
// Run(const RunContext&, const RunArgs&).
#pragma once

#include <variant>

#include "core/kernel.h"
#include "kernels/conv_depthwise.h"
#include "kernels/conv_few_outputs.h"
#include "kernels/conv_gemm.h"
#include "kernels/conv_pointwise_depthwise.h"
#include "kernels/conv_reference.h"
#include "kernels/conv_shape.h"
#include "kernels/conv_winograd.h"

namespace webnx::conv {

// One of the strategies, held by value: as subclasses of a virtual base each had its own
// destructors, vtable and type info, more than a kilobyte of .wasm (measured). Empty for a conv
// not planned, or with an empty output.
using Strategy = std::variant<std::monostate, Reference, PackedGemm, Winograd, Depthwise,
                              PointwiseDepthwise, FewOutputs>;

// Picks and plans the strategy of a conv with a non-empty output, from its shape and whether W is
// constant; fills shape->bias when a SIMD strategy runs.
Status ChooseStrategy(PlanContext& ctx, ConvShape& shape, Strategy* strategy);

}  // namespace webnx::conv
