// BatchNormalization (inference), InstanceNormalization and LRN against naive formulas.
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

// The tolerance against the naive loops (long sums).
constexpr float kTolerance = 1e-4f;

// Naive inference batch norm; `per_element` params cover every (channel, position).
Tensor NaiveBatchNorm(const Tensor& x, const Tensor& s, const Tensor& b, const Tensor& mean,
                      const Tensor& var, float eps, bool per_element) {
  Tensor y;
  EXPECT_TRUE(x.Clone(&y).ok());
  const int64_t n = x.shape[0];
  const int64_t c = x.shape.size() > 1 ? x.shape[1] : 1;
  const int64_t inner = x.numel() / std::max<int64_t>(1, n * c);
  for (int64_t i = 0; i < x.numel(); ++i) {
    const int64_t p = per_element ? i % (c * inner) : (i / inner) % c;
    const float v = x.ptr<float>()[i];
    y.ptr<float>()[i] = float((v - mean.ptr<float>()[p]) /
                                  std::sqrt(double(var.ptr<float>()[p]) + eps) * s.ptr<float>()[p] +
                              b.ptr<float>()[p]);
  }
  return y;
}

TEST(BatchNorm, HandChecked) {
  // The ONNX example: x = [-1, 0, 1] per channel, scale [1, 1.5], bias [0, 1], mean 0, var 1.
  Tensor x = MakeFloat({1, 2, 1, 3}, {-1, 0, 1, 2, 3, 4});
  Tensor s = MakeFloat({2}, {1.0, 1.5});
  Tensor b = MakeFloat({2}, {0, 1});
  Tensor mean = MakeFloat({2}, {0, 3});
  Tensor var = MakeFloat({2}, {1, 1.5});
  Tensor y = RunOk("BatchNormalization", 15, {x, s, b, mean, var});
  const float k = 1.f / std::sqrt(1.f + 1e-5f), k2 = 1.5f / std::sqrt(1.5f + 1e-5f);
  ExpectAllNear(y, MakeFloat({1, 2, 1, 3}, {-k, 0, k, 1 - k2, 1, 1 + k2}), kTolerance);
}

TEST(BatchNorm, RandomRanksAndConstness) {
  const std::vector<Shape> shapes = {{2, 3, 4, 5}, {3, 5}, {7}, {2, 7, 3, 2, 2}, {1, 3, 1, 1}};
  uint32_t seed = 1;
  for (const Shape& xs : shapes) {
    for (bool constant : {false, true}) {
      for (int opset : {6, 9, 15}) {
        SCOPED_TRACE(ShapeToString(xs) + " opset " + std::to_string(opset));
        const int64_t c = xs.size() > 1 ? xs[1] : 1;
        Tensor x = RandomFloat(xs, seed++, -3, 3);
        Tensor s = RandomFloat({c}, seed++);
        Tensor b = RandomFloat({c}, seed++);
        Tensor mean = RandomFloat({c}, seed++);
        Tensor var = RandomFloat({c}, seed++, 0.1f, 2.f);
        std::vector<Tensor> out;
        Status st = RunOp("BatchNormalization", opset,
                          {{x}, {s, constant}, {b, constant}, {mean, constant}, {var, constant}},
                          {{"epsilon", FloatAttr(1e-3f)}}, 1, &out);
        ASSERT_TRUE(st.ok()) << st.ToString();
        ExpectAllNear(out[0], NaiveBatchNorm(x, s, b, mean, var, 1e-3f, false), kTolerance);
      }
    }
  }
}

TEST(BatchNorm, NonSpatialBeforeVersion9) {
  Tensor x = RandomFloat({3, 2, 4}, 1);
  Tensor s = RandomFloat({2, 4}, 2);
  Tensor b = RandomFloat({2, 4}, 3);
  Tensor mean = RandomFloat({2, 4}, 4);
  Tensor var = RandomFloat({2, 4}, 5, 0.5f, 1.5f);
  Tensor y = RunOk("BatchNormalization", 7, {x, s, b, mean, var}, {{"spatial", IntAttr(0)}});
  ExpectAllNear(y, NaiveBatchNorm(x, s, b, mean, var, 1e-5f, true), kTolerance);
}

