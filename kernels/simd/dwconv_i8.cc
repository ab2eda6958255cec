#include "kernels/simd/dwconv_i8.h"

#include <algorithm>
#include <cstring>

#include "kernels/simd/vec.h"

namespace webnx::simd {

DepthwiseI8Shape MakeDepthwiseI8Shape(const nn::WindowAxis& h, const nn::WindowAxis& w) {
  DepthwiseI8Shape s;
  s.h = h, s.w = w;
  // Rows: every padded row a tap reads. Columns: the last output's block of 8 read from the
  // farthest tap's phase offset.
  s.phase_rows = (h.out - 1) * h.stride + (h.kernel - 1) * h.dilation + 1;
  const int64_t blocks = (w.out + 7) / 8 * 8;
  s.phase_cols = blocks + (w.kernel - 1) * w.dilation / w.stride + 1;
  return s;
}

namespace {

// The columns [begin, end) of phase p that hold input columns: column j of phase p is input
// column j * stride + p - pad, inside [0, w_in) for these (of `cols` in all).
struct Inside {
  int64_t begin, end;
};
Inside InsideColumns(int64_t p, int64_t stride, int64_t pad, int64_t w_in, int64_t cols) {
  const int64_t first = p - pad;
  return {first >= 0 ? 0 : (-first + stride - 1) / stride,
          std::min(cols, (w_in - first + stride - 1) / stride)};
}

// One input row (w_in bytes) into the rows of phases 0 and 1 (stride 2, `cols` columns each,
// zeroed): column j of phase p is input column 2j + p - pad. Sixteen input bytes give both
// phases eight columns: the even bytes are phase 0's, the odd ones phase 1's.
void FillTwoPhases(const uint8_t* src, int64_t w_in, int64_t pad, int64_t cols, int flip,
                   int offset, int16_t* dst0, int16_t* dst1) {
  int64_t j0[2], j1[2];
  for (int p = 0; p < 2; ++p) {
    const Inside inside = InsideColumns(p, 2, pad, w_in, cols);
    j0[p] = inside.begin, j1[p] = inside.end;
  }
  const v128_t flip_v = wasm_i16x8_splat(static_cast<int16_t>(flip));
  const v128_t offset_v = wasm_i16x8_splat(static_cast<int16_t>(offset));
  const v128_t low_bytes = wasm_i16x8_splat(0xFF);
  const int64_t v0 = std::max(j0[0], j0[1]), v1 = std::min(j1[0], j1[1]);
  int64_t v = v0;  // [v0, v): both phases' columns from whole vectors, inside the row
  WEBNX_NO_UNROLL
  for (; v + 8 <= v1; v += 8) {
    const v128_t bytes = wasm_v128_load(src + 2 * v - pad);
    const v128_t even = wasm_v128_xor(wasm_v128_and(bytes, low_bytes), flip_v);
    const v128_t odd = wasm_v128_xor(wasm_u16x8_shr(bytes, 8), flip_v);
    wasm_v128_store(dst0 + v, wasm_i16x8_sub(even, offset_v));
    wasm_v128_store(dst1 + v, wasm_i16x8_sub(odd, offset_v));
  }
  int16_t* dst[2] = {dst0, dst1};
  for (int p = 0; p < 2; ++p) {
    WEBNX_PLAIN_LOOP
    for (int64_t j = j0[p]; j < j1[p]; ++j) {
      if (j == v0 && v > v0) j = v;  // the vectors' columns are done
      if (j >= j1[p]) break;
      dst[p][j] = static_cast<int16_t>((src[2 * j + p - pad] ^ flip) - offset);
    }
  }
}

}  // namespace

void FillPhasePlanes(const DepthwiseI8Shape& s, const uint8_t* plane, DType dtype,
                     int32_t zero_point, int16_t* planes) {
  // A byte b is (b ^ flip) - flip as int8 (flip 0x80) or uint8 (flip 0): one xor, one subtract.
  const int flip = dtype == DType::kInt8 ? 0x80 : 0;
  const int offset = flip + zero_point;
  const v128_t flip_v = wasm_i16x8_splat(static_cast<int16_t>(flip));
  const v128_t offset_v = wasm_i16x8_splat(static_cast<int16_t>(offset));
  const int64_t stride = s.w.stride, plane_size = s.phase_rows * s.phase_cols;
  std::memset(planes, 0, sizeof(int16_t) * s.PlanesSize());
  for (int64_t r = 0; r < s.phase_rows; ++r) {
    const int64_t ih = r - s.h.pad_begin;
    if (ih < 0 || ih >= s.h.in) continue;  // padding rows stay 0
    const uint8_t* src = plane + ih * s.w.in;
    if (stride == 2) {
      FillTwoPhases(src, s.w.in, s.w.pad_begin, s.phase_cols, flip, offset,
                    planes + r * s.phase_cols, planes + plane_size + r * s.phase_cols);
      continue;
    }
    for (int64_t p = 0; p < stride; ++p) {
      const int64_t first = p - s.w.pad_begin;
      const Inside inside = InsideColumns(p, stride, s.w.pad_begin, s.w.in, s.phase_cols);
      const int64_t j0 = inside.begin, j1 = inside.end;
      int16_t* dst = planes + p * plane_size + r * s.phase_cols;
      int64_t j = j0;
      if (stride == 1) {
        WEBNX_NO_UNROLL
        for (; j + 8 <= j1; j += 8) {
          const v128_t bytes = wasm_v128_xor(wasm_u16x8_load8x8(src + j + first), flip_v);
          wasm_v128_store(dst + j, wasm_i16x8_sub(bytes, offset_v));
        }
      }
      WEBNX_PLAIN_LOOP
      for (; j < j1; ++j) {
        dst[j] = static_cast<int16_t>((src[j * stride + first] ^ flip) - offset);
      }
    }
  }
}

namespace {

// Eight outputs from `at`: the sum over taps of the tap's eight values times its weight. kTaps
// taps (or `taps` when 0), their offsets from `at` and their weights as splat vectors.
template <int kTaps>
inline void EightOutputs(const int16_t* at, int taps, const int64_t* offset, const v128_t* weight,
                         v128_t* lo, v128_t* hi) {
  const int count = kTaps ? kTaps : taps;
  v128_t sum_lo = wasm_i32x4_splat(0), sum_hi = sum_lo;
  for (int t = 0; t < count; ++t) {
    const v128_t x = wasm_v128_load(at + offset[t]);
    sum_lo = wasm_i32x4_add(sum_lo, wasm_i32x4_extmul_low_i16x8(x, weight[t]));
    sum_hi = wasm_i32x4_add(sum_hi, wasm_i32x4_extmul_high_i16x8(x, weight[t]));
  }
  *lo = sum_lo, *hi = sum_hi;
}

template <int kTaps>
void OutputRows(const DepthwiseI8Shape& s, const int16_t* planes, int taps, const int64_t* offset,
                const v128_t* weight, int32_t* out) {
  for (int64_t oh = 0; oh < s.h.out; ++oh) {
    const int16_t* row = planes + oh * s.h.stride * s.phase_cols;
    int32_t* dst = out + oh * s.w.out;
    int64_t ow = 0;
    v128_t lo, hi;
    for (; ow + 8 <= s.w.out; ow += 8) {
      EightOutputs<kTaps>(row + ow, taps, offset, weight, &lo, &hi);
      wasm_v128_store(dst + ow, lo);
      wasm_v128_store(dst + ow + 4, hi);
    }
    if (ow == s.w.out) continue;
    EightOutputs<kTaps>(row + ow, taps, offset, weight, &lo, &hi);
    int32_t tile[8];
    wasm_v128_store(tile, lo);
    wasm_v128_store(tile + 4, hi);
    std::memcpy(dst + ow, tile, sizeof(int32_t) * (s.w.out - ow));
  }
}

}  // namespace

void DepthwiseI16(const DepthwiseI8Shape& s, const int16_t* planes, const int16_t* weights,
                  int32_t* out) {
  // Each tap's offset from an output row's first column (phase plane, row and column), and its
  // weight splat once for the whole plane.
  const int taps = static_cast<int>(s.h.kernel * s.w.kernel);
  int64_t offset[kMaxDepthwiseI8Taps];
  v128_t weight[kMaxDepthwiseI8Taps];
  for (int t = 0; t < taps; ++t) {
    const int64_t kh = t / s.w.kernel, padded = (t % s.w.kernel) * s.w.dilation;
    offset[t] = (padded % s.w.stride) * s.phase_rows * s.phase_cols +
                kh * s.h.dilation * s.phase_cols + padded / s.w.stride;
    weight[t] = wasm_i16x8_splat(weights[t]);
  }
  // 3 x 3 kernels, nearly all of them, with the tap loop unrolled.
  if (taps == 9) {
    OutputRows<9>(s, planes, taps, offset, weight, out);
  } else {
    OutputRows<0>(s, planes, taps, offset, weight, out);
  }
}

}  // namespace webnx::simd
