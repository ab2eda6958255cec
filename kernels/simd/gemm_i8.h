// Integer products of 8-bit operands (ConvInteger, MatMulInteger, QLinearConv, QLinearMatMul)
// with WASM SIMD's i32x4.dot_i16x8_s: each operand is widened once to int16 with its zero point
// subtracted (so uint8 and int8 data, any zero point, give one kernel), and a dot instruction
// does eight multiply-adds where float32 does four. Sums wrap modulo 2^32 like int32
// accumulators. The rows operand is [M][Kp] (Kp: K rounded up to even), the columns operand is
// split into panels of 8 columns, each [Kp / 2][8][2]: the two k values of a pair side by side,
// as the dot instruction pairs them.
#pragma once

#include <cstdint>

#include "core/tensor.h"
#include "kernels/simd/vec.h"

namespace webnx::simd {

constexpr int kI8PanelCols = 8;

inline int64_t PairedDepth(int64_t k) {
  return (k + 1) & ~int64_t{1};
}
inline int64_t ColumnPanels(int64_t n) {
  return (n + kI8PanelCols - 1) / kI8PanelCols;
}
// int16 elements of the panels of a K x N columns operand.
inline int64_t PanelsSize(int64_t k, int64_t n) {
  return ColumnPanels(n) * PairedDepth(k) * kI8PanelCols;
}

// A zero point per row (or column) of an operand, or one for all when `per_index` is null.
struct ZeroPoints {
  const int32_t* per_index = nullptr;
  int32_t all = 0;
  int32_t at(int64_t i) const { return per_index ? per_index[i] : all; }
};

// Rows r < rows of an 8-bit matrix (`src`, uint8 or int8 per `dtype`, rows `stride` apart)
// minus their zero points, as int16 rows Kp apart (the odd k's pair padded with 0).
void PackRowsI16(const void* src, DType dtype, int64_t rows, int64_t k, int64_t stride,
                 ZeroPoints zero_points, int16_t* dst);

// A K x N 8-bit matrix (rows `stride` apart) minus its columns' zero points, as panels.
void PackPanelsI16(const void* src, DType dtype, int64_t k, int64_t n, int64_t stride,
                   ZeroPoints zero_points, int16_t* dst);

// out[m][n] = sum over k of rows[m][k] * panels(k, n) for m < rows_count and the columns of
// panels [panel_begin, panel_end) (n < n_total), out's rows ldo apart. Sums wrap. Rows are read
// in tiles of 4: up to kRowsOverread rows past the last must be readable (their sums are
// dropped, whatever they hold).
constexpr int64_t kRowsOverread = 3;
void GemmI16(int64_t rows_count, int64_t kp, const int16_t* rows, const int16_t* panels,
             int64_t panel_begin, int64_t panel_end, int64_t n_total, int32_t* out, int64_t ldo);

// The scalar reference of GemmI16 (same operands, same result).
void GemmI16Reference(int64_t rows_count, int64_t kp, const int16_t* rows, const int16_t* panels,
                      int64_t panel_begin, int64_t panel_end, int64_t n_total, int32_t* out,
                      int64_t ldo);

// The operands' packed forms: int16 pairs for i32x4.dot_i16x8_s (every engine), or bytes in
// quads for the relaxed dot (kernels/simd/gemm_i8_quads.h), which only engines whose dot is
// exact for every 8-bit value get (kernels/simd/dot_i8.h). The functions below take either.
enum class I8Form { kPairs, kQuads };
I8Form FastestForm();
// Bytes from one packed row to the next, and of `rows` packed rows with the GEMM's overread.
int64_t RowStrideBytes(I8Form form, int64_t k);
int64_t RowsBytes(I8Form form, int64_t rows, int64_t k);
int64_t PanelsBytes(I8Form form, int64_t k, int64_t n);
void PackRows(I8Form form, const void* src, DType dtype, int64_t rows, int64_t k, int64_t stride,
              ZeroPoints zero_points, void* dst);
void PackPanels(I8Form form, const void* src, DType dtype, int64_t k, int64_t n, int64_t stride,
                ZeroPoints zero_points, void* dst);
// As GemmI16, for K = k.
void Gemm(I8Form form, int64_t rows_count, int64_t k, const void* rows, const void* panels,
          int64_t panel_begin, int64_t panel_end, int64_t n_total, int32_t* out, int64_t ldo);

// y[i] = saturate(round_half_even((acc[i] + bias) * multiplier[i]) + zero_point) for i < n,
// stored as `dtype` (uint8 or int8); multiplier has n values, or one when `one_multiplier`.
void RequantizeRow(const int32_t* acc, int64_t n, int32_t bias, const float* multiplier,
                   bool one_multiplier, int32_t zero_point, DType dtype, void* y);

// What follows an integer product computed in float32 (the dynamically quantized chains):
// y[i] = float(acc[i]) * scale + bias (+ addend[i]), clamped to [lo, hi] when `clamp`. scale and
// bias hold one value (one_scale / one_bias) or n; bias and addend may be null.
// (An aggregate the callers fill whole: a constructor would be code of its own.)
struct DequantizeArgs {
  const float* scale;
  bool one_scale;
  const float* bias;
  bool one_bias;
  const float* addend;
  bool clamp;
  float lo, hi;
};
void DequantizeRow(const int32_t* acc, int64_t n, const DequantizeArgs& args, float* y);

// DequantizeRow's arithmetic on four sums, in the chain's order: Cast, Mul by the scale, Add of
// the bias (none: no +0, which would turn -0 into +0), the residual sum, the clamp.
inline f32x4 DequantizeFour(v128_t sums, f32x4 scale, const f32x4* bias, const float* addend,
                            bool clamp, f32x4 lo, f32x4 hi) {
  f32x4 v = Mul(wasm_f32x4_convert_i32x4(sums), scale);
  if (bias) v = Add(v, *bias);
  if (addend) v = Add(v, Load(addend));
  return clamp ? Clamp(v, lo, hi) : v;
}

}  // namespace webnx::simd
