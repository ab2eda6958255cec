// GroupNormalization (kernels/group_norm.cc): a hand-checked case, per-group (18) and
// per-channel (21) parameters against a naive loop on an odd shape, and bad group counts.
// LpNormalization (kernels/lp_norm.cc): L1 and L2 by hand, along either axis, a zero norm.
// MeanVarianceNormalization (kernels/mvn.cc): over the default and chosen axes, against naive.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "tests/unit/op_runner.h"

namespace webnx::testing {
namespace {

TEST(GroupNorm, HandChecked) {
  // One group of two channels [1, 3] and [5, 7]: mean 4, variance 5.
  const Tensor x = MakeFloat({1, 2, 2}, {1, 3, 5, 7});
  const Tensor y =
      RunOk("GroupNormalization", 21, {x, MakeFloat({2}, {1, 2}), MakeFloat({2}, {0, 10})},
            {{"num_groups", IntAttr(1)}, {"epsilon", FloatAttr(0.f)}});
  const float s = 1 / std::sqrt(5.f);
  const std::vector<float> want = {-3 * s, -1 * s, 2 * s + 10, 6 * s + 10};
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(y.ptr<float>()[i], want[i], 1e-6f);
}

TEST(GroupNorm, BothParameterLayoutsAgainstANaiveLoop) {
  const int64_t n = 2, c = 6, g = 3, plane = 5;
  const Tensor x = RandomFloat({n, c, plane}, 7);
  for (const int version : {18, 21}) {
    const int64_t params = version == 21 ? c : g;
    const Tensor scale = RandomFloat({params}, 8), bias = RandomFloat({params}, 9);
    const Tensor y =
        RunOk("GroupNormalization", version, {x, scale, bias}, {{"num_groups", IntAttr(g)}});
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t grp = 0; grp < g; ++grp) {
        const float* xg = x.ptr<float>() + (b * c + grp * 2) * plane;
        double mean = 0, var = 0;
        for (int64_t i = 0; i < 2 * plane; ++i) mean += xg[i];
        mean /= 2 * plane;
        for (int64_t i = 0; i < 2 * plane; ++i) var += (xg[i] - mean) * (xg[i] - mean);
        var /= 2 * plane;
        for (int64_t i = 0; i < 2 * plane; ++i) {
          const int64_t p = version == 21 ? grp * 2 + i / plane : grp;
          const double want =
              (xg[i] - mean) / std::sqrt(var + 1e-5) * scale.ptr<float>()[p] + bias.ptr<float>()[p];
          ASSERT_NEAR(y.ptr<float>()[(b * c + grp * 2) * plane + i], want,
                      1e-5 * (1 + std::fabs(want)))
              << "version " << version;
        }
      }
    }
  }
}

TEST(GroupNorm, GroupsMustDivideTheChannels) {
  std::vector<Tensor> out;
  const Tensor x = RandomFloat({1, 6, 2}, 1);
  const Tensor p = RandomFloat({6}, 2);
  EXPECT_EQ(RunOp("GroupNormalization", 21, {{x}, {p}, {p}}, {{"num_groups", IntAttr(4)}}, 1, &out)
                .code(),
            ErrorCode::kMalformedModel);
  EXPECT_EQ(RunOp("GroupNormalization", 21, {{x}, {p}, {p}}, {}, 1, &out).code(),
            ErrorCode::kMalformedModel);
  EXPECT_EQ(RunOp("GroupNormalization", 18, {{x}, {p}, {p}}, {{"num_groups", IntAttr(3)}}, 1, &out)
                .code(),
            ErrorCode::kShapeMismatch);  // version 18 takes per-group parameters
}

