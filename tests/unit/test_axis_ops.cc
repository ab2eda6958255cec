// ArgMax/ArgMin and Hardmax (kernels/arg_extreme.cc), CumSum (kernels/cumsum.cc), Trilu and EyeLike
// (kernels/triangular.cc): hand-checked values, and odd shapes against naive loops. Exact
// comparisons: these ops pick, copy or add in a fixed order.
#include <gtest/gtest.h>

#include <vector>

#include "tests/unit/op_runner.h"

namespace webnx::testing {
namespace {

std::vector<int64_t> Ints(const Tensor& t) {
  return std::vector<int64_t>(t.ptr<int64_t>(), t.ptr<int64_t>() + t.numel());
}
std::vector<float> Floats(const Tensor& t) {
  return std::vector<float>(t.ptr<float>(), t.ptr<float>() + t.numel());
}

TEST(ArgExtreme, HandChecked) {
  const Tensor x = MakeFloat({2, 3}, {1, 5, 5, 7, 2, 7});
  EXPECT_EQ(Ints(RunOk("ArgMax", 13, {x}, {{"axis", IntAttr(1)}})), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(
      Ints(RunOk("ArgMax", 13, {x}, {{"axis", IntAttr(1)}, {"select_last_index", IntAttr(1)}})),
      (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(Ints(RunOk("ArgMin", 13, {x}, {{"axis", IntAttr(-1)}})), (std::vector<int64_t>{0, 1}));
  const Tensor by_column = RunOk("ArgMax", 13, {x}, {{"keepdims", IntAttr(0)}});
  EXPECT_EQ(by_column.shape, (Shape{3}));
  EXPECT_EQ(Ints(by_column), (std::vector<int64_t>{1, 0, 1}));
  EXPECT_EQ(RunOk("ArgMin", 11, {x}, {{"axis", IntAttr(1)}}).shape, (Shape{2, 1}));
  // Before version 12 there is no select_last_index: the first index stands.
  EXPECT_EQ(
      Ints(RunOk("ArgMax", 11, {x}, {{"axis", IntAttr(1)}, {"select_last_index", IntAttr(1)}})),
      (std::vector<int64_t>{1, 0}));
}

TEST(ArgExtreme, OddShapesAgainstANaiveLoop) {
  const Shape shape = {3, 7, 5};
  // Few distinct values, so ties are common.
  std::vector<float> values = RandomFloats(3 * 7 * 5, 4, 0.f, 4.f);
  for (float& v : values) v = static_cast<float>(static_cast<int>(v));
  const Tensor x = MakeFloat(shape, values);
  for (int64_t axis = 0; axis < 3; ++axis) {
    for (int last = 0; last < 2; ++last) {
      const Tensor got =
          RunOk("ArgMin", 13, {x}, {{"axis", IntAttr(axis)}, {"select_last_index", IntAttr(last)}});
      const int64_t outer = axis == 0 ? 1 : axis == 1 ? 3 : 21;
      const int64_t extent = shape[axis];
      const int64_t inner = 105 / outer / extent;
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < inner; ++i) {
          int64_t want = 0;
          for (int64_t k = 1; k < extent; ++k) {
            const float v = values[(o * extent + k) * inner + i];
            const float b = values[(o * extent + want) * inner + i];
            if (v < b || (last && v == b)) want = k;
          }
          ASSERT_EQ(got.ptr<int64_t>()[o * inner + i], want) << "axis " << axis << " last " << last;
        }
      }
    }
  }
}

TEST(ArgExtreme, AnEmptyAxisIsAnError) {
  std::vector<Tensor> out;
  const Status s = RunOp("ArgMax", 13, {{MakeFloat({2, 0}, {})}}, {{"axis", IntAttr(1)}}, 1, &out);
  EXPECT_EQ(s.code(), ErrorCode::kShapeMismatch) << s.ToString();
}

TEST(Hardmax, OneAtTheFirstLargestAlongTheAxisOrTheFlattenedTail) {
  const Tensor x = MakeFloat({2, 2, 2}, {1, 3, 3, 0, 5, 2, 9, 9});
  // Version 13: along the last axis.
  EXPECT_EQ(Floats(RunOk("Hardmax", 13, {x})), (std::vector<float>{0, 1, 1, 0, 1, 0, 1, 0}));
  EXPECT_EQ(Floats(RunOk("Hardmax", 13, {x}, {{"axis", IntAttr(1)}})),
            (std::vector<float>{0, 1, 1, 0, 0, 0, 1, 1}));
  // Version 11, axis 1: rows [1, 3, 3, 0] and [5, 2, 9, 9] as a whole.
  EXPECT_EQ(Floats(RunOk("Hardmax", 11, {x})), (std::vector<float>{0, 1, 0, 0, 0, 0, 1, 0}));
  EXPECT_EQ(Floats(RunOk("Hardmax", 11, {x}, {{"axis", IntAttr(0)}})),
            (std::vector<float>{0, 0, 0, 0, 0, 0, 1, 0}));
}

Tensor CumSum(const Tensor& x, int64_t axis, int exclusive, int reverse) {
  std::vector<Tensor> out;
  const Status s =
      RunOp("CumSum", 14, {{x}, {MakeInt64({}, {axis}), true}},
            {{"exclusive", IntAttr(exclusive)}, {"reverse", IntAttr(reverse)}}, 1, &out);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return s.ok() ? out[0] : Tensor();
}

TEST(CumSum, HandChecked) {
  const Tensor x = MakeFloat({4}, {1, 2, 3, 4});
  EXPECT_EQ(Floats(CumSum(x, 0, 0, 0)), (std::vector<float>{1, 3, 6, 10}));
  EXPECT_EQ(Floats(CumSum(x, 0, 1, 0)), (std::vector<float>{0, 1, 3, 6}));
  EXPECT_EQ(Floats(CumSum(x, 0, 0, 1)), (std::vector<float>{10, 9, 7, 4}));
  EXPECT_EQ(Floats(CumSum(x, -1, 1, 1)), (std::vector<float>{9, 7, 4, 0}));
  const Tensor m = MakeInt64({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(Ints(CumSum(m, 0, 0, 0)), (std::vector<int64_t>{1, 2, 3, 5, 7, 9}));
  EXPECT_EQ(Ints(CumSum(m, 1, 0, 0)), (std::vector<int64_t>{1, 3, 6, 4, 9, 15}));
}

// float64 sums in double: 0.1 added ten times is not what float32 gives.
TEST(CumSum, Float64SumsInDouble) {
  Tensor x;
  ASSERT_TRUE(Tensor::Allocate(DType::kFloat64, {2, 10}, &x).ok());
  for (int64_t i = 0; i < 20; ++i) x.ptr<double>()[i] = i < 10 ? 0.1 : 1e-17;
  const Tensor y = CumSum(x, 1, 0, 0);
  ASSERT_EQ(y.dtype, DType::kFloat64);
  double want = 0.0;
  for (int64_t i = 0; i < 10; ++i) {
    want += 0.1;
    EXPECT_EQ(y.ptr<double>()[i], want) << i;
  }
  EXPECT_NEAR(y.ptr<double>()[19], 1e-16, 1e-30);
}

TEST(CumSum, OddShapesAgainstANaiveLoop) {
  const Shape shape = {3, 5, 7};
  const Tensor x = RandomFloat(shape, 8);
  for (int exclusive = 0; exclusive < 2; ++exclusive) {
    for (int reverse = 0; reverse < 2; ++reverse) {
      const Tensor y = CumSum(x, 1, exclusive, reverse);
      for (int64_t o = 0; o < 3; ++o) {
        for (int64_t i = 0; i < 7; ++i) {
          float sum = 0.f;
          for (int64_t step = 0; step < 5; ++step) {
            const int64_t k = reverse ? 4 - step : step;
            const float v = x.ptr<float>()[(o * 5 + k) * 7 + i];
            if (!exclusive) sum += v;
            ASSERT_EQ(y.ptr<float>()[(o * 5 + k) * 7 + i], sum);
            if (exclusive) sum += v;
          }
        }
      }
    }
  }
}

TEST(CumSum, TheAxisMustBeKnownWhenPlanned) {
  std::vector<Tensor> out;
  const Status s =
      RunOp("CumSum", 14, {{MakeFloat({3}, {1, 2, 3})}, {MakeInt64({}, {0})}}, {}, 1, &out);
  EXPECT_EQ(s.code(), ErrorCode::kMalformedModel) << s.ToString();
}

Tensor Trilu(const Tensor& x, int64_t k, int upper) {
  std::vector<Tensor> out;
  const Status s =
      RunOp("Trilu", 14, {{x}, {MakeInt64({}, {k}), true}}, {{"upper", IntAttr(upper)}}, 1, &out);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return s.ok() ? out[0] : Tensor();
}

TEST(Trilu, HandChecked) {
  const Tensor x = MakeFloat({3, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  EXPECT_EQ(Floats(Trilu(x, 0, 1)), (std::vector<float>{1, 2, 3, 4, 0, 6, 7, 8, 0, 0, 11, 12}));
  EXPECT_EQ(Floats(Trilu(x, 1, 1)), (std::vector<float>{0, 2, 3, 4, 0, 0, 7, 8, 0, 0, 0, 12}));
  EXPECT_EQ(Floats(Trilu(x, -1, 0)), (std::vector<float>{0, 0, 0, 0, 5, 0, 0, 0, 9, 10, 0, 0}));
  EXPECT_EQ(Floats(Trilu(x, 0, 0)), (std::vector<float>{1, 0, 0, 0, 5, 6, 0, 0, 9, 10, 11, 0}));
  // Offsets past the matrix keep all or nothing, with no overflow.
  EXPECT_EQ(Floats(Trilu(x, INT64_MIN, 1)), Floats(x));
  EXPECT_EQ(Floats(Trilu(x, INT64_MAX, 1)), std::vector<float>(12, 0.f));
  EXPECT_EQ(Floats(Trilu(x, INT64_MAX, 0)), Floats(x));
}

TEST(Trilu, BatchesOfOddMatricesAgainstANaiveMask) {
  const Tensor x = RandomFloat({2, 5, 3}, 6);
  for (int64_t k = -6; k <= 6; ++k) {
    for (int upper = 0; upper < 2; ++upper) {
      const Tensor y = Trilu(x, k, upper);
      for (int64_t m = 0; m < 2; ++m)
        for (int64_t i = 0; i < 5; ++i)
          for (int64_t j = 0; j < 3; ++j) {
            const int64_t at = (m * 5 + i) * 3 + j;
            const bool kept = upper ? j - i >= k : j - i <= k;
            ASSERT_EQ(y.ptr<float>()[at], kept ? x.ptr<float>()[at] : 0.f) << k << " " << upper;
          }
    }
  }
}

TEST(EyeLike, HandChecked) {
  const Tensor x = MakeFloat({3, 4}, std::vector<float>(12, 7.f));
  EXPECT_EQ(Floats(RunOk("EyeLike", 9, {x}, {{"k", IntAttr(1)}})),
            (std::vector<float>{0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}));
  const Tensor ints = RunOk("EyeLike", 9, {x}, {{"k", IntAttr(-2)}, {"dtype", IntAttr(7)}});
  EXPECT_EQ(ints.dtype, DType::kInt64);
  EXPECT_EQ(Ints(ints), (std::vector<int64_t>{0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0}));
  EXPECT_EQ(Floats(RunOk("EyeLike", 9, {x}, {{"k", IntAttr(INT64_MIN)}})),
            std::vector<float>(12, 0.f));
}

}  // namespace
}  // namespace webnx::testing
