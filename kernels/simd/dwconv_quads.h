// Depthwise integer convolution on the relaxed dot product (kernels/simd/dot_i8.h), for kernels
// at most 4 taps wide: a kernel row's taps are one int32 lane's four bytes. The channel's plane
// is copied, 8-bit, into a plane padded with its zero point; for four outputs of a row, one load
// and one byte shuffle put each output's taps of a kernel row side by side, and one dot
// instruction multiplies and adds all of them. Zero points are applied after the product:
//   sum (x - zx)(w - zw) = sum x w - zw * sum x - zx * sum w + taps * zx * zw,
// the window sums of x coming from a second dot with ones, only when zw is not 0.
#pragma once

#include <cstdint>

#include "core/tensor.h"
#include "kernels/nn_common.h"
#include "kernels/simd/dot_i8.h"

namespace webnx::simd {

struct DepthwiseQuadsShape {
  nn::WindowAxis h, w;
  int64_t padded_rows = 0, padded_cols = 0;  // of the padded plane (bytes)
  int64_t PlaneBytes() const { return padded_rows * padded_cols; }
};

// Whether the kernel takes these axes: up to 4 taps wide, four outputs' taps within 16 bytes.
bool DepthwiseQuadsFits(const nn::WindowAxis& h, const nn::WindowAxis& w);
DepthwiseQuadsShape MakeDepthwiseQuadsShape(const nn::WindowAxis& h, const nn::WindowAxis& w);

// One channel: x (h.in x w.in bytes of `x_type`, zero point zx), weights (h.kernel x w.kernel
// bytes of `w_type`, zero point zw) -> out (h.out x w.out int32 sums). `padded`: PlaneBytes().
// `unsigned_x`: the engine's dot reads its second operand as uint8 (else int8).
void DepthwiseQuads(const DepthwiseQuadsShape& shape, const uint8_t* x, DType x_type, int32_t zx,
                    const uint8_t* weights, DType w_type, int32_t zw, bool unsigned_x,
                    uint8_t* padded, int32_t* out);

}  // namespace webnx::simd
