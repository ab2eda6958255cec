// Packed conv weights (core/constant_cache.h): made once per session and shared by its plans,
// packed over the weight's own storage only when nothing else can see that storage.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "kernels/simd/dwconv4.h"
#include "kernels/simd/gemm.h"
#include "kernels/simd/winograd.h"
#include "tests/unit/model_builder.h"
#include "tests/unit/op_runner.h"

namespace webnx::testing {
namespace {

constexpr int64_t kC = 5;

// X [1, 5, H, W] -> 1x1 convs with M output channels; `convs` of them read the same weight, and
// with `observe_weight` the weight is a graph output too (through an Identity).
struct PointwiseModel {
  int64_t m = 8;
  int convs = 1;
  bool observe_weight = false;
  std::vector<float> w, b;

  std::string Bytes() {
    w = RandomFloats(m * kC, 7);
    b = RandomFloats(m, 8);
    ModelBuilder mb;
    mb.Input("X", kOnnxFloat, {1, kC, "H", "W"});
    mb.FloatInit("W", {m, kC, 1, 1}, w);
    mb.FloatInit("B", {m}, b);
    for (int i = 0; i < convs; ++i) {
      const std::string y = "Y" + std::to_string(i);
      mb.Node("Conv", {"X", "W", "B"}, {y}, "conv" + std::to_string(i));
      mb.Output(y, kOnnxFloat, {1, m, "H", "W"});
    }
    if (observe_weight) {
      mb.Node("Identity", {"W"}, {"W_seen"}, "observe");
      mb.Output("W_seen", kOnnxFloat, {m, kC, 1, 1});
    }
    return mb.Bytes();
  }

