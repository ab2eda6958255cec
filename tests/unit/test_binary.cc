// Broadcasting and the elementwise binary/variadic ops (kernels/binary.cc, kernels/broadcast.*).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>

#include "kernels/broadcast.h"
#include "tests/unit/op_runner.h"

namespace webnx::testing {
namespace {

Tensor MakeInt32(const Shape& shape, const std::vector<int32_t>& values) {
  Tensor t;
  EXPECT_TRUE(Tensor::Allocate(DType::kInt32, shape, &t).ok());
  EXPECT_EQ(static_cast<size_t>(t.numel()), values.size());
  std::copy(values.begin(), values.end(), t.ptr<int32_t>());
  return t;
}

Tensor MakeBool(const Shape& shape, const std::vector<bool>& values) {
  Tensor t;
  EXPECT_TRUE(Tensor::Allocate(DType::kBool, shape, &t).ok());
  EXPECT_EQ(static_cast<size_t>(t.numel()), values.size());
  for (size_t i = 0; i < values.size(); ++i) t.ptr<bool>()[i] = values[i];
  return t;
}

template <typename T>
std::vector<T> Values(const Tensor& t) {
  return std::vector<T>(t.ptr<T>(), t.ptr<T>() + t.numel());
}

// Flat index into `in` of output element `flat` under numpy broadcasting (the naive way).
int64_t SourceIndex(const Shape& out, const Shape& in, int64_t flat) {
  int64_t index = 0, stride = 1;
  for (size_t k = 0; k < out.size(); ++k) {
    const size_t d = out.size() - 1 - k;
    const int64_t coord = flat % out[d];
    flat /= out[d];
    if (k < in.size()) {
      const size_t e = in.size() - 1 - k;
      if (in[e] != 1) index += coord * stride;
      stride *= in[e];
    }
  }
  return index;
}

Status RunStatus(const std::string& op, int opset, const std::vector<Tensor>& inputs,
                 std::vector<Tensor>* out = nullptr,
                 const std::map<std::string, Attribute>& attrs = {}) {
  std::vector<OpInput> in;
  for (const Tensor& t : inputs) in.push_back(OpInput{t, false, true});
  std::vector<Tensor> local;
  return RunOp(op, opset, in, attrs, 1, out ? out : &local);
}

// Random (out, a, b) where a and b broadcast to out; ranks 0-5, dims 1-4, some 1s.
struct BroadcastCase {
  Shape out, a, b;
};
BroadcastCase RandomCase(std::mt19937& rng) {
  BroadcastCase c;
  const int rank = std::uniform_int_distribution<int>(0, 5)(rng);
  for (int i = 0; i < rank; ++i) c.out.push_back(std::uniform_int_distribution<int>(1, 4)(rng));
  for (Shape* s : {&c.a, &c.b}) {
    const int r = std::uniform_int_distribution<int>(0, rank)(rng);
    for (int i = rank - r; i < rank; ++i) {
      s->push_back(std::uniform_int_distribution<int>(0, 2)(rng) == 0 ? 1 : c.out[i]);
    }
  }
  // The actual broadcast may be smaller where both operands chose 1.
  EXPECT_TRUE(BroadcastShapes({c.a, c.b}, &c.out).ok());
  return c;
}

TEST(BinaryBroadcast, ShapesFollowNumpy) {
  Shape out;
  ASSERT_TRUE(BroadcastShapes({{2, 1, 4}, {3, 1}}, &out).ok());
  EXPECT_EQ(out, (Shape{2, 3, 4}));
  ASSERT_TRUE(BroadcastShapes({{}, {5}}, &out).ok());
  EXPECT_EQ(out, (Shape{5}));
  ASSERT_TRUE(BroadcastShapes({{0, 1}, {1, 3}}, &out).ok());
  EXPECT_EQ(out, (Shape{0, 3}));
  Status s = BroadcastShapes({{2, 3}, {4}}, &out);
  EXPECT_EQ(s.code(), ErrorCode::kShapeMismatch);
  EXPECT_NE(s.message().find("[2,3]"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("[4]"), std::string::npos) << s.message();
}

TEST(BinaryBroadcast, WalkerCollapsesToLongRuns) {
  BroadcastWalker w;
  w.Init({2, 3, 4, 5}, {{2, 3, 4, 5}, {2, 3, 4, 5}});  // same shape: one run
  EXPECT_EQ(w.run_length(), 120);
  EXPECT_EQ(w.step(0), 1);
  EXPECT_EQ(w.step(1), 1);
  w.Init({2, 3, 4, 5}, {{2, 3, 4, 5}, {}});  // scalar operand
  EXPECT_EQ(w.run_length(), 120);
  EXPECT_EQ(w.step(1), 0);
  w.Init({2, 3, 4, 5}, {{2, 3, 4, 5}, {1, 3, 1, 1}});  // per channel
  EXPECT_EQ(w.run_length(), 20);
  EXPECT_EQ(w.step(0), 1);
  EXPECT_EQ(w.step(1), 0);
  w.Init({6, 7}, {{6, 7}, {7}});  // per row
  EXPECT_EQ(w.run_length(), 7);
  EXPECT_EQ(w.step(1), 1);
}

TEST(BinaryAdd, HandChecked) {
  Tensor y = RunOk("Add", 14, {MakeFloat({2, 2}, {1, 2, 3, 4}), MakeFloat({2}, {10, 20})});
  EXPECT_EQ(y.shape, (Shape{2, 2}));
  EXPECT_EQ(Values<float>(y), (std::vector<float>{11, 22, 13, 24}));
  y = RunOk("Sub", 7, {MakeFloat({}, {1}), MakeFloat({3}, {1, 2, 3})});
  EXPECT_EQ(Values<float>(y), (std::vector<float>{0, -1, -2}));
  y = RunOk("Mul", 13, {MakeInt64({2, 1}, {2, 3}), MakeInt64({1, 3}, {1, 10, 100})});
  EXPECT_EQ(Values<int64_t>(y), (std::vector<int64_t>{2, 20, 200, 3, 30, 300}));
}

TEST(BinaryDiv, IntegerDivisionTruncatesAndNeverTraps) {
  Tensor y = RunOk("Div", 14,
                   {MakeInt32({5}, {7, -7, 7, -7, INT32_MIN}), MakeInt32({5}, {2, 2, -2, 0, -1})});
  EXPECT_EQ(Values<int32_t>(y), (std::vector<int32_t>{3, -3, -3, 0, INT32_MIN}));
  y = RunOk("Div", 14, {MakeInt64({2}, {9, -9}), MakeInt64({}, {4})});
  EXPECT_EQ(Values<int64_t>(y), (std::vector<int64_t>{2, -2}));
  y = RunOk("Div", 14, {MakeFloat({2}, {1, -3}), MakeFloat({1}, {2})});
  EXPECT_EQ(Values<float>(y), (std::vector<float>{0.5f, -1.5f}));
}

TEST(BinaryArithmetic, RandomBroadcastsMatchNaiveLoops) {
  std::mt19937 rng(7);
  const std::vector<std::pair<std::string, std::function<float(float, float)>>> ops = {
      {"Add", [](float a, float b) { return a + b; }},
      {"Sub", [](float a, float b) { return a - b; }},
      {"Mul", [](float a, float b) { return a * b; }},
      {"Div", [](float a, float b) { return a / b; }},
  };
  for (int trial = 0; trial < 200; ++trial) {
    BroadcastCase c = RandomCase(rng);
    Tensor a = RandomFloat(c.a, 100 + trial);
    Tensor b = RandomFloat(c.b, 900 + trial, 0.5f, 2.f);
    for (const auto& [name, fn] : ops) {
      Tensor y = RunOk(name, 14, {a, b});
      ASSERT_EQ(y.shape, c.out) << name << " " << ShapeToString(c.a) << " " << ShapeToString(c.b);
      for (int64_t i = 0; i < y.numel(); ++i) {
        const float want = fn(a.ptr<float>()[SourceIndex(c.out, c.a, i)],
                              b.ptr<float>()[SourceIndex(c.out, c.b, i)]);
        ASSERT_EQ(y.ptr<float>()[i], want)
            << name << " " << ShapeToString(c.a) << " " << ShapeToString(c.b) << " at " << i;
      }
    }
  }
}

TEST(BinaryArithmetic, OddShapesAndTails) {
  // Long inner runs with odd lengths and a 0-sized dim.
  Tensor a = RandomFloat({3, 1, 37}, 1);
  Tensor b = RandomFloat({5, 1}, 2);
  Tensor y = RunOk("Add", 14, {a, b});
  ASSERT_EQ(y.shape, (Shape{3, 5, 37}));
  for (int64_t i = 0; i < y.numel(); ++i) {
    ASSERT_EQ(y.ptr<float>()[i], a.ptr<float>()[SourceIndex(y.shape, a.shape, i)] +
                                     b.ptr<float>()[SourceIndex(y.shape, b.shape, i)]);
  }
  Tensor empty = RunOk("Mul", 14, {RandomFloat({0, 3}, 3), RandomFloat({1, 3}, 4)});
  EXPECT_EQ(empty.shape, (Shape{0, 3}));
}

// Shapes that take the SIMD paths (same shape; one value per channel plane or a scalar, on
// either side) and their neighbours that do not (a broadcast in the leading axes).
TEST(BinaryArithmetic, SimdPathsMatchNaiveLoops) {
  const std::vector<std::pair<Shape, Shape>> cases = {
      {{3, 50, 37}, {3, 50, 37}},
      {{1, 13, 9, 11}, {1, 13, 1, 1}},
      {{1, 13, 1, 1}, {1, 13, 9, 11}},
      {{2, 13, 9, 11}, {2, 13, 1, 1}},
      {{2, 13, 9, 11}, {13, 1, 1}},
      {{5, 1031}, {}},
      {{1}, {4, 6, 7}},
      {{2, 3, 129}, {2, 3, 1}},
  };
  const std::vector<std::pair<std::string, std::function<float(float, float)>>> ops = {
      {"Add", [](float a, float b) { return a + b; }},
      {"Sub", [](float a, float b) { return a - b; }},
      {"Mul", [](float a, float b) { return a * b; }},
      {"Div", [](float a, float b) { return a / b; }},
  };
  int seed = 1;
  for (const auto& [sa, sb] : cases) {
    Tensor a = RandomFloat(sa, seed++);
    Tensor b = RandomFloat(sb, seed++, 0.5f, 2.f);
    for (const auto& [name, fn] : ops) {
      Tensor y = RunOk(name, 14, {a, b});
      for (int64_t i = 0; i < y.numel(); ++i) {
        ASSERT_EQ(y.ptr<float>()[i], fn(a.ptr<float>()[SourceIndex(y.shape, a.shape, i)],
                                        b.ptr<float>()[SourceIndex(y.shape, b.shape, i)]))
            << name << " " << ShapeToString(sa) << " " << ShapeToString(sb) << " at " << i;
      }
    }
  }
}

TEST(BinaryErrors, IncompatibleBroadcastIsShapeMismatch) {
  Status s = RunStatus("Add", 14, {RandomFloat({2, 3}, 1), RandomFloat({4, 3}, 2)});
  EXPECT_EQ(s.code(), ErrorCode::kShapeMismatch);
  EXPECT_NE(s.message().find("[2,3]"), std::string::npos);
  EXPECT_NE(s.message().find("[4,3]"), std::string::npos);
  EXPECT_NE(s.message().find("test_Add"), std::string::npos) << "names the node: " << s.message();
}

TEST(BinaryErrors, DtypesAreChecked) {
  EXPECT_EQ(RunStatus("Add", 14, {MakeBool({1}, {true}), MakeBool({1}, {true})}).code(),
            ErrorCode::kUnsupportedDtype);
  EXPECT_EQ(RunStatus("Add", 14, {MakeFloat({1}, {1}), MakeInt64({1}, {1})}).code(),
            ErrorCode::kMalformedModel);
  EXPECT_EQ(RunStatus("And", 7, {MakeFloat({1}, {1}), MakeFloat({1}, {1})}).code(),
            ErrorCode::kUnsupportedDtype);
  EXPECT_EQ(RunStatus("Add", 14, {MakeFloat({1}, {1})}).code(), ErrorCode::kMalformedModel);
}

TEST(BinaryPow, FloatAndMixedTypes) {
  Tensor y = RunOk("Pow", 15, {MakeFloat({3}, {2, 3, -2}), MakeFloat({3}, {3, 0.5f, 2})});
  EXPECT_FLOAT_EQ(y.ptr<float>()[0], 8.f);
  EXPECT_FLOAT_EQ(y.ptr<float>()[1], std::sqrt(3.f));
  EXPECT_FLOAT_EQ(y.ptr<float>()[2], 4.f);
  // Scalar exponent 2 takes the product path.
  y = RunOk("Pow", 15, {MakeFloat({3}, {1.5f, -3, 0}), MakeFloat({}, {2})});
  EXPECT_EQ(Values<float>(y), (std::vector<float>{2.25f, 9, 0}));
  y = RunOk("Pow", 15, {MakeFloat({2}, {2, 3}), MakeInt64({2}, {3, -1})});
  EXPECT_EQ(y.dtype, DType::kFloat32);
  EXPECT_FLOAT_EQ(y.ptr<float>()[0], 8.f);
  EXPECT_FLOAT_EQ(y.ptr<float>()[1], 1.f / 3.f);
  y = RunOk("Pow", 15, {MakeInt64({4}, {2, -3, 5, 1}), MakeInt64({4}, {10, 3, 0, -2})});
  EXPECT_EQ(Values<int64_t>(y), (std::vector<int64_t>{1024, -27, 1, 1}));
  y = RunOk("Pow", 15, {MakeInt32({2}, {2, 3}), MakeFloat({2}, {3, 0.5f})});
  EXPECT_EQ(y.dtype, DType::kInt32);
  EXPECT_EQ(Values<int32_t>(y), (std::vector<int32_t>{8, 1}));
}

TEST(BinaryPow, Version7IsFloatOnly) {
  EXPECT_EQ(RunStatus("Pow", 7, {MakeFloat({1}, {2}), MakeInt64({1}, {2})}).code(),
            ErrorCode::kUnsupportedDtype);
  EXPECT_EQ(RunStatus("Pow", 12, {MakeFloat({1}, {2}), MakeInt64({1}, {2})}).code(),
            ErrorCode::kOk);
}

TEST(BinaryCompare, OutputsBoolWithBroadcast) {
  Tensor a = MakeFloat({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor b = MakeFloat({3}, {2, 2, 7});
  auto check = [&](const std::string& op, int opset, std::vector<bool> want) {
    Tensor y = RunOk(op, opset, {a, b});
    ASSERT_EQ(y.dtype, DType::kBool) << op;
    ASSERT_EQ(y.shape, (Shape{2, 3})) << op;
    for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(y.ptr<bool>()[i], want[i]) << op << " " << i;
  };
  check("Equal", 13, {false, true, false, false, false, false});
  check("Less", 13, {true, false, true, false, false, true});
  check("Greater", 13, {false, false, false, true, true, false});
  check("LessOrEqual", 16, {true, true, true, false, false, true});
  check("GreaterOrEqual", 16, {false, true, false, true, true, false});
}

TEST(BinaryCompare, VersionSpecificTypes) {
  Tensor f = MakeFloat({1}, {1});
  Tensor i = MakeInt64({1}, {1});
  EXPECT_EQ(RunStatus("Equal", 7, {f, f}).code(), ErrorCode::kUnsupportedDtype);
  EXPECT_EQ(RunStatus("Equal", 11, {f, f}).code(), ErrorCode::kOk);
  EXPECT_EQ(RunStatus("Equal", 7, {i, i}).code(), ErrorCode::kOk);
  EXPECT_EQ(RunStatus("Less", 7, {i, i}).code(), ErrorCode::kUnsupportedDtype);
  EXPECT_EQ(RunStatus("Less", 9, {i, i}).code(), ErrorCode::kOk);
  EXPECT_EQ(RunStatus("Greater", 8, {i, i}).code(), ErrorCode::kUnsupportedDtype);
  Tensor t = MakeBool({2}, {true, false});
  Tensor y = RunOk("Equal", 13, {t, MakeBool({1}, {true})});
  EXPECT_EQ(y.ptr<bool>()[0], true);
  EXPECT_EQ(y.ptr<bool>()[1], false);
}

TEST(BinaryLogic, AndOrXorBroadcast) {
  Tensor a = MakeBool({2, 2}, {true, true, false, false});
  Tensor b = MakeBool({2}, {true, false});
  auto run = [&](const std::string& op) { return Values<bool>(RunOk(op, 7, {a, b})); };
  EXPECT_EQ(run("And"), (std::vector<bool>{true, false, false, false}));
  EXPECT_EQ(run("Or"), (std::vector<bool>{true, true, true, false}));
  EXPECT_EQ(run("Xor"), (std::vector<bool>{false, true, true, false}));
}

TEST(BinaryWhere, ThreeWayBroadcastMatchesNaive) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 100; ++trial) {
    BroadcastCase c = RandomCase(rng);
    // The condition has out's rank with some dims 1.
    Shape cond_shape;
    for (int64_t dim : c.out) cond_shape.push_back(rng() % 2 ? dim : 1);
    Tensor cond;
    ASSERT_TRUE(Tensor::Allocate(DType::kBool, cond_shape, &cond).ok());
    for (int64_t i = 0; i < cond.numel(); ++i) cond.ptr<bool>()[i] = rng() % 2;
    Tensor x = RandomFloat(c.a, trial);
    Tensor y = RandomFloat(c.b, 500 + trial);
    Tensor out = RunOk("Where", 16, {cond, x, y});
    Shape want_shape;
    ASSERT_TRUE(BroadcastShapes({cond_shape, c.a, c.b}, &want_shape).ok());
    ASSERT_EQ(out.shape, want_shape);
    for (int64_t i = 0; i < out.numel(); ++i) {
      const bool pick = cond.ptr<bool>()[SourceIndex(want_shape, cond_shape, i)];
      const float want = pick ? x.ptr<float>()[SourceIndex(want_shape, c.a, i)]
                              : y.ptr<float>()[SourceIndex(want_shape, c.b, i)];
      ASSERT_EQ(out.ptr<float>()[i], want);
    }
  }
}

TEST(BinaryWhere, IntegerValuesAndBadCondition) {
  Tensor y =
      RunOk("Where", 9,
            {MakeBool({3}, {true, false, true}), MakeInt64({}, {1}), MakeInt64({3}, {7, 8, 9})});
  EXPECT_EQ(Values<int64_t>(y), (std::vector<int64_t>{1, 8, 1}));
  EXPECT_EQ(
      RunStatus("Where", 9, {MakeFloat({1}, {1}), MakeFloat({1}, {1}), MakeFloat({1}, {1})}).code(),
      ErrorCode::kUnsupportedDtype);
}

TEST(BinaryVariadic, MaxMinSumMean) {
  Tensor a = MakeFloat({3}, {1, 5, 3});
  Tensor b = MakeFloat({1}, {2});
  Tensor c = MakeFloat({2, 1}, {0, 10});
  Tensor y = RunOk("Max", 13, {a, b, c});
  EXPECT_EQ(y.shape, (Shape{2, 3}));
  EXPECT_EQ(Values<float>(y), (std::vector<float>{2, 5, 3, 10, 10, 10}));
  y = RunOk("Min", 13, {a, b, c});
  EXPECT_EQ(Values<float>(y), (std::vector<float>{0, 0, 0, 1, 2, 2}));
  y = RunOk("Sum", 13, {a, b, c});
  EXPECT_EQ(Values<float>(y), (std::vector<float>{3, 7, 5, 13, 17, 15}));
  y = RunOk("Mean", 13, {a, b, c});
  EXPECT_FLOAT_EQ(y.ptr<float>()[0], 1.f);
  EXPECT_FLOAT_EQ(y.ptr<float>()[4], 17.f / 3.f);
  y = RunOk("Sum", 7, {a, a});  // Sum-6 is current at opset 7
  EXPECT_EQ(Values<float>(y), (std::vector<float>{2, 10, 6}));
  y = RunOk("Max", 8, {a});
  EXPECT_EQ(Values<float>(y), (std::vector<float>{1, 5, 3}));
  y = RunOk("Mean", 8, {a, a});
  EXPECT_EQ(Values<float>(y), (std::vector<float>{1, 5, 3}));
}

TEST(BinaryVariadic, IntegersFromOpset12AndNaN) {
  Tensor y = RunOk("Max", 12, {MakeInt64({2}, {1, 9}), MakeInt64({2}, {4, 2})});
  EXPECT_EQ(Values<int64_t>(y), (std::vector<int64_t>{4, 9}));
  EXPECT_EQ(RunStatus("Max", 8, {MakeInt64({1}, {1}), MakeInt64({1}, {2})}).code(),
            ErrorCode::kUnsupportedDtype);
  y = RunOk("Max", 13, {MakeFloat({2}, {NAN, 1}), MakeFloat({2}, {1, NAN})});
  EXPECT_TRUE(std::isnan(y.ptr<float>()[0]));
  EXPECT_TRUE(std::isnan(y.ptr<float>()[1]));
  EXPECT_EQ(RunStatus("Sum", 13, {MakeFloat({2}, {1, 2}), MakeFloat({3}, {1, 2, 3})}).code(),
            ErrorCode::kShapeMismatch);
}

TEST(BinaryPRelu, SlopeBroadcastsToInput) {
  Tensor x = MakeFloat({1, 2, 2, 1}, {-1, 2, -3, 4});
  Tensor slope = MakeFloat({2, 1, 1}, {0.5f, 0.25f});
  Tensor y = RunOk("PRelu", 16, {x, slope});
  EXPECT_EQ(y.shape, x.shape);
  EXPECT_EQ(Values<float>(y), (std::vector<float>{-0.5f, 2, -0.75f, 4}));
  y = RunOk("PRelu", 9, {MakeInt64({3}, {-4, 0, 4}), MakeInt64({1}, {3})});
  EXPECT_EQ(Values<int64_t>(y), (std::vector<int64_t>{-12, 0, 4}));
  // The slope may not grow the input.
  EXPECT_EQ(
      RunStatus("PRelu", 16, {MakeFloat({2}, {1, 2}), MakeFloat({2, 2}, {1, 1, 1, 1})}).code(),
      ErrorCode::kShapeMismatch);
  EXPECT_EQ(RunStatus("PRelu", 7, {MakeInt64({1}, {1}), MakeInt64({1}, {1})}).code(),
            ErrorCode::kUnsupportedDtype);
}

// float64 through the shared loop: double precision (values no float holds), every broadcast.
TEST(BinaryFloat64, RandomBroadcastsMatchNaiveLoopsInDouble) {
  std::mt19937 rng(64);
  std::uniform_real_distribution<double> value(-3.0, 3.0);
  const std::vector<std::pair<std::string, std::function<double(double, double)>>> ops = {
      {"Add", std::plus<double>()},
      {"Sub", std::minus<double>()},
      {"Mul", std::multiplies<double>()},
      {"Div", std::divides<double>()},
      {"Pow", [](double a, double b) { return std::pow(a, b); }}};
  for (int trial = 0; trial < 40; ++trial) {
    const BroadcastCase c = RandomCase(rng);
    int64_t na = 0, nb = 0;
    ASSERT_TRUE(ShapeNumel(c.a, &na) && ShapeNumel(c.b, &nb));
    std::vector<double> a(na), b(nb);
    for (double& v : a) v = value(rng) + 1e-12;
    for (double& v : b) v = value(rng) + 1e-12;
    for (const auto& [op, fn] : ops) {
      const Tensor y = RunOk(op, 15, {MakeDouble(c.a, a), MakeDouble(c.b, b)});
      ASSERT_EQ(y.dtype, DType::kFloat64);
      ASSERT_EQ(y.shape, c.out);
      for (int64_t i = 0; i < y.numel(); ++i) {
        const double want = fn(a[SourceIndex(c.out, c.a, i)], b[SourceIndex(c.out, c.b, i)]);
        if (std::isnan(want)) {
          ASSERT_TRUE(std::isnan(y.ptr<double>()[i])) << op;
        } else {
          ASSERT_EQ(y.ptr<double>()[i], want) << op << " element " << i;
        }
      }
    }
  }
}

TEST(BinaryFloat64, ComparisonsVariadicModAndPRelu) {
  const double third = 1.0 / 3.0;
  const Tensor a = MakeDouble({3}, {third, -2.5, 1e300});
  const double rounded = static_cast<float>(third);  // a hair above a[0]: float cannot tell them
  const Tensor b = MakeDouble({1}, {rounded});
  const Tensor less = RunOk("Less", 13, {a, b});
  EXPECT_EQ(Values<bool>(less), (std::vector<bool>{true, true, false}));
  EXPECT_EQ(Values<bool>(RunOk("Equal", 13, {a, a})), (std::vector<bool>{true, true, true}));
  EXPECT_EQ(Values<double>(RunOk("Max", 13, {a, b})),
            (std::vector<double>{rounded, rounded, 1e300}));
  EXPECT_EQ(Values<double>(RunOk("Sum", 13, {a, a, a})),
            (std::vector<double>{third + third + third, -7.5, 3e300}));
  EXPECT_EQ(Values<double>(RunOk("Mean", 13, {a, MakeDouble({1}, {1.0})})),
            (std::vector<double>{(third + 1) / 2, -0.75, (1e300 + 1) / 2}));
  std::vector<Tensor> out;
  const std::map<std::string, Attribute> fmod = {{"fmod", IntAttr(1)}};
  ASSERT_TRUE(
      RunStatus("Mod", 13, {MakeDouble({2}, {-7.5, 7.5}), MakeDouble({1}, {2.0})}, &out, fmod)
          .ok());
  EXPECT_EQ(Values<double>(out[0]), (std::vector<double>{-1.5, 1.5}));
  EXPECT_EQ(RunStatus("Mod", 13, {a, a}).code(), ErrorCode::kMalformedModel);  // fmod=0
  EXPECT_EQ(Values<double>(RunOk("PRelu", 16, {a, MakeDouble({1}, {third})})),
            (std::vector<double>{third, -2.5 * third, 1e300}));
  // Mixed float64 and another dtype in Pow is refused, not computed in the wrong type.
  const Status mixed = RunStatus("Pow", 15, {a, MakeFloat({1}, {2})});
  EXPECT_EQ(mixed.code(), ErrorCode::kUnsupportedDtype);
  EXPECT_NE(mixed.message().find("float64"), std::string::npos) << mixed.message();
}

TEST(BinaryKernels, ReplanWithNewShapes) {
  // A kernel object is planned once per shape signature; state must not leak between plans.
  const OpRegistry& registry = OpRegistry::Default();
  std::unique_ptr<Kernel> kernel = registry.Create("", "Add");
  ASSERT_NE(kernel, nullptr);
  for (const auto& shapes : std::vector<std::pair<Shape, Shape>>{{{2, 3}, {3}}, {{4}, {}}}) {
    Node node;
    node.name = "add";
    node.op_type = "Add";
    node.inputs = {"a", "b"};
    node.outputs = {"c"};
    Tensor a = RandomFloat(shapes.first, 1), b = RandomFloat(shapes.second, 2);
    PlannedValue pa{DType::kFloat32, a.shape, nullptr}, pb{DType::kFloat32, b.shape, nullptr};
    PlanContext ctx(node, 14, {&pa, &pb});
    ASSERT_TRUE(kernel->Plan(ctx).ok());
    Tensor c;
    ASSERT_TRUE(Tensor::Allocate(ctx.outputs()[0].dtype, ctx.outputs()[0].shape, &c).ok());
    RunContext run({&a, &b}, {&c});
    ASSERT_TRUE(kernel->Run(run).ok());
    for (int64_t i = 0; i < c.numel(); ++i) {
      ASSERT_EQ(c.ptr<float>()[i], a.ptr<float>()[SourceIndex(c.shape, a.shape, i)] +
                                       b.ptr<float>()[SourceIndex(c.shape, b.shape, i)]);
    }
  }
}

}  // namespace
}  // namespace webnx::testing
