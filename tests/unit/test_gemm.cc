// Gemm and MatMul: hand-checked cases, cross-checks against naive loops, and error codes.
#include <gtest/gtest.h>

#include <cmath>
#include <tuple>

#include "kernels/gemm_ref.h"
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

// Naive Y = alpha * op(A) * op(B) + beta * broadcast(C).
Tensor NaiveGemm(const Tensor& a, const Tensor& b, const Tensor* c, bool ta, bool tb, float alpha,
                 float beta) {
  const int64_t m = ta ? a.shape[1] : a.shape[0];
  const int64_t k = ta ? a.shape[0] : a.shape[1];
  const int64_t n = tb ? b.shape[0] : b.shape[1];
  Tensor y = MakeFloat({m, n}, std::vector<float>(m * n, 0.f));
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t p = 0; p < k; ++p) {
        const float av = ta ? a.ptr<float>()[p * m + i] : a.ptr<float>()[i * k + p];
        const float bv = tb ? b.ptr<float>()[j * k + p] : b.ptr<float>()[p * n + j];
        sum += double(av) * bv;
      }
      double bias = 0;
      if (c) {
        const Shape& cs = c->shape;
        const int64_t rows = cs.size() == 2 ? cs[0] : 1;
        const int64_t cols = cs.empty() ? 1 : cs.back();
        bias = c->ptr<float>()[(rows == 1 ? 0 : i) * cols + (cols == 1 ? 0 : j)];
      }
      y.ptr<float>()[i * n + j] = float(alpha * sum + beta * bias);
    }
  }
  return y;
}

// Naive numpy matmul for ranks >= 1 with batch broadcasting.
Tensor NaiveMatMul(const Tensor& a_in, const Tensor& b_in) {
  Shape a = a_in.shape.size() == 1 ? Shape{1, a_in.shape[0]} : a_in.shape;
  Shape b = b_in.shape.size() == 1 ? Shape{b_in.shape[0], 1} : b_in.shape;
  const int64_t m = a[a.size() - 2], k = a.back(), n = b.back();
  const size_t rank = std::max(a.size(), b.size()) - 2;
  Shape batch(rank);
  auto dim = [rank](const Shape& s, size_t i) {
    const size_t lead = rank - (s.size() - 2);
    return i < lead ? int64_t{1} : s[i - lead];
  };
  int64_t batches = 1;
  for (size_t i = 0; i < rank; ++i) {
    batch[i] = std::max(dim(a, i), dim(b, i));
    batches *= batch[i];
  }
  Shape out = batch;
  if (a_in.shape.size() > 1) out.push_back(m);
  if (b_in.shape.size() > 1) out.push_back(n);
  Tensor y = MakeFloat(out, std::vector<float>(batches * m * n, 0.f));
  for (int64_t bi = 0; bi < batches; ++bi) {
    // Decompose the batch index and map it to A's and B's (broadcast) batch offsets.
    int64_t rem = bi, a_off = 0, b_off = 0, a_mul = 1, b_mul = 1;
    for (size_t i = rank; i-- > 0;) {
      const int64_t idx = rem % batch[i];
      rem /= batch[i];
      a_off += (dim(a, i) == 1 ? 0 : idx) * a_mul;
      b_off += (dim(b, i) == 1 ? 0 : idx) * b_mul;
      a_mul *= dim(a, i);
      b_mul *= dim(b, i);
    }
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (int64_t p = 0; p < k; ++p) {
          sum += double(a_in.ptr<float>()[a_off * m * k + i * k + p]) *
                 b_in.ptr<float>()[b_off * k * n + p * n + j];
        }
        y.ptr<float>()[bi * m * n + i * n + j] = float(sum);
      }
    }
  }
  return y;
}

