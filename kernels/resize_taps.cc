// Where each output position of a resized axis samples the input (the coordinate transforms,
// nearest rounding) and with which weights (linear and cubic filters, antialiasing): the taps.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "kernels/resize.h"

namespace webnx::resize {

// Half-width of the filter in input samples: taps lie strictly within it of the sample point.
double FilterSupport(const Options& o, double scale) {
  const double base = o.mode == Mode::kCubic ? 2.0 : 1.0;
  return o.antialias && scale < 1.0 ? base / scale : base;
}

namespace {

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

}  // namespace

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

}  // namespace webnx::resize
