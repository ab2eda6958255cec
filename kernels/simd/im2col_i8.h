// The columns operand of an integer convolution (kernels/simd/gemm_i8.h): one group's input
// channels unrolled over the kernel's taps (rows: channel x taps, columns: output positions) as
// 8-bit values, taps in the padding holding the input's zero point (padding then contributes
// nothing once the zero point is subtracted), ready for PackPanelsI16.
#pragma once

#include <cstdint>

#include "kernels/nn_common.h"

namespace webnx::simd {

// x: the group's first channel, `channels` planes of axes[0].in * axes[1].in * axes[2].in
// bytes (uint8 or int8: only moved); axes: depth, height, width. out: [channels * taps][outputs].
void Im2ColBytes(const uint8_t* x, int64_t channels, const nn::WindowAxis* axes, uint8_t fill,
                 uint8_t* out);

}  // namespace webnx::simd
