// JSON graph loader (core/loaders/json_*): both dialects in every spelling, the NHWC DSL ops
// against naive NHWC loops, errors with JSON Pointers, and hostile documents.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <random>

#include "core/loaders/json_base64.h"
#include "core/loaders/json_loader.h"
#include "core/op_registry.h"
#include "core/session.h"
#include "tests/unit/op_runner.h"

namespace webnx::testing {
namespace {

using nlohmann::json;

Status Load(const std::string& text, Graph* graph, const JsonExternalFiles& files = {}) {
  return LoadJsonModel(text.data(), text.size(), files, graph);
}

Status Load(const json& doc, Graph* graph, const JsonExternalFiles& files = {}) {
  return Load(doc.dump(), graph, files);
}

std::string Base64(const void* data, size_t size) {
  static const char* kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const auto* p = static_cast<const unsigned char*>(data);
  std::string out;
  for (size_t i = 0; i < size; i += 3) {
    uint32_t v = p[i] << 16;
    if (i + 1 < size) v |= p[i + 1] << 8;
    if (i + 2 < size) v |= p[i + 2];
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += i + 1 < size ? kAlphabet[(v >> 6) & 63] : '=';
    out += i + 2 < size ? kAlphabet[v & 63] : '=';
  }
  return out;
}

std::string Base64(const std::vector<float>& v) {
  return Base64(v.data(), v.size() * 4);
}

struct Feed {
  std::string name;
  Shape shape;
  std::vector<float> values;
};

// Loads, creates a session, runs, returns output 0 (and its shape).
std::vector<float> RunDoc(const json& doc, const std::vector<Feed>& feeds, Shape* shape = nullptr,
                          const JsonExternalFiles& files = {}) {
  Graph graph;
  Status s = Load(doc, &graph, files);
  EXPECT_TRUE(s.ok()) << s.ToString();
  if (!s.ok()) return {};
  std::unique_ptr<Session> session;
  s = Session::CreateFromGraph(std::move(graph), SessionOptions(), &session);
  EXPECT_TRUE(s.ok()) << s.ToString();
  if (!s.ok()) return {};
  std::vector<NamedTensor> named;
  for (const auto& f : feeds) {
    NamedTensor nt{f.name, Tensor()};
    EXPECT_TRUE(Tensor::Allocate(DType::kFloat32, f.shape, &nt.tensor).ok());
    std::memcpy(nt.tensor.data, f.values.data(), f.values.size() * 4);
    named.push_back(std::move(nt));
  }
  std::vector<const Tensor*> outputs;
  s = session->Run(named, &outputs);
  EXPECT_TRUE(s.ok()) << s.ToString();
  if (!s.ok()) return {};
  if (shape) *shape = outputs[0]->shape;
  return std::vector<float>(outputs[0]->ptr<float>(),
                            outputs[0]->ptr<float>() + outputs[0]->numel());
}

void ExpectNear(const std::vector<float>& got, const std::vector<float>& want, float tol = 1e-5f) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], tol * (1 + std::fabs(want[i]))) << "at " << i;
  }
}

// Expects a failure with this code whose message starts with `prefix`.
void ExpectError(const std::string& text, ErrorCode code, const std::string& prefix,
                 const JsonExternalFiles& files = {}) {
  Graph graph;
  Status s = Load(text, &graph, files);
  ASSERT_FALSE(s.ok()) << "expected an error starting with: " << prefix;
  EXPECT_EQ(ErrorCodeName(s.code()), std::string(ErrorCodeName(code))) << s.ToString();
  EXPECT_EQ(s.message().substr(0, prefix.size()), prefix) << s.ToString();
}

void ExpectMalformed(const json& doc, const std::string& prefix) {
  ExpectError(doc.dump(), ErrorCode::kMalformedModel, prefix);
}

size_t CountOps(const Graph& g, const std::string& op) {
  size_t n = 0;
  for (const auto& node : g.nodes) n += node.op_type == op;
  return n;
}

// --- naive NHWC references ------------------------------------------------------------------

struct Conv2DParams {
  int64_t kh, kw, sh = 1, sw = 1, top = 0, left = 0, bottom = 0, right = 0, dh = 1, dw = 1;
};

// x [N,H,W,C], kernel [Kh,Kw,C/groups,Cout] (depthwise: groups = C and Cout = C*M).
std::vector<float> NaiveConvNhwc(const std::vector<float>& x, Shape xs, const std::vector<float>& k,
                                 int64_t cin_per_group, int64_t cout, int64_t groups,
                                 const Conv2DParams& p, Shape* out_shape) {
  const int64_t n = xs[0], h = xs[1], w = xs[2], c = xs[3];
  const int64_t oh = (h + p.top + p.bottom - p.dh * (p.kh - 1) - 1) / p.sh + 1;
  const int64_t ow = (w + p.left + p.right - p.dw * (p.kw - 1) - 1) / p.sw + 1;
  const int64_t cout_per_group = cout / groups;
  std::vector<float> y(n * oh * ow * cout, 0.f);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j)
        for (int64_t o = 0; o < cout; ++o) {
          const int64_t g = o / cout_per_group;
          double acc = 0;
          for (int64_t u = 0; u < p.kh; ++u)
            for (int64_t v = 0; v < p.kw; ++v) {
              const int64_t yy = i * p.sh - p.top + u * p.dh, xx = j * p.sw - p.left + v * p.dw;
              if (yy < 0 || yy >= h || xx < 0 || xx >= w) continue;
              for (int64_t ci = 0; ci < cin_per_group; ++ci) {
                const int64_t cc = g * cin_per_group + ci;
                acc += x[((b * h + yy) * w + xx) * c + cc] *
                       k[((u * p.kw + v) * cin_per_group + ci) * cout + o];
              }
            }
          y[((b * oh + i) * ow + j) * cout + o] = static_cast<float>(acc);
        }
  *out_shape = {n, oh, ow, cout};
  return y;
}

json TensorJson(const Shape& shape, const std::vector<float>& values) {
  return {{"dtype", "float32"}, {"shape", shape}, {"base64", Base64(values)}};
}

json WebnxDoc(json inputs, json outputs, json tensors, json nodes) {
  return {{"format", "webnx-graph"}, {"version", 1},       {"inputs", inputs},
          {"outputs", outputs},      {"tensors", tensors}, {"nodes", nodes}};
}

// --- ONNX-JSON --------------------------------------------------------------------------------