  std::vector<float> Reference(const std::vector<float>& x, int64_t plane) const {
    std::vector<float> y(m * plane);
    for (int64_t o = 0; o < m; ++o) {
      for (int64_t p = 0; p < plane; ++p) {
        double acc = b[o];
        for (int64_t c = 0; c < kC; ++c)
          acc += static_cast<double>(w[o * kC + c]) * x[c * plane + p];
        y[o * plane + p] = static_cast<float>(acc);
      }
    }
    return y;
  }
};

// Runs at H x W and checks every conv's output (and the observed weight) against the reference.
void RunAt(Session* session, const PointwiseModel& model, int64_t h, int64_t w) {
  const std::vector<float> x = RandomFloats(kC * h * w, static_cast<uint32_t>(h * 100 + w));
  NamedTensor feed{"X", MakeFloat({1, kC, h, w}, x)};
  std::vector<const Tensor*> outputs;
  Status s = session->Run({feed}, &outputs);
  ASSERT_TRUE(s.ok()) << s.ToString();
  const std::vector<float> want = model.Reference(x, h * w);
  for (int i = 0; i < model.convs; ++i) {
    ASSERT_EQ(outputs[i]->numel(), static_cast<int64_t>(want.size()));
    for (size_t j = 0; j < want.size(); ++j) {
      EXPECT_NEAR(outputs[i]->ptr<float>()[j], want[j], 1e-5f * (1.f + std::fabs(want[j])))
          << "conv " << i << " at " << j << ", " << h << "x" << w;
    }
  }
  if (model.observe_weight) {
    const Tensor& seen = *outputs.back();
    ASSERT_EQ(seen.numel(), static_cast<int64_t>(model.w.size()));
    for (size_t j = 0; j < model.w.size(); ++j)
      EXPECT_EQ(seen.ptr<float>()[j], model.w[j]) << "the weight output was changed at " << j;
  }
}

TEST(PackedWeights, AWeightOnlyItsConvReadsIsPackedOnceInItsOwnStorage) {
  PointwiseModel model;
  std::unique_ptr<Session> session;
  ASSERT_TRUE(CreateSession(model.Bytes(), &session).ok());
  RunAt(session.get(), model, 3, 3);
  EXPECT_EQ(session->stats().packed_in_place_bytes, 8u * kC * 4);
  EXPECT_EQ(session->stats().packed_weight_bytes, 0u);
  RunAt(session.get(), model, 6, 7);  // a second plan reuses the packed weight
  RunAt(session.get(), model, 3, 3);
  EXPECT_EQ(session->stats().plans_built, 2u);
  EXPECT_EQ(session->stats().packed_in_place_bytes, 8u * kC * 4);
  EXPECT_EQ(session->stats().packed_weight_bytes, 0u);
}

TEST(PackedWeights, APartialPanelIsPackedIntoStorageOfItsOwn) {
  PointwiseModel model;
  model.m = 6;  // the packed form pads the last 4-row panel: larger than the weight
  std::unique_ptr<Session> session;
  ASSERT_TRUE(CreateSession(model.Bytes(), &session).ok());
  RunAt(session.get(), model, 3, 3);
  RunAt(session.get(), model, 4, 5);
  EXPECT_EQ(session->stats().plans_built, 2u);
  EXPECT_EQ(session->stats().packed_in_place_bytes, 0u);
  EXPECT_EQ(session->stats().packed_weight_bytes, simd::PackedLhsSize(6, kC) * 4);
}

TEST(PackedWeights, AWeightTwoConvsReadIsPackedOnceBesideIt) {
  PointwiseModel model;
  model.convs = 2;
  std::unique_ptr<Session> session;
  ASSERT_TRUE(CreateSession(model.Bytes(), &session).ok());
  RunAt(session.get(), model, 5, 3);
  EXPECT_EQ(session->stats().packed_in_place_bytes, 0u);
  EXPECT_EQ(session->stats().packed_weight_bytes, 8u * kC * 4);
}

TEST(PackedWeights, AWeightTheGraphOutputsKeepsItsValues) {
  PointwiseModel model;
  model.observe_weight = true;
  std::unique_ptr<Session> session;
  ASSERT_TRUE(CreateSession(model.Bytes(), &session).ok());
  RunAt(session.get(), model, 3, 4);
  RunAt(session.get(), model, 2, 2);
  EXPECT_EQ(session->stats().packed_in_place_bytes, 0u);
}

TEST(PackedWeights, SessionsMadeFromCopiesOfOneGraphLeaveItsWeightsAlone) {
  PointwiseModel model;
  Graph graph;
  ASSERT_TRUE(LoadBytes(model.Bytes(), &graph).ok());
  std::unique_ptr<Session> a, b;
  ASSERT_TRUE(Session::CreateFromGraph(graph, SessionOptions(), &a).ok());
  ASSERT_TRUE(Session::CreateFromGraph(graph, SessionOptions(), &b).ok());
  RunAt(a.get(), model, 3, 3);
  RunAt(b.get(), model, 3, 3);
  EXPECT_EQ(a->stats().packed_in_place_bytes, 0u);
  EXPECT_EQ(b->stats().packed_in_place_bytes, 0u);
  for (size_t j = 0; j < model.w.size(); ++j)
    EXPECT_EQ(graph.initializers.at("W").ptr<float>()[j], model.w[j]) << j;
}

TEST(PackedWeights, PackLhsInPlaceWritesWhatPackLhsWrites) {
  for (int m : {4, 8, 12}) {
    for (int k : {1, 3, 64}) {
      const std::vector<float> a = RandomFloats(static_cast<size_t>(m) * k, m * 100 + k);
      std::vector<float> want(simd::PackedLhsSize(m, k)), got = a;
      simd::PackLhs(a.data(), m, k, k, want.data());
      simd::PackLhsInPlace(got.data(), m, k);
      EXPECT_EQ(got, want) << m << "x" << k;
    }
  }
}

TEST(PackedWeights, UnpackLhsInvertsPackLhs) {
  for (int m : {1, 3, 4, 5, 8, 9}) {
    for (int k : {1, 2, 7}) {
      const std::vector<float> a = RandomFloats(static_cast<size_t>(m) * k, m * 10 + k);
      std::vector<float> packed(simd::PackedLhsSize(m, k)), back(a.size());
      simd::PackLhs(a.data(), m, k, k, packed.data());
      simd::UnpackLhs(packed.data(), m, k, back.data());
      EXPECT_EQ(back, a) << m << "x" << k;
    }
  }
}

// Runs `session` on input X (`shape`, holding `x`): its first output, or null after a failure.
const Tensor* RunOnX(Session* session, const Shape& shape, const std::vector<float>& x) {
  std::vector<const Tensor*> outputs;
  Status s = session->Run({NamedTensor{"X", MakeFloat(shape, x)}}, &outputs);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return s.ok() ? outputs[0] : nullptr;
}

// The Winograd transform over W's own storage writes what it writes beside W, for every split
// of its groups between W's storage (head) and new storage (tail): groups that land on their
// own rows, a last group short of eight panels and a last panel short of four channels
// included.
TEST(PackedWeights, WinogradWeightsOverTheirOwnStorageMatchThoseBeside) {
  for (const auto& io : std::vector<std::pair<int, int>>{
           {3, 72}, {16, 100}, {5, 64}, {17, 33}, {1, 130}, {2, 250}}) {
    const simd::WinogradShape s{io.first, io.second, 0, 0, 0, 0, 1, 1};
    const size_t w_floats = static_cast<size_t>(io.first) * io.second * 9;
    const size_t group = simd::WinogradGroupFloats(s);
    const size_t total = simd::WinogradWeightFloats(s);
    const int fit = static_cast<int>(w_floats / group);
    ASSERT_LT(fit * group, total);  // 16/9 of W does not fit in W
    const std::vector<float> w =
        RandomFloats(w_floats, static_cast<uint32_t>(io.first * io.second));
    std::vector<float> beside(total);
    simd::WinogradPackWeights(s, w.data(), beside.data(), simd::WinogradGroups(s), nullptr);
    for (int head_groups = 0; head_groups <= fit; ++head_groups) {
      std::vector<float> storage = w;
      std::vector<float> tail(total - head_groups * group);
      simd::WinogradPackWeights(s, storage.data(), storage.data(), head_groups, tail.data());
      const size_t head_floats = head_groups * group;
      EXPECT_TRUE(std::equal(storage.begin(), storage.begin() + head_floats, beside.begin()))
          << io.first << " -> " << io.second << " channels, " << head_groups << " groups over W";
      EXPECT_TRUE(std::equal(tail.begin(), tail.end(), beside.begin() + head_floats))
          << io.first << " -> " << io.second << " channels, " << head_groups << " groups over W";
    }
  }
}

// A 3x3 conv with pads 1 and 16+ channels each way takes Winograd F(2x2, 3x3): its transformed
// weights are derived once per session, whatever the shape, 16/9 W's size (more when Cout is
// no multiple of 4). When only the conv reads W, the panels that fit go over W's own storage
// and the rest beside it; a W two convs read keeps its values, the whole form beside it.
void CheckWinogradWeights(int64_t out_channels, int convs) {
  constexpr int64_t kIn = 16;
  SCOPED_TRACE(std::to_string(out_channels) + " output channels, " + std::to_string(convs) +
               " convs");
  const std::vector<float> w = RandomFloats(out_channels * kIn * 9, 11);
  ModelBuilder mb;
  mb.Input("X", kOnnxFloat, {1, kIn, "H", "W"});
  mb.FloatInit("W", {out_channels, kIn, 3, 3}, w);
  for (int i = 0; i < convs; ++i) {
    const std::string y = "Y" + std::to_string(i);
    mb.Node("Conv", {"X", "W"}, {y}, "conv" + std::to_string(i)).Ints("pads", {1, 1, 1, 1});
    mb.Output(y, kOnnxFloat, {1, out_channels, "H", "W"});
  }
  std::unique_ptr<Session> session;
  ASSERT_TRUE(CreateSession(mb.Bytes(), &session).ok());
  const simd::WinogradShape channels{kIn, static_cast<int>(out_channels), 0, 0, 0, 0, 1, 1};
  const size_t group_bytes = simd::WinogradGroupFloats(channels) * sizeof(float);
  const size_t in_place_bytes =
      convs == 1 ? w.size() * sizeof(float) / group_bytes * group_bytes : 0;
  ASSERT_TRUE(convs > 1 || in_place_bytes > 0);
  const size_t beside_bytes = simd::WinogradWeightFloats(channels) * sizeof(float) - in_place_bytes;
  for (const auto& hw : std::vector<std::pair<int64_t, int64_t>>{{5, 7}, {9, 6}, {5, 7}}) {
    const int64_t h = hw.first, wd = hw.second;
    const std::vector<float> x = RandomFloats(kIn * h * wd, static_cast<uint32_t>(h * 10 + wd));
    std::vector<const Tensor*> outputs;
    const Status status = session->Run({NamedTensor{"X", MakeFloat({1, kIn, h, wd}, x)}}, &outputs);
    ASSERT_TRUE(status.ok()) << status.ToString();
    for (const Tensor* y : outputs) {
      for (int64_t o = 0; o < out_channels; ++o) {
        for (int64_t i = 0; i < h; ++i) {
          for (int64_t j = 0; j < wd; ++j) {
            double acc = 0, scale = 0;
            for (int64_t c = 0; c < kIn; ++c) {
              for (int64_t ki = 0; ki < 3; ++ki) {
                for (int64_t kj = 0; kj < 3; ++kj) {
                  const int64_t yi = i + ki - 1, xj = j + kj - 1;
                  if (yi < 0 || yi >= h || xj < 0 || xj >= wd) continue;
                  const double term = static_cast<double>(w[((o * kIn + c) * 3 + ki) * 3 + kj]) *
                                      x[(c * h + yi) * wd + xj];
                  acc += term;
                  scale += std::fabs(term);
                }
              }
            }
            ASSERT_NEAR(y->ptr<float>()[(o * h + i) * wd + j], acc, 1e-5 * (1 + scale))
                << "channel " << o << " at " << i << "," << j << " of " << h << "x" << wd;
          }
        }
      }
    }
    EXPECT_EQ(session->stats().packed_weight_bytes, beside_bytes);
    EXPECT_EQ(session->stats().packed_in_place_bytes, in_place_bytes);
  }
  EXPECT_EQ(session->stats().plans_built, 2u);
}

TEST(PackedWeights, WinogradWeightsAreMadeOncePerSessionPartlyOverW) {
  CheckWinogradWeights(72, 1);  // 3 groups of panels: 1 over W, 2 beside (the last of 2 panels)
  CheckWinogradWeights(70, 1);  // the last panel short of four channels
}

TEST(PackedWeights, WinogradWeightsOfAWeightTwoConvsReadAreMadeBesideIt) {
  CheckWinogradWeights(72, 2);
}

// A MatMul's constant B is packed once per session, whatever the rows of A: over its own
// storage when only the MatMul reads it and the packed form is its size (N a multiple of 8),
// else beside it. Outputs checked at two row counts, the second plan reusing the packed B.
void CheckMatMulWeights(int64_t n, bool in_place) {
  constexpr int64_t kK = 19;
  SCOPED_TRACE(std::to_string(n) + " columns");
  const std::vector<float> w = RandomFloats(kK * n, 21);
  ModelBuilder mb;
  mb.Input("X", kOnnxFloat, {"M", kK});
  mb.FloatInit("W", {kK, n}, w);
  mb.Node("MatMul", {"X", "W"}, {"Y"}, "mm");
  mb.Output("Y", kOnnxFloat, {"M", n});
  std::unique_ptr<Session> session;
  ASSERT_TRUE(CreateSession(mb.Bytes(), &session).ok());
  const size_t packed_bytes = simd::PackedRhsSize(kK, static_cast<int>(n)) * sizeof(float);
  for (int64_t m : {5, 1, 5}) {
    const std::vector<float> x = RandomFloats(m * kK, static_cast<uint32_t>(m));
    std::vector<const Tensor*> outputs;
    const Status status = session->Run({NamedTensor{"X", MakeFloat({m, kK}, x)}}, &outputs);
    ASSERT_TRUE(status.ok()) << status.ToString();
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0;
        for (int64_t p = 0; p < kK; ++p) acc += static_cast<double>(x[i * kK + p]) * w[p * n + j];
        ASSERT_NEAR(outputs[0]->ptr<float>()[i * n + j], acc, 1e-5 * (1 + std::fabs(acc)))
            << "row " << i << ", column " << j << " of " << m << " rows";
      }
    }
    EXPECT_EQ(session->stats().packed_in_place_bytes, in_place ? packed_bytes : 0u);
    EXPECT_EQ(session->stats().packed_weight_bytes, in_place ? 0u : packed_bytes);
  }
  EXPECT_EQ(session->stats().plans_built, 2u);
}

