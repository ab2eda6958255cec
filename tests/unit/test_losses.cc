// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (kernels/losses.cc): reductions, class
// weights and ignore_index by hand, a spatial case against a naive loop, and a target outside
// the classes as a coded run error naming the node.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "tests/unit/op_runner.h"

namespace webnx::testing {
namespace {

const Tensor kLogProb = MakeFloat({2, 3}, {-1.f, -2.f, -3.f, -0.5f, -1.5f, -2.5f});
const Tensor kWeight = MakeFloat({3}, {1.f, 2.f, 3.f});

Tensor Nll(const Tensor& target, const char* reduction, int64_t ignore = INT64_MIN) {
  std::map<std::string, Attribute> attrs = {{"reduction", StringAttr(reduction)}};
  if (ignore != INT64_MIN) attrs["ignore_index"] = IntAttr(ignore);
  std::vector<Tensor> out;
  const Status s =
      RunOp("NegativeLogLikelihoodLoss", 13, {{kLogProb}, {target}, {kWeight}}, attrs, 1, &out);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return s.ok() ? out[0] : Tensor();
}

TEST(Losses, NllReductionsWeightsAndIgnoredTargets) {
  const Tensor target = MakeInt64({2}, {2, 0});
  const Tensor none = Nll(target, "none");
  EXPECT_EQ(none.shape, (Shape{2}));
  EXPECT_EQ(none.ptr<float>()[0], 9.f);  // -(-3) * 3
  EXPECT_EQ(none.ptr<float>()[1], 0.5f);
  EXPECT_EQ(Nll(target, "sum").ptr<float>()[0], 9.5f);
  EXPECT_EQ(Nll(target, "mean").ptr<float>()[0], 9.5f / 4.f);  // weights 3 + 1
  EXPECT_EQ(Nll(target, "mean", 0).ptr<float>()[0], 3.f);      // only the first: 9 / 3
  EXPECT_EQ(Nll(MakeInt64({2}, {0, 0}), "mean", 0).ptr<float>()[0], 0.f);
}

TEST(Losses, ATargetOutsideTheClassesFailsTheRun) {
  std::vector<Tensor> out;
  const Status s =
      RunOp("NegativeLogLikelihoodLoss", 13, {{kLogProb}, {MakeInt64({2}, {3, 0})}}, {}, 1, &out);
  EXPECT_EQ(s.code(), ErrorCode::kInvalidInput);
  EXPECT_NE(s.message().find("NegativeLogLikelihoodLoss"), std::string::npos) << s.message();
}

TEST(Losses, SoftmaxCrossEntropyOverSpatialDims) {
  const Tensor scores = RandomFloat({2, 3, 5}, 4);
  std::vector<int64_t> labels = {0, 1, 2, 1, 0, 2, 2, 1, 0, 1};
  std::vector<Tensor> out;
  const Status s = RunOp("SoftmaxCrossEntropyLoss", 13, {{scores}, {MakeInt64({2, 5}, labels)}},
                         {{"reduction", StringAttr("none")}}, 2, &out);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(out[0].shape, (Shape{2, 5}));
  ASSERT_EQ(out[1].shape, scores.shape);
  for (int64_t n = 0; n < 2; ++n) {
    for (int64_t i = 0; i < 5; ++i) {
      double sum = 0;
      for (int64_t c = 0; c < 3; ++c)
        sum += std::exp(double(scores.ptr<float>()[(n * 3 + c) * 5 + i]));
      for (int64_t c = 0; c < 3; ++c) {
        const double log_prob = scores.ptr<float>()[(n * 3 + c) * 5 + i] - std::log(sum);
        EXPECT_NEAR(out[1].ptr<float>()[(n * 3 + c) * 5 + i], log_prob, 1e-6);
        if (c == labels[n * 5 + i]) EXPECT_NEAR(out[0].ptr<float>()[n * 5 + i], -log_prob, 1e-6);
      }
    }
  }
}

}  // namespace
}  // namespace webnx::testing