// A NeatapticTS-style export: plural inputs/outputs, "input"/"output" per node, attributes with
// string types, float_data, metadata_props, dim_param batch.
TEST(JsonOnnxDialect, NeatapticSnakeCaseMlp) {
  json doc = {
      {"ir_version", 9},
      {"opset_import", {{{"version", 18}, {"domain", ""}}}},
      {"producer_name", "NeatapticTS"},
      {"metadata_props", {{{"key", "layer_sizes"}, {"value", "[2]"}}}},
      {"graph",
       {{"inputs",
         {{{"name", "input"},
           {"type",
            {{"tensor_type",
              {{"elem_type", 1},
               {"shape", {{"dim", {{{"dim_param", "N"}}, {{"dim_value", 3}}}}}}}}}}}}},
        {"outputs",
         {{{"name", "output"},
           {"type",
            {{"tensor_type",
              {{"elem_type", 1},
               {"shape", {{"dim", {{{"dim_param", "N"}}, {{"dim_value", 2}}}}}}}}}}}}},
        {"initializer",
         {{{"name", "W0"}, {"data_type", 1}, {"dims", {2, 3}}, {"float_data", {1, 2, 3, 4, 5, 6}}},
          {{"name", "B0"}, {"data_type", 1}, {"dims", {2}}, {"float_data", {0.5, -100}}}}},
        {"node",
         {{{"op_type", "Gemm"},
           {"input", {"input", "W0", "B0"}},
           {"output", {"Gemm_0"}},
           {"name", "gemm_l0"},
           {"attributes",
            {{{"name", "alpha"}, {"type", "FLOAT"}, {"f", 1}},
             {{"name", "beta"}, {"type", "FLOAT"}, {"f", 1}},
             {{"name", "transB"}, {"type", "INT"}, {"i", 1}}}}},
          {{"op_type", "Relu"},
           {"input", {"Gemm_0"}},
           {"output", {"output"}},
           {"name", "act"}}}}}}};
  Graph graph;
  ASSERT_TRUE(Load(doc, &graph).ok());
  EXPECT_EQ(graph.opsets.at(""), 18);
  EXPECT_EQ(graph.producer, "NeatapticTS");
  EXPECT_EQ(graph.metadata.at("layer_sizes"), "[2]");
  ASSERT_EQ(graph.inputs.size(), 1u);
  EXPECT_EQ(graph.inputs[0].dims[0].symbol, "N");
  EXPECT_EQ(graph.inputs[0].dims[1].value, 3);
  Shape shape;
  auto y = RunDoc(doc, {{"input", {2, 3}, {1, 1, 1, -1, 0, 1}}}, &shape);
  EXPECT_EQ(shape, (Shape{2, 2}));
  ExpectNear(y, {6.5f, 0.f, 2.5f, 0.f});
}

// protobuf's JSON mapping: camelCase, int64 as strings, enum names, base64 rawData.
TEST(JsonOnnxDialect, ProtobufJsonMapping) {
  std::vector<float> w = {1, -1, 2, 0.5f};
  std::vector<int64_t> shape = {1, 4};
  json doc = {
      {"irVersion", "8"},
      {"opsetImport", {{{"version", "13"}}}},
      {"metadataProps", {{{"key", "k"}, {"value", "v"}}}},
      {"graph",
       {{"name", "g"},
        {"input",
         {{{"name", "x"},
           {"type",
            {{"tensorType",
              {{"elemType", "FLOAT"},
               {"shape", {{"dim", {{{"dimValue", "2"}}, {{"dimValue", "2"}}}}}}}}}}}}},
        {"output", {{{"name", "y"}, {"type", {{"tensorType", {{"elemType", 1}}}}}}}},
        {"initializer",
         {{{"name", "w"}, {"dims", {"2", "2"}}, {"dataType", "FLOAT"}, {"rawData", Base64(w)}},
          {{"name", "shape"}, {"dims", {"2"}}, {"dataType", 7}, {"int64Data", {"1", "4"}}}}},
        {"node",
         {{{"input", {"x", "w"}}, {"output", {"m"}}, {"opType", "MatMul"}},
          {{"input", {"m", "shape"}}, {"output", {"r"}}, {"opType", "Reshape"}},
          {{"input", {"r"}},
           {"output", {"y"}},
           {"opType", "Transpose"},
           {"attribute", {{{"name", "perm"}, {"ints", {"1", "0"}}, {"type", "INTS"}}}}}}}}}};
  Graph graph;
  ASSERT_TRUE(Load(doc, &graph).ok());
  EXPECT_EQ(graph.opsets.at(""), 13);
  EXPECT_EQ(graph.metadata.at("k"), "v");
  Shape out;
  auto y = RunDoc(doc, {{"x", {2, 2}, {1, 2, 3, 4}}}, &out);
  EXPECT_EQ(out, (Shape{4, 1}));
  ExpectNear(y, {5, 0, 11, -1});
}

TEST(JsonOnnxDialect, DefaultOpsetIs13AndBareGraphsLoad) {
  json graph_only = {{"input", {{{"name", "x"}, {"type", {{"tensor_type", {{"elem_type", 1}}}}}}}},
                     {"output", {{{"name", "y"}}}},
                     {"node", {{{"op_type", "Relu"}, {"input", {"x"}}, {"output", {"y"}}}}}};
  Graph g1, g2;
  ASSERT_TRUE(Load(json{{"graph", graph_only}}, &g1).ok());
  EXPECT_EQ(g1.opsets.at(""), kDefaultOnnxJsonOpset);
  EXPECT_EQ(kDefaultOnnxJsonOpset, 13);
  ASSERT_TRUE(Load(graph_only, &g2).ok());
  EXPECT_EQ(g2.opsets.at(""), 13);
  EXPECT_EQ(g2.nodes[0].name, "Relu_0");
  json plural = {{"graph",
                  {{"inputs", graph_only["input"]},
                   {"outputs", graph_only["output"]},
                   {"nodes", {{{"opType", "Relu"}, {"inputs", {"x"}}, {"outputs", {"y"}}}}}}}};
  Graph g3;
  ASSERT_TRUE(Load(plural, &g3).ok());
  EXPECT_EQ(g3.nodes.size(), 1u);
}

Attribute OneAttribute(const json& attr) {
  json doc = {{"graph",
               {{"input", {{{"name", "x"}, {"type", {{"tensor_type", {{"elem_type", 1}}}}}}}},
                {"output", {{{"name", "y"}}}},
                {"node",
                 {{{"op_type", "Custom"},
                   {"domain", "test"},
                   {"input", {"x"}},
                   {"output", {"y"}},
                   {"attribute", {attr}}}}}}}};
  Graph g;
  Status s = Load(doc, &g);
  EXPECT_TRUE(s.ok()) << s.ToString();
  if (!s.ok() || g.nodes.empty()) return Attribute();
  return g.nodes[0].attrs.begin()->second;
}

