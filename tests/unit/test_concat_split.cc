// Concat and Split (kernels/concat_split.cc).
#include <gtest/gtest.h>

#include "tests/unit/op_runner.h"

namespace webnx::testing {
namespace {

template <typename T>
std::vector<T> Values(const Tensor& t) {
  return std::vector<T>(t.ptr<T>(), t.ptr<T>() + t.numel());
}

Status Concat(int opset, const std::vector<Tensor>& inputs, int64_t axis, Tensor* out) {
  std::vector<OpInput> in;
  for (const Tensor& t : inputs) in.push_back(OpInput{t});
  std::vector<Tensor> outs;
  Status s = RunOp("Concat", opset, in, {{"axis", IntAttr(axis)}}, 1, &outs);
  if (s.ok()) *out = outs[0];
  return s;
}

// Naive element (i, j, k) of a rank-3 tensor.
float At(const Tensor& t, int64_t i, int64_t j, int64_t k) {
  return t.ptr<float>()[(i * t.shape[1] + j) * t.shape[2] + k];
}

TEST(Concat, EveryAxisMatchesNaive) {
  for (int64_t axis = -3; axis < 3; ++axis) {
    const int64_t a = axis < 0 ? axis + 3 : axis;
    Shape s0 = {2, 3, 4}, s1 = {2, 3, 4}, s2 = {2, 3, 4};
    s1[a] = 1;
    s2[a] = 5;
    Tensor t0 = RandomFloat(s0, 1), t1 = RandomFloat(s1, 2), t2 = RandomFloat(s2, 3);
    Tensor y;
    ASSERT_TRUE(Concat(13, {t0, t1, t2}, axis, &y).ok());
    Shape want = s0;
    want[a] = s0[a] + 1 + 5;
    ASSERT_EQ(y.shape, want);
    for (int64_t i = 0; i < want[0]; ++i) {
      for (int64_t j = 0; j < want[1]; ++j) {
        for (int64_t k = 0; k < want[2]; ++k) {
          int64_t c[3] = {i, j, k};
          const Tensor* src = &t0;
          if (c[a] >= s0[a] + 1) {
            src = &t2;
            c[a] -= s0[a] + 1;
          } else if (c[a] >= s0[a]) {
            src = &t1;
            c[a] -= s0[a];
          }
          ASSERT_EQ(y.ptr<float>()[(i * want[1] + j) * want[2] + k], At(*src, c[0], c[1], c[2]));
        }
      }
    }
  }
}

TEST(Concat, IntegersEmptyPiecesAndOneInput) {
  Tensor y;
  ASSERT_TRUE(Concat(4,
                     {MakeInt64({1, 2}, {1, 2}), MakeInt64({0, 2}, {}), MakeInt64({1, 2}, {3, 4})},
                     0, &y)
                  .ok());
  EXPECT_EQ(y.shape, (Shape{2, 2}));
  EXPECT_EQ(Values<int64_t>(y), (std::vector<int64_t>{1, 2, 3, 4}));
  ASSERT_TRUE(Concat(11, {MakeInt64({3}, {7, 8, 9})}, -1, &y).ok());
  EXPECT_EQ(Values<int64_t>(y), (std::vector<int64_t>{7, 8, 9}));
}

TEST(Concat, Errors) {
  Tensor y;
  EXPECT_EQ(Concat(13, {RandomFloat({2, 3}, 1), RandomFloat({3, 3}, 2)}, 1, &y).code(),
            ErrorCode::kShapeMismatch);
  EXPECT_EQ(Concat(13, {RandomFloat({2, 3}, 1), RandomFloat({2, 3, 1}, 2)}, 0, &y).code(),
            ErrorCode::kShapeMismatch);
  EXPECT_EQ(Concat(13, {RandomFloat({2, 3}, 1), RandomFloat({2, 3}, 2)}, 2, &y).code(),
            ErrorCode::kMalformedModel);
  EXPECT_EQ(Concat(13, {RandomFloat({2}, 1), MakeInt64({2}, {1, 2})}, 0, &y).code(),
            ErrorCode::kMalformedModel);
  EXPECT_EQ(Concat(13, {MakeFloat({}, {1}), MakeFloat({}, {1})}, 0, &y).code(),
            ErrorCode::kMalformedModel);
  std::vector<Tensor> outs;
  EXPECT_EQ(RunOp("Concat", 13, {OpInput{RandomFloat({2}, 1)}}, {}, 1, &outs).code(),
            ErrorCode::kMalformedModel);  // axis is required
}

Status Split(int opset, const std::vector<OpInput>& inputs,
             const std::map<std::string, Attribute>& attrs, int outputs, std::vector<Tensor>* out) {
  return RunOp("Split", opset, inputs, attrs, outputs, out);
}

TEST(Split, EqualPartsAtEveryVersion) {
  Tensor x = MakeFloat({2, 6}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  for (int opset : {2, 11, 13, 18}) {
    std::vector<Tensor> out;
    std::map<std::string, Attribute> attrs = {{"axis", IntAttr(1)}};
    if (opset >= 18) attrs["num_outputs"] = IntAttr(3);
    ASSERT_TRUE(Split(opset, {OpInput{x}}, attrs, 3, &out).ok()) << opset;
    ASSERT_EQ(out.size(), 3u);
    EXPECT_EQ(out[0].shape, (Shape{2, 2}));
    EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{1, 2, 7, 8}));
    EXPECT_EQ(Values<float>(out[2]), (std::vector<float>{5, 6, 11, 12}));
  }
}

TEST(Split, SizesAsAttributeBefore13AndInputFrom13) {
  Tensor x = MakeFloat({5, 1}, {1, 2, 3, 4, 5});
  std::vector<Tensor> out;
  ASSERT_TRUE(Split(2, {OpInput{x}}, {{"split", IntsAttr({2, 3})}}, 2, &out).ok());
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{1, 2}));
  EXPECT_EQ(Values<float>(out[1]), (std::vector<float>{3, 4, 5}));
  ASSERT_TRUE(Split(13, {OpInput{x}, OpInput{MakeInt64({3}, {1, 0, 4}), true}}, {}, 3, &out).ok());
  EXPECT_EQ(out[1].shape, (Shape{0, 1}));
  EXPECT_EQ(Values<float>(out[2]), (std::vector<float>{2, 3, 4, 5}));
  ASSERT_TRUE(Split(18, {OpInput{x}, OpInput{MakeInt64({2}, {4, 1}), true}},
                    {{"axis", IntAttr(-2)}}, 2, &out)
                  .ok());
  EXPECT_EQ(Values<float>(out[1]), (std::vector<float>{5}));
  // The split input must be known at plan time.
  EXPECT_EQ(Split(13, {OpInput{x}, OpInput{MakeInt64({2}, {4, 1}), false}}, {}, 2, &out).code(),
            ErrorCode::kMalformedModel);
}

