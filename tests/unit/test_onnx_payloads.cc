// Initializer payloads left in the model's bytes: the skeleton protobuf parses to the same model
// minus those bytes, the graph's tensors point into the bytes (aligned), and anything this walk
// does not accept falls back to protobuf's own parse.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/loaders/onnx_loader.h"
#include "core/loaders/onnx_payloads.h"
#include "model_builder.h"

namespace webnx::testing {
namespace {

std::vector<float> Ramp(size_t n, float scale) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = scale * static_cast<float>(i) - 3.f;
  return v;
}

// Two large raw weights, a small raw bias, one weight in float_data, and a node.
ModelBuilder WeightsModel() {
  ModelBuilder b;
  b.proto().set_producer_name("payload-test");  // bytes before the graph, as real exports have
  b.Input("x", kOnnxFloat, {1, 7});
  b.Output("y", kOnnxFloat, {1, 5});
  b.FloatInit("w_large", {5, 7}, Ramp(35, 0.5f));
  b.FloatInit("bias", {5}, Ramp(5, 1.f));  // 20 bytes: stays in the skeleton
  b.FloatInit("typed", {3, 3}, Ramp(9, 2.f), /*raw=*/false);
  b.FloatInit("w_odd", {13, 11}, Ramp(143, 0.25f));
  b.Node("Gemm", {"x", "w_large", "bias"}, {"y"}).Int("transB", 1);
  return b;
}

std::shared_ptr<uint8_t> Owned(const std::string& bytes) {
  std::shared_ptr<uint8_t> owned(static_cast<uint8_t*>(std::malloc(bytes.size())), std::free);
  std::memcpy(owned.get(), bytes.data(), bytes.size());
  return owned;
}

void ExpectValues(const Tensor& t, const std::vector<float>& want) {
  ASSERT_EQ(t.numel(), static_cast<int64_t>(want.size()));
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(t.ptr<float>()[i], want[i]) << i;
}

TEST(OnnxPayloads, SkeletonIsTheModelWithoutTheLargeRawData) {
  const ModelBuilder b = WeightsModel();
  const std::string bytes = b.Bytes();
  const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  DetachedPayloads payloads;
  ASSERT_TRUE(DetachInitializerPayloads(data, bytes.size(), 64, &payloads));
  ASSERT_EQ(payloads.initializers.size(), 4u);
  EXPECT_TRUE(payloads.initializers[0].detached);
  EXPECT_FALSE(payloads.initializers[1].detached);  // under 64 bytes
  EXPECT_FALSE(payloads.initializers[2].detached);  // no raw_data
  EXPECT_TRUE(payloads.initializers[3].detached);
  EXPECT_EQ(payloads.detached_bytes, (35u + 143u) * 4u);

  onnx::ModelProto skeleton;
  ASSERT_TRUE(skeleton.ParseFromString(payloads.skeleton));
  onnx::ModelProto want = b.proto();
  for (int i : {0, 3}) {
    const auto& entry = payloads.initializers[i];
    EXPECT_EQ(bytes.substr(entry.raw.offset, entry.raw.size),
              want.graph().initializer(i).raw_data());
    want.mutable_graph()->mutable_initializer(i)->clear_raw_data();
  }
  EXPECT_EQ(skeleton.SerializeAsString(), want.SerializeAsString());
}

TEST(OnnxPayloads, GraphTensorsPointIntoTheBytesAligned) {
  const std::string bytes = WeightsModel().Bytes();
  for (size_t shift = 0; shift < 16; ++shift) {  // every placement of the buffer
    std::shared_ptr<uint8_t> owned(static_cast<uint8_t*>(std::malloc(bytes.size() + 16)),
                                   std::free);
    std::memcpy(owned.get() + shift, bytes.data(), bytes.size());
    std::shared_ptr<uint8_t> model(owned, owned.get() + shift);
    owned.reset();
    Graph g;
    Status s = LoadOnnxModel(model, bytes.size(), SessionLimits(), &g);
    ASSERT_TRUE(s.ok()) << s.ToString();
    for (const char* name : {"w_large", "w_odd"}) {
      const Tensor& t = g.initializers.at(name);
      const auto* p = static_cast<const uint8_t*>(t.data);
      EXPECT_TRUE(p >= model.get() && p < model.get() + bytes.size()) << name << " was copied";
      EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 16, 0u) << name << " shift " << shift;
    }
    ExpectValues(g.initializers.at("w_large"), Ramp(35, 0.5f));
    ExpectValues(g.initializers.at("bias"), Ramp(5, 1.f));
    ExpectValues(g.initializers.at("typed"), Ramp(9, 2.f));
    ExpectValues(g.initializers.at("w_odd"), Ramp(143, 0.25f));
    // The graph's tensors keep the bytes alive once the caller lets go.
    const std::vector<float> want = Ramp(143, 0.25f);
    model.reset();
    ExpectValues(g.initializers.at("w_odd"), want);
  }
}

