// LpNormalization: X divided by its L1 or L2 norm along one axis; where the norm is zero the
// output is zero, as in the ONNX node tests. Norms accumulate in double.
#include <cmath>
#include <cstdint>
#include <string>

#include "kernels/indexing_common.h"
#include "kernels/nn_common.h"
#include "kernels/registrations.h"

namespace webnx {
namespace {

class LpNormKernel final : public Kernel {
 public:
  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(1, 1));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(0, {DType::kFloat32}));
    const Shape& x = ctx.shape(0);
    if (x.empty()) return ctx.Error(ErrorCode::kShapeMismatch, "X must have rank >= 1");
    Attrs& attrs = ctx.attrs();
    int64_t axis = 0;
    WEBNX_RETURN_IF_ERROR(
        indexing::NormalizeAxis(ctx, attrs.Int("axis", -1), static_cast<int64_t>(x.size()), &axis));
    p_ = attrs.Int("p", 2);
    WEBNX_RETURN_IF_ERROR(attrs.status());
    if (p_ != 1 && p_ != 2)
      return ctx.Error(ErrorCode::kMalformedModel,
                       "attribute 'p' must be 1 or 2, got " + std::to_string(p_));
    outer_ = nn::DimProduct(x, 0, axis);
    extent_ = x[axis];
    inner_ = nn::DimProduct(x, axis + 1, x.size());
    ctx.SetOutput(0, DType::kFloat32, x);
    return Status::Ok();
  }

  Status Run(RunContext& ctx) override {
    const float* x = ctx.input(0).ptr<float>();
    float* y = ctx.output(0).ptr<float>();
    for (int64_t o = 0; o < outer_; ++o) {
      for (int64_t i = 0; i < inner_; ++i) {
        const int64_t base = o * extent_ * inner_ + i;
        double norm = 0;
        for (int64_t k = 0; k < extent_; ++k) {
          const double v = x[base + k * inner_];
          norm += p_ == 1 ? std::fabs(v) : v * v;
        }
        // Divided in double and rounded once: x / |x| is exactly +-1 (a float scale 1 / length
        // is not, and overflows to infinity for a length below float's smallest normal).
        const double length = p_ == 1 ? norm : std::sqrt(norm);
        for (int64_t k = 0; k < extent_; ++k) {
          const int64_t at = base + k * inner_;
          y[at] = length == 0 ? 0.f : static_cast<float>(x[at] / length);
        }
      }
    }
    return Status::Ok();
  }

 private:
  int64_t p_ = 2, outer_ = 0, extent_ = 0, inner_ = 0;
};

}  // namespace

void RegisterLpNormKernels(OpRegistry& r) {
  r.Register("", "LpNormalization", {{1, 22}, Inputs(1), Outputs(1)}, MakeKernel<LpNormKernel>);
}

}  // namespace webnx
