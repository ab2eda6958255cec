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
struct PaddedPlane {
  int rows;    // padded rows
  int cols;    // padded columns per row
  int out_w4;  // output columns rounded up to a multiple of 4
};

PaddedPlane PaddedGeometry(const DepthwiseShape& s) {
  PaddedPlane p;
  p.out_w4 = (s.out_w + 3) / 4 * 4;
  p.rows = s.out_h - 1 + s.kernel_h;
  p.cols = p.out_w4 - 1 + s.kernel_w;
  return p;
}

// Writes the plane into the interior of the padded copy; the zero border stays as it was.
void FillInterior(const DepthwiseShape& s, const PaddedPlane& p, const float* in, float* padded) {
  const int row_begin = std::min(s.pad_top, p.rows);
  const int row_end = std::min(s.pad_top + s.in_h, p.rows);
  const int width = std::max(0, std::min(s.in_w, p.cols - s.pad_left));
  for (int r = row_begin; r < row_end; ++r) {
    CopyFloats(in + static_cast<size_t>(r - s.pad_top) * s.in_w, width,
               padded + static_cast<size_t>(r) * p.cols + s.pad_left);
  }
}

// kBlocks independent accumulators of 4 outputs each hide the add latency of the tap chain.
template <int kKernel, int kBlocks>
inline void RowBlock(const float* const* rows, const float* w, f32x4 bias, f32x4 lo, f32x4 hi,
                     int ox, float* dst) {
  f32x4 acc[kBlocks];
  for (int b = 0; b < kBlocks; ++b) acc[b] = bias;
  for (int r = 0; r < kKernel; ++r) {
    const float* row = rows[r];
    for (int kx = 0; kx < kKernel; ++kx) {
      const f32x4 wv = LoadSplat(w + r * kKernel + kx);
      for (int b = 0; b < kBlocks; ++b) acc[b] = MulAdd(acc[b], wv, Load(row + ox + 4 * b + kx));
    }
  }
  for (int b = 0; b < kBlocks; ++b) Store(dst + 4 * b, Clamp(acc[b], lo, hi));
}

// Two output rows at once, kBlocks blocks of 4 columns each: the kKernel + 1 input rows they
// span are loaded once for both (a middle row feeds both outputs), 27% fewer loads than a row at
// a time. Taps accumulate in the same order as RowBlock's, so results are bitwise the same.
template <int kKernel, int kBlocks>
inline void RowPairBlock(const float* const* rows, const float* w, f32x4 bias, f32x4 lo, f32x4 hi,
                         int ox, float* dst0, float* dst1) {
  f32x4 acc0[kBlocks], acc1[kBlocks];
  for (int b = 0; b < kBlocks; ++b) acc0[b] = acc1[b] = bias;
  for (int r = 0; r <= kKernel; ++r) {
    const float* row = rows[r] + ox;
    for (int kx = 0; kx < kKernel; ++kx) {
      if (r == 0) {
        const f32x4 w0 = LoadSplat(w + kx);
        for (int b = 0; b < kBlocks; ++b) acc0[b] = MulAdd(acc0[b], w0, Load(row + 4 * b + kx));
      } else if (r == kKernel) {
        const f32x4 w1 = LoadSplat(w + (r - 1) * kKernel + kx);
        for (int b = 0; b < kBlocks; ++b) acc1[b] = MulAdd(acc1[b], w1, Load(row + 4 * b + kx));
      } else {
        const f32x4 w0 = LoadSplat(w + r * kKernel + kx);
        const f32x4 w1 = LoadSplat(w + (r - 1) * kKernel + kx);
        for (int b = 0; b < kBlocks; ++b) {
          const f32x4 in = Load(row + 4 * b + kx);
          acc0[b] = MulAdd(acc0[b], w0, in);
          acc1[b] = MulAdd(acc1[b], w1, in);
        }
      }
    }
  }
  for (int b = 0; b < kBlocks; ++b) {
    Store(dst0 + 4 * b, Clamp(acc0[b], lo, hi));
    Store(dst1 + 4 * b, Clamp(acc1[b], lo, hi));
  }
}

