// Resize and Upsample: hand-checked values, a naive (non-separable, per output element)
// cross-check over modes and coordinate transforms, run-time roi, and error cases.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "tests/unit/op_runner.h"

namespace webnx {
namespace {

using testing::ExpectAllNear;
using testing::FloatAttr;
using testing::FloatsAttr;
using testing::IntAttr;
using testing::IntsAttr;
using testing::MakeFloat;
using testing::MakeInt64;
using testing::OpInput;
using testing::RandomFloat;
using testing::RunOk;
using testing::RunOp;
using testing::StringAttr;

using Attrs = std::map<std::string, Attribute>;

Tensor Scales(std::vector<float> v) {
  return MakeFloat({static_cast<int64_t>(v.size())}, v);
}
Tensor Sizes(std::vector<int64_t> v) {
  return MakeInt64({static_cast<int64_t>(v.size())}, v);
}
const OpInput kAbsent{Tensor(), false, false};

// Resize-13+ with constant scales (X, "", scales).
Tensor ResizeScales(const Tensor& x, std::vector<float> scales, Attrs attrs, int opset = 19) {
  std::vector<Tensor> out;
  Status s = RunOp("Resize", opset, {{x}, kAbsent, {Scales(scales), true}}, attrs, 1, &out);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return out.empty() ? Tensor() : out[0];
}

// Resize-13+ with constant sizes (X, "", "", sizes).
Tensor ResizeSizes(const Tensor& x, std::vector<int64_t> sizes, Attrs attrs, int opset = 19) {
  std::vector<Tensor> out;
  Status s = RunOp("Resize", opset, {{x}, kAbsent, kAbsent, {Sizes(sizes), true}}, attrs, 1, &out);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return out.empty() ? Tensor() : out[0];
}

// ---- A naive reference, written after the spec's per-element formulation ----------------------

struct NaiveOptions {
  std::string mode = "nearest", coord = "half_pixel", nearest = "round_prefer_floor";
  double a = -0.75;
  bool exclude_outside = false;
  float extrapolation = 0;
};

// Weights of the n neighbours of x (ratio in (0, 1], the left one preferred), as the spec's
// reference computes them; nearest is a 2-tap [left, right] choice.
std::vector<double> Coefficients(const NaiveOptions& o, double ratio) {
  if (o.mode == "linear") return {1 - ratio, ratio};
  if (o.mode == "cubic") {
    const double a = o.a, r = ratio, s = 1 - ratio;
    return {((a * (r + 1) - 5 * a) * (r + 1) + 8 * a) * (r + 1) - 4 * a,
            ((a + 2) * r - (a + 3)) * r * r + 1, ((a + 2) * s - (a + 3)) * s * s + 1,
            ((a * (s + 1) - 5 * a) * (s + 1) + 8 * a) * (s + 1) - 4 * a};
  }
  if (ratio == 1) return {0, 1};
  if (o.nearest == "round_prefer_floor") return {ratio <= 0.5 ? 1.0 : 0.0, ratio > 0.5 ? 1.0 : 0.0};
  if (o.nearest == "round_prefer_ceil") return {ratio < 0.5 ? 1.0 : 0.0, ratio >= 0.5 ? 1.0 : 0.0};
  if (o.nearest == "floor") return {1, 0};
  return {0, 1};  // ceil
}

// Value of 1-D interpolation of `values` (length in) at output x; nullopt-like NaN flag via
// `outside` for tf_crop_and_resize.
double Interpolate1d(const NaiveOptions& o, const std::vector<double>& values, double scale,
                     int64_t out, int64_t x, double roi_start, double roi_end, bool* outside) {
  const double in = static_cast<double>(values.size());
  const double length = scale * in;
  double xo = 0;
  if (o.coord == "half_pixel") {
    xo = (x + 0.5) / scale - 0.5;
  } else if (o.coord == "pytorch_half_pixel") {
    xo = out > 1 ? (x + 0.5) / scale - 0.5 : 0;
  } else if (o.coord == "align_corners") {
    xo = length == 1 ? 0 : x * (in - 1) / (length - 1);
  } else if (o.coord == "asymmetric") {
    xo = x / scale;
  } else if (o.coord == "half_pixel_symmetric") {
    xo = in / 2 * (1 - out / length) + (x + 0.5) / scale - 0.5;
  } else if (o.coord == "tf_crop_and_resize") {
    xo = length == 1 ? (roi_end - roi_start) * (in - 1) / 2
                     : x * (roi_end - roi_start) * (in - 1) / (length - 1);
    xo += roi_start * (in - 1);
    if (xo < 0 || xo > in - 1) {
      *outside = true;
      return o.extrapolation;
    }
  }
  const double xi = std::floor(xo);
  const double ratio = xo == xi ? 1 : xo - xi;
  const int64_t left = static_cast<int64_t>(ratio == 1 ? xi - 1 : xi);  // index of coeff 1
  std::vector<double> c = Coefficients(o, ratio);
  const int64_t first = c.size() == 4 ? left - 1 : left;
  double sum = 0, total = 0;
  for (size_t k = 0; k < c.size(); ++k) {
    const int64_t at = first + static_cast<int64_t>(k);
    if (o.exclude_outside && (at < 0 || at >= static_cast<int64_t>(in))) c[k] = 0;
    total += c[k];
  }
  for (size_t k = 0; k < c.size(); ++k) {
    int64_t at = first + static_cast<int64_t>(k);
    at = std::min<int64_t>(std::max<int64_t>(at, 0), static_cast<int64_t>(in) - 1);
    sum += (o.exclude_outside ? c[k] / total : c[k]) * values[at];
  }
  return sum;
}

// N-d by recursion over axes, like the spec's reference: the outer axis interpolates values
// the inner axes produced.
double InterpolateNd(const NaiveOptions& o, const Tensor& x, const std::vector<double>& scales,
                     const Shape& out_shape, const std::vector<double>& roi,
                     const std::vector<int64_t>& at, size_t axis, int64_t offset) {
  const int64_t rank = x.rank();
  if (axis == static_cast<size_t>(rank)) return x.ptr<float>()[offset];
  int64_t stride = 1;
  for (int64_t d = axis + 1; d < rank; ++d) stride *= x.shape[d];
  std::vector<double> line(x.shape[axis]);
  for (int64_t i = 0; i < x.shape[axis]; ++i) {
    line[i] = InterpolateNd(o, x, scales, out_shape, roi, at, axis + 1, offset + i * stride);
  }
  bool outside = false;
  const double start = roi.empty() ? 0 : roi[axis], end = roi.empty() ? 1 : roi[rank + axis];
  return Interpolate1d(o, line, scales[axis], out_shape[axis], at[axis], start, end, &outside);
}

Tensor NaiveResize(const NaiveOptions& o, const Tensor& x, const std::vector<double>& scales,
                   const Shape& out_shape, const std::vector<double>& roi = {}) {
  Tensor y;
  EXPECT_TRUE(Tensor::Allocate(DType::kFloat32, out_shape, &y).ok());
  std::vector<int64_t> at(out_shape.size(), 0);
  for (int64_t i = 0; i < y.numel(); ++i) {
    int64_t rest = i;
    for (size_t d = out_shape.size(); d-- > 0;) {
      at[d] = rest % out_shape[d];
      rest /= out_shape[d];
    }
    y.ptr<float>()[i] = static_cast<float>(InterpolateNd(o, x, scales, out_shape, roi, at, 0, 0));
  }
  return y;
}

Attrs ToAttrs(const NaiveOptions& o) {
  return {{"mode", StringAttr(o.mode)},
          {"coordinate_transformation_mode", StringAttr(o.coord)},
          {"nearest_mode", StringAttr(o.nearest)},
          {"cubic_coeff_a", FloatAttr(static_cast<float>(o.a))},
          {"exclude_outside", IntAttr(o.exclude_outside)},
          {"extrapolation_value", FloatAttr(o.extrapolation)}};
}

// ---- hand-checked ----------------------------------------------------------------------------

TEST(Resize, NearestUpsampleHalfPixel) {
  Tensor x = MakeFloat({1, 1, 2, 2}, {1, 2, 3, 4});
  ExpectAllNear(ResizeScales(x, {1, 1, 2, 2}, {}),
                MakeFloat({1, 1, 4, 4}, {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}));
}

TEST(Resize, LinearHalfPixelClampsAtEdges) {
  // x' = (x + 0.5) / 2 - 0.5 = -0.25, 0.25, 0.75, 1.25: the ends clamp to the edge samples.
  Tensor x = MakeFloat({1, 2}, {1, 3});
  ExpectAllNear(ResizeScales(x, {1, 2}, {{"mode", StringAttr("linear")}}),
                MakeFloat({1, 4}, {1, 1.5f, 2.5f, 3}));
}

TEST(Resize, LinearAlignCornersAndAsymmetric) {
  Tensor x = MakeFloat({2}, {1, 3});
  ExpectAllNear(ResizeSizes(x, {3},
                            {{"mode", StringAttr("linear")},
                             {"coordinate_transformation_mode", StringAttr("align_corners")}}),
                MakeFloat({3}, {1, 2, 3}));
  // asymmetric: x' = x / 2 = 0, 0.5, 1, 1.5 (clamped).
  ExpectAllNear(ResizeScales(x, {2},
                             {{"mode", StringAttr("linear")},
                              {"coordinate_transformation_mode", StringAttr("asymmetric")}}),
                MakeFloat({4}, {1, 2, 3, 3}));
}

TEST(Resize, NearestModesOnTies) {
  // asymmetric, 4 -> 3 (scale 3/4): x' = 0, 4/3, 8/3.
  Tensor x = MakeFloat({4}, {10, 20, 30, 40});
  auto run = [&](const char* nearest) {
    return ResizeSizes(x, {3},
                       {{"coordinate_transformation_mode", StringAttr("asymmetric")},
                        {"nearest_mode", StringAttr(nearest)}});
  };
  ExpectAllNear(run("round_prefer_floor"), MakeFloat({3}, {10, 20, 40}));
  ExpectAllNear(run("round_prefer_ceil"), MakeFloat({3}, {10, 20, 40}));
  ExpectAllNear(run("floor"), MakeFloat({3}, {10, 20, 30}));
  ExpectAllNear(run("ceil"), MakeFloat({3}, {10, 30, 40}));
  // scale 2: x' = 0, 0.5, 1, ..: the tie at 0.5 goes down or up.
  Tensor y = MakeFloat({2}, {1, 2});
  auto tie = [&](const char* nearest) {
    return ResizeScales(y, {2},
                        {{"coordinate_transformation_mode", StringAttr("asymmetric")},
                         {"nearest_mode", StringAttr(nearest)}});
  };
  ExpectAllNear(tie("round_prefer_floor"), MakeFloat({4}, {1, 1, 2, 2}));
  ExpectAllNear(tie("round_prefer_ceil"), MakeFloat({4}, {1, 2, 2, 2}));
}

TEST(Resize, CubicHitsSamplesAtIntegerCoordinates) {
  // align_corners 4 -> 7: every other output lands on an input sample exactly.
  Tensor x = MakeFloat({4}, {1, -2, 5, 3});
  Tensor y = ResizeSizes(x, {7},
                         {{"mode", StringAttr("cubic")},
                          {"coordinate_transformation_mode", StringAttr("align_corners")}});
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(y.ptr<float>()[2 * i], x.ptr<float>()[i], 1e-6f);
  // Between samples 1 and 2 with ratio 0.5 and a = -0.75: weights (-3/32, 19/32, 19/32, -3/32).
  EXPECT_NEAR(y.ptr<float>()[3], (-3 * 1 + 19 * -2 + 19 * 5 - 3 * 3) / 32.f, 1e-5f);
}

TEST(Resize, AntialiasWidensTheFilterWhenDownsampling) {
  // Linear, scale 1/2: the triangle spans 2 inputs each side, taps normalised to sum 1.
  // x' = 0.5: inputs (0, 0, 1, 2) with weights (1, 3, 3, 1) / 8; x' = 2.5: (1, 2, 3, 3).
  Tensor x = MakeFloat({4}, {1, 2, 3, 4});
  Attrs attrs = {{"mode", StringAttr("linear")}, {"antialias", IntAttr(1)}};
  ExpectAllNear(ResizeScales(x, {0.5f}, attrs), MakeFloat({2}, {1.625f, 3.375f}));
  // Upsampling is unchanged by antialias; so is nearest.
  ExpectAllNear(ResizeScales(x, {2.5f}, attrs),
                ResizeScales(x, {2.5f}, {{"mode", StringAttr("linear")}}));
  ExpectAllNear(ResizeScales(x, {0.5f}, {{"antialias", IntAttr(1)}}), ResizeScales(x, {0.5f}, {}));
}

TEST(Resize, TfCropAndResizeWithRunTimeRoi) {
  Tensor x = RandomFloat({1, 1, 4, 5}, 3);
  Tensor roi = MakeFloat({8}, {0, 0, -0.2f, 0.3f, 1, 1, 0.9f, 1.4f});
  NaiveOptions o;
  o.mode = "linear";
  o.coord = "tf_crop_and_resize";
  o.extrapolation = 7;
  const Shape out = {1, 1, 3, 6};
  Tensor want =
      NaiveResize(o, x, {1, 1, 3 / 4.0, 6 / 5.0}, out, {0, 0, -0.2f, 0.3f, 1, 1, 0.9f, 1.4f});
  for (bool constant_roi : {true, false}) {
    SCOPED_TRACE(constant_roi ? "plan-time roi" : "run-time roi");
    std::vector<Tensor> y;
    Status s = RunOp("Resize", 13, {{x}, {roi, constant_roi}, kAbsent, {Sizes(out), true}},
                     ToAttrs(o), 1, &y);
    ASSERT_TRUE(s.ok()) << s.ToString();
    ExpectAllNear(y[0], want);
  }
  // Some outputs fall outside the input and take the extrapolation value.
  EXPECT_EQ(want.ptr<float>()[0], 7.f);
}

TEST(Resize, AxesAndKeepAspectRatio) {
  Tensor x = RandomFloat({1, 2, 4, 6}, 9);
  // axes [3, 2] with sizes [9, 2] is sizes [1, 2, 2, 9].
  Attrs attrs = {{"mode", StringAttr("linear")}, {"axes", IntsAttr({3, 2})}};
  ExpectAllNear(ResizeSizes(x, {9, 2}, attrs),
                ResizeSizes(x, {1, 2, 2, 9}, {{"mode", StringAttr("linear")}}));
  // not_larger: scale min(8/4, 8/6) = 4/3 -> [5, 8]; not_smaller: 2 -> [8, 12].
  attrs = {{"axes", IntsAttr({2, 3})}, {"keep_aspect_ratio_policy", StringAttr("not_larger")}};
  EXPECT_EQ(ResizeSizes(x, {8, 8}, attrs).shape, (Shape{1, 2, 5, 8}));
  attrs["keep_aspect_ratio_policy"] = StringAttr("not_smaller");
  Tensor y = ResizeSizes(x, {8, 8}, attrs);
  EXPECT_EQ(y.shape, (Shape{1, 2, 8, 12}));
  ExpectAllNear(y, ResizeScales(x, {1, 1, 2, 2}, {}));
}

TEST(Resize, LegacyVersionsAndUpsample) {
  // Resize 10, Upsample 7 (scales attribute) and 9 (scales input): asymmetric nearest, floor
  // when upsampling.
  Tensor x = MakeFloat({1, 1, 2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor want = MakeFloat({1, 1, 4, 6},
                          {1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 4, 4, 5, 5, 6, 6});
  std::vector<Tensor> out;
  Status s = RunOp("Resize", 10, {{x}, {Scales({1, 1, 2, 2}), true}}, {}, 1, &out);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ExpectAllNear(out[0], want);
  s = RunOp("Upsample", 9, {{x}, {Scales({1, 1, 2, 2}), true}}, {}, 1, &out);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ExpectAllNear(out[0], want);
  s = RunOp("Upsample", 7, {{x}}, {{"scales", FloatsAttr({1, 1, 2, 2})}}, 1, &out);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ExpectAllNear(out[0], want);
  // Linear Upsample is asymmetric too: x' = x / 2.
  s = RunOp("Upsample", 9, {{MakeFloat({2}, {0, 4})}, {Scales({2}), true}},
            {{"mode", StringAttr("linear")}}, 1, &out);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ExpectAllNear(out[0], MakeFloat({4}, {0, 2, 4, 4}));
}

TEST(Resize, EmptyScalesMeanAbsentBeforeVersion13) {
  // Version 11 needs roi and scales inputs; empty ones stand for "not given".
  Tensor x = RandomFloat({1, 1, 3, 3}, 4);
  Tensor empty_roi = MakeFloat({0}, {});
  Tensor empty_scales = MakeFloat({0}, {});
  std::vector<Tensor> out;
  Status s = RunOp("Resize", 11,
                   {{x}, {empty_roi, true}, {empty_scales, true}, {Sizes({1, 1, 6, 6}), true}},
                   {{"mode", StringAttr("linear")}}, 1, &out);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ExpectAllNear(out[0], ResizeScales(x, {1, 1, 2, 2}, {{"mode", StringAttr("linear")}}));
}

TEST(Resize, IdentityAndEmpty) {
  Tensor x = RandomFloat({2, 3, 4}, 5);
  ExpectAllNear(ResizeScales(x, {1, 1, 1}, {{"mode", StringAttr("cubic")}}), x, 0);
  EXPECT_EQ(ResizeScales(x, {1, 0.2f, 1}, {}).shape, (Shape{2, 0, 4}));
  EXPECT_EQ(ResizeSizes(MakeFloat({0, 2}, {}), {0, 5}, {}).shape, (Shape{0, 5}));
}

// ---- naive cross-check -----------------------------------------------------------------------

TEST(Resize, MatchesNaive) {
  const std::vector<std::string> modes = {"nearest", "linear", "cubic"};
  const std::vector<std::string> coords = {"half_pixel", "pytorch_half_pixel", "align_corners",
                                           "asymmetric", "half_pixel_symmetric"};
  const std::vector<std::vector<float>> scale_sets = {
      {1, 1, 2, 3}, {1, 1, 0.5f, 0.75f}, {1, 1, 1.7f, 0.6f}, {2, 1, 1, 1.5f}, {1, 3, 0.4f, 1}};
  uint32_t seed = 100;
  for (const auto& mode : modes) {
    for (const auto& coord : coords) {
      for (const auto& scales : scale_sets) {
        for (bool exclude : {false, true}) {
          if (exclude && mode != "cubic") continue;
          NaiveOptions o;
          o.mode = mode;
          o.coord = coord;
          o.exclude_outside = exclude;
          o.nearest = seed % 2 ? "round_prefer_ceil" : "floor";
          SCOPED_TRACE(mode + " " + coord + " " + o.nearest + (exclude ? " exclude" : "") +
                       " scales " + std::to_string(scales[2]) + "," + std::to_string(scales[3]));
          Tensor x = RandomFloat({2, 3, 5, 4}, seed++, -2, 2);
          Shape out_shape;
          std::vector<double> ds;
          for (size_t d = 0; d < 4; ++d) {
            ds.push_back(scales[d]);
            out_shape.push_back(static_cast<int64_t>(std::floor(scales[d] * double(x.shape[d]))));
          }
          ExpectAllNear(ResizeScales(x, scales, ToAttrs(o)), NaiveResize(o, x, ds, out_shape),
                        1e-5f);
        }
      }
    }
  }
}

TEST(Resize, MatchesNaiveWithSizes) {
  uint32_t seed = 500;
  for (const auto& mode : {"nearest", "linear", "cubic"}) {
    for (const Shape& sizes : {Shape{1, 3, 8, 3}, Shape{1, 3, 2, 7}, Shape{3, 1, 5, 5}}) {
      NaiveOptions o;
      o.mode = mode;
      SCOPED_TRACE(std::string(mode) + " to " + ShapeToString(sizes));
      Tensor x = RandomFloat({1, 3, 5, 4}, seed++, -1, 3);
      std::vector<double> ds;
      for (size_t d = 0; d < 4; ++d) ds.push_back(double(sizes[d]) / double(x.shape[d]));
      ExpectAllNear(ResizeSizes(x, sizes, ToAttrs(o)), NaiveResize(o, x, ds, sizes), 1e-5f);
    }
  }
}

// ---- errors ----------------------------------------------------------------------------------

TEST(Resize, Errors) {
  Tensor x = RandomFloat({1, 1, 2, 2}, 1);
  auto run = [&](int opset, std::vector<OpInput> in, Attrs attrs = {}) {
    std::vector<Tensor> out;
    return RunOp("Resize", opset, in, attrs, 1, &out).code();
  };
  const OpInput scales{Scales({1, 1, 2, 2}), true};
  const OpInput sizes{Sizes({1, 1, 4, 4}), true};
  EXPECT_EQ(run(13, {{x}, kAbsent, scales}), ErrorCode::kOk);
  // Scales or sizes only known at run time: the output shape cannot be planned.
  EXPECT_EQ(run(13, {{x}, kAbsent, {Scales({1, 1, 2, 2}), false}}), ErrorCode::kMalformedModel);
  EXPECT_EQ(run(13, {{x}, kAbsent, kAbsent, {Sizes({1, 1, 4, 4}), false}}),
            ErrorCode::kMalformedModel);
  EXPECT_EQ(run(13, {{x}, kAbsent, scales, sizes}), ErrorCode::kMalformedModel);  // both
  EXPECT_EQ(run(13, {{x}}), ErrorCode::kMalformedModel);                          // neither
  EXPECT_EQ(run(13, {{x}, kAbsent, {Scales({2, 2}), true}}), ErrorCode::kMalformedModel);
  EXPECT_EQ(run(13, {{x}, kAbsent, {Scales({1, 1, -2, 2}), true}}), ErrorCode::kMalformedModel);
  EXPECT_EQ(run(13, {{x}, kAbsent, {Scales({1, 1, 0, 2}), true}}), ErrorCode::kMalformedModel);
  EXPECT_EQ(run(13, {{x}, kAbsent, kAbsent, {Sizes({1, 1, -1, 4}), true}}),
            ErrorCode::kMalformedModel);
  EXPECT_EQ(run(10, {{x}, scales}, {{"mode", StringAttr("cubic")}}), ErrorCode::kMalformedModel);
  EXPECT_EQ(run(13, {{x}, kAbsent, scales}, {{"mode", StringAttr("area")}}),
            ErrorCode::kMalformedModel);
  EXPECT_EQ(run(13, {{x}, kAbsent, scales}, {{"nearest_mode", StringAttr("up")}}),
            ErrorCode::kMalformedModel);
  EXPECT_EQ(
      run(13, {{x}, kAbsent, scales}, {{"coordinate_transformation_mode", StringAttr("sideways")}}),
      ErrorCode::kMalformedModel);
  EXPECT_EQ(run(18, {{x}, kAbsent, scales},
                {{"coordinate_transformation_mode", StringAttr("half_pixel_symmetric")}}),
            ErrorCode::kMalformedModel);  // new in 19
  EXPECT_EQ(run(13, {{x}, kAbsent, scales},
                {{"coordinate_transformation_mode", StringAttr("tf_crop_and_resize")}}),
            ErrorCode::kMalformedModel);  // needs roi
  EXPECT_EQ(run(13, {{x}, {MakeFloat({4}, {0, 0, 1, 1}), true}, scales},
                {{"coordinate_transformation_mode", StringAttr("tf_crop_and_resize")}}),
            ErrorCode::kShapeMismatch);  // roi needs 2 * rank values
  EXPECT_EQ(run(18, {{x}, kAbsent, {Scales({2, 2}), true}}, {{"axes", IntsAttr({2, 2})}}),
            ErrorCode::kMalformedModel);
  EXPECT_EQ(run(18, {{x}, kAbsent, {Scales({2, 2}), true}}, {{"axes", IntsAttr({2, 4})}}),
            ErrorCode::kMalformedModel);
  EXPECT_EQ(
      run(18, {{x}, kAbsent, kAbsent, sizes}, {{"keep_aspect_ratio_policy", StringAttr("squash")}}),
      ErrorCode::kMalformedModel);
  EXPECT_EQ(run(13, {{MakeInt64({1, 2}, {1, 2})}, kAbsent, {Scales({1, 2}), true}}),
            ErrorCode::kUnsupportedDtype);
  EXPECT_EQ(run(13, {{x}, kAbsent, kAbsent, {MakeFloat({4}, {1, 1, 4, 4}), true}}),
            ErrorCode::kUnsupportedDtype);  // sizes must be int64
  EXPECT_EQ(run(13, {{MakeFloat({0, 2}, {})}, kAbsent, kAbsent, {Sizes({3, 2}), true}}),
            ErrorCode::kShapeMismatch);                   // nothing to sample from
  EXPECT_EQ(run(10, {{x}}), ErrorCode::kMalformedModel);  // Resize 10 needs scales
}

}  // namespace
}  // namespace webnx
