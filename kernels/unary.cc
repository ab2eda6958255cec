// Elementwise one-input ops: activations (Relu, LeakyRelu, Clip, Sigmoid, HardSigmoid,
// HardSwish, Tanh, Elu, Selu, Softplus, Gelu) and math (Exp, Log, Sqrt, Reciprocal, Neg, Abs,
// Floor, Ceil, Round, Erf, Sin, Cos, Sign, Not). Float math is float32; a few ops also take
// int32/int64 where the schema allows.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "kernels/dtype_dispatch.h"
#include "kernels/epilogue_function.h"
#include "kernels/registrations.h"
#include "kernels/simd/activation.h"

namespace webnx {
namespace {

// Each op is a functor: ReadAttrs (reads and checks attributes), kIntegersSince (first
// since-version taking int32/int64, 0 when never) and operator() on float and, if it takes
// integers, on int32/int64.
struct NoAttrs {
  void ReadAttrs(Attrs&) {}
  static constexpr int kIntegersSince = 0;
};

// Functors with a SIMD body (kernels/simd/activation.h) expose it as Vector(x, y, n).
template <typename Fn, typename = void>
struct HasVector : std::false_type {};
template <typename Fn>
struct HasVector<Fn, std::void_t<decltype(std::declval<const Fn&>().Vector(nullptr, nullptr, 0))>>
    : std::true_type {};

// Functors that are clamps (Relu) say so with AsClamp(lo, hi), so the planner can fuse them.
template <typename Fn, typename = void>
struct HasAsClamp : std::false_type {};
template <typename Fn>
struct HasAsClamp<Fn, std::void_t<decltype(std::declval<const Fn&>().AsClamp(nullptr, nullptr))>>
    : std::true_type {};

// Functors a producer can apply in its epilogue describe themselves with AsActivation().
template <typename Fn, typename = void>
struct HasAsActivation : std::false_type {};
template <typename Fn>
struct HasAsActivation<Fn, std::void_t<decltype(std::declval<const Fn&>().AsActivation())>>
    : std::true_type {};

// Integer negation wraps (two's complement) instead of overflowing into undefined behaviour.
template <typename T>
T WrapNeg(T x) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(U(0) - static_cast<U>(x));
}

// e^x from plain float arithmetic (Cody-Waite reduction and a degree-6 polynomial, within about
// 2 ulp): unlike libm's expf it auto-vectorises and rounds identically natively and in wasm.
// Handles the full range: overflow to inf, gradual underflow to 0, NaN in -> NaN out.
inline float ExpFloat(float x) {
  const float clamped = x < -104.f ? -104.f : (x > 88.8f ? 88.8f : x);  // NaN passes through
  // n = round(x / ln2) by the 1.5 * 2^23 trick; its low mantissa bits then hold n as an integer,
  // which avoids a float->int conversion (a trap on NaN in wasm).
  const float shifted = clamped * 1.44269504088896341f + 12582912.f;
  const float n = shifted - 12582912.f;
  uint32_t shifted_bits;
  std::memcpy(&shifted_bits, &shifted, 4);
  // Bit arithmetic is unsigned so garbage from a NaN input wraps instead of overflowing.
  const int32_t n_int = static_cast<int32_t>(shifted_bits - 0x4B400000u);
  // r = x - n * ln2, with ln2 split so n * ln2_hi is exact.
  const float r = (clamped - n * 0.693359375f) + n * 2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float exp_r = p * (r * r) + r + 1.f;
  // 2^n as two normal powers of two so neither overflows nor flushes before the product.
  const int32_t n_half = n_int >> 1;  // a shift: wasm SIMD has no integer division
  const uint32_t bits_a = static_cast<uint32_t>(n_half + 127) << 23;
  const uint32_t bits_b = static_cast<uint32_t>(n_int - n_half + 127) << 23;
  float scale_a, scale_b;
  std::memcpy(&scale_a, &bits_a, 4);
  std::memcpy(&scale_b, &bits_b, 4);
  return exp_r * scale_a * scale_b;
}

// Clamps to [0, 1]; NaN propagates as with numpy's clip.
inline float ClampUnit(float v) {
  return v < 0.f ? 0.f : (v > 1.f ? 1.f : v);
}

struct ReluFn : NoAttrs {
  static constexpr int kIntegersSince = 14;
  bool AsClamp(float* lo, float* hi) const {
    *lo = 0.f;
    *hi = std::numeric_limits<float>::infinity();
    return true;
  }
  template <typename T>
  T operator()(T x) const {
    return x < 0 ? T(0) : x;  // NaN propagates
  }
};
struct LeakyReluFn {
  float alpha = 0.01f;
  void ReadAttrs(Attrs& a) { alpha = a.Float("alpha", 0.01f); }
  static constexpr int kIntegersSince = 0;
  float operator()(float x) const { return x < 0 ? alpha * x : x; }
};
struct SigmoidFn : NoAttrs {
  void Vector(const float* x, float* y, int64_t n) const { simd::Sigmoid(x, y, n); }
  simd::Activation AsActivation() const {
    return {simd::ActivationKind::kSigmoid, 0.f, 0.f, false};
  }
  // From e^-|x| so nothing overflows; both branches are selects, so the loop vectorises.
  float operator()(float x) const {
    const float e = ExpFloat(-std::fabs(x));
    const float s = 1.f / (1.f + e);
    return x >= 0 ? s : e * s;
  }
};
struct HardSigmoidFn {
  float alpha = 0.2f, beta = 0.5f;
  void ReadAttrs(Attrs& a) {
    alpha = a.Float("alpha", 0.2f);
    beta = a.Float("beta", 0.5f);
  }
  static constexpr int kIntegersSince = 0;
  float operator()(float x) const { return ClampUnit(alpha * x + beta); }
  void Vector(const float* x, float* y, int64_t n) const {
    simd::HardSigmoid(alpha, beta, x, y, n);
  }
  simd::Activation AsActivation() const {
    return {simd::ActivationKind::kHardSigmoid, alpha, beta, false};
  }
};
struct HardSwishFn : NoAttrs {
  float operator()(float x) const { return x * ClampUnit(x * (1.f / 6.f) + 0.5f); }
  void Vector(const float* x, float* y, int64_t n) const { simd::HardSwish(x, y, n); }
  // x * hard-sigmoid(x) with alpha 1/6 and beta 1/2, rounded the same way.
  simd::Activation AsActivation() const { return simd::kHardSwish; }
};
struct TanhFn : NoAttrs {
  float operator()(float x) const { return std::tanh(x); }
};
struct EluFn {
  float alpha = 1.f;
  void ReadAttrs(Attrs& a) { alpha = a.Float("alpha", 1.f); }
  static constexpr int kIntegersSince = 0;
  float operator()(float x) const { return x < 0 ? alpha * std::expm1(x) : x; }
};
struct SeluFn {
  float alpha = 1.67326319217681884765625f, gamma = 1.05070102214813232421875f;
  void ReadAttrs(Attrs& a) {
    alpha = a.Float("alpha", alpha);
    gamma = a.Float("gamma", gamma);
  }
  static constexpr int kIntegersSince = 0;
  float operator()(float x) const { return x > 0 ? gamma * x : gamma * alpha * std::expm1(x); }
};
struct SoftplusFn : NoAttrs {
  // log(1 + e^x) without overflow for large x.
  float operator()(float x) const {
    return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
  }
};
struct GeluFn {
  bool tanh_approximation = false;
  void ReadAttrs(Attrs& a) {
    const std::string mode = a.String("approximate", "none");
    if (mode == "tanh") {
      tanh_approximation = true;
    } else if (mode != "none") {
      a.Fail("attribute 'approximate' must be \"none\" or \"tanh\", got \"" + mode + "\"");
    }
  }
  static constexpr int kIntegersSince = 0;
  float operator()(float x) const {
    if (tanh_approximation) {
      const float k = 0.7978845608028654f;  // sqrt(2 / pi)
      return 0.5f * x * (1.f + std::tanh(k * (x + 0.044715f * x * x * x)));
    }
    return 0.5f * x * (1.f + std::erf(x * 0.7071067811865476f));
  }
};
struct ExpFn : NoAttrs {
  float operator()(float x) const { return ExpFloat(x); }
};
struct LogFn : NoAttrs {
  float operator()(float x) const { return std::log(x); }
};
struct SqrtFn : NoAttrs {
  float operator()(float x) const { return std::sqrt(x); }
};
struct ReciprocalFn : NoAttrs {
  float operator()(float x) const { return 1.f / x; }
};
struct NegFn : NoAttrs {
  static constexpr int kIntegersSince = 6;
  template <typename T>
  T operator()(T x) const {
    if constexpr (std::is_integral_v<T>) return WrapNeg(x);
    return -x;
  }
};
struct AbsFn : NoAttrs {
  static constexpr int kIntegersSince = 6;
  template <typename T>
  T operator()(T x) const {
    if constexpr (std::is_integral_v<T>) return x < 0 ? WrapNeg(x) : x;
    return std::fabs(x);
  }
};
struct FloorFn : NoAttrs {
  float operator()(float x) const { return std::floor(x); }
};
struct CeilFn : NoAttrs {
  float operator()(float x) const { return std::ceil(x); }
};
struct RoundFn : NoAttrs {
  // Halves round to even (the default rounding mode), as the spec requires.
  float operator()(float x) const { return std::nearbyint(x); }
};
struct ErfFn : NoAttrs {
  float operator()(float x) const { return std::erf(x); }
};
struct SinFn : NoAttrs {
  float operator()(float x) const { return std::sin(x); }
};
struct CosFn : NoAttrs {
  float operator()(float x) const { return std::cos(x); }
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

template <typename Fn>
class UnaryKernel final : public Kernel {
 public:
  ElementwiseKind Elementwise() const override { return ElementwiseKind::kUnary; }
  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(1, 1));
    if (Fn::kIntegersSince != 0 && ctx.since_version() >= Fn::kIntegersSince) {
      WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(0, {DType::kFloat32, DType::kInt32, DType::kInt64}));
    } else {
      WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(0, {DType::kFloat32}));
    }
    fn_ = Fn();
    fn_.ReadAttrs(ctx.attrs());
    WEBNX_RETURN_IF_ERROR(ctx.attrs().status());
    dtype_ = ctx.dtype(0);
    ctx.SetOutput(0, dtype_, ctx.shape(0));
    return Status::Ok();
  }

  bool IsClamp(float* lo, float* hi) const override {
    if constexpr (HasAsClamp<Fn>::value) return dtype_ == DType::kFloat32 && fn_.AsClamp(lo, hi);
    return false;
  }

  bool IsEpilogueFunction(EpilogueFunction* f) const override {
    if constexpr (HasAsActivation<Fn>::value) {
      if (dtype_ != DType::kFloat32) return false;
      *f = EpilogueOf(fn_.AsActivation());
      return true;
    }
    return false;
  }

  Status Run(RunContext& ctx) override {
    const Tensor& x = ctx.input(0);
    Tensor& y = ctx.output(0);
    const int64_t n = x.numel();
    if constexpr (HasVector<Fn>::value) {
      if (dtype_ == DType::kFloat32) {
        // Chunks of whole vectors, so every element is computed exactly as on one thread.
        constexpr int64_t kChunk = 1 << 14;
        ctx.ParallelFor((n + kChunk - 1) / kChunk, [&](int64_t c, int) {
          const int64_t begin = c * kChunk;
          fn_.Vector(x.ptr<float>() + begin, y.ptr<float>() + begin, std::min(kChunk, n - begin));
        });
        return Status::Ok();
      }
    }
    DispatchDType(dtype_, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_same_v<T, float> ||
                    (Fn::kIntegersSince != 0 && !std::is_same_v<T, bool>)) {
        const T* in = x.ptr<T>();
        T* out = y.ptr<T>();
        for (int64_t i = 0; i < n; ++i) out[i] = fn_(in[i]);
      }
    });
    return Status::Ok();
  }

 private:
  Fn fn_;
  DType dtype_ = DType::kUndefined;
};

