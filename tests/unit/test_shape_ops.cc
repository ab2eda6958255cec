// Reshape, Flatten, Squeeze, Unsqueeze, Shape, Size, Expand, Tile, ConstantOfShape, Range
// (kernels/shape_ops.cc).
#include <gtest/gtest.h>

#include "tests/unit/op_runner.h"

namespace webnx::testing {
namespace {

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

OpInput Const(const Shape& shape, const std::vector<int64_t>& v) {
  return OpInput{MakeInt64(shape, v), true};
}
OpInput Ints(const std::vector<int64_t>& v) {
  return Const({static_cast<int64_t>(v.size())}, v);
}

// ---- Reshape

Status Reshape(int opset, const Shape& in, const std::vector<int64_t>& target, Tensor* y,
               int64_t allowzero = -1) {
  std::map<std::string, Attribute> attrs;
  if (allowzero >= 0) attrs["allowzero"] = IntAttr(allowzero);
  return RunOne("Reshape", opset, {OpInput{Iota(in)}, Ints(target)}, attrs, y);
}

TEST(Reshape, ZeroCopiesAndMinusOneInfers) {
  Tensor y;
  ASSERT_TRUE(Reshape(13, {2, 3, 4}, {0, -1}, &y).ok());
  EXPECT_EQ(y.shape, (Shape{2, 12}));
  EXPECT_EQ(y.ptr<float>()[23], 23.f);
  ASSERT_TRUE(Reshape(5, {2, 3, 4}, {4, 0, 2}, &y).ok());
  EXPECT_EQ(y.shape, (Shape{4, 3, 2}));
  ASSERT_TRUE(Reshape(14, {1}, {}, &y).ok());
  EXPECT_EQ(y.shape, Shape{});
  ASSERT_TRUE(Reshape(21, {2, 0, 3}, {-1, 3}, &y).ok());
  EXPECT_EQ(y.shape, (Shape{0, 3}));
}

TEST(Reshape, AllowZeroFromOpset14) {
  Tensor y;
  ASSERT_TRUE(Reshape(14, {0, 3, 4}, {3, 4, 0}, &y, 1).ok());
  EXPECT_EQ(y.shape, (Shape{3, 4, 0}));
  // Without allowzero the 0 copies dim 2 (4): 3*4*4 != 0 elements.
  EXPECT_EQ(Reshape(14, {0, 3, 4}, {3, 4, 0}, &y, 0).code(), ErrorCode::kShapeMismatch);
  // Before 14 the attribute does not exist: 0 always copies.
  ASSERT_TRUE(Reshape(13, {2, 3}, {0, 3}, &y, 1).ok());
  EXPECT_EQ(y.shape, (Shape{2, 3}));
  EXPECT_EQ(Reshape(14, {2, 3}, {0, -1}, &y, 1).code(), ErrorCode::kShapeMismatch);
}

TEST(Reshape, Errors) {
  Tensor y;
  EXPECT_EQ(Reshape(13, {2, 3}, {4, -1}, &y).code(), ErrorCode::kShapeMismatch);
  EXPECT_EQ(Reshape(13, {2, 3}, {-1, -1}, &y).code(), ErrorCode::kMalformedModel);
  EXPECT_EQ(Reshape(13, {2, 3}, {-2, 3}, &y).code(), ErrorCode::kMalformedModel);
  EXPECT_EQ(Reshape(13, {6}, {0, 0}, &y).code(), ErrorCode::kShapeMismatch);
  Status s =
      RunOne("Reshape", 13, {OpInput{Iota({6})}, OpInput{MakeInt64({1}, {6}), false}}, {}, &y);
  EXPECT_EQ(s.code(), ErrorCode::kMalformedModel);
  EXPECT_NE(s.message().find("must be known when the plan is made"), std::string::npos);
}

// ---- Flatten

TEST(Flatten, EveryAxis) {
  const Shape in = {2, 3, 4, 5};
  const std::vector<Shape> want = {{1, 120}, {2, 60}, {6, 20}, {24, 5}, {120, 1}};
  for (int64_t axis = -4; axis <= 4; ++axis) {
    Tensor y;
    ASSERT_TRUE(RunOne("Flatten", 13, {OpInput{Iota(in)}}, {{"axis", IntAttr(axis)}}, &y).ok());
    EXPECT_EQ(y.shape, want[axis < 0 ? axis + 4 : axis]) << axis;
    EXPECT_EQ(y.ptr<float>()[119], 119.f);
  }
  Tensor y;
  ASSERT_TRUE(RunOne("Flatten", 1, {OpInput{Iota(in)}}, {}, &y).ok());
  EXPECT_EQ(y.shape, (Shape{2, 60}));
  EXPECT_EQ(RunOne("Flatten", 13, {OpInput{Iota(in)}}, {{"axis", IntAttr(5)}}, &y).code(),
            ErrorCode::kMalformedModel);
}

// ---- Squeeze / Unsqueeze

TEST(Squeeze, AxesAttributeBefore13) {
  Tensor y;
  ASSERT_TRUE(
      RunOne("Squeeze", 11, {OpInput{Iota({1, 3, 1, 2})}}, {{"axes", IntsAttr({-2})}}, &y).ok());
  EXPECT_EQ(y.shape, (Shape{1, 3, 2}));
  ASSERT_TRUE(RunOne("Squeeze", 1, {OpInput{Iota({1, 3, 1, 2})}}, {}, &y).ok());
  EXPECT_EQ(y.shape, (Shape{3, 2}));
  EXPECT_EQ(Values<float>(y), (std::vector<float>{0, 1, 2, 3, 4, 5}));
}

TEST(Squeeze, AxesInputFrom13) {
  Tensor y;
  ASSERT_TRUE(RunOne("Squeeze", 13, {OpInput{Iota({1, 3, 1})}, Ints({0, 2})}, {}, &y).ok());
  EXPECT_EQ(y.shape, (Shape{3}));
  ASSERT_TRUE(RunOne("Squeeze", 13, {OpInput{Iota({1, 3, 1})}}, {}, &y).ok());
  EXPECT_EQ(y.shape, (Shape{3}));
  // At 13 the attribute is no longer read.
  ASSERT_TRUE(
      RunOne("Squeeze", 13, {OpInput{Iota({1, 3, 1})}}, {{"axes", IntsAttr({0})}}, &y).ok());
  EXPECT_EQ(y.shape, (Shape{3}));
  EXPECT_EQ(RunOne("Squeeze", 13, {OpInput{Iota({1, 3})}, Ints({1})}, {}, &y).code(),
            ErrorCode::kShapeMismatch);
  EXPECT_EQ(RunOne("Squeeze", 13, {OpInput{Iota({1, 3})}, Ints({2})}, {}, &y).code(),
            ErrorCode::kMalformedModel);
  EXPECT_EQ(
      RunOne("Squeeze", 13, {OpInput{Iota({1, 3})}, OpInput{MakeInt64({1}, {0}), false}}, {}, &y)
          .code(),
      ErrorCode::kMalformedModel);
}

TEST(Unsqueeze, AttributeAndInputForms) {
  Tensor y;
  ASSERT_TRUE(
      RunOne("Unsqueeze", 11, {OpInput{Iota({3, 4})}}, {{"axes", IntsAttr({0, -1})}}, &y).ok());
  EXPECT_EQ(y.shape, (Shape{1, 3, 4, 1}));
  ASSERT_TRUE(RunOne("Unsqueeze", 13, {OpInput{Iota({3, 4})}, Ints({3, 1})}, {}, &y).ok());
  EXPECT_EQ(y.shape, (Shape{3, 1, 4, 1}));
  ASSERT_TRUE(RunOne("Unsqueeze", 13, {OpInput{MakeFloat({}, {5})}, Ints({0})}, {}, &y).ok());
  EXPECT_EQ(y.shape, (Shape{1}));
  EXPECT_EQ(y.ptr<float>()[0], 5.f);
  EXPECT_EQ(RunOne("Unsqueeze", 13, {OpInput{Iota({3})}, Ints({1, 1})}, {}, &y).code(),
            ErrorCode::kMalformedModel);
  EXPECT_EQ(RunOne("Unsqueeze", 13, {OpInput{Iota({3})}, Ints({3})}, {}, &y).code(),
            ErrorCode::kMalformedModel);
  EXPECT_EQ(RunOne("Unsqueeze", 1, {OpInput{Iota({3})}}, {}, &y).code(),
            ErrorCode::kMalformedModel);
  EXPECT_EQ(RunOne("Unsqueeze", 13, {OpInput{Iota({3})}}, {}, &y).code(),
            ErrorCode::kMalformedModel);
}

// ---- Shape / Size

TEST(Shape, FullAndSlicedFrom15) {
  Tensor x = Iota({2, 3, 4});
  Tensor y;
  ASSERT_TRUE(RunOne("Shape", 13, {OpInput{x}}, {}, &y).ok());
  EXPECT_EQ(y.dtype, DType::kInt64);
  EXPECT_EQ(Values<int64_t>(y), (std::vector<int64_t>{2, 3, 4}));
  struct Case {
    int64_t start, end;
    std::vector<int64_t> want;
  };
  for (const Case& c : std::vector<Case>{
           {1, 3, {3, 4}}, {-1, 3, {4}}, {0, -1, {2, 3}}, {-10, 10, {2, 3, 4}}, {2, 1, {}}}) {
    ASSERT_TRUE(RunOne("Shape", 15, {OpInput{x}},
                       {{"start", IntAttr(c.start)}, {"end", IntAttr(c.end)}}, &y)
                    .ok());
    EXPECT_EQ(Values<int64_t>(y), c.want) << c.start << ".." << c.end;
  }
  // Before 15 start/end are not part of the schema.
  ASSERT_TRUE(RunOne("Shape", 13, {OpInput{x}}, {{"start", IntAttr(1)}}, &y).ok());
  EXPECT_EQ(y.numel(), 3);
  std::unique_ptr<Kernel> k = OpRegistry::Default().Create("", "Shape");
  EXPECT_TRUE(k->ReadsOnlyInputShapes());
}

TEST(Size, CountsElements) {
  Tensor y;
  ASSERT_TRUE(RunOne("Size", 13, {OpInput{Iota({2, 3, 4})}}, {}, &y).ok());
  EXPECT_EQ(y.shape, Shape{});
  EXPECT_EQ(y.ptr<int64_t>()[0], 24);
  EXPECT_TRUE(OpRegistry::Default().Create("", "Size")->ReadsOnlyInputShapes());
}

// ---- Expand / Tile

TEST(Expand, BidirectionalBroadcast) {
  Tensor y;
  ASSERT_TRUE(
      RunOne("Expand", 13, {OpInput{MakeFloat({3, 1}, {1, 2, 3})}, Ints({2, 1, 4})}, {}, &y).ok());
  EXPECT_EQ(y.shape, (Shape{2, 3, 4}));
  EXPECT_EQ(y.ptr<float>()[0], 1.f);
  EXPECT_EQ(y.ptr<float>()[5], 2.f);
  EXPECT_EQ(y.ptr<float>()[23], 3.f);
  // The shape may be smaller than the input (1s keep the input dim).
  ASSERT_TRUE(
      RunOne("Expand", 8, {OpInput{MakeInt64({2, 2}, {1, 2, 3, 4})}, Ints({1})}, {}, &y).ok());
  EXPECT_EQ(Values<int64_t>(y), (std::vector<int64_t>{1, 2, 3, 4}));
  EXPECT_EQ(RunOne("Expand", 13, {OpInput{Iota({3})}, Ints({4})}, {}, &y).code(),
            ErrorCode::kShapeMismatch);
  EXPECT_EQ(RunOne("Expand", 13, {OpInput{Iota({3})}, OpInput{MakeInt64({1}, {3}), false}}, {}, &y)
                .code(),
            ErrorCode::kMalformedModel);
}

TEST(Tile, RepeatsEveryDim) {
  Tensor y;
  ASSERT_TRUE(
      RunOne("Tile", 13, {OpInput{MakeFloat({2, 2}, {1, 2, 3, 4})}, Ints({2, 3})}, {}, &y).ok());
  EXPECT_EQ(y.shape, (Shape{4, 6}));
  EXPECT_EQ(Values<float>(y), (std::vector<float>{1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4,
                                                  1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4}));
  ASSERT_TRUE(RunOne("Tile", 6, {OpInput{Iota({2, 1, 3})}, Ints({1, 2, 0})}, {}, &y).ok());
  EXPECT_EQ(y.shape, (Shape{2, 2, 0}));
  EXPECT_EQ(RunOne("Tile", 13, {OpInput{Iota({2})}, Ints({1, 1})}, {}, &y).code(),
            ErrorCode::kMalformedModel);
  EXPECT_EQ(RunOne("Tile", 13, {OpInput{Iota({2})}, Ints({-1})}, {}, &y).code(),
            ErrorCode::kMalformedModel);
}

// ---- ConstantOfShape / Range

TEST(ConstantOfShape, DefaultAndValue) {
  Tensor y;
  ASSERT_TRUE(RunOne("ConstantOfShape", 9, {Ints({2, 3})}, {}, &y).ok());
  EXPECT_EQ(y.dtype, DType::kFloat32);
  EXPECT_EQ(Values<float>(y), std::vector<float>(6, 0.f));
  Attribute value;
  value.type = Attribute::Type::kTensor;
  value.t = MakeInt64({1}, {7});
  ASSERT_TRUE(RunOne("ConstantOfShape", 20, {Ints({3})}, {{"value", value}}, &y).ok());
  EXPECT_EQ(y.dtype, DType::kInt64);
  EXPECT_EQ(Values<int64_t>(y), (std::vector<int64_t>{7, 7, 7}));
  ASSERT_TRUE(RunOne("ConstantOfShape", 9, {Ints({})}, {}, &y).ok());
  EXPECT_EQ(y.shape, Shape{});
  ASSERT_TRUE(RunOne("ConstantOfShape", 9, {Ints({0, 2})}, {}, &y).ok());
  EXPECT_EQ(y.numel(), 0);
  EXPECT_EQ(RunOne("ConstantOfShape", 9, {Ints({-1})}, {}, &y).code(), ErrorCode::kMalformedModel);
  EXPECT_EQ(RunOne("ConstantOfShape", 9, {OpInput{MakeInt64({1}, {2}), false}}, {}, &y).code(),
            ErrorCode::kMalformedModel);
}

TEST(Range, FloatAndIntegers) {
  Tensor y;
  ASSERT_TRUE(RunOne("Range", 11,
                     {OpInput{MakeFloat({}, {1}), true}, OpInput{MakeFloat({}, {2}), true},
                      OpInput{MakeFloat({}, {0.3f}), true}},
                     {}, &y)
                  .ok());
  ASSERT_EQ(y.shape, (Shape{4}));
  EXPECT_FLOAT_EQ(y.ptr<float>()[3], 1.9f);
  ASSERT_TRUE(RunOne("Range", 11, {Const({}, {10}), Const({}, {4}), Const({}, {-3})}, {}, &y).ok());
  EXPECT_EQ(Values<int64_t>(y), (std::vector<int64_t>{10, 7}));
  ASSERT_TRUE(RunOne("Range", 11, {Const({}, {0}), Const({}, {-5}), Const({}, {1})}, {}, &y).ok());
  EXPECT_EQ(y.shape, (Shape{0}));
  EXPECT_EQ(RunOne("Range", 11, {Const({}, {0}), Const({}, {5}), Const({}, {0})}, {}, &y).code(),
            ErrorCode::kMalformedModel);
  EXPECT_EQ(RunOne("Range", 11,
                   {Const({}, {0}), OpInput{MakeInt64({}, {5}), false}, Const({}, {1})}, {}, &y)
                .code(),
            ErrorCode::kMalformedModel);
}

}  // namespace
}  // namespace webnx::testing