TEST(JsonOnnxDialect, AttributeTypesInferredDefaultedAndDecoded) {
  EXPECT_EQ(OneAttribute({{"name", "a"}, {"i", 3}}).i, 3);
  EXPECT_EQ(OneAttribute({{"name", "a"}, {"i", 3}}).type, Attribute::Type::kInt);
  EXPECT_EQ(OneAttribute({{"name", "a"}, {"f", 3}}).type, Attribute::Type::kFloat);
  EXPECT_EQ(OneAttribute({{"name", "a"}, {"ints", {"1", 2}}}).ints, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(OneAttribute({{"name", "a"}, {"floats", {0.5, "NaN"}}}).floats.size(), 2u);
  EXPECT_TRUE(std::isnan(OneAttribute({{"name", "a"}, {"f", "NaN"}}).f));
  EXPECT_EQ(OneAttribute({{"name", "a"}, {"f", "-Infinity"}}).f,
            -std::numeric_limits<float>::infinity());
  // Protobuf's JSON mapping leaves default values out.
  Attribute zero = OneAttribute({{"name", "a"}, {"type", "INT"}});
  EXPECT_EQ(zero.type, Attribute::Type::kInt);
  EXPECT_EQ(zero.i, 0);
  EXPECT_EQ(OneAttribute({{"name", "a"}, {"type", 7}}).type, Attribute::Type::kInts);
  EXPECT_EQ(OneAttribute({{"name", "a"}, {"type", "ints"}, {"ints", {4}}}).ints[0], 4);
  // `bytes` as base64 (protobuf's mapping) or plain text (JS exporters).
  EXPECT_EQ(OneAttribute({{"name", "a"}, {"type", "STRING"}, {"s", "U0FNRV9VUFBFUg=="}}).s,
            "SAME_UPPER");
  EXPECT_EQ(OneAttribute({{"name", "a"}, {"s", "SAME_UPPER"}}).s, "SAME_UPPER");
  EXPECT_EQ(OneAttribute({{"name", "a"}, {"s", "constant"}}).s, "constant");
  EXPECT_EQ(OneAttribute({{"name", "a"}, {"strings", {"ZWRnZQ==", "edge"}}}).strings,
            (std::vector<std::string>{"edge", "edge"}));
  Attribute t = OneAttribute(
      {{"name", "a"}, {"t", {{"data_type", "INT64"}, {"dims", {2}}, {"int64_data", {5, 6}}}}});
  ASSERT_EQ(t.type, Attribute::Type::kTensor);
  EXPECT_EQ(t.t.ptr<int64_t>()[1], 6);
}

TEST(JsonOnnxDialect, TensorEncodings) {
  auto load_tensor = [](const json& t, Tensor* out) {
    json doc = {{"graph", {{"initializer", {t}}, {"output", {{{"name", t["name"]}}}}}}};
    Graph g;
    Status s = Load(doc, &g);
    EXPECT_TRUE(s.ok()) << s.ToString();
    if (s.ok()) *out = g.initializers.begin()->second;
  };
  Tensor t;
  load_tensor({{"name", "a"}, {"data_type", "INT32"}, {"dims", {3}}, {"int32_data", {1, -2, 3}}},
              &t);
  EXPECT_EQ(t.dtype, DType::kInt32);
  EXPECT_EQ(t.ptr<int32_t>()[1], -2);
  load_tensor({{"name", "b"}, {"data_type", "BOOL"}, {"dims", {2}}, {"int32_data", {0, 1}}}, &t);
  EXPECT_EQ(t.dtype, DType::kBool);
  EXPECT_TRUE(t.ptr<bool>()[1]);
  // float16: bit patterns in int32_data, or little-endian raw bytes; widened to float32.
  load_tensor({{"name", "c"}, {"data_type", 10}, {"dims", {2}}, {"int32_data", {0x3c00, 0xc000}}},
              &t);
  EXPECT_EQ(t.dtype, DType::kFloat32);
  EXPECT_EQ(t.ptr<float>()[1], -2.f);
  const uint16_t half[] = {0x3800, 0x4200};
  load_tensor(
      {{"name", "d"}, {"dataType", "FLOAT16"}, {"dims", {"2"}}, {"rawData", Base64(half, 4)}}, &t);
  EXPECT_EQ(t.ptr<float>()[0], 0.5f);
  EXPECT_EQ(t.ptr<float>()[1], 3.f);
  load_tensor({{"name", "e"}, {"data_type", 7}, {"int64_data", {"-9223372036854775808"}}}, &t);
  EXPECT_EQ(t.shape, Shape{});
  EXPECT_EQ(t.ptr<int64_t>()[0], std::numeric_limits<int64_t>::min());
  // Every numeric type, in the typed field ONNX gives it.
  load_tensor({{"name", "f"}, {"data_type", "INT8"}, {"dims", {2}}, {"int32_data", {-128, 127}}},
              &t);
  EXPECT_EQ(t.dtype, DType::kInt8);
  EXPECT_EQ(t.ptr<int8_t>()[0], -128);
  load_tensor({{"name", "g"},
               {"data_type", "UINT64"},
               {"dims", {2}},
               {"uint64_data", {"18446744073709551615", 7}}},
              &t);
  EXPECT_EQ(t.dtype, DType::kUint64);
  EXPECT_EQ(t.ptr<uint64_t>()[0], std::numeric_limits<uint64_t>::max());
  load_tensor(
      {{"name", "h"}, {"data_type", "DOUBLE"}, {"dims", {2}}, {"double_data", {0.1, -1e300}}}, &t);
  EXPECT_EQ(t.dtype, DType::kFloat64);
  EXPECT_EQ(t.ptr<double>()[0], 0.1);
  EXPECT_EQ(t.ptr<double>()[1], -1e300);
  const uint16_t u16[] = {65535, 1};
  load_tensor({{"name", "i"}, {"data_type", "UINT16"}, {"dims", {2}}, {"raw_data", Base64(u16, 4)}},
              &t);
  EXPECT_EQ(t.dtype, DType::kUint16);
  EXPECT_EQ(t.ptr<uint16_t>()[0], 65535);
}

TEST(JsonOnnxDialect, IntegersOutsideTheirTypeAreRefusedWhereTheyStand) {
  json doc = {
      {"graph",
       {{"initializer",
         {{{"name", "a"}, {"data_type", "UINT8"}, {"dims", {2}}, {"int32_data", {1, 256}}}}},
        {"output", {{{"name", "a"}}}}}}};
  ExpectMalformed(doc, "/graph/initializer/0/int32_data/1: 256 does not fit in uint8");
  doc["graph"]["initializer"][0]["data_type"] = "UINT64";
  doc["graph"]["initializer"][0].erase("int32_data");
  doc["graph"]["initializer"][0]["uint64_data"] = {1, "-1"};
  ExpectMalformed(doc, "/graph/initializer/0/uint64_data/1: expected a uint64");
}

TEST(JsonOnnxDialect, ExternalDataFromSideFiles) {
  std::vector<float> bytes = {9, 9, 1, 2, 3, 4};
  JsonExternalFiles files = {
      {"weights.bin", std::string(reinterpret_cast<char*>(bytes.data()), 24)}};
  json t = {{"name", "w"},
            {"dataType", "FLOAT"},
            {"dims", {"4"}},
            {"dataLocation", "EXTERNAL"},
            {"externalData",
             {{{"key", "location"}, {"value", "weights.bin"}},
              {{"key", "offset"}, {"value", "8"}},
              {{"key", "length"}, {"value", "16"}}}}};
  json doc = {{"graph", {{"initializer", {t}}, {"output", {{{"name", "w"}}}}}}};
  Graph g;
  ASSERT_TRUE(Load(doc, &g, files).ok());
  EXPECT_EQ(g.initializers.at("w").ptr<float>()[3], 4.f);
  ExpectError(doc.dump(), ErrorCode::kInvalidArgument,
              "/graph/initializer/0/externalData: the side file 'weights.bin' was not provided");
  doc["graph"]["initializer"][0]["externalData"][1]["value"] = "16";
  ExpectError(doc.dump(), ErrorCode::kMalformedModel,
              "/graph/initializer/0/externalData: needs 16 bytes at offset 16 but 'weights.bin' "
              "has 24 bytes",
              files);
}

// NeatapticTS emits experimental fused LSTM/GRU nodes beside the unfused path; no output reads
// them, so they are dropped instead of failing as unsupported.
TEST(JsonOnnxDialect, DropsSidePathsNoOutputReads) {
  json doc = {{"graph",
               {{"inputs", {{{"name", "x"}, {"type", {{"tensor_type", {{"elem_type", 1}}}}}}}},
                {"outputs", {{{"name", "y"}}}},
                {"node",
                 {{{"op_type", "Relu"}, {"input", {"x"}}, {"output", {"y"}}},
                  {{"op_type", "LSTM"}, {"input", {"x"}}, {"output", {"unused"}}}}}}}};
  Graph g;
  ASSERT_TRUE(Load(doc, &g).ok());
  EXPECT_EQ(g.nodes.size(), 1u);
  ExpectNear(RunDoc(doc, {{"x", {3}, {-1, 0, 2}}}), {0, 0, 2});
}

// Nodes listed after their readers (as documents rewritten by the JS NeatapticTS rules are) are
// sorted before the dead ones are dropped, so none of them is taken for dead.
TEST(JsonOnnxDialect, NodesInAnyOrderSurviveTheDeadNodeDrop) {
  json doc = {{"graph",
               {{"inputs", {{{"name", "x"}, {"type", {{"tensor_type", {{"elem_type", 1}}}}}}}},
                {"outputs", {{{"name", "y"}}}},
                {"node",
                 {{{"op_type", "Neg"}, {"input", {"r"}}, {"output", {"y"}}},
                  {{"op_type", "Relu"}, {"input", {"x"}}, {"output", {"r"}}},
                  {{"op_type", "Tanh"}, {"input", {"x"}}, {"output", {"unread"}}}}}}}};
  Graph g;
  ASSERT_TRUE(Load(doc, &g).ok());
  EXPECT_EQ(g.nodes.size(), 2u);
  ExpectNear(RunDoc(doc, {{"x", {3}, {-1, 0, 2}}}), {0, 0, -2});
}

TEST(JsonOnnxDialect, MetadataValuesThatAreNotStringsAreKeptAsJson) {
  json doc = {{"metadata_props", {{{"key", "layer_sizes"}, {"value", {4, 3}}}}},
              {"graph",
               {{"initializer", {{{"name", "c"}, {"data_type", 1}, {"float_data", {1}}}}},
                {"output", {{{"name", "c"}}}}}}};
  Graph g;
  ASSERT_TRUE(Load(doc, &g).ok());
  EXPECT_EQ(g.metadata.at("layer_sizes"), "[4,3]");
}

TEST(JsonOnnxDialect, MetadataJsonTextKeepsNumbersStringsAndNesting) {
  json value = {{"a", {1, -2.5, 0.1, 1e300, 123456789012345678LL, true, nullptr, "q\"\\\n"}},
                {"b", {{"c", -3}}}};
  json doc = {{"metadata_props", {{{"key", "k"}, {"value", value}}}},
              {"graph",
               {{"initializer", {{{"name", "c"}, {"data_type", 1}, {"float_data", {1}}}}},
                {"output", {{{"name", "c"}}}}}}};
  Graph g;
  ASSERT_TRUE(Load(doc, &g).ok());
  const std::string text = g.metadata.at("k");
  EXPECT_EQ(text,
            "{\"a\":[1,-2.5,0.1,1e+300,123456789012345678,true,null,\"q\\\"\\\\\\u000a\"],"
            "\"b\":{\"c\":-3}}");
  EXPECT_EQ(json::parse(text), value);  // reads back as the same value
}

// --- webnx-graph: ONNX ops ---------------------------------------------------------------------

TEST(JsonWebnxGraph, OnnxOpsPassThroughWithTypedAttributes) {
  // "alpha": 1 is an int in JSON; Gemm's alpha is a float: the float-name table types it.
  json doc = WebnxDoc(
      {{{"name", "x"}, {"dtype", "float32"}, {"shape", {"N", 2}}}}, {"y"},
      {{"w", {{"shape", {2, 2}}, {"data", {{1, 2}, {3, 4}}}}}, {"b", {{"data", {0.25, 0.25}}}}},
      {{{"id", "g"},
        {"op", "Gemm"},
        {"inputs", {"x", "w", "b"}},
        {"attrs", {{"alpha", 1}, {"beta", 2}, {"transB", 1}}}},
       {{"id", "y"},
        {"op", "LeakyRelu"},
        {"inputs", {"g"}},
        {"attrs", {{"alpha", {{"type", "FLOAT"}, {"f", 0.5}}}}}}});
  Graph g;
  ASSERT_TRUE(Load(doc, &g).ok());
  EXPECT_EQ(g.opsets.at(""), kDefaultWebnxGraphOpset);
  EXPECT_EQ(g.inputs[0].dims[0].symbol, "N");
  // x @ w^T = [-1, -1]; + 2 * 0.25 = [-0.5, -0.5]; LeakyRelu(0.5) = [-0.25, -0.25].
  ExpectNear(RunDoc(doc, {{"x", {1, 2}, {1, -1}}}), {-0.25f, -0.25f});
}

TEST(JsonWebnxGraph, OpsetAndLayoutOverrides) {
  json doc = WebnxDoc({{{"name", "x"}, {"shape", {1, 2, 3, 3}}}}, {"y"}, json::object(),
                      {{{"id", "y"}, {"op", "GlobalAveragePool"}, {"inputs", {"x"}}}});
  doc["opset"] = 13;
  doc["layout"] = "NCHW";  // pooling ops are then ONNX's own
  Graph g;
  ASSERT_TRUE(Load(doc, &g).ok());
  EXPECT_EQ(g.opsets.at(""), 13);
  EXPECT_EQ(CountOps(g, "Transpose"), 0u);
  std::vector<float> x(18);
  for (int i = 0; i < 18; ++i) x[i] = static_cast<float>(i);
  ExpectNear(RunDoc(doc, {{"x", {1, 2, 3, 3}, x}}), {4, 13});
  doc["opset"] = 26;
  ExpectError(doc.dump(), ErrorCode::kUnsupportedOpset, "/opset: opset 26 is not supported");
}

// --- webnx-graph: NHWC vision ops against naive loops ------------------------------------------

TEST(JsonWebnxGraph, Conv2DMatchesNaiveNhwc) {
  const Shape xs = {2, 7, 6, 4};
  const int64_t cout = 6, groups = 2, cin_g = 2;
  auto x = RandomFloats(2 * 7 * 6 * 4, 1);
  auto k = RandomFloats(3 * 2 * cin_g * cout, 2);
  auto bias = RandomFloats(cout, 3);
  Conv2DParams p{3, 2, 2, 1, 1, 0, 2, 1, 1, 2};
  Shape ys;
  auto want = NaiveConvNhwc(x, xs, k, cin_g, cout, groups, p, &ys);
  for (size_t i = 0; i < want.size(); ++i) want[i] += bias[i % cout];
  json doc = WebnxDoc({{{"name", "x"}, {"shape", xs}}}, {"y"},
                      {{"k", TensorJson({3, 2, cin_g, cout}, k)}, {"b", TensorJson({cout}, bias)}},
                      {{{"id", "y"},
                        {"op", "Conv2D"},
                        {"inputs", {"x", "k", "b"}},
                        {"attrs",
                         {{"kernel_shape", {3, 2}},
                          {"strides", {2, 1}},
                          {"pads", {1, 0, 2, 1}},
                          {"dilations", {1, 2}},
                          {"group", groups}}}}});
  Shape got_shape;
  auto got = RunDoc(doc, {{"x", xs, x}}, &got_shape);
  EXPECT_EQ(got_shape, ys);
  ExpectNear(got, want, 1e-4f);
}

TEST(JsonWebnxGraph, DepthwiseConv2DMatchesNaiveNhwc) {
  const Shape xs = {1, 6, 5, 3};
  const int64_t m = 2;
  auto x = RandomFloats(6 * 5 * 3, 4);
  auto k = RandomFloats(3 * 3 * 3 * m, 5);
  Conv2DParams p{3, 3, 2, 2, 1, 1, 1, 1};
  Shape ys;
  // Depthwise = grouped conv with one input channel per group, kernel [Kh,Kw,1,C*M].
  auto want = NaiveConvNhwc(x, xs, k, 1, 3 * m, 3, p, &ys);
  json doc = WebnxDoc({{{"name", "x"}, {"shape", xs}}}, {"y"}, {{"k", TensorJson({3, 3, 3, m}, k)}},
                      {{{"id", "y"},
                        {"op", "DepthwiseConv2D"},
                        {"inputs", {"x", "k"}},
                        {"attrs",
                         {{"kernel_shape", {3, 3}},
                          {"strides", {2, 2}},
                          {"pads", {1, 1, 1, 1}},
                          {"depth_multiplier", m}}}}});
  Shape got_shape;
  auto got = RunDoc(doc, {{"x", xs, x}}, &got_shape);
  EXPECT_EQ(got_shape, ys);
  ExpectNear(got, want, 1e-4f);
}

TEST(JsonWebnxGraph, BatchNormRelu6HardSwishPools) {
  const Shape xs = {1, 4, 5, 3};
  auto x = RandomFloats(60, 6);
  for (auto& v : x) v *= 8;
  std::vector<float> scale = {1, 2, 0.5f}, shift = {0.1f, -0.2f, 3}, mean = {0, 1, -1},
                     var = {1, 4, 0.25f};
  std::vector<float> bn(60), r6(60), hs(60);
  for (int i = 0; i < 60; ++i) {
    const int c = i % 3;
    bn[i] = scale[c] * (x[i] - mean[c]) / std::sqrt(var[c] + 1e-3f) + shift[c];
    r6[i] = std::min(std::max(bn[i], 0.f), 6.f);
    hs[i] = r6[i] * std::min(std::max(r6[i] + 3, 0.f), 6.f) / 6;
  }
  // AveragePool 2x2 stride 2, pads [0,0,0,1] (right), count_include_pad false.
  std::vector<float> pooled;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int c = 0; c < 3; ++c) {
        float sum = 0;
        int count = 0;
        for (int u = 0; u < 2; ++u)
          for (int v = 0; v < 2; ++v) {
            const int yy = 2 * i + u, xx = 2 * j + v;
            if (xx >= 5) continue;
            sum += hs[(yy * 5 + xx) * 3 + c];
            ++count;
          }
        pooled.push_back(sum / count);
      }
  std::vector<float> gap(3, 0.f);
  for (size_t i = 0; i < pooled.size(); ++i) gap[i % 3] += pooled[i] / 6;
  json doc = WebnxDoc(
      {{{"name", "x"}, {"shape", xs}}}, {"pool", "gap"},
      {{"s", TensorJson({3}, scale)},
       {"t", TensorJson({3}, shift)},
       {"m", TensorJson({3}, mean)},
       {"v", TensorJson({3}, var)}},
      {{{"id", "bn"},
        {"op", "BatchNorm"},
        {"inputs", {"x", "s", "t", "m", "v"}},
        {"attrs", {{"epsilon", 1e-3}, {"momentum", 0.99}}}},
       {{"id", "r6"}, {"op", "Relu6"}, {"inputs", {"bn"}}},
       {{"id", "hs"}, {"op", "HardSwish"}, {"inputs", {"r6"}}},
       {{"id", "pool"},
        {"op", "AveragePool"},
        {"inputs", {"hs"}},
        {"attrs", {{"kernel_shape", {2, 2}}, {"strides", {2, 2}}, {"pads", {0, 0, 0, 1}}}}},
       {{"id", "gap"}, {"op", "GlobalAveragePool"}, {"inputs", {"pool"}}}});
  Graph g;
  ASSERT_TRUE(Load(doc, &g).ok());
  std::unique_ptr<Session> session;
  ASSERT_TRUE(Session::CreateFromGraph(std::move(g), SessionOptions(), &session).ok());
  NamedTensor feed{"x", Tensor()};
  ASSERT_TRUE(Tensor::Allocate(DType::kFloat32, xs, &feed.tensor).ok());
  std::memcpy(feed.tensor.data, x.data(), 240);
  std::vector<const Tensor*> outs;
  ASSERT_TRUE(session->Run({feed}, &outs).ok());
  EXPECT_EQ(outs[0]->shape, (Shape{1, 2, 3, 3}));
  EXPECT_EQ(outs[1]->shape, (Shape{1, 1, 1, 3}));
  ExpectNear(std::vector<float>(outs[0]->ptr<float>(), outs[0]->ptr<float>() + 18), pooled, 1e-4f);
  ExpectNear(std::vector<float>(outs[1]->ptr<float>(), outs[1]->ptr<float>() + 3), gap, 1e-4f);
  // The same with HardSwish lowered for opset 13 (HardSigmoid * x).
  doc["opset"] = 13;
  Graph g13;
  ASSERT_TRUE(Load(doc, &g13).ok());
  EXPECT_EQ(CountOps(g13, "HardSwish"), 0u);
  EXPECT_EQ(CountOps(g13, "HardSigmoid"), 1u);
  ExpectNear(RunDoc(doc, {{"x", xs, x}}), pooled, 1e-4f);
}