template <typename Fn>
void RegisterUnary(OpRegistry& r, const char* name, std::initializer_list<int> versions) {
  r.Register("", name, {versions, Inputs(1), Outputs(1)}, MakeKernel<UnaryKernel<Fn>>);
}

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

// Clip-6 takes min/max as attributes; from 11 they are optional scalar inputs (either may be
// omitted) read at run time; 12 adds integer types.
class ClipKernel final : public Kernel {
 public:
  ElementwiseKind Elementwise() const override { return ElementwiseKind::kUnary; }
  Status Plan(PlanContext& ctx) override {
    const bool bounds_are_inputs = ctx.since_version() >= 11;
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(1, bounds_are_inputs ? 3 : 1));
    if (ctx.since_version() >= 12) {
      WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(0, {DType::kFloat32, DType::kInt32, DType::kInt64}));
    } else {
      WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(0, {DType::kFloat32}));
    }
    dtype_ = ctx.dtype(0);
    attr_min_ = ctx.attrs().Float("min", std::numeric_limits<float>::lowest());
    attr_max_ = ctx.attrs().Float("max", std::numeric_limits<float>::max());
    WEBNX_RETURN_IF_ERROR(ctx.attrs().status());
    bounds_are_inputs_ = bounds_are_inputs;
    for (int i = 1; bounds_are_inputs && i < 3; ++i) {
      if (!ctx.has_input(i)) continue;
      if (ctx.dtype(i) != dtype_) {
        return ctx.Error(ErrorCode::kMalformedModel, std::string(i == 1 ? "min" : "max") + " is " +
                                                         DTypeName(ctx.dtype(i)) +
                                                         " but the input is " + DTypeName(dtype_));
      }
      int64_t numel = 0;
      if (!ShapeNumel(ctx.shape(i), &numel) || numel != 1) {
        return ctx.Error(ErrorCode::kMalformedModel, std::string(i == 1 ? "min" : "max") +
                                                         " must be a scalar, got shape " +
                                                         ShapeToString(ctx.shape(i)));
      }
    }
    ctx.SetOutput(0, dtype_, ctx.shape(0));
    // Bounds known when the plan is made make this a clamp the planner can fuse.
    clamp_known_ = dtype_ == DType::kFloat32;
    clamp_lo_ = bounds_are_inputs ? -std::numeric_limits<float>::infinity() : attr_min_;
    clamp_hi_ = bounds_are_inputs ? std::numeric_limits<float>::infinity() : attr_max_;
    for (int i = 1; bounds_are_inputs && i < 3 && clamp_known_; ++i) {
      if (!ctx.has_input(i)) continue;
      const Tensor* bound = ctx.constant(i);
      clamp_known_ = bound != nullptr;
      if (bound) (i == 1 ? clamp_lo_ : clamp_hi_) = bound->ptr<float>()[0];
    }
    return Status::Ok();
  }

  bool IsClamp(float* lo, float* hi) const override {
    *lo = clamp_lo_;
    *hi = clamp_hi_;
    return clamp_known_;
  }

  Status Run(RunContext& ctx) override {
    DispatchDType(dtype_, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_same_v<T, bool>) ClipAll<T>(ctx);
    });
    return Status::Ok();
  }

 private:
  template <typename T>
  void ClipAll(RunContext& ctx) {
    T lo = std::numeric_limits<T>::lowest();
    T hi = std::numeric_limits<T>::max();
    if (!bounds_are_inputs_) {
      lo = static_cast<T>(attr_min_);
      hi = static_cast<T>(attr_max_);
    } else {
      if (ctx.has_input(1)) lo = ctx.input(1).ptr<T>()[0];
      if (ctx.has_input(2)) hi = ctx.input(2).ptr<T>()[0];
    }
    const T* in = ctx.input(0).ptr<T>();
    T* out = ctx.output(0).ptr<T>();
    const int64_t n = ctx.input(0).numel();
    // min > max gives max everywhere, as the spec says; NaN inputs stay NaN.
    for (int64_t i = 0; i < n; ++i) {
      T v = in[i] < lo ? lo : in[i];
      out[i] = v > hi ? hi : v;
    }
  }

  DType dtype_ = DType::kUndefined;
  bool bounds_are_inputs_ = false;
  float attr_min_ = 0, attr_max_ = 0;
  bool clamp_known_ = false;  // float with bounds known at plan time
  float clamp_lo_ = 0, clamp_hi_ = 0;
};

}  // namespace

void RegisterUnaryKernels(OpRegistry& r) {
  RegisterUnary<ReluFn>(r, "Relu", {6, 13, 14});
  RegisterUnary<LeakyReluFn>(r, "LeakyRelu", {6, 16});
  // 11 turned min and max into optional inputs.
  r.Register("", "Clip", {{{6}, Inputs(1), Outputs(1)}, {{11, 12, 13}, Inputs(1, 3), Outputs(1)}},
             MakeKernel<ClipKernel>);
  RegisterUnary<SigmoidFn>(r, "Sigmoid", {6, 13});
  RegisterUnary<HardSigmoidFn>(r, "HardSigmoid", {6, 22});
  RegisterUnary<HardSwishFn>(r, "HardSwish", {14, 22});
  RegisterUnary<TanhFn>(r, "Tanh", {6, 13});
  RegisterUnary<EluFn>(r, "Elu", {6, 22});
  RegisterUnary<SeluFn>(r, "Selu", {6, 22});
  RegisterUnary<SoftplusFn>(r, "Softplus", {1, 22});
  RegisterUnary<GeluFn>(r, "Gelu", {20});
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
