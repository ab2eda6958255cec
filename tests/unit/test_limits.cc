// SessionLimits (core/limits.h): each limit gives a coded error naming it, at load, plan or
// run; load-time arity checks; and the hostile values the fuzzers found (kernels' plan-time
// arithmetic on huge pads and sizes) are errors, not undefined behaviour.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>

#include "core/graph_limits.h"
#include "core/limits.h"
#include "core/loaders/json_loader.h"
#include "core/loaders/onnx_loader.h"
#include "core/op_registry.h"
#include "tests/unit/model_builder.h"

namespace webnx::testing {
namespace {

bool HasSubstr(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

#define EXPECT_ERROR(status, expected_code, substring)                \
  do {                                                                \
    const ::webnx::Status _s = (status);                              \
    EXPECT_EQ(_s.code(), (expected_code)) << _s.ToString();           \
    EXPECT_TRUE(HasSubstr(_s.message(), substring)) << _s.ToString(); \
  } while (0)

SessionOptions WithLimits(const SessionLimits& limits) {
  SessionOptions options;
  options.limits = limits;
  return options;
}

// x [N, 4] -> `relus` chained Relus -> y.
ModelBuilder ReluChain(int relus) {
  ModelBuilder b;
  b.Input("x", kOnnxFloat, {"N", 4});
  std::string prev = "x";
  for (int i = 0; i < relus; ++i) {
    const std::string out = i + 1 == relus ? "y" : "r" + std::to_string(i);
    b.Node("Relu", {prev}, {out});
    prev = out;
  }
  b.Output("y", kOnnxFloat, {"N", 4});
  return b;
}

Status RunOnce(Session* session, const Shape& shape) {
  NamedTensor feed{"x", Tensor()};
  WEBNX_RETURN_IF_ERROR(Tensor::Allocate(DType::kFloat32, shape, &feed.tensor));
  std::vector<const Tensor*> outputs;
  return session->Run({feed}, &outputs);
}

TEST(Limits, ShapeChecksAreOverflowSafe) {
  const SessionLimits limits;
  EXPECT_TRUE(CheckShapeLimits({2, 3}, 4, limits, "t").ok());
  EXPECT_TRUE(CheckShapeLimits({0, kMaxTensorBytes}, 8, limits, "t").ok());  // empty
  EXPECT_ERROR(CheckShapeLimits(Shape(33, 1), 4, limits, "t"), ErrorCode::kMalformedModel,
               "t has rank 33; the limit is 32 (limits.maxRank)");
  EXPECT_ERROR(CheckShapeLimits({4, -1}, 4, limits, "t"), ErrorCode::kMalformedModel,
               "negative dimension -1 at axis 1");
  EXPECT_ERROR(CheckShapeLimits({int64_t{1} << 40}, 4, limits, "t"), ErrorCode::kMalformedModel,
               "(limits.maxDimension)");
  EXPECT_ERROR(
      CheckShapeLimits({int64_t{1} << 31, int64_t{1} << 31, int64_t{1} << 31}, 4, limits, "t"),
      ErrorCode::kOutOfMemory, "more than 2^63 elements");
  EXPECT_ERROR(CheckShapeLimits({1 << 20, 1 << 20}, 1, limits, "t"), ErrorCode::kOutOfMemory,
               "has 1099511627776 elements; the limit is 4294967232 (limits.maxTensorElements)");
  EXPECT_ERROR(CheckShapeLimits({1 << 30, 2}, 4, limits, "t"), ErrorCode::kOutOfMemory,
               "needs 8589934592 bytes; the limit is 4294967232 (limits.maxTensorBytes)");
  // Limits above the hard ceiling do not lift it.
  SessionLimits loose;
  loose.max_dimension = loose.max_tensor_elements = loose.max_tensor_bytes = INT64_MAX;
  EXPECT_EQ(CheckShapeLimits({int64_t{1} << 40}, 0, loose, "t").code(), ErrorCode::kMalformedModel);
  EXPECT_EQ(CheckShapeLimits({1 << 30, 8}, 1, loose, "t").code(), ErrorCode::kOutOfMemory);
}

TEST(Limits, NodeCountNamesTheLimit) {
  SessionLimits limits;
  limits.max_nodes = 10;
  std::unique_ptr<Session> session;
  EXPECT_ERROR(CreateSession(ReluChain(11).Bytes(), &session, WithLimits(limits)),
               ErrorCode::kMalformedModel,
               "the model has 11 nodes; the limit is 10 (limits.maxNodes)");
  EXPECT_TRUE(CreateSession(ReluChain(10).Bytes(), &session, WithLimits(limits)).ok());
  // The same limit for graphs from any loader.
  Graph g;
  ASSERT_TRUE(LoadBytes(ReluChain(11).Bytes(), &g).ok());
  EXPECT_ERROR(Session::CreateFromGraph(std::move(g), WithLimits(limits), &session),
               ErrorCode::kMalformedModel, "(limits.maxNodes)");
}

TEST(Limits, GraphDepth) {
  SessionLimits limits;
  limits.max_graph_depth = 5;
  std::unique_ptr<Session> session;
  EXPECT_ERROR(CreateSession(ReluChain(6).Bytes(), &session, WithLimits(limits)),
               ErrorCode::kMalformedModel,
               "the graph is 6 nodes deep; the limit is 5 (limits.maxGraphDepth)");
  EXPECT_TRUE(CreateSession(ReluChain(5).Bytes(), &session, WithLimits(limits)).ok());
}

TEST(Limits, StringLength) {
  SessionLimits limits;
  limits.max_string_length = 16;
  ModelBuilder b = ReluChain(1);
  b.graph().mutable_node(0)->set_name(std::string(17, 'n'));
  std::unique_ptr<Session> session;
  EXPECT_ERROR(CreateSession(b.Bytes(), &session, WithLimits(limits)), ErrorCode::kMalformedModel,
               "the name of node 0 is 17 bytes long; the limit is 16 (limits.maxStringLength)");
  ModelBuilder attr = ReluChain(1);
  NodeRef(attr.graph().mutable_node(0)).String("note", std::string(100, 's'));
  EXPECT_ERROR(CreateSession(attr.Bytes(), &session, WithLimits(limits)),
               ErrorCode::kMalformedModel, "attribute 'note'");
}

TEST(Limits, SubgraphNesting) {
  // An If whose then-branch nests `depth` Ifs.
  auto nested = [](int depth) {
    ModelBuilder b;
    b.Input("c", kOnnxBool, {});
    onnx::GraphProto body;
    body.set_name("leaf");
    for (int level = 0; level < depth; ++level) {
      onnx::GraphProto outer;
      auto* node = outer.add_node();
      node->set_op_type("If");
      node->set_name("if" + std::to_string(level));
      auto* attr = node->add_attribute();
      attr->set_name("then_branch");
      attr->set_type(onnx::AttributeProto::GRAPH);
      *attr->mutable_g() = body;
      body = outer;
    }
    *b.graph().add_node() = body.node(0);
    return b.Bytes();
  };
  SessionLimits limits;
  limits.max_subgraph_depth = 3;
  Graph g;
  EXPECT_ERROR(LoadOnnxModel(reinterpret_cast<const uint8_t*>(nested(4).data()), nested(4).size(),
                             limits, &g),
               ErrorCode::kMalformedModel,
               "nests subgraphs at depth 4; the limit is 3 (limits.maxSubgraphDepth)");
  // Within the limit, loading goes on to the Ifs themselves: these have no condition.
  std::unique_ptr<Session> session;
  EXPECT_ERROR(CreateSession(nested(3), &session, WithLimits(limits)), ErrorCode::kMalformedModel,
               "node 'if2' (If) has 0 inputs; If-13 takes 1");
  // Nodes inside subgraphs count against maxNodes with the main graph's.
  limits.max_nodes = 2;
  EXPECT_ERROR(CreateSession(nested(3), &session, WithLimits(limits)), ErrorCode::kMalformedModel,
               "the model has 3 nodes with its subgraphs'; the limit is 2 (limits.maxNodes)");
}

TEST(Limits, InitializerBytesBeforeAllocating) {
  SessionLimits limits;
  limits.max_initializer_bytes = 100;
  ModelBuilder b;
  b.FloatInit("a", {20}, std::vector<float>(20, 1.f));  // 80 bytes
  b.FloatInit("b", {20}, std::vector<float>(20, 1.f));  // 160 in all
  b.Node("Add", {"a", "b"}, {"y"});
  b.Output("y", kOnnxFloat, {20});
  Graph g;
  const std::string bytes = b.Bytes();
  EXPECT_ERROR(
      LoadOnnxModel(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), limits, &g),
      ErrorCode::kOutOfMemory, "160 bytes; the limit is 100 (limits.maxInitializerBytes)");
}

TEST(Limits, FoldedConstantsCountAsInitializers) {
  ModelBuilder b;
  b.Int64Init("shape", {2}, {1000, 1000});
  b.Node("ConstantOfShape", {"shape"}, {"y"});
  b.Output("y", kOnnxFloat, {1000, 1000});
  SessionLimits limits;
  limits.max_initializer_bytes = 1 << 20;
  std::unique_ptr<Session> session;
  EXPECT_ERROR(CreateSession(b.Bytes(), &session, WithLimits(limits)), ErrorCode::kOutOfMemory,
               "(limits.maxInitializerBytes)");
  limits = SessionLimits();
  limits.max_tensor_elements = 1000;
  EXPECT_ERROR(CreateSession(b.Bytes(), &session, WithLimits(limits)), ErrorCode::kOutOfMemory,
               "output 'y' of shape [1000,1000] has 1000000 elements");
}

TEST(Limits, ArenaAndTensorBytesAtPlanTimeLeaveTheSessionUsable) {
  SessionLimits limits;
  limits.max_arena_bytes = 4096;
  std::unique_ptr<Session> session;
  ASSERT_TRUE(CreateSession(ReluChain(3).Bytes(), &session, WithLimits(limits)).ok());
  EXPECT_ERROR(RunOnce(session.get(), {1000, 4}), ErrorCode::kOutOfMemory,
               "bytes for activations and plan-time constants; the limit is 4096 "
               "(limits.maxArenaBytes)");
  EXPECT_TRUE(RunOnce(session.get(), {8, 4}).ok());
  limits = SessionLimits();
  limits.max_tensor_bytes = 1024;
  ASSERT_TRUE(CreateSession(ReluChain(3).Bytes(), &session, WithLimits(limits)).ok());
  EXPECT_ERROR(RunOnce(session.get(), {1000, 4}), ErrorCode::kOutOfMemory,
               "(limits.maxTensorBytes)");
  EXPECT_TRUE(RunOnce(session.get(), {8, 4}).ok());
}

TEST(Limits, ScopedTensorByteLimitCapsEveryAllocation) {
  Tensor t;
  {
    ScopedTensorByteLimit cap(256);
    EXPECT_EQ(CurrentTensorByteLimit(), 256);
    EXPECT_TRUE(Tensor::Allocate(DType::kFloat32, {64}, &t).ok());
    EXPECT_ERROR(Tensor::Allocate(DType::kFloat32, {65}, &t), ErrorCode::kOutOfMemory,
                 "limits.maxTensorBytes");
    {
      ScopedTensorByteLimit inner(1 << 20);
      EXPECT_TRUE(Tensor::Allocate(DType::kFloat32, {65}, &t).ok());
    }
    EXPECT_EQ(CurrentTensorByteLimit(), 256);
  }
  EXPECT_EQ(CurrentTensorByteLimit(), kMaxTensorBytes);
  // Exactly 4 GiB would wrap wasm32's size_t to 0: the ceiling is 64 bytes below it.
  EXPECT_EQ(Tensor::Allocate(DType::kFloat32, {int64_t{1} << 30}, &t).code(),
            ErrorCode::kOutOfMemory);
}

TEST(Limits, FeedsOutsideTheLimits) {
  std::unique_ptr<Session> session;
  ModelBuilder b;
  b.InputNoShape("x", kOnnxFloat);
  b.Node("Relu", {"x"}, {"y"});
  b.Output("y", kOnnxFloat, {});
  ASSERT_TRUE(CreateSession(b.Bytes(), &session).ok());
  // An empty tensor with a dim no real tensor could have.
  NamedTensor feed{"x", Tensor::Borrow(DType::kFloat32, {0, int64_t{1} << 40}, nullptr)};
  std::vector<const Tensor*> outputs;
  EXPECT_ERROR(session->Run({feed}, &outputs), ErrorCode::kInvalidInput, "(limits.maxDimension)");
  Shape rank40(40, 1);
  rank40[0] = 0;
  feed.tensor = Tensor::Borrow(DType::kFloat32, rank40, nullptr);
  EXPECT_ERROR(session->Run({feed}, &outputs), ErrorCode::kInvalidInput, "(limits.maxRank)");
  EXPECT_TRUE(RunOnce(session.get(), {2, 2}).ok());
}

TEST(Arity, WrongInputOrOutputCountsFailAtLoad) {
  std::unique_ptr<Session> session;
  ModelBuilder two;
  two.Input("x", kOnnxFloat, {2});
  two.Node("Relu", {"x", "x"}, {"y"}, "relu");
  two.Output("y", kOnnxFloat, {2});
  EXPECT_ERROR(CreateSession(two.Bytes(), &session), ErrorCode::kMalformedModel,
               "node 'relu' (Relu) has 2 inputs; Relu-13 takes 1");
  ModelBuilder outs;
  outs.Input("x", kOnnxFloat, {2});
  outs.Node("Add", {"x", "x"}, {"y", "z"}, "add");
  outs.Output("y", kOnnxFloat, {2});
  EXPECT_ERROR(CreateSession(outs.Bytes(), &session), ErrorCode::kMalformedModel,
               "node 'add' (Add) has 2 outputs; Add-13 produces 1");
  ModelBuilder concat;
  concat.Input("x", kOnnxFloat, {2});
  concat.Node("Concat", {}, {"y"}, "concat").Int("axis", 0);
  concat.Output("y", kOnnxFloat, {2});
  EXPECT_ERROR(CreateSession(concat.Bytes(), &session), ErrorCode::kMalformedModel,
               "has 0 inputs; Concat-13 takes 1 or more");
  // Omitted optional inputs ("") still count as positions.
  ModelBuilder clip(13);
  clip.Input("x", kOnnxFloat, {2});
  clip.FloatInit("hi", {}, {1.f});
  clip.Node("Clip", {"x", "", "hi"}, {"y"});
  clip.Output("y", kOnnxFloat, {2});
  EXPECT_TRUE(CreateSession(clip.Bytes(), &session).ok());
}

// Found by fuzz_mutate: a ReduceL2 node without outputs reached its kernel, which wrote output 0.
TEST(Arity, MissingOrUnnamedRequiredOutputsFailAtLoad) {
  for (const std::vector<std::string>& outputs : std::vector<std::vector<std::string>>{{}, {""}}) {
    ModelBuilder b(12);
    b.Input("x", kOnnxFloat, {2, 2});
    b.Node("ReduceL2", {"x"}, outputs, "reduce");
    b.Node("Relu", {"x"}, {"y"});
    b.Output("y", kOnnxFloat, {2, 2});
    std::unique_ptr<Session> session;
    EXPECT_EQ(CreateSession(b.Bytes(), &session).code(), ErrorCode::kMalformedModel);
  }
}

// Found by fuzz_onnx: pads fed at run time near INT64_MAX overflowed Pad's output arithmetic.
TEST(HostileValues, PadWithHugePads) {
  for (int64_t pad : {std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min(),
                      int64_t{1} << 40}) {
    ModelBuilder b(13);
    b.Input("x", kOnnxFloat, {2, 3});
    b.Int64Init("pads", {4}, {0, pad, 0, 1});
    b.Node("Pad", {"x", "pads"}, {"y"}).String("mode", "reflect");
    b.Output("y", kOnnxFloat, {});
    std::unique_ptr<Session> session;
    ASSERT_TRUE(CreateSession(b.Bytes(), &session).ok());
    Status s = RunOnce(session.get(), {2, 3});
    EXPECT_FALSE(s.ok());
    EXPECT_TRUE(s.code() == ErrorCode::kOutOfMemory || s.code() == ErrorCode::kShapeMismatch)
        << s.ToString();
  }
}

// Found by fuzz_onnx: Resize sizes near INT64_MAX with keep_aspect_ratio_policy cast a double
// beyond int64.
TEST(HostileValues, ResizeKeepAspectRatioWithHugeSizes) {
  ModelBuilder b(18);
  b.Input("x", kOnnxFloat, {1, 1, 2, 2});
  b.Int64Init("sizes", {2}, {std::numeric_limits<int64_t>::max(), 4});
  b.Node("Resize", {"x", "", "", "sizes"}, {"y"})
      .Ints("axes", {2, 3})
      .String("keep_aspect_ratio_policy", "not_smaller");
  b.Output("y", kOnnxFloat, {});
  std::unique_ptr<Session> session;
  ASSERT_TRUE(CreateSession(b.Bytes(), &session).ok());
  EXPECT_ERROR(RunOnce(session.get(), {1, 1, 2, 2}), ErrorCode::kShapeMismatch, "too large");
}

// Found by fuzz_json: an unterminated string ending in a backslash made the depth pre-check
// read one byte past the document.
TEST(HostileValues, JsonUnterminatedStringEndingInABackslash) {
  for (const std::string text : {"\"s\\", "{\"a\": [\"x\\", "[\"\\"}) {
    const std::vector<char> exact(text.begin(), text.end());  // no terminator after it
    Graph g;
    EXPECT_EQ(LoadJsonModel(exact.data(), exact.size(), &g).code(), ErrorCode::kMalformedModel)
        << text;
  }
}

}  // namespace
}  // namespace webnx::testing
