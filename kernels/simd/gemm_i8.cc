#include "kernels/simd/gemm_i8.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

namespace webnx::simd {
namespace {

// Eight 8-bit values at p widened to int16.
template <typename T>
v128_t LoadWide(const T* p) {
  if constexpr (std::is_signed_v<T>) {
    return wasm_i16x8_load8x8(p);
  } else {
    return wasm_u16x8_load8x8(p);
  }
}

template <typename T>
void PackRows(const T* src, int64_t rows, int64_t k, int64_t stride, ZeroPoints zero_points,
              int16_t* dst) {
  const int64_t kp = PairedDepth(k);
  for (int64_t r = 0; r < rows; ++r) {
    const T* row = src + r * stride;
    int16_t* out = dst + r * kp;
    const int32_t zp = zero_points.at(r);
    const v128_t zp_v = wasm_i16x8_splat(static_cast<int16_t>(zp));
    int64_t i = 0;
    for (; i + 8 <= k; i += 8) wasm_v128_store(out + i, wasm_i16x8_sub(LoadWide(row + i), zp_v));
    WEBNX_PLAIN_LOOP
    for (; i < k; ++i) out[i] = static_cast<int16_t>(row[i] - zp);
    if (kp != k) out[k] = 0;
  }
}

// One panel's pair of rows (k, k + 1) from rows r0 and r1, `cols` columns from n0; a missing
// row (r1 null, K odd) or column is 0.
template <typename T>
void PackPair(const T* r0, const T* r1, const int32_t* zp, int cols, int16_t* out) {
  WEBNX_PLAIN_LOOP
  for (int c = 0; c < kI8PanelCols; ++c) {
    out[2 * c] = c < cols ? static_cast<int16_t>(r0[c] - zp[c]) : 0;
    out[2 * c + 1] = c < cols && r1 ? static_cast<int16_t>(r1[c] - zp[c]) : 0;
  }
}

template <typename T>
void PackPanels(const T* src, int64_t k, int64_t n, int64_t stride, ZeroPoints zero_points,
                int16_t* dst) {
  const int64_t kp = PairedDepth(k);
  for (int64_t panel = 0; panel < ColumnPanels(n); ++panel) {
    int16_t* out = dst + panel * kp * kI8PanelCols;
    const int64_t n0 = panel * kI8PanelCols;
    const int cols = static_cast<int>(std::min<int64_t>(kI8PanelCols, n - n0));
    int32_t zp[kI8PanelCols];
    WEBNX_PLAIN_LOOP
    for (int c = 0; c < kI8PanelCols; ++c) zp[c] = c < cols ? zero_points.at(n0 + c) : 0;
    const v128_t zp_v = wasm_i16x8_narrow_i32x4(wasm_v128_load(zp), wasm_v128_load(zp + 4));
    int64_t i = 0;
    if (cols == kI8PanelCols) {
      // Rows k and k + 1 interleaved: the dot instruction's pairs, eight columns.
      for (; i + 2 <= k; i += 2, out += 2 * kI8PanelCols) {
        const v128_t a = wasm_i16x8_sub(LoadWide(src + i * stride + n0), zp_v);
        const v128_t b = wasm_i16x8_sub(LoadWide(src + (i + 1) * stride + n0), zp_v);
        wasm_v128_store(out, wasm_i16x8_shuffle(a, b, 0, 8, 1, 9, 2, 10, 3, 11));
        wasm_v128_store(out + 8, wasm_i16x8_shuffle(a, b, 4, 12, 5, 13, 6, 14, 7, 15));
      }
    }
    WEBNX_PLAIN_LOOP
    for (; i < k; i += 2, out += 2 * kI8PanelCols) {
      const T* r0 = src + i * stride + n0;
      PackPair(r0, i + 1 < k ? r0 + stride : nullptr, zp, cols, out);
    }
  }
}

// Stores (or adds to what is there, `accumulate`) a row's 8 sums or its first `cols`.
inline void StoreRow(int32_t* out, v128_t lo, v128_t hi, int cols, bool accumulate) {
  int32_t tile[kI8PanelCols];
  int32_t* dst = cols == kI8PanelCols ? out : tile;
  if (accumulate) {
    if (dst == tile) std::memcpy(tile, out, sizeof(int32_t) * cols);
    lo = wasm_i32x4_add(lo, wasm_v128_load(dst));
    hi = wasm_i32x4_add(hi, wasm_v128_load(dst + 4));
  }
  wasm_v128_store(dst, lo);
  wasm_v128_store(dst + 4, hi);
  if (dst == tile) std::memcpy(out, tile, sizeof(int32_t) * cols);
}

// kRows rows of the rows operand (`row_stride` apart) against one panel over kc k values: two
// dot products per row and k pair.
template <int kRows>
void Tile(int64_t kc, const int16_t* rows, int64_t row_stride, const int16_t* panel, int32_t* out,
          int64_t ldo, int cols, bool accumulate) {
  v128_t acc[kRows][2];
  for (int r = 0; r < kRows; ++r) acc[r][0] = acc[r][1] = wasm_i32x4_splat(0);
  for (int64_t p = 0; p < kc / 2; ++p) {
    const v128_t b0 = wasm_v128_load(panel + p * 16);
    const v128_t b1 = wasm_v128_load(panel + p * 16 + 8);
    for (int r = 0; r < kRows; ++r) {
      const v128_t a = wasm_v128_load32_splat(rows + r * row_stride + 2 * p);
      acc[r][0] = wasm_i32x4_add(acc[r][0], wasm_i32x4_dot_i16x8(a, b0));
      acc[r][1] = wasm_i32x4_add(acc[r][1], wasm_i32x4_dot_i16x8(a, b1));
    }
  }
  for (int r = 0; r < kRows; ++r) StoreRow(out + r * ldo, acc[r][0], acc[r][1], cols, accumulate);
}

// One block of rows (kRows) and depth [k0, k0 + kc) against panels [begin, end): the rows'
// block stays in L1 while the panels stream past it.
template <int kRows>
void RowBlock(int64_t kp, int64_t k0, int64_t kc, const int16_t* rows, const int16_t* panels,
              int64_t begin, int64_t end, int64_t n_total, int32_t* out, int64_t ldo) {
  for (int64_t panel = begin; panel < end; ++panel) {
    const int64_t n0 = panel * kI8PanelCols;
    const int cols = static_cast<int>(std::min<int64_t>(kI8PanelCols, n_total - n0));
    Tile<kRows>(kc, rows + k0, kp, panels + panel * kp * kI8PanelCols + k0 * kI8PanelCols, out + n0,
                ldo, cols, k0 > 0);
  }
}

}  // namespace

void PackRowsI16(const void* src, DType dtype, int64_t rows, int64_t k, int64_t stride,
                 ZeroPoints zero_points, int16_t* dst) {
  if (dtype == DType::kInt8) {
    PackRows(static_cast<const int8_t*>(src), rows, k, stride, zero_points, dst);
  } else {
    PackRows(static_cast<const uint8_t*>(src), rows, k, stride, zero_points, dst);
  }
}

void PackPanelsI16(const void* src, DType dtype, int64_t k, int64_t n, int64_t stride,
                   ZeroPoints zero_points, int16_t* dst) {
  if (dtype == DType::kInt8) {
    PackPanels(static_cast<const int8_t*>(src), k, n, stride, zero_points, dst);
  } else {
    PackPanels(static_cast<const uint8_t*>(src), k, n, stride, zero_points, dst);
  }
}

void GemmI16(int64_t rows_count, int64_t kp, const int16_t* rows, const int16_t* panels,
             int64_t panel_begin, int64_t panel_end, int64_t n_total, int32_t* out, int64_t ldo) {
  // Deep products in blocks of k: a 4-row block of 512 k values is 4 KB.
  constexpr int64_t kDepthBlock = 512;
  for (int64_t k0 = 0; k0 < kp; k0 += kDepthBlock) {
    const int64_t kc = std::min(kDepthBlock, kp - k0);
    int64_t r = 0;
    for (; r + 4 <= rows_count; r += 4) {
      RowBlock<4>(kp, k0, kc, rows + r * kp, panels, panel_begin, panel_end, n_total, out + r * ldo,
                  ldo);
    }
    WEBNX_NO_UNROLL
    for (; r < rows_count; ++r) {
      RowBlock<1>(kp, k0, kc, rows + r * kp, panels, panel_begin, panel_end, n_total, out + r * ldo,
                  ldo);
    }
  }
}

void GemmI16Reference(int64_t rows_count, int64_t kp, const int16_t* rows, const int16_t* panels,
                      int64_t panel_begin, int64_t panel_end, int64_t n_total, int32_t* out,
                      int64_t ldo) {
  for (int64_t panel = panel_begin; panel < panel_end; ++panel) {
    const int16_t* b = panels + panel * kp * kI8PanelCols;
    for (int64_t c = 0; c < kI8PanelCols && panel * kI8PanelCols + c < n_total; ++c) {
      for (int64_t r = 0; r < rows_count; ++r) {
        uint32_t sum = 0;  // wraps as int32 accumulators do, without overflow
        for (int64_t i = 0; i < kp; ++i) {
          const int32_t product = rows[r * kp + i] * b[(i / 2) * 16 + c * 2 + i % 2];
          sum += static_cast<uint32_t>(product);
        }
        out[r * ldo + panel * kI8PanelCols + c] = static_cast<int32_t>(sum);
      }
    }
  }
}

void RequantizeRow(const int32_t* acc, int64_t n, int32_t bias, const float* multiplier,
                   bool one_multiplier, int32_t zero_point, DType dtype, void* y) {
  const bool is_signed = dtype == DType::kInt8;
  const float lo = (is_signed ? -128.0f : 0.0f) - static_cast<float>(zero_point);
  const float hi = (is_signed ? 127.0f : 255.0f) - static_cast<float>(zero_point);
  const v128_t lo_v = wasm_f32x4_splat(lo), hi_v = wasm_f32x4_splat(hi);
  const v128_t bias_v = wasm_i32x4_splat(bias), zp_v = wasm_i32x4_splat(zero_point);
  // round(v) clamped to [lo, hi] (NaN stays NaN and converts to 0), plus the zero point.
  auto quantize = [&](v128_t sums, v128_t mult) {
    const v128_t v = wasm_f32x4_mul(wasm_f32x4_convert_i32x4(wasm_i32x4_add(sums, bias_v)), mult);
    const v128_t clamped = wasm_f32x4_pmin(wasm_f32x4_pmax(wasm_f32x4_nearest(v), lo_v), hi_v);
    return wasm_i32x4_add(wasm_i32x4_trunc_sat_f32x4(clamped), zp_v);
  };
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    v128_t q[4];
    for (int j = 0; j < 4; ++j) {
      const v128_t mult =
          one_multiplier ? wasm_f32x4_splat(multiplier[0]) : wasm_v128_load(multiplier + i + 4 * j);
      q[j] = quantize(wasm_v128_load(acc + i + 4 * j), mult);
    }
    const v128_t lo16 = wasm_i16x8_narrow_i32x4(q[0], q[1]);
    const v128_t hi16 = wasm_i16x8_narrow_i32x4(q[2], q[3]);
    const v128_t bytes =
        is_signed ? wasm_i8x16_narrow_i16x8(lo16, hi16) : wasm_u8x16_narrow_i16x8(lo16, hi16);
    wasm_v128_store(static_cast<uint8_t*>(y) + i, bytes);
  }
  WEBNX_NO_UNROLL
  for (; i < n; ++i) {
    const v128_t mult = wasm_f32x4_splat(multiplier[one_multiplier ? 0 : i]);
    const int32_t q = wasm_i32x4_extract_lane(quantize(wasm_i32x4_splat(acc[i]), mult), 0);
    static_cast<uint8_t*>(y)[i] = static_cast<uint8_t>(q);
  }
}

}  // namespace webnx::simd