TEST(Gemm, HandChecked) {
  Tensor a = MakeFloat({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor b = MakeFloat({3, 2}, {1, 0, 0, 1, 1, 1});
  Tensor c = MakeFloat({2}, {10, 20});
  Tensor y = RunOk("Gemm", 13, {a, b, c});
  ExpectAllNear(y, MakeFloat({2, 2}, {14, 25, 20, 31}), kTolerance);
}

TEST(Gemm, AllTransposesAndBiasShapesMatchNaive) {
  const int64_t m = 7, k = 5, n = 9;
  const std::vector<Shape> bias_shapes = {{}, {n}, {1, n}, {m, 1}, {m, n}, {1}, {1, 1}};
  uint32_t seed = 1;
  for (int ta = 0; ta < 2; ++ta) {
    for (int tb = 0; tb < 2; ++tb) {
      for (const Shape& cs : bias_shapes) {
        for (bool constant_b : {false, true}) {
          Tensor a = RandomFloat(ta ? Shape{k, m} : Shape{m, k}, seed++);
          Tensor b = RandomFloat(tb ? Shape{n, k} : Shape{k, n}, seed++);
          Tensor c = RandomFloat(cs, seed++);
          std::vector<Tensor> out;
          Status s = RunOp("Gemm", 13, {{a}, {b, constant_b}, {c}},
                           {{"transA", IntAttr(ta)},
                            {"transB", IntAttr(tb)},
                            {"alpha", FloatAttr(0.75f)},
                            {"beta", FloatAttr(-1.5f)}},
                           1, &out);
          ASSERT_TRUE(s.ok()) << s.ToString();
          SCOPED_TRACE("ta=" + std::to_string(ta) + " tb=" + std::to_string(tb) +
                       " C=" + ShapeToString(cs));
          ExpectAllNear(out[0], NaiveGemm(a, b, &c, ta, tb, 0.75f, -1.5f), kTolerance);
        }
      }
    }
  }
}

TEST(Gemm, BlockBoundariesAndNoBias) {
  // Sizes that cross the 4-row, K-block (128) and N-block (256) edges.
  for (auto [m, k, n] : {std::tuple<int64_t, int64_t, int64_t>{9, 300, 600}, {1, 129, 257}}) {
    Tensor a = RandomFloat({m, k}, 11);
    Tensor b = RandomFloat({k, n}, 12);
    ExpectAllNear(RunOk("Gemm", 11, {a, b}), NaiveGemm(a, b, nullptr, false, false, 1, 0),
                  kTolerance);
    Tensor bt = RandomFloat({n, k}, 13);
    ExpectAllNear(RunOk("Gemm", 11, {a, bt}, {{"transB", IntAttr(1)}}),
                  NaiveGemm(a, bt, nullptr, false, true, 1, 0), kTolerance);
  }
}

TEST(Gemm, ZeroBetaIgnoresC) {
  Tensor a = RandomFloat({2, 3}, 1);
  Tensor b = RandomFloat({3, 4}, 2);
  Tensor c = MakeFloat({1}, {NAN});
  Tensor y = RunOk("Gemm", 13, {a, b, c}, {{"beta", FloatAttr(0.f)}});
  ExpectAllNear(y, NaiveGemm(a, b, nullptr, false, false, 1, 0), kTolerance);
}

TEST(Gemm, EmptyInnerDimensionGivesBias) {
  Tensor a = MakeFloat({2, 0}, {});
  Tensor b = MakeFloat({0, 3}, {});
  Tensor c = MakeFloat({3}, {1, 2, 3});
  ExpectAllNear(RunOk("Gemm", 13, {a, b, c}), MakeFloat({2, 3}, {1, 2, 3, 1, 2, 3}), kTolerance);
}

TEST(Gemm, Errors) {
  std::vector<Tensor> out;
  Tensor a = RandomFloat({2, 3}, 1);
  Tensor b = RandomFloat({3, 4}, 2);
  // C is required before version 11.
  EXPECT_EQ(RunOp("Gemm", 9, {{a}, {b}}, {}, 1, &out).code(), ErrorCode::kMalformedModel);
  // Inner dims differ.
  EXPECT_EQ(RunOp("Gemm", 13, {{a}, {RandomFloat({4, 4}, 3)}}, {}, 1, &out).code(),
            ErrorCode::kShapeMismatch);
  // Rank 3 operand.
  EXPECT_EQ(RunOp("Gemm", 13, {{RandomFloat({1, 2, 3}, 4)}, {b}}, {}, 1, &out).code(),
            ErrorCode::kShapeMismatch);
  // C that does not broadcast to [2, 4].
  EXPECT_EQ(RunOp("Gemm", 13, {{a}, {b}, {RandomFloat({3}, 5)}}, {}, 1, &out).code(),
            ErrorCode::kShapeMismatch);
  EXPECT_EQ(RunOp("Gemm", 13, {{a}, {b}, {RandomFloat({2, 4, 1}, 5)}}, {}, 1, &out).code(),
            ErrorCode::kShapeMismatch);
  // int64 operands.
  EXPECT_EQ(RunOp("Gemm", 13, {{testing::MakeInt64({1, 1}, {1})}, {b}}, {}, 1, &out).code(),
            ErrorCode::kUnsupportedDtype);
  // Wrongly typed attribute.
  EXPECT_EQ(RunOp("Gemm", 13, {{a}, {b}}, {{"alpha", IntAttr(1)}}, 1, &out).code(),
            ErrorCode::kMalformedModel);
}

// Products run on the packed microkernels (kernels/packed_matmul.h): checked against GemmRef,
// their scalar twin, on odd sizes (row, column and k tails; column blocks; every transpose;
// alpha, beta and C) on 1 and 3 threads, which split blocks and rows.
TEST(Gemm, PackedPathMatchesGemmRef) {
  uint32_t seed = 500;
  for (int threads : {1, 3}) {
    for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{1, 1, 1},
                           {3, 20, 9},
                           {4, 1, 1},
                           {5, 9, 3},
                           {13, 7, 33},
                           {33, 100, 17},
                           {8, 300, 130},
                           {70, 13, 600}}) {
      for (int ta = 0; ta < 2; ++ta) {
        for (int tb = 0; tb < 2; ++tb) {
          Tensor a = RandomFloat(ta ? Shape{k, m} : Shape{m, k}, seed++);
          Tensor b = RandomFloat(tb ? Shape{n, k} : Shape{k, n}, seed++);
          Tensor c = RandomFloat({m, n}, seed++);
          std::vector<Tensor> out;
          Status s = RunOp("Gemm", 13, {{a}, {b, (m + n) % 2 == 0}, {c}},
                           {{"transA", IntAttr(ta)},
                            {"transB", IntAttr(tb)},
                            {"alpha", FloatAttr(0.5f)},
                            {"beta", FloatAttr(2.f)}},
                           1, &out, threads);
          ASSERT_TRUE(s.ok()) << s.ToString();
          std::vector<float> want(c.ptr<float>(), c.ptr<float>() + m * n);
          GemmRef(ta, tb, m, n, k, 0.5f, a.ptr<float>(), ta ? m : k, b.ptr<float>(), tb ? k : n,
                  2.f, want.data(), n);
          SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) +
                       " ta=" + std::to_string(ta) + " tb=" + std::to_string(tb) +
                       " threads=" + std::to_string(threads));
          ExpectAllNear(out[0], MakeFloat({m, n}, want), 1e-5f);
        }
      }
    }
  }
}

