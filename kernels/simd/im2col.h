// Builds the column matrix of a 2-D (or 3-D) convolution directly in the packed 8-column panel
// layout the GEMM microkernel reads (kernels/simd/gemm.h): rows are (channel, ky, kx), columns
// output positions; taps in the padding read as zero.
#pragma once

namespace webnx::simd {

struct Conv2DGeometry {
  int channels, in_h, in_w, out_h, out_w;
  int kernel_h, kernel_w, stride_h, stride_w, pad_top, pad_left, dilation_h, dilation_w;
};

// Packs columns [first, first + count) (output positions, row-major over out_h x out_w) of the
// image `x` ([channels, in_h, in_w]) into PackedRhsSize(channels*kh*kw, count) floats.
void Im2ColPanels(const Conv2DGeometry& g, const float* x, int first, int count, float* packed);

// A 3-D conv's depth axis.
struct DepthWindow {
  int in, kernel, stride, pad_begin, dilation;
};

// The same for a 3-D conv of `x` ([channels, depth.in, in_h, in_w]) at output depth `out_d`:
// rows are (channel, kd, ky, kx), columns output positions of that depth slice; taps in the
// depth padding read as zero.
void Im2ColPanels3D(const Conv2DGeometry& g, const DepthWindow& depth, int out_d, const float* x,
                    int first, int count, float* packed);

}  // namespace webnx::simd
