#include "kernels/simd/gemm_i8_quads.h"

#include "kernels/simd/dot_i8.h"

#if WEBNX_HAS_DOT_I8
#include <algorithm>
#include <climits>
#include <cstring>

#include "kernels/simd/i32_row_store.h"
#include "kernels/simd/quantize_u8.h"

namespace webnx::simd {
namespace {

// Sums of each 4-byte group of v, read as int8 or uint8.
inline v128_t QuadSums(v128_t v, bool is_unsigned) {
  return is_unsigned ? wasm_u32x4_extadd_pairwise_u16x8(wasm_u16x8_extadd_pairwise_u8x16(v))
                     : wasm_i32x4_extadd_pairwise_i16x8(wasm_i16x8_extadd_pairwise_i8x16(v));
}

inline int32_t LaneSum(v128_t v) {
  int32_t lanes[4];
  wasm_v128_store(lanes, v);
  return WrapToInt32(int64_t{lanes[0]} + lanes[1] + lanes[2] + lanes[3]);
}

// Four rows' 8 bytes from column n0 as two vectors of [column][4 k]: columns 0-3 and 4-7.
inline void InterleaveQuad(const uint8_t* r0, int64_t stride, v128_t flip, v128_t* lo, v128_t* hi) {
  v128_t a = wasm_v128_load64_zero(r0);
  a = wasm_v128_load64_lane(r0 + stride, a, 1);
  v128_t b = wasm_v128_load64_zero(r0 + 2 * stride);
  b = wasm_v128_load64_lane(r0 + 3 * stride, b, 1);
  a = wasm_v128_xor(a, flip), b = wasm_v128_xor(b, flip);
  *lo = wasm_i8x16_shuffle(a, b, 0, 8, 16, 24, 1, 9, 17, 25, 2, 10, 18, 26, 3, 11, 19, 27);
  *hi = wasm_i8x16_shuffle(a, b, 4, 12, 20, 28, 5, 13, 21, 29, 6, 14, 22, 30, 7, 15, 23, 31);
}

// Where a tile's correction comes from: the rows' sums and zero points (after each row's bytes,
// `row_stride` apart) and the panel's zero points and corrections; `shared_zero_point` when
// every row has the zero point `row_zero_point` (weights quantized per tensor, or symmetric
// ones, whose zero point is then the flip's shift for all).
struct Correction {
  const uint8_t* row_meta;
  int64_t row_stride;
  const int32_t* panel_meta;  // [8] zero points, then [8] corrections
  bool shared_zero_point;
  int32_t row_zero_point;
};

// acc - zc * S_r - Z_r * C per row r (S_r, Z_r: its sum and zero point; zc, C: the panel's),
// the panel's vectors loaded once and, for rows of one zero point, Z * C computed once.
template <int kRows>
inline void Correct(const Correction& c, int valid, v128_t (*acc)[2]) {
  const v128_t zc[2] = {wasm_v128_load(c.panel_meta), wasm_v128_load(c.panel_meta + 4)};
  v128_t column[2] = {wasm_v128_load(c.panel_meta + 8), wasm_v128_load(c.panel_meta + 12)};
  if (c.shared_zero_point) {
    const v128_t z = wasm_i32x4_splat(c.row_zero_point);
    column[0] = wasm_i32x4_mul(z, column[0]);
    column[1] = wasm_i32x4_mul(z, column[1]);
  }
  for (int r = 0; r < kRows && r < valid; ++r) {
    int32_t row[2];
    std::memcpy(row, c.row_meta + r * c.row_stride, sizeof(row));
    const v128_t sum = wasm_i32x4_splat(row[0]);
    for (int half = 0; half < 2; ++half) {
      v128_t v = wasm_i32x4_sub(acc[r][half], wasm_i32x4_mul(zc[half], sum));
      const v128_t zr = c.shared_zero_point
                            ? column[half]
                            : wasm_i32x4_mul(wasm_i32x4_splat(row[1]), column[half]);
      acc[r][half] = wasm_i32x4_sub(v, zr);
    }
  }
}

constexpr int kTileRows = 4;
constexpr int64_t kDepthBlock = kQuadsDepthBlock;  // bytes of a row per pass: 4 KB per tile

// A row block's output stage in the tile: its rows' factors and first output bytes, and the
// output stage's step (simd::RequantizeStep).
struct TileRequantize {
  const float* row_scales;
  const float* row_biases;
  uint8_t* y;
  int64_t y_ld;
  RequantizeStep step;
};

// Row r's eight sums as RequantizeRowsToU8 turns them into bytes, its first `cols` stored.
inline void RequantizeTileRow(const TileRequantize& t, int r, const v128_t* acc, int cols,
                              uint8_t* y) {
  const f32x4 factor = Splat(t.row_scales[r]);
  const f32x4 bias = Splat(t.row_biases ? t.row_biases[r] : -0.f);
  const v128_t words =
      wasm_i16x8_narrow_i32x4(t.step.Four(acc[0], factor, bias), t.step.Four(acc[1], factor, bias));
  const v128_t bytes = wasm_u8x16_narrow_i16x8(words, words);
  if (cols == kI8PanelCols) return wasm_v128_store64_lane(y, bytes, 0);
  uint8_t lanes[16];
  wasm_v128_store(lanes, bytes);
  WEBNX_PLAIN_LOOP
  for (int c = 0; c < cols; ++c) y[c] = lanes[c];
}

// kRows rows against one panel over kc bytes of depth: two dot products per row and 4 k values.
// Sums are corrected when `correction` is given (the first depth block), else added to out;
// with `requantize` (one pass over the depth), turned into bytes instead of stored.
template <int kRows>
void Tile(int64_t kc, const uint8_t* rows, int64_t row_stride, const uint8_t* panel, int32_t* out,
          int64_t ldo, int cols, int valid, const Correction* correction,
          const TileRequantize* requantize, int64_t n0) {
  v128_t acc[kRows][2];
  for (int r = 0; r < kRows; ++r) acc[r][0] = acc[r][1] = wasm_i32x4_splat(0);
  const int stride = static_cast<int>(row_stride);
  const int quads = static_cast<int>(kc / 4);  // kc <= kDepthBlock: an int counter
  for (int q = 0; q < quads; ++q) {
    const v128_t b0 = wasm_v128_load(panel + q * 32);
    const v128_t b1 = wasm_v128_load(panel + q * 32 + 16);
    for (int r = 0; r < kRows; ++r) {
      const v128_t a = wasm_v128_load32_splat(rows + r * stride + 4 * q);
      acc[r][0] = DotAdd(b0, a, acc[r][0]);
      acc[r][1] = DotAdd(b1, a, acc[r][1]);
    }
  }
  if (correction) Correct<kRows>(*correction, valid, acc);
  if (requantize) {
    for (int r = 0; r < valid; ++r) {
      RequantizeTileRow(*requantize, r, acc[r], cols, requantize->y + r * requantize->y_ld + n0);
    }
    return;
  }
  for (int r = 0; r < valid; ++r) StoreRow(out + r * ldo, acc[r][0], acc[r][1], cols, !correction);
}

// A block of rows (a tile's worth) and depth [k0, k0 + kc) against panels [begin, end).
WEBNX_SEPARATE_FUNCTION void RowBlock(int64_t k, int64_t k0, int64_t kc, const uint8_t* rows,
                                      int valid, const uint8_t* panels, int64_t begin, int64_t end,
                                      int64_t n_total, int32_t* out, int64_t ldo,
                                      const int32_t* shared_zero_point,
                                      const TileRequantize* requantize) {
  const int64_t kq = QuadDepth(k), row_stride = QuadRowStride(k), panel_stride = QuadPanelStride(k);
  for (int64_t panel = begin; panel < end; ++panel) {
    const int64_t n0 = panel * kI8PanelCols;
    const int cols = static_cast<int>(std::min<int64_t>(kI8PanelCols, n_total - n0));
    const uint8_t* packed = panels + panel * panel_stride;
    const Correction correction{
        rows + kq, row_stride, reinterpret_cast<const int32_t*>(packed + kq * kI8PanelCols),
        shared_zero_point != nullptr, shared_zero_point ? *shared_zero_point : 0};
    const Correction* first = k0 == 0 ? &correction : nullptr;
    const uint8_t* block = packed + k0 * kI8PanelCols;
    int32_t* at = out ? out + n0 : nullptr;
    if (valid == 1) {
      Tile<1>(kc, rows + k0, row_stride, block, at, ldo, cols, 1, first, requantize, n0);
    } else {
      Tile<kTileRows>(kc, rows + k0, row_stride, block, at, ldo, cols, valid, first, requantize,
                      n0);
    }
  }
}

// The rows' zero point when they all have one (after each row's bytes and sum), else
// kNoSharedZeroPoint (no 8-bit zero point, flipped or not, is that value).
constexpr int32_t kNoSharedZeroPoint = INT32_MIN;
int32_t SharedRowZeroPoint(const uint8_t* rows, int64_t rows_count, int64_t kq,
                           int64_t row_stride) {
  int32_t zero_point = 0;
  std::memcpy(&zero_point, rows + kq + 4, sizeof(zero_point));
  for (int64_t r = 1; r < rows_count; ++r) {
    int32_t z;
    std::memcpy(&z, rows + r * row_stride + kq + 4, sizeof(z));
    if (z != zero_point) return kNoSharedZeroPoint;
  }
  return zero_point;
}

}  // namespace

void PackRowsQuads(const void* src, DType dtype, int64_t rows, int64_t k, int64_t stride,
                   ZeroPoints zero_points, bool unsigned_rows, uint8_t* dst) {
  const Flip flip = FlipInto(dtype, unsigned_rows);
  const v128_t flip_v = wasm_i8x16_splat(static_cast<int8_t>(flip.byte));
  const int64_t kq = QuadDepth(k);
  for (int64_t r = 0; r < rows; ++r) {
    const uint8_t* in = static_cast<const uint8_t*>(src) + r * stride;
    uint8_t* out = dst + r * QuadRowStride(k);
    v128_t sums = wasm_i32x4_splat(0);
    int64_t i = 0;
    WEBNX_NO_UNROLL
    for (; i + 16 <= k; i += 16) {
      const v128_t v = wasm_v128_xor(wasm_v128_load(in + i), flip_v);
      wasm_v128_store(out + i, v);
      sums = wasm_i32x4_add(sums, QuadSums(v, unsigned_rows));
    }
    int64_t sum = LaneSum(sums);
    WEBNX_PLAIN_LOOP
    for (; i < k; ++i) {
      out[i] = in[i] ^ flip.byte;
      sum += unsigned_rows ? out[i] : static_cast<int8_t>(out[i]);
    }
    std::memset(out + k, 0, kq - k);
    const int32_t meta[2] = {WrapToInt32(sum), zero_points.at(r) + flip.zero_point_shift};
    std::memcpy(out + kq, meta, sizeof(meta));
  }
}

void PackPanelsQuads(const void* src_data, DType dtype, int64_t k, int64_t n, int64_t stride,
                     ZeroPoints zero_points, uint8_t* dst) {
  const auto* src = static_cast<const uint8_t*>(src_data);
  const Flip flip = FlipInto(dtype, false);
  const v128_t flip_v = wasm_i8x16_splat(static_cast<int8_t>(flip.byte));
  const int64_t kq = QuadDepth(k);
  for (int64_t panel = 0; panel < ColumnPanels(n); ++panel) {
    uint8_t* out = dst + panel * QuadPanelStride(k);
    const int64_t n0 = panel * kI8PanelCols;
    const int cols = static_cast<int>(std::min<int64_t>(kI8PanelCols, n - n0));
    v128_t sums_lo = wasm_i32x4_splat(0), sums_hi = sums_lo;
    int64_t i = 0;
    if (cols == kI8PanelCols) {
      WEBNX_NO_UNROLL
      for (; i + 4 <= k; i += 4) {
        v128_t lo, hi;
        InterleaveQuad(src + i * stride + n0, stride, flip_v, &lo, &hi);
        wasm_v128_store(out + i * kI8PanelCols, lo);
        wasm_v128_store(out + i * kI8PanelCols + 16, hi);
        sums_lo = wasm_i32x4_add(sums_lo, QuadSums(lo, false));
        sums_hi = wasm_i32x4_add(sums_hi, QuadSums(hi, false));
      }
    }
    int32_t column_sums[kI8PanelCols];
    wasm_v128_store(column_sums, sums_lo);
    wasm_v128_store(column_sums + 4, sums_hi);
    WEBNX_PLAIN_LOOP
    for (; i < kq; ++i) {  // the last k values, or a narrow panel; zeros past K and n
      for (int c = 0; c < kI8PanelCols; ++c) {
        const bool inside = c < cols && i < k;
        const uint8_t byte = inside ? src[i * stride + n0 + c] ^ flip.byte : 0;
        out[(i & ~int64_t{3}) * kI8PanelCols + c * 4 + (i & 3)] = byte;
        column_sums[c] = WrapToInt32(int64_t{column_sums[c]} + static_cast<int8_t>(byte));
      }
    }
    int32_t meta[2 * kI8PanelCols];
    for (int c = 0; c < kI8PanelCols; ++c) {
      const int32_t zw = c < cols ? zero_points.at(n0 + c) + flip.zero_point_shift : 0;
      meta[c] = zw;
      meta[kI8PanelCols + c] = WrapToInt32(int64_t{column_sums[c]} - k * int64_t{zw});
    }
    std::memcpy(out + kq * kI8PanelCols, meta, sizeof(meta));
  }
}

void GemmQuads(int64_t rows_count, int64_t k, const uint8_t* rows, const uint8_t* panels,
               int64_t panel_begin, int64_t panel_end, int64_t n_total, int32_t* out, int64_t ldo) {
  if (rows_count <= 0) return;
  const int64_t kq = QuadDepth(k), row_stride = QuadRowStride(k);
  const int32_t zero_point = SharedRowZeroPoint(rows, rows_count, kq, row_stride);
  const bool shared = zero_point != kNoSharedZeroPoint;
  for (int64_t k0 = 0; k0 < kq; k0 += kDepthBlock) {
    const int64_t kc = std::min(kDepthBlock, kq - k0);
    for (int64_t r = 0; r < rows_count; r += kTileRows) {
      const int valid = static_cast<int>(std::min<int64_t>(kTileRows, rows_count - r));
      RowBlock(k, k0, kc, rows + r * row_stride, valid, panels, panel_begin, panel_end, n_total,
               out + r * ldo, ldo, shared ? &zero_point : nullptr, nullptr);
    }
  }
}

void GemmQuadsRequantized(int64_t rows_count, int64_t k, const uint8_t* rows, const uint8_t* panels,
                          int64_t panel_begin, int64_t panel_end, int64_t n_total,
                          const QuadsRequantize& q) {
  if (rows_count <= 0) return;
  const int64_t kq = QuadDepth(k), row_stride = QuadRowStride(k);
  const int32_t zero_point = SharedRowZeroPoint(rows, rows_count, kq, row_stride);
  const bool shared = zero_point != kNoSharedZeroPoint;
  TileRequantize t{q.row_scales, q.row_biases, q.y, q.y_ld,
                   RequantizeStep(q.scale, q.lo, q.hi, q.zero_point)};
  for (int64_t r = 0; r < rows_count; r += kTileRows) {
    const int valid = static_cast<int>(std::min<int64_t>(kTileRows, rows_count - r));
    t.row_scales = q.row_scales + r;
    t.row_biases = q.row_biases ? q.row_biases + r : nullptr;
    t.y = q.y + r * q.y_ld;
    RowBlock(k, 0, kq, rows + r * row_stride, valid, panels, panel_begin, panel_end, n_total,
             nullptr, 0, shared ? &zero_point : nullptr, &t);
  }
}

}  // namespace webnx::simd
#endif
