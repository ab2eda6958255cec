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
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "kernels/nn_common.h"
#include "kernels/registrations.h"

namespace webnx {
namespace {

enum class Mode { kNearest, kLinear, kCubic };
enum class CoordMode {
  kHalfPixel,
  kHalfPixelSymmetric,
  kPytorchHalfPixel,
  kAlignCorners,
  kAsymmetric,
  kTfHalfPixelForNn,
  kTfCropAndResize,
};
// kSimple is the rule of Resize 10 and Upsample (no nearest_mode attribute): floor when
// upsampling, ceil when downsampling, as onnxruntime does.
enum class NearestMode { kRoundPreferFloor, kRoundPreferCeil, kFloor, kCeil, kSimple };

struct Options {
  Mode mode = Mode::kNearest;
  CoordMode coord = CoordMode::kHalfPixel;
  NearestMode nearest = NearestMode::kRoundPreferFloor;
  double cubic_a = -0.75;
  bool exclude_outside = false;
  bool antialias = false;
  float extrapolation = 0.f;
};

// One resized axis and its taps: output j reads count[j] inputs index[j * stride + t] with
// weights weight[j * stride + t]; count -1 means "outside the roi: write extrapolation".
struct AxisResize {
  int64_t axis = 0;
  int64_t in = 0, out = 0;
  double scale = 1;           // what the coordinate transforms divide by
  double resized_length = 0;  // scale * in: the output length before rounding
  double roi_start = 0, roi_end = 1;
  int64_t stride = 0;
  std::vector<int32_t> count;
  std::vector<int64_t> index;
  std::vector<float> weight;

  bool IsIdentity() const {
    if (in != out) return false;
    for (int64_t j = 0; j < out; ++j) {
      if (count[j] != 1 || index[j * stride] != j || weight[j * stride] != 1.f) return false;
    }
    return true;
  }
};

// Half-width of the filter in input samples: taps lie strictly within it of the sample point.
double FilterSupport(const Options& o, double scale) {
  const double base = o.mode == Mode::kCubic ? 2.0 : 1.0;
  return o.antialias && scale < 1.0 ? base / scale : base;
}

// The input coordinate that output position x samples, per coordinate_transformation_mode.
double OriginalCoordinate(const Options& o, const AxisResize& a, int64_t x) {
  const double xr = static_cast<double>(x);
  const double in = static_cast<double>(a.in);
  switch (o.coord) {
    case CoordMode::kHalfPixel:
      return (xr + 0.5) / a.scale - 0.5;
    case CoordMode::kHalfPixelSymmetric: {
      // Centres the rounded output on the input when out != scale * in.
      const double adjustment = static_cast<double>(a.out) / a.resized_length;
      return in / 2 * (1 - adjustment) + (xr + 0.5) / a.scale - 0.5;
    }
    case CoordMode::kPytorchHalfPixel:
      return a.out > 1 ? (xr + 0.5) / a.scale - 0.5 : 0.0;
    case CoordMode::kAlignCorners:
      return a.resized_length == 1 ? 0.0 : xr * (in - 1) / (a.resized_length - 1);
    case CoordMode::kAsymmetric:
      return xr / a.scale;
    case CoordMode::kTfHalfPixelForNn:
      return (xr + 0.5) / a.scale;
    case CoordMode::kTfCropAndResize: {
      const double start = a.roi_start * (in - 1);
      const double span = (a.roi_end - a.roi_start) * (in - 1);
      return a.resized_length == 1 ? start + span / 2 : start + xr * span / (a.resized_length - 1);
    }
  }
  return 0.0;
}

int64_t NearestIndex(NearestMode mode, double x, bool downsampling) {
  switch (mode) {
    case NearestMode::kRoundPreferFloor:
      return static_cast<int64_t>(std::ceil(x - 0.5));
    case NearestMode::kRoundPreferCeil:
      return static_cast<int64_t>(std::floor(x + 0.5));
    case NearestMode::kFloor:
      return static_cast<int64_t>(std::floor(x));
    case NearestMode::kCeil:
      return static_cast<int64_t>(std::ceil(x));
    case NearestMode::kSimple:
      return static_cast<int64_t>(downsampling ? std::ceil(x) : std::floor(x));
  }
  return 0;
}

// Keys' cubic convolution kernel with parameter a.
double CubicKernel(double t, double a) {
  t = std::fabs(t);
  if (t <= 1) return ((a + 2) * t - (a + 3)) * t * t + 1;
  if (t < 2) return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a;
  return 0;
}

// Fills the taps of output j for a linear or cubic filter around input coordinate x.
// `scratch` holds a->stride doubles.
void FilterTaps(const Options& o, int64_t j, double x, double* scratch, AxisResize* a) {
  const double filter_scale = o.antialias ? std::min(a->scale, 1.0) : 1.0;
  const int64_t reach = a->stride / 2;  // taps k in [1 - reach, reach] around floor(x)
  const double x_floor = std::floor(x);
  const double ratio = x - x_floor;
  const int64_t first = static_cast<int64_t>(x_floor) + 1 - reach;
  double sum = 0;
  for (int64_t t = 0; t < a->stride; ++t) {
    const double arg = (static_cast<double>(1 - reach + t) - ratio) * filter_scale;
    double w =
        o.mode == Mode::kCubic ? CubicKernel(arg, o.cubic_a) : std::max(0.0, 1 - std::fabs(arg));
    const int64_t at = first + t;
    if (o.exclude_outside && (at < 0 || at >= a->in)) w = 0;
    scratch[t] = w;
    sum += w;
  }
  // Antialiased filters are normalised to sum 1; so are the ones that excluded outside taps.
  const bool normalise = (o.antialias || o.exclude_outside) && sum != 0;
  int64_t* index = &a->index[j * a->stride];
  float* weight = &a->weight[j * a->stride];
  int32_t n = 0;
  for (int64_t t = 0; t < a->stride; ++t) {
    if (scratch[t] == 0) continue;  // outside the filter: skipping it also skips 0 * inf
    index[n] = std::min(std::max<int64_t>(first + t, 0), a->in - 1);  // edge padding
    weight[n] = static_cast<float>(normalise ? scratch[t] / sum : scratch[t]);
    ++n;
  }
  a->count[j] = n;
}

// Recomputes every tap of an axis (tables already sized). Never allocates.
void ComputeTaps(const Options& o, AxisResize* a, double* scratch) {
  const double margin = static_cast<double>(a->stride) + 2;
  for (int64_t j = 0; j < a->out; ++j) {
    double x = OriginalCoordinate(o, *a, j);
    if (o.coord == CoordMode::kTfCropAndResize &&
        !(x >= 0 && x <= static_cast<double>(a->in - 1))) {
      a->count[j] = -1;  // outside the crop (or NaN roi)
      continue;
    }
    // Far-out coordinates only ever read the edge; clamping keeps the integer casts defined.
    x = std::min(std::max(x, -margin), static_cast<double>(a->in) + margin);
    if (o.mode == Mode::kNearest) {
      const int64_t i = NearestIndex(o.nearest, x, a->scale < 1);
      a->index[j * a->stride] = std::min(std::max<int64_t>(i, 0), a->in - 1);
      a->weight[j * a->stride] = 1.f;
      a->count[j] = 1;
      continue;
    }
    FilterTaps(o, j, x, scratch, a);
  }
}

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

// One separable pass: which axis, and the [outer, *, inner] split of its input.
struct Pass {
  size_t axis_index;  // into axes_
  int64_t outer, inner;
};

class ResizeKernel : public Kernel {
 public:
  explicit ResizeKernel(bool upsample) : upsample_(upsample) {}

