#include "kernels/simd/quantize_u8.h"

#include "kernels/quant_params.h"
#include "kernels/simd/vec.h"

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

void QuantizeU8(const float* x, int64_t n, float scale, int32_t zero_point, uint8_t* y) {
  const f32x4 scale_v = Splat(scale);
  const f32x4 lo = Splat(-static_cast<float>(zero_point));
  const f32x4 hi = Splat(255.f - static_cast<float>(zero_point));
  const v128_t zp = wasm_i32x4_splat(zero_point);
  // round(x / scale) clamped to [lo, hi] (NaN stays NaN and converts to 0), plus the zero point.
  auto quantize = [&](f32x4 v) {
    const f32x4 r = PMin(PMax(wasm_f32x4_nearest(Div(v, scale_v)), lo), hi);
    return wasm_i32x4_add(wasm_i32x4_trunc_sat_f32x4(r), zp);
  };
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const v128_t a = wasm_i16x8_narrow_i32x4(quantize(Load(x + i)), quantize(Load(x + i + 4)));
    const v128_t b = wasm_i16x8_narrow_i32x4(quantize(Load(x + i + 8)), quantize(Load(x + i + 12)));
    wasm_v128_store(y + i, wasm_u8x16_narrow_i16x8(a, b));
  }
  WEBNX_PLAIN_LOOP
  for (; i < n; ++i) y[i] = static_cast<uint8_t>(quant::Saturate(x[i] / scale, zero_point, 0, 255));
}

}  // namespace webnx::simd
