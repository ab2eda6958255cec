// Attention (23, 24) against hand-computed values and the scalar reference
// (kernels/attention_reference.h) on odd shapes, with every option, and its errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <random>
#include <string>

#include "kernels/attention_reference.h"
#include "tests/unit/op_runner.h"

namespace webnx {
namespace {

using testing::ExpectAllNear;
using testing::FloatAttr;
using testing::IntAttr;
using testing::MakeFloat;
using testing::MakeInt64;
using testing::OpInput;
using testing::RandomFloat;
using testing::RunOk;
using testing::RunOp;

constexpr float kInf = std::numeric_limits<float>::infinity();

Tensor MakeBool(const Shape& shape, const std::vector<int>& values) {
  Tensor t;
  EXPECT_TRUE(Tensor::Allocate(DType::kBool, shape, &t).ok());
  EXPECT_EQ(static_cast<size_t>(t.numel()), values.size());
  for (size_t i = 0; i < values.size(); ++i) t.ptr<uint8_t>()[i] = values[i] != 0;
  return t;
}

// Equal within tol * (1 + |want|); infinities and NaNs must match exactly.
void ExpectBitwiseEqual(const Tensor& a, const Tensor& b) {
  ASSERT_EQ(a.shape, b.shape);
  if (a.nbytes() > 0) ASSERT_EQ(std::memcmp(a.data, b.data, a.nbytes()), 0);
}

// ---- Attention: hand-computed values.

TEST(Attention, HandComputedSoftmaxOfTwoKeys) {
  // One query [1, 0] against keys [1, 0] and [0, 1]: scores 1/sqrt(2) and 0.
  Tensor q = MakeFloat({1, 1, 1, 2}, {1, 0});
  Tensor k = MakeFloat({1, 1, 2, 2}, {1, 0, 0, 1});
  Tensor v = MakeFloat({1, 1, 2, 1}, {1, 3});
  const double e = std::exp(1 / std::sqrt(2.0)), p0 = e / (e + 1);
  ExpectAllNear(RunOk("Attention", 23, {q, k, v}),
                MakeFloat({1, 1, 1, 1}, {float(p0 * 1 + (1 - p0) * 3)}));
}

TEST(Attention, HandComputedCausalWithPastAndMask) {
  // Scale 1, one past key: query 0 sees keys 0-1, query 1 sees keys 0-2.
  Tensor q = MakeFloat({1, 1, 2, 1}, {1, 1});
  Tensor k = MakeFloat({1, 1, 2, 1}, {2, 3});
  Tensor v = MakeFloat({1, 1, 2, 1}, {20, 30});
  Tensor past_k = MakeFloat({1, 1, 1, 1}, {1});
  Tensor past_v = MakeFloat({1, 1, 1, 1}, {10});
  Tensor mask = MakeBool({1, 3}, {0, 1, 1});  // key 0 masked for every query
  std::vector<Tensor> out;
  ASSERT_TRUE(RunOp("Attention", 23, {{q}, {k}, {v}, {mask}, {past_k}, {past_v}},
                    {{"is_causal", IntAttr(1)}, {"scale", FloatAttr(1.f)}}, 3, &out)
                  .ok());
  const double e = std::exp(1.0);
  ExpectAllNear(out[0], MakeFloat({1, 1, 2, 1}, {20, float((20 + 30 * e) / (1 + e))}));
  ExpectAllNear(out[1], MakeFloat({1, 1, 3, 1}, {1, 2, 3}));
  ExpectAllNear(out[2], MakeFloat({1, 1, 3, 1}, {10, 20, 30}));
}

TEST(Attention, FullyMaskedRowIsZero) {
  Tensor q = RandomFloat({1, 1, 2, 3}, 1);
  Tensor k = RandomFloat({1, 1, 2, 3}, 2);
  Tensor v = RandomFloat({1, 1, 2, 3}, 3);
  Tensor mask = MakeBool({2, 2}, {0, 0, 1, 0});
  std::vector<Tensor> out;
  ASSERT_TRUE(RunOp("Attention", 24,
                    {{q}, {k}, {v}, {mask}, {Tensor(), false, false}, {Tensor(), false, false}},
                    {{"qk_matmul_output_mode", IntAttr(3)}}, 4, &out)
                  .ok());
  const float* y = out[0].ptr<float>();
  for (int d = 0; d < 3; ++d) {
    EXPECT_EQ(y[d], 0.f);
    EXPECT_EQ(y[3 + d], v.ptr<float>()[d]);  // row 1 attends key 0 alone
  }
  ExpectAllNear(out[3], MakeFloat({1, 1, 2, 2}, {0, 0, 1, 0}));
}

// ---- Attention: the fast path against the scalar reference.

enum class MaskType { kNone, kBool, kFloat };

// One configuration: the geometry, then the options set by the chained setters.
struct Case {
  std::string name;
  bool three_d = false;
  int64_t batch = 1, q_heads = 1, kv_heads = 1, q_seq = 1, kv_seq = 1, head = 4, v_head = 4;
  int64_t past = 0;  // with past_key/past_value when > 0
  int opset = 24;
  MaskType mask = MaskType::kNone;
  Shape mask_shape;
  bool causal = false;
  float softcap = 0.f;
  float scale = 0.f;  // 0: the default
  int mode = 0;
  std::vector<int64_t> nonpad;

