// Resize (10, 11, 13, 18, 19) and its deprecated predecessor Upsample (7, 9), on float32.
//
// Modes nearest, linear and cubic are separable: each resized axis gets a table of taps (input
// indices and weights) per output position, and Run applies the axes one after another,
// innermost first, through two ping-pong scratch buffers. Antialiasing (18) stretches the
// linear/cubic filter by 1 / scale when downsampling, so it is just wider taps.
//
// The output shape depends on 'scales' or 'sizes', so they must be known when the plan is made
// (initializers, Constants, or computed from shapes); 'roi' only moves sample positions, so a
// run-time roi (tf_crop_and_resize) recomputes the taps in Run, into tables sized in Plan.
//
// The taps are computed in resize_taps.cc; the inputs and attributes are read in
// resize_params.cc.
#include "kernels/resize.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "kernels/nn_common.h"
#include "kernels/registrations.h"

namespace webnx {
namespace resize {
namespace {

// Resizes one axis: x is [outer, a.in, inner], y is [outer, a.out, inner].
void ResizeAxis(const AxisResize& a, int64_t outer, int64_t inner, float extrapolation,
                const float* x, float* y) {
  for (int64_t p = 0; p < outer; ++p) {
    const float* xs = x + p * a.in * inner;
    float* ys = y + p * a.out * inner;
    for (int64_t j = 0; j < a.out; ++j) {
      float* yr = ys + j * inner;
      const int32_t n = a.count[j];
      const int64_t* index = &a.index[j * a.stride];
      const float* w = &a.weight[j * a.stride];
      if (n <= 0) {
        std::fill(yr, yr + inner, n < 0 ? extrapolation : 0.f);
        continue;
      }
      if (inner == 1) {
        float acc = w[0] * xs[index[0]];
        for (int32_t t = 1; t < n; ++t) acc += w[t] * xs[index[t]];
        *yr = acc;
        continue;
      }
      const float* x0 = xs + index[0] * inner;
      if (n == 1 && w[0] == 1.f) {
        std::copy(x0, x0 + inner, yr);  // nearest, or an exact sample point
        continue;
      }
      const float w0 = w[0];
      for (int64_t i = 0; i < inner; ++i) yr[i] = w0 * x0[i];
      for (int32_t t = 1; t < n; ++t) {
        const float* xt = xs + index[t] * inner;
        const float wt = w[t];
        for (int64_t i = 0; i < inner; ++i) yr[i] += wt * xt[i];
      }
    }
  }
}

}  // namespace

Status ResizeKernel::Plan(PlanContext& ctx) {
  version_ = ctx.since_version();
  legacy_ = upsample_ || version_ < 11;  // Upsample 7/9 and Resize 10: (X, scales) only
  WEBNX_RETURN_IF_ERROR(CheckInputs(ctx));
  WEBNX_RETURN_IF_ERROR(ReadOptions(ctx));
  const Shape& x = ctx.shape(0);
  std::vector<int64_t> axes;
  WEBNX_RETURN_IF_ERROR(ReadAxes(ctx, static_cast<int64_t>(x.size()), &axes));
  WEBNX_RETURN_IF_ERROR(PlanAxes(ctx, x, axes));

  Shape y = x;
  for (const AxisResize& a : axes_) y[a.axis] = a.out;
  WEBNX_RETURN_IF_ERROR(nn::CheckNumel(ctx, y, "output"));
  ctx.SetOutput(0, DType::kFloat32, y);
  empty_ = nn::DimProduct(y, 0, y.size()) == 0;
  if (empty_) return Status::Ok();
  WEBNX_RETURN_IF_ERROR(PlanRoi(ctx, axes));
  for (AxisResize& a : axes_) {
    if (!roi_at_run_) ComputeTaps(options_, &a, tap_scratch_.data());
  }
  return PlanPasses(x);
}

Status ResizeKernel::Run(RunContext& ctx) {
  if (empty_) return Status::Ok();
  if (roi_at_run_) {
    const Tensor& roi = ctx.input(1);
    const size_t n = axes_.size();
    for (size_t i = 0; i < n; ++i) {
      axes_[i].roi_start = roi.ptr<float>()[i];
      axes_[i].roi_end = roi.ptr<float>()[n + i];
      ComputeTaps(options_, &axes_[i], tap_scratch_.data());
    }
  }
  const float* x = ctx.input(0).ptr<float>();
  float* y = ctx.output(0).ptr<float>();
  if (passes_.empty()) {
    std::copy(x, x + ctx.input(0).numel(), y);  // every axis keeps its samples
    return Status::Ok();
  }
  float* buffers[2] = {scratch_.ptr<float>(), scratch_.ptr<float>() + scratch_half_};
  const float* from = x;
  for (size_t p = 0; p < passes_.size(); ++p) {
    float* to = p + 1 == passes_.size() ? y : buffers[p % 2];
    const Pass& pass = passes_[p];
    ResizeAxis(axes_[pass.axis_index], pass.outer, pass.inner, options_.extrapolation, from, to);
    from = to;
  }
  return Status::Ok();
}

// tf_crop_and_resize reads roi: now when known, else in every Run. Also sizes the taps.
Status ResizeKernel::PlanRoi(PlanContext& ctx, const std::vector<int64_t>& axes) {
  roi_at_run_ = false;
  if (options_.coord == CoordMode::kTfCropAndResize) {
    int64_t numel = 0;
    if (!ctx.has_input(1) || !ShapeNumel(ctx.shape(1), &numel) || numel == 0) {
      return ctx.Error(ErrorCode::kMalformedModel,
                       "coordinate_transformation_mode 'tf_crop_and_resize' needs input 'roi'");
    }
    if (numel != static_cast<int64_t>(2 * axes.size())) {
      return ctx.Error(ErrorCode::kShapeMismatch,
                       "input 'roi' " + ShapeToString(ctx.shape(1)) + " should have " +
                           std::to_string(2 * axes.size()) + " values (starts, then ends)");
    }
    const Tensor* roi = ctx.constant(1);
    roi_at_run_ = roi == nullptr;
    for (size_t i = 0; roi && i < axes.size(); ++i) {
      axes_[i].roi_start = roi->ptr<float>()[i];
      axes_[i].roi_end = roi->ptr<float>()[axes.size() + i];
    }
  }
  int64_t max_stride = 1;
  for (AxisResize& a : axes_) {
    a.stride = 1;
    if (options_.mode != Mode::kNearest) {
      a.stride = 2 * static_cast<int64_t>(std::ceil(FilterSupport(options_, a.scale)));
    }
    max_stride = std::max(max_stride, a.stride);
    int64_t slots = 0;
    if (__builtin_mul_overflow(a.stride, a.out, &slots) || slots > (int64_t{1} << 31)) {
      return ctx.Error(ErrorCode::kShapeMismatch,
                       "the filter for axis " + std::to_string(a.axis) + " is too wide");
    }
    a.count.assign(a.out, 0);
    a.index.assign(slots, 0);
    a.weight.assign(slots, 0.f);
  }
  tap_scratch_.assign(max_stride, 0.0);
  return Status::Ok();
}

// Orders the non-identity axes innermost first and sizes the ping-pong buffers.
Status ResizeKernel::PlanPasses(const Shape& x) {
  passes_.clear();
  std::vector<size_t> order;
  for (size_t i = 0; i < axes_.size(); ++i) {
    if (roi_at_run_ || !axes_[i].IsIdentity()) order.push_back(i);
  }
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return axes_[a].axis > axes_[b].axis; });
  Shape current = x;
  int64_t largest = 0;
  for (size_t k = 0; k < order.size(); ++k) {
    const AxisResize& a = axes_[order[k]];
    passes_.push_back(Pass{order[k], nn::DimProduct(current, 0, a.axis),
                           nn::DimProduct(current, a.axis + 1, current.size())});
    current[a.axis] = a.out;
    if (k + 1 < order.size())
      largest = std::max(largest, nn::DimProduct(current, 0, current.size()));
  }
  scratch_half_ = largest;
  return nn::AllocateScratch(2 * largest, &scratch_);
}

}  // namespace resize

using resize::ResizeKernel;

void RegisterResizeKernels(OpRegistry& r) {
  // Resize-11 takes X, roi and scales (sizes optional); 13 made roi and scales optional.
  r.Register("", "Resize",
             {{{10}, Inputs(2), Outputs(1)},
              {{11}, Inputs(3, 4), Outputs(1)},
              {{13, 18, 19}, Inputs(1, 4), Outputs(1)}},
             []() -> Kernel* { return new ResizeKernel(false); });
  // 9 turned scales into an input.
  r.Register("", "Upsample", {{{7}, Inputs(1), Outputs(1)}, {{9}, Inputs(2), Outputs(1)}},
             []() -> Kernel* { return new ResizeKernel(true); });
}

}  // namespace webnx
