// CumSum: running sums along one axis (an input, known when the plan is made), inclusive or
// exclusive, forward or reversed.
#include <cstdint>
#include <string>
#include <type_traits>

#include "kernels/binary_common.h"
#include "kernels/dtype_dispatch.h"
#include "kernels/indexing_common.h"
#include "kernels/nn_common.h"
#include "kernels/registrations.h"

namespace webnx {
namespace {

// Integer sums wrap (two's complement) instead of overflowing into undefined behaviour.
template <typename T>
T Add(T a, T b) {
  if constexpr (std::is_integral_v<T>) return binary::WrapAdd(a, b);
  return a + b;
}

class CumSumKernel final : public Kernel {
 public:
  void DeclarePlanTimeInputs(FormContext& ctx, std::vector<int>* inputs) const override {
    *inputs = {1};
  }

  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(2, 2));
    WEBNX_RETURN_IF_ERROR(
        ctx.ExpectDType(0, {DType::kFloat32, DType::kFloat64, DType::kInt32, DType::kInt64}));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(1, {DType::kInt32, DType::kInt64}));
    const Tensor* axis_t = ctx.constant(1);
    if (!axis_t) {
      return ctx.Error(ErrorCode::kMalformedModel,
                       "input 'axis' must be known when the plan is made");
    }
    if (axis_t->numel() != 1 || axis_t->rank() > 1) {
      return ctx.Error(ErrorCode::kMalformedModel,
                       "input 'axis' must be a scalar, got shape " + ShapeToString(axis_t->shape));
    }
    const Shape& x = ctx.shape(0);
    const int64_t rank = static_cast<int64_t>(x.size());
    if (rank == 0) return ctx.Error(ErrorCode::kShapeMismatch, "the input must have rank >= 1");
    int64_t axis = 0;
    WEBNX_RETURN_IF_ERROR(indexing::NormalizeAxis(ctx, indexing::IndexAt(*axis_t, 0), rank, &axis));
    Attrs& attrs = ctx.attrs();
    exclusive_ = attrs.Int("exclusive", 0) != 0;
    reverse_ = attrs.Int("reverse", 0) != 0;
    WEBNX_RETURN_IF_ERROR(attrs.status());
    outer_ = nn::DimProduct(x, 0, axis);
    extent_ = x[axis];
    inner_ = nn::DimProduct(x, axis + 1, x.size());
    dtype_ = ctx.dtype(0);
    ctx.SetOutput(0, dtype_, x);
    return Status::Ok();
  }

  Status Run(RunContext& ctx) override {
    if (dtype_ == DType::kFloat64) {
      Sum(ctx.input(0).ptr<double>(), ctx.output(0).ptr<double>());
      return Status::Ok();
    }
    DispatchDType(dtype_, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_same_v<T, bool>) Sum(ctx.input(0).ptr<T>(), ctx.output(0).ptr<T>());
    });
    return Status::Ok();
  }

 private:
  // Along the axis, row by row: each output row is the previous output row plus one input row
  // (exclusive: the input row before it), so the inner loop runs over contiguous elements.
  template <typename T>
  void Sum(const T* x, T* y) const {
    const int64_t slab = extent_ * inner_;
    for (int64_t o = 0; o < outer_; ++o) {
      const T* in = x + o * slab;
      T* out = y + o * slab;
      for (int64_t step = 0; step < extent_; ++step) {
        const int64_t k = reverse_ ? extent_ - 1 - step : step;
        const int64_t prev = reverse_ ? k + 1 : k - 1;  // the row summed just before
        T* row = out + k * inner_;
        for (int64_t i = 0; i < inner_; ++i) {
          const T before = step == 0 ? T(0) : out[prev * inner_ + i];
          const T add =
              exclusive_ ? (step == 0 ? T(0) : in[prev * inner_ + i]) : in[k * inner_ + i];
          row[i] = Add(before, add);
        }
      }
    }
  }

  DType dtype_ = DType::kUndefined;
  bool exclusive_ = false, reverse_ = false;
  int64_t outer_ = 0, extent_ = 0, inner_ = 0;
};

}  // namespace

void RegisterCumSumKernels(OpRegistry& r) {
  r.Register("", "CumSum", {{11, 14}, Inputs(2), Outputs(1)}, MakeKernel<CumSumKernel>);
}

}  // namespace webnx
