// RotaryEmbedding (23) against hand-computed values and a reference written here from the spec's
// algorithm: 3-D and 4-D inputs, interleaved or halves, partial rotation, with and without
// position_ids; errors name the node.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>

#include "tests/unit/op_runner.h"

namespace webnx {
namespace {

using testing::ExpectAllNear;
using testing::IntAttr;
using testing::MakeFloat;
using testing::MakeInt64;
using testing::OpInput;
using testing::RandomFloat;
using testing::RunOk;
using testing::RunOp;

// The spec's algorithm: the rotated features split into halves (or even/odd ones when
// interleaved), real = cos * x1 - sin * x2, imag = sin * x1 + cos * x2 put back in their places.
Tensor NaiveRotary(const Tensor& x, const Tensor& cos, const Tensor& sin, const Tensor* ids,
                   bool interleaved, int64_t rotary_dim, int64_t num_heads) {
  Tensor y;
  EXPECT_TRUE(x.Clone(&y).ok());
  const bool four_d = x.shape.size() == 4;
  const int64_t batch = x.shape[0], seq = four_d ? x.shape[2] : x.shape[1];
  const int64_t heads = four_d ? x.shape[1] : num_heads;
  const int64_t size = four_d ? x.shape[3] : x.shape[2] / num_heads;
  const int64_t dim = rotary_dim ? rotary_dim : size, half = dim / 2;
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t s = 0; s < seq; ++s)
      for (int64_t h = 0; h < heads; ++h) {
        const int64_t base =
            four_d ? ((b * heads + h) * seq + s) * size : (b * seq + s) * heads * size + h * size;
        const int64_t row = ids ? ids->ptr<int64_t>()[b * seq + s] : b * seq + s;
        for (int64_t j = 0; j < half; ++j) {
          const int64_t i1 = interleaved ? 2 * j : j, i2 = interleaved ? 2 * j + 1 : j + half;
          const double c = cos.ptr<float>()[row * half + j], sn = sin.ptr<float>()[row * half + j];
          const double x1 = x.ptr<float>()[base + i1], x2 = x.ptr<float>()[base + i2];
          y.ptr<float>()[base + i1] = float(c * x1 - sn * x2);
          y.ptr<float>()[base + i2] = float(sn * x1 + c * x2);
        }
      }
  return y;
}

TEST(RotaryEmbedding, HandComputedQuarterTurn) {
  // cos 0, sin 1: (x1, x2) -> (-x2, x1); the features past rotary_embedding_dim stay.
  Tensor x = MakeFloat({1, 1, 1, 4}, {1, 2, 3, 4});
  Tensor cos = MakeFloat({2, 1}, {1, 0}), sin = MakeFloat({2, 1}, {0, 1});
  Tensor ids = MakeInt64({1, 1}, {1});
  ExpectAllNear(
      RunOk("RotaryEmbedding", 23, {x, cos, sin, ids}, {{"rotary_embedding_dim", IntAttr(2)}}),
      MakeFloat({1, 1, 1, 4}, {-2, 1, 3, 4}));
  Tensor identity_cos = MakeFloat({1, 2}, {1, 1}), identity_sin = MakeFloat({1, 2}, {0, 0});
  ExpectAllNear(
      RunOk("RotaryEmbedding", 23, {x, identity_cos, identity_sin, MakeInt64({1, 1}, {0})}), x);
}

TEST(RotaryEmbedding, MatchesSpecAlgorithm) {
  struct RotaryCase {
    bool four_d, interleaved, with_ids;
    int64_t rotary_dim;
  };
  const int64_t batch = 2, heads = 3, seq = 5, size = 10, max_position = 12;
  for (const RotaryCase rc :
       {RotaryCase{true, false, true, 0}, RotaryCase{true, true, true, 0},
        RotaryCase{false, false, true, 6}, RotaryCase{false, true, true, 4},
        RotaryCase{true, false, false, 8}, RotaryCase{false, true, false, 0}}) {
    SCOPED_TRACE(std::to_string(rc.four_d) + std::to_string(rc.interleaved) +
                 std::to_string(rc.with_ids) + " dim " + std::to_string(rc.rotary_dim));
    const int64_t half = (rc.rotary_dim ? rc.rotary_dim : size) / 2;
    Tensor x = RandomFloat(
        rc.four_d ? Shape{batch, heads, seq, size} : Shape{batch, seq, heads * size}, 1);
    const Shape cache = rc.with_ids ? Shape{max_position, half} : Shape{batch, seq, half};
    Tensor cos = RandomFloat(cache, 2), sin = RandomFloat(cache, 3);
    std::vector<int64_t> id_values;
    for (int64_t i = 0; i < batch * seq; ++i) id_values.push_back((i * 7 + 3) % max_position);
    Tensor ids = MakeInt64({batch, seq}, id_values);
    std::map<std::string, Attribute> attrs = {{"interleaved", IntAttr(rc.interleaved)},
                                              {"rotary_embedding_dim", IntAttr(rc.rotary_dim)}};
    if (!rc.four_d) attrs["num_heads"] = IntAttr(heads);
    std::vector<Tensor> inputs = {x, cos, sin};
    if (rc.with_ids) inputs.push_back(ids);
    ExpectAllNear(RunOk("RotaryEmbedding", 23, inputs, attrs),
                  NaiveRotary(x, cos, sin, rc.with_ids ? &ids : nullptr, rc.interleaved,
                              rc.rotary_dim, heads));
  }
}

TEST(RotaryEmbedding, Errors) {
  std::vector<Tensor> out;
  Tensor x = RandomFloat({1, 2, 3, 4}, 1);
  Tensor cos = RandomFloat({5, 2}, 2), sin = RandomFloat({5, 2}, 3);
  Tensor ids = MakeInt64({1, 3}, {0, 4, 5});  // 5 is past the caches' 5 positions
  auto run = [&](const std::vector<OpInput>& in, const std::map<std::string, Attribute>& attrs) {
    const Status s = RunOp("RotaryEmbedding", 23, in, attrs, 1, &out);
    if (!s.ok()) EXPECT_NE(s.message().find("test_RotaryEmbedding"), std::string::npos);
    return s.code();
  };
  EXPECT_EQ(run({{x}, {cos}, {sin}, {ids}}, {}), ErrorCode::kInvalidInput);
  EXPECT_EQ(run({{x}, {cos}, {sin}, {MakeInt64({1, 3}, {0, -1, 2})}}, {}),
            ErrorCode::kInvalidInput);
  EXPECT_EQ(run({{x}, {cos}, {sin}, {MakeInt64({1, 3}, {0, 1, 2})}}, {}), ErrorCode::kOk);
  EXPECT_EQ(run({{x}, {cos}, {sin}, {MakeInt64({1, 3}, {0, 1, 2})}},
                {{"rotary_embedding_dim", IntAttr(3)}}),
            ErrorCode::kMalformedModel);
  EXPECT_EQ(run({{RandomFloat({1, 3, 8}, 1)}, {cos}, {sin}, {MakeInt64({1, 3}, {0, 1, 2})}}, {}),
            ErrorCode::kMalformedModel);  // 3-D without num_heads
  EXPECT_EQ(run({{x}, {RandomFloat({5, 3}, 2)}, {sin}, {MakeInt64({1, 3}, {0, 1, 2})}}, {}),
            ErrorCode::kShapeMismatch);
  EXPECT_EQ(run({{x}, {cos}, {sin}, {MakeInt64({2, 3}, {0, 1, 2, 0, 1, 2})}}, {}),
            ErrorCode::kShapeMismatch);
  EXPECT_EQ(run({{x}, {cos}, {sin}}, {}), ErrorCode::kShapeMismatch);  // 2-D caches need ids
  EXPECT_EQ(run({{RandomFloat({2, 4}, 1)}, {cos}, {sin}}, {}), ErrorCode::kShapeMismatch);
}

}  // namespace
}  // namespace webnx
