// Elementwise activations: Relu, LeakyRelu, Clip, Sigmoid, HardSigmoid, HardSwish, Tanh, Elu,
// Selu, Softplus and Gelu. Float32; Relu (14) and Clip (12) also take int32/int64. Sigmoid,
// HardSigmoid and HardSwish have SIMD bodies (kernels/simd/activation.h).
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "kernels/dtype_dispatch.h"
#include "kernels/registrations.h"
#include "kernels/simd/activation.h"
#include "kernels/unary_common.h"
#include "kernels/widening.h"

namespace webnx {
namespace {

using unary::ExpFloat;
using unary::NoAttrs;
using unary::RegisterUnary;

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
      ctx.AcceptDType(i);
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

  EpilogueStage AsEpilogueStage() const override {
    return clamp_known_ ? EpilogueStage::Clamp(clamp_lo_, clamp_hi_) : EpilogueStage{};
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

void RegisterActivationKernels(OpRegistry& r) {
  RegisterUnary<ReluFn>(r, "Relu", {6, 13, 14});
  RegisterUnary<LeakyReluFn>(r, "LeakyRelu", {6, 16});
  // 11 turned min and max into optional inputs.
  r.Register("", "Clip", {{{6}, Inputs(1), Outputs(1)}, {{11, 12, 13}, Inputs(1, 3), Outputs(1)}},
             MakeWidening<MakeKernel<ClipKernel>, Uint64As::kOrdered>);
  RegisterUnary<SigmoidFn>(r, "Sigmoid", {6, 13});
  RegisterUnary<HardSigmoidFn>(r, "HardSigmoid", {6, 22});
  RegisterUnary<HardSwishFn>(r, "HardSwish", {14, 22});
  RegisterUnary<TanhFn>(r, "Tanh", {6, 13});
  RegisterUnary<EluFn>(r, "Elu", {6, 22});
  RegisterUnary<SeluFn>(r, "Selu", {6, 22});
  RegisterUnary<SoftplusFn>(r, "Softplus", {1, 22});
  RegisterUnary<GeluFn>(r, "Gelu", {20});
}

}  // namespace webnx
