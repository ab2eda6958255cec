// The elementwise ops of kernels/unary_math_extra.cc (Tan, Asin ... Atanh, IsNaN, IsInf) and
// kernels/activations_extra.cc (Softsign, Mish, Celu, ThresholdedRelu, Shrink).
//
// Expected values were worked out in double precision (Python's math module) for inputs that
// float32 holds exactly; results must be within 1e-6 relative of them, exact where the value is
// 0, an infinity or NaN, and exact for the piecewise-linear ops and the classifiers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tests/unit/op_runner.h"

namespace webnx::testing {
namespace {

constexpr double kRelTol = 1e-6;
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kTiny = 9.5367431640625e-07f;          // 2^-20
constexpr float kHuge = 1.2676506002282294e30f;        // 2^100
constexpr float kHalfPi = 1.57079637050628662109375f;  // pi/2 rounded to float
constexpr float kNearOne = 0.9990234375f;              // 1 - 2^-10

using Points = std::vector<std::pair<float, double>>;  // x, op(x)
using AttrMap = std::map<std::string, Attribute>;

// Tiles the points over a 3x5x7 tensor (odd, so every loop runs a tail), runs the op and checks
// every element against its point's expected value.
void ExpectPoints(const std::string& op, int opset, const Points& points, const AttrMap& attrs = {},
                  double tol = kRelTol) {
  const Shape shape{3, 5, 7};
  std::vector<float> x(105);
  for (size_t i = 0; i < x.size(); ++i) x[i] = points[i % points.size()].first;
  std::vector<Tensor> out;
  Status s = RunOp(op, opset, {OpInput{MakeFloat(shape, x)}}, attrs, 1, &out);
  ASSERT_TRUE(s.ok()) << op << ": " << s.ToString();
  ASSERT_EQ(out[0].dtype, DType::kFloat32);
  ASSERT_EQ(out[0].shape, shape);
  for (size_t i = 0; i < x.size(); ++i) {
    const double want = points[i % points.size()].second;
    const float want_f = static_cast<float>(want);
    const float got = out[0].ptr<float>()[i];
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(got)) << op << "(" << x[i] << ") = " << got << ", want NaN";
    } else if (std::isinf(want_f) || want == 0) {
      ASSERT_EQ(got, want_f) << op << "(" << x[i] << ")";
    } else {
      ASSERT_LE(std::fabs(got - want), tol * std::fabs(want))
          << op << "(" << x[i] << ") = " << got << ", want " << want;
    }
  }
}

// Checks op(x) against a double-precision reference on random values of an odd shape.
void ExpectMatches(const std::string& op, int opset, const std::function<double(double)>& ref,
                   float lo, float hi, const AttrMap& attrs = {}) {
  Tensor x = RandomFloat({1, 13, 9}, 7, lo, hi);
  std::vector<Tensor> out;
  Status s = RunOp(op, opset, {OpInput{x}}, attrs, 1, &out);
  ASSERT_TRUE(s.ok()) << op << ": " << s.ToString();
  for (int64_t i = 0; i < x.numel(); ++i) {
    const double want = ref(x.ptr<float>()[i]);
    ASSERT_NEAR(out[0].ptr<float>()[i], want, 2e-6 * std::max(1.0, std::fabs(want)))
        << op << " at x=" << x.ptr<float>()[i];
  }
}

