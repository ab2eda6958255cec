#include "kernels/simd/activation.h"

#include <algorithm>
#include <cstdint>

#include "kernels/simd/vec.h"

namespace webnx::simd {
namespace {

// x < lo ? lo : (x > hi ? hi : x), NaN passing through as in the scalar code: PMax(x, lo) is
// x < lo ? lo : x, PMin(x, hi) is hi < x ? hi : x (one instruction each; compares and selects
// were four).
inline f32x4 ClampKeepNan(f32x4 x, f32x4 lo, f32x4 hi) {
  return PMin(PMax(x, lo), hi);
}

// e^x's constants as the vectors the loops use, read from memory once per call. Built from
// literals, LLVM would fold them into v128.const operands inside every loop, and V8 builds each
// v128.const with several instructions (Sigmoid ran at a third of its speed).
struct ExpConstants {
  f32x4 lo, hi, log2e, magic, ln2_hi, ln2_lo, p0, p1, p2, p3, p4, p5, one;
  v128_t magic_bits, exponent_bias, sign;
};

}  // namespace

// Not const, and not internal: the compiler cannot know the values (see ExpConstants).
float exp_constant_floats[] = {-104.f,
                               88.8f,
                               1.44269504088896341f,
                               12582912.f,
                               0.693359375f,
                               2.12194440e-4f,
                               1.9875691500e-4f,
                               1.3981999507e-3f,
                               8.3334519073e-3f,
                               4.1665795894e-2f,
                               1.6666665459e-1f,
                               5.0000001201e-1f,
                               1.f,
                               -87.f};
int32_t exp_constant_ints[] = {0x4B400000, 127, INT32_MIN};

namespace {

ExpConstants LoadExpConstants() {
  const float* f = exp_constant_floats;
  ExpConstants k;
  k.lo = LoadSplat(f + 0);
  k.hi = LoadSplat(f + 1);
  k.log2e = LoadSplat(f + 2);
  k.magic = LoadSplat(f + 3);
  k.ln2_hi = LoadSplat(f + 4);
  k.ln2_lo = LoadSplat(f + 5);
  k.p0 = LoadSplat(f + 6);
  k.p1 = LoadSplat(f + 7);
  k.p2 = LoadSplat(f + 8);
  k.p3 = LoadSplat(f + 9);
  k.p4 = LoadSplat(f + 10);
  k.p5 = LoadSplat(f + 11);
  k.one = LoadSplat(f + 12);
  k.magic_bits = wasm_v128_load32_splat(exp_constant_ints + 0);
  k.exponent_bias = wasm_v128_load32_splat(exp_constant_ints + 1);
  k.sign = wasm_v128_load32_splat(exp_constant_ints + 2);
  return k;
}

// For the sigmoid: e^-x no smaller than e^-87, a normal float, which 1 + e^-x rounds to 1 all
// the same; subnormals cost x86 a microcode assist each (inputs from 87 to 104 ran ~10x
// slower). Past 88.8, e^-x overflows to infinity and the sigmoid is exactly 0.
ExpConstants LoadSigmoidConstants() {
  ExpConstants k = LoadExpConstants();
  k.lo = LoadSplat(exp_constant_floats + 13);
  return k;
}

inline f32x4 ExpVec(f32x4 x, const ExpConstants& k) {
  const f32x4 clamped = ClampKeepNan(x, k.lo, k.hi);
  const f32x4 shifted = Add(Mul(clamped, k.log2e), k.magic);
  const f32x4 n = Sub(shifted, k.magic);
  const v128_t n_int = wasm_i32x4_sub(shifted, k.magic_bits);
  const f32x4 r = Add(Sub(clamped, Mul(n, k.ln2_hi)), Mul(n, k.ln2_lo));
  f32x4 p = k.p0;
  p = Add(Mul(p, r), k.p1);
  p = Add(Mul(p, r), k.p2);
  p = Add(Mul(p, r), k.p3);
  p = Add(Mul(p, r), k.p4);
  p = Add(Mul(p, r), k.p5);
  const f32x4 exp_r = Add(Add(Mul(p, Mul(r, r)), r), k.one);
  const v128_t n_half = wasm_i32x4_shr(n_int, 1);
  const v128_t scale_a = wasm_i32x4_shl(wasm_i32x4_add(n_half, k.exponent_bias), 23);
  const v128_t scale_b =
      wasm_i32x4_shl(wasm_i32x4_add(wasm_i32x4_sub(n_int, n_half), k.exponent_bias), 23);
  return Mul(Mul(exp_r, scale_a), scale_b);
}

// 1 / (1 + e^-x), with LoadSigmoidConstants' k. (The form e^-|x| / (1 + e^-|x|) for negative x
// cost 10 more instructions per vector in V8's code for the same accuracy: max relative error
// 1.4e-7 against double over [-90, 30], was 1.8e-7.)
inline f32x4 SigmoidVec(f32x4 x, const ExpConstants& k) {
  const f32x4 e = ExpVec(wasm_v128_xor(x, k.sign), k);
  return Div(k.one, Add(k.one, e));
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
  const ExpConstants k = LoadExpConstants();
  Map(x, y, n, [&](f32x4 v) { return ExpVec(v, k); });
}

WEBNX_SEPARATE_FUNCTION void Sigmoid(const float* x, float* y, int64_t n) {
  const ExpConstants k = LoadSigmoidConstants();
  Map(x, y, n, [&](f32x4 v) { return SigmoidVec(v, k); });
}

WEBNX_SEPARATE_FUNCTION void HardSigmoid(float alpha, float beta, const float* x, float* y,
                                         int64_t n) {
  const f32x4 a = Splat(alpha), b = Splat(beta);
  Map(x, y, n, [&](f32x4 v) { return ClampUnitVec(Add(Mul(a, v), b)); });
}

void HardSwish(const float* x, float* y, int64_t n) {
  const f32x4 sixth = Splat(1.f / 6.f), half = Splat(0.5f);
  Map(x, y, n, [&](f32x4 v) { return Mul(v, ClampUnitVec(Add(Mul(v, sixth), half))); });
}

namespace {

// x * f(x): rounds like Mul(x, f(x)), one product of the same two floats. One function per
// activation (the ungated ones are Sigmoid and HardSigmoid above, in place): a model's epilogues
// use one or two, and V8 recompiles only those (all in one function: 5-10 ms of a compile
// thread).
WEBNX_SEPARATE_FUNCTION void GatedSigmoid(float* y, int64_t n) {
  const ExpConstants k = LoadSigmoidConstants();
  Map(y, y, n, [&](f32x4 v) { return Mul(v, SigmoidVec(v, k)); });
}

WEBNX_SEPARATE_FUNCTION void GatedHardSigmoid(float alpha, float beta, float* y, int64_t n) {
  const f32x4 a = Splat(alpha), b = Splat(beta);
  Map(y, y, n, [&](f32x4 v) { return Mul(v, ClampUnitVec(Add(Mul(a, v), b))); });
}

}  // namespace

void ApplyActivation(const Activation& a, float* y, int64_t n) {
  switch (a.kind) {
    case ActivationKind::kNone:
      return;
    case ActivationKind::kSigmoid:
      return a.gated ? GatedSigmoid(y, n) : Sigmoid(y, y, n);
    case ActivationKind::kHardSigmoid:
      return a.gated ? GatedHardSigmoid(a.alpha, a.beta, y, n)
                     : HardSigmoid(a.alpha, a.beta, y, y, n);
  }
}

}  // namespace webnx::simd
