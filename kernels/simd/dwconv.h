// Depthwise convolution of one channel plane (NCHW): WASM SIMD128 along output columns for
// square 3x3 and 5x5 kernels with stride 1 and unit dilation (the large planes of every zoo
// model; dwconv4.h takes the rest), every other configuration by the scalar loop.
#pragma once

#include <cstddef>

namespace webnx::simd {

struct DepthwiseShape {
  int in_h, in_w, out_h, out_w;
  int kernel_h, kernel_w;
  int stride_h, stride_w;
  int pad_top, pad_left;
  int dilation_h, dilation_w;
};

// Floats of scratch DepthwisePlane needs for a zero-padded copy of the plane (0: the shape
// takes the scalar path).
size_t DepthwiseScratchFloats(const DepthwiseShape& s);

// Zeroes the padding of a scratch for this shape. DepthwisePlane writes only the interior, so
// one scratch serves every plane of the same shape after this one call.
void DepthwiseInitScratch(const DepthwiseShape& s, float* scratch);

// out[oy][ox] = clamp(bias + sum w[ky][kx] * in[oy*sh - pt + ky*dh][ox*sw - pl + kx*dw]),
// taps outside the input read as zero. `scratch` holds DepthwiseScratchFloats(s) floats,
// initialised by DepthwiseInitScratch for this shape.
void DepthwisePlane(const DepthwiseShape& s, const float* in, const float* w, float bias,
                    float* out, float lo, float hi, float* scratch);

// The same, scalar only: the reference the SIMD path is tested against.
void DepthwisePlaneScalar(const DepthwiseShape& s, const float* in, const float* w, float bias,
                          float* out, float lo, float hi);

}  // namespace webnx::simd
