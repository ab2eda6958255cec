// How Resize and Upsample read their inputs and attributes (which inputs each version takes, the
// modes, the axes) and the output length of each resized axis from 'scales' or 'sizes'.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "kernels/nn_common.h"
#include "kernels/resize.h"

namespace webnx::resize {

Status ResizeKernel::CheckInputs(PlanContext& ctx) {
  if (upsample_ && version_ < 9) {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(1, 1));  // scales is an attribute
  } else if (legacy_) {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(2, 2));
  } else {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(1, 4));
  }
  WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(0, {DType::kFloat32}));
  if (!legacy_ && ctx.has_input(1)) WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(1, {DType::kFloat32}));
  if (ctx.has_input(ScalesInput()))
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(ScalesInput(), {DType::kFloat32}));
  if (!legacy_ && ctx.has_input(3)) WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(3, {DType::kInt64}));
  return Status::Ok();
}

Status ResizeKernel::ReadOptions(PlanContext& ctx) {
  Attrs& attrs = ctx.attrs();
  const std::string mode = attrs.String("mode", "nearest");
  std::string coord = "asymmetric", nearest = "simple";
  if (!legacy_) {
    coord = attrs.String("coordinate_transformation_mode", "half_pixel");
    nearest = attrs.String("nearest_mode", "round_prefer_floor");
    options_.cubic_a = attrs.Float("cubic_coeff_a", -0.75f);
    options_.exclude_outside = attrs.Int("exclude_outside", 0) != 0;
    options_.extrapolation = attrs.Float("extrapolation_value", 0.f);
  }
  if (version_ >= 18 && !upsample_) {
    options_.antialias = attrs.Int("antialias", 0) != 0;
    policy_ = attrs.String("keep_aspect_ratio_policy", "stretch");
  }
  WEBNX_RETURN_IF_ERROR(attrs.status());

  if (mode == "nearest") {
    options_.mode = Mode::kNearest;
  } else if (mode == "linear" || (upsample_ && mode == "bilinear")) {
    options_.mode = Mode::kLinear;
  } else if (mode == "cubic" && !legacy_) {
    options_.mode = Mode::kCubic;
  } else {
    return ctx.Error(ErrorCode::kMalformedModel, "attribute 'mode' has unsupported value '" + mode +
                                                     "' (nearest, linear" +
                                                     (legacy_ ? "" : ", cubic") + ")");
  }
  WEBNX_RETURN_IF_ERROR(ParseCoordMode(ctx, coord));
  WEBNX_RETURN_IF_ERROR(ParseNearestMode(ctx, nearest));
  if (policy_ != "stretch" && policy_ != "not_larger" && policy_ != "not_smaller") {
    return ctx.Error(ErrorCode::kMalformedModel,
                     "attribute 'keep_aspect_ratio_policy' has unknown value '" + policy_ + "'");
  }
  // Antialiasing only changes linear and cubic filters (and only when downsampling).
  if (options_.mode == Mode::kNearest) options_.antialias = false;
  return Status::Ok();
}

Status ResizeKernel::ParseCoordMode(PlanContext& ctx, const std::string& name) {
  struct Entry {
    const char* name;
    CoordMode mode;
    int since, until;  // versions accepting it
  };
  static const Entry kModes[] = {
      {"half_pixel", CoordMode::kHalfPixel, 11, 99},
      {"half_pixel_symmetric", CoordMode::kHalfPixelSymmetric, 19, 99},
      {"pytorch_half_pixel", CoordMode::kPytorchHalfPixel, 11, 99},
      {"align_corners", CoordMode::kAlignCorners, 11, 99},
      {"asymmetric", CoordMode::kAsymmetric, 1, 99},
      {"tf_half_pixel_for_nn", CoordMode::kTfHalfPixelForNn, 11, 17},
      {"tf_crop_and_resize", CoordMode::kTfCropAndResize, 11, 99},
  };
  for (const Entry& e : kModes) {
    if (name != e.name) continue;
    if (version_ < e.since || version_ > e.until) break;
    options_.coord = e.mode;
    return Status::Ok();
  }
  return ctx.Error(ErrorCode::kMalformedModel,
                   "attribute 'coordinate_transformation_mode' value '" + name +
                       "' is unknown or not in Resize version " + std::to_string(version_));
}