// An inverted residual block: expand 1x1, depthwise 3x3, project 1x1, residual Add. Inside, it
// stays NCHW: one transpose in, one out.
TEST(JsonWebnxGraph, NhwcChainStaysNchwInside) {
  const Shape xs = {1, 5, 5, 4};
  auto x = RandomFloats(100, 7);
  auto k1 = RandomFloats(4 * 8, 8), kd = RandomFloats(9 * 8, 9), k2 = RandomFloats(8 * 4, 10);
  json doc = WebnxDoc({{{"name", "x"}, {"shape", xs}}}, {"y"},
                      {{"k1", TensorJson({1, 1, 4, 8}, k1)},
                       {"kd", TensorJson({3, 3, 8, 1}, kd)},
                       {"k2", TensorJson({1, 1, 8, 4}, k2)}},
                      {{{"id", "e"}, {"op", "Conv2D"}, {"inputs", {"x", "k1"}}},
                       {{"id", "e6"}, {"op", "Relu6"}, {"inputs", {"e"}}},
                       {{"id", "d"},
                        {"op", "DepthwiseConv2D"},
                        {"inputs", {"e6", "kd"}},
                        {"attrs", {{"pads", {1, 1, 1, 1}}}}},
                       {{"id", "d6"}, {"op", "Relu6"}, {"inputs", {"d"}}},
                       {{"id", "p"}, {"op", "Conv2D"}, {"inputs", {"d6", "k2"}}},
                       {{"id", "y"}, {"op", "Add"}, {"inputs", {"x", "p"}}}});
  Graph g;
  ASSERT_TRUE(Load(doc, &g).ok());
  EXPECT_EQ(CountOps(g, "Transpose"), 2u);
  EXPECT_EQ(CountOps(g, "Conv"), 3u);
  EXPECT_EQ(CountOps(g, "Clip"), 2u);
  // The HWIO source kernels are gone; only their OIHW copies stay.
  EXPECT_EQ(g.initializers.count("k1"), 0u);
  Shape s;
  auto e = NaiveConvNhwc(x, xs, k1, 4, 8, 1, {1, 1}, &s);
  for (auto& v : e) v = std::min(std::max(v, 0.f), 6.f);
  auto d = NaiveConvNhwc(e, s, kd, 1, 8, 8, {3, 3, 1, 1, 1, 1, 1, 1}, &s);
  for (auto& v : d) v = std::min(std::max(v, 0.f), 6.f);
  auto p = NaiveConvNhwc(d, s, k2, 8, 4, 1, {1, 1}, &s);
  for (size_t i = 0; i < p.size(); ++i) p[i] += x[i];
  ExpectNear(RunDoc(doc, {{"x", xs, x}}), p, 1e-4f);
}

