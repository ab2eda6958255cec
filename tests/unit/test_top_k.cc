// TopK (kernels/top_k.cc): order, ties (lower index first), smallest, NaN, k = 0, and odd shapes
// over every axis against a stable sort.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "tests/unit/op_runner.h"

namespace webnx::testing {
namespace {

std::vector<Tensor> TopK(const Tensor& x, int64_t k, std::map<std::string, Attribute> attrs = {}) {
  std::vector<Tensor> out;
  const Status s = RunOp("TopK", 11, {{x}, {MakeInt64({1}, {k}), true}}, attrs, 2, &out);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return out;
}

std::vector<int64_t> Ints(const Tensor& t) {
  return std::vector<int64_t>(t.ptr<int64_t>(), t.ptr<int64_t>() + t.numel());
}
std::vector<float> Floats(const Tensor& t) {
  return std::vector<float>(t.ptr<float>(), t.ptr<float>() + t.numel());
}

TEST(TopK, OrderTiesAndSmallest) {
  const Tensor x = MakeFloat({6}, {3, 1, 3, 2, 1, 5});
  std::vector<Tensor> out = TopK(x, 3);
  EXPECT_EQ(Floats(out[0]), (std::vector<float>{5, 3, 3}));
  EXPECT_EQ(Ints(out[1]), (std::vector<int64_t>{5, 0, 2}));
  out = TopK(x, 2, {{"largest", IntAttr(0)}});
  EXPECT_EQ(Floats(out[0]), (std::vector<float>{1, 1}));
  EXPECT_EQ(Ints(out[1]), (std::vector<int64_t>{1, 4}));
  EXPECT_EQ(TopK(x, 0)[0].shape, (Shape{0}));
}

TEST(TopK, NanIsTheLargest) {
  const Tensor x = MakeFloat({4}, {1, NAN, 3, NAN});
  std::vector<Tensor> out = TopK(x, 3);
  EXPECT_EQ(Ints(out[1]), (std::vector<int64_t>{1, 3, 2}));
  out = TopK(x, 2, {{"largest", IntAttr(0)}});
  EXPECT_EQ(Ints(out[1]), (std::vector<int64_t>{0, 2}));
}

TEST(TopK, OddShapesOnEveryAxisAgainstAStableSort) {
  const Shape shape = {3, 5, 7};
  std::vector<float> values = RandomFloats(105, 2, 0.f, 4.f);
  for (float& v : values) v = std::floor(v);  // ties
  const Tensor x = MakeFloat(shape, values);
  for (int64_t axis = 0; axis < 3; ++axis) {
    const int64_t extent = shape[axis], k = extent - 1;
    const int64_t outer = axis == 0 ? 1 : axis == 1 ? 3 : 15;
    const int64_t inner = 105 / outer / extent;
    const std::vector<Tensor> out = TopK(x, k, {{"axis", IntAttr(axis)}});
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        std::vector<int64_t> order(extent);
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
          return values[(o * extent + a) * inner + i] > values[(o * extent + b) * inner + i];
        });
        for (int64_t j = 0; j < k; ++j) {
          const int64_t at = (o * k + j) * inner + i;
          ASSERT_EQ(out[1].ptr<int64_t>()[at], order[j]) << "axis " << axis;
          ASSERT_EQ(out[0].ptr<float>()[at], values[(o * extent + order[j]) * inner + i]);
        }
      }
    }
  }
}

TEST(TopK, KMustFitAndBeKnown) {
  std::vector<Tensor> out;
  const Tensor x = MakeFloat({3}, {1, 2, 3});
  EXPECT_EQ(RunOp("TopK", 11, {{x}, {MakeInt64({1}, {4}), true}}, {}, 2, &out).code(),
            ErrorCode::kMalformedModel);
  EXPECT_EQ(RunOp("TopK", 11, {{x}, {MakeInt64({1}, {1})}}, {}, 2, &out).code(),
            ErrorCode::kMalformedModel);
}

}  // namespace
}  // namespace webnx::testing
