#include "kernels/simd/dwconv_i8.h"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "kernels/simd/vec.h"

namespace webnx::simd {

DepthwiseI8Shape MakeDepthwiseI8Shape(const nn::WindowAxis& h, const nn::WindowAxis& w) {
  DepthwiseI8Shape s;
  s.h = h, s.w = w;
  // Columns: the last output's block of 8 read from the farthest tap's phase offset.
  const int64_t blocks = (w.out + 7) / 8 * 8;
  s.phase_cols = blocks + (w.kernel - 1) * w.dilation / w.stride + 1;
  // Column j of phase p is input column j * stride + p - pad: inside [0, w.in) for these.
  for (int64_t p = 0; p < w.stride; ++p) {
    const int64_t first = p - w.pad_begin;
    const int64_t begin = first >= 0 ? 0 : (-first + w.stride - 1) / w.stride;
    const int64_t end = (w.in - first + w.stride - 1) / w.stride;
    s.inside.push_back({std::min(begin, s.phase_cols), std::clamp(end, begin, s.phase_cols)});
  }
  // Pair rows: the first row of every pair of kernel rows an output row reads, oh * stride +
  // 2 * m * dilation, all multiples of their greatest common divisor.
  s.pair_step = std::gcd(h.stride, 2 * h.dilation);
  const int64_t last_first_row = (h.out - 1) * h.stride + ((h.kernel + 1) / 2 - 1) * 2 * h.dilation;
  s.pair_rows = last_first_row / s.pair_step + 1;
  s.plane_rows = last_first_row + h.dilation + 1;
  return s;
}

namespace {

// One input row into the rows of phases 0 and 1 (stride 2) over their inside columns: column j
// of phase p is input column 2j + p - pad. Sixteen input bytes give both phases eight
// columns: the even bytes are phase 0's, the odd ones phase 1's.
void FillTwoPhases(const uint8_t* src, const ColumnRange* inside, int64_t pad, int flip, int offset,
                   int16_t* dst0, int16_t* dst1) {
  const int64_t j0[2] = {inside[0].begin, inside[1].begin}, j1[2] = {inside[0].end, inside[1].end};
  const v128_t flip_v = wasm_i16x8_splat(static_cast<int16_t>(flip));
  const v128_t offset_v = wasm_i16x8_splat(static_cast<int16_t>(offset));
  const v128_t low_bytes = wasm_i16x8_splat(0xFF);
  const int64_t v0 = std::max(j0[0], j0[1]), v1 = std::min(j1[0], j1[1]);
  auto eight = [&](int64_t v) {  // both phases' columns [v, v + 8)
    const v128_t bytes = wasm_v128_load(src + 2 * v - pad);
    const v128_t even = wasm_v128_xor(wasm_v128_and(bytes, low_bytes), flip_v);
    const v128_t odd = wasm_v128_xor(wasm_u16x8_shr(bytes, 8), flip_v);
    wasm_v128_store(dst0 + v, wasm_i16x8_sub(even, offset_v));
    wasm_v128_store(dst1 + v, wasm_i16x8_sub(odd, offset_v));
  };
  int64_t v = v0;  // [v0, v): both phases' columns from whole vectors, inside the row
  if (v1 - v0 >= 8) {
    OverlappingSteps(v1 - v0, 8, [&](int64_t i) { eight(v0 + i); });
    v = v1;
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

// A byte b is (b ^ flip) - flip as int8 (flip 0x80) or uint8 (flip 0), so b minus the zero
// point is (b ^ flip) - offset: one xor, one subtract.
struct Widening {
  int flip, offset;
};

// A padded row's phases (w.stride rows of phase_cols values, `dst`, zeroed) from its input row
// `src`: the bytes widened minus the zero point over each phase's inside columns.
void FillPhaseRow(const DepthwiseI8Shape& s, const uint8_t* src, Widening widen, int16_t* dst) {
  const int64_t stride = s.w.stride, cols = s.phase_cols;
  const int flip = widen.flip, offset = widen.offset;
  if (stride == 2) {
    FillTwoPhases(src, s.inside.data(), s.w.pad_begin, flip, offset, dst, dst + cols);
    return;
  }
  const v128_t flip_v = wasm_i16x8_splat(static_cast<int16_t>(flip));
  const v128_t offset_v = wasm_i16x8_splat(static_cast<int16_t>(offset));
  for (int64_t p = 0; p < stride; ++p) {
    const int64_t first = p - s.w.pad_begin, end = s.inside[p].end;
    int16_t* row = dst + p * cols;
    int64_t j = s.inside[p].begin;
    if (stride == 1 && end - j >= 8) {
      auto eight = [&](int64_t at) {
        const v128_t bytes = wasm_v128_xor(wasm_u16x8_load8x8(src + at + first), flip_v);
        wasm_v128_store(row + at, wasm_i16x8_sub(bytes, offset_v));
      };
      OverlappingSteps(end - j, 8, [&](int64_t i) { eight(j + i); });
      j = end;
    }
    WEBNX_PLAIN_LOOP
    for (; j < end; ++j) {
      row[j] = static_cast<int16_t>((src[j * stride + first] ^ flip) - offset);
    }
  }
}

// Two rows of `cols` values side by side, value by value, into dst (2 * cols values).
void Interleave(const int16_t* a, const int16_t* b, int64_t cols, int16_t* dst) {
  auto eight = [&](int64_t j) {
    const v128_t x = wasm_v128_load(a + j), y = wasm_v128_load(b + j);
    wasm_v128_store(dst + 2 * j, wasm_i16x8_shuffle(x, y, 0, 8, 1, 9, 2, 10, 3, 11));
    wasm_v128_store(dst + 2 * j + 8, wasm_i16x8_shuffle(x, y, 4, 12, 5, 13, 6, 14, 7, 15));
  };
  if (cols >= 8) return OverlappingSteps(cols, 8, eight);
  WEBNX_PLAIN_LOOP
  for (int64_t j = 0; j < cols; ++j) dst[2 * j] = a[j], dst[2 * j + 1] = b[j];
}

}  // namespace

void FillPairedPlanes(const DepthwiseI8Shape& s, const uint8_t* plane, DType dtype,
                      int32_t zero_point, int16_t* rows, int16_t* pairs) {
  const int flip = dtype == DType::kInt8 ? 0x80 : 0;
  const Widening widen{flip, flip + zero_point};
  const int64_t cols = s.phase_cols, phase_row = s.w.stride * cols;
  // Every padded row first (each as its s.w.stride phase rows), then the pairs: a pair read
  // right after its rows were written would wait on stores in flight.
  std::memset(rows, 0, sizeof(int16_t) * s.RowsScratch());
  const int64_t filled_end = std::min(s.plane_rows, s.h.pad_begin + s.h.in);
  for (int64_t r = std::max(s.h.pad_begin, int64_t{0}); r < filled_end; ++r) {
    FillPhaseRow(s, plane + (r - s.h.pad_begin) * s.w.in, widen, rows + r * phase_row);
  }
  for (int64_t i = 0; i < s.pair_rows; ++i) {
    const int16_t* first = rows + i * s.pair_step * phase_row;
    const int16_t* second = first + s.h.dilation * phase_row;
    for (int64_t p = 0; p < s.w.stride; ++p) {
      Interleave(first + p * cols, second + p * cols, cols,
                 pairs + (p * s.pair_rows + i) * cols * 2);
    }
  }
}

namespace {

// Eight outputs from `at` (pairs of int16): the sum over tap pairs of the pair's four values
// times its two weights, each pair of outputs' values 8 int16 on. kPairs tap pairs (or `pairs`
// when 0), their offsets from `at` and their weights as int32 splats of two int16.
template <int kPairs>
inline void EightOutputs(const int16_t* at, int pairs, const int64_t* offset, const v128_t* weight,
                         v128_t* lo, v128_t* hi) {
  const int count = kPairs ? kPairs : pairs;
  v128_t sum_lo = wasm_i32x4_splat(0), sum_hi = sum_lo;
  for (int t = 0; t < count; ++t) {
    const int16_t* x = at + offset[t];
    sum_lo = wasm_i32x4_add(sum_lo, wasm_i32x4_dot_i16x8(wasm_v128_load(x), weight[t]));
    sum_hi = wasm_i32x4_add(sum_hi, wasm_i32x4_dot_i16x8(wasm_v128_load(x + 8), weight[t]));
  }
  *lo = sum_lo, *hi = sum_hi;
}

template <int kPairs>
void OutputRows(const DepthwiseI8Shape& s, const int16_t* pairs, int count, const int64_t* offset,
                const v128_t* weight, int32_t* out) {
  for (int64_t oh = 0; oh < s.h.out; ++oh) {
    const int16_t* row = pairs + oh * (s.h.stride / s.pair_step) * s.phase_cols * 2;
    int32_t* dst = out + oh * s.w.out;
    int64_t ow = 0;
    v128_t lo, hi;
    for (; ow + 8 <= s.w.out; ow += 8) {
      EightOutputs<kPairs>(row + 2 * ow, count, offset, weight, &lo, &hi);
      wasm_v128_store(dst + ow, lo);
      wasm_v128_store(dst + ow + 4, hi);
    }
    if (ow == s.w.out) continue;
    EightOutputs<kPairs>(row + 2 * ow, count, offset, weight, &lo, &hi);
    StoreFirstInts(dst + ow, lo, hi, static_cast<int>(s.w.out - ow));
  }
}

}  // namespace

void DepthwiseI16(const DepthwiseI8Shape& s, const int16_t* pairs, const int16_t* weights,
                  int32_t* out) {
  // Each tap pair (kernel rows 2m and 2m + 1, one column): its offset from an output row's first
  // pair (phase plane, pair row and column) and its two weights (the second 0 past the last
  // kernel row), found once for the whole plane.
  const int64_t kh = s.h.kernel, kw = s.w.kernel, row_pairs = (kh + 1) / 2;
  const int count = static_cast<int>(row_pairs * kw);
  int64_t offset[kMaxDepthwiseI8Taps];  // row_pairs * kw <= the taps
  v128_t weight[kMaxDepthwiseI8Taps];
  for (int64_t m = 0; m < row_pairs; ++m) {
    for (int64_t kx = 0; kx < kw; ++kx) {
      const int64_t padded = kx * s.w.dilation, t = m * kw + kx;
      const int64_t pair_row = 2 * m * s.h.dilation / s.pair_step;
      offset[t] =
          ((padded % s.w.stride * s.pair_rows + pair_row) * s.phase_cols + padded / s.w.stride) * 2;
      const uint16_t first = static_cast<uint16_t>(weights[2 * m * kw + kx]);
      const uint16_t second =
          2 * m + 1 < kh ? static_cast<uint16_t>(weights[(2 * m + 1) * kw + kx]) : uint16_t{0};
      weight[t] = wasm_i32x4_splat(static_cast<int32_t>(first | uint32_t{second} << 16));
    }
  }
  // 3 x 3 kernels, nearly all of them, with the loop over their six tap pairs unrolled.
  if (count == 6 && kh == 3) {
    OutputRows<6>(s, pairs, count, offset, weight, out);
  } else {
    OutputRows<0>(s, pairs, count, offset, weight, out);
  }
}

}  // namespace webnx::simd
