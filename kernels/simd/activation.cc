#include "kernels/simd/activation.h"

#include <algorithm>

#include "kernels/simd/vec.h"

namespace webnx::simd {
namespace {

// x < lo ? lo : (x > hi ? hi : x), NaN passing through as in the scalar code.
inline f32x4 ClampKeepNan(f32x4 x, f32x4 lo, f32x4 hi) {
  x = wasm_v128_bitselect(lo, x, wasm_f32x4_lt(x, lo));
  return wasm_v128_bitselect(hi, x, wasm_f32x4_gt(x, hi));
}

inline f32x4 ExpVec(f32x4 x) {
  const f32x4 clamped = ClampKeepNan(x, Splat(-104.f), Splat(88.8f));
  const f32x4 magic = Splat(12582912.f);
  const f32x4 shifted = Add(Mul(clamped, Splat(1.44269504088896341f)), magic);
  const f32x4 n = Sub(shifted, magic);
  const v128_t n_int = wasm_i32x4_sub(shifted, wasm_i32x4_splat(0x4B400000));
  const f32x4 r = Add(Sub(clamped, Mul(n, Splat(0.693359375f))), Mul(n, Splat(2.12194440e-4f)));
  f32x4 p = Splat(1.9875691500e-4f);
  p = Add(Mul(p, r), Splat(1.3981999507e-3f));
  p = Add(Mul(p, r), Splat(8.3334519073e-3f));
  p = Add(Mul(p, r), Splat(4.1665795894e-2f));
  p = Add(Mul(p, r), Splat(1.6666665459e-1f));
  p = Add(Mul(p, r), Splat(5.0000001201e-1f));
  const f32x4 exp_r = Add(Add(Mul(p, Mul(r, r)), r), Splat(1.f));
  const v128_t n_half = wasm_i32x4_shr(n_int, 1);
  const v128_t bias = wasm_i32x4_splat(127);
  const v128_t scale_a = wasm_i32x4_shl(wasm_i32x4_add(n_half, bias), 23);
  const v128_t scale_b = wasm_i32x4_shl(wasm_i32x4_add(wasm_i32x4_sub(n_int, n_half), bias), 23);
  return Mul(Mul(exp_r, scale_a), scale_b);
}

inline f32x4 SigmoidVec(f32x4 x) {
  const f32x4 e = ExpVec(wasm_f32x4_neg(wasm_f32x4_abs(x)));
  const f32x4 s = Div(Splat(1.f), Add(Splat(1.f), e));
  return wasm_v128_bitselect(s, Mul(e, s), wasm_f32x4_ge(x, Splat(0.f)));
}

// v < 0 ? 0 : (v > 1 ? 1 : v)
inline f32x4 ClampUnitVec(f32x4 v) {
  return ClampKeepNan(v, Splat(0.f), Splat(1.f));
}

// Applies `op` to whole vectors, then to the last 1-3 elements through a padded copy.
template <typename Op>
void Map(const float* x, float* y, int64_t n, Op op) {
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) Store(y + i, op(Load(x + i)));
  if (i < n) {
    alignas(16) float tail[4] = {0, 0, 0, 0};
    std::copy(x + i, x + n, tail);
    Store(tail, op(Load(tail)));
    std::copy(tail, tail + (n - i), y + i);
  }
}

}  // namespace

void Exp(const float* x, float* y, int64_t n) {
  Map(x, y, n, [](f32x4 v) { return ExpVec(v); });
}

void Sigmoid(const float* x, float* y, int64_t n) {
  Map(x, y, n, [](f32x4 v) { return SigmoidVec(v); });
}

void HardSigmoid(float alpha, float beta, const float* x, float* y, int64_t n) {
  const f32x4 a = Splat(alpha), b = Splat(beta);
  Map(x, y, n, [&](f32x4 v) { return ClampUnitVec(Add(Mul(a, v), b)); });
}

void HardSwish(const float* x, float* y, int64_t n) {
  const f32x4 sixth = Splat(1.f / 6.f), half = Splat(0.5f);
  Map(x, y, n, [&](f32x4 v) { return Mul(v, ClampUnitVec(Add(Mul(v, sixth), half))); });
}

}  // namespace webnx::simd