TEST(JsonWebnxGraph, ConcatOfNhwcValuesAndAttributeFormReshape) {
  const Shape xs = {1, 2, 2, 3};
  auto x = RandomFloats(12, 11);
  auto k = RandomFloats(3 * 2, 12);
  json doc = WebnxDoc(
      {{{"name", "x"}, {"shape", xs}}}, {"y"}, {{"k", TensorJson({1, 1, 3, 2}, k)}},
      {{{"id", "a"}, {"op", "Conv2D"}, {"inputs", {"x", "k"}}},
       {{"id", "b"}, {"op", "Relu"}, {"inputs", {"a"}}},
       {{"id", "c"}, {"op", "Concat"}, {"inputs", {"a", "b"}}, {"attrs", {{"axis", -1}}}},
       {{"id", "y"}, {"op", "Reshape"}, {"inputs", {"c"}}, {"attrs", {{"shape", {1, -1}}}}}});
  Shape s;
  auto a = NaiveConvNhwc(x, xs, k, 3, 2, 1, {1, 1}, &s);
  std::vector<float> want;
  for (size_t i = 0; i < a.size(); i += 2) {
    want.insert(want.end(), {a[i], a[i + 1], std::max(a[i], 0.f), std::max(a[i + 1], 0.f)});
  }
  Shape ys;
  ExpectNear(RunDoc(doc, {{"x", xs, x}}, &ys), want);
  EXPECT_EQ(ys, (Shape{1, 16}));
  Graph g;
  ASSERT_TRUE(Load(doc, &g).ok());
  EXPECT_EQ(CountOps(g, "Transpose"), 2u);  // into the conv, out after the concat
}

