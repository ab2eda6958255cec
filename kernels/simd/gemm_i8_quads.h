// The int8 GEMM on the relaxed dot product (kernels/simd/dot_i8.h): operands stay 8-bit, four
// k values side by side per int32 lane, 32 multiply-adds per row of a tile in two instructions
// (the int16 pairs of gemm_i8.h take eight). The dot multiplies the stored bytes, so the zero
// points are not subtracted when packing; each packed row and panel carries the sums of its
// bytes and its zero points, and the tile's store corrects the products:
//   sum (x - zx)(w - zw) = sum x w - zw * sum x - zx * (sum w - K * zw).
// Rows are the dot's second operand (uint8 or int8 as the engine reads it), panels its first
// (int8); either operand's 8-bit type is turned into the other's by flipping the top bit and
// moving its zero point by 128.
#pragma once

#include <cstdint>

#include "core/tensor.h"
#include "kernels/simd/gemm_i8.h"

namespace webnx::simd {

inline int64_t QuadDepth(int64_t k) {
  return (k + 3) & ~int64_t{3};
}
// A packed row: its K bytes and zeros up to QuadDepth(k), then its sum and its zero point as
// two int32.
inline int64_t QuadRowStride(int64_t k) {
  return QuadDepth(k) + 2 * 4;
}
// A packed panel: QuadDepth(k) / 4 groups of [8 columns][4 k] bytes, then the 8 columns' zero
// points and their corrections sum w - K * zw as int32.
inline int64_t QuadPanelStride(int64_t k) {
  return QuadDepth(k) * kI8PanelCols + 2 * 4 * kI8PanelCols;
}

// `rows` rows of an 8-bit matrix (rows `stride` apart) as packed rows QuadRowStride(k) apart,
// as uint8 when `unsigned_rows` (the engine's dot reads its second operand so) or int8.
void PackRowsQuads(const void* src, DType dtype, int64_t rows, int64_t k, int64_t stride,
                   ZeroPoints zero_points, bool unsigned_rows, uint8_t* dst);

// A K x N 8-bit matrix (rows `stride` apart) as int8 panels QuadPanelStride(k) apart.
void PackPanelsQuads(const void* src, DType dtype, int64_t k, int64_t n, int64_t stride,
                     ZeroPoints zero_points, uint8_t* dst);

// As GemmI16 (tiles of 4 rows, kRowsOverread rows past the last readable), on packed quads.
void GemmQuads(int64_t rows_count, int64_t k, const uint8_t* rows, const uint8_t* panels,
               int64_t panel_begin, int64_t panel_end, int64_t n_total, int32_t* out, int64_t ldo);

// What RequantizeRowsToU8 does to a product's sums (kernels/simd/quantize_u8.h), done to each
// tile's sums in registers: row r's values at y + r * y_ld, column n at + n.
struct QuadsRequantize {
  const float* row_scales;
  const float* row_biases;  // may be null
  uint8_t* y;
  int64_t y_ld;
  float scale, lo, hi;
  int32_t zero_point;
};

// GemmQuads with its sums requantized as RequantizeRowsToU8 would, bitwise, and never stored:
// for QuadDepth(k) <= kQuadsDepthBlock (one pass over the depth).
constexpr int64_t kQuadsDepthBlock = 1024;
void GemmQuadsRequantized(int64_t rows_count, int64_t k, const uint8_t* rows, const uint8_t* panels,
                          int64_t panel_begin, int64_t panel_end, int64_t n_total,
                          const QuadsRequantize& requantize);

}  // namespace webnx::simd
