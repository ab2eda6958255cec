#include "kernels/simd/dwconv.h"

#include <algorithm>

#include "kernels/simd/vec.h"

namespace webnx::simd {
namespace {

inline float ClampScalar(float v, float lo, float hi) {
  return std::min(std::max(v, lo), hi);
}

// One output pixel, skipping taps outside the input.
inline float Pixel(const DepthwiseShape& s, const float* in, const float* w, float bias, int oy,
                   int ox) {
  float acc = bias;
  for (int ky = 0; ky < s.kernel_h; ++ky) {
    const int iy = oy * s.stride_h - s.pad_top + ky * s.dilation_h;
    if (iy < 0 || iy >= s.in_h) continue;
    for (int kx = 0; kx < s.kernel_w; ++kx) {
      const int ix = ox * s.stride_w - s.pad_left + kx * s.dilation_w;
      if (ix < 0 || ix >= s.in_w) continue;
      acc += w[ky * s.kernel_w + kx] * in[iy * s.in_w + ix];
    }
  }
  return acc;
}

// Four outputs starting at ox, all taps inside the row in x. Stride 1: contiguous loads;
// stride 2: the even lanes of 8 loaded floats (the caller guarantees base + 7 is in the row).
template <int kStride>
inline f32x4 Vector4(const DepthwiseShape& s, const float* in, const float* w, f32x4 bias, int oy,
                     int ox, int ky0, int ky1) {
  f32x4 acc = bias;
  for (int ky = ky0; ky < ky1; ++ky) {
    const float* row = in + (oy * s.stride_h - s.pad_top + ky) * s.in_w + ox * kStride - s.pad_left;
    const float* wr = w + ky * s.kernel_w;
    for (int kx = 0; kx < s.kernel_w; ++kx) {
      f32x4 x = kStride == 1 ? Load(row + kx) : Evens(Load(row + kx), Load(row + kx + 4));
      acc = MulAdd(acc, LoadSplat(wr + kx), x);
    }
  }
  return acc;
}

template <int kStride>
void PlaneSimd(const DepthwiseShape& s, const float* in, const float* w, float bias, float* out,
               float lo, float hi) {
  // Output columns whose taps all fall inside the row.
  const int ox_lo = std::min(s.out_w, (s.pad_left + kStride - 1) / kStride);
  const int last_start = s.in_w - s.kernel_w + s.pad_left;  // largest ox*stride with all taps in
  int ox_hi = last_start < 0 ? 0 : last_start / kStride + 1;
  ox_hi = std::max(ox_lo, std::min(s.out_w, ox_hi));
  // Stride 2 reads one float past the last tap of lane 3: keep that inside the row too.
  const int vec_end = kStride == 1 ? ox_hi : ox_hi - 1;
  const f32x4 vbias = Splat(bias), vlo = Splat(lo), vhi = Splat(hi);
  for (int oy = 0; oy < s.out_h; ++oy) {
    const int iy0 = oy * s.stride_h - s.pad_top;
    const int ky0 = std::max(0, -iy0);
    const int ky1 = std::min(s.kernel_h, s.in_h - iy0);
    float* orow = out + oy * s.out_w;
    int ox = 0;
    for (; ox < ox_lo; ++ox) orow[ox] = ClampScalar(Pixel(s, in, w, bias, oy, ox), lo, hi);
    for (; ox + 4 <= vec_end; ox += 4) {
      Store(orow + ox, Clamp(Vector4<kStride>(s, in, w, vbias, oy, ox, ky0, ky1), vlo, vhi));
    }
    for (; ox < s.out_w; ++ox) orow[ox] = ClampScalar(Pixel(s, in, w, bias, oy, ox), lo, hi);
  }
}

}  // namespace

void DepthwisePlaneScalar(const DepthwiseShape& s, const float* in, const float* w, float bias,
                          float* out, float lo, float hi) {
  for (int oy = 0; oy < s.out_h; ++oy)
    for (int ox = 0; ox < s.out_w; ++ox)
      out[oy * s.out_w + ox] = ClampScalar(Pixel(s, in, w, bias, oy, ox), lo, hi);
}

void DepthwisePlane(const DepthwiseShape& s, const float* in, const float* w, float bias,
                    float* out, float lo, float hi) {
  if (s.dilation_h == 1 && s.dilation_w == 1 && s.stride_w == 1) {
    PlaneSimd<1>(s, in, w, bias, out, lo, hi);
  } else if (s.dilation_h == 1 && s.dilation_w == 1 && s.stride_w == 2) {
    PlaneSimd<2>(s, in, w, bias, out, lo, hi);
  } else {
    DepthwisePlaneScalar(s, in, w, bias, out, lo, hi);
  }
}

}  // namespace webnx::simd