TEST(LpNorm, L1AndL2AlongEitherAxis) {
  const Tensor x = MakeFloat({2, 2}, {3, -4, 0, 0});
  const Tensor l2 = RunOk("LpNormalization", 22, {x});
  EXPECT_EQ(std::vector<float>(l2.ptr<float>(), l2.ptr<float>() + 4),
            (std::vector<float>{0.6f, -0.8f, 0, 0}));  // a zero norm gives zeros
  const Tensor l1 = RunOk("LpNormalization", 22, {x}, {{"axis", IntAttr(0)}, {"p", IntAttr(1)}});
  EXPECT_EQ(std::vector<float>(l1.ptr<float>(), l1.ptr<float>() + 4),
            (std::vector<float>{1, -1, 0, 0}));
  std::vector<Tensor> out;
  EXPECT_EQ(RunOp("LpNormalization", 22, {{x}}, {{"p", IntAttr(3)}}, 1, &out).code(),
            ErrorCode::kMalformedModel);
}

// x / |x| is exactly +-1 (fuzz-diff seed 22066031: a float scale 1 / |x| made 0.99999994, and a
// MaxPool after it picked another of the "equal" values than onnxruntime), and a norm below
// float's smallest normal does not overflow the division (seed 22100624: -inf, not -1).
TEST(LpNorm, UnitsAreExactAndTinyNormsDoNotOverflow) {
  const Tensor x = MakeFloat({1, 4}, {0.3f, -0.7f, 1e-40f, -3e-39f});
  const Tensor l1 = RunOk("LpNormalization", 22, {x}, {{"axis", IntAttr(0)}, {"p", IntAttr(1)}});
  EXPECT_EQ(std::vector<float>(l1.ptr<float>(), l1.ptr<float>() + 4),
            (std::vector<float>{1, -1, 1, -1}));
  const Tensor tiny = MakeFloat({2}, {-1e-40f, 0});
  const Tensor l2 = RunOk("LpNormalization", 22, {tiny}, {{"axis", IntAttr(0)}});
  EXPECT_EQ(l2.ptr<float>()[0], -1.f);
  EXPECT_EQ(l2.ptr<float>()[1], 0.f);
}

// Statistics over `axes` of a [2, 3, 4] tensor, for each kept position.
void ExpectMvn(const Tensor& x, const Tensor& y, const std::vector<bool>& reduced) {
  for (int64_t i = 0; i < x.numel(); ++i) {
    const int64_t ii[3] = {i / 12, i / 4 % 3, i % 4};
    double sum = 0, sq = 0, count = 0;
    for (int64_t j = 0; j < x.numel(); ++j) {
      const int64_t jj[3] = {j / 12, j / 4 % 3, j % 4};
      bool same = true;
      for (int d = 0; d < 3; ++d) same = same && (reduced[d] || ii[d] == jj[d]);
      if (!same) continue;
      sum += x.ptr<float>()[j];
      sq += double(x.ptr<float>()[j]) * x.ptr<float>()[j];
      ++count;
    }
    const double mean = sum / count, std = std::sqrt(sq / count - mean * mean);
    const double want = (x.ptr<float>()[i] - mean) / (std + 1e-9);
    ASSERT_NEAR(y.ptr<float>()[i], want, 1e-5 * (1 + std::fabs(want))) << "at " << i;
  }
}

TEST(Mvn, DefaultAndChosenAxesAgainstANaiveLoop) {
  const Tensor x = RandomFloat({2, 3, 4}, 5);
  ExpectMvn(x, RunOk("MeanVarianceNormalization", 13, {x}, {{"axes", IntsAttr({0, 2})}}),
            {true, false, true});
  ExpectMvn(x, RunOk("MeanVarianceNormalization", 13, {x}, {{"axes", IntsAttr({-2})}}),
            {false, true, false});
  std::vector<Tensor> out;
  EXPECT_EQ(
      RunOp("MeanVarianceNormalization", 13, {{x}}, {{"axes", IntsAttr({1, 1})}}, 1, &out).code(),
      ErrorCode::kMalformedModel);
}

}  // namespace
}  // namespace webnx::testing
