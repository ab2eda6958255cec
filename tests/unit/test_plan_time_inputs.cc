// Which graph inputs plans specialise on (core/session.cc: FindPlanTimeInputs, GetPlan): a
// small float input read where a kernel declares it needs contents when planned (Resize's
// scales, Range's bounds) gets a plan per value; one read anywhere else does not, and a model
// of fixed-shape float inputs is planned while it loads.
#include <gtest/gtest.h>

#include "tests/unit/model_builder.h"
#include "tests/unit/op_runner.h"

namespace webnx::testing {
namespace {

Status RunOnce(Session* session, std::vector<NamedTensor> feeds, Shape* shape,
               std::vector<float>* values) {
  std::vector<const Tensor*> outputs;
  WEBNX_RETURN_IF_ERROR(session->Run(feeds, &outputs));
  *shape = outputs[0]->shape;
  values->assign(outputs[0]->ptr<float>(), outputs[0]->ptr<float>() + outputs[0]->numel());
  return Status::Ok();
}

TEST(PlanTimeInputs, ResizeScalesFedAtRunTimeGetAPlanPerValue) {
  ModelBuilder b;
  b.Input("X", kOnnxFloat, {1, 1, 2, 2});
  b.Input("S", kOnnxFloat, {4});
  b.Node("Resize", {"X", "", "S"}, {"Y"}, "upscale").String("mode", "nearest");
  b.Output("Y", kOnnxFloat, {D(), D(), D(), D()});
  std::unique_ptr<Session> session;
  ASSERT_TRUE(CreateSession(b.Bytes(), &session).ok());
  EXPECT_EQ(session->stats().plans_built, 0u);  // its plans need the scales
  const Tensor x = MakeFloat({1, 1, 2, 2}, {1, 2, 3, 4});
  Shape shape;
  std::vector<float> y;
  const auto run = [&](float s) {
    return RunOnce(session.get(), {{"X", x}, {"S", MakeFloat({4}, {1, 1, s, s})}}, &shape, &y);
  };
  ASSERT_TRUE(run(2.f).ok());
  EXPECT_EQ(shape, (Shape{1, 1, 4, 4}));
  EXPECT_EQ(y[0], 1.f);
  EXPECT_EQ(y[15], 4.f);
  ASSERT_TRUE(run(3.f).ok());
  EXPECT_EQ(shape, (Shape{1, 1, 6, 6}));
  ASSERT_TRUE(run(2.f).ok());
  EXPECT_EQ(shape, (Shape{1, 1, 4, 4}));
  EXPECT_EQ(session->stats().plans_built, 2u);
  EXPECT_EQ(session->stats().plan_cache_hits, 1u);
}

TEST(PlanTimeInputs, RangeBoundsFedAtRunTimeSetTheOutputLength) {
  ModelBuilder b;
  for (const char* name : {"start", "limit", "delta"}) b.Input(name, kOnnxFloat, {});
  b.Node("Range", {"start", "limit", "delta"}, {"Y"}, "range");
  b.Output("Y", kOnnxFloat, {D()});
  std::unique_ptr<Session> session;
  ASSERT_TRUE(CreateSession(b.Bytes(), &session).ok());
  Shape shape;
  std::vector<float> y;
  const auto run = [&](float limit) {
    return RunOnce(session.get(),
                   {{"start", MakeFloat({}, {1.f})},
                    {"limit", MakeFloat({}, {limit})},
                    {"delta", MakeFloat({}, {0.5f})}},
                   &shape, &y);
  };
  ASSERT_TRUE(run(3.f).ok());
  EXPECT_EQ(y, (std::vector<float>{1.f, 1.5f, 2.f, 2.5f}));
  ASSERT_TRUE(run(2.f).ok());
  EXPECT_EQ(y, (std::vector<float>{1.f, 1.5f}));
}

// A NeatapticTS-sized network: four float inputs, read by a Gemm. One plan, made by create(),
// serves every value.
TEST(PlanTimeInputs, SmallFloatInputsOfOtherNodesShareOnePlan) {
  ModelBuilder b;
  b.Input("X", kOnnxFloat, {1, 4});
  b.FloatInit("W", {3, 4}, RandomFloats(12, 5));
  b.Node("Gemm", {"X", "W"}, {"Y"}, "dense").Int("transB", 1);
  b.Output("Y", kOnnxFloat, {1, 3});
  std::unique_ptr<Session> session;
  ASSERT_TRUE(CreateSession(b.Bytes(), &session).ok());
  EXPECT_EQ(session->stats().plans_built, 1u);
  Shape shape;
  std::vector<float> y;
  for (int seed = 0; seed < 3; ++seed)
    ASSERT_TRUE(RunOnce(session.get(), {{"X", RandomFloat({1, 4}, seed)}}, &shape, &y).ok());
  EXPECT_EQ(session->stats().plans_built, 1u);
  EXPECT_EQ(session->stats().plan_cache_hits, 3u);
}

}  // namespace
}  // namespace webnx::testing
