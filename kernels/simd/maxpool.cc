#include "kernels/simd/maxpool.h"

#include <algorithm>
#include <limits>

#include "kernels/simd/vec.h"

namespace webnx::simd {
namespace {

struct Padded {
  int rows, cols;
};

Padded Geometry(const Pool2DShape& s) {
  const int out_w4 = (s.out_w + 3) / 4 * 4;
  return Padded{(s.out_h - 1) * s.stride_h + s.kernel_h, out_w4 * s.stride_w + s.kernel_w + 4};
}

template <int kStride>
inline f32x4 TapInputs(const float* row, int ox, int kx) {
  if (kStride == 1) return Load(row + ox + kx);
  return Evens(Load(row + 2 * ox + kx), Load(row + 2 * ox + kx + 4));
}

// kBlocks output vectors at once: independent max chains hide the latency of each.
template <int kStride, int kBlocks>
inline void Block(const Pool2DShape& s, const Padded& p, const float* top, int ox, f32x4* best) {
  const f32x4 lowest = Splat(-std::numeric_limits<float>::infinity());
  for (int b = 0; b < kBlocks; ++b) best[b] = lowest;
  for (int ky = 0; ky < s.kernel_h; ++ky) {
    const float* row = top + static_cast<size_t>(ky) * p.cols;
    for (int kx = 0; kx < s.kernel_w; ++kx)
      for (int b = 0; b < kBlocks; ++b)
        best[b] = PMax(best[b], TapInputs<kStride>(row, ox + 4 * b, kx));
  }
}

// The three plane loops are kept apart: the zoo's max pools all take the 3x3 stride-2 one, and
// V8 recompiles just that (the three together were ~1,500 instructions: 15-25 ms of a compile
// thread during a ResNet, SqueezeNet or ShuffleNet first run).
template <int kStride>
WEBNX_SEPARATE_FUNCTION void Plane(const Pool2DShape& s, const Padded& p, const float* padded,
                                   float* out) {
  const int out_w4 = (s.out_w + 3) / 4 * 4;
  for (int oy = 0; oy < s.out_h; ++oy) {
    const float* top = padded + static_cast<size_t>(oy * s.stride_h) * p.cols;
    float* orow = out + static_cast<size_t>(oy) * s.out_w;
    int ox = 0;
    for (; ox + 16 <= s.out_w; ox += 16) {
      f32x4 best[4];
      Block<kStride, 4>(s, p, top, ox, best);
      for (int b = 0; b < 4; ++b) Store(orow + ox + 4 * b, best[b]);
    }
    for (; ox < out_w4; ox += 4) {
      f32x4 best[1];
      Block<kStride, 1>(s, p, top, ox, best);
      StoreFirst(orow + ox, best[0], s.out_w - ox);
    }
  }
}

// 3x3 windows at stride 2 (every max pool of the zoo): each output row's three input rows are
// reduced first, four columns at a time, and the window's columns then taken from those maxima
// with shuffles; a column maximum serves two outputs. 15 operations per four outputs where the
// general loop takes 36. The column maxima start from -inf like the general loop, so a NaN is
// skipped the same way (PMax keeps its first operand when the second is NaN).
WEBNX_SEPARATE_FUNCTION void Plane3x3Stride2(const Pool2DShape& s, const Padded& p,
                                             const float* padded, float* out) {
  const f32x4 lowest = Splat(-std::numeric_limits<float>::infinity());
  for (int oy = 0; oy < s.out_h; ++oy) {
    const float* r0 = padded + static_cast<size_t>(2 * oy) * p.cols;
    const float* r1 = r0 + p.cols;
    const float* r2 = r1 + p.cols;
    const auto column = [&](int c) {
      return PMax(PMax(PMax(lowest, Load(r0 + c)), Load(r1 + c)), Load(r2 + c));
    };
    float* orow = out + static_cast<size_t>(oy) * s.out_w;
    f32x4 left = column(0);  // input columns 2 * ox .. 2 * ox + 3
    for (int ox = 0; ox < s.out_w; ox += 4) {
      const f32x4 middle = column(2 * ox + 4), right = column(2 * ox + 8);
      const f32x4 evens = Evens(left, middle);  // columns 0, 2, 4, 6 of the window starts
      const f32x4 odds = Odds(left, middle);
      const f32x4 next = wasm_i32x4_shuffle(evens, right, 1, 2, 3, 4);  // 2, 4, 6, 8
      StoreFirst(orow + ox, PMax(PMax(evens, odds), next), s.out_w - ox);
      left = right;
    }
  }
}

}  // namespace

size_t MaxPoolScratchFloats(const Pool2DShape& s) {
  const bool strides = (s.stride_w == 1 || s.stride_w == 2) && s.stride_h >= 1;
  if (!strides || s.out_h <= 0 || s.out_w <= 0 || s.kernel_h <= 0 || s.kernel_w <= 0) return 0;
  const Padded p = Geometry(s);
  if (s.pad_left < 0 || s.pad_top < 0 || s.pad_left >= p.cols) return 0;
  return static_cast<size_t>(p.rows) * p.cols;
}

WEBNX_PLAN_TIME void MaxPoolInitScratch(const Pool2DShape& s, float* scratch) {
  std::fill(scratch, scratch + MaxPoolScratchFloats(s), -std::numeric_limits<float>::infinity());
}

void MaxPoolPlane(const Pool2DShape& s, const float* in, float* out, float* scratch) {
  const Padded p = Geometry(s);
  // Only the input's rows are written: the -inf border stays from MaxPoolInitScratch.
  const int copy_w = std::max(0, std::min(s.in_w, p.cols - s.pad_left));
  const int row_end = std::min(p.rows, s.pad_top + s.in_h);
  for (int r = s.pad_top; r < row_end; ++r) {
    const float* src = in + static_cast<size_t>(r - s.pad_top) * s.in_w;
    CopyFloats(src, copy_w, scratch + static_cast<size_t>(r) * p.cols + s.pad_left);
  }
  if (s.kernel_h == 3 && s.kernel_w == 3 && s.stride_h == 2 && s.stride_w == 2) {
    Plane3x3Stride2(s, p, scratch, out);
  } else if (s.stride_w == 1) {
    Plane<1>(s, p, scratch, out);
  } else {
    Plane<2>(s, p, scratch, out);
  }
}

}  // namespace webnx::simd
