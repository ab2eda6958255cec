// A 2-D stride-1 conv with few output channels, straight from X a row at a time. With one to
// three output channels the packed GEMM's im2col copies as many floats as the conv has
// multiply-adds (a decoder's last 8 -> 1 conv ran at ~2 GFLOP/s); here each tap is one vector
// load per four outputs. Each output is bias + the sum over input channels, kernel rows and
// kernel columns in that order, skipping taps outside X, whichever path computes it.
#pragma once

namespace webnx::simd {

struct ConvRowsShape {
  int in_channels, in_h, in_w, out_h, out_w;
  int kernel_h, kernel_w, pad_top, pad_left, dilation_h, dilation_w;
};

// Output row y of one output channel into out[0, out_w): x holds the image's in_channels planes
// (in_h x in_w), w the channel's weights [in_channels][kernel_h][kernel_w]. Writes
// clamp(bias + conv + addend[j], lo, hi); addend is that row of a residual, or null.
void ConvRow(const ConvRowsShape& s, const float* x, const float* w, float bias, int y,
             const float* addend, float lo, float hi, float* out);

}  // namespace webnx::simd
