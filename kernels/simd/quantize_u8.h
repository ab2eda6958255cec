// DynamicQuantizeLinear's arithmetic, shared by the op and the fused dynamically quantized
// convolutions and products: the range of x (always holding 0; NaN ignored, as std::min and
// std::max ignore it), and x quantized to uint8 by it.
#pragma once

#include <cstdint>

#include "kernels/simd/gemm_i8.h"
#include "kernels/simd/vec.h"

namespace webnx::simd {

// QuantizeLinear's saturation on four values: round_half_even(v) clamped to [lo, hi] (the
// type's range less the zero point, integers under 2^22 in magnitude; NaN gives 0), plus the
// zero point. Clamping first and rounding after gives the same integers (the bounds are
// integers); adding 1.5 * 2^23 then rounds to the nearest even integer, which the sum's low
// mantissa bits hold: cheaper than nearest and a saturating conversion, and exact.
inline v128_t RoundSaturate(f32x4 v, f32x4 lo, f32x4 hi, v128_t zero_point) {
  constexpr float kMagic = 12582912.f;  // 1.5 * 2^23, bits 0x4B400000
  const f32x4 clamped = PMin(PMax(v, lo), hi);
  const f32x4 finite = wasm_v128_and(clamped, wasm_f32x4_eq(clamped, clamped));  // NaN -> 0
  const v128_t bits = wasm_f32x4_add(finite, wasm_f32x4_splat(kMagic));
  return wasm_i32x4_sub(bits, wasm_i32x4_sub(wasm_i32x4_splat(0x4B400000), zero_point));
}

// RequantizeRowsToU8's step on four sums of one row (its factor and bias splat): the value
// float(acc) * factor + bias, its quotient by the scale clamped once to [lo, hi] (QuotientBounds)
// and rounded half to even as RoundSaturate does, plus the zero point. The output stage and the
// relaxed GEMM's tiles (GemmQuadsRequantized) both take it, so their bytes are the same.
struct RequantizeStep {
  f32x4 scale, lo, hi, magic;
  v128_t offset;  // 0x4B400000 - zero point
  RequantizeStep(float scale_value, float lo_value, float hi_value, int32_t zero_point)
      : scale(Splat(scale_value)),
        lo(Splat(lo_value)),
        hi(Splat(hi_value)),
        magic(Splat(12582912.f)),
        offset(wasm_i32x4_sub(wasm_i32x4_splat(0x4B400000), wasm_i32x4_splat(zero_point))) {}
  v128_t Four(v128_t acc, f32x4 factor, f32x4 bias) const {
    const f32x4 v = Add(Mul(wasm_f32x4_convert_i32x4(acc), factor), bias);
    return wasm_i32x4_sub(Add(PMin(PMax(Div(v, scale), lo), hi), magic), offset);
  }
};

// Sixteen saturated int32 values (q[0..3]) stored as uint8 or int8.
inline void StoreBytes(const v128_t* q, bool is_signed, uint8_t* out) {
  const v128_t lo = wasm_i16x8_narrow_i32x4(q[0], q[1]);
  const v128_t hi = wasm_i16x8_narrow_i32x4(q[2], q[3]);
  wasm_v128_store(out,
                  is_signed ? wasm_i8x16_narrow_i16x8(lo, hi) : wasm_u8x16_narrow_i16x8(lo, hi));
}

// The lowest and highest value of x[0, n) and 0.
void RangeWithZero(const float* x, int64_t n, float* lo, float* hi);

// y[i] = saturate(round_half_even(x[i] / scale) + zero_point) in [0, 255], or as int8 in
// [-128, 127] when `is_signed`; NaN gives the zero point.
void QuantizeBytes(const float* x, int64_t n, float scale, int32_t zero_point, bool is_signed,
                   uint8_t* y);
inline void QuantizeU8(const float* x, int64_t n, float scale, int32_t zero_point, uint8_t* y) {
  QuantizeBytes(x, n, scale, zero_point, false, y);
}

// y[i] = float(x[i] - zero_point) * scale for n bytes x, read as int8 when `is_signed`, else
// uint8: DequantizeLinear's arithmetic (the difference is exact in float32).
void DequantizeBytes(const uint8_t* x, int64_t n, bool is_signed, int32_t zero_point, float scale,
                     float* y);

// DequantizeRow then QuantizeU8 by (scale, zero_point), bitwise as the two in turn, without
// the float32 row leaving registers: a quantized product handing 8-bit values to the next.
// For one channel's row: args has one scale, at most one bias and no addend.
void DequantizeRowToU8(const int32_t* acc, int64_t n, const DequantizeArgs& args, float scale,
                       int32_t zero_point, uint8_t* y);

// DequantizeRowToU8's bytes in fewer steps, for rows whose scales and biases are finite and
// whose quantizing scale is positive and finite, so that no value is NaN: division keeps
// order, so the clamp before quantizing and the saturation after it are one clamp of the
// quotient, to [lo, hi] of QuotientBounds. Row r is bitwise DequantizeRowToU8's with
// args.scale[0] = row_scales[r], args.bias[0] = row_biases[r] (-0.f for none) and no addend.
struct RequantizeRows {
  const int32_t* acc;
  int64_t acc_ld;  // row r's n sums at acc + r * acc_ld
  const float* row_scales;
  const float* row_biases;  // may be null
  uint8_t* y;
  int64_t y_ld;  // row r's n bytes at y + r * y_ld
  int64_t rows, n;
};
void RequantizeRowsToU8(const RequantizeRows& rows, float scale, float lo, float hi,
                        int32_t zero_point);

// The one clamp of RequantizeRowsToU8: the clamp [clamp_lo, clamp_hi] (clamp_lo <= clamp_hi,
// infinite for none) divided by `scale`, met with the uint8 range less the zero point.
void QuotientBounds(float clamp_lo, float clamp_hi, float scale, int32_t zero_point, float* lo,
                    float* hi);

}  // namespace webnx::simd