TEST(UnaryTrig, HandComputedPoints) {
  ExpectPoints("Tan", 7,
               {{0.f, 0.0},
                {-0.f, 0.0},
                {0.5f, 0.5463024898437905},
                {-1.f, -1.5574077246549023},
                {2.f, -2.185039863261519},
                {100.f, -0.5872139151569291},
                {kHalfPi, -22877332.42885646},
                {kTiny, 9.53674316406539e-07},
                {kInf, NAN},
                {-kInf, NAN},
                {kNaN, NAN}});
  ExpectPoints("Asin", 22,
               {{0.f, 0.0},
                {0.5f, 0.5235987755982989},
                {-0.5f, -0.5235987755982989},
                {1.f, 1.5707963267948966},
                {-1.f, -1.5707963267948966},
                {kNearOne, 1.5265985556491812},
                {kTiny, 9.536743164063946e-07},
                {1.5f, NAN},
                {-2.f, NAN},
                {kInf, NAN},
                {kNaN, NAN}});
  ExpectPoints("Acos", 7,
               {{0.f, 1.5707963267948966},
                {0.5f, 1.0471975511965979},
                {-0.5f, 2.0943951023931957},
                {1.f, 0.0},
                {-1.f, 3.141592653589793},
                {kNearOne, 0.04419777114571532},
                {1.5f, NAN},
                {-2.f, NAN},
                {kNaN, NAN}});
  ExpectPoints("Atan", 22,
               {{0.f, 0.0},
                {0.5f, 0.4636476090008061},
                {-1.f, -0.7853981633974483},
                {10.f, 1.4711276743037347},
                {-10000.f, -1.5706963267952299},
                {std::numeric_limits<float>::max(), 1.5707963267948966},
                {kTiny, 9.536743164059608e-07},
                {kInf, 1.5707963267948966},
                {-kInf, -1.5707963267948966},
                {kNaN, NAN}});
}

TEST(UnaryHyperbolic, HandComputedPoints) {
  ExpectPoints("Sinh", 9,
               {{0.f, 0.0},
                {0.5f, 0.5210953054937474},
                {-1.f, -1.1752011936438014},
                {10.f, 11013.232874703393},
                {-20.f, -242582597.70489514},
                {88.f, 8.258181274970009e+37},
                {89.5f, INFINITY},  // 3.7e38 overflows float32
                {-89.5f, -INFINITY},
                {kTiny, 9.536743164063946e-07},
                {kInf, INFINITY},
                {kNaN, NAN}});
  ExpectPoints("Cosh", 22,
               {{0.f, 1.0},
                {0.5f, 1.1276259652063807},
                {-1.f, 1.5430806348152437},
                {10.f, 11013.232920103324},
                {-20.f, 242582597.70489514},
                {88.f, 8.258181274970009e+37},
                {-89.5f, INFINITY},
                {-kInf, INFINITY},
                {kNaN, NAN}});
  ExpectPoints("Asinh", 9,
               {{0.f, 0.0},
                {0.5f, 0.48121182505960347},
                {-1.f, -0.881373587019543},
                {1000.f, 7.600902709541988},
                {kHuge, 70.00786523655448},  // x^2 would overflow: must not be formed
                {-kHuge, -70.00786523655448},
                {kTiny, 9.536743164061055e-07},
                {kInf, INFINITY},
                {-kInf, -INFINITY},
                {kNaN, NAN}});
  ExpectPoints("Acosh", 22,
               {{1.f, 0.0},
                {1.5f, 0.9624236501192069},
                {2.f, 1.3169578969248166},
                {10.f, 2.993222846126381},
                {kHuge, 70.00786523655448},
                {0.5f, NAN},
                {0.f, NAN},
                {-1.f, NAN},
                {kInf, INFINITY},
                {kNaN, NAN}});
  ExpectPoints("Atanh", 9,
               {{0.f, 0.0},
                {0.5f, 0.5493061443340548},
                {-0.5f, -0.5493061443340548},
                {kNearOne, 3.8120652928306447},
                {kTiny, 9.53674316406539e-07},
                {1.f, INFINITY},
                {-1.f, -INFINITY},
                {1.5f, NAN},
                {kNaN, NAN}});
}

TEST(UnaryTrig, MatchDoubleReference) {
  ExpectMatches(
      "Tan", 22, [](double x) { return std::tan(x); }, -1.4f, 1.4f);
  ExpectMatches(
      "Asin", 7, [](double x) { return std::asin(x); }, -1, 1);
  ExpectMatches(
      "Acos", 22, [](double x) { return std::acos(x); }, -1, 1);
  ExpectMatches(
      "Atan", 7, [](double x) { return std::atan(x); }, -50, 50);
  ExpectMatches(
      "Sinh", 22, [](double x) { return std::sinh(x); }, -10, 10);
  ExpectMatches(
      "Cosh", 9, [](double x) { return std::cosh(x); }, -10, 10);
  ExpectMatches(
      "Asinh", 22, [](double x) { return std::asinh(x); }, -100, 100);
  ExpectMatches(
      "Acosh", 9, [](double x) { return std::acosh(x); }, 1, 100);
  ExpectMatches(
      "Atanh", 22, [](double x) { return std::atanh(x); }, -0.99f, 0.99f);
}

