// Constant, Identity, Dropout and Cast (kernels/misc.cc).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "tests/unit/op_runner.h"

namespace webnx::testing {
namespace {

template <typename T>
std::vector<T> Values(const Tensor& t) {
  return std::vector<T>(t.ptr<T>(), t.ptr<T>() + t.numel());
}

Tensor MakeBool(const Shape& shape, const std::vector<bool>& values) {
  Tensor t;
  EXPECT_TRUE(Tensor::Allocate(DType::kBool, shape, &t).ok());
  for (size_t i = 0; i < values.size(); ++i) t.ptr<bool>()[i] = values[i];
  return t;
}

Tensor MakeInt32(const Shape& shape, const std::vector<int32_t>& values) {
  Tensor t;
  EXPECT_TRUE(Tensor::Allocate(DType::kInt32, shape, &t).ok());
  std::copy(values.begin(), values.end(), t.ptr<int32_t>());
  return t;
}

Status RunOne(const std::string& op, int opset, const std::vector<OpInput>& inputs,
              const std::map<std::string, Attribute>& attrs, Tensor* out) {
  std::vector<Tensor> outs;
  Status s = RunOp(op, opset, inputs, attrs, 1, &outs);
  if (s.ok()) *out = outs[0];
  return s;
}

Attribute TensorAttr(const Tensor& t) {
  Attribute a;
  a.type = Attribute::Type::kTensor;
  a.t = t;
  return a;
}

// ---- Constant

TEST(Constant, ValueTensor) {
  Tensor y;
  ASSERT_TRUE(
      RunOne("Constant", 13, {}, {{"value", TensorAttr(MakeFloat({2}, {1.5f, -2}))}}, &y).ok());
  EXPECT_EQ(y.shape, (Shape{2}));
  EXPECT_EQ(Values<float>(y), (std::vector<float>{1.5f, -2}));
  ASSERT_TRUE(RunOne("Constant", 9, {}, {{"value", TensorAttr(MakeInt64({}, {42}))}}, &y).ok());
  EXPECT_EQ(y.dtype, DType::kInt64);
  EXPECT_EQ(y.ptr<int64_t>()[0], 42);
}

TEST(Constant, ScalarAndListAttributesFrom12) {
  Tensor y;
  ASSERT_TRUE(RunOne("Constant", 12, {}, {{"value_float", FloatAttr(2.5f)}}, &y).ok());
  EXPECT_EQ(y.shape, Shape{});
  EXPECT_EQ(y.ptr<float>()[0], 2.5f);
  ASSERT_TRUE(RunOne("Constant", 13, {}, {{"value_floats", FloatsAttr({1, 2, 3})}}, &y).ok());
  EXPECT_EQ(Values<float>(y), (std::vector<float>{1, 2, 3}));
  ASSERT_TRUE(RunOne("Constant", 19, {}, {{"value_int", IntAttr(-4)}}, &y).ok());
  EXPECT_EQ(y.dtype, DType::kInt64);
  EXPECT_EQ(y.ptr<int64_t>()[0], -4);
  ASSERT_TRUE(RunOne("Constant", 13, {}, {{"value_ints", IntsAttr({4, 5})}}, &y).ok());
  EXPECT_EQ(Values<int64_t>(y), (std::vector<int64_t>{4, 5}));
  // value_int is not an attribute of Constant-11.
  EXPECT_EQ(RunOne("Constant", 11, {}, {{"value_int", IntAttr(1)}}, &y).code(),
            ErrorCode::kMalformedModel);
}

TEST(Constant, Errors) {
  Tensor y;
  Attribute sparse;
  sparse.type = Attribute::Type::kUndefined;
  EXPECT_EQ(RunOne("Constant", 13, {}, {{"sparse_value", sparse}}, &y).code(),
            ErrorCode::kUnsupportedOperator);
  EXPECT_EQ(RunOne("Constant", 13, {}, {{"value_string", StringAttr("x")}}, &y).code(),
            ErrorCode::kUnsupportedOperator);
  EXPECT_EQ(RunOne("Constant", 13, {}, {}, &y).code(), ErrorCode::kMalformedModel);
  EXPECT_EQ(
      RunOne("Constant", 13, {}, {{"value_int", IntAttr(1)}, {"value_float", FloatAttr(1)}}, &y)
          .code(),
      ErrorCode::kMalformedModel);
  Tensor undefined;
  EXPECT_EQ(RunOne("Constant", 13, {}, {{"value", TensorAttr(undefined)}}, &y).code(),
            ErrorCode::kUnsupportedDtype);
}

// ---- Identity / Dropout

TEST(Identity, CopiesAnyDtype) {
  Tensor y;
  ASSERT_TRUE(RunOne("Identity", 21, {OpInput{MakeBool({2}, {true, false})}}, {}, &y).ok());
  EXPECT_EQ(Values<bool>(y), (std::vector<bool>{true, false}));
  ASSERT_TRUE(RunOne("Identity", 1, {OpInput{MakeInt64({2, 1}, {3, 4})}}, {}, &y).ok());
  EXPECT_EQ(y.shape, (Shape{2, 1}));
  EXPECT_EQ(Values<int64_t>(y), (std::vector<int64_t>{3, 4}));
}

TEST(Dropout, InferenceIsIdentityWithOptionalMask) {
  Tensor x = MakeFloat({3}, {1, -2, 3});
  std::vector<Tensor> out;
  for (int opset : {7, 10, 12, 13}) {
    ASSERT_TRUE(RunOp("Dropout", opset, {OpInput{x}}, {{"ratio", FloatAttr(0.3f)}}, 2, &out).ok())
        << opset;
    EXPECT_EQ(Values<float>(out[0]), Values<float>(x));
    if (opset >= 10) {
      EXPECT_EQ(out[1].dtype, DType::kBool);
      EXPECT_EQ(Values<bool>(out[1]), (std::vector<bool>{true, true, true}));
    } else {
      EXPECT_EQ(out[1].dtype, DType::kFloat32);  // Dropout-7's mask has the input's type
      EXPECT_EQ(Values<float>(out[1]), (std::vector<float>{1, 1, 1}));
    }
  }
  // Legacy is_test=0 is still served as inference.
  ASSERT_TRUE(RunOp("Dropout", 6, {OpInput{x}}, {{"is_test", IntAttr(0)}}, 1, &out).ok());
  EXPECT_EQ(Values<float>(out[0]), Values<float>(x));
}

TEST(Dropout, TrainingModeInputs) {
  Tensor x = MakeFloat({2}, {1, 2});
  Tensor ratio = MakeFloat({}, {0.5f});
  Tensor zero = MakeFloat({}, {0});
  Tensor on = MakeBool({}, {true});
  Tensor off = MakeBool({}, {false});
  std::vector<Tensor> out;
  // training_mode false (constant or at run time): identity.
  ASSERT_TRUE(
      RunOp("Dropout", 13, {OpInput{x}, OpInput{ratio, true}, OpInput{off, true}}, {}, 2, &out)
          .ok());
  EXPECT_EQ(Values<float>(out[0]), Values<float>(x));
  ASSERT_TRUE(RunOp("Dropout", 12, {OpInput{x}, OpInput{ratio}, OpInput{off}}, {}, 1, &out).ok());
  // training_mode true with ratio 0 is the identity too.
  ASSERT_TRUE(
      RunOp("Dropout", 13, {OpInput{x}, OpInput{zero, true}, OpInput{on, true}}, {}, 2, &out).ok());
  EXPECT_EQ(Values<bool>(out[1]), (std::vector<bool>{true, true}));
  // Real training is refused: at plan time when known, at run time otherwise.
  EXPECT_EQ(RunOp("Dropout", 13, {OpInput{x}, OpInput{ratio, true}, OpInput{on, true}}, {}, 1, &out)
                .code(),
            ErrorCode::kUnsupportedOperator);
  EXPECT_EQ(RunOp("Dropout", 13, {OpInput{x}, OpInput{Tensor(), false, false}, OpInput{on, true}},
                  {}, 1, &out)
                .code(),
            ErrorCode::kUnsupportedOperator);
  EXPECT_EQ(RunOp("Dropout", 13, {OpInput{x}, OpInput{ratio}, OpInput{on}}, {}, 1, &out).code(),
            ErrorCode::kInvalidInput);
}

// ---- Cast

Status Cast(int opset, const Tensor& x, int64_t to, Tensor* y) {
  return RunOne("Cast", opset, {OpInput{x}}, {{"to", IntAttr(to)}}, y);
}

TEST(Cast, BetweenSupportedDtypes) {
  Tensor y;
  Tensor f = MakeFloat({6}, {1.9f, -1.9f, 0, 0.5f, NAN, 17179869184.f});  // 2^34
  ASSERT_TRUE(Cast(13, f, 7, &y).ok());
  EXPECT_EQ(y.dtype, DType::kInt64);
  EXPECT_EQ(Values<int64_t>(y), (std::vector<int64_t>{1, -1, 0, 0, 0, int64_t{1} << 34}));
  ASSERT_TRUE(Cast(13, f, 6, &y).ok());
  EXPECT_EQ(Values<int32_t>(y), (std::vector<int32_t>{1, -1, 0, 0, 0, INT32_MAX}));
  ASSERT_TRUE(Cast(9, f, 9, &y).ok());
  EXPECT_EQ(Values<bool>(y), (std::vector<bool>{true, true, false, true, true, true}));
  ASSERT_TRUE(Cast(19, MakeInt64({3}, {-1, 0, (int64_t{1} << 32) + 5}), 6, &y).ok());
  EXPECT_EQ(Values<int32_t>(y), (std::vector<int32_t>{-1, 0, 5}));
  ASSERT_TRUE(Cast(21, MakeInt32({2}, {-7, 8}), 1, &y).ok());
  EXPECT_EQ(Values<float>(y), (std::vector<float>{-7, 8}));
  ASSERT_TRUE(Cast(6, MakeBool({2}, {true, false}), 1, &y).ok());
  EXPECT_EQ(Values<float>(y), (std::vector<float>{1, 0}));
  ASSERT_TRUE(Cast(13, MakeInt64({2}, {3, 0}), 7, &y).ok());
  EXPECT_EQ(Values<int64_t>(y), (std::vector<int64_t>{3, 0}));
}

TEST(Cast, UnsupportedTargetNamesTheNode) {
  Tensor y;
  for (int64_t to : {16, 17, 8, 14, 999, -1}) {
    Status s = Cast(13, MakeFloat({1}, {1}), to, &y);
    EXPECT_EQ(s.code(), ErrorCode::kUnsupportedDtype) << to;
    EXPECT_NE(s.message().find("test_Cast"), std::string::npos) << s.message();
  }
  EXPECT_NE(Cast(13, MakeFloat({1}, {1}), 16, &y).message().find("BFLOAT16"), std::string::npos);
  EXPECT_EQ(RunOne("Cast", 13, {OpInput{MakeFloat({1}, {1})}}, {}, &y).code(),
            ErrorCode::kMalformedModel);
}

// CastLike converts as Cast does, to the dtype of its second input (whose values it ignores).
TEST(Cast, CastLikeTakesTheSecondInputsDtype) {
  Tensor y;
  const Tensor f = MakeFloat({3}, {2.7f, -2.7f, NAN});
  ASSERT_TRUE(RunOne("CastLike", 15, {OpInput{f}, OpInput{MakeInt32({1}, {0})}}, {}, &y).ok());
  EXPECT_EQ(y.dtype, DType::kInt32);
  EXPECT_EQ(Values<int32_t>(y), (std::vector<int32_t>{2, -2, 0}));
  ASSERT_TRUE(RunOne("CastLike", 21, {OpInput{f}, OpInput{MakeBool({0}, {})}}, {}, &y).ok());
  EXPECT_EQ(Values<bool>(y), (std::vector<bool>{true, true, true}));
  EXPECT_EQ(RunOne("CastLike", 15, {OpInput{f}}, {}, &y).code(), ErrorCode::kMalformedModel);
}

TEST(Cast, Opset1TakesATypeName) {
  Tensor y;
  ASSERT_TRUE(
      RunOne("Cast", 1, {OpInput{MakeFloat({1}, {2.7f})}}, {{"to", StringAttr("INT32")}}, &y).ok());
  EXPECT_EQ(y.dtype, DType::kInt32);
  EXPECT_EQ(y.ptr<int32_t>()[0], 2);
}

}  // namespace
}  // namespace webnx::testing
