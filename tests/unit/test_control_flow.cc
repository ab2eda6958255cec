// If, Loop and Scan (kernels/control_flow_*.cc) through whole sessions: conditions known when
// the plan is made and only when it runs, outer-scope values (run-time inputs and constants)
// read from branches at any depth, loops ended by their trip count or by their data, bodies
// planned per iteration, scans along any axis in either direction; and the errors for what a
// plan cannot hold (outputs whose shape only the run decides).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/unit/model_builder.h"
#include "tests/unit/op_runner.h"

namespace webnx::testing {
namespace {

// Runs with named feeds; returns output k's floats.
std::vector<float> RunFloats(Session* session, const std::vector<NamedTensor>& feeds,
                             size_t k = 0) {
  std::vector<const Tensor*> outputs;
  Status s = session->Run(feeds, &outputs);
  EXPECT_TRUE(s.ok()) << s.ToString();
  if (!s.ok() || outputs.size() <= k) return {};
  const Tensor& t = *outputs[k];
  return std::vector<float>(t.ptr<float>(), t.ptr<float>() + t.numel());
}

Tensor Bool(bool v) {
  Tensor t;
  EXPECT_TRUE(Tensor::Allocate(DType::kBool, {}, &t).ok());
  t.ptr<bool>()[0] = v;
  return t;
}

// y = If(c) over two branches, each reading x ([3], a run-time input) and w (a constant) of the
// main graph as it likes.
std::string IfModel(ModelBuilder& then_b, ModelBuilder& else_b) {
  ModelBuilder mb;
  mb.Input("c", kOnnxBool, {});
  mb.Input("x", kOnnxFloat, {3});
  mb.FloatInit("w", {3}, {1.f, 2.f, 3.f});
  mb.Node("If", {"c"}, {"y"}, "if")
      .Graph("then_branch", then_b.graph())
      .Graph("else_branch", else_b.graph());
  mb.Output("y", kOnnxFloat, {3});
  return mb.Bytes();
}

// y = c ? x + w : x * w.
std::string IfOnInputModel() {
  ModelBuilder then_b, else_b;
  then_b.Node("Add", {"x", "w"}, {"t"});
  then_b.Output("t", kOnnxFloat, {3});
  else_b.Node("Mul", {"x", "w"}, {"e"});
  else_b.Output("e", kOnnxFloat, {3});
  return IfModel(then_b, else_b);
}

TEST(ControlFlow, IfOnAConditionKnownWhenPlanned) {
  std::unique_ptr<Session> session;
  ASSERT_TRUE(CreateSession(IfOnInputModel(), &session).ok());
  const Tensor x = MakeFloat({3}, {1.f, -1.f, 0.5f});
  EXPECT_EQ(RunFloats(session.get(), {{"c", Bool(true)}, {"x", x}}),
            (std::vector<float>{2.f, 1.f, 3.5f}));
  EXPECT_EQ(RunFloats(session.get(), {{"c", Bool(false)}, {"x", x}}),
            (std::vector<float>{1.f, -2.f, 1.5f}));
  // The condition is a small input: each value has its plan, holding only its branch.
  EXPECT_EQ(session->stats().plans_built, 2u);
  EXPECT_EQ(session->stats().last_plan.run_steps, 1u);
  EXPECT_EQ(RunFloats(session.get(), {{"c", Bool(true)}, {"x", x}}),
            (std::vector<float>{2.f, 1.f, 3.5f}));
  EXPECT_EQ(session->stats().plan_cache_hits, 1u);
}

// The condition is computed from float data: both branches planned, chosen per run.
std::string IfOnDataModel(bool else_changes_shape) {
  ModelBuilder then_b, else_b;
  then_b.Node("Relu", {"x"}, {"t"});
  then_b.Output("t", kOnnxFloat, {"N"});
  if (else_changes_shape) {
    else_b.Node("Concat", {"x", "x"}, {"e"}).Int("axis", 0);
  } else {
    else_b.Node("Neg", {"x"}, {"e"});
  }
  else_b.Output("e", kOnnxFloat, {"L"});
  ModelBuilder mb;
  mb.Input("x", kOnnxFloat, {"N"});
  mb.Node("ReduceSum", {"x"}, {"sum"}).Int("keepdims", 0);
  mb.FloatInit("zero", {}, {0.f});
  mb.Node("Greater", {"sum", "zero"}, {"c"});
  mb.Node("If", {"c"}, {"y"}, "if")
      .Graph("then_branch", then_b.graph())
      .Graph("else_branch", else_b.graph());
  mb.Output("y", kOnnxFloat, {"M"});
  return mb.Bytes();
}

TEST(ControlFlow, IfOnAConditionKnownOnlyWhenRun) {
  std::unique_ptr<Session> session;
  ASSERT_TRUE(CreateSession(IfOnDataModel(false), &session).ok());
  EXPECT_EQ(RunFloats(session.get(), {{"x", MakeFloat({3}, {2.f, -1.f, 0.5f})}}),
            (std::vector<float>{2.f, 0.f, 0.5f}));
  EXPECT_EQ(RunFloats(session.get(), {{"x", MakeFloat({3}, {-2.f, 1.f, 0.5f})}}),
            (std::vector<float>{2.f, -1.f, -0.5f}));
  EXPECT_EQ(session->stats().plans_built, 1u);
}

TEST(ControlFlow, BranchesOfTwoShapesNeedAConditionKnownWhenPlanned) {
  std::unique_ptr<Session> session;
  ASSERT_TRUE(CreateSession(IfOnDataModel(true), &session).ok());
  std::vector<const Tensor*> outputs;
  Status s = session->Run({{"x", MakeFloat({3}, {2.f, -1.f, 0.5f})}}, &outputs);
  EXPECT_EQ(s.code(), ErrorCode::kUnsupportedOperator);
  EXPECT_NE(s.message().find("node 'if' (If): output 'y' is float32[3] from then_branch but "
                             "float32[6] from else_branch"),
            std::string::npos)
      << s.message();
  // The session stays usable: the next run fails the same way, and nothing else.
  EXPECT_EQ(session->Run({{"x", MakeFloat({2}, {1.f, 1.f})}}, &outputs).code(),
            ErrorCode::kUnsupportedOperator);
}

// An If inside a branch reads `x` from the main graph, two scopes out, and `k` from the first.
TEST(ControlFlow, NestedIfReadsEveryEnclosingScope) {
  ModelBuilder inner_then, inner_else;
  inner_then.Node("Add", {"x", "k"}, {"it"});
  inner_then.Output("it", kOnnxFloat, {2});
  inner_else.Node("Sub", {"x", "k"}, {"ie"});
  inner_else.Output("ie", kOnnxFloat, {2});
  ModelBuilder outer_then, outer_else;
  outer_then.FloatInit("k", {2}, {10.f, 20.f});
  outer_then.Node("If", {"c2"}, {"ot"}, "inner")
      .Graph("then_branch", inner_then.graph())
      .Graph("else_branch", inner_else.graph());
  outer_then.Output("ot", kOnnxFloat, {2});
  outer_else.Node("Identity", {"x"}, {"oe"});
  outer_else.Output("oe", kOnnxFloat, {2});
  ModelBuilder mb;
  mb.Input("c1", kOnnxBool, {});
  mb.Input("c2", kOnnxBool, {});
  mb.Input("x", kOnnxFloat, {2});
  mb.Node("If", {"c1"}, {"y"}, "outer")
      .Graph("then_branch", outer_then.graph())
      .Graph("else_branch", outer_else.graph());
  mb.Output("y", kOnnxFloat, {2});
  std::unique_ptr<Session> session;
  Status s = CreateSession(mb.Bytes(), &session);
  ASSERT_TRUE(s.ok()) << s.ToString();
  const Tensor x = MakeFloat({2}, {1.f, 2.f});
  EXPECT_EQ(RunFloats(session.get(), {{"c1", Bool(true)}, {"c2", Bool(true)}, {"x", x}}),
            (std::vector<float>{11.f, 22.f}));
  EXPECT_EQ(RunFloats(session.get(), {{"c1", Bool(true)}, {"c2", Bool(false)}, {"x", x}}),
            (std::vector<float>{-9.f, -18.f}));
  EXPECT_EQ(RunFloats(session.get(), {{"c1", Bool(false)}, {"c2", Bool(true)}, {"x", x}}),
            (std::vector<float>{1.f, 2.f}));
}

TEST(ControlFlow, UnsupportedOperatorsInsideSubgraphsAreReportedAtLoad) {
  ModelBuilder then_b, else_b;
  then_b.Node("FancyOp", {"x"}, {"t"}, "fancy");
  then_b.Output("t", kOnnxFloat, {3});
  else_b.Node("Magic", {"x"}, {"e"}, "magic");
  else_b.Output("e", kOnnxFloat, {3});
  std::unique_ptr<Session> session;
  Status s = CreateSession(IfModel(then_b, else_b), &session);
  EXPECT_EQ(s.code(), ErrorCode::kUnsupportedOperator);
  EXPECT_NE(s.message().find("2 unsupported operators: FancyOp at opset 13 used by 'fancy'; "
                             "Magic at opset 13 used by 'magic'"),
            std::string::npos)
      << s.message();
}

// Loop body: s_out = s_in + x (x read from the main graph), scan = s_out * iteration.
std::string CountedLoopModel(bool m_is_input) {
  ModelBuilder body;
  body.Input("i", kOnnxInt64, {});
  body.Input("cond_in", kOnnxBool, {});
  body.Input("s_in", kOnnxFloat, {2});
  body.Node("Identity", {"cond_in"}, {"cond_out"});
  body.Node("Add", {"s_in", "x"}, {"s_out"});
  body.Node("Cast", {"i"}, {"i_f"}).Int("to", kOnnxFloat);
  body.Node("Mul", {"s_out", "i_f"}, {"scan"});
  body.Output("cond_out", kOnnxBool, {});
  body.Output("s_out", kOnnxFloat, {2});
  body.Output("scan", kOnnxFloat, {2});
  ModelBuilder mb;
  if (m_is_input)
    mb.Input("M", kOnnxInt64, {});
  else
    mb.Int64Init("M", {}, {4});
  mb.Input("x", kOnnxFloat, {2});
  mb.FloatInit("s0", {2}, {0.f, 100.f});
  mb.Input("c", kOnnxBool, {});
  mb.Node("Loop", {"M", "c", "s0"}, {"s_final", "scans"}, "loop").Graph("body", body.graph());
  mb.Output("s_final", kOnnxFloat, {2});
  mb.Output("scans", kOnnxFloat, {"T", 2});
  return mb.Bytes();
}

TEST(ControlFlow, LoopWithATripCountCarriesStatesAndStacksScans) {
  std::unique_ptr<Session> session;
  ASSERT_TRUE(CreateSession(CountedLoopModel(false), &session).ok());
  const Tensor x = MakeFloat({2}, {1.f, -1.f});
  EXPECT_EQ(RunFloats(session.get(), {{"x", x}, {"c", Bool(true)}}, 0),
            (std::vector<float>{4.f, 96.f}));
  EXPECT_EQ(RunFloats(session.get(), {{"x", x}, {"c", Bool(true)}}, 1),
            (std::vector<float>{0.f, 0.f, 2.f, 98.f, 6.f, 194.f, 12.f, 288.f}));
  // A false condition runs no iteration: the states come out as they went in.
  EXPECT_EQ(RunFloats(session.get(), {{"x", x}, {"c", Bool(false)}}, 0),
            (std::vector<float>{0.f, 100.f}));
  std::unique_ptr<Session> fed;
  ASSERT_TRUE(CreateSession(CountedLoopModel(true), &fed).ok());
  Tensor m = MakeInt64({}, {2});
  EXPECT_EQ(RunFloats(fed.get(), {{"M", m}, {"x", x}, {"c", Bool(true)}}, 1),
            (std::vector<float>{0.f, 0.f, 2.f, 98.f}));
}

// while (sum(s) < limit) s = s * 2: the end is decided by the data.
std::string WhileLoopModel(bool with_scan) {
  ModelBuilder body;
  body.Input("i", kOnnxInt64, {});
  body.Input("cond_in", kOnnxBool, {});
  body.Input("s_in", kOnnxFloat, {2});
  body.FloatInit("two", {}, {2.f});
  body.Node("Mul", {"s_in", "two"}, {"s_out"});
  body.Node("ReduceSum", {"s_out"}, {"sum"}).Int("keepdims", 0);
  body.Node("Less", {"sum", "limit"}, {"cond_out"});
  body.Output("cond_out", kOnnxBool, {});
  body.Output("s_out", kOnnxFloat, {2});
  if (with_scan) {
    body.Node("Identity", {"s_out"}, {"scan"});
    body.Output("scan", kOnnxFloat, {2});
  }
  ModelBuilder mb;
  mb.Input("s0", kOnnxFloat, {2});
  mb.Input("limit", kOnnxFloat, {});
  mb.Node("ReduceSum", {"s0"}, {"start"}).Int("keepdims", 0);
  mb.Node("Less", {"start", "limit"}, {"c"});
  std::vector<std::string> outs = {"s_final"};
  if (with_scan) outs.push_back("scans");
  mb.Node("Loop", {"", "c", "s0"}, outs, "loop").Graph("body", body.graph());
  mb.Output("s_final", kOnnxFloat, {2});
  if (with_scan) mb.Output("scans", kOnnxFloat, {"T", 2});
  return mb.Bytes();
}

// The body reads an outer value that two cancelling Transposes made: folding them renames the
// value the Loop captures, and the body must follow (fuzz-diff seed 22312245: "a subgraph reads
// 'v47', which the node does not capture"). The value is also the Loop's initial state.
TEST(ControlFlow, ACapturedValueRenamedByATransposeFoldIsFollowedIntoTheBody) {
  ModelBuilder body;
  body.Input("i", kOnnxInt64, {});
  body.Input("cond_in", kOnnxBool, {});
  body.Input("s_in", kOnnxFloat, {2, 3});
  body.Node("Identity", {"cond_in"}, {"cond_out"});
  body.Node("Add", {"s_in", "xt"}, {"s_out"});
  body.Output("cond_out", kOnnxBool, {});
  body.Output("s_out", kOnnxFloat, {2, 3});
  ModelBuilder mb;
  mb.Input("x", kOnnxFloat, {2, 3});
  mb.Int64Init("M", {}, {3});
  mb.Node("Transpose", {"x"}, {"t"}, "transpose").Ints("perm", {1, 0});
  mb.Node("Transpose", {"t"}, {"xt"}, "transpose_back").Ints("perm", {1, 0});
  mb.Node("Loop", {"M", "", "xt"}, {"s_final"}, "loop").Graph("body", body.graph());
  mb.Output("s_final", kOnnxFloat, {2, 3});
  std::unique_ptr<Session> session;
  const Status created = CreateSession(mb.Bytes(), &session);
  ASSERT_TRUE(created.ok()) << created.message();
  const Tensor x = MakeFloat({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(RunFloats(session.get(), {{"x", x}}, 0), (std::vector<float>{4, 8, 12, 16, 20, 24}));
}

TEST(ControlFlow, LoopEndedByItsData) {
  std::unique_ptr<Session> session;
  ASSERT_TRUE(CreateSession(WhileLoopModel(false), &session).ok());
  const Tensor s0 = MakeFloat({2}, {1.f, 2.f});
  EXPECT_EQ(RunFloats(session.get(), {{"s0", s0}, {"limit", MakeFloat({}, {20.f})}}),
            (std::vector<float>{8.f, 16.f}));
  EXPECT_EQ(RunFloats(session.get(), {{"s0", s0}, {"limit", MakeFloat({}, {2.f})}}),
            (std::vector<float>{1.f, 2.f}));
}

TEST(ControlFlow, ScanOutputsOfALoopEndedByItsDataAreRefused) {
  std::unique_ptr<Session> session;
  ASSERT_TRUE(CreateSession(WhileLoopModel(true), &session).ok());
  std::vector<const Tensor*> outputs;
  Status s = session->Run({{"s0", MakeFloat({2}, {1.f, 2.f})}, {"limit", MakeFloat({}, {20.f})}},
                          &outputs);
  EXPECT_EQ(s.code(), ErrorCode::kUnsupportedOperator);
  EXPECT_NE(s.message().find("node 'loop' (Loop): its scan outputs' length is the number of "
                             "iterations"),
            std::string::npos)
      << s.message();
}

TEST(ControlFlow, LoopThatNeverEndsMeetsMaxLoopIterations) {
  SessionOptions options;
  options.limits.max_loop_iterations = 50;
  std::unique_ptr<Session> session;
  ASSERT_TRUE(CreateSession(WhileLoopModel(false), &session, options).ok());
  std::vector<const Tensor*> outputs;
  // Zeros double to zeros: the sum never reaches the limit.
  Status s =
      session->Run({{"s0", MakeFloat({2}, {0.f, 0.f})}, {"limit", MakeFloat({}, {1.f})}}, &outputs);
  EXPECT_EQ(s.code(), ErrorCode::kInvalidInput);
  EXPECT_NE(s.message().find("node 'loop' (Loop) ran 50 iterations and its condition is still "
                             "true; the limit is 50 (limits.maxLoopIterations)"),
            std::string::npos)
      << s.message();
  EXPECT_EQ(RunFloats(session.get(),
                      {{"s0", MakeFloat({2}, {1.f, 2.f})}, {"limit", MakeFloat({}, {20.f})}}),
            (std::vector<float>{8.f, 16.f}));
}

// The body slices x at its iteration number: shapes follow from it, so each iteration of the
// known trip count gets its plan.
TEST(ControlFlow, LoopBodyShapedByTheIterationIsPlannedPerIteration) {
  ModelBuilder body;
  body.Input("i", kOnnxInt64, {});
  body.Input("cond_in", kOnnxBool, {});
  body.Input("s_in", kOnnxFloat, {1});
  body.Int64Init("one", {1}, {1});
  body.Node("Identity", {"cond_in"}, {"cond_out"});
  body.Node("Unsqueeze", {"i", "zero_axis"}, {"start"});
  body.Node("Add", {"start", "one"}, {"end"});
  body.Node("Slice", {"x", "start", "end"}, {"piece"});
  body.Node("Add", {"s_in", "piece"}, {"s_out"});
  body.Output("cond_out", kOnnxBool, {});
  body.Output("s_out", kOnnxFloat, {1});
  ModelBuilder mb;
  mb.Int64Init("M", {}, {3});
  mb.Int64Init("zero_axis", {1}, {0});
  mb.Input("x", kOnnxFloat, {5});
  mb.FloatInit("s0", {1}, {0.5f});
  mb.Input("c", kOnnxBool, {});
  mb.Node("Loop", {"M", "c", "s0"}, {"total"}, "loop").Graph("body", body.graph());
  mb.Output("total", kOnnxFloat, {1});
  std::unique_ptr<Session> session;
  ASSERT_TRUE(CreateSession(mb.Bytes(), &session).ok());
  EXPECT_EQ(RunFloats(session.get(),
                      {{"x", MakeFloat({5}, {1.f, 2.f, 4.f, 8.f, 16.f})}, {"c", Bool(true)}}),
            (std::vector<float>{7.5f}));
}

// Scan-9 over axis 1 of x [2, T] backwards, a running sum as state, each partial sum stacked
// along output axis 1.
TEST(ControlFlow, ScanAlongAnAxisInReverse) {
  ModelBuilder body;
  body.Input("acc_in", kOnnxFloat, {2});
  body.Input("col", kOnnxFloat, {2});
  body.Node("Add", {"acc_in", "col"}, {"acc_out"});
  body.Node("Mul", {"acc_out", "scale"}, {"scaled"});
  body.Output("acc_out", kOnnxFloat, {2});
  body.Output("scaled", kOnnxFloat, {2});
  ModelBuilder mb(16);
  mb.Input("x", kOnnxFloat, {2, "T"});
  mb.FloatInit("acc0", {2}, {0.f, 0.f});
  mb.FloatInit("scale", {}, {10.f});
  mb.Node("Scan", {"acc0", "x"}, {"acc", "ys"}, "scan")
      .Graph("body", body.graph())
      .Int("num_scan_inputs", 1)
      .Ints("scan_input_axes", {1})
      .Ints("scan_input_directions", {1})
      .Ints("scan_output_axes", {-1});
  mb.Output("acc", kOnnxFloat, {2});
  mb.Output("ys", kOnnxFloat, {2, "T"});
  std::unique_ptr<Session> session;
  ASSERT_TRUE(CreateSession(mb.Bytes(), &session).ok());
  const Tensor x = MakeFloat({2, 3}, {1.f, 2.f, 3.f, 4.f, 5.f, 6.f});
  EXPECT_EQ(RunFloats(session.get(), {{"x", x}}, 0), (std::vector<float>{6.f, 15.f}));
  EXPECT_EQ(RunFloats(session.get(), {{"x", x}}, 1),
            (std::vector<float>{30.f, 50.f, 60.f, 60.f, 110.f, 150.f}));
}

// Scan-8: a batch axis first, and sequence_lens: outputs past a sequence's length are zeros,
// and its final state is the one at its length.
TEST(ControlFlow, Scan8ScansEachBatchItemOverItsLength) {
  ModelBuilder body;
  body.Input("acc_in", kOnnxFloat, {1});
  body.Input("v", kOnnxFloat, {1});
  body.Node("Add", {"acc_in", "v"}, {"acc_out"});
  body.Node("Identity", {"acc_out"}, {"y"});
  body.Output("acc_out", kOnnxFloat, {1});
  body.Output("y", kOnnxFloat, {1});
  ModelBuilder mb(8);
  mb.Input("lens", kOnnxInt64, {2});
  mb.Input("acc0", kOnnxFloat, {2, 1});
  mb.Input("x", kOnnxFloat, {2, 3, 1});
  mb.Node("Scan", {"lens", "acc0", "x"}, {"acc", "ys"}, "scan")
      .Graph("body", body.graph())
      .Int("num_scan_inputs", 1)
      .Ints("directions", {1});
  mb.Output("acc", kOnnxFloat, {2, 1});
  mb.Output("ys", kOnnxFloat, {2, 3, 1});
  std::unique_ptr<Session> session;
  Status s = CreateSession(mb.Bytes(), &session);
  ASSERT_TRUE(s.ok()) << s.ToString();
  const std::vector<NamedTensor> feeds = {{"lens", MakeInt64({2}, {3, 2})},
                                          {"acc0", MakeFloat({2, 1}, {0.f, 100.f})},
                                          {"x", MakeFloat({2, 3, 1}, {1, 2, 3, 4, 5, 6})}};
  EXPECT_EQ(RunFloats(session.get(), feeds, 0), (std::vector<float>{6.f, 109.f}));
  EXPECT_EQ(RunFloats(session.get(), feeds, 1),
            (std::vector<float>{3.f, 5.f, 6.f, 105.f, 109.f, 0.f}));
  std::vector<const Tensor*> outputs;
  s = session->Run({{"lens", MakeInt64({2}, {3, 4})}, feeds[1], feeds[2]}, &outputs);
  EXPECT_EQ(s.code(), ErrorCode::kInvalidInput);
  EXPECT_NE(s.message().find("sequence_lens[1] is 4, outside [0, 3]"), std::string::npos)
      << s.message();
}

// Malformed control flow: coded errors naming the node, and the session usable where it loads.
TEST(ControlFlow, MalformedSubgraphsGetCodedErrors) {
  {  // A branch reads a value no scope defines.
    ModelBuilder then_b, else_b;
    then_b.Node("Relu", {"nowhere"}, {"t"});
    then_b.Output("t", kOnnxFloat, {3});
    else_b.Node("Relu", {"x"}, {"e"});
    else_b.Output("e", kOnnxFloat, {3});
    std::unique_ptr<Session> session;
    Status s = CreateSession(IfModel(then_b, else_b), &session);
    EXPECT_EQ(s.code(), ErrorCode::kMalformedModel);
    EXPECT_NE(s.message().find("'nowhere'"), std::string::npos) << s.message();
  }
  {  // Scan told of more scan inputs than it has inputs.
    ModelBuilder body;
    body.Input("v", kOnnxFloat, {2});
    body.Node("Identity", {"v"}, {"y"});
    body.Output("y", kOnnxFloat, {2});
    ModelBuilder mb(16);
    mb.Input("x", kOnnxFloat, {3, 2});
    mb.Node("Scan", {"x"}, {"ys"}, "scan").Graph("body", body.graph()).Int("num_scan_inputs", 5);
    mb.Output("ys", kOnnxFloat, {3, 2});
    std::unique_ptr<Session> session;
    ASSERT_TRUE(CreateSession(mb.Bytes(), &session).ok());
    std::vector<const Tensor*> outputs;
    Status s = session->Run({{"x", MakeFloat({3, 2}, {1, 2, 3, 4, 5, 6})}}, &outputs);
    EXPECT_EQ(s.code(), ErrorCode::kMalformedModel);
    EXPECT_NE(s.message().find("node 'scan' (Scan): num_scan_inputs is 5 with 1 inputs"),
              std::string::npos)
        << s.message();
  }
  {  // A Loop body without the iteration number and condition inputs.
    ModelBuilder body;
    body.Input("s_in", kOnnxFloat, {2});
    body.Node("Identity", {"s_in"}, {"s_out"});
    body.Output("s_out", kOnnxFloat, {2});
    ModelBuilder mb;
    mb.Int64Init("M", {}, {2});
    mb.Input("s0", kOnnxFloat, {2});
    mb.Node("Loop", {"M", "", "s0"}, {"s"}, "loop").Graph("body", body.graph());
    mb.Output("s", kOnnxFloat, {2});
    std::unique_ptr<Session> session;
    ASSERT_TRUE(CreateSession(mb.Bytes(), &session).ok());
    std::vector<const Tensor*> outputs;
    Status s = session->Run({{"s0", MakeFloat({2}, {1, 2})}}, &outputs);
    EXPECT_EQ(s.code(), ErrorCode::kMalformedModel);
    EXPECT_NE(s.message().find("node 'loop' (Loop): its body takes 1 inputs"), std::string::npos)
        << s.message();
  }
}

}  // namespace
}  // namespace webnx::testing
