// More elementwise one-input math: Tan, the inverse trigonometric functions and the hyperbolic
// ones and their inverses (Asin, Acos, Atan, Sinh, Cosh, Asinh, Acosh, Atanh; float32, through
// libm), and the classifiers IsNaN and IsInf (float32 in, bool out). Exp, Log, Sin, Cos and the
// rest are in unary.cc.
#include <cmath>
#include <cstdint>

#include "kernels/registrations.h"
#include "kernels/unary_common.h"
#include "kernels/widening.h"

namespace webnx {
namespace {

using unary::NoAttrs;
using unary::RegisterUnary;

// Outside its domain each function gives NaN (Asin(2), Acosh(0.5)); at a pole, an infinity
// (Atanh(1)), as libm and the ONNX reference implementation do.
struct TanFn : NoAttrs {
  float operator()(float x) const { return std::tan(x); }
};
struct AsinFn : NoAttrs {
  float operator()(float x) const { return std::asin(x); }
};
struct AcosFn : NoAttrs {
  float operator()(float x) const { return std::acos(x); }
};
struct AtanFn : NoAttrs {
  float operator()(float x) const { return std::atan(x); }
};
struct SinhFn : NoAttrs {
  float operator()(float x) const { return std::sinh(x); }
};
struct CoshFn : NoAttrs {
  float operator()(float x) const { return std::cosh(x); }
};
struct AsinhFn : NoAttrs {
  float operator()(float x) const { return std::asinh(x); }
};
struct AcoshFn : NoAttrs {
  float operator()(float x) const { return std::acosh(x); }
};
struct AtanhFn : NoAttrs {
  float operator()(float x) const { return std::atanh(x); }
};

struct IsNaNFn : NoAttrs {
  bool operator()(float x) const { return std::isnan(x); }
};
struct IsInfFn {
  bool negative = true, positive = true;
  void ReadAttrs(Attrs& a) {
    negative = a.Int("detect_negative", 1) != 0;
    positive = a.Int("detect_positive", 1) != 0;
  }
  bool operator()(float x) const { return std::isinf(x) && (x > 0 ? positive : negative); }
};

// A float32 -> bool predicate per element. UnaryKernel writes its input's dtype, so the
// classifiers have this kernel of their own.
template <typename Fn>
class ClassifyKernel final : public Kernel {
 public:
  ElementwiseKind Elementwise() const override { return ElementwiseKind::kUnary; }
  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(1, 1));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(0, {DType::kFloat32}));
    fn_ = Fn();
    fn_.ReadAttrs(ctx.attrs());
    WEBNX_RETURN_IF_ERROR(ctx.attrs().status());
    ctx.SetOutput(0, DType::kBool, ctx.shape(0));
    return Status::Ok();
  }
  Status Run(RunContext& ctx) override {
    const float* in = ctx.input(0).ptr<float>();
    bool* out = ctx.output(0).ptr<bool>();
    const int64_t n = ctx.input(0).numel();
    for (int64_t i = 0; i < n; ++i) out[i] = fn_(in[i]);
    return Status::Ok();
  }

 private:
  Fn fn_;
};

}  // namespace

void RegisterUnaryMathExtraKernels(OpRegistry& r) {
  // 22 added bfloat16 to each: the same float32 kernel.
  RegisterUnary<TanFn>(r, "Tan", {7, 22});
  RegisterUnary<AsinFn>(r, "Asin", {7, 22});
  RegisterUnary<AcosFn>(r, "Acos", {7, 22});
  RegisterUnary<AtanFn>(r, "Atan", {7, 22});
  RegisterUnary<SinhFn>(r, "Sinh", {9, 22});
  RegisterUnary<CoshFn>(r, "Cosh", {9, 22});
  RegisterUnary<AsinhFn>(r, "Asinh", {9, 22});
  RegisterUnary<AcoshFn>(r, "Acosh", {9, 22});
  RegisterUnary<AtanhFn>(r, "Atanh", {9, 22});
  // 13 and 20 only added input dtypes (bfloat16, float8) webnx does not have.
  r.Register("", "IsNaN", {{9, 13, 20}, Inputs(1), Outputs(1)},
             MakeWidening<MakeKernel<ClassifyKernel<IsNaNFn>>>);
  r.Register("", "IsInf", {{10, 20}, Inputs(1), Outputs(1)},
             MakeWidening<MakeKernel<ClassifyKernel<IsInfFn>>>);
}

}  // namespace webnx
