// More elementwise activations: Softsign, Mish, Celu, ThresholdedRelu and Shrink. Float32;
// Shrink also takes int32/int64. Where the spec defines an op by a function body, the results
// follow that body, infinities and NaN included. (Relu, Sigmoid and the rest: activations.cc.)
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "kernels/binary_common.h"
#include "kernels/registrations.h"
#include "kernels/unary_common.h"

namespace webnx {
namespace {

using unary::NoAttrs;
using unary::RegisterUnary;

struct SoftsignFn : NoAttrs {
  // x / (1 + |x|): +-inf gives NaN (inf / inf), as the spec's function body does.
  float operator()(float x) const { return x / (1.f + std::fabs(x)); }
};
struct MishFn : NoAttrs {
  // x * tanh(softplus(x)), softplus without overflow for large x. -inf gives NaN (-inf * 0), as
  // the spec's function body (Softplus, Tanh, Mul) does.
  float operator()(float x) const {
    const float softplus = x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
    return x * std::tanh(softplus);
  }
};
struct CeluFn {
  float alpha = 1.f;
  void ReadAttrs(Attrs& a) {
    alpha = a.Float("alpha", 1.f);
    if (alpha == 0.f) a.Fail("attribute 'alpha' must not be 0 (Celu divides x by it)");
  }
  static constexpr int kIntegersSince = 0;
  // max(0, x) + min(0, alpha * (e^(x / alpha) - 1)): the second term is 0 whenever x > 0, for
  // either sign of alpha. expm1 keeps small negative x accurate; NaN stays NaN.
  float operator()(float x) const { return x > 0 ? x : alpha * std::expm1(x / alpha); }
};
struct ThresholdedReluFn {
  float alpha = 1.f;
  void ReadAttrs(Attrs& a) { alpha = a.Float("alpha", 1.f); }
  static constexpr int kIntegersSince = 0;
  float operator()(float x) const { return x > alpha ? x : 0.f; }  // NaN gives 0, as Where does
};

// The float bias as the spec's function body gives it to an integer input (CastLike: toward
// zero), saturated where the cast would be out of range; NaN counts as 0.
template <typename T>
T IntegerBias(float bias) {
  const double b = std::trunc(static_cast<double>(bias));
  if (std::isnan(b)) return 0;
  if (b <= static_cast<double>(std::numeric_limits<T>::lowest()))
    return std::numeric_limits<T>::lowest();
  if (b >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
  return static_cast<T>(b);
}

// Integer sums and differences wrap (two's complement) instead of overflowing.
using binary::WrapAdd;
using binary::WrapSub;

struct ShrinkFn {
  float bias = 0.f, lambd = 0.5f;
  int32_t bias_i32 = 0;
  int64_t bias_i64 = 0;
  void ReadAttrs(Attrs& a) {
    bias = a.Float("bias", 0.f);
    lambd = a.Float("lambd", 0.5f);
    bias_i32 = IntegerBias<int32_t>(bias);
    bias_i64 = IntegerBias<int64_t>(bias);
  }
  static constexpr int kIntegersSince = 9;
  // x < -lambd: x + bias; x > lambd: x - bias; otherwise (NaN too) 0. Integers compare with the
  // float lambd, which for lambd >= 0 is what comparing with its truncation gives them.
  template <typename T>
  T operator()(T x) const {
    if constexpr (std::is_integral_v<T>) {
      const T b = std::is_same_v<T, int32_t> ? static_cast<T>(bias_i32) : static_cast<T>(bias_i64);
      const double v = static_cast<double>(x);
      if (v < -static_cast<double>(lambd)) return WrapAdd<T>(x, b);
      if (v > static_cast<double>(lambd)) return WrapSub<T>(x, b);
      return T(0);
    } else {
      return x < -lambd ? x + bias : (x > lambd ? x - bias : T(0));
    }
  }
};

}  // namespace

void RegisterActivationExtraKernels(OpRegistry& r) {
  // The 22s only added bfloat16: the same float32 kernel.
  RegisterUnary<SoftsignFn>(r, "Softsign", {1, 22});
  RegisterUnary<MishFn>(r, "Mish", {18, 22});
  RegisterUnary<CeluFn>(r, "Celu", {12});
  RegisterUnary<ThresholdedReluFn>(r, "ThresholdedRelu", {10, 22});
  RegisterUnary<ShrinkFn>(r, "Shrink", {9});
}

}  // namespace webnx
