#include "kernels/simd/im2col_i8.h"

#include <algorithm>
#include <cstring>

#include "kernels/simd/vec.h"

namespace webnx::simd {
namespace {

// n bytes of `value`: the padding at a row's ends is a byte or two, where a memset call would
// cost more than the bytes.
inline void FillBytes(uint8_t* dst, uint8_t value, int64_t n) {
  if (n >= 64) {
    std::memset(dst, value, n);
    return;
  }
  WEBNX_PLAIN_LOOP
  for (int64_t i = 0; i < n; ++i) dst[i] = value;
}

// row[ow] = src[2 * ow] for ow in [begin, end): sixteen at a time from two loads while the
// loads stay before `src_end`.
void GatherEven(const uint8_t* src, const uint8_t* src_end, int64_t begin, int64_t end,
                uint8_t* row) {
  int64_t ow = begin;
  WEBNX_NO_UNROLL
  for (; ow + 16 <= end && src + 2 * ow + 32 <= src_end; ow += 16) {
    const v128_t a = wasm_v128_load(src + 2 * ow), b = wasm_v128_load(src + 2 * ow + 16);
    wasm_v128_store(row + ow, wasm_i8x16_shuffle(a, b, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22,
                                                 24, 26, 28, 30));
  }
  WEBNX_PLAIN_LOOP
  for (; ow < end; ++ow) row[ow] = src[2 * ow];
}

// Row (kd, kh, kw) of one channel plane (plane_bytes long): that tap over every output position.
void TapRow(const uint8_t* plane, int64_t plane_bytes, const nn::WindowAxis* axes, int64_t kd,
            int64_t kh, int64_t kw, uint8_t fill, uint8_t* row) {
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
        FillBytes(row, fill, aw.out);
        continue;
      }
      const int64_t base = (id * ah.in + ih) * aw.in + kw * aw.dilation - aw.pad_begin;
      FillBytes(row, fill, ow0);
      if (aw.stride == 1) {
        std::memcpy(row + ow0, plane + base + ow0, ow1 - ow0);
      } else if (aw.stride == 2) {
        GatherEven(plane + base, plane + plane_bytes, ow0, ow1, row);
      } else {
        WEBNX_PLAIN_LOOP
        for (int64_t ow = ow0; ow < ow1; ++ow) row[ow] = plane[base + ow * aw.stride];
      }
      FillBytes(row + ow1, fill, aw.out - ow1);
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
          TapRow(x + c * plane, plane, axes, kd, kh, kw, fill, out);
        }
      }
    }
  }
}

}  // namespace webnx::simd
