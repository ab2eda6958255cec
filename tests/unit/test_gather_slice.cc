// Gather, GatherElements, Slice and Pad (kernels/gather_slice.cc).
#include <gtest/gtest.h>

#include <limits>
#include <random>

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

Tensor Iota(const Shape& shape) {
  Tensor t;
  EXPECT_TRUE(Tensor::Allocate(DType::kFloat32, shape, &t).ok());
  for (int64_t i = 0; i < t.numel(); ++i) t.ptr<float>()[i] = static_cast<float>(i);
  return t;
}

Status RunOne(const std::string& op, int opset, const std::vector<OpInput>& inputs,
              const std::map<std::string, Attribute>& attrs, Tensor* out) {
  std::vector<Tensor> outs;
  Status s = RunOp(op, opset, inputs, attrs, 1, &outs);
  if (s.ok()) *out = outs[0];
  return s;
}

// ---- Gather

TEST(Gather, Axis0And1WithNegativeIndices) {
  Tensor data = Iota({3, 4});
  Tensor y;
  ASSERT_TRUE(RunOne("Gather", 13, {OpInput{data}, OpInput{MakeInt64({2}, {2, -3})}}, {}, &y).ok());
  EXPECT_EQ(y.shape, (Shape{2, 4}));
  EXPECT_EQ(Values<float>(y), (std::vector<float>{8, 9, 10, 11, 0, 1, 2, 3}));
  ASSERT_TRUE(RunOne("Gather", 11, {OpInput{data}, OpInput{MakeInt32({2, 2}, {3, 0, -1, 1})}},
                     {{"axis", IntAttr(-1)}}, &y)
                  .ok());
  EXPECT_EQ(y.shape, (Shape{3, 2, 2}));
  EXPECT_EQ(Values<float>(y), (std::vector<float>{3, 0, 3, 1, 7, 4, 7, 5, 11, 8, 11, 9}));
}

TEST(Gather, ScalarIndexDropsTheAxis) {
  Tensor y;
  ASSERT_TRUE(RunOne("Gather", 1, {OpInput{Iota({2, 3, 2})}, OpInput{MakeInt64({}, {1})}},
                     {{"axis", IntAttr(1)}}, &y)
                  .ok());
  EXPECT_EQ(y.shape, (Shape{2, 2}));
  EXPECT_EQ(Values<float>(y), (std::vector<float>{2, 3, 8, 9}));
  // Shape-tensor style: gather one dim out of a 1-D int64 tensor.
  ASSERT_TRUE(RunOne("Gather", 13,
                     {OpInput{MakeInt64({4}, {1, 3, 224, 224})}, OpInput{MakeInt64({}, {0})}}, {},
                     &y)
                  .ok());
  EXPECT_EQ(y.shape, Shape{});
  EXPECT_EQ(y.ptr<int64_t>()[0], 1);
}

TEST(Gather, OutOfRangeIndexIsInvalidInputNotACrash) {
  Tensor y;
  Status s = RunOne("Gather", 13, {OpInput{Iota({3, 4})}, OpInput{MakeInt64({2}, {1, 3})}}, {}, &y);
  EXPECT_EQ(s.code(), ErrorCode::kInvalidInput);
  EXPECT_NE(s.message().find("index 3"), std::string::npos) << s.message();
  EXPECT_EQ(
      RunOne("Gather", 13, {OpInput{Iota({3, 4})}, OpInput{MakeInt64({1}, {-4})}}, {}, &y).code(),
      ErrorCode::kInvalidInput);
  EXPECT_EQ(RunOne("Gather", 13,
                   {OpInput{Iota({3, 4})},
                    OpInput{MakeInt64({1}, {std::numeric_limits<int64_t>::min()})}},
                   {}, &y)
                .code(),
            ErrorCode::kInvalidInput);
  EXPECT_EQ(RunOne("Gather", 13, {OpInput{Iota({3})}, OpInput{MakeFloat({1}, {0})}}, {}, &y).code(),
            ErrorCode::kUnsupportedDtype);
  EXPECT_EQ(RunOne("Gather", 13, {OpInput{Iota({3})}, OpInput{MakeInt64({1}, {0})}},
                   {{"axis", IntAttr(1)}}, &y)
                .code(),
            ErrorCode::kMalformedModel);
}