TEST(PackedWeights, AMatMulsConstantBIsPackedOncePerSession) {
  CheckMatMulWeights(16, true);
  CheckMatMulWeights(13, false);  // the last 8-column panel is padded: beside B
}

// A depthwise 3x3 conv packs W four channels at a time for planes up to 16 wide, once per
// session and beside W: a 20-wide plane runs a plane at a time from W's own values.
TEST(PackedWeights, DepthwiseWeightsArePackedOncePerSessionBesideW) {
  constexpr int64_t kChannels = 8;
  const std::vector<float> w = RandomFloats(kChannels * 9, 13);
  ModelBuilder mb;
  mb.Input("X", kOnnxFloat, {1, kChannels, "H", "W"});
  mb.FloatInit("W", {kChannels, 1, 3, 3}, w);
  mb.Node("Conv", {"X", "W"}, {"Y"}, "dw").Int("group", kChannels).Ints("pads", {1, 1, 1, 1});
  mb.Output("Y", kOnnxFloat, {1, kChannels, "H", "W"});
  std::unique_ptr<Session> session;
  ASSERT_TRUE(CreateSession(mb.Bytes(), &session).ok());
  const simd::DepthwiseShape taps{0, 0, 0, 0, 3, 3, 1, 1, 1, 1, 1, 1};
  const size_t packed_bytes = simd::Depthwise4WeightFloats(taps, kChannels) * sizeof(float);
  for (const auto& hw : std::vector<std::pair<int64_t, int64_t>>{{5, 7}, {6, 9}, {4, 20}}) {
    const int64_t h = hw.first, wd = hw.second;
    const std::vector<float> x = RandomFloats(kChannels * h * wd, static_cast<uint32_t>(h + wd));
    const Tensor* y = RunOnX(session.get(), {1, kChannels, h, wd}, x);
    ASSERT_NE(y, nullptr);
    for (int64_t c = 0; c < kChannels; ++c) {
      for (int64_t i = 0; i < h; ++i) {
        for (int64_t j = 0; j < wd; ++j) {
          double acc = 0;
          for (int64_t ki = 0; ki < 3; ++ki) {
            for (int64_t kj = 0; kj < 3; ++kj) {
              const int64_t yi = i + ki - 1, xj = j + kj - 1;
              if (yi < 0 || yi >= h || xj < 0 || xj >= wd) continue;
              acc += static_cast<double>(w[(c * 3 + ki) * 3 + kj]) * x[(c * h + yi) * wd + xj];
            }
          }
          EXPECT_NEAR(y->ptr<float>()[(c * h + i) * wd + j], acc, 1e-5 * (1 + std::fabs(acc)))
              << "channel " << c << " at " << i << "," << j << " of " << h << "x" << wd;
        }
      }
    }
    EXPECT_EQ(session->stats().packed_weight_bytes, packed_bytes);
    EXPECT_EQ(session->stats().packed_in_place_bytes, 0u);
  }
}

}  // namespace
}  // namespace webnx::testing
