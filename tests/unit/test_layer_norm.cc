// LayerNormalization: hand-checked values, a naive cross-check over shapes and axes (with and
// without B, Mean and InvStdDev), broadcast parameters, and error cases. RMSNormalization: by
// hand and against a naive root-mean-square over odd shapes.
#include <gtest/gtest.h>

#include <cmath>

#include "tests/unit/op_runner.h"

namespace webnx {
namespace {

using testing::ExpectAllNear;
using testing::FloatAttr;
using testing::IntAttr;
using testing::MakeFloat;
using testing::OpInput;
using testing::RandomFloat;
using testing::RunOk;
using testing::RunOp;

struct NaiveResult {
  Tensor y, mean, inv_std;
};

// Row-by-row layer norm in double; scale and bias have the normalised shape's element count.
NaiveResult NaiveLayerNorm(const Tensor& x, const Tensor& scale, const Tensor* bias, int64_t axis,
                           float eps) {
  NaiveResult r;
  const int64_t rank = x.rank();
  if (axis < 0) axis += rank;
  int64_t rows = 1, cols = 1;
  for (int64_t d = 0; d < rank; ++d) (d < axis ? rows : cols) *= x.shape[d];
  Shape stats(x.shape.begin(), x.shape.begin() + axis);
  stats.resize(rank, 1);
  EXPECT_TRUE(x.Clone(&r.y).ok());
  EXPECT_TRUE(Tensor::Allocate(DType::kFloat32, stats, &r.mean).ok());
  EXPECT_TRUE(Tensor::Allocate(DType::kFloat32, stats, &r.inv_std).ok());
  for (int64_t i = 0; i < rows; ++i) {
    const float* xr = x.ptr<float>() + i * cols;
    double mean = 0, var = 0;
    for (int64_t j = 0; j < cols; ++j) mean += xr[j];
    mean /= cols;
    for (int64_t j = 0; j < cols; ++j) var += (xr[j] - mean) * (xr[j] - mean);
    var /= cols;
    const double inv = 1 / std::sqrt(var + eps);
    for (int64_t j = 0; j < cols; ++j) {
      const double b = bias ? bias->ptr<float>()[j] : 0.0;
      r.y.ptr<float>()[i * cols + j] = float((xr[j] - mean) * inv * scale.ptr<float>()[j] + b);
    }
    r.mean.ptr<float>()[i] = float(mean);
    r.inv_std.ptr<float>()[i] = float(inv);
  }
  return r;
}

TEST(LayerNorm, HandChecked) {
  // Rows [1, 2, 3] and [2, 4, 6]: both normalise to [-a, 0, a] with a = sqrt(3/2).
  Tensor x = MakeFloat({2, 3}, {1, 2, 3, 2, 4, 6});
  Tensor scale = MakeFloat({3}, {1, 1, 2});
  Tensor bias = MakeFloat({3}, {0, 10, 0});
  std::vector<Tensor> out;
  Status s = RunOp("LayerNormalization", 17, {{x}, {scale}, {bias}}, {{"epsilon", FloatAttr(0.f)}},
                   3, &out);
  ASSERT_TRUE(s.ok()) << s.ToString();
  const float a = std::sqrt(1.5f);
  ExpectAllNear(out[0], MakeFloat({2, 3}, {-a, 10, 2 * a, -a, 10, 2 * a}));
  ExpectAllNear(out[1], MakeFloat({2, 1}, {2, 4}));
  ExpectAllNear(out[2], MakeFloat({2, 1}, {1 / std::sqrt(2.f / 3), 1 / std::sqrt(8.f / 3)}));
}

TEST(LayerNorm, MatchesNaiveOverAxes) {
  uint32_t seed = 1;
  for (const Shape& xs : {Shape{5}, Shape{3, 7}, Shape{2, 3, 4}, Shape{2, 3, 4, 5}}) {
    const int64_t rank = static_cast<int64_t>(xs.size());
    for (int64_t axis = -rank; axis < rank; ++axis) {
      for (bool with_bias : {false, true}) {
        for (bool constant : {false, true}) {
          SCOPED_TRACE(ShapeToString(xs) + " axis " + std::to_string(axis) +
                       (with_bias ? " bias" : "") + (constant ? " constant" : ""));
          const int64_t first = axis < 0 ? axis + rank : axis;
          const Shape norm(xs.begin() + first, xs.end());
          Tensor x = RandomFloat(xs, seed++, -3, 5);
          Tensor scale = RandomFloat(norm, seed++);
          Tensor bias = RandomFloat(norm, seed++);
          std::vector<OpInput> in = {{x}, {scale, constant}};
          if (with_bias) in.push_back({bias, constant});
          std::vector<Tensor> out;
          Status s = RunOp("LayerNormalization", 17, in,
                           {{"axis", IntAttr(axis)}, {"epsilon", FloatAttr(1e-3f)}}, 3, &out);
          ASSERT_TRUE(s.ok()) << s.ToString();
          NaiveResult want = NaiveLayerNorm(x, scale, with_bias ? &bias : nullptr, axis, 1e-3f);
          ExpectAllNear(out[0], want.y);
          ExpectAllNear(out[1], want.mean);
          ExpectAllNear(out[2], want.inv_std);
        }
      }
    }
  }
}

TEST(LayerNorm, DefaultsAndYOnly) {
  Tensor x = RandomFloat({4, 6}, 7, -2, 2);
  Tensor scale = RandomFloat({6}, 8);
  Tensor y = RunOk("LayerNormalization", 17, {x, scale});
  ExpectAllNear(y, NaiveLayerNorm(x, scale, nullptr, -1, 1e-5f).y);
}

TEST(LayerNorm, BroadcastParameters) {
  // Scale [1, 4] and B [4] (and [1, 1, 4]) broadcast over the normalised shape [3, 4].
  Tensor x = RandomFloat({2, 3, 4}, 11, -1, 3);
  Tensor scale_row = RandomFloat({1, 4}, 12);
  Tensor bias_row = RandomFloat({4}, 13);
  Tensor scale_full, bias_full;
  ASSERT_TRUE(Tensor::Allocate(DType::kFloat32, {3, 4}, &scale_full).ok());
  ASSERT_TRUE(Tensor::Allocate(DType::kFloat32, {3, 4}, &bias_full).ok());
  for (int i = 0; i < 12; ++i) {
    scale_full.ptr<float>()[i] = scale_row.ptr<float>()[i % 4];
    bias_full.ptr<float>()[i] = bias_row.ptr<float>()[i % 4];
  }
  const NaiveResult want = NaiveLayerNorm(x, scale_full, &bias_full, 1, 1e-5f);
  ExpectAllNear(RunOk("LayerNormalization", 17, {x, scale_row, bias_row}, {{"axis", IntAttr(1)}}),
                want.y);
  Tensor bias_3d =
      MakeFloat({1, 1, 4}, std::vector<float>(bias_row.ptr<float>(), bias_row.ptr<float>() + 4));
  ExpectAllNear(RunOk("LayerNormalization", 17, {x, scale_row, bias_3d}, {{"axis", IntAttr(1)}}),
                want.y);
}

TEST(LayerNorm, ConstantRowNormalisesToBias) {
  // Zero variance: y = (x - mean) * 1/sqrt(eps) * scale + B = B exactly.
  Tensor x = MakeFloat({2, 3}, {5, 5, 5, -1, -1, -1});
  Tensor y = RunOk("LayerNormalization", 17,
                   {x, MakeFloat({3}, {1, 2, 3}), MakeFloat({3}, {0.5f, -1, 2})});
  ExpectAllNear(y, MakeFloat({2, 3}, {0.5f, -1, 2, 0.5f, -1, 2}));
}

TEST(LayerNorm, Errors) {
  Tensor x = RandomFloat({2, 3, 4}, 1);
  Tensor s4 = RandomFloat({4}, 2);
  auto run = [&](std::vector<OpInput> in, std::map<std::string, Attribute> attrs, int outputs = 1) {
    std::vector<Tensor> out;
    return RunOp("LayerNormalization", 17, in, attrs, outputs, &out).code();
  };
  EXPECT_EQ(run({{x}, {s4}}, {}), ErrorCode::kOk);
  EXPECT_EQ(run({{x}}, {}), ErrorCode::kMalformedModel);  // Scale is required
  EXPECT_EQ(run({{x}, {s4}}, {{"axis", IntAttr(3)}}), ErrorCode::kMalformedModel);
  EXPECT_EQ(run({{x}, {s4}}, {{"axis", IntAttr(-4)}}), ErrorCode::kMalformedModel);
  EXPECT_EQ(run({{x}, {RandomFloat({3}, 3)}}, {}), ErrorCode::kShapeMismatch);
  EXPECT_EQ(run({{x}, {s4}, {RandomFloat({2, 4}, 3)}}, {}), ErrorCode::kShapeMismatch);
  EXPECT_EQ(run({{x}, {RandomFloat({2, 1, 4}, 3)}}, {{"axis", IntAttr(1)}}),
            ErrorCode::kShapeMismatch);  // would widen the output
  EXPECT_EQ(run({{testing::MakeInt64({4}, {1, 2, 3, 4})}, {s4}}, {}), ErrorCode::kUnsupportedDtype);
  EXPECT_EQ(run({{x}, {s4}}, {{"stash_type", IntAttr(11)}}, 3), ErrorCode::kUnsupportedDtype);
  EXPECT_EQ(run({{x}, {s4}}, {{"stash_type", IntAttr(11)}}), ErrorCode::kOk);
  EXPECT_EQ(run({{MakeFloat({}, {1})}, {MakeFloat({}, {1})}}, {}), ErrorCode::kMalformedModel);
  EXPECT_EQ(run({{x}, {s4}}, {{"epsilon", IntAttr(1)}}), ErrorCode::kMalformedModel);
}

}  // namespace
TEST(RmsNorm, HandChecked) {
  // Row [3, 4]: mean square 12.5; row [0, 2]: 2.
  const Tensor x = MakeFloat({2, 2}, {3, 4, 0, 2});
  const Tensor scale = MakeFloat({2}, {1, 2});
  const Tensor y = RunOk("RMSNormalization", 23, {x, scale}, {{"epsilon", FloatAttr(0.f)}});
  const float a = 1 / std::sqrt(12.5f), b = 1 / std::sqrt(2.f);
  ExpectAllNear(y, MakeFloat({2, 2}, {3 * a, 8 * a, 0, 4 * b}));
}

TEST(RmsNorm, MatchesNaiveOverAxes) {
  const Tensor x = RandomFloat({3, 5, 7}, 11);
  for (int64_t axis : {-1, 1, 0}) {
    const int64_t cols = axis == -1 ? 7 : axis == 1 ? 35 : 105;
    const Tensor scale = RandomFloat(axis == -1  ? Shape{7}
                                     : axis == 1 ? Shape{5, 7}
                                                 : Shape{3, 5, 7},
                                     12);
    const Tensor y = RunOk("RMSNormalization", 23, {x, scale}, {{"axis", IntAttr(axis)}});
    Tensor want;
    ASSERT_TRUE(x.Clone(&want).ok());
    for (int64_t r = 0; r < 105 / cols; ++r) {
      const float* xr = x.ptr<float>() + r * cols;
      double sq = 0;
      for (int64_t j = 0; j < cols; ++j) sq += double(xr[j]) * xr[j];
      const double inv = 1 / std::sqrt(sq / cols + 1e-5);
      for (int64_t j = 0; j < cols; ++j)
        want.ptr<float>()[r * cols + j] = float(xr[j] * inv * scale.ptr<float>()[j]);
    }
    ExpectAllNear(y, want);
  }
}

}  // namespace webnx