TEST(MatMul, HandChecked) {
  Tensor a = MakeFloat({2, 2}, {1, 2, 3, 4});
  Tensor b = MakeFloat({2, 2}, {5, 6, 7, 8});
  ExpectAllNear(RunOk("MatMul", 13, {a, b}), MakeFloat({2, 2}, {19, 22, 43, 50}), kTolerance);
  // 1-D x 1-D is a dot product with a scalar result.
  Tensor dot = RunOk("MatMul", 13, {MakeFloat({3}, {1, 2, 3}), MakeFloat({3}, {4, 5, 6})});
  ExpectAllNear(dot, MakeFloat({}, {32}), kTolerance);
}

TEST(MatMul, ShapesMatchNaive) {
  const std::vector<std::pair<Shape, Shape>> cases = {{{3, 4}, {4, 3}},
                                                      {{4}, {2, 4, 1}},
                                                      {{1, 2, 4, 3}, {3}},
                                                      {{3, 1, 3, 4}, {1, 2, 4, 2}},
                                                      {{2, 3, 5}, {5, 7}},
                                                      {{5, 7}, {2, 7, 3}},
                                                      {{2, 1, 6, 5}, {3, 5, 9}},
                                                      {{6, 130, 70}, {6, 70, 260}},
                                                      {{3, 5}, {5}},
                                                      {{0, 3}, {3, 4}},
                                                      {{2, 0}, {0, 3}},
                                                      {{2, 2, 3, 4}, {1, 4, 2}}};
  uint32_t seed = 100;
  for (const auto& [as, bs] : cases) {
    SCOPED_TRACE(ShapeToString(as) + " x " + ShapeToString(bs));
    Tensor a = RandomFloat(as, seed++);
    Tensor b = RandomFloat(bs, seed++);
    ExpectAllNear(RunOk("MatMul", 13, {a, b}), NaiveMatMul(a, b), kTolerance);
  }
}

TEST(MatMul, PlusBiasEqualsGemm) {
  Tensor a = RandomFloat({5, 6}, 7);
  Tensor b = RandomFloat({6, 3}, 8);
  Tensor c = RandomFloat({3}, 9);
  Tensor mm = RunOk("MatMul", 9, {a, b});
  for (int64_t i = 0; i < 5; ++i) {
    for (int64_t j = 0; j < 3; ++j) mm.ptr<float>()[i * 3 + j] += c.ptr<float>()[j];
  }
  ExpectAllNear(RunOk("Gemm", 7, {a, b, c}), mm, kTolerance);
}

TEST(MatMul, Errors) {
  std::vector<Tensor> out;
  EXPECT_EQ(
      RunOp("MatMul", 13, {{RandomFloat({2, 3}, 1)}, {RandomFloat({4, 2}, 2)}}, {}, 1, &out).code(),
      ErrorCode::kShapeMismatch);
  EXPECT_EQ(
      RunOp("MatMul", 13, {{RandomFloat({2, 2, 3}, 1)}, {RandomFloat({3, 3, 2}, 2)}}, {}, 1, &out)
          .code(),
      ErrorCode::kShapeMismatch);
  EXPECT_EQ(RunOp("MatMul", 13, {{MakeFloat({}, {1})}, {RandomFloat({1}, 2)}}, {}, 1, &out).code(),
            ErrorCode::kShapeMismatch);
  EXPECT_EQ(RunOp("MatMul", 13, {{RandomFloat({2}, 1)}}, {}, 1, &out).code(),
            ErrorCode::kMalformedModel);
}

}  // namespace
}  // namespace webnx