TEST(JsonWebnxGraph, MatMulTransposes) {
  std::vector<float> a = {1, 2, 3, 4, 5, 6};  // [2,3]
  std::vector<float> b = {1, 0, 2, 1, 0, 1};  // stored [2,3], used as [3,2] by transB
  // a @ b^T = [[1+4, 2+3... computed below
  std::vector<float> want(4);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      for (int t = 0; t < 3; ++t) want[i * 2 + j] += a[i * 3 + t] * b[j * 3 + t];
  json doc = WebnxDoc({{{"name", "a"}, {"shape", {2, 3}}}}, {"y"}, {{"b", TensorJson({2, 3}, b)}},
                      {{{"id", "y"},
                        {"op", "MatMul"},
                        {"inputs", {"a", "b"}},
                        {"attrs", {{"transA", false}, {"transB", true}}}}});
  ExpectNear(RunDoc(doc, {{"a", {2, 3}, a}}), want);
  // transA on a computed operand: a Transpose node. (a^T)^T... feed a^T and transpose it back.
  std::vector<float> at = {1, 4, 2, 5, 3, 6};
  doc["nodes"][0]["attrs"] = {{"transA", 1}, {"transB", 1}};
  doc["inputs"][0]["shape"] = {3, 2};
  ExpectNear(RunDoc(doc, {{"a", {3, 2}, at}}), want);
}

TEST(JsonWebnxGraph, EditorStyleInputAndConstantNodes) {
  json doc = {{"format", "webnx-graph"},
              {"outputs", {"y"}},
              {"nodes",
               {{{"id", "x"}, {"op", "Input"}, {"dtype", "float32"}, {"shape", {2, 2}}},
                {{"id", "c"},
                 {"op", "Constant"},
                 {"tensor", {{"dtype", "float32"}, {"shape", {2, 2}}, {"data", {{1, 2}, {3, 4}}}}}},
                {{"id", "k"}, {"op", "Constant"}, {"attrs", {{"value_float", 2}}}},
                {{"id", "m"}, {"op", "Mul"}, {"inputs", {"x", "k"}}},
                {{"op", "Add"}, {"inputs", {"m", "c"}}, {"output", "y"}}}}};
  ExpectNear(RunDoc(doc, {{"x", {2, 2}, {1, 1, 1, 1}}}), {3, 4, 5, 6});
  // An Input node may just name a value declared in "inputs".
  doc["inputs"] = {{{"name", "x"}, {"shape", {2, 2}}}};
  doc["nodes"][0] = {{"id", "x"}, {"op", "Input"}};
  ExpectNear(RunDoc(doc, {{"x", {2, 2}, {0, 0, 0, 0}}}), {1, 2, 3, 4});
}

// Every numeric dtype name, as number arrays and as base64.
TEST(JsonWebnxGraph, TensorsOfEveryNumericDType) {
  const int8_t bytes[] = {-1, 2, -3};
  json doc = WebnxDoc({{{"name", "x"}, {"shape", {3}}}}, {"y"},
                      {{"a", {{"dtype", "float64"}, {"shape", {3}}, {"data", {0.1, 2, -3}}}},
                       {"b", {{"dtype", "int8"}, {"shape", {3}}, {"base64", Base64(bytes, 3)}}},
                       {"c", {{"dtype", "uint32"}, {"shape", {1}}, {"data", {4000000000u}}}}},
                      {{{"id", "y"}, {"op", "Add"}, {"inputs", {"x", "x"}}}});
  doc["outputs"] = {"y", "a", "b", "c"};
  Graph g;
  const Status s = LoadJsonModel(doc.dump().c_str(), doc.dump().size(), {}, &g);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(g.initializers["a"].dtype, DType::kFloat64);
  EXPECT_EQ(g.initializers["a"].ptr<double>()[0], 0.1);
  EXPECT_EQ(g.initializers["b"].dtype, DType::kInt8);
  EXPECT_EQ(g.initializers["b"].ptr<int8_t>()[2], -3);
  EXPECT_EQ(g.initializers["c"].dtype, DType::kUint32);
  EXPECT_EQ(g.initializers["c"].ptr<uint32_t>()[0], 4000000000u);
}

TEST(JsonWebnxGraph, TensorDataInlineBase64AndSideFiles) {
  std::vector<float> side = {0, 0, 0, 10, 20, 30};
  JsonExternalFiles files = {{"w.bin", std::string(reinterpret_cast<char*>(side.data()), 24)}};
  const uint16_t half[] = {0x3c00, 0x4000, 0x4200};  // 1, 2, 3
  json doc = WebnxDoc({{{"name", "x"}, {"shape", {3}}}}, {"y"},
                      {{"a", {{"dtype", "float32"}, {"shape", {3}}, {"data", {1, "Infinity", 3}}}},
                       {"b", {{"dtype", "float16"}, {"shape", {3}}, {"base64", Base64(half, 6)}}},
                       {"c", {{"shape", {3}}, {"file", "w.bin"}, {"offset", 12}, {"length", 12}}}},
                      {{{"id", "ab"}, {"op", "Min"}, {"inputs", {"a", "b"}}},
                       {{"id", "abc"}, {"op", "Add"}, {"inputs", {"ab", "c"}}},
                       {{"id", "y"}, {"op", "Add"}, {"inputs", {"abc", "x"}}}});
  ExpectNear(RunDoc(doc, {{"x", {3}, {0, 0, 1}}}, nullptr, files), {11, 22, 34});
  ExpectError(doc.dump(), ErrorCode::kInvalidArgument,
              "/tensors/c: the side file 'w.bin' was not provided");
}

// The examples in examples/dsl/ (scripts/gen_dsl_examples.py) load into plain ONNX graphs.
std::string ReadExample(const std::string& name) {
  std::string path = __FILE__;
  path = path.substr(0, path.rfind("tests/unit/")) + "examples/dsl/" + name;
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return "";
  std::string text;
  char buf[65536];
  for (size_t n; (n = std::fread(buf, 1, sizeof(buf), f)) > 0;) text.append(buf, n);
  std::fclose(f);
  return text;
}

TEST(JsonExamples, LowerToRegisteredOnnxOpsOnly) {
  for (const char* name :
       {"mobilenet_v2_block.json", "neataptic_mlp.json", "neataptic_mixed_activation.json",
        "neataptic_recurrent.json", "neataptic_conv.json"}) {
    const std::string text = ReadExample(name);
    ASSERT_FALSE(text.empty()) << name;
    Graph g;
    Status s = Load(text, &g);
    ASSERT_TRUE(s.ok()) << name << ": " << s.ToString();
    for (const auto& node : g.nodes) {
      EXPECT_TRUE(OpRegistry::Default().Knows(node.domain, node.op_type))
          << name << ": " << node.Describe();
    }
    std::unique_ptr<Session> session;
    s = Session::CreateFromGraph(std::move(g), SessionOptions(), &session);
    EXPECT_TRUE(s.ok()) << name << ": " << s.ToString();
  }
  Graph mobilenet;
  ASSERT_TRUE(Load(ReadExample("mobilenet_v2_block.json"), &mobilenet).ok());
  // One layout change at the image, one where the pooled features leave for Reshape.
  EXPECT_EQ(CountOps(mobilenet, "Transpose"), 2u);
  EXPECT_EQ(CountOps(mobilenet, "Conv"), 16u);
  EXPECT_EQ(mobilenet.inputs[0].dims[0].symbol, "N");
  Graph recurrent;
  ASSERT_TRUE(Load(ReadExample("neataptic_recurrent.json"), &recurrent).ok());
  EXPECT_EQ(CountOps(recurrent, "GRU"), 0u);  // the exporter's unread fused node
  EXPECT_EQ(recurrent.initializers.count("GRU_W0"), 0u);
}

