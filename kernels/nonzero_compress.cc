// NonZero and Compress: outputs whose length is the count of something in the data. Planned at
// their largest (every element counted), they set their output shapes when run, and the planner
// plans the rest of the graph per the shapes runs produce (PlanContext::SetOutputBound). A
// Compress whose condition is known when planned has its exact shape instead.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include "kernels/dtype_dispatch.h"
#include "kernels/indexing_common.h"
#include "kernels/nn_common.h"
#include "kernels/registrations.h"

namespace webnx {
namespace {

template <typename T>
bool IsNonZero(T v) {
  return v != T{};
}

// NonZero: the coordinates of the non-zero elements, [rank, count], in row-major order.
class NonZeroKernel final : public Kernel {
 public:
  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(1, 1));
    dims_ = ctx.shape(0);
    dtype_ = ctx.dtype(0);
    int64_t numel = 0;
    ShapeNumel(dims_, &numel);
    ctx.SetOutputBound(0, DType::kInt64, {static_cast<int64_t>(dims_.size()), numel});
    return Status::Ok();
  }

  Status Run(RunContext& ctx) override {
    const Tensor& x = ctx.input(0);
    Tensor& y = ctx.output(0);
    const int64_t numel = x.numel();
    const int64_t rank = static_cast<int64_t>(dims_.size());
    int64_t count = 0;
    DispatchDType(dtype_, [&](auto tag) {
      using T = decltype(tag);
      const T* v = x.ptr<T>();
      for (int64_t i = 0; i < numel; ++i) count += IsNonZero(v[i]) ? 1 : 0;
      int64_t* out = y.ptr<int64_t>();
      int64_t found = 0;
      for (int64_t i = 0; i < numel; ++i) {
        if (!IsNonZero(v[i])) continue;
        for (int64_t d = rank - 1, rest = i; d >= 0; --d) {
          out[d * count + found] = rest % dims_[d];
          rest /= dims_[d];
        }
        ++found;
      }
    });
    y.shape[0] = rank;
    y.shape[1] = count;
    return Status::Ok();
  }

 private:
  Shape dims_;
  DType dtype_ = DType::kUndefined;
};

// Compress: the slices along `axis` (or the elements of the flattened input) whose condition
// entry is true; entries past the condition's length are dropped.
class CompressKernel final : public Kernel {
 public:
  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(2, 2));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(1, {DType::kBool}));
    const Shape& x = ctx.shape(0);
    if (ctx.shape(1).size() != 1)
      return ctx.Error(ErrorCode::kShapeMismatch,
                       "the condition must be 1-D, not " + ShapeToString(ctx.shape(1)));
    Attrs& attrs = ctx.attrs();
    const bool flatten = !attrs.Has("axis");
    const int64_t axis_attr = attrs.Int("axis", 0);
    WEBNX_RETURN_IF_ERROR(attrs.status());
    int64_t axis = 0;
    if (!flatten)
      WEBNX_RETURN_IF_ERROR(
          indexing::NormalizeAxis(ctx, axis_attr, static_cast<int64_t>(x.size()), &axis));
    int64_t numel = 0;
    ShapeNumel(x, &numel);
    outer_ = flatten ? 1 : nn::DimProduct(x, 0, axis);
    extent_ = flatten ? numel : x[axis];
    inner_bytes_ = DTypeSize(ctx.dtype(0)) * (flatten ? 1 : nn::DimProduct(x, axis + 1, x.size()));
    out_shape_ = flatten ? Shape{numel} : x;
    axis_ = flatten ? 0 : axis;
    const Tensor* cond = ctx.constant(1);
    if (cond) {
      out_shape_[axis_] = Kept(*cond);
      ctx.SetOutput(0, ctx.dtype(0), out_shape_);
    } else {
      ctx.SetOutputBound(0, ctx.dtype(0), out_shape_);
    }
    return Status::Ok();
  }

  Status Run(RunContext& ctx) override {
    const Tensor& cond = ctx.input(1);
    const int64_t kept = Kept(cond);
    const uint8_t* x = static_cast<const uint8_t*>(ctx.input(0).data);
    Tensor& y = ctx.output(0);
    uint8_t* out = y.ptr<uint8_t>();
    const int64_t usable = std::min(extent_, cond.numel());
    for (int64_t o = 0; o < outer_; ++o) {
      const uint8_t* row = x + o * extent_ * inner_bytes_;
      for (int64_t i = 0; i < usable; ++i) {
        if (!cond.ptr<bool>()[i]) continue;
        std::memcpy(out, row + i * inner_bytes_, inner_bytes_);
        out += inner_bytes_;
      }
    }
    y.shape[axis_] = kept;
    return Status::Ok();
  }

 private:
  // True entries of the condition that select a slice.
  int64_t Kept(const Tensor& cond) const {
    int64_t kept = 0;
    const int64_t usable = std::min(extent_, cond.numel());
    for (int64_t i = 0; i < usable; ++i) kept += cond.ptr<bool>()[i] ? 1 : 0;
    return kept;
  }

  int64_t outer_ = 1, extent_ = 0, axis_ = 0;
  size_t inner_bytes_ = 0;
  Shape out_shape_;
};

}  // namespace

void RegisterNonZeroCompressKernels(OpRegistry& r) {
  r.Register("", "NonZero", {{9, 13}, Inputs(1), Outputs(1)}, MakeKernel<NonZeroKernel>);
  r.Register("", "Compress", {{9, 11}, Inputs(2), Outputs(1)}, MakeKernel<CompressKernel>);
}

}  // namespace webnx
