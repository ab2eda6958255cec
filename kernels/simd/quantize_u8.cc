#include "kernels/simd/quantize_u8.h"

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

void QuantizeU8(const float* x, int64_t n, float scale, int32_t zero_point, uint8_t* y) {
  const f32x4 scale_v = Splat(scale);
  const f32x4 lo = Splat(-static_cast<float>(zero_point));
  const f32x4 hi = Splat(255.f - static_cast<float>(zero_point));
  const v128_t zp = wasm_i32x4_splat(zero_point);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    v128_t q[4];
    for (int j = 0; j < 4; ++j) q[j] = RoundSaturate(Div(Load(x + i + 4 * j), scale_v), lo, hi, zp);
    StoreBytes(q, false, y + i);
  }
  WEBNX_PLAIN_LOOP
  for (; i < n; ++i) y[i] = static_cast<uint8_t>(quant::Saturate(x[i] / scale, zero_point, 0, 255));
}

}  // namespace webnx::simd
