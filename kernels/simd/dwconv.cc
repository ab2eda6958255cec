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

// The zero-padded copy of a plane the fixed-size kernels read: every output column up to the
// next multiple of 4 has all its taps inside a row, so the inner loops have no border cases.
// Stride 2 stores each padded row de-interleaved (even columns, then odd ones) so that every
// tap is one contiguous load, as for stride 1.
struct PaddedPlane {
  int rows;        // padded rows
  int cols;        // padded columns per row
  int half;        // stride 2: offset of the odd columns within a stored row
  int row_stride;  // floats per stored row
  int out_w4;      // output columns rounded up to a multiple of 4
};

PaddedPlane PaddedGeometry(const DepthwiseShape& s) {
  PaddedPlane p;
  p.out_w4 = (s.out_w + 3) / 4 * 4;
  p.rows = (s.out_h - 1) * s.stride_h + s.kernel_h;
  p.cols = (p.out_w4 - 1) * s.stride_w + s.kernel_w;
  p.half = (p.cols + 1) / 2;
  p.row_stride = s.stride_w == 2 ? 2 * p.half : p.cols;
  return p;
}

// Rows and columns of the input that land inside the padded plane.
struct Interior {
  int row_begin, row_end;  // padded rows holding input rows
  int width;               // input columns copied per row
};

Interior InteriorOf(const DepthwiseShape& s, const PaddedPlane& p) {
  Interior in;
  in.row_begin = std::min(s.pad_top, p.rows);
  in.row_end = std::min(s.pad_top + s.in_h, p.rows);
  in.width = std::max(0, std::min(s.in_w, p.cols - s.pad_left));
  return in;
}

// Even input columns to `evens`, odd ones to `odds` (both indexed by column / 2).
void SplitRow(const float* src, int first_col, int n, float* evens, float* odds) {
  int i = 0;
  if (n > 0 && first_col % 2 == 1) {
    odds[first_col / 2] = src[0];
    i = 1;
  }
  for (; i + 8 <= n; i += 8) {
    const f32x4 a = Load(src + i), b = Load(src + i + 4);
    const int half = (first_col + i) / 2;
    Store(evens + half, Evens(a, b));
    Store(odds + half, Odds(a, b));
  }
  for (; i + 2 <= n; i += 2) {  // first_col + i is even from here on
    evens[(first_col + i) / 2] = src[i];
    odds[(first_col + i) / 2] = src[i + 1];
  }
  if (i < n) evens[(first_col + i) / 2] = src[i];
}

// Writes the plane into the interior of the padded copy; the zero border stays as it was.
void FillInterior(const DepthwiseShape& s, const PaddedPlane& p, const float* in, float* padded) {
  const Interior box = InteriorOf(s, p);
  for (int r = box.row_begin; r < box.row_end; ++r) {
    const float* src = in + static_cast<size_t>(r - s.pad_top) * s.in_w;
    float* dst = padded + static_cast<size_t>(r) * p.row_stride;
    if (s.stride_w == 2) {
      SplitRow(src, s.pad_left, box.width, dst, dst + p.half);
    } else {
      CopyFloats(src, box.width, dst + s.pad_left);
    }
  }
}

// The 4 inputs of tap kx for outputs ox..ox+3 of a stored row.
template <int kStride>
inline f32x4 TapInputs(const float* row, int half, int ox, int kx) {
  if (kStride == 1) return Load(row + ox + kx);
  return Load(row + (kx % 2) * half + ox + kx / 2);
}

// kBlocks independent accumulators of 4 outputs each hide the add latency of the tap chain.
template <int kKernel, int kStride, int kBlocks>
inline void RowBlock(const float* const* rows, int half, const float* w, f32x4 bias, f32x4 lo,
                     f32x4 hi, int ox, float* dst) {
  f32x4 acc[kBlocks];
  for (int b = 0; b < kBlocks; ++b) acc[b] = bias;
  for (int r = 0; r < kKernel; ++r) {
    const float* row = rows[r];
    for (int kx = 0; kx < kKernel; ++kx) {
      const f32x4 wv = LoadSplat(w + r * kKernel + kx);
      for (int b = 0; b < kBlocks; ++b)
        acc[b] = MulAdd(acc[b], wv, TapInputs<kStride>(row, half, ox + 4 * b, kx));
    }
  }
  for (int b = 0; b < kBlocks; ++b) Store(dst + 4 * b, Clamp(acc[b], lo, hi));
}

// Square kernels of a fixed size with unit dilation, on the padded copy: output rows in blocks
// of 16 and 4 columns, no border special cases.
template <int kKernel, int kStride>
WEBNX_SEPARATE_FUNCTION void PlaneFixed(const DepthwiseShape& s, const float* in, const float* w,
                                        float bias, float* out, float lo, float hi,
                                        float* scratch) {
  const PaddedPlane p = PaddedGeometry(s);
  FillInterior(s, p, in, scratch);
  const f32x4 vbias = Splat(bias), vlo = Splat(lo), vhi = Splat(hi);
  const float* rows[kKernel];
  alignas(16) float tail[4];
  for (int oy = 0; oy < s.out_h; ++oy) {
    for (int r = 0; r < kKernel; ++r)
      rows[r] = scratch + static_cast<size_t>(oy * s.stride_h + r) * p.row_stride;
    float* orow = out + static_cast<size_t>(oy) * s.out_w;
    int ox = 0;
    for (; ox + 16 <= s.out_w; ox += 16) {
      RowBlock<kKernel, kStride, 4>(rows, p.half, w, vbias, vlo, vhi, ox, orow + ox);
    }
    for (; ox + 4 <= s.out_w; ox += 4) {
      RowBlock<kKernel, kStride, 1>(rows, p.half, w, vbias, vlo, vhi, ox, orow + ox);
    }
    if (ox < s.out_w) {  // the last 1-3 columns: compute 4 (the padding has room), keep those
      RowBlock<kKernel, kStride, 1>(rows, p.half, w, vbias, vlo, vhi, ox, tail);
      for (int i = 0; i < s.out_w - ox; ++i) orow[ox + i] = tail[i];
    }
  }
}

}  // namespace

WEBNX_SEPARATE_FUNCTION void DepthwisePlaneScalar(const DepthwiseShape& s, const float* in,
                                                  const float* w, float bias, float* out, float lo,
                                                  float hi) {
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
  return static_cast<size_t>(p.rows) * p.row_stride;
}

void DepthwiseInitScratch(const DepthwiseShape& s, float* scratch) {
  std::fill(scratch, scratch + DepthwiseScratchFloats(s), 0.f);
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
