#include "kernels/conv_transpose_reference.h"

#include <algorithm>

namespace webnx::conv_transpose {
namespace {

// The output offset within a channel's plane where input position `in_index` and kernel tap
// `tap` (both flat, row-major) land, or -1 when that is outside the output.
int64_t OutputOffset(const ConvTransposeShape& s, int64_t in_index, int64_t tap) {
  int64_t offset = 0, out_stride = 1;
  for (size_t a = s.axes.size(); a-- > 0;) {
    const Axis& axis = s.axes[a];
    const int64_t o = axis.OutputOf(in_index % axis.in, tap % axis.kernel);
    if (o < 0 || o >= axis.out) return -1;
    offset += o * out_stride;
    out_stride *= axis.out;
    in_index /= axis.in;
    tap /= axis.kernel;
  }
  return offset;
}

}  // namespace

void RunReference(const ConvTransposeShape& s, const float* x, const float* w, const float* bias,
                  float* y) {
  if (s.empty_output) return;
  for (int64_t n = 0; n < s.batch; ++n) {
    for (int64_t m = 0; m < s.out_channels; ++m) {
      float* plane = y + (n * s.out_channels + m) * s.out_plane;
      std::fill(plane, plane + s.out_plane, bias ? bias[m] : 0.f);
    }
  }
  for (int64_t n = 0; n < s.batch; ++n) {
    for (int64_t c = 0; c < s.in_channels; ++c) {
      const int64_t g = c / s.group_in;
      const float* x_plane = x + (n * s.in_channels + c) * s.in_plane;
      for (int64_t m = 0; m < s.group_out; ++m) {
        const float* kernel = w + (c * s.group_out + m) * s.kernel_size;
        float* y_plane = y + (n * s.out_channels + g * s.group_out + m) * s.out_plane;
        for (int64_t i = 0; i < s.in_plane; ++i) {
          for (int64_t t = 0; t < s.kernel_size; ++t) {
            const int64_t o = OutputOffset(s, i, t);
            if (o >= 0) y_plane[o] += x_plane[i] * kernel[t];
          }
        }
      }
    }
  }
}

}  // namespace webnx::conv_transpose