// ---- GatherElements

TEST(GatherElements, Axis0And1) {
  Tensor data = MakeFloat({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  Tensor y;
  ASSERT_TRUE(RunOne("GatherElements", 13,
                     {OpInput{data}, OpInput{MakeInt64({2, 3}, {1, 2, 0, 2, 0, -3})}}, {}, &y)
                  .ok());
  EXPECT_EQ(y.shape, (Shape{2, 3}));
  EXPECT_EQ(Values<float>(y), (std::vector<float>{4, 8, 3, 7, 2, 3}));
  ASSERT_TRUE(RunOne("GatherElements", 11,
                     {OpInput{data}, OpInput{MakeInt32({3, 2}, {0, 0, 1, 0, 2, -1})}},
                     {{"axis", IntAttr(1)}}, &y)
                  .ok());
  EXPECT_EQ(Values<float>(y), (std::vector<float>{1, 1, 5, 4, 9, 9}));
  EXPECT_EQ(
      RunOne("GatherElements", 13, {OpInput{data}, OpInput{MakeInt64({1, 1}, {3})}}, {}, &y).code(),
      ErrorCode::kInvalidInput);
  EXPECT_EQ(
      RunOne("GatherElements", 13, {OpInput{data}, OpInput{MakeInt64({4}, {0, 0, 0, 0})}}, {}, &y)
          .code(),
      ErrorCode::kShapeMismatch);
}

// ---- Slice

// Slice-13 with every parameter a plan-time constant.
Status Slice13(const Tensor& x, std::vector<int64_t> starts, std::vector<int64_t> ends,
               std::vector<int64_t> axes, std::vector<int64_t> steps, Tensor* y) {
  const int64_t n = static_cast<int64_t>(starts.size());
  std::vector<OpInput> in = {OpInput{x}, OpInput{MakeInt64({n}, starts), true},
                             OpInput{MakeInt64({n}, ends), true}};
  if (!axes.empty() || !steps.empty()) {
    in.push_back(axes.empty() ? OpInput{Tensor(), false, false}
                              : OpInput{MakeInt64({n}, axes), true});
  }
  if (!steps.empty()) in.push_back(OpInput{MakeInt64({n}, steps), true});
  return RunOne("Slice", 13, in, {}, y);
}

TEST(Slice, HandCheckedCases) {
  Tensor x = Iota({3, 4});
  Tensor y;
  ASSERT_TRUE(Slice13(x, {1, 0}, {2, 3}, {}, {}, &y).ok());
  EXPECT_EQ(y.shape, (Shape{1, 3}));
  EXPECT_EQ(Values<float>(y), (std::vector<float>{4, 5, 6}));
  // Negative steps run backwards; INT64_MIN / MAX ends clamp.
  ASSERT_TRUE(Slice13(x, {-1}, {std::numeric_limits<int64_t>::min()}, {1}, {-2}, &y).ok());
  EXPECT_EQ(y.shape, (Shape{3, 2}));
  EXPECT_EQ(Values<float>(y), (std::vector<float>{3, 1, 7, 5, 11, 9}));
  ASSERT_TRUE(Slice13(x, {1}, {std::numeric_limits<int64_t>::max()}, {0}, {}, &y).ok());
  EXPECT_EQ(y.shape, (Shape{2, 4}));
  // Out-of-bounds start gives an empty slice.
  ASSERT_TRUE(Slice13(x, {10}, {20}, {1}, {}, &y).ok());
  EXPECT_EQ(y.shape, (Shape{3, 0}));
}

TEST(Slice, Opset1AttributesAndOpset10Inputs) {
  Tensor x = Iota({2, 5});
  Tensor y;
  ASSERT_TRUE(RunOne("Slice", 1, {OpInput{x}},
                     {{"starts", IntsAttr({1})}, {"ends", IntsAttr({-1})}, {"axes", IntsAttr({1})}},
                     &y)
                  .ok());
  EXPECT_EQ(Values<float>(y), (std::vector<float>{1, 2, 3, 6, 7, 8}));
  ASSERT_TRUE(
      RunOne("Slice", 10,
             {OpInput{x}, OpInput{MakeInt32({1}, {1}), true}, OpInput{MakeInt32({1}, {2}), true}},
             {}, &y)
          .ok());
  EXPECT_EQ(Values<float>(y), (std::vector<float>{5, 6, 7, 8, 9}));
}

// Naive slice of one dim under the spec's clamping rules.
std::vector<int64_t> SliceIndices(int64_t dim, int64_t start, int64_t end, int64_t step) {
  if (start < 0) start += dim;
  if (end < 0) end += dim;
  std::vector<int64_t> idx;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
    for (int64_t i = start; i < end; i += step) idx.push_back(i);
  } else if (dim > 0) {
    start = std::clamp<int64_t>(start, 0, dim - 1);
    end = std::clamp<int64_t>(end, -1, dim - 1);
    for (int64_t i = start; i > end; i += step) idx.push_back(i);
  }
  return idx;
}

TEST(Slice, RandomSlicesMatchNaive) {
  std::mt19937 rng(3);
  auto rand = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int trial = 0; trial < 300; ++trial) {
    Shape shape;
    for (int r = rand(1, 4); r > 0; --r) shape.push_back(rand(0, 5));
    Tensor x = Iota(shape);
    std::vector<int64_t> starts, ends, axes, steps;
    std::vector<std::vector<int64_t>> picks(shape.size());
    for (size_t d = 0; d < shape.size(); ++d) {
      picks[d].resize(shape[d]);
      for (int64_t i = 0; i < shape[d]; ++i) picks[d][i] = i;
      if (rand(0, 2) == 0) continue;
      const int64_t s = rand(-7, 7), e = rand(-7, 7);
      int64_t st = rand(-3, 3);
      if (st == 0) st = 1;
      starts.push_back(s);
      ends.push_back(e);
      steps.push_back(st);
      axes.push_back(rand(0, 1) ? static_cast<int64_t>(d)
                                : static_cast<int64_t>(d) - static_cast<int64_t>(shape.size()));
      picks[d] = SliceIndices(shape[d], s, e, st);
    }
    if (starts.empty()) continue;
    Tensor y;
    ASSERT_TRUE(Slice13(x, starts, ends, axes, steps, &y).ok());
    Shape want;
    for (const auto& p : picks) want.push_back(static_cast<int64_t>(p.size()));
    ASSERT_EQ(y.shape, want) << ShapeToString(shape);
    // Walk the expected output in order.
    std::vector<int64_t> coord(shape.size(), 0);
    for (int64_t flat = 0; flat < y.numel(); ++flat) {
      int64_t src = 0;
      for (size_t d = 0; d < shape.size(); ++d) src = src * shape[d] + picks[d][coord[d]];
      ASSERT_EQ(y.ptr<float>()[flat], static_cast<float>(src)) << ShapeToString(shape);
      for (size_t d = shape.size(); d-- > 0;) {
        if (++coord[d] < want[d]) break;
        coord[d] = 0;
      }
    }
  }
}

