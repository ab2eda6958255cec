// Elementwise activations with WASM SIMD128, written to round exactly like the scalar functors
// in kernels/activations.cc (same operations in the same order, no FMA), so both paths agree
// bitwise.
#pragma once

#include <cstdint>

namespace webnx::simd {

// e^x by Cody-Waite reduction and a degree-6 polynomial (the scalar ExpFloat's algorithm).
void Exp(const float* x, float* y, int64_t n);
// 1 / (1 + e^-x), computed from e^-|x| so nothing overflows.
void Sigmoid(const float* x, float* y, int64_t n);
// clamp(alpha * x + beta, 0, 1)
void HardSigmoid(float alpha, float beta, const float* x, float* y, int64_t n);
// x * clamp(x / 6 + 1/2, 0, 1)
void HardSwish(const float* x, float* y, int64_t n);

// An activation a producer applies to its output in its epilogue: y = f(y), or gated
// y = y * f(y) (SiLU is y * sigmoid(y); hard-swish is y * hard-sigmoid(y) with alpha 1/6,
// beta 1/2). The result is bitwise what the separate kernels (and a Mul) compute.
enum class ActivationKind { kNone, kSigmoid, kHardSigmoid };
struct Activation {
  ActivationKind kind = ActivationKind::kNone;
  float alpha = 0.f, beta = 0.f;  // HardSigmoid's
  bool gated = false;
};
// HardSwish: x * hard-sigmoid(x) with alpha 1/6 and beta 1/2.
inline constexpr Activation kHardSwish{ActivationKind::kHardSigmoid, 1.f / 6.f, 0.5f, true};
// Applies `a` in place to n floats.
void ApplyActivation(const Activation& a, float* y, int64_t n);

}  // namespace webnx::simd
