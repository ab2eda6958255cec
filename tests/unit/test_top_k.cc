// TopK (kernels/top_k.cc): order, ties (lower index first), smallest, NaN, k = 0, odd shapes
// over every axis against a stable sort, and every numeric dtype (keys widened or flipped).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
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

// Values of type T as a tensor of `dtype`, and back.
template <typename T>
Tensor Typed(DType dtype, const std::vector<T>& values) {
  Tensor t;
  EXPECT_TRUE(Tensor::Allocate(dtype, {static_cast<int64_t>(values.size())}, &t).ok());
  std::memcpy(t.data, values.data(), values.size() * sizeof(T));
  return t;
}
template <typename T>
std::vector<T> Values(const Tensor& t) {
  return std::vector<T>(static_cast<const T*>(t.data), static_cast<const T*>(t.data) + t.numel());
}

// Each dtype's extremes and ties, largest and smallest, against a stable sort of the values.
template <typename T>
void ExpectTopKOf(DType dtype, const std::vector<T>& x) {
  for (int largest : {1, 0}) {
    const int64_t k = static_cast<int64_t>(x.size()) - 1;
    const std::vector<Tensor> out = TopK(Typed(dtype, x), k, {{"largest", IntAttr(largest)}});
    std::vector<int64_t> order(x.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int64_t a, int64_t b) { return largest ? x[a] > x[b] : x[a] < x[b]; });
    order.resize(k);
    std::vector<T> want;
    for (int64_t i : order) want.push_back(x[i]);
    EXPECT_EQ(out[0].dtype, dtype);
    EXPECT_EQ(Ints(out[1]), order) << static_cast<int>(dtype) << " largest " << largest;
    EXPECT_EQ(Values<T>(out[0]), want) << static_cast<int>(dtype) << " largest " << largest;
  }
}

TEST(TopK, EveryNumericDType) {
  const uint64_t top = uint64_t{1} << 63;
  ExpectTopKOf<uint64_t>(DType::kUint64, {5, top + 3, 0, UINT64_MAX, top - 1, top, 5, top + 3});
  ExpectTopKOf<uint32_t>(DType::kUint32, {7, 0xFFFFFFFFu, 0x80000000u, 7, 0});
  ExpectTopKOf<uint16_t>(DType::kUint16, {65535, 1, 32768, 1, 0});
  ExpectTopKOf<uint8_t>(DType::kUint8, {200, 3, 255, 128, 3, 0});
  ExpectTopKOf<int8_t>(DType::kInt8, {-128, 127, -1, 0, -1, 5});
  ExpectTopKOf<int16_t>(DType::kInt16, {-32768, 32767, 2, -2, 2});
  ExpectTopKOf<int32_t>(DType::kInt32, {INT32_MIN, INT32_MAX, 9, -9, 9});
  ExpectTopKOf<int64_t>(DType::kInt64, {INT64_MIN, INT64_MAX, 3, -3, 3});
  ExpectTopKOf<double>(DType::kFloat64, {1e300, -1e300, 1 + 1e-15, 1, 1 + 1e-15, -0.5, -0.75});
  // -0 and 0 are equal (their index order decides); NaN is the largest whatever its sign.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<Tensor> signed_zeros =
      TopK(Typed<double>(DType::kFloat64, {0.0, -0.0, -nan, 1.0, -1.0}), 4);
  EXPECT_EQ(Ints(signed_zeros[1]), (std::vector<int64_t>{2, 3, 0, 1}));
  const std::vector<Tensor> smallest =
      TopK(Typed<double>(DType::kFloat64, {-0.0, nan, 0.0, -1.0}), 4, {{"largest", IntAttr(0)}});
  EXPECT_EQ(Ints(smallest[1]), (std::vector<int64_t>{3, 0, 2, 1}));
  // float16 bits: 1.5 (0x3E00), -2 (0xC000), 65504 (0x7BFF), 1.5, 0.
  const std::vector<uint16_t> halves = {0x3E00, 0xC000, 0x7BFF, 0x3E00, 0x0000};
  const std::vector<Tensor> out = TopK(Typed(DType::kFloat16, halves), 3);
  EXPECT_EQ(Ints(out[1]), (std::vector<int64_t>{2, 0, 3}));
  EXPECT_EQ(Values<uint16_t>(out[0]), (std::vector<uint16_t>{0x7BFF, 0x3E00, 0x3E00}));
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
