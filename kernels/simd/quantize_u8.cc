#include "kernels/simd/quantize_u8.h"

#include <cstring>

#include "kernels/quant_params.h"

namespace webnx::simd {

void RangeWithZero(const float* x, int64_t n, float* lo, float* hi) {
  // PMin(lo, v) = v < lo ? v : lo: NaN keeps lo, as std::min(lo, v) does.
  f32x4 lo_v = Splat(0.f), hi_v = Splat(0.f);
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const f32x4 v = Load(x + i);
    lo_v = PMin(lo_v, v);
    hi_v = PMax(hi_v, v);
  }
  float l = 0.f, h = 0.f;
  for (int lane = 0; lane < 4; ++lane) {
    const float a = wasm_f32x4_extract_lane(lo_v, 0), b = wasm_f32x4_extract_lane(hi_v, 0);
    l = a < l ? a : l;
    h = h < b ? b : h;
    lo_v = wasm_i32x4_shuffle(lo_v, lo_v, 1, 2, 3, 0);
    hi_v = wasm_i32x4_shuffle(hi_v, hi_v, 1, 2, 3, 0);
  }
  WEBNX_PLAIN_LOOP
  for (; i < n; ++i) {
    l = x[i] < l ? x[i] : l;
    h = h < x[i] ? x[i] : h;
  }
  *lo = l;
  *hi = h;
}

// Four saturated int32 values stored as uint8.
inline void StoreFourBytes(v128_t q, uint8_t* out) {
  const v128_t words = wasm_i16x8_narrow_i32x4(q, q);
  const uint32_t bytes = wasm_i32x4_extract_lane(wasm_u8x16_narrow_i16x8(words, words), 0);
  std::memcpy(out, &bytes, 4);
}

void QuantizeBytes(const float* x, int64_t n, float scale, int32_t zero_point, bool is_signed,
                   uint8_t* y) {
  const int32_t q_lo = is_signed ? -128 : 0, q_hi = is_signed ? 127 : 255;
  const f32x4 scale_v = Splat(scale);
  const f32x4 lo = Splat(static_cast<float>(q_lo - zero_point));
  const f32x4 hi = Splat(static_cast<float>(q_hi - zero_point));
  const v128_t zp = wasm_i32x4_splat(zero_point);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    v128_t q[4];
    for (int j = 0; j < 4; ++j) q[j] = RoundSaturate(Div(Load(x + i + 4 * j), scale_v), lo, hi, zp);
    StoreBytes(q, is_signed, y + i);
  }
  WEBNX_PLAIN_LOOP
  for (; i < n; ++i) {
    y[i] = static_cast<uint8_t>(quant::Saturate(x[i] / scale, zero_point, q_lo, q_hi));
  }
}

void DequantizeBytes(const uint8_t* x, int64_t n, bool is_signed, int32_t zero_point, float scale,
                     float* y) {
  const v128_t zp = wasm_i32x4_splat(zero_point);
  const f32x4 scale_v = Splat(scale);
  auto four = [&](v128_t ints, float* to) {
    Store(to, Mul(wasm_f32x4_convert_i32x4(wasm_i32x4_sub(ints, zp)), scale_v));
  };
  int64_t i = 0;
  WEBNX_NO_UNROLL
  for (; i + 16 <= n; i += 16) {
    const v128_t bytes = wasm_v128_load(x + i);
    const v128_t lo =
        is_signed ? wasm_i16x8_extend_low_i8x16(bytes) : wasm_u16x8_extend_low_u8x16(bytes);
    const v128_t hi =
        is_signed ? wasm_i16x8_extend_high_i8x16(bytes) : wasm_u16x8_extend_high_u8x16(bytes);
    four(is_signed ? wasm_i32x4_extend_low_i16x8(lo) : wasm_u32x4_extend_low_u16x8(lo), y + i);
    four(is_signed ? wasm_i32x4_extend_high_i16x8(lo) : wasm_u32x4_extend_high_u16x8(lo),
         y + i + 4);
    four(is_signed ? wasm_i32x4_extend_low_i16x8(hi) : wasm_u32x4_extend_low_u16x8(hi), y + i + 8);
    four(is_signed ? wasm_i32x4_extend_high_i16x8(hi) : wasm_u32x4_extend_high_u16x8(hi),
         y + i + 12);
  }
  WEBNX_PLAIN_LOOP
  for (; i < n; ++i) {
    const int32_t v = is_signed ? static_cast<int8_t>(x[i]) : x[i];
    y[i] = static_cast<float>(v - zero_point) * scale;
  }
}