// --- errors ------------------------------------------------------------------------------------

json ConvDoc() {
  return WebnxDoc(
      {{{"name", "x"}, {"shape", {1, 4, 4, 1}}}}, {"y"},
      {{"k", {{"shape", {1, 1, 1, 1}}, {"data", {1}}}}},
      {{{"id", "y"}, {"op", "Conv2D"}, {"inputs", {"x", "k"}}, {"attrs", {{"strides", {1, 1}}}}}});
}

TEST(JsonErrors, PointerToTheOffendingAttribute) {
  json doc = ConvDoc();
  doc["nodes"][0]["attrs"]["strides"] = {1, 1, 1};
  Graph g;
  Status s = Load(doc, &g);
  EXPECT_EQ(s.ToString(), "MalformedModel: /nodes/0/attrs/strides: expected 2 integers, got 3");
  doc = ConvDoc();
  doc["nodes"][0]["attrs"] = {{"stride", {1, 1}}};
  ExpectMalformed(doc, "/nodes/0/attrs/stride: Conv2D has no attribute 'stride' (it takes ");
  doc = ConvDoc();
  doc["nodes"][0]["attrs"] = {{"pads", {0, -1, 0, 0}}};
  ExpectMalformed(doc, "/nodes/0/attrs/pads/1: must be at least 0, got -1");
  doc = ConvDoc();
  doc["nodes"][0]["attrs"] = {{"kernel_shape", {3, 3}}};
  ExpectMalformed(doc, "/nodes/0/attrs/kernel_shape: is [3, 3] but the kernel is [1,1,1,1]");
  doc = ConvDoc();
  doc["tensors"]["k"] = {{"shape", {1, 1, 1}}, {"data", {1}}};
  ExpectMalformed(doc, "/nodes/0/inputs/1: Conv2D kernel must be 4-D");
  doc = ConvDoc();
  doc["nodes"][0]["op"] = "DepthwiseConv2D";
  doc["nodes"][0]["inputs"] = {"x", "x"};
  doc["nodes"][0]["attrs"] = json::object();
  ExpectMalformed(doc, "/nodes/0/inputs/1: DepthwiseConv2D needs a constant kernel");
  doc = ConvDoc();
  doc["nodes"][0]["op"] = "AveragePool";
  doc["nodes"][0]["inputs"] = {"x"};
  ExpectMalformed(doc, "/nodes/0/attrs/kernel_shape: AveragePool needs kernel_shape");
  doc = ConvDoc();
  doc["nodes"][0]["op"] = "BatchNorm";
  ExpectMalformed(doc, "/nodes/0/inputs: BatchNorm takes 5 inputs, got 2");
}

TEST(JsonErrors, StructuralProblemsNameTheirPlace) {
  json doc = ConvDoc();
  doc["inputs"] = 5;
  ExpectMalformed(doc, "/inputs: expected an array, got an integer");
  doc = ConvDoc();
  doc["nodes"][0].erase("op");
  ExpectMalformed(doc, "/nodes/0: the node has no op");
  doc = ConvDoc();
  doc["nodes"][0]["inputs"][0] = "nope";
  ExpectMalformed(doc, "/nodes/0/inputs/0: 'nope' is not defined");
  doc = ConvDoc();
  doc["nodes"][0]["inputs"][1] = 7;
  ExpectMalformed(doc, "/nodes/0/inputs/1: expected a string, got an integer");
  doc = ConvDoc();
  doc["nodes"].push_back({{"id", "y"}, {"op", "Relu"}, {"inputs", {"x"}}});
  ExpectMalformed(doc, "/nodes/1/id: 'y' is already defined at /nodes/0/id");
  doc = ConvDoc();
  doc["nodes"][0]["input"] = {"x"};
  ExpectMalformed(doc, "/nodes/0/input: unknown field of a node");
  doc = ConvDoc();
  doc["outputs"] = {"z"};
  ExpectMalformed(doc, "/outputs/0: graph output 'z' is not defined");
  doc = ConvDoc();
  doc["version"] = 2;
  ExpectMalformed(doc, "/version: webnx reads webnx-graph version 1, this is version 2");
  doc = ConvDoc();
  doc["format"] = "tfjs";
  ExpectMalformed(doc, "/format: unknown format");
  doc = ConvDoc();
  doc["tensors"]["k"]["data"] = json::array();
  ExpectMalformed(doc, "/tensors/k/data: has 0 values but the shape [1,1,1,1] needs 1");
  doc = ConvDoc();
  doc["tensors"]["k"] = {{"dtype", "bfloat16"}, {"shape", {1}}, {"data", {1}}};
  ExpectError(doc.dump(), ErrorCode::kUnsupportedDtype, "/tensors/k/dtype: dtype 'bfloat16'");
  doc = ConvDoc();
  doc["tensors"]["a/b~c"] = {{"shape", {2}}, {"data", {1, "x"}}};
  ExpectMalformed(doc, "/tensors/a~1b~0c/data/1: expected a number, got a string");
  // A cycle: a -> b -> a.
  doc = WebnxDoc({{{"name", "x"}, {"shape", {1}}}}, {"b"}, json::object(),
                 {{{"id", "a"}, {"op", "Add"}, {"inputs", {"x", "b"}}},
                  {{"id", "b"}, {"op", "Relu"}, {"inputs", {"a"}}}});
  ExpectMalformed(doc, "/nodes/");
  Graph g;
  EXPECT_NE(Load(doc, &g).message().find("cycle: 'b' -> 'a' -> 'b'"), std::string::npos)
      << Load(doc, &g).message();
}

