// Reduce*: every op against a naive reduction over random axes, axes as attribute (before 13/18)
// and as input (after), keepdims, noop_with_empty_axes, empty sets, integer/bool types, errors.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>

#include "tests/unit/op_runner.h"

namespace webnx {
namespace {

using testing::ExpectAllNear;
using testing::IntAttr;
using testing::IntsAttr;
using testing::MakeFloat;
using testing::MakeInt64;
using testing::OpInput;
using testing::RandomFloat;
using testing::RunOp;

struct OpSpec {
  const char* name;
  int axes_input_version;  // first version taking axes as an input
  double init;
  std::function<double(double, double)> combine;  // (acc, x)
  std::function<double(double, int64_t)> finish;  // (acc, count)
};

const std::vector<OpSpec>& Ops() {
  const double inf = std::numeric_limits<double>::infinity();
  auto same = [](double a, int64_t) { return a; };
  static const std::vector<OpSpec> ops = {
      {"ReduceSum", 13, 0, [](double a, double x) { return a + x; }, same},
      {"ReduceMean", 18, 0, [](double a, double x) { return a + x; },
       [](double a, int64_t n) { return a / n; }},
      {"ReduceMax", 18, -inf, [](double a, double x) { return std::max(a, x); }, same},
      {"ReduceMin", 18, inf, [](double a, double x) { return std::min(a, x); }, same},
      {"ReduceProd", 18, 1, [](double a, double x) { return a * x; }, same},
      {"ReduceL1", 18, 0, [](double a, double x) { return a + std::fabs(x); }, same},
      {"ReduceL2", 18, 0, [](double a, double x) { return a + x * x; },
       [](double a, int64_t) { return std::sqrt(a); }},
      {"ReduceSumSquare", 18, 0, [](double a, double x) { return a + x * x; }, same},
      {"ReduceLogSum", 18, 0, [](double a, double x) { return a + x; },
       [](double a, int64_t) { return std::log(a); }},
      {"ReduceLogSumExp", 18, 0, [](double a, double x) { return a + std::exp(x); },
       [](double a, int64_t) { return std::log(a); }},
  };
  return ops;
}

// Reduces over `axes` (empty = all) by visiting every input element.
Tensor NaiveReduce(const Tensor& x, const OpSpec& op, std::vector<int64_t> axes, bool keepdims) {
  const size_t rank = x.shape.size();
  std::vector<bool> reduced(rank, axes.empty());
  for (int64_t a : axes) reduced[a < 0 ? a + rank : a] = true;
  Shape out, kept;
  int64_t count = 1;
  for (size_t i = 0; i < rank; ++i) {
    if (reduced[i]) {
      count *= x.shape[i];
      if (keepdims) out.push_back(1);
    } else {
      out.push_back(x.shape[i]);
      kept.push_back(x.shape[i]);
    }
  }
  int64_t out_numel = 1;
  for (int64_t d : out) out_numel *= d;
  std::vector<double> acc(out_numel, op.init);
  for (int64_t i = 0; i < x.numel(); ++i) {
    int64_t rem = i, o = 0, mul = 1;
    for (size_t d = rank; d-- > 0;) {
      const int64_t idx = rem % x.shape[d];
      rem /= x.shape[d];
      if (!reduced[d]) o += idx * mul, mul *= x.shape[d];
    }
    acc[o] = op.combine(acc[o], x.ptr<float>()[i]);
  }
  Tensor y = MakeFloat(out, std::vector<float>(out_numel, 0.f));
  for (int64_t o = 0; o < out_numel; ++o) y.ptr<float>()[o] = float(op.finish(acc[o], count));
  return y;
}

Status Reduce(const std::string& op, int opset, const Tensor& x, const std::vector<int64_t>* axes,
              bool axes_as_input, bool keepdims, std::vector<Tensor>* out,
              std::map<std::string, Attribute> attrs = {}) {
  std::vector<OpInput> in = {{x}};
  attrs["keepdims"] = IntAttr(keepdims);
  if (axes && axes_as_input) {
    in.push_back({MakeInt64({int64_t(axes->size())}, *axes), true});
  } else if (axes) {
    attrs["axes"] = IntsAttr(*axes);
  }
  return RunOp(op, opset, in, attrs, 1, out);
}

TEST(Reduce, AllOpsMatchNaive) {
  const std::vector<std::vector<int64_t>> axes_sets = {{},     {0},    {1},    {2},       {-1},
                                                       {0, 2}, {2, 0}, {1, 2}, {0, 1, 2}, {-3, -2}};
  Tensor x = RandomFloat({3, 4, 5}, 42, 0.2f, 1.5f);  // positive: LogSum/L2 stay defined
  for (const OpSpec& op : Ops()) {
    for (const auto& axes : axes_sets) {
      for (bool keepdims : {false, true}) {
        for (bool as_input : {false, true}) {
          const int opset = as_input ? op.axes_input_version : 11;
          SCOPED_TRACE(std::string(op.name) + " axes " + ShapeToString(axes) + " keepdims " +
                       std::to_string(keepdims) + " opset " + std::to_string(opset));
          std::vector<Tensor> out;
          Status s =
              Reduce(op.name, opset, x, axes.empty() ? nullptr : &axes, as_input, keepdims, &out);
          ASSERT_TRUE(s.ok()) << s.ToString();
          ExpectAllNear(out[0], NaiveReduce(x, op, axes, keepdims));
        }
      }
    }
  }
}

// float64 reduces in double from end to end: the naive double reduction within 1e-12 relative
// (float32 input would be off by ~1e-7), NaN propagating through Max.
TEST(Reduce, Float64AllOpsMatchNaiveInDouble) {
  const Tensor f = RandomFloat({3, 4, 5}, 42, 0.2f, 1.5f);
  Tensor x;
  ASSERT_TRUE(Tensor::Allocate(DType::kFloat64, f.shape, &x).ok());
  for (int64_t i = 0; i < x.numel(); ++i) x.ptr<double>()[i] = f.ptr<float>()[i] + 1e-9 * i;
  for (const OpSpec& op : Ops()) {
    for (const auto& axes : std::vector<std::vector<int64_t>>{{}, {1}, {0, 2}, {-1}}) {
      SCOPED_TRACE(std::string(op.name) + " axes " + ShapeToString(axes));
      std::vector<Tensor> out;
      Status s = Reduce(op.name, 11, x, axes.empty() ? nullptr : &axes, false, true, &out);
      ASSERT_TRUE(s.ok()) << s.ToString();
      ASSERT_EQ(out[0].dtype, DType::kFloat64);
      // The naive reduction, in double over the same elements.
      std::vector<bool> reduced(3, axes.empty());
      for (int64_t a : axes) reduced[a < 0 ? a + 3 : a] = true;
      for (int64_t o = 0; o < out[0].numel(); ++o) {
        double acc = op.init;
        int64_t count = 0;
        for (int64_t i = 0; i < x.numel(); ++i) {
          const int64_t idx[3] = {i / 20, (i / 5) % 4, i % 5};
          int64_t at = 0;
          for (int d = 0; d < 3; ++d) at = at * out[0].shape[d] + (reduced[d] ? 0 : idx[d]);
          if (at != o) continue;
          acc = op.combine(acc, x.ptr<double>()[i]);
          ++count;
        }
        const double want = op.finish(acc, count);
        EXPECT_NEAR(out[0].ptr<double>()[o], want, 1e-12 * std::fabs(want)) << o;
      }
    }
  }
  x.ptr<double>()[7] = std::numeric_limits<double>::quiet_NaN();
  std::vector<Tensor> out;
  ASSERT_TRUE(Reduce("ReduceMax", 11, x, nullptr, false, false, &out).ok());
  EXPECT_TRUE(std::isnan(out[0].ptr<double>()[0]));
}

TEST(Reduce, LargerShapesWithUnitDims) {
  Tensor x = RandomFloat({2, 1, 33, 1, 17, 3}, 5);
  const OpSpec& sum = Ops()[0];
  for (const auto& axes : std::vector<std::vector<int64_t>>{{1, 2}, {4}, {0, 5}, {2, 4}, {3}}) {
    SCOPED_TRACE(ShapeToString(axes));
    std::vector<Tensor> out;
    ASSERT_TRUE(Reduce("ReduceSum", 13, x, &axes, true, false, &out).ok());
    ExpectAllNear(out[0], NaiveReduce(x, sum, axes, false), 1e-4f);
  }
}

// Sums, means and log-sums whose outputs each take one contiguous row (the trailing axes
// reduced, a global mean over each channel's plane) run the rows in vectors, with odd lengths
// leaving a scalar tail.
TEST(Reduce, RowSumsMatchNaive) {
  Tensor x = RandomFloat({1, 37, 7, 7}, 9, 0.2f, 1.5f);
  Tensor rows = RandomFloat({3, 5, 53}, 11, 0.2f, 1.5f);
  const OpSpec* ops[] = {&Ops()[0], &Ops()[1], &Ops()[8]};
  for (const OpSpec* op : ops) {
    for (bool keepdims : {false, true}) {
      SCOPED_TRACE(std::string(op->name) + " keepdims " + std::to_string(keepdims));
      std::vector<Tensor> out;
      const std::vector<int64_t> planes = {2, 3}, last = {-1}, all = {};
      ASSERT_TRUE(Reduce(op->name, 11, x, &planes, false, keepdims, &out).ok());
      ExpectAllNear(out[0], NaiveReduce(x, *op, planes, keepdims), 1e-5f);
      ASSERT_TRUE(Reduce(op->name, 11, rows, &last, false, keepdims, &out).ok());
      ExpectAllNear(out[0], NaiveReduce(rows, *op, last, keepdims), 1e-5f);
      ASSERT_TRUE(Reduce(op->name, 11, rows, nullptr, false, keepdims, &out).ok());
      ExpectAllNear(out[0], NaiveReduce(rows, *op, all, keepdims), 1e-5f);
    }
  }
}

TEST(Reduce, LogSumExpIsStableForLargeValues) {
  Tensor x = MakeFloat({2, 2}, {1000, 1001, -1000, -1001});
  std::vector<Tensor> out;
  const std::vector<int64_t> axes = {1};
  ASSERT_TRUE(Reduce("ReduceLogSumExp", 18, x, &axes, true, false, &out).ok());
  const double tail = std::log1p(std::exp(-1.0));
  ExpectAllNear(out[0], MakeFloat({2}, {float(1001 + tail), float(-1000 + tail)}));
}

TEST(Reduce, NoopWithEmptyAxes) {
  Tensor x = RandomFloat({2, 3}, 1);
  std::vector<Tensor> out;
  const std::vector<int64_t> none;
  ASSERT_TRUE(
      Reduce("ReduceSum", 13, x, &none, true, true, &out, {{"noop_with_empty_axes", IntAttr(1)}})
          .ok());
  ExpectAllNear(out[0], x);
  // Without the flag, empty axes reduce everything.
  ASSERT_TRUE(Reduce("ReduceMax", 18, x, &none, true, false, &out).ok());
  ExpectAllNear(out[0], NaiveReduce(x, Ops()[2], {}, false));
}

// Reducing nothing still performs each op's other operations, as the spec says and onnxruntime
// computes (fuzz-diff seed 23000972: ReduceSumSquare gave x, not x^2).
TEST(Reduce, NoopWithEmptyAxesKeepsEachOpsElementFunction) {
  const std::vector<float> values = {-0.5f, 2.f, 0.25f, -3.f, 1.f, 0.f};
  const Tensor x = MakeFloat({2, 3}, values);
  const std::vector<int64_t> none;
  const struct {
    const char* op;
    float (*f)(float);
  } cases[] = {
      {"ReduceSum", [](float v) { return v; }},
      {"ReduceMean", [](float v) { return v; }},
      {"ReduceMax", [](float v) { return v; }},
      {"ReduceProd", [](float v) { return v; }},
      {"ReduceSumSquare", [](float v) { return v * v; }},
      {"ReduceL1", [](float v) { return std::fabs(v); }},
      {"ReduceL2", [](float v) { return std::sqrt(v * v); }},
      {"ReduceLogSum", [](float v) { return std::log(v); }},
      {"ReduceLogSumExp", [](float v) { return v; }},
  };
  for (const auto& c : cases) {
    std::vector<Tensor> out;
    ASSERT_TRUE(
        Reduce(c.op, 18, x, &none, true, false, &out, {{"noop_with_empty_axes", IntAttr(1)}}).ok())
        << c.op;
    ASSERT_EQ(out[0].shape, x.shape) << c.op;
    for (size_t i = 0; i < values.size(); ++i) {
      const float want = c.f(values[i]), got = out[0].ptr<float>()[i];
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(got)) << c.op << " " << values[i];
      } else {
        EXPECT_FLOAT_EQ(got, want) << c.op << " " << values[i];
      }
    }
  }
}

