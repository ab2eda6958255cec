// Softmax and LogSoftmax: per-axis (version 13) and coerced-2-D (versions 1, 11) semantics.
#include <gtest/gtest.h>

#include <cmath>

#include "tests/unit/op_runner.h"

namespace webnx {
namespace {

using testing::ExpectAllNear;
using testing::IntAttr;
using testing::MakeFloat;
using testing::RandomFloat;
using testing::RunOk;
using testing::RunOp;

// Normalises x viewed as outer x length x inner, along length, in double.
Tensor NaiveSoftmax(const Tensor& x, int64_t outer, int64_t length, int64_t inner, bool log) {
  Tensor y;
  EXPECT_TRUE(x.Clone(&y).ok());
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      auto at = [&](int64_t l) { return (o * length + l) * inner + i; };
      double mx = -INFINITY, sum = 0;
      for (int64_t l = 0; l < length; ++l) mx = std::max(mx, double(x.ptr<float>()[at(l)]));
      for (int64_t l = 0; l < length; ++l) sum += std::exp(x.ptr<float>()[at(l)] - mx);
      for (int64_t l = 0; l < length; ++l) {
        const double v = x.ptr<float>()[at(l)] - mx;
        y.ptr<float>()[at(l)] = float(log ? v - std::log(sum) : std::exp(v) / sum);
      }
    }
  }
  return y;
}

TEST(Softmax, HandChecked) {
  Tensor x = MakeFloat({1, 3}, {-1, 0, 1});
  const double e = std::exp(1.0), z = 1 / e + 1 + e;
  ExpectAllNear(RunOk("Softmax", 13, {x}),
                MakeFloat({1, 3}, {float(1 / e / z), float(1 / z), float(e / z)}));
  ExpectAllNear(
      RunOk("LogSoftmax", 13, {x}),
      MakeFloat({1, 3}, {float(-1 - std::log(z)), float(-std::log(z)), float(1 - std::log(z))}));
}

TEST(Softmax, LargeValuesDoNotOverflow) {
  Tensor x = MakeFloat({1, 4}, {10000, 10001, 10002, 10003});
  Tensor y = RunOk("Softmax", 13, {x});
  Tensor want = NaiveSoftmax(MakeFloat({1, 4}, {0, 1, 2, 3}), 1, 4, 1, false);
  ExpectAllNear(y, want);
  // The log form must not lose the small log-sum next to the large max.
  ExpectAllNear(RunOk("LogSoftmax", 13, {x}),
                NaiveSoftmax(MakeFloat({1, 4}, {0, 1, 2, 3}), 1, 4, 1, true));
  Tensor columns = MakeFloat({4, 2}, {10000, -10000, 10001, -10001, 10002, -10002, 10003, -10003});
  ExpectAllNear(RunOk("LogSoftmax", 13, {columns}, {{"axis", IntAttr(0)}}),
                NaiveSoftmax(MakeFloat({4, 2}, {0, 0, 1, -1, 2, -2, 3, -3}), 1, 4, 2, true));
}

TEST(Softmax, PerAxisFromVersion13) {
  const Shape shape = {3, 4, 5};
  Tensor x = RandomFloat(shape, 1, -4, 4);
  for (bool log : {false, true}) {
    for (int64_t axis = -3; axis < 3; ++axis) {
      SCOPED_TRACE(std::string(log ? "LogSoftmax" : "Softmax") + " axis " + std::to_string(axis));
      const int64_t a = axis < 0 ? axis + 3 : axis;
      int64_t outer = 1, inner = 1;
      for (int64_t i = 0; i < a; ++i) outer *= shape[i];
      for (int64_t i = a + 1; i < 3; ++i) inner *= shape[i];
      Tensor y = RunOk(log ? "LogSoftmax" : "Softmax", 13, {x}, {{"axis", IntAttr(axis)}});
      ExpectAllNear(y, NaiveSoftmax(x, outer, shape[a], inner, log));
    }
    // Default axis -1.
    ExpectAllNear(RunOk(log ? "LogSoftmax" : "Softmax", 13, {x}), NaiveSoftmax(x, 12, 5, 1, log));
  }
}

TEST(Softmax, Coerced2DBeforeVersion13) {
  const Shape shape = {3, 4, 5};
  Tensor x = RandomFloat(shape, 2, -4, 4);
  for (int opset : {1, 11}) {
    for (bool log : {false, true}) {
      const char* op = log ? "LogSoftmax" : "Softmax";
      for (int64_t axis = 0; axis < 3; ++axis) {
        SCOPED_TRACE(std::string(op) + " opset " + std::to_string(opset) + " axis " +
                     std::to_string(axis));
        int64_t outer = 1;
        for (int64_t i = 0; i < axis; ++i) outer *= shape[i];
        Tensor y = RunOk(op, opset, {x}, {{"axis", IntAttr(axis)}});
        ExpectAllNear(y, NaiveSoftmax(x, outer, 60 / outer, 1, log));
      }
      // Default axis 1: normalised over the last two dims together.
      ExpectAllNear(RunOk(op, opset, {x}), NaiveSoftmax(x, 3, 20, 1, log));
    }
  }
  // Negative axis (version 11).
  ExpectAllNear(RunOk("Softmax", 11, {x}, {{"axis", IntAttr(-2)}}),
                NaiveSoftmax(x, 3, 20, 1, false));
}

TEST(Softmax, HugeEmptyInputPlansWithoutAllocating) {
  Tensor x = MakeFloat({0, int64_t{1} << 40}, {});
  EXPECT_EQ(RunOk("Softmax", 13, {x}, {{"axis", IntAttr(0)}}).shape, x.shape);
  EXPECT_EQ(RunOk("LogSoftmax", 11, {x}).shape, x.shape);
}

TEST(Softmax, Errors) {
  std::vector<Tensor> out;
  Tensor x = RandomFloat({2, 3}, 1);
  EXPECT_EQ(RunOp("Softmax", 13, {{x}}, {{"axis", IntAttr(2)}}, 1, &out).code(),
            ErrorCode::kMalformedModel);
  EXPECT_EQ(RunOp("LogSoftmax", 11, {{x}}, {{"axis", IntAttr(-3)}}, 1, &out).code(),
            ErrorCode::kMalformedModel);
  EXPECT_EQ(RunOp("Softmax", 13, {{MakeFloat({}, {1})}}, {}, 1, &out).code(),
            ErrorCode::kMalformedModel);
  EXPECT_EQ(RunOp("Softmax", 13, {{testing::MakeInt64({2}, {1, 2})}}, {}, 1, &out).code(),
            ErrorCode::kUnsupportedDtype);
}

}  // namespace
}  // namespace webnx