Status ResizeKernel::ParseNearestMode(PlanContext& ctx, const std::string& name) {
  if (name == "simple") {
    options_.nearest = NearestMode::kSimple;
  } else if (name == "round_prefer_floor") {
    options_.nearest = NearestMode::kRoundPreferFloor;
  } else if (name == "round_prefer_ceil") {
    options_.nearest = NearestMode::kRoundPreferCeil;
  } else if (name == "floor") {
    options_.nearest = NearestMode::kFloor;
  } else if (name == "ceil") {
    options_.nearest = NearestMode::kCeil;
  } else {
    return ctx.Error(ErrorCode::kMalformedModel,
                     "attribute 'nearest_mode' has unknown value '" + name + "'");
  }
  return Status::Ok();
}

// The axes that scales/sizes/roi list: the 'axes' attribute (18), else all of them.
Status ResizeKernel::ReadAxes(PlanContext& ctx, int64_t rank, std::vector<int64_t>* axes) {
  axes->clear();
  if (version_ < 18 || upsample_ || !ctx.attrs().Has("axes")) {
    for (int64_t i = 0; i < rank; ++i) axes->push_back(i);
    return Status::Ok();
  }
  const std::vector<int64_t> given = ctx.attrs().Ints("axes");
  WEBNX_RETURN_IF_ERROR(ctx.attrs().status());
  std::vector<bool> seen(rank, false);
  for (int64_t a : given) {
    int64_t axis = 0;
    if (!nn::NormalizeAxis(a, rank, &axis) || seen[axis]) {
      return ctx.Error(ErrorCode::kMalformedModel,
                       "attribute 'axes' " + nn::IntsToString(given) +
                           " has an out-of-range or repeated axis for rank " +
                           std::to_string(rank));
    }
    seen[axis] = true;
    axes->push_back(axis);
  }
  return Status::Ok();
}

// A plan-time scales/sizes input: nullptr when absent or empty (the way to omit one before
// version 13), an error when present but unknown at plan time.
Status ResizeKernel::KnownInput(PlanContext& ctx, int i, const char* name, const Tensor** out) {
  *out = nullptr;
  if (!ctx.has_input(i)) return Status::Ok();
  int64_t numel = 0;
  if (ShapeNumel(ctx.shape(i), &numel) && numel == 0) return Status::Ok();
  *out = ctx.constant(i);
  if (!*out) {
    return ctx.Error(ErrorCode::kMalformedModel,
                     std::string("input '") + name + "' ('" + ctx.node().inputs[i] +
                         "') must be known when the plan is made (an initializer, a Constant "
                         "or computed from shapes), since it sets the output shape");
  }
  return Status::Ok();
}

// Per-axis scale and output length from scales or sizes; axes_ keeps the listed axes.
Status ResizeKernel::PlanAxes(PlanContext& ctx, const Shape& x, const std::vector<int64_t>& axes) {
  std::vector<double> scales;
  std::vector<int64_t> sizes;
  WEBNX_RETURN_IF_ERROR(ReadScalesOrSizes(ctx, axes.size(), &scales, &sizes));
  axes_.assign(axes.size(), AxisResize());
  for (size_t i = 0; i < axes.size(); ++i) {
    AxisResize& a = axes_[i];
    a.axis = axes[i];
    a.in = x[a.axis];
  }
  if (!scales.empty()) {
    for (size_t i = 0; i < axes_.size(); ++i) {
      AxisResize& a = axes_[i];
      a.scale = scales[i];
      a.resized_length = a.scale * static_cast<double>(a.in);
      if (!(a.resized_length < 4e18)) {
        return ctx.Error(ErrorCode::kShapeMismatch, "scale " + std::to_string(a.scale) +
                                                        " makes axis " + std::to_string(a.axis) +
                                                        " too large");
      }
      a.out = static_cast<int64_t>(std::floor(a.resized_length));
    }
  } else if (policy_ == "stretch") {
    for (size_t i = 0; i < axes_.size(); ++i) {
      AxisResize& a = axes_[i];
      a.out = sizes[i];
      a.scale = static_cast<double>(a.out) / static_cast<double>(a.in);
      a.resized_length = static_cast<double>(a.out);
    }
  } else {
    WEBNX_RETURN_IF_ERROR(KeepAspectRatio(ctx, sizes));
  }
  for (const AxisResize& a : axes_) {
    if (a.in == 0 && a.out != 0) {
      return ctx.Error(ErrorCode::kShapeMismatch,
                       "cannot resize the empty axis " + std::to_string(a.axis) + " of X " +
                           ShapeToString(x) + " to " + std::to_string(a.out));
    }
  }
  return Status::Ok();
}

