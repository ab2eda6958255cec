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

// Loads the 4 inputs of tap kx for outputs ox..ox+3 from `row` (already offset by -pad_left).
// Stride 2 takes the even lanes of 8 floats: the caller keeps row + 2*ox + kx + 7 in the row.
template <int kStride>
inline f32x4 TapInputs(const float* row, int ox, int kx) {
  if (kStride == 1) return Load(row + ox + kx);
  return Evens(Load(row + 2 * ox + kx), Load(row + 2 * ox + kx + 4));
}

// kBlocks independent accumulators of 4 outputs each hide the add latency of the tap chain.
template <int kKernel, int kStride, int kBlocks>
inline void RowBlock(const float* const* rows, int nrows, const f32x4* w, f32x4 bias, f32x4 lo,
                     f32x4 hi, int ox, float* orow) {
  f32x4 acc[kBlocks];
  for (int b = 0; b < kBlocks; ++b) acc[b] = bias;
  for (int r = 0; r < nrows; ++r) {
    const float* row = rows[r];
    const f32x4* wr = w + r * kKernel;
    for (int kx = 0; kx < kKernel; ++kx) {
      for (int b = 0; b < kBlocks; ++b)
        acc[b] = MulAdd(acc[b], wr[kx], TapInputs<kStride>(row, ox + 4 * b, kx));
    }
  }
  for (int b = 0; b < kBlocks; ++b) Store(orow + ox + 4 * b, Clamp(acc[b], lo, hi));
}

// Square kernels of a fixed size with unit dilation: weights splatted once per plane, rows of
// outputs in blocks of 16 and 4, scalar borders.
template <int kKernel, int kStride>
void PlaneFixed(const DepthwiseShape& s, const float* in, const float* w, float bias, float* out,
                float lo, float hi) {
  f32x4 wv[kKernel * kKernel];
  for (int i = 0; i < kKernel * kKernel; ++i) wv[i] = Splat(w[i]);
  // Output columns whose taps all fall inside the row.
  const int ox_lo = std::min(s.out_w, (s.pad_left + kStride - 1) / kStride);
  const int last_start = s.in_w - kKernel + s.pad_left;  // largest ox*stride with all taps in
  int ox_hi = last_start < 0 ? 0 : last_start / kStride + 1;
  ox_hi = std::max(ox_lo, std::min(s.out_w, ox_hi));
  // Stride 2 reads one float past the last tap of lane 3: keep that inside the row too.
  const int vec_end = kStride == 1 ? ox_hi : std::max(ox_lo, ox_hi - 1);
  const f32x4 vbias = Splat(bias), vlo = Splat(lo), vhi = Splat(hi);
  const float* rows[kKernel];
  for (int oy = 0; oy < s.out_h; ++oy) {
    const int iy0 = oy * s.stride_h - s.pad_top;
    const int ky0 = std::max(0, -iy0);
    const int ky1 = std::min(kKernel, s.in_h - iy0);
    const int nrows = std::max(0, ky1 - ky0);
    for (int r = 0; r < nrows; ++r) rows[r] = in + (iy0 + ky0 + r) * s.in_w - s.pad_left;
    const f32x4* wfirst = wv + ky0 * kKernel;
    float* orow = out + oy * s.out_w;
    int ox = 0;
    for (; ox < ox_lo; ++ox) orow[ox] = ClampScalar(Pixel(s, in, w, bias, oy, ox), lo, hi);
    for (; ox + 16 <= vec_end; ox += 16) {
      RowBlock<kKernel, kStride, 4>(rows, nrows, wfirst, vbias, vlo, vhi, ox, orow);
    }
    for (; ox + 4 <= vec_end; ox += 4) {
      RowBlock<kKernel, kStride, 1>(rows, nrows, wfirst, vbias, vlo, vhi, ox, orow);
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
  const bool unit = s.dilation_h == 1 && s.dilation_w == 1 && s.kernel_h == s.kernel_w;
  const int k = s.kernel_w;
  if (unit && k == 3 && s.stride_w == 1) return PlaneFixed<3, 1>(s, in, w, bias, out, lo, hi);
  if (unit && k == 3 && s.stride_w == 2) return PlaneFixed<3, 2>(s, in, w, bias, out, lo, hi);
  if (unit && k == 5 && s.stride_w == 1) return PlaneFixed<5, 1>(s, in, w, bias, out, lo, hi);
  if (unit && k == 5 && s.stride_w == 2) return PlaneFixed<5, 2>(s, in, w, bias, out, lo, hi);
  DepthwisePlaneScalar(s, in, w, bias, out, lo, hi);
}

}  // namespace webnx::simd