TEST(Slice, Errors) {
  Tensor x = Iota({3, 4});
  Tensor y;
  // Parameters known only at run time.
  EXPECT_EQ(
      RunOne("Slice", 13,
             {OpInput{x}, OpInput{MakeInt64({1}, {0}), false}, OpInput{MakeInt64({1}, {1}), true}},
             {}, &y)
          .code(),
      ErrorCode::kMalformedModel);
  EXPECT_EQ(Slice13(x, {0}, {1}, {2}, {}, &y).code(), ErrorCode::kMalformedModel);
  EXPECT_EQ(Slice13(x, {0, 0}, {1, 1}, {1, -1}, {}, &y).code(), ErrorCode::kMalformedModel);
  EXPECT_EQ(Slice13(x, {0}, {1}, {0}, {0}, &y).code(), ErrorCode::kMalformedModel);
  EXPECT_EQ(RunOne("Slice", 13,
                   {OpInput{x}, OpInput{MakeInt64({2}, {0, 0}), true},
                    OpInput{MakeInt64({1}, {1}), true}},
                   {}, &y)
                .code(),
            ErrorCode::kMalformedModel);
}

// ---- Pad

Status Pad(int opset, const Tensor& x, std::vector<int64_t> pads, const std::string& mode,
           Tensor* y, const Tensor* value = nullptr, std::vector<int64_t> axes = {}) {
  std::vector<OpInput> in = {OpInput{x},
                             OpInput{MakeInt64({static_cast<int64_t>(pads.size())}, pads), true}};
  if (value || !axes.empty()) {
    in.push_back(value ? OpInput{*value} : OpInput{Tensor(), false, false});
  }
  if (!axes.empty())
    in.push_back(OpInput{MakeInt64({static_cast<int64_t>(axes.size())}, axes), true});
  return RunOne("Pad", opset, in, {{"mode", StringAttr(mode)}}, y);
}