  Case& Opset(int v) {
    opset = v;
    return *this;
  }
  Case& Mask(MaskType type, Shape shape) {
    mask = type;
    mask_shape = shape;
    return *this;
  }
  Case& Causal() {
    causal = true;
    return *this;
  }
  Case& Softcap(float v) {
    softcap = v;
    return *this;
  }
  Case& Scale(float v) {
    scale = v;
    return *this;
  }
  Case& Mode(int v) {
    mode = v;
    return *this;
  }
  Case& Nonpad(std::vector<int64_t> v) {
    nonpad = v;
    return *this;
  }
};

Case Geometry(std::string name, bool three_d, int64_t batch, int64_t q_heads, int64_t kv_heads,
              int64_t q_seq, int64_t kv_seq, int64_t head, int64_t v_head, int64_t past = 0) {
  Case c;
  c.name = name;
  c.three_d = three_d;
  c.batch = batch;
  c.q_heads = q_heads;
  c.kv_heads = kv_heads;
  c.q_seq = q_seq;
  c.kv_seq = kv_seq;
  c.head = head;
  c.v_head = v_head;
  c.past = past;
  return c;
}

Shape HeadsShape(const Case& c, int64_t heads, int64_t seq, int64_t size) {
  return c.three_d ? Shape{c.batch, seq, heads * size} : Shape{c.batch, heads, seq, size};
}

Tensor RandomMask(const Case& c, uint32_t seed) {
  Tensor t;
  const DType dtype = c.mask == MaskType::kBool ? DType::kBool : DType::kFloat32;
  EXPECT_TRUE(Tensor::Allocate(dtype, c.mask_shape, &t).ok());
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(0.f, 1.f);
  for (int64_t i = 0; i < t.numel(); ++i) {
    const float u = dist(rng);
    if (dtype == DType::kBool) t.ptr<uint8_t>()[i] = u < 0.7f;
    if (dtype == DType::kFloat32) t.ptr<float>()[i] = u < 0.15f ? -kInf : 4.f * u - 2.f;
  }
  return t;
}

// Runs the case through the kernel (all four outputs) with `threads` and through the reference.
void RunCase(const Case& c, int threads, std::vector<Tensor>* got, std::vector<Tensor>* want) {
  const Tensor absent;
  std::vector<Tensor> t = {RandomFloat(HeadsShape(c, c.q_heads, c.q_seq, c.head), 11),
                           RandomFloat(HeadsShape(c, c.kv_heads, c.kv_seq, c.head), 12),
                           RandomFloat(HeadsShape(c, c.kv_heads, c.kv_seq, c.v_head), 13),
                           c.mask == MaskType::kNone ? absent : RandomMask(c, 14),
                           absent,
                           absent,
                           c.nonpad.empty() ? absent : MakeInt64({c.batch}, c.nonpad)};
  if (c.past > 0) {
    t[4] = RandomFloat({c.batch, c.kv_heads, c.past, c.head}, 15);
    t[5] = RandomFloat({c.batch, c.kv_heads, c.past, c.v_head}, 16);
  }
  const bool given[7] = {
      true, true, true, c.mask != MaskType::kNone, c.past > 0, c.past > 0, !c.nonpad.empty()};
  std::vector<OpInput> inputs;
  std::vector<const Tensor*> ref_inputs;
  for (size_t i = 0; i < t.size(); ++i) {
    inputs.push_back({t[i], false, given[i]});
    ref_inputs.push_back(given[i] ? &t[i] : nullptr);
  }
  while (!inputs.back().present) inputs.pop_back();
  std::map<std::string, Attribute> attrs = {{"is_causal", IntAttr(c.causal)},
                                            {"qk_matmul_output_mode", IntAttr(c.mode)}};
  attention::ReferenceAttributes ref;
  ref.version = c.opset;
  ref.is_causal = c.causal;
  ref.qk_matmul_output_mode = c.mode;
  ref.softcap = c.softcap;
  if (c.softcap > 0) attrs["softcap"] = FloatAttr(c.softcap);
  if (c.scale != 0) {
    attrs["scale"] = FloatAttr(c.scale);
    ref.has_scale = true;
    ref.scale = c.scale;
  }
  if (c.three_d) {
    attrs["q_num_heads"] = IntAttr(c.q_heads);
    attrs["kv_num_heads"] = IntAttr(c.kv_heads);
    ref.q_num_heads = c.q_heads;
    ref.kv_num_heads = c.kv_heads;
  }
  const Status status = RunOp("Attention", c.opset, inputs, attrs, 4, got, threads);
  ASSERT_TRUE(status.ok()) << status.ToString();
  attention::ReferenceAttention(ref_inputs, ref, want);
}

// Head sizes 3, 5, 17; sequences 1, 7, 33; grouped-query 6 / 2 and multi-query 6 / 1 heads.
std::vector<Case> OddCases() {
  using M = MaskType;
  const bool k3D = true, k4D = false;
  return {
      Geometry("4d_plain", k4D, 2, 3, 3, 7, 7, 5, 5),
      Geometry("3d_gqa_cross", k3D, 2, 6, 2, 7, 33, 17, 3).Opset(23),
      Geometry("decode_seq1", k4D, 1, 2, 2, 1, 33, 3, 17),
      Geometry("mqa_causal_past", k4D, 2, 6, 1, 7, 7, 5, 3, 5).Causal(),
      Geometry("3d_gqa_causal_past_long", k3D, 1, 6, 2, 33, 33, 17, 5, 7).Causal(),
      Geometry("bool_mask_4d", k4D, 2, 6, 2, 7, 7, 5, 5).Mask(M::kBool, {2, 6, 7, 7}),
      Geometry("bool_mask_short_causal", k4D, 1, 2, 1, 7, 7, 3, 3, 4)
          .Mask(M::kBool, {7, 8})
          .Causal(),
      Geometry("float_mask_3d_softcap", k4D, 2, 6, 2, 7, 33, 5, 17)
          .Opset(23)
          .Mask(M::kFloat, {6, 7, 33})
          .Softcap(1.5f)
          .Mode(1),
      Geometry("float_mask_broadcast_v23", k3D, 1, 2, 2, 7, 7, 5, 3)
          .Opset(23)
          .Mask(M::kFloat, {1, 1, 7, 1}),
      Geometry("float_mask_padded_v24", k3D, 1, 2, 2, 7, 7, 5, 3, 2).Mask(M::kFloat, {1, 7, 4}),
      Geometry("biased_scores_causal_softcap", k4D, 1, 6, 2, 7, 7, 17, 5, 3)
          .Mask(M::kBool, {1, 6, 1, 10})
          .Causal()
          .Softcap(0.8f)
          .Mode(2),
      Geometry("probabilities_scaled", k3D, 2, 6, 2, 1, 33, 17, 3, 7)
          .Mask(M::kFloat, {40})
          .Scale(0.37f)
          .Mode(3),
      Geometry("raw_scores_causal", k4D, 2, 3, 3, 33, 7, 5, 5).Causal().Mode(0),
      Geometry("nonpad_causal", k4D, 2, 6, 2, 3, 9, 5, 3).Causal().Mode(3).Nonpad({5, 9}),
      Geometry("nonpad_masked_rows", k3D, 3, 2, 1, 7, 9, 3, 5)
          .Mask(M::kBool, {3, 1, 7, 6})
          .Causal()
          .Mode(2)
          .Nonpad({0, 2, 9}),
      Geometry("empty_keys", k4D, 1, 2, 2, 3, 0, 5, 3),
      Geometry("empty_queries", k3D, 2, 2, 2, 0, 5, 5, 3, 2),
  };
}

TEST(Attention, MatchesReferenceOnOddShapes) {
  for (const Case& c : OddCases()) {
    SCOPED_TRACE(c.name);
    std::vector<Tensor> got, want;
    RunCase(c, 1, &got, &want);
    ASSERT_EQ(got.size(), 4u);
    for (int i = 0; i < 4; ++i) {
      SCOPED_TRACE("output " + std::to_string(i));
      ExpectAllNear(got[i], want[i]);
    }
  }
}

TEST(Attention, SameBitsWithThreads) {
  for (const Case& c : OddCases()) {
    SCOPED_TRACE(c.name);
    std::vector<Tensor> one, three, want;
    RunCase(c, 1, &one, &want);
    RunCase(c, 3, &three, &want);
    for (int i = 0; i < 4; ++i) ExpectBitwiseEqual(one[i], three[i]);
  }
}

TEST(Attention, OnlyY) {
  std::vector<Tensor> want;
  std::vector<OpInput> inputs = {{RandomFloat({2, 7, 6 * 17}, 11)},
                                 {RandomFloat({2, 33, 2 * 17}, 12)},
                                 {RandomFloat({2, 33, 2 * 3}, 13)}};
  std::vector<Tensor> y;
  ASSERT_TRUE(RunOp("Attention", 24, inputs,
                    {{"q_num_heads", IntAttr(6)}, {"kv_num_heads", IntAttr(2)}}, 1, &y)
                  .ok());
  std::vector<const Tensor*> ref_inputs = {&inputs[0].tensor, &inputs[1].tensor, &inputs[2].tensor};
  attention::ReferenceAttributes ref;
  ref.q_num_heads = 6;
  ref.kv_num_heads = 2;
  attention::ReferenceAttention(ref_inputs, ref, &want);
  ExpectAllNear(y[0], want[0]);
}

// ---- Attention: errors name the node.

Status RunAttention(int opset, const std::vector<OpInput>& inputs,
                    const std::map<std::string, Attribute>& attrs, int outputs = 1) {
  std::vector<Tensor> out;
  const Status s = RunOp("Attention", opset, inputs, attrs, outputs, &out);
  if (!s.ok()) EXPECT_NE(s.message().find("test_Attention"), std::string::npos) << s.message();
  return s;
}

TEST(Attention, Errors) {
  const OpInput none{Tensor(), false, false};
  Tensor q4 = RandomFloat({1, 4, 3, 5}, 1), k4 = RandomFloat({1, 2, 6, 5}, 2);
  Tensor v4 = RandomFloat({1, 2, 6, 3}, 3);
  Tensor q3 = RandomFloat({1, 3, 20}, 1), k3 = RandomFloat({1, 6, 10}, 2);
  const std::map<std::string, Attribute> heads = {{"q_num_heads", IntAttr(4)},
                                                  {"kv_num_heads", IntAttr(2)}};
  EXPECT_TRUE(RunAttention(24, {{q4}, {k4}, {v4}}, {}).ok());
  EXPECT_EQ(RunAttention(24, {{q3}, {k3}, {k3}}, {}).code(), ErrorCode::kMalformedModel);
  EXPECT_TRUE(RunAttention(24, {{q3}, {k3}, {k3}}, heads).ok());
  EXPECT_EQ(RunAttention(24, {{q3}, {k3}, {k3}},
                         {{"q_num_heads", IntAttr(3)}, {"kv_num_heads", IntAttr(2)}})
                .code(),
            ErrorCode::kShapeMismatch);  // 20 is no multiple of 3
  EXPECT_EQ(RunAttention(24, {{RandomFloat({1, 3, 3, 5}, 1)}, {k4}, {v4}}, {}).code(),
            ErrorCode::kShapeMismatch);  // 3 query heads over 2 kv heads
  EXPECT_EQ(RunAttention(24, {{q4}, {RandomFloat({1, 2, 6, 4}, 2)}, {v4}}, {}).code(),
            ErrorCode::kShapeMismatch);  // head sizes differ
  EXPECT_EQ(RunAttention(24, {{q4}, {k4}, {RandomFloat({1, 2, 5, 3}, 3)}}, {}).code(),
            ErrorCode::kShapeMismatch);  // K and V lengths differ
  EXPECT_EQ(RunAttention(24, {{q4}, {k3}, {v4}}, {}).code(), ErrorCode::kShapeMismatch);
  EXPECT_EQ(RunAttention(24, {{q4}, {k4}, {v4}, {RandomFloat({2, 3, 6}, 4)}}, {}).code(),
            ErrorCode::kShapeMismatch);  // mask dim 2 against 4 heads
  EXPECT_EQ(RunAttention(24, {{q4}, {k4}, {v4}, {RandomFloat({3, 7}, 4)}}, {}).code(),
            ErrorCode::kShapeMismatch);  // 7 mask keys, 6 keys
  EXPECT_EQ(RunAttention(24, {{q4}, {k4}, {v4}, {MakeInt64({6}, {1, 1, 1, 1, 1, 1})}}, {}).code(),
            ErrorCode::kUnsupportedDtype);
  EXPECT_EQ(RunAttention(24, {{q4}, {k4}, {v4}, none, {RandomFloat({1, 2, 2, 5}, 5)}}, {}).code(),
            ErrorCode::kMalformedModel);  // past_key alone
  EXPECT_EQ(
      RunAttention(
          24,
          {{q4}, {k4}, {v4}, none, {RandomFloat({1, 2, 2, 5}, 5)}, {RandomFloat({1, 2, 3, 3}, 6)}},
          {})
          .code(),
      ErrorCode::kShapeMismatch);  // past lengths differ
  EXPECT_EQ(RunAttention(24, {{q4}, {k4}, {v4}}, {{"qk_matmul_output_mode", IntAttr(4)}}).code(),
            ErrorCode::kMalformedModel);
  EXPECT_EQ(RunAttention(24, {{q4}, {k4}, {v4}}, {{"softmax_precision", IntAttr(10)}}).code(),
            ErrorCode::kUnsupportedDtype);
  EXPECT_EQ(RunAttention(24, {{q4}, {k4}, {v4}}, {{"softcap", FloatAttr(-1.f)}}).code(),
            ErrorCode::kMalformedModel);
  EXPECT_EQ(RunAttention(24, {{q4}, {k4}, {v4}}, {{"left_window_size", IntAttr(2)}}).code(),
            ErrorCode::kUnsupportedOpset);
  EXPECT_EQ(RunAttention(24, {{MakeInt64({1, 1, 1, 1}, {1})}, {k4}, {v4}}, {}).code(),
            ErrorCode::kUnsupportedDtype);
  const OpInput nonpad{MakeInt64({1}, {7})};
  EXPECT_EQ(RunAttention(23, {{q4}, {k4}, {v4}, none, none, none, nonpad}, {}).code(),
            ErrorCode::kMalformedModel);  // no input 6 before version 24
  EXPECT_EQ(RunAttention(24, {{q4}, {k4}, {v4}, none, none, none, nonpad}, {}).code(),
            ErrorCode::kInvalidInput);  // 7 valid keys of 6, found when run
  EXPECT_EQ(
      RunAttention(24, {{q4}, {k4}, {v4}, none, none, none, {MakeInt64({1}, {-1})}}, {}).code(),
      ErrorCode::kInvalidInput);
}

}  // namespace
}  // namespace webnx
