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
                     f32x4 hi, int ox, float* dst) {
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
  for (int b = 0; b < kBlocks; ++b) Store(dst + 4 * b, Clamp(acc[b], lo, hi));
}

// Geometry of the zero-padded copy of a plane the fixed-size kernels read: every output column
// up to the next multiple of 4 has all its taps (and stride 2's extra lane) inside a row.
struct PaddedPlane {
  int rows, cols, out_w4;
};

PaddedPlane PaddedGeometry(const DepthwiseShape& s) {
  PaddedPlane p;
  p.out_w4 = (s.out_w + 3) / 4 * 4;
  p.rows = (s.out_h - 1) * s.stride_h + s.kernel_h;
  p.cols = p.out_w4 * s.stride_w + s.kernel_w + 4;
  return p;
}

// Copies the plane into `padded` with pad_top/pad_left zeros before it and zeros after.
void PadPlane(const DepthwiseShape& s, const PaddedPlane& p, const float* in, float* padded) {
  const int copy_w = std::max(0, std::min(s.in_w, p.cols - s.pad_left));
  for (int r = 0; r < p.rows; ++r) {
    float* dst = padded + static_cast<size_t>(r) * p.cols;
    const int iy = r - s.pad_top;
    if (iy < 0 || iy >= s.in_h) {
      std::fill(dst, dst + p.cols, 0.f);
      continue;
    }
    std::fill(dst, dst + s.pad_left, 0.f);
    std::copy(in + static_cast<size_t>(iy) * s.in_w, in + static_cast<size_t>(iy) * s.in_w + copy_w,
              dst + s.pad_left);
    std::fill(dst + s.pad_left + copy_w, dst + p.cols, 0.f);
  }
}

// Square kernels of a fixed size with unit dilation, on the padded copy: weights splatted once
// per plane, output rows in blocks of 16 and 4 columns, no border special cases.
template <int kKernel, int kStride>
void PlaneFixed(const DepthwiseShape& s, const float* in, const float* w, float bias, float* out,
                float lo, float hi, float* scratch) {
  const PaddedPlane p = PaddedGeometry(s);
  PadPlane(s, p, in, scratch);
  f32x4 wv[kKernel * kKernel];
  for (int i = 0; i < kKernel * kKernel; ++i) wv[i] = Splat(w[i]);
  const f32x4 vbias = Splat(bias), vlo = Splat(lo), vhi = Splat(hi);
  const float* rows[kKernel];
  alignas(16) float tail[4];
  for (int oy = 0; oy < s.out_h; ++oy) {
    for (int r = 0; r < kKernel; ++r)
      rows[r] = scratch + static_cast<size_t>(oy * s.stride_h + r) * p.cols;
    float* orow = out + static_cast<size_t>(oy) * s.out_w;
    int ox = 0;
    for (; ox + 16 <= s.out_w; ox += 16) {
      RowBlock<kKernel, kStride, 4>(rows, kKernel, wv, vbias, vlo, vhi, ox, orow + ox);
    }
    for (; ox + 4 <= s.out_w; ox += 4) {
      RowBlock<kKernel, kStride, 1>(rows, kKernel, wv, vbias, vlo, vhi, ox, orow + ox);
    }
    if (ox < s.out_w) {  // the last 1-3 columns: compute 4 (the padding has room), keep those
      RowBlock<kKernel, kStride, 1>(rows, kKernel, wv, vbias, vlo, vhi, ox, tail);
      std::copy(tail, tail + (s.out_w - ox), orow + ox);
    }
  }
}

}  // namespace

void DepthwisePlaneScalar(const DepthwiseShape& s, const float* in, const float* w, float bias,
                          float* out, float lo, float hi) {
  for (int oy = 0; oy < s.out_h; ++oy)
    for (int ox = 0; ox < s.out_w; ++ox)
      out[oy * s.out_w + ox] = ClampScalar(Pixel(s, in, w, bias, oy, ox), lo, hi);
}

static bool HasFixedKernel(const DepthwiseShape& s) {
  const bool square = s.dilation_h == 1 && s.dilation_w == 1 && s.kernel_h == s.kernel_w &&
                      s.stride_h == s.stride_w;
  return square && (s.kernel_w == 3 || s.kernel_w == 5) && (s.stride_w == 1 || s.stride_w == 2);
}

size_t DepthwiseScratchFloats(const DepthwiseShape& s) {
  if (!HasFixedKernel(s) || s.out_h <= 0 || s.out_w <= 0) return 0;
  const PaddedPlane p = PaddedGeometry(s);
  if (s.pad_left < 0 || s.pad_top < 0 || s.pad_left >= p.cols) return 0;
  return static_cast<size_t>(p.rows) * p.cols;
}

void DepthwisePlane(const DepthwiseShape& s, const float* in, const float* w, float bias,
                    float* out, float lo, float hi, float* scratch) {
  if (!scratch || DepthwiseScratchFloats(s) == 0)
    return DepthwisePlaneScalar(s, in, w, bias, out, lo, hi);
  const int k = s.kernel_w;
  if (k == 3 && s.stride_w == 1) return PlaneFixed<3, 1>(s, in, w, bias, out, lo, hi, scratch);
  if (k == 3) return PlaneFixed<3, 2>(s, in, w, bias, out, lo, hi, scratch);
  if (s.stride_w == 1) return PlaneFixed<5, 1>(s, in, w, bias, out, lo, hi, scratch);
  PlaneFixed<5, 2>(s, in, w, bias, out, lo, hi, scratch);
}

}  // namespace webnx::simd