// The last 1-3 columns of a row: 4 computed (the padding has room), those kept.
template <int kKernel>
inline void RowTail(const float* const* rows, const float* w, f32x4 bias, f32x4 lo, f32x4 hi,
                    int ox, int count, float* dst) {
  alignas(16) float tail[4];
  RowBlock<kKernel, 1>(rows, w, bias, lo, hi, ox, tail);
  for (int i = 0; i < count; ++i) dst[i] = tail[i];
}

// Square kernels of a fixed size, stride 1, unit dilation, on the padded copy: output rows in
// pairs, in blocks of 8 and 4 columns, no border special cases; an odd last row alone.
// (Measured in Node: pairs of 2 blocks beat single rows of 4 blocks by 10-16% on 56x56 and
// 28x28 planes and 30% on 14x14 5x5 ones; pairs of 3 or 4 blocks spill.)
template <int kKernel>
WEBNX_SEPARATE_FUNCTION void PlaneFixed(const DepthwiseShape& s, const float* in, const float* w,
                                        float bias, float* out, float lo, float hi,
                                        float* scratch) {
  const PaddedPlane p = PaddedGeometry(s);
  FillInterior(s, p, in, scratch);
  const f32x4 vbias = Splat(bias), vlo = Splat(lo), vhi = Splat(hi);
  const float* rows[kKernel + 1];
  int oy = 0;
  for (; oy + 2 <= s.out_h; oy += 2) {
    for (int r = 0; r <= kKernel; ++r) rows[r] = scratch + static_cast<size_t>(oy + r) * p.cols;
    float* o0 = out + static_cast<size_t>(oy) * s.out_w;
    float* o1 = o0 + s.out_w;
    int ox = 0;
    for (; ox + 8 <= s.out_w; ox += 8) {
      RowPairBlock<kKernel, 2>(rows, w, vbias, vlo, vhi, ox, o0 + ox, o1 + ox);
    }
    for (; ox + 4 <= s.out_w; ox += 4) {
      RowPairBlock<kKernel, 1>(rows, w, vbias, vlo, vhi, ox, o0 + ox, o1 + ox);
    }
    if (ox < s.out_w) {
      RowTail<kKernel>(rows, w, vbias, vlo, vhi, ox, s.out_w - ox, o0 + ox);
      RowTail<kKernel>(rows + 1, w, vbias, vlo, vhi, ox, s.out_w - ox, o1 + ox);
    }
  }
  if (oy < s.out_h) {
    for (int r = 0; r < kKernel; ++r) rows[r] = scratch + static_cast<size_t>(oy + r) * p.cols;
    float* orow = out + static_cast<size_t>(oy) * s.out_w;
    int ox = 0;
    for (; ox + 4 <= s.out_w; ox += 4) {
      RowBlock<kKernel, 1>(rows, w, vbias, vlo, vhi, ox, orow + ox);
    }
    if (ox < s.out_w) RowTail<kKernel>(rows, w, vbias, vlo, vhi, ox, s.out_w - ox, orow + ox);
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
  const bool unit = s.dilation_h == 1 && s.dilation_w == 1 && s.stride_h == 1 && s.stride_w == 1;
  return unit && s.kernel_h == s.kernel_w && (s.kernel_w == 3 || s.kernel_w == 5);
}

size_t DepthwiseScratchFloats(const DepthwiseShape& s) {
  if (!HasFixedKernel(s) || s.out_h <= 0 || s.out_w <= 0) return 0;
  const PaddedPlane p = PaddedGeometry(s);
  if (s.pad_left < 0 || s.pad_top < 0 || s.pad_left >= p.cols) return 0;
  return static_cast<size_t>(p.rows) * p.cols;
}

WEBNX_PLAN_TIME void DepthwiseInitScratch(const DepthwiseShape& s, float* scratch) {
  std::fill(scratch, scratch + DepthwiseScratchFloats(s), 0.f);
}

void DepthwisePlane(const DepthwiseShape& s, const float* in, const float* w, float bias,
                    float* out, float lo, float hi, float* scratch) {
  if (!scratch || DepthwiseScratchFloats(s) == 0)
    return DepthwisePlaneScalar(s, in, w, bias, out, lo, hi);
  if (s.kernel_w == 3) return PlaneFixed<3>(s, in, w, bias, out, lo, hi, scratch);
  PlaneFixed<5>(s, in, w, bias, out, lo, hi, scratch);
}

}  // namespace webnx::simd
