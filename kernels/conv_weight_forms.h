// The forms a 2-D conv reads constant weights W in, chosen from its attributes and W's shape
// alone (never an input shape), so that every plan of a session reads W the same way and W may
// be replaced by its form at load (core/constant_cache.h).
#pragma once

#include <cstdint>
#include <vector>

#include "core/kernel.h"

namespace webnx {
namespace conv_forms {

// The session's names for W packed per group as the GEMM's left matrix (PackLhs) and for its
// Winograd transform (WinogradPackWeights).
constexpr char kPackedLhs[] = "conv-gemm-lhs";
constexpr char kWinogradWeights[] = "conv-winograd-f2x2-3x3";

// W [groups * group_out][k / kernel taps]... packed as `groups` GEMM left matrices, group_out x k.
ConstantForm PackedLhs(int64_t groups, int64_t group_out, int k);
// W [out_channels][in_channels][3][3] transformed for Winograd F(2x2, 3x3).
ConstantForm Winograd(int in_channels, int out_channels);

// True for the convs that run Winograd F(2x2, 3x3): 3x3, stride 1, no dilation, one group, at
// least 16 input and output channels, at most 2 padding before each axis.
bool TakesWinograd(int64_t kernel_h, int64_t kernel_w, bool unit_strides, bool unit_dilations,
                   int64_t groups, int64_t group_in, int64_t group_out, int64_t pad_top,
                   int64_t pad_left);

// Declares the form of a constant 2-D float32 W that a conv reads on its GEMM paths (packed or
// Winograd). A conv with one input channel per group reads W as given on some planes and
// declares nothing.
void Declare(FormContext& ctx, std::vector<ConstantForm>* forms);

}  // namespace conv_forms
}  // namespace webnx