void DequantizeRowToU8(const int32_t* acc, int64_t n, const DequantizeArgs& args, float scale,
                       int32_t zero_point, uint8_t* y) {
  // No bias adds -0, which changes no value (not even -0): one loop for both.
  const f32x4 row_scale = Splat(args.scale[0]), bias = Splat(args.bias ? args.bias[0] : -0.f);
  const f32x4 lo = Splat(args.lo), hi = Splat(args.hi), scale_v = Splat(scale);
  const f32x4 q_lo = Splat(-static_cast<float>(zero_point));
  const f32x4 q_hi = Splat(255.f - static_cast<float>(zero_point));
  const v128_t zp = wasm_i32x4_splat(zero_point);
  const bool clamp = args.clamp;
  int64_t i = 0;
  WEBNX_NO_UNROLL
  for (; i + 4 <= n; i += 4) {
    const f32x4 v =
        DequantizeFour(wasm_v128_load(acc + i), row_scale, &bias, nullptr, clamp, lo, hi);
    StoreFourBytes(RoundSaturate(Div(v, scale_v), q_lo, q_hi, zp), y + i);
  }
  if (i == n) return;
  float rest[4];  // the last 1 to 3 values as the two functions compute them
  DequantizeRow(acc + i, n - i, args, rest);
  QuantizeU8(rest, n - i, scale, zero_point, y + i);
}

void QuotientBounds(float clamp_lo, float clamp_hi, float scale, int32_t zero_point, float* lo,
                    float* hi) {
  const float a = clamp_lo / scale, b = clamp_hi / scale;  // as the row's values are divided
  const float c = -static_cast<float>(zero_point), d = 255.f - static_cast<float>(zero_point);
  // Clamping to [a, b] then to [c, d] is clamping to their meet; where they do not meet, every
  // value lands on the end of [c, d] nearer [a, b].
  *lo = a > c ? a : c;
  *hi = b < d ? b : d;
  if (*lo > *hi) *lo = *hi = a > d ? d : c;
}

void RequantizeRowsToU8(const RequantizeRows& r, float scale, float lo, float hi,
                        int32_t zero_point) {
  const RequantizeStep step(scale, lo, hi, zero_point);
  for (int64_t row = 0; row < r.rows; ++row) {
    const f32x4 row_scale = Splat(r.row_scales[row]);
    const f32x4 bias = Splat(r.row_biases ? r.row_biases[row] : -0.f);
    auto sixteen = [&](const int32_t* from, uint8_t* to) {
      v128_t q[4];
      for (int j = 0; j < 4; ++j) q[j] = step.Four(wasm_v128_load(from + 4 * j), row_scale, bias);
      StoreBytes(q, false, to);
    };
    const int32_t* acc = r.acc + row * r.acc_ld;
    uint8_t* y = r.y + row * r.y_ld;
    if (r.n >= 16) {
      OverlappingSteps(r.n, 16, [&](int64_t i) { sixteen(acc + i, y + i); });
      continue;
    }
    int32_t rest[16] = {};  // a row of under 16 values through the same steps
    uint8_t bytes[16];
    std::memcpy(rest, acc, sizeof(int32_t) * r.n);
    sixteen(rest, bytes);
    std::memcpy(y, bytes, r.n);
  }
}

}  // namespace webnx::simd