TEST(Split, Opset18UnevenNumOutputs) {
  Tensor x = MakeFloat({7}, {1, 2, 3, 4, 5, 6, 7});
  std::vector<Tensor> out;
  ASSERT_TRUE(Split(18, {OpInput{x}}, {{"num_outputs", IntAttr(4)}}, 4, &out).ok());
  EXPECT_EQ(out[0].shape, (Shape{2}));
  EXPECT_EQ(out[3].shape, (Shape{1}));
  EXPECT_EQ(Values<float>(out[3]), (std::vector<float>{7}));
  Tensor five = MakeFloat({5}, {1, 2, 3, 4, 5});
  ASSERT_TRUE(Split(18, {OpInput{five}}, {{"num_outputs", IntAttr(4)}}, 4, &out).ok());
  EXPECT_EQ(out[2].shape, (Shape{1}));
  EXPECT_EQ(out[3].shape, (Shape{0}));
  // Before 18 an uneven equal split is an error.
  EXPECT_EQ(Split(13, {OpInput{x}}, {}, 4, &out).code(), ErrorCode::kShapeMismatch);
}

TEST(Split, Errors) {
  Tensor x = MakeFloat({4}, {1, 2, 3, 4});
  std::vector<Tensor> out;
  EXPECT_EQ(Split(11, {OpInput{x}}, {{"split", IntsAttr({1, 2})}}, 2, &out).code(),
            ErrorCode::kShapeMismatch);
  EXPECT_EQ(Split(11, {OpInput{x}}, {{"split", IntsAttr({1, 2, 1})}}, 2, &out).code(),
            ErrorCode::kMalformedModel);
  EXPECT_EQ(Split(11, {OpInput{x}}, {{"axis", IntAttr(1)}}, 2, &out).code(),
            ErrorCode::kMalformedModel);
  EXPECT_EQ(Split(18, {OpInput{x}}, {{"num_outputs", IntAttr(3)}}, 2, &out).code(),
            ErrorCode::kMalformedModel);
  EXPECT_EQ(Split(18, {OpInput{x}, OpInput{MakeInt64({2}, {2, 2}), true}},
                  {{"num_outputs", IntAttr(2)}}, 2, &out)
                .code(),
            ErrorCode::kMalformedModel);
}

}  // namespace
}  // namespace webnx::testing