TEST(ActivationsExtra, SoftsignAndMish) {
  ExpectPoints("Softsign", 1,
               {{0.f, 0.0},
                {1.f, 0.5},
                {-3.f, -0.75},
                {0.5f, 0.3333333333333333},
                {1e6f, 0.999999000001},
                {-kHuge, -1.0},
                {kInf, NAN},  // inf / inf, as the spec's function body gives
                {kNaN, NAN}});
  ExpectPoints("Mish", 18,
               {{0.f, 0.0},
                {1.f, 0.8650983882673103},
                {-1.f, -0.30340146137410895},
                {0.5f, 0.3752452113048951},
                {5.f, 4.999552077529406},
                {-5.f, -0.033576237730161704},
                {20.f, 20.0},
                {-20.f, -4.122307240628762e-08},
                {-50.f, -9.643749239819589e-21},
                {100.f, 100.0},  // e^100 overflows float32: softplus must not form it
                {-1000.f, 0.0},
                {kInf, INFINITY},
                {-kInf, NAN},  // -inf * tanh(0), as the spec's function body gives
                {kNaN, NAN}});
  ExpectMatches(
      "Softsign", 22, [](double x) { return x / (1 + std::fabs(x)); }, -20, 20);
  ExpectMatches(
      "Mish", 22, [](double x) { return x * std::tanh(std::log1p(std::exp(x))); }, -20, 20);
}

TEST(ActivationsExtra, CeluAlphas) {
  ExpectPoints("Celu", 12,
               {{0.f, 0.0},
                {1.f, 1.0},
                {kTiny, kTiny},
                {-1.f, -0.6321205588285577},
                {-kTiny, -9.536738616590436e-07},  // expm1, not exp - 1
                {-20.f, -0.9999999979388464},
                {-1000.f, -1.0},
                {kInf, INFINITY},
                {-kInf, -1.0},
                {kNaN, NAN}});
  ExpectPoints("Celu", 12,
               {{3.f, 3.0}, {0.f, 0.0}, {-1.f, -0.7869386805747332}, {-10.f, -1.986524106001829}},
               {{"alpha", FloatAttr(2.f)}});
  ExpectPoints("Celu", 12,
               {{-1.f, -0.43233235838169365}, {-0.25f, -0.1967346701436833}, {0.25f, 0.25}},
               {{"alpha", FloatAttr(0.5f)}});
}

TEST(ActivationsExtra, ThresholdedReluAlphas) {
  const float just_above_one = std::nextafter(1.f, 2.f);
  ExpectPoints("ThresholdedRelu", 10,
               {{0.f, 0.0},
                {1.f, 0.0},  // not above alpha
                {just_above_one, just_above_one},
                {2.f, 2.0},
                {-3.f, 0.0},
                {kInf, INFINITY},
                {-kInf, 0.0},
                {kNaN, 0.0}});  // the comparison is false, as in the function body's Where
  ExpectPoints("ThresholdedRelu", 22, {{-0.5f, -0.5}, {-1.f, 0.0}, {-2.f, 0.0}, {3.f, 3.0}},
               {{"alpha", FloatAttr(-1.f)}});
  ExpectPoints("ThresholdedRelu", 22, {{2.5f, 0.0}, {3.f, 3.0}, {0.f, 0.0}},
               {{"alpha", FloatAttr(2.5f)}});
}

