// 2-D max pooling of one plane with WASM SIMD128 along output columns: the plane is copied into
// -inf padding (ceil_mode windows that overhang the input included), then every output is a
// vector max over the window's taps. Strides 1 and 2, unit dilation, any kernel size.
#pragma once

#include <cstddef>

namespace webnx::simd {

struct Pool2DShape {
  int in_h, in_w, out_h, out_w;
  int kernel_h, kernel_w, stride_h, stride_w, pad_top, pad_left;
};

// Floats of scratch MaxPoolPlane needs; 0 when the shape is not one it handles.
size_t MaxPoolScratchFloats(const Pool2DShape& s);

// Fills a scratch for this shape with -inf. MaxPoolPlane writes only the input's rows into it,
// so one scratch serves every plane of the shape after this one call.
void MaxPoolInitScratch(const Pool2DShape& s, float* scratch);

// out[oy][ox] = max of in over the window (taps outside the input are ignored; NaN inputs are
// skipped like the scalar kernel's `v > best` does).
// `scratch` holds MaxPoolScratchFloats(s) floats initialised by MaxPoolInitScratch.
void MaxPoolPlane(const Pool2DShape& s, const float* in, float* out, float* scratch);

}  // namespace webnx::simd
