// DynamicQuantizeLinear's arithmetic, shared by the op and the fused dynamically quantized
// convolutions and products: the range of x (always holding 0; NaN ignored, as std::min and
// std::max ignore it), and x quantized to uint8 by it.
#pragma once

#include <cstdint>

namespace webnx::simd {

// The lowest and highest value of x[0, n) and 0.
void RangeWithZero(const float* x, int64_t n, float* lo, float* hi);

// y[i] = saturate(round_half_even(x[i] / scale) + zero_point) in [0, 255]; NaN gives the zero
// point.
void QuantizeU8(const float* x, int64_t n, float scale, int32_t zero_point, uint8_t* y);

}  // namespace webnx::simd
