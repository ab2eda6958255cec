// Elementwise one-input ops (kernels/unary.cc).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>

#include "tests/unit/op_runner.h"

namespace webnx::testing {
namespace {

Tensor MakeInt32(const Shape& shape, const std::vector<int32_t>& values) {
  Tensor t;
  EXPECT_TRUE(Tensor::Allocate(DType::kInt32, shape, &t).ok());
  std::copy(values.begin(), values.end(), t.ptr<int32_t>());
  return t;
}

template <typename T>
std::vector<T> Values(const Tensor& t) {
  return std::vector<T>(t.ptr<T>(), t.ptr<T>() + t.numel());
}

Status RunStatus(const std::string& op, int opset, const std::vector<OpInput>& inputs,
                 const std::map<std::string, Attribute>& attrs = {},
                 std::vector<Tensor>* out = nullptr) {
  std::vector<Tensor> local;
  return RunOp(op, opset, inputs, attrs, 1, out ? out : &local);
}

// Checks op(x) against a reference on a random odd-sized tensor (covers loop tails).
void ExpectMatches(const std::string& op, int opset, const std::function<double(double)>& ref,
                   float lo = -4.f, float hi = 4.f,
                   const std::map<std::string, Attribute>& attrs = {}, double tol = 1e-6) {
  Tensor x = RandomFloat({3, 37}, 42, lo, hi);
  std::vector<Tensor> out;
  Status s = RunOp(op, opset, {OpInput{x}}, attrs, 1, &out);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(out[0].shape, x.shape);
  for (int64_t i = 0; i < x.numel(); ++i) {
    const double want = ref(x.ptr<float>()[i]);
    ASSERT_NEAR(out[0].ptr<float>()[i], want, tol * std::max(1.0, std::fabs(want)))
        << op << " at x=" << x.ptr<float>()[i];
  }
}

TEST(UnaryActivations, MatchReferenceFormulas) {
  ExpectMatches("Relu", 14, [](double x) { return x > 0 ? x : 0; });
  ExpectMatches("LeakyRelu", 16, [](double x) { return x > 0 ? x : 0.01 * x; });
  ExpectMatches("LeakyRelu", 6, [](double x) { return x > 0 ? x : 0.3 * x; }, -4, 4,
                {{"alpha", FloatAttr(0.3f)}});
  ExpectMatches(
      "Sigmoid", 13, [](double x) { return 1 / (1 + std::exp(-x)); }, -30, 30);
  ExpectMatches("HardSigmoid", 6, [](double x) { return std::clamp(0.2 * x + 0.5, 0.0, 1.0); });
  ExpectMatches("HardSigmoid", 22, [](double x) { return std::clamp(0.5 * x + 0.6, 0.0, 1.0); }, -4,
                4, {{"alpha", FloatAttr(0.5f)}, {"beta", FloatAttr(0.6f)}});
  ExpectMatches("HardSwish", 14, [](double x) { return x * std::clamp(x / 6 + 0.5, 0.0, 1.0); });
  ExpectMatches("Tanh", 13, [](double x) { return std::tanh(x); });
  ExpectMatches("Elu", 6, [](double x) { return x > 0 ? x : 1.0 * (std::exp(x) - 1); });
  ExpectMatches("Elu", 22, [](double x) { return x > 0 ? x : 2.0 * (std::exp(x) - 1); }, -4, 4,
                {{"alpha", FloatAttr(2.f)}});
  ExpectMatches("Selu", 6, [](double x) {
    const double alpha = 1.6732632423543772, gamma = 1.0507009873554805;
    return x > 0 ? gamma * x : gamma * (alpha * std::exp(x) - alpha);
  });
  ExpectMatches(
      "Softplus", 1, [](double x) { return std::log(std::exp(x) + 1); }, -20, 20);
  ExpectMatches("Gelu", 20, [](double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); });
  ExpectMatches(
      "Gelu", 20,
      [](double x) {
        return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
      },
      -4, 4, {{"approximate", StringAttr("tanh")}}, 1e-5);
}

TEST(UnaryMath, MatchReferenceFormulas) {
  ExpectMatches("Exp", 13, [](double x) { return std::exp(x); });
  ExpectMatches(
      "Log", 13, [](double x) { return std::log(x); }, 0.01f, 10);
  ExpectMatches(
      "Sqrt", 13, [](double x) { return std::sqrt(x); }, 0, 10);
  ExpectMatches(
      "Reciprocal", 6, [](double x) { return 1 / x; }, 0.1f, 10);
  ExpectMatches("Neg", 13, [](double x) { return -x; });
  ExpectMatches("Abs", 13, [](double x) { return std::fabs(x); });
  ExpectMatches("Floor", 13, [](double x) { return std::floor(x); });
  ExpectMatches("Ceil", 13, [](double x) { return std::ceil(x); });
  ExpectMatches("Erf", 13, [](double x) { return std::erf(x); });
  ExpectMatches("Sin", 7, [](double x) { return std::sin(x); });
  ExpectMatches("Cos", 22, [](double x) { return std::cos(x); });
  ExpectMatches("Sign", 13, [](double x) { return x > 0 ? 1.0 : (x < 0 ? -1.0 : 0.0); });
}

// float64: each op's double function, bitwise; ops without one (Erf) refuse float64 by name.
TEST(UnaryMath, Float64ComputesInDouble) {
  Tensor x;
  ASSERT_TRUE(Tensor::Allocate(DType::kFloat64, {7}, &x).ok());
  const double values[7] = {0.1, 1.0 / 3.0, 2.5, 7.25, 1e-300, 0.5, 123.456789};
  std::copy(values, values + 7, x.ptr<double>());
  const std::vector<std::pair<std::string, double (*)(double)>> ops = {
      {"Exp", [](double v) { return std::exp(v); }},
      {"Log", [](double v) { return std::log(v); }},
      {"Sqrt", [](double v) { return std::sqrt(v); }},
      {"Reciprocal", [](double v) { return 1 / v; }},
      {"Neg", [](double v) { return -v; }},
      {"Abs", [](double v) { return std::fabs(v); }},
      {"Floor", [](double v) { return std::floor(v); }},
      {"Ceil", [](double v) { return std::ceil(v); }},
      {"Round", [](double v) { return std::nearbyint(v); }},
      {"Sin", [](double v) { return std::sin(v); }},
      {"Cos", [](double v) { return std::cos(v); }}};
  for (const auto& [op, fn] : ops) {
    std::vector<Tensor> out;
    const Status s = RunOp(op, 13, {{x}}, {}, 1, &out);
    ASSERT_TRUE(s.ok()) << op << ": " << s.ToString();
    ASSERT_EQ(out[0].dtype, DType::kFloat64);
    for (int i = 0; i < 7; ++i) EXPECT_EQ(out[0].ptr<double>()[i], fn(values[i])) << op << " " << i;
  }
  std::vector<Tensor> out;
  const Status s = RunOp("Erf", 13, {{x}}, {}, 1, &out);
  EXPECT_EQ(s.code(), ErrorCode::kUnsupportedDtype);
  EXPECT_NE(s.message().find("float64"), std::string::npos) << s.message();
}

TEST(UnaryMath, ExpIsAccurateOverTheWholeRange) {
  // Exp uses webnx's own polynomial (same rounding natively and in wasm): check it within
  // 2 ulp of a double reference from deep underflow to overflow.
  Tensor x = RandomFloat({4099}, 9, -110.f, 90.f);
  Tensor y = RunOk("Exp", 13, {x});
  for (int64_t i = 0; i < x.numel(); ++i) {
    const float v = x.ptr<float>()[i];
    const float want = static_cast<float>(std::exp(static_cast<double>(v)));
    const float got = y.ptr<float>()[i];
    if (std::isinf(want)) {
      ASSERT_TRUE(std::isinf(got)) << "x=" << v;
      continue;
    }
    if (want < std::numeric_limits<float>::min()) {  // subnormal results: absolute error
      ASSERT_NEAR(got, want, 3e-45) << "x=" << v;
      continue;
    }
    const float ulp = std::nextafter(want, INFINITY) - want;
    ASSERT_LE(std::fabs(got - want), 2 * ulp) << "x=" << v;
  }
  y = RunOk("Exp", 13, {MakeFloat({5}, {INFINITY, -INFINITY, NAN, 0, 1})});
  EXPECT_TRUE(std::isinf(y.ptr<float>()[0]));
  EXPECT_EQ(y.ptr<float>()[1], 0.f);
  EXPECT_TRUE(std::isnan(y.ptr<float>()[2]));
  EXPECT_EQ(y.ptr<float>()[3], 1.f);
  EXPECT_FLOAT_EQ(y.ptr<float>()[4], 2.7182817f);
  y = RunOk("Sigmoid", 13, {MakeFloat({3}, {NAN, INFINITY, -INFINITY})});
  EXPECT_TRUE(std::isnan(y.ptr<float>()[0]));
  EXPECT_EQ(y.ptr<float>()[1], 1.f);
  EXPECT_EQ(y.ptr<float>()[2], 0.f);
}

TEST(UnaryMath, RoundHalvesToEven) {
  Tensor y = RunOk("Round", 11, {MakeFloat({7}, {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 2.4f, -2.6f})});
  EXPECT_EQ(Values<float>(y), (std::vector<float>{0, 2, 2, -0.f, -2, 2, -3}));
}

TEST(UnaryActivations, SigmoidAndSoftplusStayFiniteAtExtremes) {
  Tensor y = RunOk("Sigmoid", 13, {MakeFloat({2}, {-1000, 1000})});
  EXPECT_EQ(Values<float>(y), (std::vector<float>{0, 1}));
  y = RunOk("Softplus", 1, {MakeFloat({2}, {-1000, 1000})});
  EXPECT_EQ(Values<float>(y), (std::vector<float>{0, 1000}));
}

TEST(UnaryIntegers, ReluNegAbsSignTakeIntegers) {
  Tensor y = RunOk("Relu", 14, {MakeInt64({3}, {-2, 0, 5})});
  EXPECT_EQ(Values<int64_t>(y), (std::vector<int64_t>{0, 0, 5}));
  y = RunOk("Neg", 13, {MakeInt32({3}, {-2, 7, INT32_MIN})});
  EXPECT_EQ(Values<int32_t>(y), (std::vector<int32_t>{2, -7, INT32_MIN}));
  y = RunOk("Abs", 6, {MakeInt64({2}, {-9, 3})});
  EXPECT_EQ(Values<int64_t>(y), (std::vector<int64_t>{9, 3}));
  y = RunOk("Sign", 9, {MakeInt32({3}, {-5, 0, 8})});
  EXPECT_EQ(Values<int32_t>(y), (std::vector<int32_t>{-1, 0, 1}));
  // Relu takes integers only from 14; Exp never does.
  EXPECT_EQ(RunStatus("Relu", 13, {OpInput{MakeInt64({1}, {1})}}).code(),
            ErrorCode::kUnsupportedDtype);
  EXPECT_EQ(RunStatus("Exp", 13, {OpInput{MakeInt64({1}, {1})}}).code(),
            ErrorCode::kUnsupportedDtype);
}

TEST(UnaryNot, NegatesBool) {
  Tensor x;
  ASSERT_TRUE(Tensor::Allocate(DType::kBool, {3}, &x).ok());
  x.ptr<bool>()[0] = true;
  Tensor y = RunOk("Not", 1, {x});
  EXPECT_EQ(Values<bool>(y), (std::vector<bool>{false, true, true}));
  EXPECT_EQ(RunStatus("Not", 1, {OpInput{MakeFloat({1}, {1})}}).code(),
            ErrorCode::kUnsupportedDtype);
}

TEST(UnaryClip, AttributeForm) {
  Tensor x = MakeFloat({5}, {-3, -1, 0, 1, 3});
  Tensor y = RunOk("Clip", 6, {x}, {{"min", FloatAttr(-1.5f)}, {"max", FloatAttr(2)}});
  EXPECT_EQ(Values<float>(y), (std::vector<float>{-1.5f, -1, 0, 1, 2}));
  y = RunOk("Clip", 6, {x}, {{"max", FloatAttr(0)}});
  EXPECT_EQ(Values<float>(y), (std::vector<float>{-3, -1, 0, 0, 0}));
  // Opset-6 Clip takes no bound inputs.
  EXPECT_EQ(RunStatus("Clip", 6, {OpInput{x}, OpInput{MakeFloat({}, {0})}}).code(),
            ErrorCode::kMalformedModel);
}

TEST(UnaryClip, InputForm) {
  Tensor x = MakeFloat({5}, {-3, -1, 0, 1, 3});
  Tensor lo = MakeFloat({}, {-1});
  Tensor hi = MakeFloat({}, {2});
  Tensor absent;
  std::vector<Tensor> out;
  ASSERT_TRUE(RunStatus("Clip", 13, {OpInput{x}, OpInput{lo}, OpInput{hi}}, {}, &out).ok());
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{-1, -1, 0, 1, 2}));
  // min omitted
  ASSERT_TRUE(
      RunStatus("Clip", 11, {OpInput{x}, OpInput{absent, false, false}, OpInput{hi}}, {}, &out)
          .ok());
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{-3, -1, 0, 1, 2}));
  // max omitted (input list just ends)
  ASSERT_TRUE(RunStatus("Clip", 12, {OpInput{x}, OpInput{lo}}, {}, &out).ok());
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{-1, -1, 0, 1, 3}));
  // no bounds at all
  ASSERT_TRUE(RunStatus("Clip", 13, {OpInput{x}}, {}, &out).ok());
  EXPECT_EQ(Values<float>(out[0]), Values<float>(x));
  // min > max: everything becomes max
  ASSERT_TRUE(RunStatus("Clip", 13,
                        {OpInput{x}, OpInput{MakeFloat({}, {2})}, OpInput{MakeFloat({}, {1})}}, {},
                        &out)
                  .ok());
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{1, 1, 1, 1, 1}));
  // Attributes are ignored from 11 on (they are not part of the schema).
  ASSERT_TRUE(RunStatus("Clip", 11, {OpInput{x}}, {{"min", FloatAttr(0)}}, &out).ok());
  EXPECT_EQ(Values<float>(out[0]), Values<float>(x));
}

