// The scatter half of the GEMM path (kernels/conv_transpose_gemm.h): the GEMM gives, per output
// channel and kernel tap, a row of products over a block of input positions; each product adds
// into the output position that the input position and tap land on. 1-D and 2-D go through
// a loop whose only per-row work is the row's output offset; higher ranks find it by dividing.
// Each innermost run of a row is a tight strided add.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/conv_transpose_shape.h"

namespace webnx::conv_transpose {

class Col2Im {
 public:
  void Plan(const ConvTransposeShape& shape);
  // `cols` holds, for `channels` output channels, kernel_size rows each of `width` floats: the
  // products of input positions [first, first + width) (flat over the input plane). Adds them
  // into `y`, those channels' output planes.
  void Add(const float* cols, int64_t channels, int64_t first, int64_t width, float* y) const;

 private:
  // For one tap of the innermost axis: input positions [lo, hi) land inside the output, input
  // position i at i * stride + offset.
  struct TapSpan {
    int64_t offset = 0;
    int64_t lo = 0, hi = 0;
  };
  void Add2D(const float* cols, int64_t channels, int64_t first, int64_t width, float* y) const;
  void AddND(const float* cols, int64_t channels, int64_t first, int64_t width, float* y) const;
  // The output offset of the outer axes' part of input line `line` and outer tap `outer_tap`
  // (flat over all axes but the innermost), or -1 when it is outside the output.
  int64_t OuterOffset(int64_t line, int64_t outer_tap) const;

  std::vector<Axis> outer_axes_;  // all but the innermost, outermost first (a unit one for 1-D)
  Axis inner_;
  std::vector<TapSpan> inner_spans_;  // per innermost tap
  int64_t kernel_size_ = 0;
  int64_t out_plane_ = 0;
};

}  // namespace webnx::conv_transpose
