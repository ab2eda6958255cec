#include "kernels/simd/im2col.h"

#include "kernels/simd/gemm.h"

namespace webnx::simd {

void Im2ColPanels(const Conv2DGeometry& g, const float* x, int first, int count, float* packed) {
  const int plane = g.in_h * g.in_w;
  for (int j = 0; j < count; j += kGemmNr) {
    // Top-left input coordinate of each of the panel's output positions.
    int base_y[kGemmNr], base_x[kGemmNr];
    bool valid[kGemmNr];
    for (int t = 0; t < kGemmNr; ++t) {
      const int q = first + j + t;
      valid[t] = j + t < count;
      base_y[t] = valid[t] ? (q / g.out_w) * g.stride_h - g.pad_top : 0;
      base_x[t] = valid[t] ? (q % g.out_w) * g.stride_w - g.pad_left : 0;
    }
    for (int c = 0; c < g.channels; ++c) {
      const float* xc = x + static_cast<size_t>(c) * plane;
      for (int ky = 0; ky < g.kernel_h; ++ky) {
        for (int kx = 0; kx < g.kernel_w; ++kx) {
          for (int t = 0; t < kGemmNr; ++t) {
            const int iy = base_y[t] + ky * g.dilation_h;
            const int ix = base_x[t] + kx * g.dilation_w;
            const bool inside = valid[t] && iy >= 0 && iy < g.in_h && ix >= 0 && ix < g.in_w;
            packed[t] = inside ? xc[iy * g.in_w + ix] : 0.f;
          }
          packed += kGemmNr;
        }
      }
    }
  }
}

}  // namespace webnx::simd
