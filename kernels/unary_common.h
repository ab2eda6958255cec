// What the elementwise one-input kernels share (unary.cc, activations.cc and their *_extra.cc
// companions): UnaryKernel, which applies a functor to every element, the conventions its
// functors follow, and ExpFloat.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <type_traits>
#include <utility>

#include "core/op_registry.h"
#include "kernels/dtype_dispatch.h"
#include "kernels/epilogue_function.h"
#include "kernels/widening.h"

namespace webnx::unary {

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

// Functors that compute float64 give a static Float64(double); one shared loop calls it per
// element (float64 is rare in models: no loop per op in every download).
template <typename Fn, typename = void>
struct HasFloat64 : std::false_type {};
template <typename Fn>
struct HasFloat64<Fn, std::void_t<decltype(&Fn::Float64)>> : std::true_type {};
void UnaryLoopFloat64(const double* in, double* out, int64_t n, double (*fn)(double));

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

template <typename Fn>
class UnaryKernel final : public Kernel {
 public:
  ElementwiseKind Elementwise() const override { return ElementwiseKind::kUnary; }
  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(1, 1));
    const bool integers = Fn::kIntegersSince != 0 && ctx.since_version() >= Fn::kIntegersSince;
    if constexpr (HasFloat64<Fn>::value) {
      WEBNX_RETURN_IF_ERROR(integers ? ctx.ExpectDType(0, {DType::kFloat32, DType::kFloat64,
                                                           DType::kInt32, DType::kInt64})
                                     : ctx.ExpectDType(0, {DType::kFloat32, DType::kFloat64}));
    } else {
      WEBNX_RETURN_IF_ERROR(
          integers ? ctx.ExpectDType(0, {DType::kFloat32, DType::kInt32, DType::kInt64})
                   : ctx.ExpectDType(0, {DType::kFloat32}));
    }
    fn_ = Fn();
    fn_.ReadAttrs(ctx.attrs());
    WEBNX_RETURN_IF_ERROR(ctx.attrs().status());
    dtype_ = ctx.dtype(0);
    ctx.SetOutput(0, dtype_, ctx.shape(0));
    return Status::Ok();
  }

  EpilogueStage AsEpilogueStage() const override {
    if (dtype_ != DType::kFloat32) return {};
    if constexpr (HasAsClamp<Fn>::value) {
      float lo = 0, hi = 0;
      if (fn_.AsClamp(&lo, &hi)) return EpilogueStage::Clamp(lo, hi);
    }
    if constexpr (HasAsActivation<Fn>::value)
      return EpilogueStage::Function(EpilogueOf(fn_.AsActivation()));
    return {};
  }

  Status Run(RunContext& ctx) override {
    const Tensor& x = ctx.input(0);
    Tensor& y = ctx.output(0);
    const int64_t n = x.numel();
    if constexpr (HasFloat64<Fn>::value) {
      if (dtype_ == DType::kFloat64) {
        UnaryLoopFloat64(x.ptr<double>(), y.ptr<double>(), n, &Fn::Float64);
        return Status::Ok();
      }
    }
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
  r.Register("", name, {versions, Inputs(1), Outputs(1)},
             MakeWidening<MakeKernel<UnaryKernel<Fn>>>);
}

}  // namespace webnx::unary
