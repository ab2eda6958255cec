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

template <int kStride>
void Plane(const Pool2DShape& s, const Padded& p, const float* padded, float* out) {
  const f32x4 lowest = Splat(-std::numeric_limits<float>::infinity());
  alignas(16) float tail[4];
  for (int oy = 0; oy < s.out_h; ++oy) {
    const float* top = padded + static_cast<size_t>(oy * s.stride_h) * p.cols;
    float* orow = out + static_cast<size_t>(oy) * s.out_w;
    for (int ox = 0; ox < s.out_w; ox += 4) {
      f32x4 best = lowest;
      for (int ky = 0; ky < s.kernel_h; ++ky) {
        const float* row = top + static_cast<size_t>(ky) * p.cols;
        for (int kx = 0; kx < s.kernel_w; ++kx) best = PMax(best, TapInputs<kStride>(row, ox, kx));
      }
      if (ox + 4 <= s.out_w) {
        Store(orow + ox, best);
      } else {
        Store(tail, best);
        std::copy(tail, tail + (s.out_w - ox), orow + ox);
      }
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

void MaxPoolPlane(const Pool2DShape& s, const float* in, float* out, float* scratch) {
  const Padded p = Geometry(s);
  const float lowest = -std::numeric_limits<float>::infinity();
  const int copy_w = std::max(0, std::min(s.in_w, p.cols - s.pad_left));
  for (int r = 0; r < p.rows; ++r) {
    float* dst = scratch + static_cast<size_t>(r) * p.cols;
    const int iy = r - s.pad_top;
    if (iy < 0 || iy >= s.in_h) {
      std::fill(dst, dst + p.cols, lowest);
      continue;
    }
    const float* src = in + static_cast<size_t>(iy) * s.in_w;
    std::fill(dst, dst + s.pad_left, lowest);
    std::copy(src, src + copy_w, dst + s.pad_left);
    std::fill(dst + s.pad_left + copy_w, dst + p.cols, lowest);
  }
  if (s.stride_w == 1) {
    Plane<1>(s, p, scratch, out);
  } else {
    Plane<2>(s, p, scratch, out);
  }
}

}  // namespace webnx::simd
