// LoadOnnxModel (core/loaders/onnx_loader.cc) and SortAndValidateGraph (core/graph.cc) on
// models assembled with ModelBuilder.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <random>

#include "core/float16.h"
#include "core/loaders/onnx_loader.h"
#include "tests/unit/model_builder.h"
#include "tests/unit/op_runner.h"

namespace webnx::testing {
namespace {

uint32_t FloatBits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

bool HasSubstr(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

#define EXPECT_CODE(status, expected_code)                                \
  do {                                                                    \
    const ::webnx::Status _s = (status);                                  \
    EXPECT_EQ(_s.code(), (expected_code)) << "status: " << _s.ToString(); \
  } while (0)

// A small valid model: Y = Relu(X @ W + B) with X [N, 3], W [3, 2] (raw), B [2] (float_data).
ModelBuilder SmallModel(int64_t opset = 13) {
  ModelBuilder b(opset);
  b.Input("X", kOnnxFloat, {"N", 3});
  b.FloatInit("W", {3, 2}, {1, 2, 3, 4, 5, 6}, /*raw=*/true);
  b.FloatInit("B", {2}, {0.5f, -0.5f}, /*raw=*/false);
  b.Node("MatMul", {"X", "W"}, {"xw"}, "matmul");
  b.Node("Add", {"xw", "B"}, {"sum"}, "add");
  b.Node("Relu", {"sum"}, {"Y"});
  b.Output("Y", kOnnxFloat, {"N", 2});
  return b;
}

// Loads a model holding one initializer `tensor` named "T" (the graph just returns it).
Status LoadInitializer(const onnx::TensorProto& tensor, Graph* graph) {
  ModelBuilder b;
  b.Initializer("T", tensor);
  b.Node("Identity", {"T"}, {"Y"});
  b.Output("Y", kOnnxFloat, {});
  return LoadBytes(b.Bytes(), graph);
}

template <typename T>
std::vector<T> Values(const Tensor& t) {
  return std::vector<T>(t.ptr<T>(), t.ptr<T>() + t.numel());
}

// ---- A valid model reads back

TEST(Loader, ValidModelReadsBack) {
  ModelBuilder b(0);
  b.Opset("ai.onnx", 13).Opset("com.example", 2);
  b.proto().set_producer_name("unit-test-producer");
  auto* meta = b.proto().add_metadata_props();
  meta->set_key("author");
  meta->set_value("webnx");
  b.Input("X", kOnnxFloat, {"N", 3, D()});
  b.InputNoShape("mask", kOnnxBool);
  b.Input("idx", kOnnxInt64, {});
  b.FloatInit("W", {3, 2}, {1, 2, 3, 4, 5, 6});
  b.Int64Init("S", {2}, {-1, 6});
  // IR < 4 lists weights among the inputs too; those are not graph inputs.
  b.Input("W", kOnnxFloat, {3, 2});
  b.Node("Reshape", {"X", "S"}, {"r"}, "reshape")
      .Int("allowzero", 0)
      .Float("alpha", 0.25f)
      .String("mode", "fancy")
      .Ints("axes", {0, -1})
      .Floats("scales", {1.5f, 2.f})
      .TensorAttr("value", Int64Tensor({2}, {7, 8}));
  b.Node("Identity", {"r"}, {"Y"});  // unnamed: the loader names it
  b.Output("Y", kOnnxFloat, {"N", 6});
  b.Output("mask", kOnnxBool, {});

  Graph g;
  Status s = LoadBytes(b.Bytes(), &g);
  ASSERT_TRUE(s.ok()) << s.ToString();

  ASSERT_EQ(g.inputs.size(), 3u);
  EXPECT_EQ(g.inputs[0].name, "X");
  EXPECT_EQ(g.inputs[0].dtype, DType::kFloat32);
  ASSERT_TRUE(g.inputs[0].has_shape);
  ASSERT_EQ(g.inputs[0].dims.size(), 3u);
  EXPECT_FALSE(g.inputs[0].dims[0].fixed());
  EXPECT_EQ(g.inputs[0].dims[0].symbol, "N");
  EXPECT_TRUE(g.inputs[0].dims[1].fixed());
  EXPECT_EQ(g.inputs[0].dims[1].value, 3);
  EXPECT_TRUE(g.inputs[0].dims[1].symbol.empty());
  EXPECT_FALSE(g.inputs[0].dims[2].fixed());  // neither value nor param: unknown
  EXPECT_TRUE(g.inputs[0].dims[2].symbol.empty());
  EXPECT_EQ(g.inputs[1].name, "mask");
  EXPECT_EQ(g.inputs[1].dtype, DType::kBool);
  EXPECT_FALSE(g.inputs[1].has_shape);
  EXPECT_EQ(g.inputs[2].name, "idx");
  EXPECT_EQ(g.inputs[2].dtype, DType::kInt64);
  EXPECT_TRUE(g.inputs[2].has_shape);  // a scalar: rank 0 is known
  EXPECT_TRUE(g.inputs[2].dims.empty());

  ASSERT_EQ(g.outputs.size(), 2u);
  EXPECT_EQ(g.outputs[0].name, "Y");
  ASSERT_EQ(g.outputs[0].dims.size(), 2u);
  EXPECT_EQ(g.outputs[0].dims[0].symbol, "N");
  EXPECT_EQ(g.outputs[0].dims[1].value, 6);
  EXPECT_EQ(g.outputs[1].name, "mask");

  ASSERT_EQ(g.initializers.size(), 2u);
  const Tensor& w = g.initializers.at("W");
  EXPECT_EQ(w.dtype, DType::kFloat32);
  EXPECT_EQ(w.shape, (Shape{3, 2}));
  EXPECT_EQ(Values<float>(w), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  const Tensor& shape = g.initializers.at("S");
  EXPECT_EQ(shape.dtype, DType::kInt64);
  EXPECT_EQ(Values<int64_t>(shape), (std::vector<int64_t>{-1, 6}));

  EXPECT_EQ(g.opsets.size(), 2u);
  EXPECT_EQ(g.opsets.at(""), 13);  // "ai.onnx" is the default domain
  EXPECT_EQ(g.opsets.at("com.example"), 2);
  EXPECT_EQ(g.producer, "unit-test-producer");
  EXPECT_EQ(g.metadata.at("author"), "webnx");

  ASSERT_EQ(g.nodes.size(), 2u);
  const Node& reshape = g.nodes[0];
  EXPECT_EQ(reshape.name, "reshape");
  EXPECT_EQ(reshape.op_type, "Reshape");
  EXPECT_EQ(reshape.domain, "");
  EXPECT_EQ(reshape.inputs, (std::vector<std::string>{"X", "S"}));
  EXPECT_EQ(reshape.outputs, (std::vector<std::string>{"r"}));
  ASSERT_NE(reshape.attr("allowzero"), nullptr);
  EXPECT_EQ(reshape.attr("allowzero")->type, Attribute::Type::kInt);
  EXPECT_EQ(reshape.attr("allowzero")->i, 0);
  EXPECT_EQ(reshape.attr("alpha")->type, Attribute::Type::kFloat);
  EXPECT_EQ(reshape.attr("alpha")->f, 0.25f);
  EXPECT_EQ(reshape.attr("mode")->type, Attribute::Type::kString);
  EXPECT_EQ(reshape.attr("mode")->s, "fancy");
  EXPECT_EQ(reshape.attr("axes")->type, Attribute::Type::kInts);
  EXPECT_EQ(reshape.attr("axes")->ints, (std::vector<int64_t>{0, -1}));
  EXPECT_EQ(reshape.attr("scales")->type, Attribute::Type::kFloats);
  EXPECT_EQ(reshape.attr("scales")->floats, (std::vector<float>{1.5f, 2.f}));
  const Attribute* value = reshape.attr("value");
  ASSERT_NE(value, nullptr);
  EXPECT_EQ(value->type, Attribute::Type::kTensor);
  EXPECT_EQ(value->t.dtype, DType::kInt64);
  EXPECT_EQ(Values<int64_t>(value->t), (std::vector<int64_t>{7, 8}));
  EXPECT_EQ(g.nodes[1].name, "Identity_1");  // op_type + source index
  EXPECT_EQ(g.nodes[1].op_type, "Identity");
}

// Loading into a Graph that held another model replaces everything, metadata included.
// y = x + w, w [2, 3] stored outside the model (data_location EXTERNAL) at `offset` in
// "weights.bin", with the external_data entries given.
std::string ExternalWeightModel(const std::vector<std::pair<std::string, std::string>>& entries) {
  ModelBuilder b;
  b.Input("x", kOnnxFloat, {2, 3});
  b.Node("Add", {"x", "w"}, {"y"});
  b.Output("y", kOnnxFloat, {2, 3});
  onnx::TensorProto* w = b.graph().add_initializer();
  w->set_name("w");
  w->set_data_type(kOnnxFloat);
  w->add_dims(2);
  w->add_dims(3);
  w->set_data_location(onnx::TensorProto_DataLocation_EXTERNAL);
  for (const auto& [key, value] : entries) {
    onnx::StringStringEntryProto* e = w->add_external_data();
    e->set_key(key);
    e->set_value(value);
  }
  return b.Bytes();
}

Status LoadWithFiles(const std::string& bytes, const std::map<std::string, std::string>& files,
                     Graph* graph) {
  std::shared_ptr<uint8_t> owned(new uint8_t[bytes.size()], std::default_delete<uint8_t[]>());
  std::memcpy(owned.get(), bytes.data(), bytes.size());
  return LoadOnnxModel(owned, bytes.size(), SessionLimits(), graph, &files);
}

TEST(Loader, ExternalInitializersComeFromTheirSideFiles) {
  const float w[6] = {1.5f, -2.f, 3.25f, 0.f, 7.f, -0.5f};
  std::string file(10, 'x');  // the weights at offset 10, then 4 more bytes
  file.append(reinterpret_cast<const char*>(w), sizeof(w));
  file.append(4, 'y');
  const std::map<std::string, std::string> files = {{"weights.bin", file}};
  Graph graph;
  ASSERT_TRUE(LoadWithFiles(ExternalWeightModel({{"location", "weights.bin"},
                                                 {"offset", "10"},
                                                 {"length", "24"},
                                                 {"checksum", "ignored"}}),
                            files, &graph)
                  .ok());
  const Tensor& t = graph.initializers.at("w");
  EXPECT_EQ(t.shape, (Shape{2, 3}));
  EXPECT_EQ(std::vector<float>(t.ptr<float>(), t.ptr<float>() + 6), std::vector<float>(w, w + 6));
  // Without "length": the rest of the file, which must then be exactly the tensor's bytes.
  Graph rest;
  EXPECT_EQ(LoadWithFiles(ExternalWeightModel({{"location", "weights.bin"}, {"offset", "10"}}),
                          files, &rest)
                .code(),
            ErrorCode::kMalformedModel);
  EXPECT_TRUE(LoadWithFiles(ExternalWeightModel({{"location", "weights.bin"}, {"offset", "10"}}),
                            {{"weights.bin", file.substr(0, 34)}}, &rest)
                  .ok());
}

TEST(Loader, ExternalDataThatIsMissingOrOutsideItsFileIsAClearError) {
  const std::map<std::string, std::string> files = {{"weights.bin", std::string(24, '\0')}};
  struct Case {
    std::vector<std::pair<std::string, std::string>> entries;
    ErrorCode code;
    const char* says;
  };
  const Case cases[] = {
      {{{"location", "other.bin"}}, ErrorCode::kInvalidArgument, "'other.bin', a file not given"},
      {{{"location", "weights.bin"}, {"offset", "8"}}, ErrorCode::kMalformedModel, "stores"},
      {{{"location", "weights.bin"}, {"offset", "25"}}, ErrorCode::kMalformedModel, "outside"},
      {{{"location", "weights.bin"}, {"length", "28"}}, ErrorCode::kMalformedModel, "outside"},
      {{{"location", "weights.bin"}, {"offset", "-4"}}, ErrorCode::kMalformedModel, "outside"},
      {{{"location", "weights.bin"}, {"offset", "1e3"}}, ErrorCode::kMalformedModel, "outside"},
  };
  for (const Case& c : cases) {
    Graph graph;
    Status s = LoadWithFiles(ExternalWeightModel(c.entries), files, &graph);
    EXPECT_EQ(s.code(), c.code) << s.ToString();
    EXPECT_NE(s.message().find("initializer 'w'"), std::string::npos) << s.ToString();
    EXPECT_NE(s.message().find(c.says), std::string::npos) << s.ToString();
  }
  Graph graph;  // no files at all
  EXPECT_EQ(LoadOnnxModel(reinterpret_cast<const uint8_t*>(
                              ExternalWeightModel({{"location", "weights.bin"}}).data()),
                          ExternalWeightModel({{"location", "weights.bin"}}).size(), &graph)
                .code(),
            ErrorCode::kInvalidArgument);
}

TEST(Loader, LoadingIntoAUsedGraphReplacesMetadata) {
  ModelBuilder first = SmallModel();
  auto* meta = first.proto().add_metadata_props();
  meta->set_key("only_in_first");
  meta->set_value("1");
  Graph g;
  ASSERT_TRUE(LoadBytes(first.Bytes(), &g).ok());
  ASSERT_EQ(g.metadata.size(), 1u);
  ASSERT_TRUE(LoadBytes(SmallModel().Bytes(), &g).ok());
  EXPECT_TRUE(g.metadata.empty()) << "metadata of the previous model survived a reload";
  EXPECT_EQ(g.nodes.size(), 3u);  // other fields are replaced
}

TEST(Loader, AttributeTypeInferredWhenUndefined) {
  ModelBuilder b = SmallModel();
  auto* a = b.graph().mutable_node(0)->add_attribute();
  a->set_name("legacy");
  a->set_i(5);  // no type: very old models
  Graph g;
  Status s = LoadBytes(b.Bytes(), &g);
  ASSERT_TRUE(s.ok()) << s.ToString();
  const Attribute* legacy = g.nodes[0].attr("legacy");
  ASSERT_NE(legacy, nullptr);
  EXPECT_EQ(legacy->type, Attribute::Type::kInt);
  EXPECT_EQ(legacy->i, 5);
}

// ---- Initializer encodings

TEST(Loader, InitializerFromRawAndTypedFields) {
  {
    Graph g;
    ASSERT_TRUE(LoadInitializer(FloatTensor({2, 2}, {1.5f, -2.f, 0.f, 3.25f}, true), &g).ok());
    EXPECT_EQ(Values<float>(g.initializers.at("T")), (std::vector<float>{1.5f, -2.f, 0.f, 3.25f}));
    EXPECT_EQ(g.initializers.at("T").shape, (Shape{2, 2}));
  }
  {
    Graph g;
    ASSERT_TRUE(LoadInitializer(FloatTensor({3}, {1.f, 2.f, -7.5f}, false), &g).ok());
    EXPECT_EQ(Values<float>(g.initializers.at("T")), (std::vector<float>{1.f, 2.f, -7.5f}));
  }
  const int64_t big = int64_t{1} << 40;
  for (bool raw : {false, true}) {
    Graph g;
    ASSERT_TRUE(LoadInitializer(Int64Tensor({4}, {-1, 0, big, INT64_MIN}, raw), &g).ok());
    const Tensor& t = g.initializers.at("T");
    EXPECT_EQ(t.dtype, DType::kInt64);
    EXPECT_EQ(Values<int64_t>(t), (std::vector<int64_t>{-1, 0, big, INT64_MIN})) << raw;
  }
  {
    onnx::TensorProto t;
    t.set_data_type(kOnnxInt32);
    t.add_dims(3);
    for (int32_t v : {-5, 0, 2147483647}) t.add_int32_data(v);
    Graph g;
    ASSERT_TRUE(LoadInitializer(t, &g).ok());
    EXPECT_EQ(g.initializers.at("T").dtype, DType::kInt32);
    EXPECT_EQ(Values<int32_t>(g.initializers.at("T")), (std::vector<int32_t>{-5, 0, 2147483647}));
  }
  {
    onnx::TensorProto t;  // bool in int32_data: any non-zero is true
    t.set_data_type(kOnnxBool);
    t.add_dims(4);
    for (int32_t v : {0, 1, 0, 7}) t.add_int32_data(v);
    Graph g;
    ASSERT_TRUE(LoadInitializer(t, &g).ok());
    const Tensor& b = g.initializers.at("T");
    EXPECT_EQ(b.dtype, DType::kBool);
    EXPECT_EQ(Values<bool>(b), (std::vector<bool>{false, true, false, true}));
  }
  {
    onnx::TensorProto t;  // bool raw bytes
    t.set_data_type(kOnnxBool);
    t.add_dims(3);
    t.set_raw_data(std::string("\x01\x00\x01", 3));
    Graph g;
    ASSERT_TRUE(LoadInitializer(t, &g).ok());
    EXPECT_EQ(Values<bool>(g.initializers.at("T")), (std::vector<bool>{true, false, true}));
  }
  {
    // A scalar (no dims) holds one value; a zero-sized tensor holds none.
    Graph g;
    ASSERT_TRUE(LoadInitializer(FloatTensor({}, {42.f}, false), &g).ok());
    EXPECT_EQ(g.initializers.at("T").shape, Shape{});
    EXPECT_EQ(g.initializers.at("T").ptr<float>()[0], 42.f);
    Graph g2;
    ASSERT_TRUE(LoadInitializer(FloatTensor({0, 3}, {}, true), &g2).ok());
    EXPECT_EQ(g2.initializers.at("T").numel(), 0);
  }
}

// Independent float16 -> float32 reference: value = (-1)^s * m * 2^e, built with ldexp.
float ReferenceHalf(uint16_t h) {
  const bool negative = (h & 0x8000u) != 0;
  const int exp = (h >> 10) & 0x1f;
  const int mant = h & 0x3ff;
  float v;
  if (exp == 0x1f) {
    v = mant ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
  } else if (exp == 0) {
    v = std::ldexp(static_cast<float>(mant), -24);  // subnormal (and zero)
  } else {
    v = std::ldexp(static_cast<float>(1024 + mant), exp - 25);
  }
  return negative ? -v : v;
}

// A loaded float16 tensor keeps the bits it was given, and HalfToFloat widens each exactly.
void ExpectHalfConverted(const std::vector<uint16_t>& bits, const Tensor& t) {
  ASSERT_EQ(t.dtype, DType::kFloat16);
  ASSERT_EQ(static_cast<size_t>(t.numel()), bits.size());
  int mismatches = 0;
  for (size_t i = 0; i < bits.size(); ++i) {
    EXPECT_EQ(t.ptr<uint16_t>()[i], bits[i]) << i;
    const float got = HalfToFloat(t.ptr<uint16_t>()[i]);
    const float want = ReferenceHalf(bits[i]);
    if (std::isnan(want)) {
      if (!std::isnan(got) || std::signbit(got) != std::signbit(want)) ++mismatches;
      continue;
    }
    if (FloatBits(got) != FloatBits(want) && mismatches++ < 10) {
      ADD_FAILURE() << "half 0x" << std::hex << bits[i] << " -> " << got << " (0x" << FloatBits(got)
                    << "), want " << want << " (0x" << FloatBits(want) << ")";
    }
  }
  EXPECT_EQ(mismatches, 0);
}

TEST(Loader, Float16RawKeepsEveryHalfExactly) {
  std::vector<uint16_t> bits(65536);
  for (size_t i = 0; i < bits.size(); ++i) bits[i] = static_cast<uint16_t>(i);
  onnx::TensorProto t;
  t.set_data_type(kOnnxFloat16);
  t.add_dims(256);
  t.add_dims(256);
  std::string raw(bits.size() * 2, '\0');
  std::memcpy(&raw[0], bits.data(), raw.size());  // little-endian, as ONNX stores it
  t.set_raw_data(raw);
  Graph g;
  Status s = LoadInitializer(t, &g);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(g.initializers.at("T").shape, (Shape{256, 256}));
  ExpectHalfConverted(bits, g.initializers.at("T"));
}

TEST(Loader, Float16Int32DataKeepsTheBits) {
  // Named corner cases: zeros, one, the largest normal, the smallest normal and subnormals,
  // infinities and NaNs.
  const std::vector<uint16_t> bits = {0x0000, 0x8000, 0x3c00, 0xc000, 0x7bff, 0xfbff,
                                      0x0400, 0x0001, 0x8001, 0x03ff, 0x0200, 0x3555,
                                      0x7c00, 0xfc00, 0x7e00, 0xfe01};
  onnx::TensorProto t;
  t.set_data_type(kOnnxFloat16);
  t.add_dims(static_cast<int64_t>(bits.size()));
  for (uint16_t b : bits) t.add_int32_data(b);
  Graph g;
  Status s = LoadInitializer(t, &g);
  ASSERT_TRUE(s.ok()) << s.ToString();
  const Tensor& h = g.initializers.at("T");
  ExpectHalfConverted(bits, h);
  std::vector<float> v(bits.size());
  for (size_t i = 0; i < bits.size(); ++i) v[i] = HalfToFloat(h.ptr<uint16_t>()[i]);
  EXPECT_EQ(v[0], 0.f);
  EXPECT_FALSE(std::signbit(v[0]));
  EXPECT_TRUE(std::signbit(v[1]));
  EXPECT_EQ(v[2], 1.f);
  EXPECT_EQ(v[3], -2.f);
  EXPECT_EQ(v[4], 65504.f);
  EXPECT_EQ(v[5], -65504.f);
  EXPECT_EQ(v[6], std::ldexp(1.f, -14));
  EXPECT_EQ(v[7], std::ldexp(1.f, -24));
  EXPECT_EQ(v[8], -std::ldexp(1.f, -24));
  EXPECT_EQ(v[9], std::ldexp(1023.f, -24));
  EXPECT_EQ(v[10], std::ldexp(1.f, -15));
  EXPECT_EQ(v[11], 0.333251953125f);
  EXPECT_EQ(v[12], std::numeric_limits<float>::infinity());
  EXPECT_EQ(v[13], -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(v[14]));
  EXPECT_TRUE(std::isnan(v[15]));
}

TEST(Loader, Float16AttributeTensorKeepsItsType) {
  ModelBuilder b;
  onnx::TensorProto t;
  t.set_data_type(kOnnxFloat16);
  t.add_dims(2);
  t.set_raw_data(std::string("\x00\x3c\x00\xc0", 4));  // 1.0, -2.0
  b.Node("Constant", {}, {"Y"}, "c").TensorAttr("value", t);
  b.Output("Y", kOnnxFloat, {2});
  Graph g;
  Status s = LoadBytes(b.Bytes(), &g);
  ASSERT_TRUE(s.ok()) << s.ToString();
  const Tensor& v = g.nodes[0].attr("value")->t;
  EXPECT_EQ(v.dtype, DType::kFloat16);
  EXPECT_EQ(Values<uint16_t>(v), (std::vector<uint16_t>{0x3c00, 0xc000}));
}

TEST(Loader, DataSizeNotMatchingShapeIsMalformed) {
  struct Case {
    const char* what;
    onnx::TensorProto tensor;
  };
  std::vector<Case> cases;
  cases.push_back({"raw shorter", FloatTensor({2, 3}, {1, 2, 3, 4, 5}, true)});
  cases.push_back({"raw longer", FloatTensor({2, 3}, {1, 2, 3, 4, 5, 6, 7}, true)});
  cases.push_back({"float_data shorter", FloatTensor({4}, {1, 2, 3}, false)});
  cases.push_back({"float_data longer", FloatTensor({2}, {1, 2, 3}, false)});
  cases.push_back({"int64_data shorter", Int64Tensor({3}, {1, 2}, false)});
  cases.push_back({"int64 raw longer", Int64Tensor({1}, {1, 2}, true)});
  cases.push_back({"no data at all", FloatTensor({2}, {}, false)});
  {
    onnx::TensorProto t = FloatTensor({3}, {1, 2, 3}, true);
    t.mutable_raw_data()->pop_back();  // not a whole number of elements
    cases.push_back({"raw ragged", t});
  }
  {
    onnx::TensorProto t;
    t.set_data_type(kOnnxFloat16);
    t.add_dims(3);
    t.set_raw_data(std::string(4, '\0'));  // float16 needs 2 bytes each
    cases.push_back({"float16 raw shorter", t});
  }
  {
    onnx::TensorProto t;
    t.set_data_type(kOnnxFloat16);
    t.add_dims(2);
    for (int i = 0; i < 3; ++i) t.add_int32_data(0x3c00);
    cases.push_back({"float16 int32_data longer", t});
  }
  for (const Case& c : cases) {
    ModelBuilder b;
    b.Initializer("weights_7", c.tensor);
    b.Node("Identity", {"weights_7"}, {"Y"});
    b.Output("Y", kOnnxFloat, {});
    Graph g;
    Status s = LoadBytes(b.Bytes(), &g);
    EXPECT_EQ(s.code(), ErrorCode::kMalformedModel) << c.what << ": " << s.ToString();
    EXPECT_TRUE(HasSubstr(s.message(), "initializer 'weights_7'")) << c.what << ": " << s.message();
  }
}

TEST(Loader, NegativeInitializerDimIsMalformed) {
  Graph g;
  Status s = LoadInitializer(FloatTensor({-2}, {1, 2}, true), &g);
  EXPECT_EQ(s.code(), ErrorCode::kMalformedModel) << s.ToString();
  EXPECT_TRUE(HasSubstr(s.message(), "'T'")) << s.message();
}

// The data's length is checked against the shape before anything the size of the shape is
// allocated: a huge declared shape with no data is a malformed initializer, named, not an
// out-of-memory error (and a few-byte model never makes the loader allocate gigabytes).
TEST(Loader, HugeShapeWithoutDataIsMalformedNotOutOfMemory) {
  for (bool raw : {true, false}) {
    // 2^31 floats = 8 GiB: over the allocation cap, so nothing is actually allocated.
    Graph g;
    Status s = LoadInitializer(FloatTensor({int64_t{1} << 31}, {1.f, 2.f}, raw), &g);
    EXPECT_EQ(s.code(), ErrorCode::kMalformedModel) << s.ToString();
    EXPECT_TRUE(HasSubstr(s.message(), "initializer 'T'")) << s.message();
  }
}

// Every numeric type loads; strings, complex, bfloat16 and the float8 types are named.
TEST(Loader, UnsupportedDtypeNamesTheTensor) {
  {
    onnx::TensorProto t;
    t.set_data_type(kOnnxBfloat16);
    t.add_dims(2);
    t.set_raw_data(std::string(4, '\0'));
    ModelBuilder b;
    b.Initializer("bf16_weight", t);
    b.Node("Identity", {"bf16_weight"}, {"Y"});
    b.Output("Y", kOnnxFloat, {});
    Graph g;
    Status s = LoadBytes(b.Bytes(), &g);
    EXPECT_EQ(s.code(), ErrorCode::kUnsupportedDtype) << s.ToString();
    EXPECT_TRUE(HasSubstr(s.message(), "'bf16_weight'")) << s.message();
    EXPECT_TRUE(HasSubstr(s.message(), "bfloat16")) << s.message();
  }
  {
    ModelBuilder b;  // a graph input of an unsupported dtype
    b.Input("words", kOnnxString, {1, 3});
    b.Node("Identity", {"words"}, {"Y"});
    b.Output("Y", kOnnxFloat, {1, 3});
    Graph g;
    Status s = LoadBytes(b.Bytes(), &g);
    EXPECT_EQ(s.code(), ErrorCode::kUnsupportedDtype) << s.ToString();
    EXPECT_TRUE(HasSubstr(s.message(), "'words'")) << s.message();
  }
  {
    ModelBuilder b;  // inside a node attribute
    onnx::TensorProto t;
    t.set_data_type(kOnnxBfloat16);
    t.add_dims(1);
    t.add_int32_data(0x3f80);
    b.Node("Constant", {}, {"Y"}, "const_node").TensorAttr("value", t);
    b.Output("Y", kOnnxFloat, {1});
    Graph g;
    Status s = LoadBytes(b.Bytes(), &g);
    EXPECT_EQ(s.code(), ErrorCode::kUnsupportedDtype) << s.ToString();
    EXPECT_TRUE(HasSubstr(s.message(), "const_node")) << s.message();
  }
}

// Each numeric type from its typed field: int32_data holds the narrow types' bits,
// uint64_data the unsigned 32/64-bit ones, double_data float64.
TEST(Loader, EveryNumericTypeReadsItsTypedField) {
  auto load = [](onnx::TensorProto t, Tensor* out) {
    t.add_dims(2);
    Graph g;
    Status s = LoadInitializer(t, &g);
    ASSERT_TRUE(s.ok()) << s.ToString();
    *out = g.initializers.at("T");
  };
  Tensor v;
  onnx::TensorProto t;
  t.set_data_type(kOnnxUint8);
  t.add_int32_data(0);
  t.add_int32_data(255);
  load(t, &v);
  EXPECT_EQ(Values<uint8_t>(v), (std::vector<uint8_t>{0, 255}));
  t.set_data_type(3);  // int8
  t.set_int32_data(1, -128);
  load(t, &v);
  EXPECT_EQ(Values<int8_t>(v), (std::vector<int8_t>{0, -128}));
  t.set_data_type(5);  // int16
  t.set_int32_data(1, -32768);
  load(t, &v);
  EXPECT_EQ(Values<int16_t>(v), (std::vector<int16_t>{0, -32768}));
  t.set_data_type(4);  // uint16
  t.set_int32_data(1, 65535);
  load(t, &v);
  EXPECT_EQ(Values<uint16_t>(v), (std::vector<uint16_t>{0, 65535}));
  onnx::TensorProto u;
  u.set_data_type(13);  // uint64
  u.add_uint64_data(1);
  u.add_uint64_data(UINT64_MAX);
  load(u, &v);
  EXPECT_EQ(Values<uint64_t>(v), (std::vector<uint64_t>{1, UINT64_MAX}));
  u.set_data_type(12);  // uint32
  u.set_uint64_data(1, UINT32_MAX);
  load(u, &v);
  EXPECT_EQ(Values<uint32_t>(v), (std::vector<uint32_t>{1, UINT32_MAX}));
  onnx::TensorProto d;
  d.set_data_type(kOnnxDouble);
  d.add_double_data(0.1);
  d.add_double_data(-1e300);
  load(d, &v);
  EXPECT_EQ(Values<double>(v), (std::vector<double>{0.1, -1e300}));
  d.clear_double_data();
  d.add_double_data(1);  // one value for two
  Graph g;
  d.add_dims(2);
  EXPECT_EQ(LoadInitializer(d, &g).code(), ErrorCode::kMalformedModel);
}

// Without its side file (the files a caller gives: externalData in webnx/ort).
TEST(Loader, ExternalDataWithoutItsFileIsRefused) {
  onnx::TensorProto t;
  t.set_data_type(kOnnxFloat);
  t.add_dims(1024);
  t.set_data_location(onnx::TensorProto_DataLocation_EXTERNAL);
  auto* loc = t.add_external_data();
  loc->set_key("location");
  loc->set_value("weights.bin");
  ModelBuilder b;
  b.Initializer("ext_weight", t);
  b.Node("Identity", {"ext_weight"}, {"Y"});
  b.Output("Y", kOnnxFloat, {1024});
  Graph g;
  Status s = LoadBytes(b.Bytes(), &g);
  EXPECT_EQ(s.code(), ErrorCode::kInvalidArgument) << s.ToString();
  EXPECT_TRUE(HasSubstr(s.message(), "'ext_weight'")) << s.message();
  EXPECT_TRUE(HasSubstr(s.message(), "'weights.bin', a file not given")) << s.message();
}

TEST(Loader, DuplicateInitializerAndAttributeAreMalformed) {
  {
    ModelBuilder b = SmallModel();
    b.FloatInit("W", {1}, {0.f});
    Graph g;
    Status s = LoadBytes(b.Bytes(), &g);
    EXPECT_EQ(s.code(), ErrorCode::kMalformedModel) << s.ToString();
    EXPECT_TRUE(HasSubstr(s.message(), "'W'")) << s.message();
  }
  {
    ModelBuilder b = SmallModel();
    NodeRef(b.graph().mutable_node(2)).Int("k", 1).Int("k", 2);
    Graph g;
    Status s = LoadBytes(b.Bytes(), &g);
    EXPECT_EQ(s.code(), ErrorCode::kMalformedModel) << s.ToString();
    EXPECT_TRUE(HasSubstr(s.message(), "'k'")) << s.message();
  }
  {
    ModelBuilder b = SmallModel();
    b.graph().mutable_node(1)->clear_op_type();
    Graph g;
    EXPECT_CODE(LoadBytes(b.Bytes(), &g), ErrorCode::kMalformedModel);
  }
  {
    ModelBuilder b = SmallModel();
    b.graph().mutable_initializer(0)->clear_name();
    Graph g;
    EXPECT_CODE(LoadBytes(b.Bytes(), &g), ErrorCode::kMalformedModel);
  }
  {
    ModelBuilder b = SmallModel();  // a negative declared dim
    b.graph()
        .mutable_input(0)
        ->mutable_type()
        ->mutable_tensor_type()
        ->mutable_shape()
        ->mutable_dim(1)
        ->set_dim_value(-3);
    Graph g;
    Status s = LoadBytes(b.Bytes(), &g);
    EXPECT_EQ(s.code(), ErrorCode::kMalformedModel) << s.ToString();
    EXPECT_TRUE(HasSubstr(s.message(), "'X'")) << s.message();
  }
  {
    ModelBuilder b = SmallModel();  // a graph input that is not a tensor
    b.graph().mutable_input(0)->mutable_type()->mutable_sequence_type();
    Graph g;
    EXPECT_NE(LoadBytes(b.Bytes(), &g).code(), ErrorCode::kOk);
  }
}

// ---- Bytes that are not a model

TEST(Loader, EmptyAndGarbageBytesAreErrors) {
  Graph g;
  Status s = LoadOnnxModel(nullptr, 0, &g);
  EXPECT_EQ(s.code(), ErrorCode::kMalformedModel) << s.ToString();
  EXPECT_CODE(LoadBytes(std::string(), &g), ErrorCode::kMalformedModel);

  const std::vector<std::string> fixed = {
      std::string(1, '\0'),
      std::string(64, '\xff'),
      "this is not an onnx file at all",
      "\x08\x07",                          // ir_version only: no graph
      std::string("\x3a\x7f\x00", 3),      // graph field claiming 127 bytes, holding 1
      std::string("\x3a\x00", 2),          // an empty graph, no opset
      "\x0a\x80\x80\x80\x80\x80\x80\x80",  // an unterminated varint
  };
  for (const std::string& bytes : fixed) {
    Status st = LoadBytes(bytes, &g);
    EXPECT_NE(st.code(), ErrorCode::kOk) << "bytes of size " << bytes.size();
  }
  std::mt19937 rng(1234);
  for (int trial = 0; trial < 500; ++trial) {
    std::string bytes(1 + rng() % 512, '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    Status st = LoadBytes(bytes, &g);
    EXPECT_NE(st.code(), ErrorCode::kOk) << "trial " << trial;
  }
}

// What happened to a model that loaded, in CreateAndRunIfPossible.
enum class RunResult { kNotCreated, kNotRun, kRunFailed, kRan };

// Runs a session on a model that loaded: feeds zeros of the declared shapes (symbols and
// unknown dims = 1). Only checks that nothing crashes; any Status is acceptable.
RunResult CreateAndRunIfPossible(const std::string& bytes) {
  std::unique_ptr<Session> session;
  if (!CreateSession(bytes, &session).ok()) return RunResult::kNotCreated;
  std::vector<NamedTensor> feeds;
  for (const ValueInfo& in : session->inputs()) {
    Shape shape;
    for (const Dim& d : in.dims) shape.push_back(d.fixed() ? d.value : 1);
    if (shape.size() > 8 || in.dtype == DType::kUndefined) return RunResult::kNotRun;
    int64_t numel = 0;
    if (!ShapeNumel(shape, &numel) || numel > (1 << 20)) return RunResult::kNotRun;
    NamedTensor nt;
    nt.name = in.name;
    if (!Tensor::Allocate(in.dtype, shape, &nt.tensor).ok()) return RunResult::kNotRun;
    feeds.push_back(std::move(nt));
  }
  std::vector<const Tensor*> outputs;
  if (!session->Run(feeds, &outputs).ok()) return RunResult::kRunFailed;
  EXPECT_EQ(outputs.size(), session->outputs().size());
  return RunResult::kRan;
}

// A model with opset import before the graph in the bytes (protobuf accepts fields in any
// order), whose graph bytes are cut at `graph_prefix` and re-wrapped: prefixes at node
// boundaries then parse into smaller, valid models.
std::string WithTruncatedGraph(const std::string& graph_bytes, size_t graph_prefix) {
  onnx::ModelProto head;
  head.set_ir_version(8);
  auto* op = head.add_opset_import();
  op->set_version(13);
  std::string out = head.SerializeAsString();
  out.push_back('\x3a');  // field 7 (graph), length-delimited
  size_t len = graph_prefix;
  do {  // varint length
    uint8_t byte = len & 0x7f;
    len >>= 7;
    if (len) byte |= 0x80;
    out.push_back(static_cast<char>(byte));
  } while (len);
  out.append(graph_bytes, 0, graph_prefix);
  return out;
}

ModelBuilder RichModel() {
  ModelBuilder b;
  b.Input("X", kOnnxFloat, {"N", 2, 4, 4});
  b.FloatInit("W", {3, 2, 3, 3}, std::vector<float>(54, 0.1f));
  b.FloatInit("Bc", {3}, {0.f, 1.f, -1.f}, false);
  b.Int64Init("shape", {2}, {0, -1});
  b.FloatInit("G", {48, 5}, std::vector<float>(240, 0.01f));
  b.Node("Conv", {"X", "W", "Bc"}, {"c"}, "conv").Ints("pads", {1, 1, 1, 1});
  b.Node("Relu", {"c"}, {"r"}, "relu");
  b.Node("Reshape", {"r", "shape"}, {"flat"}, "reshape");
  b.Node("MatMul", {"flat", "G"}, {"Y"}, "matmul");
  b.Node("Shape", {"X"}, {"S"}, "shape_of_x");
  b.Output("Y", kOnnxFloat, {"N", 5});
  b.Output("S", kOnnxInt64, {4});
  return b;
}

TEST(Loader, EveryTruncationIsAnErrorNeverACrash) {
  const std::string bytes = RichModel().Bytes();
  {
    Graph g;
    Status s = LoadBytes(bytes, &g);
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ(CreateAndRunIfPossible(bytes), RunResult::kRan);
  }
  int malformed = 0, other_errors = 0, loaded = 0;
  for (size_t n = 0; n < bytes.size(); ++n) {
    Graph g;
    Status s = LoadOnnxModel(reinterpret_cast<const uint8_t*>(bytes.data()), n, &g);
    if (s.ok()) {
      ++loaded;
      EXPECT_TRUE(SortAndValidateGraph(&g).ok()) << "prefix " << n;
      CreateAndRunIfPossible(bytes.substr(0, n));
    } else if (s.code() == ErrorCode::kMalformedModel) {
      ++malformed;
    } else {
      ++other_errors;
      // The only other error: a prefix ending between the graph and the opset imports.
      EXPECT_EQ(s.code(), ErrorCode::kUnsupportedOpset) << "prefix " << n << ": " << s.ToString();
    }
  }
  EXPECT_GT(malformed, static_cast<int>(bytes.size()) / 2);
  EXPECT_EQ(loaded, 0) << "a strict prefix of the model loaded";
}

// The graph's fields re-ordered so that every prefix ending at a field boundary is a valid
// model (protobuf merges repeated fields in whatever order they arrive): the inputs, the
// initializers, then each node followed by graph outputs for what it produces.
std::string StreamingGraphBytes(const onnx::GraphProto& graph) {
  std::string out;
  auto append = [&out](const onnx::GraphProto& part) { out += part.SerializeAsString(); };
  for (const auto& in : graph.input()) {
    onnx::GraphProto part;
    *part.add_input() = in;
    append(part);
  }
  for (const auto& init : graph.initializer()) {
    onnx::GraphProto part;
    *part.add_initializer() = init;
    append(part);
  }
  for (const auto& node : graph.node()) {
    onnx::GraphProto part;
    *part.add_node() = node;
    for (const auto& name : node.output()) {
      auto* vi = part.add_output();
      vi->set_name(name);
      vi->mutable_type()->mutable_tensor_type()->set_elem_type(
          node.op_type() == "Shape" ? kOnnxInt64 : kOnnxFloat);
    }
    append(part);
  }
  return out;
}

void CheckGraphTruncations(const std::string& graph_bytes, int min_loaded, int min_ran) {
  int loaded = 0, failed = 0, ran = 0;
  for (size_t n = 0; n <= graph_bytes.size(); ++n) {
    const std::string bytes = WithTruncatedGraph(graph_bytes, n);
    Graph g;
    Status s = LoadBytes(bytes, &g);
    if (s.ok()) {
      ++loaded;
      if (CreateAndRunIfPossible(bytes) == RunResult::kRan) ++ran;
    } else {
      ++failed;
      EXPECT_TRUE(s.code() == ErrorCode::kMalformedModel ||
                  s.code() == ErrorCode::kUnsupportedDtype)
          << "prefix " << n << ": " << s.ToString();
      EXPECT_FALSE(s.message().empty());
    }
  }
  EXPECT_GE(loaded, min_loaded);
  EXPECT_GE(ran, min_ran);
  EXPECT_GT(failed, static_cast<int>(graph_bytes.size()) / 2);
  std::cout << "[          ] " << graph_bytes.size() << " graph prefixes: " << loaded << " loaded ("
            << ran << " ran), " << failed << " failed\n";
}

TEST(Loader, EveryGraphTruncationLoadsOrFailsCleanly) {
  // Serialized order (nodes before inputs): the empty graph, the graph without outputs, with
  // one output and the whole graph load.
  CheckGraphTruncations(RichModel().graph().SerializeAsString(), 4, 4);
  // Streaming order: every input, initializer and node boundary is a smaller valid model.
  const ModelBuilder model = RichModel();
  const onnx::GraphProto& graph = model.graph();
  const int boundaries = graph.input_size() + graph.initializer_size() + graph.node_size() + 1;
  CheckGraphTruncations(StreamingGraphBytes(graph), boundaries, boundaries);
}

// Removes, one at a time, each input, output and attribute of each node: loading or planning
// may fail (a Conv without weights, a Reshape without a target...), but never crash.
TEST(Loader, NodesMissingInputsOutputsOrAttributesNeverCrash) {
  const ModelBuilder original = RichModel();
  int variants = 0, ran = 0;
  for (int n = 0; n < original.graph().node_size(); ++n) {
    const onnx::NodeProto& node = original.graph().node(n);
    auto check = [&](const std::function<void(onnx::NodeProto*)>& mutate) {
      ModelBuilder b = original;
      mutate(b.graph().mutable_node(n));
      ++variants;
      if (CreateAndRunIfPossible(b.Bytes()) == RunResult::kRan) ++ran;
    };
    for (int i = 0; i < node.input_size(); ++i) {
      check([i](onnx::NodeProto* p) { p->mutable_input()->DeleteSubrange(i, 1); });
      check([i](onnx::NodeProto* p) { p->set_input(i, ""); });  // an omitted optional input
    }
    for (int i = 0; i < node.output_size(); ++i) {
      check([i](onnx::NodeProto* p) { p->mutable_output()->DeleteSubrange(i, 1); });
      check([i](onnx::NodeProto* p) { p->set_output(i, ""); });
    }
    check([](onnx::NodeProto* p) { p->add_output("extra_output"); });
    check([](onnx::NodeProto* p) { p->add_input("X"); });
    for (int i = 0; i < node.attribute_size(); ++i) {
      check([i](onnx::NodeProto* p) { p->mutable_attribute()->DeleteSubrange(i, 1); });
    }
  }
  EXPECT_GT(variants, 20);
  EXPECT_GT(ran, 0);  // e.g. Conv without its optional bias
}

TEST(Loader, RandomByteFlipsNeverCrash) {
  const std::string original = RichModel().Bytes();
  std::mt19937 rng(99);
  int loaded = 0, ran = 0;
  for (int trial = 0; trial < 400; ++trial) {
    std::string bytes = original;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) bytes[rng() % bytes.size()] = static_cast<char>(rng());
    Graph g;
    if (!LoadBytes(bytes, &g).ok()) continue;
    ++loaded;
    ran += CreateAndRunIfPossible(bytes) == RunResult::kRan;
  }
  // Flips that land in weights or names leave a model that still loads and runs: without some
  // of those the trials would test the parser's first bytes only.
  EXPECT_GE(loaded, 40) << "too few flipped models loaded";
  EXPECT_GE(ran, 10) << "too few flipped models ran";
}

// ---- Opsets

TEST(Loader, AnOpsetBelowSevenRunsWhereEveryOpHasAVersionThatOld) {
  ModelBuilder relu(6);  // Relu has versions 1 and 6
  relu.Input("X", kOnnxFloat, {2});
  relu.Node("Relu", {"X"}, {"Y"}, "relu");
  relu.Output("Y", kOnnxFloat, {2});
  std::unique_ptr<Session> session;
  ASSERT_TRUE(CreateSession(relu.Bytes(), &session).ok());
  std::vector<const Tensor*> out;
  ASSERT_TRUE(session->Run({NamedTensor{"X", MakeFloat({2}, {-1.f, 2.f})}}, &out).ok());
  EXPECT_EQ(out[0]->ptr<float>()[0], 0.f);
  EXPECT_EQ(out[0]->ptr<float>()[1], 2.f);

  ModelBuilder add(6);  // Add's oldest implemented version is 7
  add.Input("X", kOnnxFloat, {2});
  add.Node("Add", {"X", "X"}, {"Y"}, "add");
  add.Output("Y", kOnnxFloat, {2});
  Status s = CreateSession(add.Bytes(), &session);
  EXPECT_EQ(s.code(), ErrorCode::kUnsupportedOpset) << s.ToString();
  EXPECT_TRUE(HasSubstr(s.message(), "opset 6")) << s.message();
  EXPECT_TRUE(HasSubstr(s.message(), "Add at opset 6")) << s.message();
}

TEST(Loader, OpsetOutsideTheSupportedRange) {
  for (int64_t opset : {26, 100}) {
    Graph g;
    Status s = LoadBytes(SmallModel(opset).Bytes(), &g);
    EXPECT_EQ(s.code(), ErrorCode::kUnsupportedOpset) << opset << ": " << s.ToString();
    EXPECT_TRUE(HasSubstr(s.message(), std::to_string(opset))) << s.message();
  }
  // Below 7 a model loads; the session takes it when it implements every op at that opset.
  for (int64_t opset : {int64_t{1}, int64_t{6}, kMinDefaultOpset, int64_t{13}, kMaxDefaultOpset}) {
    Graph g;
    Status s = LoadBytes(SmallModel(opset).Bytes(), &g);
    EXPECT_TRUE(s.ok()) << opset << ": " << s.ToString();
    EXPECT_EQ(g.opsets.at(""), opset);
  }
  {
    ModelBuilder b(0);  // opset 0 was never an opset
    b.Opset("", 0);
    b.Input("X", kOnnxFloat, {1});
    b.Node("Relu", {"X"}, {"Y"});
    b.Output("Y", kOnnxFloat, {1});
    Graph g;
    EXPECT_CODE(LoadBytes(b.Bytes(), &g), ErrorCode::kUnsupportedOpset);
  }
  {
    ModelBuilder b(0);  // "ai.onnx" is the default domain too
    b.Opset("ai.onnx", 26);
    b.Input("X", kOnnxFloat, {1});
    b.Node("Relu", {"X"}, {"Y"});
    b.Output("Y", kOnnxFloat, {1});
    Graph g;
    EXPECT_CODE(LoadBytes(b.Bytes(), &g), ErrorCode::kUnsupportedOpset);
  }
  {
    ModelBuilder b(0);  // no opset import at all
    b.Input("X", kOnnxFloat, {1});
    b.Node("Relu", {"X"}, {"Y"});
    b.Output("Y", kOnnxFloat, {1});
    Graph g;
    EXPECT_CODE(LoadBytes(b.Bytes(), &g), ErrorCode::kUnsupportedOpset);
  }
}

// ---- Graph structure

TEST(Loader, DanglingInputIsMalformed) {
  ModelBuilder b = SmallModel();
  b.Node("Relu", {"nowhere"}, {"extra"}, "lost_relu");
  Graph g;
  Status s = LoadBytes(b.Bytes(), &g);
  EXPECT_EQ(s.code(), ErrorCode::kMalformedModel) << s.ToString();
  EXPECT_TRUE(HasSubstr(s.message(), "'nowhere'")) << s.message();
  EXPECT_TRUE(HasSubstr(s.message(), "lost_relu")) << s.message();
}

TEST(Loader, ValueDefinedTwiceIsMalformed) {
  {
    ModelBuilder b = SmallModel();
    b.Node("Relu", {"X"}, {"xw"}, "second_producer");  // "xw" is MatMul's output too
    Graph g;
    Status s = LoadBytes(b.Bytes(), &g);
    EXPECT_EQ(s.code(), ErrorCode::kMalformedModel) << s.ToString();
    EXPECT_TRUE(HasSubstr(s.message(), "'xw'")) << s.message();
  }
  {
    ModelBuilder b = SmallModel();
    b.Node("Relu", {"xw"}, {"X"}, "shadows_input");  // redefines a graph input
    Graph g;
    Status s = LoadBytes(b.Bytes(), &g);
    EXPECT_EQ(s.code(), ErrorCode::kMalformedModel) << s.ToString();
    EXPECT_TRUE(HasSubstr(s.message(), "'X'")) << s.message();
  }
  {
    ModelBuilder b = SmallModel();
    b.Node("Relu", {"X"}, {"W"}, "shadows_weight");  // redefines an initializer
    Graph g;
    Status s = LoadBytes(b.Bytes(), &g);
    EXPECT_EQ(s.code(), ErrorCode::kMalformedModel) << s.ToString();
    EXPECT_TRUE(HasSubstr(s.message(), "'W'")) << s.message();
  }
  {
    ModelBuilder b = SmallModel();
    b.Input("X", kOnnxFloat, {"N", 3});  // the same graph input twice
    Graph g;
    EXPECT_CODE(LoadBytes(b.Bytes(), &g), ErrorCode::kMalformedModel);
  }
}

TEST(Loader, CycleIsMalformed) {
  {
    ModelBuilder b;
    b.Input("X", kOnnxFloat, {2});
    b.Node("Add", {"X", "c"}, {"a"}, "first");
    b.Node("Relu", {"a"}, {"b"}, "second");
    b.Node("Relu", {"b"}, {"c"}, "third");
    b.Output("c", kOnnxFloat, {2});
    Graph g;
    Status s = LoadBytes(b.Bytes(), &g);
    EXPECT_EQ(s.code(), ErrorCode::kMalformedModel) << s.ToString();
    EXPECT_TRUE(HasSubstr(s.message(), "cycle")) << s.message();
  }
  {
    ModelBuilder b;  // a node reading its own output
    b.Input("X", kOnnxFloat, {2});
    b.Node("Add", {"X", "self"}, {"self"}, "loop");
    b.Output("self", kOnnxFloat, {2});
    Graph g;
    Status s = LoadBytes(b.Bytes(), &g);
    EXPECT_EQ(s.code(), ErrorCode::kMalformedModel) << s.ToString();
    EXPECT_TRUE(HasSubstr(s.message(), "loop")) << s.message();
  }
}

TEST(Loader, NodesOutOfOrderAreSorted) {
  ModelBuilder b;
  b.Input("X", kOnnxFloat, {2});
  b.Node("Add", {"b", "a2"}, {"Y"}, "last");
  b.Node("Relu", {"a"}, {"b"}, "middle");
  b.Node("Neg", {"X"}, {"a2"}, "independent");
  b.Node("Abs", {"X"}, {"a"}, "first");
  b.Output("Y", kOnnxFloat, {2});
  Graph g;
  Status s = LoadBytes(b.Bytes(), &g);
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::vector<std::string> order;
  for (const Node& n : g.nodes) order.push_back(n.name);
  // Topological, and stable: among ready nodes the source order wins.
  EXPECT_EQ(order, (std::vector<std::string>{"independent", "first", "middle", "last"}));

  // Every node comes after the producers of its inputs.
  std::map<std::string, size_t> produced_at;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    for (const auto& in : g.nodes[i].inputs) {
      if (in == "X") continue;
      ASSERT_TRUE(produced_at.count(in)) << in;
      EXPECT_LT(produced_at[in], i);
    }
    for (const auto& out : g.nodes[i].outputs) produced_at[out] = i;
  }

  // And the sorted model runs.
  std::unique_ptr<Session> session;
  ASSERT_TRUE(CreateSession(b.Bytes(), &session).ok());
  std::vector<NamedTensor> feeds(1);
  feeds[0].name = "X";
  ASSERT_TRUE(Tensor::Allocate(DType::kFloat32, {2}, &feeds[0].tensor).ok());
  feeds[0].tensor.ptr<float>()[0] = -3.f;
  feeds[0].tensor.ptr<float>()[1] = 2.f;
  std::vector<const Tensor*> outputs;
  ASSERT_TRUE(session->Run(feeds, &outputs).ok());
  EXPECT_EQ(outputs[0]->ptr<float>()[0], 3.f + 3.f);  // |x| + -x
  EXPECT_EQ(outputs[0]->ptr<float>()[1], 2.f - 2.f);
}

TEST(Loader, OmittedOptionalInputsAreNotDangling) {
  ModelBuilder b;
  b.Input("X", kOnnxFloat, {3});
  b.FloatInit("hi", {}, {1.f});
  b.Node("Clip", {"X", "", "hi"}, {"Y"}, "clip");
  b.Output("Y", kOnnxFloat, {3});
  Graph g;
  Status s = LoadBytes(b.Bytes(), &g);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(g.nodes[0].inputs, (std::vector<std::string>{"X", "", "hi"}));
}

TEST(Loader, OutputNeverProducedIsMalformed) {
  ModelBuilder b = SmallModel();
  b.Output("ghost", kOnnxFloat, {1});
  Graph g;
  Status s = LoadBytes(b.Bytes(), &g);
  EXPECT_EQ(s.code(), ErrorCode::kMalformedModel) << s.ToString();
  EXPECT_TRUE(HasSubstr(s.message(), "'ghost'")) << s.message();
}

TEST(Loader, OutputsMayBeInputsOrInitializers) {
  ModelBuilder b = SmallModel();
  b.Output("X", kOnnxFloat, {"N", 3});
  b.Output("W", kOnnxFloat, {3, 2});
  Graph g;
  Status s = LoadBytes(b.Bytes(), &g);
  EXPECT_TRUE(s.ok()) << s.ToString();
}

}  // namespace
}  // namespace webnx::testing