TEST(BatchNorm, Errors) {
  Tensor x = RandomFloat({2, 3, 4}, 1);
  Tensor p = RandomFloat({3}, 2, 0.5f, 1.f);
  auto run = [&](int opset, std::vector<OpInput> in, std::map<std::string, Attribute> attrs,
                 int outputs = 1) {
    std::vector<Tensor> out;
    return RunOp("BatchNormalization", opset, in, attrs, outputs, &out).code();
  };
  EXPECT_EQ(run(15, {{x}, {p}, {p}, {p}, {p}}, {{"training_mode", IntAttr(1)}}),
            ErrorCode::kUnsupportedOperator);
  EXPECT_EQ(run(15, {{x}, {p}, {p}, {p}, {p}}, {}, 3), ErrorCode::kUnsupportedOperator);
  EXPECT_EQ(run(9, {{x}, {p}, {p}, {p}, {p}}, {}, 5), ErrorCode::kUnsupportedOperator);
  EXPECT_EQ(run(15, {{x}, {RandomFloat({4}, 3)}, {p}, {p}, {p}}, {}), ErrorCode::kShapeMismatch);
  EXPECT_EQ(run(15, {{x}, {p}, {p}, {RandomFloat({3, 1}, 3)}, {p}}, {}), ErrorCode::kShapeMismatch);
  EXPECT_EQ(run(15, {{x}, {p}, {p}, {p}}, {}), ErrorCode::kMalformedModel);
  EXPECT_EQ(run(15, {{MakeFloat({}, {1})}, {p}, {p}, {p}, {p}}, {}), ErrorCode::kShapeMismatch);
  EXPECT_EQ(run(15, {{testing::MakeInt64({1, 3}, {1, 2, 3})}, {p}, {p}, {p}, {p}}, {}),
            ErrorCode::kUnsupportedDtype);
  EXPECT_EQ(run(15, {{x}, {p}, {p}, {p}, {p}}, {{"epsilon", IntAttr(1)}}),
            ErrorCode::kMalformedModel);
}

TEST(InstanceNorm, MatchesNaive) {
  for (const Shape& xs : {Shape{2, 3, 4, 5}, Shape{1, 5, 7}, Shape{3, 2, 2, 3, 2}}) {
    SCOPED_TRACE(ShapeToString(xs));
    Tensor x = RandomFloat(xs, 3, -2, 5);
    Tensor s = RandomFloat({xs[1]}, 4);
    Tensor b = RandomFloat({xs[1]}, 5);
    Tensor y = RunOk("InstanceNormalization", 6, {x, s, b}, {{"epsilon", FloatAttr(1e-2f)}});
    Tensor want;
    ASSERT_TRUE(x.Clone(&want).ok());
    const int64_t plane = x.numel() / (xs[0] * xs[1]);
    for (int64_t p = 0; p < xs[0] * xs[1]; ++p) {
      const float* xp = x.ptr<float>() + p * plane;
      double mean = 0, var = 0;
      for (int64_t i = 0; i < plane; ++i) mean += xp[i];
      mean /= plane;
      for (int64_t i = 0; i < plane; ++i) var += (xp[i] - mean) * (xp[i] - mean);
      var /= plane;
      const int64_t c = p % xs[1];
      for (int64_t i = 0; i < plane; ++i) {
        want.ptr<float>()[p * plane + i] =
            float((xp[i] - mean) / std::sqrt(var + 1e-2) * s.ptr<float>()[c] + b.ptr<float>()[c]);
      }
    }
    ExpectAllNear(y, want, kTolerance);
  }
}

// One value per plane, far from zero: x - mean is exactly 0, so Y is B exactly. Folding the mean
// into the bias (x * a + (B - mean * a)) loses that to cancellation (fuzz-diff seed 5606).
TEST(InstanceNorm, PlanesWithALargeMeanGiveTheBias) {
  Tensor x = MakeFloat({2, 2, 1}, {128.75f, 119.39630f, -370.348f, 240.29477f});
  Tensor s = MakeFloat({2}, {0.75f, -1.5f});
  Tensor b = MakeFloat({2}, {0.232666f, -0.5f});
  Tensor y = RunOk("InstanceNormalization", 6, {x, s, b}, {});
  for (int64_t i = 0; i < 4; ++i) EXPECT_EQ(y.ptr<float>()[i], b.ptr<float>()[i % 2]) << i;
}

