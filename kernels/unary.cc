// Elementwise one-input math: Exp, Log, Sqrt, Reciprocal, Neg, Abs, Floor, Ceil, Round, Erf,
// Sin, Cos, Sign and Not. Float math is float32; Neg, Abs and Sign also take int32/int64 where
// the schema allows, and Not takes bool. (Activations are in activations.cc.)
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "kernels/registrations.h"
#include "kernels/unary_common.h"

namespace webnx {
namespace {

using unary::ExpFloat;
using unary::NoAttrs;
using unary::RegisterUnary;

// Integer negation wraps (two's complement) instead of overflowing into undefined behaviour.
template <typename T>
T WrapNeg(T x) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(U(0) - static_cast<U>(x));
}

struct ExpFn : NoAttrs {
  float operator()(float x) const { return ExpFloat(x); }
  static double Float64(double x) { return std::exp(x); }
};
struct LogFn : NoAttrs {
  float operator()(float x) const { return std::log(x); }
  static double Float64(double x) { return std::log(x); }
};
struct SqrtFn : NoAttrs {
  float operator()(float x) const { return std::sqrt(x); }
  static double Float64(double x) { return std::sqrt(x); }
};
struct ReciprocalFn : NoAttrs {
  float operator()(float x) const { return 1.f / x; }
  static double Float64(double x) { return 1.0 / x; }
};
struct NegFn : NoAttrs {
  static constexpr int kIntegersSince = 6;
  template <typename T>
  T operator()(T x) const {
    if constexpr (std::is_integral_v<T>) return WrapNeg(x);
    return -x;
  }
  static double Float64(double x) { return -x; }
};
struct AbsFn : NoAttrs {
  static constexpr int kIntegersSince = 6;
  template <typename T>
  T operator()(T x) const {
    if constexpr (std::is_integral_v<T>) return x < 0 ? WrapNeg(x) : x;
    return std::fabs(x);
  }
  static double Float64(double x) { return std::fabs(x); }
};
struct FloorFn : NoAttrs {
  float operator()(float x) const { return std::floor(x); }
  static double Float64(double x) { return std::floor(x); }
};
struct CeilFn : NoAttrs {
  float operator()(float x) const { return std::ceil(x); }
  static double Float64(double x) { return std::ceil(x); }
};
struct RoundFn : NoAttrs {
  // Halves round to even (the default rounding mode), as the spec requires.
  float operator()(float x) const { return std::nearbyint(x); }
  static double Float64(double x) { return std::nearbyint(x); }
};
struct ErfFn : NoAttrs {
  float operator()(float x) const { return std::erf(x); }
};
struct SinFn : NoAttrs {
  float operator()(float x) const { return std::sin(x); }
  static double Float64(double x) { return std::sin(x); }
};
struct CosFn : NoAttrs {
  float operator()(float x) const { return std::cos(x); }
  static double Float64(double x) { return std::cos(x); }
};
struct SignFn : NoAttrs {
  static constexpr int kIntegersSince = 9;
  template <typename T>
  T operator()(T x) const {
    if (x > 0) return T(1);
    if (x < 0) return T(-1);
    return x;  // 0 stays 0, NaN stays NaN
  }
};

class NotKernel final : public Kernel {
 public:
  ElementwiseKind Elementwise() const override { return ElementwiseKind::kUnary; }
  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(1, 1));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(0, {DType::kBool}));
    ctx.SetOutput(0, DType::kBool, ctx.shape(0));
    return Status::Ok();
  }
  Status Run(RunContext& ctx) override {
    const bool* in = ctx.input(0).ptr<bool>();
    bool* out = ctx.output(0).ptr<bool>();
    const int64_t n = ctx.input(0).numel();
    for (int64_t i = 0; i < n; ++i) out[i] = !in[i];
    return Status::Ok();
  }
};

}  // namespace

void RegisterUnaryKernels(OpRegistry& r) {
  RegisterUnary<ExpFn>(r, "Exp", {6, 13});
  RegisterUnary<LogFn>(r, "Log", {6, 13});
  RegisterUnary<SqrtFn>(r, "Sqrt", {6, 13});
  RegisterUnary<ReciprocalFn>(r, "Reciprocal", {6, 13});
  RegisterUnary<NegFn>(r, "Neg", {6, 13});
  RegisterUnary<AbsFn>(r, "Abs", {6, 13});
  RegisterUnary<FloorFn>(r, "Floor", {6, 13});
  RegisterUnary<CeilFn>(r, "Ceil", {6, 13});
  RegisterUnary<RoundFn>(r, "Round", {11, 22});
  RegisterUnary<ErfFn>(r, "Erf", {9, 13});
  RegisterUnary<SinFn>(r, "Sin", {7, 22});
  RegisterUnary<CosFn>(r, "Cos", {7, 22});
  RegisterUnary<SignFn>(r, "Sign", {9, 13});
  r.Register("", "Not", {{1}, Inputs(1), Outputs(1)}, MakeKernel<NotKernel>);
}

}  // namespace webnx