TEST(ActivationsExtra, ShrinkFloat) {
  ExpectPoints("Shrink", 9,
               {{0.f, 0.0},
                {0.5f, 0.0},
                {-0.5f, 0.0},
                {0.75f, 0.75},
                {-1.f, -1.0},
                {kInf, INFINITY},
                {-kInf, -INFINITY},
                {kNaN, 0.0}});
  ExpectPoints(
      "Shrink", 9,
      {{-2.f, -0.5}, {-1.f, 0.0}, {1.f, 0.0}, {0.9f, 0.0}, {2.f, 0.5}, {10.f, 8.5}, {-10.f, -8.5}},
      {{"bias", FloatAttr(1.5f)}, {"lambd", FloatAttr(1.f)}});
}

template <typename T>
Tensor MakeInts(DType dtype, const Shape& shape, const std::vector<T>& values) {
  Tensor t;
  EXPECT_TRUE(Tensor::Allocate(dtype, shape, &t).ok());
  std::copy(values.begin(), values.end(), t.ptr<T>());
  return t;
}

template <typename T>
std::vector<T> Values(const Tensor& t) {
  return std::vector<T>(t.ptr<T>(), t.ptr<T>() + t.numel());
}

TEST(ActivationsExtra, ShrinkIntegers) {
  // The bias reaches integers as the function body's CastLike gives it: 1.7 -> 1.
  Tensor y =
      RunOk("Shrink", 9, {MakeInts<int32_t>(DType::kInt32, {1, 7}, {-3, -2, -1, 0, 1, 2, 3})},
            {{"bias", FloatAttr(1.7f)}, {"lambd", FloatAttr(1.5f)}});
  ASSERT_EQ(y.dtype, DType::kInt32);
  EXPECT_EQ(Values<int32_t>(y), (std::vector<int32_t>{-2, -1, 0, 0, 0, 1, 2}));
  y = RunOk("Shrink", 9, {MakeInts<int64_t>(DType::kInt64, {5}, {-2, -1, 0, 1, 2})});
  EXPECT_EQ(Values<int64_t>(y), (std::vector<int64_t>{-2, -1, 0, 1, 2}));
  // Integer results wrap instead of overflowing.
  y = RunOk("Shrink", 9, {MakeInts<int32_t>(DType::kInt32, {2}, {INT32_MIN, INT32_MAX})},
            {{"bias", FloatAttr(-1.f)}});
  EXPECT_EQ(Values<int32_t>(y), (std::vector<int32_t>{INT32_MAX, INT32_MIN}));
}