TEST(UnaryClip, IntegersFromOpset12) {
  Tensor x = MakeInt64({4}, {-5, 0, 5, 10});
  std::vector<Tensor> out;
  ASSERT_TRUE(RunStatus("Clip", 12,
                        {OpInput{x}, OpInput{MakeInt64({}, {0})}, OpInput{MakeInt64({}, {6})}}, {},
                        &out)
                  .ok());
  EXPECT_EQ(Values<int64_t>(out[0]), (std::vector<int64_t>{0, 0, 5, 6}));
  EXPECT_EQ(RunStatus("Clip", 11, {OpInput{x}}).code(), ErrorCode::kUnsupportedDtype);
  // A bound of another dtype or shape is malformed.
  EXPECT_EQ(RunStatus("Clip", 13, {OpInput{x}, OpInput{MakeFloat({}, {0})}}).code(),
            ErrorCode::kMalformedModel);
  EXPECT_EQ(RunStatus("Clip", 13, {OpInput{x}, OpInput{MakeInt64({2}, {0, 1})}}).code(),
            ErrorCode::kMalformedModel);
}

TEST(UnaryErrors, BadAttributesAndInputs) {
  EXPECT_EQ(
      RunStatus("Gelu", 20, {OpInput{MakeFloat({1}, {1})}}, {{"approximate", StringAttr("fast")}})
          .code(),
      ErrorCode::kMalformedModel);
  EXPECT_EQ(
      RunStatus("LeakyRelu", 16, {OpInput{MakeFloat({1}, {1})}}, {{"alpha", IntAttr(1)}}).code(),
      ErrorCode::kMalformedModel);
  EXPECT_EQ(RunStatus("Relu", 14, {}).code(), ErrorCode::kMalformedModel);
  // Versions before the first registered one are not resolved.
  EXPECT_EQ(RunStatus("HardSwish", 13, {OpInput{MakeFloat({1}, {1})}}).code(),
            ErrorCode::kUnsupportedOperator);
}

TEST(UnaryShapes, ScalarsAndEmptyTensors) {
  Tensor y = RunOk("Relu", 14, {MakeFloat({}, {-1})});
  EXPECT_EQ(y.shape, Shape{});
  EXPECT_EQ(y.ptr<float>()[0], 0.f);
  y = RunOk("Exp", 13, {MakeFloat({0, 4}, {})});
  EXPECT_EQ(y.shape, (Shape{0, 4}));
}

}  // namespace
}  // namespace webnx::testing
