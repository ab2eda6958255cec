// The constant cache's one rule (core/constant_cache.h): constants never change, except that a
// constant read by one node that declared one form for it is replaced by that form at load —
// and then no plan can reach its raw values, and no other form of it can be asked for.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/constant_cache.h"
#include "kernels/simd/gemm.h"
#include "tests/unit/model_builder.h"
#include "tests/unit/op_runner.h"

namespace webnx::testing {
namespace {

// A form that reverses the constant's values: the same size, so it may lie over it.
ConstantForm Reversed(size_t floats) {
  ConstantForm form;
  form.input = 1;
  form.kind = "reversed";
  form.floats = floats;
  form.derive = [floats](const float* from, float* to) {
    std::vector<float> copy(from, from + floats);
    for (size_t i = 0; i < floats; ++i) to[i] = copy[floats - 1 - i];
  };
  return form;
}

ConstantForm Doubled(size_t floats) {
  ConstantForm form = Reversed(floats);
  form.kind = "doubled";
  form.derive = [floats](const float* from, float* to) {
    for (size_t i = 0; i < floats; ++i) to[i] = 2 * from[i];
  };
  return form;
}

// W read by `readers` nodes.
Graph GraphReading(int readers) {
  Graph g;
  g.initializers["W"] = MakeFloat({4}, {1, 2, 3, 4});
  for (int i = 0; i < readers; ++i) {
    Node n;
    n.name = "n" + std::to_string(i);
    n.op_type = "Mul";
    n.inputs = {"X", "W"};
    n.outputs = {"Y" + std::to_string(i)};
    g.nodes.push_back(n);
  }
  return g;
}

TEST(ConstantCache, AConstantOneNodeReadsInOneFormIsReplacedByIt) {
  Graph g = GraphReading(1);
  const Tensor& w = g.initializers.at("W");
  ConstantCache cache;
  ASSERT_TRUE(cache.Prepare(g, {{&w, Reversed(4)}}).ok());
  EXPECT_TRUE(cache.Replaced(w));
  EXPECT_EQ(cache.replaced_bytes(), 16u);
  DerivedForm form;
  ASSERT_TRUE(cache.Get(w, Reversed(4), &form).ok());
  EXPECT_EQ(form.head.data, w.data);  // over the constant's own storage
  EXPECT_EQ(std::vector<float>(form.head.ptr<float>(), form.head.ptr<float>() + 4),
            (std::vector<float>{4, 3, 2, 1}));
  // Another form would have to be made from values that are gone.
  Status other = cache.Get(w, Doubled(4), &form);
  EXPECT_EQ(other.code(), ErrorCode::kInternal);
  EXPECT_NE(other.message().find("'reversed'"), std::string::npos) << other.message();
}

TEST(ConstantCache, TwoFormsOrTwoReadersKeepTheConstant) {
  for (int readers : {1, 2}) {
    Graph g = GraphReading(readers);
    const Tensor& w = g.initializers.at("W");
    std::vector<ConstantCache::Declared> declared = {{&w, Reversed(4)}};
    if (readers == 1) declared.push_back({&w, Doubled(4)});  // one node, two forms
    ConstantCache cache;
    ASSERT_TRUE(cache.Prepare(g, declared).ok());
    EXPECT_FALSE(cache.Replaced(w));
    DerivedForm reversed, doubled;
    ASSERT_TRUE(cache.Get(w, Reversed(4), &reversed).ok());
    ASSERT_TRUE(cache.Get(w, Doubled(4), &doubled).ok());
    EXPECT_EQ(reversed.head.ptr<float>()[0], 4.f);
    EXPECT_EQ(doubled.head.ptr<float>()[0], 2.f);
    EXPECT_EQ(std::vector<float>(w.ptr<float>(), w.ptr<float>() + 4),
              (std::vector<float>{1, 2, 3, 4}));  // never changed
    DerivedForm again;                            // made once, shared
    ASSERT_TRUE(cache.Get(w, Reversed(4), &again).ok());
    EXPECT_EQ(again.head.data, reversed.head.data);
  }
}

TEST(ConstantCache, AFormLargerThanItsConstantGoesBeside) {
  Graph g = GraphReading(1);
  const Tensor& w = g.initializers.at("W");
  ConstantForm padded = Reversed(4);
  padded.floats = 8;
  padded.derive = [](const float* from, float* to) {
    for (int i = 0; i < 8; ++i) to[i] = i < 4 ? from[i] : 0.f;
  };
  ConstantCache cache;
  ASSERT_TRUE(cache.Prepare(g, {{&w, padded}}).ok());
  EXPECT_FALSE(cache.Replaced(w));
  DerivedForm form;
  ASSERT_TRUE(cache.Get(w, padded, &form).ok());
  EXPECT_NE(form.head.data, w.data);
  EXPECT_EQ(cache.derived_bytes(), 32u);
}

// Gemm's B (transB, as nn.Linear exports it) is replaced by its packed form when the session
// loads, before any plan; every batch then reads it packed, and right.
TEST(ConstantCache, AGemmsWeightIsPackedAtLoadAndEveryBatchReadsThatForm) {
  constexpr int64_t k = 5, n = 24;  // three 8-column panels, packed panel by panel over W
  const std::vector<float> w = RandomFloats(n * k, 3);
  ModelBuilder mb;
  mb.Input("X", kOnnxFloat, {"N", k});
  mb.FloatInit("W", {n, k}, w);
  mb.Node("Gemm", {"X", "W"}, {"Y"}, "linear").Int("transB", 1);
  mb.Output("Y", kOnnxFloat, {"N", n});
  std::unique_ptr<Session> session;
  ASSERT_TRUE(CreateSession(mb.Bytes(), &session).ok());
  EXPECT_EQ(session->stats().packed_in_place_bytes, simd::PackedRhsSize(k, n) * sizeof(float));
  for (int64_t batch : {4, 1, 3, 1}) {
    const std::vector<float> x = RandomFloats(batch * k, 10 + static_cast<uint32_t>(batch));
    std::vector<const Tensor*> outputs;
    ASSERT_TRUE(session->Run({NamedTensor{"X", MakeFloat({batch, k}, x)}}, &outputs).ok());
    for (int64_t r = 0; r < batch; ++r) {
      for (int64_t j = 0; j < n; ++j) {
        double want = 0;
        for (int64_t i = 0; i < k; ++i) want += static_cast<double>(x[r * k + i]) * w[j * k + i];
        EXPECT_NEAR(outputs[0]->ptr<float>()[r * n + j], want, 1e-5) << "batch " << batch;
      }
    }
  }
}

}  // namespace
}  // namespace webnx::testing
