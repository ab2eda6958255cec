// Runs that fetch some outputs (session.run(feeds, { outputs }) in JS; ort's fetches): only the
// nodes those outputs depend on are planned and run, each set of outputs has its plan, and any
// order of fetch sets and shapes gives bitwise a fresh session's results, with 1 and 2 threads.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/unit/model_builder.h"
#include "tests/unit/op_runner.h"

namespace webnx::testing {
namespace {

// x [N, 4] -> small = Relu(x) * 2; wide = x @ w [N, W] (w [K, 8]: fails to plan unless K = 4,
// so a run that does not fetch `wide` succeeds where one that does fails); count = the shape of
// NonZero(x), known only once it has run (a continuation).
std::string BranchesModel(int64_t k) {
  ModelBuilder mb;
  mb.Input("x", kOnnxFloat, {"N", 4});
  mb.FloatInit("two", {}, {2.f});
  std::vector<float> w(k * 8);
  for (size_t i = 0; i < w.size(); ++i) w[i] = 0.25f * static_cast<float>(i % 7) - 0.5f;
  mb.FloatInit("w", {k, 8}, w);
  mb.Node("Relu", {"x"}, {"r"});
  mb.Node("Mul", {"r", "two"}, {"small"});
  mb.Node("MatMul", {"x", "w"}, {"wide"}, "wide_matmul");
  mb.Node("NonZero", {"x"}, {"where"});
  mb.Node("Shape", {"where"}, {"count"});
  mb.Output("small", kOnnxFloat, {"N", 4});
  mb.Output("wide", kOnnxFloat, {"N", 8});
  mb.Output("count", kOnnxInt64, {2});
  return mb.Bytes();
}

std::string Bytes(const Tensor* t) {
  return t ? std::string(static_cast<const char*>(t->data), t->nbytes()) : "(not fetched)";
}

std::vector<std::string> RunBytes(Session* session, const Tensor& x, const std::string& fetched) {
  std::vector<const Tensor*> outputs;
  Status s = session->Run({{"x", x}}, &outputs, nullptr, fetched);
  EXPECT_TRUE(s.ok()) << s.ToString();
  std::vector<std::string> bytes;
  for (const Tensor* t : outputs) bytes.push_back(Bytes(t));
  return bytes;
}

TEST(FetchedOutputs, OnlyTheNodesTheFetchedOutputsNeedRun) {
  std::unique_ptr<Session> session;
  ASSERT_TRUE(CreateSession(BranchesModel(4), &session).ok());
  const Tensor x = MakeFloat({2, 4}, {1.f, -2.f, 3.f, 0.f, -1.f, 0.5f, 0.f, 4.f});
  std::vector<const Tensor*> out;
  ASSERT_TRUE(session->Run({{"x", x}}, &out).ok());
  const size_t all_steps = session->stats().last_plan.run_steps;
  const std::string small = Bytes(out[0]);
  ASSERT_TRUE(session->Run({{"x", x}}, &out, nullptr, "100").ok());
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(Bytes(out[0]), small);
  EXPECT_EQ(out[1], nullptr);
  EXPECT_EQ(out[2], nullptr);
  EXPECT_LT(session->stats().last_plan.run_steps, all_steps);
  EXPECT_EQ(session->stats().plans_built, 2u);
  // Every output fetched is the plan of a run that names none.
  ASSERT_TRUE(session->Run({{"x", x}}, &out, nullptr, "111").ok());
  EXPECT_EQ(session->stats().plans_built, 2u);
}

TEST(FetchedOutputs, ANodeThatCannotBePlannedFailsOnlyTheRunsThatFetchIt) {
  std::unique_ptr<Session> session;
  ASSERT_TRUE(CreateSession(BranchesModel(5), &session).ok());
  const Tensor x = RandomFloat({3, 4}, 7);
  std::vector<const Tensor*> out;
  Status s = session->Run({{"x", x}}, &out);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("wide_matmul"), std::string::npos) << s.ToString();
  ASSERT_TRUE(session->Run({{"x", x}}, &out, nullptr, "101").ok());
  ASSERT_NE(out[0], nullptr);
  EXPECT_EQ(out[1], nullptr);
  EXPECT_EQ(out[2]->ptr<int64_t>()[1], 12);  // [rank, count] of 12 nonzero values
  EXPECT_FALSE(session->Run({{"x", x}}, &out, nullptr, "010").ok());
}

TEST(FetchedOutputs, AMaskOfAnotherLengthOrOtherCharactersIsRefused) {
  std::unique_ptr<Session> session;
  ASSERT_TRUE(CreateSession(BranchesModel(4), &session).ok());
  std::vector<const Tensor*> out;
  for (const char* mask : {"10", "1000", "1x0"}) {
    Status s = session->Run({{"x", RandomFloat({1, 4}, 1)}}, &out, nullptr, mask);
    EXPECT_EQ(s.code(), ErrorCode::kInvalidArgument) << mask;
  }
  EXPECT_TRUE(session->Run({{"x", RandomFloat({1, 4}, 1)}}, &out, nullptr, "011").ok());
}

TEST(FetchedOutputs, AnyOrderOfFetchSetsAndShapesMatchesFreshSessions) {
  const std::string model = BranchesModel(4);
  const std::vector<std::string> sets = {"", "100", "010", "001", "110"};
  for (int threads : {1, 2}) {
    SessionOptions options;
    options.num_threads = threads;
    std::unique_ptr<Session> session;
    ASSERT_TRUE(CreateSession(model, &session, options).ok());
    // Large, small, back; each fetch set after others have planned their own.
    const std::vector<std::pair<int64_t, size_t>> order = {
        {64, 0}, {3, 1}, {64, 2}, {1, 3}, {64, 4}, {3, 0}, {64, 1}, {1, 4}, {3, 2}, {64, 3}};
    uint32_t seed = 1;
    for (const auto& [rows, set] : order) {
      const Tensor x = RandomFloat({rows, 4}, seed++);
      std::unique_ptr<Session> fresh;
      ASSERT_TRUE(CreateSession(model, &fresh, options).ok());
      const std::vector<std::string> got = RunBytes(session.get(), x, sets[set]);
      EXPECT_EQ(got, RunBytes(fresh.get(), x, sets[set])) << "rows " << rows << ", set " << set;
      // Each fetched output is the one an unrestricted run gives.
      const std::vector<std::string> all = RunBytes(fresh.get(), x, {});
      for (size_t k = 0; k < all.size(); ++k)
        if (sets[set].empty() || sets[set][k] == '1') EXPECT_EQ(got[k], all[k]) << "output " << k;
    }
  }
}

}  // namespace
}  // namespace webnx::testing