  Status Plan(PlanContext& ctx) override {
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

  Status Run(RunContext& ctx) override {
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

 private:
  int ScalesInput() const { return legacy_ ? 1 : 2; }

  Status CheckInputs(PlanContext& ctx) {
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

  Status ReadOptions(PlanContext& ctx) {
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
      return ctx.Error(ErrorCode::kMalformedModel, "attribute 'mode' has unsupported value '" +
                                                       mode + "' (nearest, linear" +
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

  Status ParseCoordMode(PlanContext& ctx, const std::string& name) {
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

  Status ParseNearestMode(PlanContext& ctx, const std::string& name) {
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
  Status ReadAxes(PlanContext& ctx, int64_t rank, std::vector<int64_t>* axes) {
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
  Status KnownInput(PlanContext& ctx, int i, const char* name, const Tensor** out) {
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
  Status PlanAxes(PlanContext& ctx, const Shape& x, const std::vector<int64_t>& axes) {
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
  Status KeepAspectRatio(PlanContext& ctx, const std::vector<int64_t>& sizes) {
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

  Status ReadScalesOrSizes(PlanContext& ctx, size_t count, std::vector<double>* scales,
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

  // tf_crop_and_resize reads roi: now when known, else in every Run. Also sizes the taps.
  Status PlanRoi(PlanContext& ctx, const std::vector<int64_t>& axes) {
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
  Status PlanPasses(const Shape& x) {
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

  bool upsample_;
  int version_ = 0;
  bool legacy_ = false;
  Options options_;
  std::string policy_ = "stretch";
  std::vector<AxisResize> axes_;
  std::vector<Pass> passes_;
  std::vector<double> tap_scratch_;  // one output's raw weights
  bool roi_at_run_ = false;
  bool empty_ = false;
  Tensor scratch_;  // two intermediate tensors of scratch_half_ floats each
  int64_t scratch_half_ = 0;
};

}  // namespace

void RegisterResizeKernels(OpRegistry& r) {
  // Resize-11 takes X, roi and scales (sizes optional); 13 made roi and scales optional.
  r.Register("", "Resize",
             {{{10}, Inputs(2), Outputs(1)},
              {{11}, Inputs(3, 4), Outputs(1)},
              {{13, 18, 19}, Inputs(1, 4), Outputs(1)}},
             []() -> std::unique_ptr<Kernel> { return std::make_unique<ResizeKernel>(false); });
  // 9 turned scales into an input.
  r.Register("", "Upsample", {{{7}, Inputs(1), Outputs(1)}, {{9}, Inputs(2), Outputs(1)}},
             []() -> std::unique_ptr<Kernel> { return std::make_unique<ResizeKernel>(true); });
}

}  // namespace webnx
