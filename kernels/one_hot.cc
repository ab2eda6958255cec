// OneHot(indices, depth, values): a new axis of length depth (known when the plan is made) where
// each index puts values[1] and every other position values[0]. Negative indices count from
// the end; indices outside [-depth, depth) give a row of values[0], as the spec says.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/dtype_dispatch.h"
#include "kernels/indexing_common.h"
#include "kernels/nn_common.h"
#include "kernels/registrations.h"

namespace webnx {
namespace {

// Element i of a float32, int32 or int64 tensor as an integer (floats truncated toward zero).
int64_t IntegerAt(const Tensor& t, int64_t i) {
  if (t.dtype != DType::kFloat32) return indexing::IndexAt(t, i);
  const float v = t.ptr<float>()[i];
  return std::isfinite(v) && std::fabs(v) < 9.2e18f ? static_cast<int64_t>(v) : INT64_MIN;
}

class OneHotKernel final : public Kernel {
 public:
  void DeclarePlanTimeInputs(FormContext& ctx, std::vector<int>* inputs) const override {
    *inputs = {1};
  }

  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(3, 3));
    for (int i = 0; i < 2; ++i)
      WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(i, {DType::kFloat32, DType::kInt32, DType::kInt64}));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectAnyDType(2));
    const Tensor* depth = ctx.constant(1);
    if (!depth || depth->numel() != 1) {
      return ctx.Error(ErrorCode::kMalformedModel,
                       "input 'depth' must be one value known when the plan is made");
    }
    depth_ = IntegerAt(*depth, 0);
    if (depth_ < 1 || depth_ > (int64_t{1} << 32)) {
      return ctx.Error(ErrorCode::kMalformedModel,
                       "depth must be positive, got " + std::to_string(depth_));
    }
    if (ctx.shape(2) != Shape{2}) {
      return ctx.Error(ErrorCode::kShapeMismatch,
                       "values must be [off, on], got shape " + ShapeToString(ctx.shape(2)));
    }
    const Shape& indices = ctx.shape(0);
    const int64_t rank = static_cast<int64_t>(indices.size()) + 1;
    int64_t axis = 0;
    WEBNX_RETURN_IF_ERROR(indexing::NormalizeAxis(ctx, ctx.attrs().Int("axis", -1), rank, &axis));
    WEBNX_RETURN_IF_ERROR(ctx.attrs().status());
    Shape out = indices;
    out.insert(out.begin() + axis, depth_);
    outer_ = nn::DimProduct(indices, 0, axis);
    inner_ = nn::DimProduct(indices, axis, indices.size());
    elem_ = DTypeSize(ctx.dtype(2));
    ctx.SetOutput(0, ctx.dtype(2), out);
    return Status::Ok();
  }

  // Fill with `off`, then write `on` where each index points (bytes: any dtype).
  Status Run(RunContext& ctx) override {
    const Tensor& indices = ctx.input(0);
    const auto* values = static_cast<const uint8_t*>(ctx.input(2).data);
    auto* out = static_cast<uint8_t*>(ctx.output(0).data);
    const int64_t total = ctx.output(0).numel();
    for (int64_t k = 0; k < total; ++k) std::memcpy(out + k * elem_, values, elem_);
    for (int64_t o = 0; o < outer_; ++o) {
      for (int64_t i = 0; i < inner_; ++i) {
        int64_t index = IntegerAt(indices, o * inner_ + i);
        if (index < -depth_ || index >= depth_) continue;
        if (index < 0) index += depth_;
        std::memcpy(out + ((o * depth_ + index) * inner_ + i) * elem_, values + elem_, elem_);
      }
    }
    return Status::Ok();
  }

 private:
  int64_t depth_ = 0, outer_ = 0, inner_ = 0;
  size_t elem_ = 0;
};

}  // namespace

void RegisterOneHotKernels(OpRegistry& r) {
  r.Register("", "OneHot", {{9, 11}, Inputs(3), Outputs(1)}, MakeKernel<OneHotKernel>);
}

}  // namespace webnx
