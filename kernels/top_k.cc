// TopK: the k largest (or smallest) elements along one axis and their int64 indices, ordered
// best first; equal values keep their index order, as the spec requires. k is an input from
// version 10 and must be known when the plan is made (it sets the output shape).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/dtype_dispatch.h"
#include "kernels/indexing_common.h"
#include "kernels/nn_common.h"
#include "kernels/registrations.h"

namespace webnx {
namespace {

// True when value a comes before value b. NaN counts as the largest value, so the order stays a
// strict weak one (which std::partial_sort needs) whatever the input holds.
template <typename T>
bool Ranks(T a, T b, bool largest) {
  if constexpr (std::is_floating_point_v<T>) {
    const bool a_nan = std::isnan(a), b_nan = std::isnan(b);
    if (a_nan || b_nan) return a_nan != b_nan && a_nan == largest;
  }
  return largest ? a > b : a < b;
}

class TopKKernel final : public Kernel {
 public:
  void DeclarePlanTimeInputs(FormContext& ctx, std::vector<int>* inputs) const override {
    if (ctx.since_version() >= 10) *inputs = {1};
  }

  Status Plan(PlanContext& ctx) override {
    const bool k_input = ctx.since_version() >= 10;
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(k_input ? 2 : 1, k_input ? 2 : 1));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(0, {DType::kFloat32, DType::kInt32, DType::kInt64}));
    const Shape& x = ctx.shape(0);
    if (x.empty()) return ctx.Error(ErrorCode::kShapeMismatch, "the input must have rank >= 1");
    Attrs& attrs = ctx.attrs();
    int64_t axis = 0;
    WEBNX_RETURN_IF_ERROR(
        indexing::NormalizeAxis(ctx, attrs.Int("axis", -1), static_cast<int64_t>(x.size()), &axis));
    largest_ = attrs.Int("largest", 1) != 0;
    int64_t k = attrs.Int("k", -1);
    WEBNX_RETURN_IF_ERROR(attrs.status());
    if (k_input) WEBNX_RETURN_IF_ERROR(ReadK(ctx, &k));
    if (k < 0 || k > x[axis]) {
      return ctx.Error(ErrorCode::kMalformedModel,
                       "k " + std::to_string(k) + " is outside [0, " + std::to_string(x[axis]) +
                           "] for axis " + std::to_string(axis) + " of " + ShapeToString(x));
    }
    k_ = k;
    outer_ = nn::DimProduct(x, 0, axis);
    extent_ = x[axis];
    inner_ = nn::DimProduct(x, axis + 1, x.size());
    dtype_ = ctx.dtype(0);
    Shape out = x;
    out[axis] = k;
    ctx.SetOutput(0, dtype_, out);
    ctx.SetOutput(1, DType::kInt64, out);
    order_.resize(static_cast<size_t>(extent_));
    return Status::Ok();
  }

  Status Run(RunContext& ctx) override {
    DispatchDType(dtype_, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_same_v<T, bool>) Select(ctx.input(0).ptr<T>(), ctx);
    });
    return Status::Ok();
  }

 private:
  static Status ReadK(PlanContext& ctx, int64_t* k) {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(1, {DType::kInt64}));
    const Tensor* t = ctx.constant(1);
    if (!t) return ctx.Error(ErrorCode::kMalformedModel, "input 'K' must be known when planned");
    if (t->numel() != 1) {
      return ctx.Error(ErrorCode::kMalformedModel,
                       "input 'K' must hold one value, got shape " + ShapeToString(t->shape));
    }
    *k = t->ptr<int64_t>()[0];
    return Status::Ok();
  }

  // Per slice: a partial sort of the indices, best value first, then lower index first.
  template <typename T>
  void Select(const T* x, RunContext& ctx) {
    T* values = ctx.output(0).ptr<T>();
    int64_t* indices = ctx.output(1).ptr<int64_t>();
    const bool largest = largest_;
    for (int64_t o = 0; o < outer_; ++o) {
      for (int64_t i = 0; i < inner_; ++i) {
        const T* slice = x + o * extent_ * inner_ + i;
        for (int64_t e = 0; e < extent_; ++e) order_[e] = e;
        const int64_t inner = inner_;
        std::partial_sort(order_.begin(), order_.begin() + k_, order_.end(),
                          [&](int64_t a, int64_t b) {
                            const T va = slice[a * inner], vb = slice[b * inner];
                            if (Ranks(va, vb, largest)) return true;
                            if (Ranks(vb, va, largest)) return false;
                            return a < b;
                          });
        for (int64_t j = 0; j < k_; ++j) {
          const int64_t at = (o * k_ + j) * inner_ + i;
          values[at] = slice[order_[j] * inner_];
          indices[at] = order_[j];
        }
      }
    }
  }

  bool largest_ = true;
  int64_t k_ = 0, outer_ = 0, extent_ = 0, inner_ = 0;
  DType dtype_ = DType::kUndefined;
  std::vector<int64_t> order_;  // sized when planned: Run allocates nothing
};

}  // namespace

void RegisterTopKKernels(OpRegistry& r) {
  r.Register("", "TopK", {{{1}, Inputs(1), Outputs(2)}, {{10, 11}, Inputs(2), Outputs(2)}},
             MakeKernel<TopKKernel>);
}

}  // namespace webnx