TEST(Pad, ConstantReflectEdgeWrap) {
  Tensor x = MakeFloat({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor y;
  Tensor value = MakeFloat({}, {9});
  ASSERT_TRUE(Pad(13, x, {0, 1, 1, 0}, "constant", &y, &value).ok());
  EXPECT_EQ(y.shape, (Shape{3, 4}));
  EXPECT_EQ(Values<float>(y), (std::vector<float>{9, 1, 2, 3, 9, 4, 5, 6, 9, 9, 9, 9}));
  ASSERT_TRUE(Pad(13, x, {0, 2, 0, 2}, "reflect", &y).ok());
  EXPECT_EQ(Values<float>(y), (std::vector<float>{3, 2, 1, 2, 3, 2, 1, 6, 5, 4, 5, 6, 5, 4}));
  ASSERT_TRUE(Pad(11, x, {1, 1, 0, 0}, "edge", &y).ok());
  EXPECT_EQ(Values<float>(y), (std::vector<float>{1, 1, 2, 3, 1, 1, 2, 3, 4, 4, 5, 6}));
  ASSERT_TRUE(Pad(19, x, {0, 2, 0, 1}, "wrap", &y).ok());
  EXPECT_EQ(Values<float>(y), (std::vector<float>{2, 3, 1, 2, 3, 1, 5, 6, 4, 5, 6, 4}));
  EXPECT_EQ(Pad(18, x, {0, 2, 0, 1}, "wrap", &y).code(), ErrorCode::kMalformedModel);
}

TEST(Pad, NegativePadsCropAndAxesInput) {
  Tensor x = MakeFloat({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor y;
  ASSERT_TRUE(Pad(13, x, {0, -1, 0, 1}, "constant", &y).ok());
  EXPECT_EQ(Values<float>(y), (std::vector<float>{2, 3, 0, 5, 6, 0}));
  ASSERT_TRUE(Pad(18, x, {1, 0}, "constant", &y, nullptr, {-1}).ok());
  EXPECT_EQ(y.shape, (Shape{2, 4}));
  EXPECT_EQ(Values<float>(y), (std::vector<float>{0, 1, 2, 3, 0, 4, 5, 6}));
  EXPECT_EQ(Pad(13, x, {0, -4, 0, 0}, "constant", &y).code(), ErrorCode::kShapeMismatch);
  EXPECT_EQ(Pad(13, x, {0, 1}, "constant", &y).code(), ErrorCode::kMalformedModel);
  ASSERT_TRUE(RunOne("Pad", 2, {OpInput{x}},
                     {{"pads", IntsAttr({0, 1, 0, 0})}, {"value", FloatAttr(-1)}}, &y)
                  .ok());
  EXPECT_EQ(Values<float>(y), (std::vector<float>{-1, 1, 2, 3, -1, 4, 5, 6}));
  Tensor ints = MakeInt64({2}, {5, 6});
  Tensor seven = MakeInt64({}, {7});
  ASSERT_TRUE(Pad(13, ints, {1, 2}, "constant", &y, &seven).ok());
  EXPECT_EQ(Values<int64_t>(y), (std::vector<int64_t>{7, 5, 6, 7, 7}));
}

}  // namespace
}  // namespace webnx::testing