TEST(JsonErrors, OnnxJsonProblemsNameTheirPlace) {
  json doc = {
      {"graph",
       {{"input", {{{"name", "x"}, {"type", {{"tensor_type", {{"elem_type", 1}}}}}}}},
        {"output", {{{"name", "y"}}}},
        {"initializer", {{{"name", "w"}, {"data_type", 1}, {"dims", {2}}, {"float_data", {1, 2}}}}},
        {"node",
         {{{"op_type", "Add"},
           {"input", {"x", "w"}},
           {"output", {"y"}},
           {"attribute", {{{"name", "a"}, {"type", "BANANA"}}}}}}}}}};
  ExpectMalformed(doc, "/graph/node/0/attribute/0/type: 'BANANA' is not a known attribute type");
  doc["graph"]["node"][0].erase("attribute");
  doc["graph"]["initializer"][0]["dims"] = {"x"};
  ExpectMalformed(doc, "/graph/initializer/0/dims/0: expected an integer, got the string 'x'");
  doc["graph"]["initializer"][0]["dims"] = {"99999999999999999999"};
  ExpectMalformed(doc, "/graph/initializer/0/dims/0: expected an integer");
  doc["graph"]["initializer"][0]["dims"] = {3};
  ExpectMalformed(doc, "/graph/initializer/0/float_data: has 2 values but the shape [3] needs 3");
  doc["graph"]["initializer"][0]["dims"] = {2};
  doc["graph"]["initializer"][0]["float_data"] = {1, 1e300};
  ExpectMalformed(doc, "/graph/initializer/0/float_data/1: the number 1e+300 does not fit");
  doc["graph"]["initializer"][0]["float_data"] = {1, 2};
  doc["graph"]["initializer"][0]["data_type"] = "BFLOAT16";
  ExpectError(doc.dump(), ErrorCode::kUnsupportedDtype,
              "/graph/initializer/0/data_type: element type 16 is not supported");
  doc["graph"]["initializer"][0]["data_type"] = 1;
  doc["graph"]["input"][0]["type"]["tensor_type"].erase("elem_type");
  ExpectMalformed(doc, "/graph/input/0/type/tensor_type: graph input 'x' needs a tensor type");
  doc["graph"]["input"][0]["type"]["tensor_type"]["elem_type"] = 1;
  doc["graph"]["node"][0]["op_type"] = 3;
  ExpectMalformed(doc, "/graph/node/0/op_type: expected a string, got an integer");
  doc["graph"]["node"][0]["op_type"] = "Add";
  doc["graph"]["node"][0]["opType"] = "Add";
  ExpectMalformed(doc, "/graph/node/0/opType: both 'op_type' and 'opType' are given");
  doc["graph"]["node"][0].erase("opType");
  doc["opset_import"] = {{{"version", 99}}};
  ExpectError(doc.dump(), ErrorCode::kUnsupportedOpset,
              "/opset_import/0/version: the model imports opset 99");
  doc.erase("opset_import");
  doc["graph"]["node"][0]["output"] = {"x"};
  ExpectMalformed(doc, "/graph/node/0/output/0: 'x' is already defined at /graph/input/0");
}

TEST(JsonErrors, NotJsonEmptyAndWrongRoots) {
  ExpectError("", ErrorCode::kMalformedModel, "the JSON document is empty");
  ExpectError(" \n\t", ErrorCode::kMalformedModel, "the JSON document is empty");
  ExpectError("{\"graph\": {", ErrorCode::kMalformedModel, "not valid JSON: parse error at line 1");
  ExpectError("{\"a\": tru}", ErrorCode::kMalformedModel, "not valid JSON: ");
  ExpectError("[1, 2]", ErrorCode::kMalformedModel,
              "(document): expected a JSON object (a webnx-graph or ONNX-JSON document), got an "
              "array");
  ExpectError("null", ErrorCode::kMalformedModel, "(document): expected a JSON object");
  ExpectError("{}", ErrorCode::kMalformedModel, "(document): not a webnx-graph or ONNX-JSON");
  // A UTF-8 byte order mark is fine.
  Graph g;
  const std::string bom =
      "\xEF\xBB\xBF{\"format\": \"webnx-graph\", \"inputs\": [{\"name\": \"x\"}], \"outputs\": "
      "[\"x\"], \"nodes\": []}";
  EXPECT_TRUE(Load(bom, &g).ok()) << Load(bom, &g).ToString();
}

TEST(JsonErrors, DeepNestingIsRejectedBeforeParsing) {
  std::string deep = "{\"format\": \"webnx-graph\", \"metadata\": {\"a\": ";
  for (int i = 0; i < 100000; ++i) deep += '[';
  ExpectError(deep, ErrorCode::kMalformedModel,
              "/metadata/a/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0");
  Graph g;
  EXPECT_NE(Load(deep, &g).message().find("nests deeper than 256 levels"), std::string::npos);
  // Brackets in strings do not count.
  std::string ok = "{\"format\": \"webnx-graph\", \"doc\": \"" + std::string(1000, '[') +
                   "\", \"outputs\": [\"x\"], \"inputs\": [{\"name\": \"x\"}], \"nodes\": []}";
  EXPECT_TRUE(Load(ok, &g).ok()) << Load(ok, &g).ToString();
}

TEST(JsonErrors, HugeShapesWithLittleDataAreMalformedNotAllocated) {
  json doc = ConvDoc();
  doc["tensors"]["k"] = {{"shape", {1000000000, 1000000000}}, {"data", {1}}};
  ExpectMalformed(doc, "/tensors/k/data: has 1 values but the shape [1000000000,1000000000] needs");
  doc["tensors"]["k"] = {{"shape", {1000000000000, 1000000000000}}, {"data", {1}}};
  ExpectMalformed(doc, "/tensors/k/data: the shape [1000000000000,1000000000000] is too large");
  doc["tensors"]["k"] = {{"shape", {1 << 20, 1 << 20}}, {"base64", "AAAA"}};
  ExpectMalformed(doc, "/tensors/k/base64: has 3 bytes but the shape");
  doc["tensors"]["k"] = {{"shape", {1 << 30}}, {"file", "f"}, {"offset", 1}};
  ExpectError(doc.dump(), ErrorCode::kMalformedModel,
              "/tensors/k: needs 4294967296 bytes at offset 1", {{"f", "abcdef"}});
}

// Mutated documents (truncations, byte flips, swapped values) must fail cleanly or load: no
// crash, no abort, no exception. Runs under ASan in the sanitizer build.
TEST(JsonErrors, MutatedDocumentsNeverCrash) {
  const std::string docs[] = {
      ConvDoc().dump(),
      json{{"graph",
            {{"input", {{{"name", "x"}, {"type", {{"tensor_type", {{"elem_type", 1}}}}}}}},
             {"output", {{{"name", "y"}}}},
             {"node", {{{"op_type", "Relu"}, {"input", {"x"}}, {"output", {"y"}}}}}}}}
          .dump()};
  std::mt19937 rng(1234);
  const char kBytes[] = "{}[]\",:0123456789-eE.tfn \\/\x01\xff";
  int loaded = 0;
  for (const std::string& base : docs) {
    for (int trial = 0; trial < 3000; ++trial) {
      std::string text = base;
      const int edits = 1 + static_cast<int>(rng() % 4);
      for (int e = 0; e < edits; ++e) {
        const size_t at = rng() % text.size();
        switch (rng() % 3) {
          case 0:
            text[at] = kBytes[rng() % (sizeof(kBytes) - 1)];
            break;
          case 1:
            text.erase(at, 1 + rng() % 8);
            break;
          default:
            text.insert(at, 1, kBytes[rng() % (sizeof(kBytes) - 1)]);
        }
        if (text.empty()) text = "{";
      }
      Graph g;
      Status s = Load(text, &g);
      if (s.ok()) {
        ++loaded;
        std::unique_ptr<Session> session;
        (void)Session::CreateFromGraph(std::move(g), SessionOptions(), &session);
      } else {
        EXPECT_NE(s.code(), ErrorCode::kInternal) << s.ToString();
      }
    }
  }
  EXPECT_GT(loaded, 0);  // some edits (inside strings, in numbers) keep a valid document
}

TEST(JsonBase64, DecodesBothAlphabetsWithOrWithoutPadding) {
  std::string out;
  ASSERT_TRUE(jsonl::DecodeBase64("aGVsbG8=", &out));
  EXPECT_EQ(out, "hello");
  ASSERT_TRUE(jsonl::DecodeBase64("aGVsbG8", &out));
  EXPECT_EQ(out, "hello");
  ASSERT_TRUE(jsonl::DecodeBase64("-_8", &out));
  EXPECT_EQ(out, "\xfb\xff");
  EXPECT_FALSE(jsonl::DecodeBase64("a", &out));
  EXPECT_FALSE(jsonl::DecodeBase64("aGV*bG8=", &out));
  EXPECT_FALSE(jsonl::DecodeBase64("a===", &out));
}

}  // namespace
}  // namespace webnx::testing
