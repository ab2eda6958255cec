// ArgMax and ArgMin: the int64 index of the largest (smallest) element along one axis, the
// first such index, or the last with select_last_index (version 12). Hardmax: 1 at the first
// largest element along the axis, 0 elsewhere (before version 13, along the flattened dims
// from the axis on).
#include <algorithm>
#include <cstdint>
#include <string>

#include "kernels/dtype_dispatch.h"
#include "kernels/indexing_common.h"
#include "kernels/nn_common.h"
#include "kernels/registrations.h"

namespace webnx {
namespace {

class ArgExtremeKernel final : public Kernel {
 public:
  explicit ArgExtremeKernel(bool max) : max_(max) {}

  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(1, 1));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(0, {DType::kFloat32, DType::kInt32, DType::kInt64}));
    const Shape& x = ctx.shape(0);
    if (x.empty()) return ctx.Error(ErrorCode::kShapeMismatch, "the input must have rank >= 1");
    Attrs& attrs = ctx.attrs();
    int64_t axis = 0;
    const int64_t rank = static_cast<int64_t>(x.size());
    WEBNX_RETURN_IF_ERROR(indexing::NormalizeAxis(ctx, attrs.Int("axis", 0), rank, &axis));
    const bool keepdims = attrs.Int("keepdims", 1) != 0;
    last_ = ctx.since_version() >= 12 && attrs.Int("select_last_index", 0) != 0;
    WEBNX_RETURN_IF_ERROR(attrs.status());
    WEBNX_RETURN_IF_ERROR(PlanView(ctx, x, axis));
    Shape out = x;
    if (keepdims) {
      out[axis] = 1;
    } else {
      out.erase(out.begin() + axis);
    }
    dtype_ = ctx.dtype(0);
    ctx.SetOutput(0, DType::kInt64, out);
    return Status::Ok();
  }

  Status Run(RunContext& ctx) override {
    DispatchDType(dtype_, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_same_v<T, bool>)
        Pick(ctx.input(0).ptr<T>(), ctx.output(0).ptr<int64_t>());
    });
    return Status::Ok();
  }

  // The search along `axis` of `x`; an empty axis with positions to fill is an error.
  Status PlanView(const PlanContext& ctx, const Shape& x, int64_t axis) {
    outer_ = nn::DimProduct(x, 0, axis);
    extent_ = x[axis];
    inner_ = nn::DimProduct(x, axis + 1, x.size());
    if (extent_ == 0 && outer_ * inner_ > 0) {
      return ctx.Error(ErrorCode::kShapeMismatch, "axis " + std::to_string(axis) + " of " +
                                                      ShapeToString(x) +
                                                      " is empty: there is no element to pick");
    }
    return Status::Ok();
  }
  int64_t picks() const { return outer_ * inner_; }

  // Calls fn(flat index of the picked element) for every position searched.
  template <typename Fn>
  void ForEachPick(const int64_t* best, Fn&& fn) const {
    for (int64_t o = 0; o < outer_; ++o)
      for (int64_t i = 0; i < inner_; ++i) fn((o * extent_ + best[o * inner_ + i]) * inner_ + i);
  }

  // Each output keeps the index of the best element so far and compares the next against it:
  // the inner loop runs over contiguous elements. (One thread: the op is a single pass over
  // its input, and a pool task per dtype would cost more code than it saves time.)
  template <typename T>
  void Pick(const T* x, int64_t* best) const {
    // Ties go to the later index when the comparison admits equality.
    const int sign = max_ ? 1 : -1;
    for (int64_t o = 0; o < outer_; ++o, x += extent_ * inner_, best += inner_) {
      std::fill(best, best + inner_, int64_t{0});
      for (int64_t k = 1; k < extent_; ++k) {
        const T* row = x + k * inner_;
        for (int64_t i = 0; i < inner_; ++i) {
          const T v = row[i], b = x[best[i] * inner_ + i];
          const bool better = sign * ((v > b) - (v < b)) > 0 || (last_ && v == b);
          if (better) best[i] = k;
        }
      }
    }
  }

 private:
  const bool max_;
  DType dtype_ = DType::kUndefined;
  bool last_ = false;
  int64_t outer_ = 0, extent_ = 0, inner_ = 0;
};

class HardmaxKernel final : public Kernel {
 public:
  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(1, 1));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(0, {DType::kFloat32}));
    const Shape& x = ctx.shape(0);
    if (x.empty()) return ctx.Error(ErrorCode::kShapeMismatch, "the input must have rank >= 1");
    const bool flattened = ctx.since_version() < 13;
    int64_t axis = 0;
    WEBNX_RETURN_IF_ERROR(indexing::NormalizeAxis(ctx, ctx.attrs().Int("axis", flattened ? 1 : -1),
                                                  static_cast<int64_t>(x.size()), &axis));
    WEBNX_RETURN_IF_ERROR(ctx.attrs().status());
    // The flattened form is the same search with the trailing dims as one axis.
    const Shape view =
        flattened ? Shape{nn::DimProduct(x, 0, axis), nn::DimProduct(x, axis, x.size())} : x;
    WEBNX_RETURN_IF_ERROR(argmax_.PlanView(ctx, view, flattened ? 1 : axis));
    ctx.SetOutput(0, DType::kFloat32, x);
    return Tensor::AllocateUninitialized(DType::kInt64, Shape{argmax_.picks()}, &best_);
  }

  Status Run(RunContext& ctx) override {
    int64_t* best = best_.ptr<int64_t>();
    argmax_.Pick(ctx.input(0).ptr<float>(), best);
    Tensor& y = ctx.output(0);
    std::fill(y.ptr<float>(), y.ptr<float>() + y.numel(), 0.f);
    argmax_.ForEachPick(best, [&](int64_t at) { y.ptr<float>()[at] = 1.f; });
    return Status::Ok();
  }

 private:
  ArgExtremeKernel argmax_{true};
  Tensor best_;  // the index picked per (outer, inner) position
};

}  // namespace

void RegisterArgExtremeKernels(OpRegistry& r) {
  r.Register("", "ArgMax", {{1, 11, 12, 13}, Inputs(1), Outputs(1)},
             []() -> Kernel* { return new ArgExtremeKernel(true); });
  r.Register("", "Hardmax", {{1, 11, 13}, Inputs(1), Outputs(1)}, MakeKernel<HardmaxKernel>);
  r.Register("", "ArgMin", {{1, 11, 12, 13}, Inputs(1), Outputs(1)},
             []() -> Kernel* { return new ArgExtremeKernel(false); });
}

}  // namespace webnx