// One scale for every listed axis: the smallest (not_larger) or largest (not_smaller) of
// sizes / in; each output length is then scale * in rounded half up.
Status ResizeKernel::KeepAspectRatio(PlanContext& ctx, const std::vector<int64_t>& sizes) {
  double scale = 0;
  for (size_t i = 0; i < axes_.size(); ++i) {
    const double s = static_cast<double>(sizes[i]) / static_cast<double>(axes_[i].in);
    if (i == 0 || (policy_ == "not_larger" ? s < scale : s > scale)) scale = s;
  }
  for (AxisResize& a : axes_) {
    a.scale = scale;
    a.resized_length = scale * static_cast<double>(a.in);
    // Checked before the cast, which is undefined past int64 (huge sizes, or inf from in = 0).
    if (!(a.resized_length + 0.5 < 4e18)) {
      return ctx.Error(ErrorCode::kShapeMismatch,
                       "'sizes' make axis " + std::to_string(a.axis) + " too large");
    }
    a.out = static_cast<int64_t>(a.resized_length + 0.5);
  }
  return Status::Ok();
}

Status ResizeKernel::ReadScalesOrSizes(PlanContext& ctx, size_t count, std::vector<double>* scales,
                                       std::vector<int64_t>* sizes) {
  std::vector<float> attr_scales;
  const Tensor* scales_t = nullptr;
  const Tensor* sizes_t = nullptr;
  if (upsample_ && version_ < 9) {
    attr_scales = ctx.attrs().Floats("scales");
    WEBNX_RETURN_IF_ERROR(ctx.attrs().status());
  } else {
    WEBNX_RETURN_IF_ERROR(KnownInput(ctx, ScalesInput(), "scales", &scales_t));
    if (!legacy_) WEBNX_RETURN_IF_ERROR(KnownInput(ctx, 3, "sizes", &sizes_t));
    if (scales_t) {
      attr_scales.assign(scales_t->ptr<float>(), scales_t->ptr<float>() + scales_t->numel());
    }
  }
  if (!attr_scales.empty() && sizes_t) {
    return ctx.Error(ErrorCode::kMalformedModel,
                     "only one of 'scales' and 'sizes' may be given (both are non-empty)");
  }
  if (attr_scales.empty() && !sizes_t) {
    return ctx.Error(ErrorCode::kMalformedModel, "one of 'scales' or 'sizes' is required");
  }
  const char* name = sizes_t ? "sizes" : "scales";
  const size_t given = sizes_t ? static_cast<size_t>(sizes_t->numel()) : attr_scales.size();
  if (given != count) {
    return ctx.Error(ErrorCode::kMalformedModel,
                     std::string("'") + name + "' has " + std::to_string(given) +
                         " values but there are " + std::to_string(count) + " axes to resize");
  }
  for (size_t i = 0; i < count; ++i) {
    if (sizes_t) {
      sizes->push_back(sizes_t->IntAt(i));
      if (sizes->back() < 0) {
        return ctx.Error(ErrorCode::kMalformedModel,
                         "'sizes' has a negative value " + std::to_string(sizes->back()));
      }
    } else {
      scales->push_back(attr_scales[i]);
      if (!(attr_scales[i] > 0) || std::isinf(attr_scales[i])) {
        return ctx.Error(
            ErrorCode::kMalformedModel,
            "'scales' values must be positive and finite, got " + std::to_string(attr_scales[i]));
      }
    }
  }
  return Status::Ok();
}

}  // namespace webnx::resize