TEST(OnnxPayloads, DetachedRawDataOfTheWrongSizeIsReported) {
  ModelBuilder b = WeightsModel();
  b.graph().mutable_initializer(3)->mutable_raw_data()->append(8, '\0');  // two floats too many
  const std::string bytes = b.Bytes();
  Graph g;
  Status s = LoadOnnxModel(Owned(bytes), bytes.size(), SessionLimits(), &g);
  EXPECT_EQ(s.code(), ErrorCode::kMalformedModel);
  EXPECT_NE(s.message().find("initializer 'w_odd' stores 145 values"), std::string::npos)
      << s.message();
}

TEST(OnnxPayloads, AdoptsFloat16RawAsItsBits) {
  ModelBuilder b = WeightsModel();
  onnx::TensorProto half;
  half.set_data_type(kOnnxFloat16);
  half.add_dims(64);
  half.set_raw_data(std::string(128, '\0'));
  half.mutable_raw_data()->replace(0, 2, std::string("\x00\x3c", 2));  // 1.0
  b.Initializer("half", half);
  const std::string bytes = b.Bytes();
  Graph g;
  Status s = LoadOnnxModel(Owned(bytes), bytes.size(), SessionLimits(), &g);
  ASSERT_TRUE(s.ok()) << s.ToString();
  const Tensor& t = g.initializers.at("half");
  EXPECT_EQ(t.dtype, DType::kFloat16);
  EXPECT_EQ(t.ptr<uint16_t>()[0], 0x3c00);
  EXPECT_EQ(t.ptr<uint16_t>()[63], 0);
}

std::string Tag(uint32_t number, uint32_t wire) {
  return std::string(1, static_cast<char>(number << 3 | wire));
}

std::string Field(uint32_t number, const std::string& payload) {
  return Tag(number, 2) + std::string(1, static_cast<char>(payload.size())) + payload;
}

TEST(OnnxPayloads, RejectsWhatProtobufWouldMergeOrCannotRead) {
  const std::string bytes = WeightsModel().Bytes();
  const auto walk = [](const std::string& b) {
    DetachedPayloads p;
    return DetachInitializerPayloads(reinterpret_cast<const uint8_t*>(b.data()), b.size(), 64, &p);
  };
  ASSERT_TRUE(walk(bytes));
  EXPECT_FALSE(walk(bytes.substr(0, bytes.size() - 1)));            // truncated
  EXPECT_FALSE(walk(bytes + Field(7, "")));                         // a second graph
  EXPECT_FALSE(walk(bytes + Tag(3, 3)));                            // a group
  EXPECT_FALSE(walk(bytes + Tag(0, 0) + std::string(1, '\0')));     // field number 0
  EXPECT_FALSE(walk(bytes + Tag(1, 0) + std::string(11, '\xff')));  // an endless varint
  // Two raw_data fields in one initializer (protobuf keeps the last).
  const std::string raw(10, '\x01');
  const std::string tensor = Field(8, "t") + Field(9, raw) + Field(9, raw);
  const std::string graph = Tag(5, 2) + std::string(1, static_cast<char>(tensor.size())) + tensor;
  const std::string model = Tag(7, 2) + std::string(1, static_cast<char>(graph.size())) + graph;
  EXPECT_FALSE(walk(model));
  // Weights mostly in typed fields: not worth the walk.
  ModelBuilder typed;
  typed.FloatInit("w", {1000}, Ramp(1000, 1.f), /*raw=*/false);
  typed.FloatInit("b", {20}, Ramp(20, 1.f));
  EXPECT_FALSE(walk(typed.Bytes()));
}

TEST(OnnxPayloads, ProtobufStillNamesWhatIsWrongWhenTheWalkRefuses) {
  const std::string bytes = WeightsModel().Bytes();
  const std::string truncated = bytes.substr(0, bytes.size() / 2);
  Graph g;
  Status s = LoadOnnxModel(Owned(truncated), truncated.size(), SessionLimits(), &g);
  EXPECT_EQ(s.code(), ErrorCode::kMalformedModel);
  EXPECT_NE(s.message().find("could not be parsed"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace webnx::testing