// Nearly equal values (spread 0.004 around 3.17) with epsilon 1e-5 scale x - mean by ~260: a
// float mean's rounding would show as 3e-5 in Y (fuzz-diff seed 1352177). Against float64.
TEST(InstanceNorm, NearlyEqualValuesMatchFloat64) {
  const std::vector<float> values = {3.165876865386963f, 3.1703431606292725f, 3.165876865386963f,
                                     3.1703431606292725f};
  Tensor x = MakeFloat({1, 1, 4}, values);
  Tensor y =
      RunOk("InstanceNormalization", 6, {x, MakeFloat({1}, {0.8f}), MakeFloat({1}, {0.9f})}, {});
  double mean = 0, var = 0;
  for (float v : values) mean += v / 4.0;
  for (float v : values) var += (v - mean) * (v - mean) / 4.0;
  for (int i = 0; i < 4; ++i) {
    const double want = (values[i] - mean) / std::sqrt(var + 1e-5) * 0.8 + 0.9;
    EXPECT_NEAR(y.ptr<float>()[i], want, 1e-6) << i;
  }
}

TEST(InstanceNorm, Errors) {
  std::vector<Tensor> out;
  Tensor x = RandomFloat({1, 3, 4}, 1);
  EXPECT_EQ(RunOp("InstanceNormalization", 6, {{x}, {RandomFloat({2}, 2)}, {RandomFloat({3}, 3)}},
                  {}, 1, &out)
                .code(),
            ErrorCode::kShapeMismatch);
  EXPECT_EQ(
      RunOp("InstanceNormalization", 6,
            {{RandomFloat({3, 4}, 1)}, {RandomFloat({4}, 2)}, {RandomFloat({4}, 3)}}, {}, 1, &out)
          .code(),
      ErrorCode::kShapeMismatch);
}

TEST(Lrn, HugeEmptyInputPlansWithoutAllocating) {
  Tensor x = MakeFloat({0, 3, int64_t{1} << 40}, {});
  EXPECT_EQ(RunOk("LRN", 13, {x}, {{"size", IntAttr(3)}}).shape, x.shape);
}

TEST(Lrn, MatchesNaive) {
  for (int64_t size : {1, 2, 3, 5}) {
    SCOPED_TRACE("size " + std::to_string(size));
    Tensor x = RandomFloat({2, 7, 3, 4}, 9, -2, 2);
    const float alpha = 0.2f, beta = 0.6f, bias = 1.5f;
    Tensor y = RunOk("LRN", 13, {x},
                     {{"size", IntAttr(size)},
                      {"alpha", FloatAttr(alpha)},
                      {"beta", FloatAttr(beta)},
                      {"bias", FloatAttr(bias)}});
    Tensor want;
    ASSERT_TRUE(x.Clone(&want).ok());
    const int64_t plane = 12, channels = 7;
    for (int64_t i = 0; i < x.numel(); ++i) {
      const int64_t n = i / (channels * plane), c = (i / plane) % channels, pos = i % plane;
      double sq = 0;
      for (int64_t k = c - (size - 1) / 2; k <= c + size / 2; ++k) {
        if (k < 0 || k >= channels) continue;
        const float v = x.ptr<float>()[(n * channels + k) * plane + pos];
        sq += double(v) * v;
      }
      want.ptr<float>()[i] = float(x.ptr<float>()[i] / std::pow(bias + alpha / size * sq, beta));
    }
    ExpectAllNear(y, want, kTolerance);
  }
  std::vector<Tensor> out;
  EXPECT_EQ(RunOp("LRN", 13, {{RandomFloat({1, 2, 2, 2}, 1)}}, {}, 1, &out).code(),
            ErrorCode::kMalformedModel);
  EXPECT_EQ(
      RunOp("LRN", 13, {{RandomFloat({1, 2, 2, 2}, 1)}}, {{"size", IntAttr(0)}}, 1, &out).code(),
      ErrorCode::kMalformedModel);
}

}  // namespace
}  // namespace webnx
