// com.microsoft's QOperator element-wise ops (kernels/qlinear_ops.cc) against a scalar
// reference on odd shapes, and their errors. tests/node/qlinear-ops.test.mjs compares them with
// onnxruntime-node.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "tests/unit/model_builder.h"
#include "tests/unit/op_runner.h"

namespace webnx::testing {
namespace {

onnx::TensorProto Bytes(int32_t type, const std::vector<int64_t>& dims,
                        const std::vector<int>& values) {
  onnx::TensorProto t;
  for (int64_t d : dims) t.add_dims(d);
  t.set_data_type(type);
  std::string raw;
  for (int v : values) raw.push_back(static_cast<char>(v));
  t.set_raw_data(raw);
  return t;
}

void Params(ModelBuilder& mb, const std::string& prefix, int32_t type, float scale, int zp) {
  mb.FloatInit(prefix + "_scale", {}, {scale});
  mb.Initializer(prefix + "_zp", Bytes(type, {}, {zp}));
}

uint8_t Reference(float v, float scale, int zp) {
  const double q = std::nearbyint(v / scale) + zp;
  return static_cast<uint8_t>(q < 0 ? 0 : q > 255 ? 255 : q);
}

TEST(QLinearOps, AddBroadcastsOddShapesAsTheScalarReference) {
  ModelBuilder mb(13);
  mb.Opset("com.microsoft", 1);
  mb.Input("a", kOnnxUint8, {3, 1, 5});
  mb.Input("b", kOnnxUint8, {4, 1});
  Params(mb, "a", kOnnxUint8, 0.05f, 120);
  Params(mb, "b", kOnnxUint8, 0.031f, 131);
  Params(mb, "c", kOnnxUint8, 0.07f, 128);
  mb.Node("QLinearAdd", {"a", "a_scale", "a_zp", "b", "b_scale", "b_zp", "c_scale", "c_zp"}, {"c"})
      .Domain("com.microsoft");
  mb.Output("c", kOnnxUint8, {3, 4, 5});
  std::unique_ptr<Session> session;
  ASSERT_TRUE(CreateSession(mb.Bytes(), &session).ok());
  Tensor a, b;
  ASSERT_TRUE(Tensor::Allocate(DType::kUint8, {3, 1, 5}, &a).ok());
  ASSERT_TRUE(Tensor::Allocate(DType::kUint8, {4, 1}, &b).ok());
  for (int i = 0; i < 15; ++i) a.ptr<uint8_t>()[i] = static_cast<uint8_t>(i * 17);
  for (int i = 0; i < 4; ++i) b.ptr<uint8_t>()[i] = static_cast<uint8_t>(255 - i * 60);
  std::vector<const Tensor*> out;
  ASSERT_TRUE(session->Run({{"a", a}, {"b", b}}, &out).ok());
  ASSERT_EQ(out[0]->shape, (Shape{3, 4, 5}));
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 4; ++j) {
      for (int k = 0; k < 5; ++k) {
        const float x = (a.ptr<uint8_t>()[i * 5 + k] - 120) * 0.05f;
        const float y = (b.ptr<uint8_t>()[j] - 131) * 0.031f;
        EXPECT_EQ(out[0]->ptr<uint8_t>()[(i * 4 + j) * 5 + k], Reference(x + y, 0.07f, 128));
      }
    }
  }
}

Status CreateConcat(const std::vector<D>& second, int32_t second_type) {
  ModelBuilder mb(13);
  mb.Opset("com.microsoft", 1);
  mb.Input("x0", kOnnxInt8, {2, 3});
  mb.Input("x1", second_type, second);
  Params(mb, "y", kOnnxInt8, 0.1f, 0);
  Params(mb, "x0", kOnnxInt8, 0.1f, 0);
  Params(mb, "x1", second_type, 0.2f, 1);
  mb.Node("QLinearConcat",
          {"y_scale", "y_zp", "x0", "x0_scale", "x0_zp", "x1", "x1_scale", "x1_zp"}, {"y"})
      .Domain("com.microsoft")
      .Int("axis", 1);
  mb.Output("y", kOnnxInt8, {});
  std::unique_ptr<Session> session;
  WEBNX_RETURN_IF_ERROR(CreateSession(mb.Bytes(), &session));
  Tensor x0, x1;
  WEBNX_RETURN_IF_ERROR(Tensor::Allocate(DType::kInt8, {2, 3}, &x0));
  Shape shape;
  for (const D& d : second) shape.push_back(d.value);
  const DType dtype = second_type == kOnnxInt8 ? DType::kInt8 : DType::kUint8;
  WEBNX_RETURN_IF_ERROR(Tensor::Allocate(dtype, shape, &x1));
  for (int i = 0; i < 6; ++i) x0.ptr<int8_t>()[i] = static_cast<int8_t>(i - 3);
  for (int64_t i = 0; i < x1.numel(); ++i)
    static_cast<int8_t*>(x1.data)[i] = static_cast<int8_t>(-i);
  std::vector<const Tensor*> out;
  WEBNX_RETURN_IF_ERROR(session->Run({{"x0", x0}, {"x1", x1}}, &out));
  // x0 as it is (same scale), x1 requantized: (v - 1) * 0.2 / 0.1.
  const std::vector<int8_t> want = {-3, -2, -1, -2, -4, 0, 1, 2, -6, -8};
  EXPECT_EQ(out[0]->shape, (Shape{2, 5}));
  EXPECT_EQ(std::vector<int8_t>(out[0]->ptr<int8_t>(), out[0]->ptr<int8_t>() + 10), want);
  return Status::Ok();
}

TEST(QLinearOps, ConcatRequantizesEachInputIntoTheOutputs) {
  EXPECT_TRUE(CreateConcat({2, 2}, kOnnxInt8).ok());
}

TEST(QLinearOps, ConcatErrorsNameTheShapesAndDTypes) {
  Status s = CreateConcat({3, 2}, kOnnxInt8);
  EXPECT_EQ(s.code(), ErrorCode::kShapeMismatch);
  EXPECT_NE(s.message().find("[3,2]"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("QLinearConcat"), std::string::npos) << s.message();
  s = CreateConcat({2, 2}, kOnnxUint8);
  EXPECT_EQ(s.code(), ErrorCode::kMalformedModel);
  EXPECT_NE(s.message().find("uint8"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace webnx::testing