TEST(UnaryClassify, IsNaNAndIsInf) {
  const std::vector<float> x = {0.f,
                                -0.f,
                                1.f,
                                -kInf,
                                kInf,
                                kNaN,
                                -kNaN,
                                std::numeric_limits<float>::max(),
                                std::numeric_limits<float>::denorm_min(),
                                -3.f,
                                7.f,
                                kInf,
                                -kInf};
  const Tensor input = MakeFloat({1, 13}, x);
  const auto run = [&](const std::string& op, int opset, const AttrMap& attrs) {
    Tensor y = RunOk(op, opset, {input}, attrs);
    EXPECT_EQ(y.dtype, DType::kBool);
    EXPECT_EQ(y.shape, (Shape{1, 13}));
    return Values<bool>(y);
  };
  const std::vector<bool> nan = {0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0};
  const std::vector<bool> pos = {0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0};
  const std::vector<bool> neg = {0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  std::vector<bool> both(13), none(13, false);
  for (size_t i = 0; i < 13; ++i) both[i] = pos[i] || neg[i];
  EXPECT_EQ(run("IsNaN", 9, {}), nan);
  EXPECT_EQ(run("IsNaN", 13, {}), nan);
  EXPECT_EQ(run("IsNaN", 20, {}), nan);
  EXPECT_EQ(run("IsInf", 10, {}), both);
  EXPECT_EQ(run("IsInf", 20, {{"detect_negative", IntAttr(0)}}), pos);
  EXPECT_EQ(run("IsInf", 20, {{"detect_positive", IntAttr(0)}}), neg);
  EXPECT_EQ(run("IsInf", 10, {{"detect_negative", IntAttr(0)}, {"detect_positive", IntAttr(0)}}),
            none);
  EXPECT_EQ(run("IsInf", 20, {{"detect_negative", IntAttr(1)}, {"detect_positive", IntAttr(1)}}),
            both);
}

TEST(UnaryExtraShapes, ScalarsAndEmptyTensors) {
  Tensor y = RunOk("IsInf", 20, {MakeFloat({0, 3}, {})});
  EXPECT_EQ(y.dtype, DType::kBool);
  EXPECT_EQ(y.shape, (Shape{0, 3}));
  y = RunOk("IsNaN", 20, {MakeFloat({}, {kNaN})});
  EXPECT_EQ(y.shape, Shape{});
  EXPECT_TRUE(y.ptr<bool>()[0]);
  y = RunOk("Shrink", 9, {MakeFloat({}, {-2.f})});
  EXPECT_EQ(y.ptr<float>()[0], -2.f);
  y = RunOk("Atanh", 22, {MakeFloat({1, 0}, {})});
  EXPECT_EQ(y.shape, (Shape{1, 0}));
}

Status RunStatus(const std::string& op, int opset, const Tensor& x, const AttrMap& attrs = {}) {
  std::vector<Tensor> out;
  return RunOp(op, opset, {OpInput{x}}, attrs, 1, &out);
}

TEST(UnaryExtraErrors, VersionsDtypesAndAttributes) {
  const Tensor f = MakeFloat({1}, {0.5f});
  const Tensor i64 = MakeInts<int64_t>(DType::kInt64, {1}, {1});
  // Every registered since-version resolves; the opset before the first does not.
  const std::vector<std::pair<std::string, std::vector<int>>> versions = {
      {"Tan", {7, 22}},       {"Asin", {7, 22}},
      {"Acos", {7, 22}},      {"Atan", {7, 22}},
      {"Sinh", {9, 22}},      {"Cosh", {9, 22}},
      {"Asinh", {9, 22}},     {"Acosh", {9, 22}},
      {"Atanh", {9, 22}},     {"Softsign", {1, 22}},
      {"Mish", {18, 22}},     {"Celu", {12}},
      {"Shrink", {9}},        {"ThresholdedRelu", {10, 22}},
      {"IsNaN", {9, 13, 20}}, {"IsInf", {10, 20}}};
  for (const auto& [op, since] : versions) {
    for (int v : since) EXPECT_TRUE(RunStatus(op, v, f).ok()) << op << "-" << v;
    if (since[0] > 1) {
      EXPECT_EQ(RunStatus(op, since[0] - 1, f).code(), ErrorCode::kUnsupportedOperator) << op;
    }
    // Only Shrink takes integers.
    if (op != "Shrink") {
      EXPECT_EQ(RunStatus(op, since.back(), i64).code(), ErrorCode::kUnsupportedDtype) << op;
    }
  }
  // Celu divides by alpha; attributes of the wrong type are refused, naming the node.
  Status s = RunStatus("Celu", 12, f, {{"alpha", FloatAttr(0.f)}});
  EXPECT_EQ(s.code(), ErrorCode::kMalformedModel);
  EXPECT_NE(s.ToString().find("alpha"), std::string::npos) << s.ToString();
  EXPECT_EQ(RunStatus("Celu", 12, f, {{"alpha", IntAttr(2)}}).code(), ErrorCode::kMalformedModel);
  EXPECT_EQ(RunStatus("IsInf", 20, f, {{"detect_negative", FloatAttr(0.f)}}).code(),
            ErrorCode::kMalformedModel);
  EXPECT_EQ(RunStatus("Shrink", 9, f, {{"lambd", StringAttr("0.5")}}).code(),
            ErrorCode::kMalformedModel);
  EXPECT_EQ(RunStatus("ThresholdedRelu", 10, f, {{"alpha", IntsAttr({1})}}).code(),
            ErrorCode::kMalformedModel);
  // One input, exactly.
  std::vector<Tensor> out;
  EXPECT_EQ(RunOp("IsNaN", 20, {}, {}, 1, &out).code(), ErrorCode::kMalformedModel);
  EXPECT_EQ(RunOp("Mish", 22, {OpInput{f}, OpInput{f}}, {}, 1, &out).code(),
            ErrorCode::kMalformedModel);
}

}  // namespace
}  // namespace webnx::testing
