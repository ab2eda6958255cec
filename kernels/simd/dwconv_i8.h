// Depthwise integer convolution (one input channel per output channel, 2-D): the channel's
// plane widened to int16 minus its zero point, zero-padded and split by column phase
// (column j of phase p holds padded column j * stride + p), so that every tap of a row of
// outputs reads contiguous values whatever the stride and dilation; each tap then adds
// widening int16 products (i32x4.extmul) to eight outputs at a time.
#pragma once

#include <cstdint>

#include "core/tensor.h"
#include "kernels/nn_common.h"

namespace webnx::simd {

// Kernels up to 8x8 taps (larger depthwise convs take the GEMM).
constexpr int kMaxDepthwiseI8Taps = 64;

struct DepthwiseI8Shape {
  nn::WindowAxis h, w;
  int64_t phase_rows = 0, phase_cols = 0;  // of each phase plane
  int64_t PlanesSize() const { return w.stride * phase_rows * phase_cols; }
};

// The phase planes' sizes for the axes.
DepthwiseI8Shape MakeDepthwiseI8Shape(const nn::WindowAxis& h, const nn::WindowAxis& w);

// One channel (`plane`: h.in x w.in bytes, uint8 or int8) minus `zero_point` into `planes`.
void FillPhasePlanes(const DepthwiseI8Shape& shape, const uint8_t* plane, DType dtype,
                     int32_t zero_point, int16_t* planes);

// out[oh][ow] = sum over taps of planes(tap) * weights[tap] (int16, taps h.kernel x w.kernel).
void DepthwiseI16(const DepthwiseI8Shape& shape, const int16_t* planes, const int16_t* weights,
                  int32_t* out);

}  // namespace webnx::simd
