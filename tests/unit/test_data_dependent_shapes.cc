// Outputs whose shapes only their run tells (NonZero, Compress, Unique, NonMaxSuppression): the
// plan ends at such a node and the rest of the graph is planned per the shapes runs produce
// (core/plan_continuation.cc). Downstream shape math still folds, every count gets its own
// continuation (reused when it comes back), and any order of data gives bitwise a fresh
// session's results, with 1 and 2 threads.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/unit/model_builder.h"
#include "tests/unit/op_runner.h"

namespace webnx::testing {
namespace {

// y = x[nonzero(x > 0)] * 2, its length read back through Shape: x [N] -> (y [K], len [1]).
std::string PositivesModel() {
  ModelBuilder mb;
  mb.Input("x", kOnnxFloat, {"N"});
  mb.FloatInit("zero", {}, {0.f});
  mb.FloatInit("two", {}, {2.f});
  mb.Node("Greater", {"x", "zero"}, {"positive"});
  mb.Node("NonZero", {"positive"}, {"where"}, "nonzero");
  mb.Node("Squeeze", {"where", "axis0"}, {"indices"});
  mb.Int64Init("axis0", {1}, {0});
  mb.Node("Gather", {"x", "indices"}, {"picked"});
  mb.Node("Mul", {"picked", "two"}, {"y"});
  mb.Node("Shape", {"y"}, {"len"});
  mb.Output("y", kOnnxFloat, {"K"});
  mb.Output("len", kOnnxInt64, {1});
  return mb.Bytes();
}

std::vector<float> Floats(const Tensor& t) {
  return std::vector<float>(t.ptr<float>(), t.ptr<float>() + t.numel());
}

TEST(DataDependentShapes, TheRestOfTheGraphIsPlannedPerCount) {
  std::unique_ptr<Session> session;
  ASSERT_TRUE(CreateSession(PositivesModel(), &session).ok());
  std::vector<const Tensor*> out;
  ASSERT_TRUE(session->Run({{"x", MakeFloat({5}, {1.f, -2.f, 3.f, 0.f, 5.f})}}, &out).ok());
  EXPECT_EQ(out[0]->shape, (Shape{3}));
  EXPECT_EQ(Floats(*out[0]), (std::vector<float>{2.f, 6.f, 10.f}));
  EXPECT_EQ(out[1]->ptr<int64_t>()[0], 3);
  ASSERT_TRUE(session->Run({{"x", MakeFloat({5}, {-1.f, -2.f, 3.f, 0.f, -5.f})}}, &out).ok());
  EXPECT_EQ(Floats(*out[0]), (std::vector<float>{6.f}));
  EXPECT_EQ(out[1]->ptr<int64_t>()[0], 1);
  ASSERT_TRUE(session->Run({{"x", MakeFloat({5}, {-1.f, -2.f, -3.f, 0.f, -5.f})}}, &out).ok());
  EXPECT_EQ(out[0]->shape, (Shape{0}));
  EXPECT_EQ(out[1]->ptr<int64_t>()[0], 0);
  // One plan for the input shape; the shape math after NonZero folded in each continuation.
  EXPECT_EQ(session->stats().plans_built, 1u);
}

std::vector<std::string> RunBytes(Session* session, const Tensor& x) {
  std::vector<const Tensor*> outputs;
  Status s = session->Run({{"x", x}}, &outputs);
  EXPECT_TRUE(s.ok()) << s.ToString();
  std::vector<std::string> bytes;
  for (const Tensor* t : outputs)
    bytes.emplace_back(static_cast<const char*>(t->data), t->nbytes());
  return bytes;
}

TEST(DataDependentShapes, AnyOrderOfCountsMatchesFreshSessions) {
  const std::string model = PositivesModel();
  for (int threads : {1, 2}) {
    SessionOptions options;
    options.num_threads = threads;
    std::unique_ptr<Session> session;
    ASSERT_TRUE(CreateSession(model, &session, options).ok());
    const std::vector<std::pair<Shape, uint32_t>> order = {
        {{40}, 1}, {{3}, 2}, {{40}, 3}, {{40}, 1}, {{3}, 4}, {{64}, 5}, {{40}, 3}};
    for (const auto& [shape, seed] : order) {
      const Tensor x = RandomFloat(shape, seed);
      std::unique_ptr<Session> fresh;
      ASSERT_TRUE(CreateSession(model, &fresh, options).ok());
      EXPECT_EQ(RunBytes(session.get(), x), RunBytes(fresh.get(), x))
          << ShapeToString(shape) << " seed " << seed << ", " << threads << " threads";
    }
  }
}

// Unique and NonMaxSuppression in one graph, fed at run time, with a node after each.
TEST(DataDependentShapes, UniqueAndNonMaxSuppressionFeedLaterNodes) {
  ModelBuilder mb(11);
  mb.Input("labels", kOnnxInt64, {"N"});
  mb.Input("boxes", kOnnxFloat, {1, "B", 4});
  mb.Input("scores", kOnnxFloat, {1, 1, "B"});
  mb.Int64Init("max_out", {1}, {10});
  mb.FloatInit("iou", {1}, {0.5f});
  mb.Node("Unique", {"labels"}, {"distinct", "first", "inverse", "counts"}, "unique");
  mb.Node("ReduceSum", {"counts"}, {"total"}).Int("keepdims", 0);
  mb.Node("NonMaxSuppression", {"boxes", "scores", "max_out", "iou"}, {"selected"}, "nms");
  mb.Node("Shape", {"selected"}, {"selected_shape"});
  mb.Output("distinct", kOnnxInt64, {"U"});
  mb.Output("total", kOnnxInt64, {});
  mb.Output("selected_shape", kOnnxInt64, {2});
  std::unique_ptr<Session> session;
  ASSERT_TRUE(CreateSession(mb.Bytes(), &session).ok());
  // 70 labels: above the size that plans specialise on, so Unique runs at run time.
  std::vector<int64_t> labels(70);
  for (size_t i = 0; i < labels.size(); ++i) labels[i] = static_cast<int64_t>((i * 7) % 5);
  const Tensor boxes = MakeFloat({1, 3, 4}, {0, 0, 1, 1, 0, 0.1f, 1, 1.1f, 0, 5, 1, 6});
  const Tensor scores = MakeFloat({1, 1, 3}, {0.9f, 0.8f, 0.7f});
  std::vector<const Tensor*> out;
  Status s = session->Run(
      {{"labels", MakeInt64({70}, labels)}, {"boxes", boxes}, {"scores", scores}}, &out);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(out[0]->shape, (Shape{5}));
  EXPECT_EQ(out[1]->ptr<int64_t>()[0], 70);
  EXPECT_EQ(out[2]->ptr<int64_t>()[0], 2);  // boxes 0 and 2: box 1 overlaps box 0
  EXPECT_EQ(out[2]->ptr<int64_t>()[1], 3);
}

}  // namespace
}  // namespace webnx::testing
