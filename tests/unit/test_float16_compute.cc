// float16 models computed in float32 (core/passes/float16_in_float32.h): a float16 model gives
// bitwise what its float32 twin (the same float16-exact weights and input) gives, rounded once
// to float16 at its outputs; the session still takes and returns float16.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/float16.h"
#include "tests/unit/model_builder.h"
#include "tests/unit/op_runner.h"

namespace webnx::testing {
namespace {

onnx::TensorProto HalfTensor(const std::vector<int64_t>& dims, const std::vector<float>& values) {
  onnx::TensorProto t;
  for (int64_t d : dims) t.add_dims(d);
  t.set_data_type(kOnnxFloat16);
  std::string raw;
  for (float v : values) {
    const uint16_t h = FloatToHalf(v);
    raw.append(reinterpret_cast<const char*>(&h), 2);
  }
  t.set_raw_data(raw);
  return t;
}

// Values float16 holds exactly, so both twins start from the same numbers.
std::vector<float> HalfExact(size_t n, uint32_t seed, float lo, float hi) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = HalfToFloat(FloatToHalf(dist(rng)));
  return v;
}

Tensor HalfInput(const Shape& shape, const std::vector<float>& values) {
  Tensor t;
  EXPECT_TRUE(Tensor::Allocate(DType::kFloat16, shape, &t).ok());
  for (size_t i = 0; i < values.size(); ++i) t.ptr<uint16_t>()[i] = FloatToHalf(values[i]);
  return t;
}

// Conv (weights and bias), Relu and a residual Add: in float16 or in float32.
std::string ConvNet(bool half, const std::vector<float>& w, const std::vector<float>& b) {
  const int32_t type = half ? kOnnxFloat16 : kOnnxFloat;
  ModelBuilder mb(13);
  mb.Input("x", type, {1, 4, 6, 5});
  if (half) {
    mb.Initializer("w", HalfTensor({4, 4, 3, 3}, w));
    mb.Initializer("b", HalfTensor({4}, b));
  } else {
    mb.FloatInit("w", {4, 4, 3, 3}, w);
    mb.FloatInit("b", {4}, b);
  }
  mb.Node("Conv", {"x", "w", "b"}, {"c"}).Ints("pads", {1, 1, 1, 1});
  mb.Node("Relu", {"c"}, {"r"});
  mb.Node("Add", {"r", "x"}, {"y"});
  mb.Output("y", type, {1, 4, 6, 5});
  return mb.Bytes();
}

TEST(Float16Compute, AConvNetIsItsFloat32TwinRoundedOnce) {
  const std::vector<float> w = HalfExact(4 * 4 * 9, 1, -0.5f, 0.5f);
  const std::vector<float> b = HalfExact(4, 2, -1.f, 1.f);
  const std::vector<float> x = HalfExact(4 * 6 * 5, 3, -2.f, 2.f);
  std::unique_ptr<Session> half, single;
  ASSERT_TRUE(CreateSession(ConvNet(true, w, b), &half).ok());
  ASSERT_TRUE(CreateSession(ConvNet(false, w, b), &single).ok());
  EXPECT_EQ(half->inputs()[0].dtype, DType::kFloat16);
  EXPECT_EQ(half->outputs()[0].dtype, DType::kFloat16);
  EXPECT_EQ(half->stats().plans_built, 1u);  // fixed float16 shapes: planned by create()
  std::vector<const Tensor*> half_out, single_out;
  ASSERT_TRUE(half->Run({{"x", HalfInput({1, 4, 6, 5}, x)}}, &half_out).ok());
  ASSERT_TRUE(single->Run({{"x", MakeFloat({1, 4, 6, 5}, x)}}, &single_out).ok());
  ASSERT_EQ(half_out[0]->dtype, DType::kFloat16);
  EXPECT_EQ(half->stats().plans_built, 1u);
  for (int64_t i = 0; i < single_out[0]->numel(); ++i) {
    ASSERT_EQ(half_out[0]->ptr<uint16_t>()[i], FloatToHalf(single_out[0]->ptr<float>()[i])) << i;
  }
  // The boundary is float16: a float32 feed is refused, naming the dtypes.
  const Status s = half->Run({{"x", MakeFloat({1, 4, 6, 5}, x)}}, &half_out);
  EXPECT_EQ(s.code(), ErrorCode::kInvalidInput);
  EXPECT_NE(s.message().find("float16"), std::string::npos) << s.message();
}

// Cast to float16 inside the graph, a float16 Constant, EyeLike making float16 and an output
// that is a float16 initializer: all float32 inside, the outputs rounded once.
TEST(Float16Compute, CastsConstantsAndDTypeAttributes) {
  ModelBuilder mb(13);
  mb.Input("a", kOnnxFloat, {3, 3});
  mb.Initializer("k", HalfTensor({2}, {0.5f, 65504.f}));
  mb.Node("Cast", {"a"}, {"h"}).Int("to", kOnnxFloat16);
  mb.Node("Constant", {}, {"c"})
      .TensorAttr("value", HalfTensor({3, 3}, std::vector<float>(9, 1.f)));
  mb.Node("Add", {"h", "c"}, {"s"});
  mb.Node("EyeLike", {"a"}, {"e"}).Int("dtype", kOnnxFloat16);
  mb.Node("Mul", {"s", "e"}, {"t"});
  mb.Node("Cast", {"t"}, {"back"}).Int("to", kOnnxFloat);
  mb.Output("t", kOnnxFloat16, {3, 3});
  mb.Output("h", kOnnxFloat16, {3, 3});
  mb.Output("k", kOnnxFloat16, {2});
  mb.Output("back", kOnnxFloat, {3, 3});
  std::unique_ptr<Session> session;
  ASSERT_TRUE(CreateSession(mb.Bytes(), &session).ok());
  const float third = 1.f / 3.f;
  std::vector<float> a(9, third);
  a[4] = 70000.f;  // past float16's range: infinity once rounded, finite inside
  std::vector<const Tensor*> out;
  ASSERT_TRUE(session->Run({{"a", MakeFloat({3, 3}, a)}}, &out).ok());
  ASSERT_EQ(out.size(), 4u);
  for (int i = 0; i < 9; ++i) {
    const float diagonal = i % 4 == 0 ? a[i] + 1.f : 0.f;
    EXPECT_EQ(out[0]->ptr<uint16_t>()[i], FloatToHalf(diagonal)) << i;
    EXPECT_EQ(out[1]->ptr<uint16_t>()[i], FloatToHalf(a[i])) << i;
    EXPECT_EQ(out[3]->ptr<float>()[i], diagonal) << i;  // never rounded to float16
  }
  EXPECT_EQ(out[2]->dtype, DType::kFloat16);
  EXPECT_EQ(out[2]->ptr<uint16_t>()[0], FloatToHalf(0.5f));
  EXPECT_EQ(out[2]->ptr<uint16_t>()[1], FloatToHalf(65504.f));
}

// A float16 If: its branches' constants and outputs are retyped with the graph.
TEST(Float16Compute, SubgraphsAreRetypedToo) {
  ModelBuilder then_b(13), else_b(13);
  then_b.Node("Add", {"x", "x"}, {"t"});
  then_b.Output("t", kOnnxFloat16, {2});
  else_b.Node("Constant", {}, {"e"}).TensorAttr("value", HalfTensor({2}, {-1.5f, 2.25f}));
  else_b.Output("e", kOnnxFloat16, {2});
  ModelBuilder mb(13);
  mb.Input("c", kOnnxBool, {});
  mb.Input("x", kOnnxFloat16, {2});
  mb.Node("If", {"c"}, {"y"})
      .Graph("then_branch", then_b.graph())
      .Graph("else_branch", else_b.graph());
  mb.Output("y", kOnnxFloat16, {2});
  std::unique_ptr<Session> session;
  ASSERT_TRUE(CreateSession(mb.Bytes(), &session).ok());
  for (const bool c : {true, false}) {
    Tensor cond;
    ASSERT_TRUE(Tensor::Allocate(DType::kBool, {}, &cond).ok());
    cond.ptr<bool>()[0] = c;
    std::vector<const Tensor*> out;
    const Status s = session->Run({{"c", cond}, {"x", HalfInput({2}, {0.75f, 40000.f})}}, &out);
    ASSERT_TRUE(s.ok()) << s.ToString();
    ASSERT_EQ(out[0]->dtype, DType::kFloat16);
    EXPECT_EQ(out[0]->ptr<uint16_t>()[0], FloatToHalf(c ? 1.5f : -1.5f));
    EXPECT_EQ(out[0]->ptr<uint16_t>()[1], FloatToHalf(c ? 80000.f : 2.25f));  // inf when c
  }
}

}  // namespace
}  // namespace webnx::testing
