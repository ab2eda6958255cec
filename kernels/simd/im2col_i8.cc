#include "kernels/simd/im2col_i8.h"

#include <algorithm>
#include <cstring>

#include "kernels/simd/vec.h"

namespace webnx::simd {
namespace {

// Row (kd, kh, kw) of one channel plane: that tap over every output position.
void TapRow(const uint8_t* plane, const nn::WindowAxis* axes, int64_t kd, int64_t kh, int64_t kw,
            uint8_t fill, uint8_t* row) {
  const nn::WindowAxis &ad = axes[0], &ah = axes[1], &aw = axes[2];
  int64_t ow0 = 0, ow1 = 0;  // the outputs whose tap kw lands inside the row
  for (int64_t ow = 0; ow < aw.out; ++ow) {
    const int64_t iw = aw.start(ow) + kw * aw.dilation;
    if (iw < 0) ow0 = ow + 1;
    if (iw < aw.in) ow1 = ow + 1;
  }
  ow1 = std::max(ow0, ow1);
  for (int64_t od = 0; od < ad.out; ++od) {
    const int64_t id = ad.start(od) + kd * ad.dilation;
    for (int64_t oh = 0; oh < ah.out; ++oh, row += aw.out) {
      const int64_t ih = ah.start(oh) + kh * ah.dilation;
      if (id < 0 || id >= ad.in || ih < 0 || ih >= ah.in) {
        std::memset(row, fill, aw.out);
        continue;
      }
      const int64_t base = (id * ah.in + ih) * aw.in + kw * aw.dilation - aw.pad_begin;
      std::memset(row, fill, ow0);
      if (aw.stride == 1) {
        std::memcpy(row + ow0, plane + base + ow0, ow1 - ow0);
      } else {
        WEBNX_PLAIN_LOOP
        for (int64_t ow = ow0; ow < ow1; ++ow) row[ow] = plane[base + ow * aw.stride];
      }
      std::memset(row + ow1, fill, aw.out - ow1);
    }
  }
}

}  // namespace

void Im2ColBytes(const uint8_t* x, int64_t channels, const nn::WindowAxis* axes, uint8_t fill,
                 uint8_t* out) {
  const int64_t plane = axes[0].in * axes[1].in * axes[2].in;
  const int64_t outputs = axes[0].out * axes[1].out * axes[2].out;
  for (int64_t c = 0; c < channels; ++c) {
    for (int64_t kd = 0; kd < axes[0].kernel; ++kd) {
      for (int64_t kh = 0; kh < axes[1].kernel; ++kh) {
        for (int64_t kw = 0; kw < axes[2].kernel; ++kw, out += outputs) {
          TapRow(x + c * plane, axes, kd, kh, kw, fill, out);
        }
      }
    }
  }
}

}  // namespace webnx::simd