TEST(Reduce, EmptySet) {
  Tensor x = MakeFloat({2, 0, 4}, {});
  const std::vector<int64_t> axes = {1};
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<std::pair<std::string, float>> expect = {
      {"ReduceSum", 0.f},     {"ReduceProd", 1.f},       {"ReduceMax", -inf},
      {"ReduceMin", inf},     {"ReduceL1", 0.f},         {"ReduceL2", 0.f},
      {"ReduceLogSum", -inf}, {"ReduceLogSumExp", -inf}, {"ReduceSumSquare", 0.f}};
  for (const auto& [op, value] : expect) {
    SCOPED_TRACE(op);
    std::vector<Tensor> out;
    ASSERT_TRUE(Reduce(op, 20, x, &axes, true, true, &out).ok());
    ExpectAllNear(out[0], MakeFloat({2, 1, 4}, std::vector<float>(8, value)));
  }
  // A zero-sized kept axis gives an empty output.
  std::vector<Tensor> out;
  const std::vector<int64_t> last = {2};
  ASSERT_TRUE(Reduce("ReduceSum", 13, x, &last, true, true, &out).ok());
  EXPECT_EQ(out[0].shape, (Shape{2, 0, 1}));
}

TEST(Reduce, HugeOutputIsOutOfMemoryNotACrash) {
  // Reducing the empty axis leaves 2^40 outputs: too large, reported as a Status.
  Tensor x = MakeFloat({0, int64_t{1} << 40}, {});
  std::vector<Tensor> out;
  const std::vector<int64_t> axes = {0};
  EXPECT_EQ(Reduce("ReduceSum", 11, x, &axes, false, true, &out).code(), ErrorCode::kOutOfMemory);
}

TEST(Reduce, Integers) {
  Tensor x = MakeInt64({2, 3}, {5, -2, 7, 1, 9, -4});
  const std::vector<int64_t> axes = {1};
  const std::vector<std::pair<std::string, std::vector<int64_t>>> expect = {
      {"ReduceSum", {10, 6}},
      {"ReduceMax", {7, 9}},
      {"ReduceMin", {-2, -4}},
      {"ReduceProd", {-70, -36}}};
  for (const auto& [op, want] : expect) {
    SCOPED_TRACE(op);
    std::vector<Tensor> out;
    ASSERT_TRUE(Reduce(op, 11, x, &axes, false, false, &out).ok());
    ASSERT_EQ(out[0].dtype, DType::kInt64);
    ASSERT_EQ(out[0].shape, (Shape{2}));
    EXPECT_EQ(out[0].ptr<int64_t>()[0], want[0]);
    EXPECT_EQ(out[0].ptr<int64_t>()[1], want[1]);
  }
}

TEST(Reduce, BoolMaxMinFromVersion20) {
  Tensor x;
  ASSERT_TRUE(Tensor::Allocate(DType::kBool, {3, 2}, &x).ok());
  const bool values[] = {true, true, true, false, false, false};
  std::copy(values, values + 6, x.ptr<bool>());
  const std::vector<int64_t> axes = {1};
  std::vector<Tensor> out;
  ASSERT_TRUE(Reduce("ReduceMax", 20, x, &axes, true, false, &out).ok());
  EXPECT_EQ(out[0].dtype, DType::kBool);
  EXPECT_EQ(std::vector<bool>(out[0].ptr<bool>(), out[0].ptr<bool>() + 3),
            (std::vector<bool>{true, true, false}));
  ASSERT_TRUE(Reduce("ReduceMin", 20, x, &axes, true, false, &out).ok());
  EXPECT_EQ(std::vector<bool>(out[0].ptr<bool>(), out[0].ptr<bool>() + 3),
            (std::vector<bool>{true, false, false}));
  EXPECT_EQ(Reduce("ReduceMax", 18, x, &axes, true, false, &out).code(),
            ErrorCode::kUnsupportedDtype);
}

TEST(Reduce, Errors) {
  Tensor x = RandomFloat({2, 3}, 1);
  std::vector<Tensor> out;
  const std::vector<int64_t> dup = {1, -1}, bad = {2}, one = {1};
  EXPECT_EQ(Reduce("ReduceMean", 11, x, &dup, false, true, &out).code(),
            ErrorCode::kMalformedModel);
  EXPECT_EQ(Reduce("ReduceMean", 18, x, &bad, true, true, &out).code(), ErrorCode::kMalformedModel);
  // Axes as an attribute where the version takes an input, and vice versa.
  EXPECT_EQ(Reduce("ReduceSum", 13, x, &one, false, true, &out).code(), ErrorCode::kMalformedModel);
  EXPECT_EQ(Reduce("ReduceMean", 13, x, &one, true, true, &out).code(), ErrorCode::kMalformedModel);
  // Axes only known at run time.
  EXPECT_EQ(RunOp("ReduceSum", 13, {{x}, {MakeInt64({1}, {1}), false}}, {}, 1, &out).code(),
            ErrorCode::kUnsupportedOperator);
  // Axes of the wrong type or rank.
  EXPECT_EQ(RunOp("ReduceSum", 13, {{x}, {MakeFloat({1}, {1}), true}}, {}, 1, &out).code(),
            ErrorCode::kUnsupportedDtype);
  EXPECT_EQ(RunOp("ReduceSum", 13, {{x}, {MakeInt64({1, 1}, {1}), true}}, {}, 1, &out).code(),
            ErrorCode::kShapeMismatch);
  // Integer inputs where only float is implemented.
  EXPECT_EQ(Reduce("ReduceMean", 11, MakeInt64({2}, {1, 2}), &one, false, true, &out).code(),
            ErrorCode::kUnsupportedDtype);
}

}  // namespace
}  // namespace webnx
