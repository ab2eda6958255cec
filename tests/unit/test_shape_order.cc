// A session is a pure function of its model and the run's feeds: one session fed input shapes in
// orders that go large -> small -> back gives, for every shape, bitwise the outputs of a fresh
// session that only ever saw that shape — with 1 and 2 threads, for every kernel family whose
// plans depend on shapes (Gemm/MatMul in every spelling, convs of every strategy, LayerNorm and
// Softmax over a dynamic sequence).
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "core/float16.h"
#include "tests/unit/model_builder.h"
#include "tests/unit/op_runner.h"

namespace webnx::testing {
namespace {

std::unique_ptr<Session> NewSession(const std::string& bytes, int threads) {
  SessionOptions options;
  options.num_threads = threads;
  std::unique_ptr<Session> session;
  Status s = CreateSession(bytes, &session, options);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return session;
}

// Every output of one run, as bytes.
std::vector<std::string> RunBytes(Session* session, const Tensor& x) {
  std::vector<const Tensor*> outputs;
  Status s = session->Run({NamedTensor{session->inputs()[0].name, x}}, &outputs);
  EXPECT_TRUE(s.ok()) << s.ToString();
  std::vector<std::string> bytes;
  for (const Tensor* t : outputs)
    bytes.emplace_back(static_cast<const char*>(t->data), t->nbytes());
  return bytes;
}

// One session runs the shapes in `order`; each result must equal a fresh session's bit for bit.
void ExpectOrderFree(const std::string& bytes, const std::vector<Shape>& order) {
  for (int threads : {1, 2}) {
    std::unique_ptr<Session> session = NewSession(bytes, threads);
    ASSERT_TRUE(session);
    for (size_t i = 0; i < order.size(); ++i) {
      // Each run its own values, a shape seen before included: a run reading what an earlier run
      // left would then differ from the fresh session's.
      const Tensor x = RandomFloat(order[i], 1000 + static_cast<uint32_t>(i * 131 + order[i][0]));
      const std::vector<std::string> got = RunBytes(session.get(), x);
      std::unique_ptr<Session> fresh = NewSession(bytes, threads);
      ASSERT_TRUE(fresh);
      const std::vector<std::string> want = RunBytes(fresh.get(), x);
      ASSERT_EQ(got.size(), want.size());
      for (size_t o = 0; o < want.size(); ++o) {
        EXPECT_TRUE(got[o] == want[o]) << "output " << o << " differs from a fresh session's at "
                                       << ShapeToString(order[i]) << " (run " << i << " of the "
                                       << "order, " << threads << " threads)";
      }
    }
  }
}

std::vector<Shape> Batches(const std::vector<int64_t>& rest) {
  std::vector<Shape> shapes;
  for (int64_t n : {4, 1, 7, 1, 16}) {
    Shape s = {n};
    s.insert(s.end(), rest.begin(), rest.end());
    shapes.push_back(s);
  }
  return shapes;
}

// Y = Gemm(X, B, C) with X [M, 13] (or [13, M] with transA), B a constant [13, N] in either
// layout (N = 16 packs into B's own size, N = 10 does not).
std::string GemmModel(bool trans_a, bool trans_b, int bias_rank, bool shared_b, int64_t n) {
  constexpr int64_t k = 13;
  ModelBuilder mb;
  mb.Input("X", kOnnxFloat, trans_a ? std::vector<D>{k, "M"} : std::vector<D>{"M", k});
  mb.FloatInit("B", trans_b ? std::vector<int64_t>{n, k} : std::vector<int64_t>{k, n},
               RandomFloats(k * n, 11));
  std::vector<std::string> inputs = {"X", "B"};
  if (bias_rank > 0) {
    mb.FloatInit("C", bias_rank == 1 ? std::vector<int64_t>{n} : std::vector<int64_t>{1, n},
                 RandomFloats(n, 12));
    inputs.push_back("C");
  }
  mb.Node("Gemm", inputs, {"Y"}, "gemm").Int("transA", trans_a).Int("transB", trans_b);
  mb.Output("Y", kOnnxFloat, {"M", n});
  if (shared_b) {  // a second reader keeps B's values beside its packed form
    mb.Node("Gemm", inputs, {"Y2"}, "gemm2").Int("transA", trans_a).Int("transB", trans_b);
    mb.Output("Y2", kOnnxFloat, {"M", n});
  }
  return mb.Bytes();
}

TEST(ShapeOrder, GemmInEverySpelling) {
  for (bool trans_a : {false, true}) {
    for (bool trans_b : {false, true}) {
      for (int bias_rank : {0, 1, 2}) {
        for (bool shared_b : {false, true}) {
          for (int64_t n : {10, 16}) {
            SCOPED_TRACE("transA=" + std::to_string(trans_a) + " transB=" +
                         std::to_string(trans_b) + " bias rank " + std::to_string(bias_rank) +
                         " N=" + std::to_string(n) + (shared_b ? ", B read twice" : ""));
            std::vector<Shape> order;
            for (const Shape& s : Batches({13})) order.push_back(trans_a ? Shape{13, s[0]} : s);
            ExpectOrderFree(GemmModel(trans_a, trans_b, bias_rank, shared_b, n), order);
          }
        }
      }
    }
  }
}

// The repro of the issue: an MLP of nn.Linear layers (Gemm transB=1), batch 4 then batch 1.
TEST(ShapeOrder, LinearLayersBatchFourThenOne) {
  ModelBuilder mb;
  mb.Input("X", kOnnxFloat, {"N", 5});
  const int64_t sizes[] = {5, 8, 6, 3};
  std::string x = "X";
  for (int l = 0; l < 3; ++l) {
    const std::string w = "W" + std::to_string(l), b = "B" + std::to_string(l);
    mb.FloatInit(w, {sizes[l + 1], sizes[l]}, RandomFloats(sizes[l] * sizes[l + 1], 20 + l));
    mb.FloatInit(b, {sizes[l + 1]}, RandomFloats(sizes[l + 1], 30 + l));
    const std::string y = "L" + std::to_string(l);
    mb.Node("Gemm", {x, w, b}, {y}, "gemm" + std::to_string(l)).Int("transB", 1);
    x = y;
  }
  mb.Output(x, kOnnxFloat, {"N", 3});
  ExpectOrderFree(mb.Bytes(), {{4, 5}, {1, 5}, {4, 5}, {1, 5}});
}

TEST(ShapeOrder, MatMulWithConstantAndComputedRightHandSides) {
  constexpr int64_t k = 12;
  ModelBuilder mb;
  mb.Input("X", kOnnxFloat, {"N", 3, k});
  mb.FloatInit("W", {k, 9}, RandomFloats(k * 9, 40));
  mb.Node("MatMul", {"X", "W"}, {"Y"}, "constant_rhs");
  mb.Node("Transpose", {"X"}, {"XT"}, "xt").Ints("perm", {0, 2, 1});
  mb.Node("MatMul", {"X", "XT"}, {"G"}, "computed_rhs");
  mb.Output("Y", kOnnxFloat, {"N", 3, 9});
  mb.Output("G", kOnnxFloat, {"N", 3, 3});
  ExpectOrderFree(mb.Bytes(), Batches({3, k}));
}

// X [N, C, H, W] through one conv; `group` and the attributes pick the strategy.
std::string ConvModel(int64_t c, int64_t m, int64_t kernel, int64_t stride, int64_t pad,
                      int64_t group) {
  ModelBuilder mb;
  mb.Input("X", kOnnxFloat, {"N", c, "H", "W"});
  mb.FloatInit("W", {m, c / group, kernel, kernel},
               RandomFloats(m * (c / group) * kernel * kernel, 50));
  mb.FloatInit("B", {m}, RandomFloats(m, 51));
  mb.Node("Conv", {"X", "W", "B"}, {"C"}, "conv")
      .Ints("kernel_shape", {kernel, kernel})
      .Ints("strides", {stride, stride})
      .Ints("pads", {pad, pad, pad, pad})
      .Int("group", group);
  mb.Node("Relu", {"C"}, {"Y"}, "relu");  // fused into the conv's epilogue
  mb.Output("Y", kOnnxFloat, {"N", m, "H2", "W2"});
  return mb.Bytes();
}

std::vector<Shape> Planes(int64_t c) {
  return {{2, c, 40, 36}, {1, c, 5, 7}, {3, c, 70, 90}, {1, c, 5, 7}, {1, c, 17, 33}};
}

TEST(ShapeOrder, ConvsOfEveryStrategy) {
  struct Case {
    const char* name;
    int64_t c, m, kernel, stride, pad, group;
  };
  const Case cases[] = {
      {"pointwise (packed GEMM, X as its right side)", 5, 8, 1, 1, 0, 1},
      {"pointwise, a partial panel of output channels", 6, 10, 1, 1, 0, 1},
      {"im2col + packed GEMM, stride 2", 6, 12, 3, 2, 1, 1},
      {"Winograd F(2x2, 3x3)", 16, 20, 3, 1, 1, 1},
      {"grouped im2col", 8, 8, 3, 1, 1, 2},
      {"depthwise (4 channels at a time or a plane at a time)", 8, 8, 3, 1, 1, 8},
      {"depthwise 5x5, stride 2", 8, 8, 5, 2, 2, 8},
      {"depthwise multiplier 2 (a packed GEMM per group)", 4, 8, 3, 1, 1, 4},
      {"one input channel (packed GEMM of depth 9)", 1, 9, 3, 2, 1, 1},
      {"three outputs, stride 1 (rows straight from X)", 6, 3, 3, 1, 1, 1},
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(k.name);
    ExpectOrderFree(ConvModel(k.c, k.m, k.kernel, k.stride, k.pad, k.group), Planes(k.c));
  }
}

// MobileNet's block: pointwise expand, depthwise (the expand takes it over), pointwise project
// with the residual added in its epilogue.
TEST(ShapeOrder, FusedInvertedResidualBlock) {
  constexpr int64_t c = 8, e = 24;
  ModelBuilder mb;
  mb.Input("X", kOnnxFloat, {"N", c, "H", "W"});
  mb.FloatInit("We", {e, c, 1, 1}, RandomFloats(e * c, 60));
  mb.FloatInit("Wd", {e, 1, 3, 3}, RandomFloats(e * 9, 61));
  mb.FloatInit("Wp", {c, e, 1, 1}, RandomFloats(c * e, 62));
  mb.Node("Conv", {"X", "We"}, {"E"}, "expand").Ints("kernel_shape", {1, 1});
  mb.Node("Clip", {"E"}, {"Er"}, "relu6").Float("min", 0.f).Float("max", 6.f);
  mb.Node("Conv", {"Er", "Wd"}, {"D"}, "depthwise")
      .Ints("kernel_shape", {3, 3})
      .Ints("pads", {1, 1, 1, 1})
      .Int("group", e);
  mb.Node("Conv", {"D", "Wp"}, {"P"}, "project").Ints("kernel_shape", {1, 1});
  mb.Node("Add", {"P", "X"}, {"Y"}, "residual");
  mb.Output("Y", kOnnxFloat, {"N", c, "H", "W"});
  ExpectOrderFree(mb.Bytes(), Planes(c));
}

TEST(ShapeOrder, OneDimensionalConvs) {
  for (int64_t c : {4, 1}) {  // 1: a mono signal's front end
    ModelBuilder mb;
    mb.Input("X", kOnnxFloat, {"N", c, "L"});
    mb.FloatInit("W", {6, c, 3}, RandomFloats(6 * c * 3, 70));
    mb.Node("Conv", {"X", "W"}, {"Y"}, "conv1d").Ints("kernel_shape", {3}).Ints("pads", {1, 1});
    mb.Output("Y", kOnnxFloat, {"N", 6, "L"});
    ExpectOrderFree(mb.Bytes(), {{2, c, 50}, {1, c, 3}, {3, c, 90}, {1, c, 3}, {4, c, 17}});
  }
}

// Video convs: the packed GEMM over blocks of one output depth slice, depth padding included.
TEST(ShapeOrder, ThreeDimensionalConvOnThePackedGemm) {
  ModelBuilder mb;
  mb.Input("X", kOnnxFloat, {"N", 5, "D", "H", "W"});
  mb.FloatInit("W", {6, 5, 3, 3, 3}, RandomFloats(6 * 5 * 27, 75));
  mb.Node("Conv", {"X", "W"}, {"C"}, "conv3d")
      .Ints("kernel_shape", {3, 3, 3})
      .Ints("strides", {1, 2, 1})
      .Ints("pads", {1, 1, 1, 1, 1, 1});
  mb.Node("Relu", {"C"}, {"Y"}, "relu");
  mb.Output("Y", kOnnxFloat, {"N", 6, "D", "H2", "W"});
  ExpectOrderFree(
      mb.Bytes(),
      {{2, 5, 6, 20, 18}, {1, 5, 1, 3, 2}, {1, 5, 9, 30, 33}, {1, 5, 1, 3, 2}, {3, 5, 4, 9, 11}});
}

// A conv whose BatchNormalization folds into it at load, in a graph exported in NHWC whose
// transposes fold away at load (core/passes/): the folded graph over changing sizes.
TEST(ShapeOrder, FoldedBatchNormAndTransposesOverChangingSizes) {
  constexpr int64_t c = 6;
  ModelBuilder mb;
  mb.Input("X", kOnnxFloat, {"N", "H", "W", c});
  mb.FloatInit("W", {c, c, 3, 3}, RandomFloats(c * c * 9, 90));
  for (const char* p : {"scale", "bias", "mean"}) mb.FloatInit(p, {c}, RandomFloats(c, 91));
  mb.FloatInit("var", {c}, RandomFloats(c, 92, 0.5f, 2.f));
  mb.Node("Transpose", {"X"}, {"Xc"}, "to_nchw").Ints("perm", {0, 3, 1, 2});
  mb.Node("Conv", {"Xc", "W"}, {"C"}, "conv")
      .Ints("kernel_shape", {3, 3})
      .Ints("pads", {1, 1, 1, 1});
  mb.Node("BatchNormalization", {"C", "scale", "bias", "mean", "var"}, {"B"}, "bn");
  mb.Node("Transpose", {"B"}, {"Bh"}, "to_nhwc").Ints("perm", {0, 2, 3, 1});
  mb.Node("Relu", {"Bh"}, {"R"}, "relu");
  mb.Node("Add", {"R", "X"}, {"Y"}, "residual");
  mb.Output("Y", kOnnxFloat, {"N", "H", "W", c});
  ExpectOrderFree(mb.Bytes(), {{2, 40, 36, c}, {1, 5, 7, c}, {3, 70, 90, c}, {1, 5, 7, c}});
}

// A transformer's normalisation and attention weights over a sequence whose length changes.
TEST(ShapeOrder, LayerNormAndSoftmaxOverADynamicSequence) {
  constexpr int64_t d = 16;
  ModelBuilder mb(17);
  mb.Input("X", kOnnxFloat, {"B", "S", d});
  mb.FloatInit("scale", {d}, RandomFloats(d, 80));
  mb.FloatInit("bias", {d}, RandomFloats(d, 81));
  mb.FloatInit("Wq", {d, d}, RandomFloats(d * d, 82));
  mb.Node("LayerNormalization", {"X", "scale", "bias"}, {"N"}, "norm").Int("axis", -1);
  mb.Node("MatMul", {"N", "Wq"}, {"Q"}, "query");
  mb.Node("Transpose", {"N"}, {"NT"}, "keys").Ints("perm", {0, 2, 1});
  mb.Node("MatMul", {"Q", "NT"}, {"S"}, "scores");
  mb.Node("Softmax", {"S"}, {"Y"}, "attention").Int("axis", -1);
  mb.Output("Y", kOnnxFloat, {"B", "S", "S"});
  ExpectOrderFree(mb.Bytes(), {{2, 33, d}, {1, 1, d}, {3, 64, d}, {1, 1, d}, {2, 7, d}});
}

// Kernels that size themselves when planned along a dynamic sequence: RMSNormalization, TopK
// (sort buffer), CumSum, ArgMax, Trilu, GroupNormalization.
TEST(ShapeOrder, SequenceKernelsOverChangingLengths) {
  constexpr int64_t d = 8;
  ModelBuilder mb(23);
  mb.Input("X", kOnnxFloat, {"B", "S", d});
  mb.FloatInit("scale", {d}, RandomFloats(d, 90));
  mb.FloatInit("gscale", {d}, RandomFloats(d, 91));
  mb.FloatInit("gbias", {d}, RandomFloats(d, 92));
  mb.Int64Init("k", {1}, {3});
  mb.Int64Init("axis", {}, {1});
  mb.Node("RMSNormalization", {"X", "scale"}, {"R"}, "rms");
  mb.Node("TopK", {"R", "k"}, {"V", "I"}, "top").Int("axis", 1);
  mb.Node("CumSum", {"R", "axis"}, {"C"}, "running");
  mb.Node("ArgMax", {"C"}, {"A"}, "peak").Int("axis", 1);
  mb.Node("Trilu", {"C"}, {"T"}, "upper");
  mb.Node("Transpose", {"X"}, {"XT"}, "channels_first").Ints("perm", {0, 2, 1});
  mb.Node("GroupNormalization", {"XT", "gscale", "gbias"}, {"G"}, "groups").Int("num_groups", 2);
  mb.Output("V", kOnnxFloat, {"B", 3, d});
  mb.Output("I", kOnnxInt64, {"B", 3, d});
  mb.Output("A", kOnnxInt64, {"B", 1, d});
  mb.Output("T", kOnnxFloat, {"B", "S", d});
  mb.Output("G", kOnnxFloat, {"B", d, "S"});
  ExpectOrderFree(mb.Bytes(), {{2, 33, d}, {1, 3, d}, {3, 64, d}, {1, 3, d}, {2, 7, d}});
}

// Control flow over a dynamic sequence: an If chosen by the data, a Scan along it with a
// recurrent state, and a Loop whose trip count is the sequence length (known when planned).
TEST(ShapeOrder, ControlFlowOverChangingLengths) {
  constexpr int64_t d = 8;
  ModelBuilder then_b, else_b, scan_body, loop_body;
  then_b.Node("MatMul", {"X", "W"}, {"t"});
  then_b.Output("t", kOnnxFloat, {"B", "S", d});
  else_b.Node("MatMul", {"X", "W2"}, {"e0"});
  else_b.Node("Relu", {"e0"}, {"e"});
  else_b.Output("e", kOnnxFloat, {"B", "S", d});
  scan_body.Input("h_in", kOnnxFloat, {"B", d});
  scan_body.Input("x_t", kOnnxFloat, {"B", d});
  scan_body.Node("MatMul", {"h_in", "R"}, {"hr"});
  scan_body.Node("Add", {"hr", "x_t"}, {"pre"});
  scan_body.Node("Tanh", {"pre"}, {"h_out"});
  scan_body.Node("Identity", {"h_out"}, {"y_t"});
  scan_body.Output("h_out", kOnnxFloat, {"B", d});
  scan_body.Output("y_t", kOnnxFloat, {"B", d});
  loop_body.Input("i", kOnnxInt64, {});
  loop_body.Input("c_in", kOnnxBool, {});
  loop_body.Input("s_in", kOnnxFloat, {"B", d});
  loop_body.Node("Identity", {"c_in"}, {"c_out"});
  loop_body.Node("Mul", {"s_in", "half"}, {"s_half"});
  loop_body.Node("Add", {"s_half", "H"}, {"s_out"});
  loop_body.Output("c_out", kOnnxBool, {});
  loop_body.Output("s_out", kOnnxFloat, {"B", d});
  ModelBuilder mb(16);
  mb.Input("X", kOnnxFloat, {"B", "S", d});
  mb.FloatInit("W", {d, d}, RandomFloats(d * d, 95));
  mb.FloatInit("W2", {d, d}, RandomFloats(d * d, 96));
  mb.FloatInit("R", {d, d}, RandomFloats(d * d, 97, -0.5f, 0.5f));
  mb.FloatInit("zero", {}, {0.f});
  mb.FloatInit("half", {}, {0.5f});
  mb.Int64Init("one", {1}, {1});
  mb.Int64Init("two", {1}, {2});
  mb.Node("ReduceSum", {"X"}, {"sum"}).Int("keepdims", 0);
  mb.Node("Greater", {"sum", "zero"}, {"c"});
  mb.Node("If", {"c"}, {"P"}, "choose")
      .Graph("then_branch", then_b.graph())
      .Graph("else_branch", else_b.graph());
  mb.Node("ReduceMean", {"P"}, {"h0"}).Ints("axes", {1}).Int("keepdims", 0);
  mb.Node("Scan", {"h0", "P"}, {"H", "Y"}, "recur")
      .Graph("body", scan_body.graph())
      .Int("num_scan_inputs", 1)
      .Ints("scan_input_axes", {1})
      .Ints("scan_output_axes", {1});
  mb.Node("Shape", {"X"}, {"shape"});
  mb.Node("Slice", {"shape", "one", "two"}, {"len1"});
  mb.Node("Squeeze", {"len1"}, {"len"});
  mb.Node("Loop", {"len", "", "h0"}, {"L"}, "repeat").Graph("body", loop_body.graph());
  mb.Output("Y", kOnnxFloat, {"B", "S", d});
  mb.Output("L", kOnnxFloat, {"B", d});
  ExpectOrderFree(mb.Bytes(), {{2, 33, d}, {1, 3, d}, {3, 64, d}, {1, 3, d}, {2, 7, d}});
}

// Kernels of issue 24 that size packed weights and scratch when planned: ConvTranspose (phase
// path, fused Relu), LpPool; LSTM (input projections over every step) and Attention.
TEST(ShapeOrder, TransposedConvAndPoolingOverChangingSizes) {
  ModelBuilder mb;
  mb.Input("X", kOnnxFloat, {"N", 4, "H", "W"});
  mb.FloatInit("Wt", {4, 6, 3, 3}, RandomFloats(4 * 6 * 9, 100));
  mb.Node("ConvTranspose", {"X", "Wt"}, {"U"}, "up")
      .Ints("strides", {2, 2})
      .Ints("pads", {1, 1, 1, 1})
      .Ints("output_padding", {1, 1});
  mb.Node("Relu", {"U"}, {"R"}, "relu");
  mb.Node("LpPool", {"R"}, {"Y"}, "lp").Ints("kernel_shape", {2, 2}).Ints("strides", {2, 2});
  mb.Output("Y", kOnnxFloat, {"N", 6, "H", "W"});
  ExpectOrderFree(mb.Bytes(), Planes(4));
}

TEST(ShapeOrder, RecurrentAndAttentionOverChangingLengths) {
  constexpr int64_t d = 8, hidden = 5;
  ModelBuilder mb(23);
  mb.Input("X", kOnnxFloat, {"B", "S", d});
  mb.FloatInit("W", {1, 4 * hidden, d}, RandomFloats(4 * hidden * d, 101));
  mb.FloatInit("R", {1, 4 * hidden, hidden}, RandomFloats(4 * hidden * hidden, 102));
  mb.Node("LSTM", {"X", "W", "R"}, {"Y", "Yh"}, "lstm").Int("hidden_size", hidden).Int("layout", 1);
  mb.Node("Attention", {"X", "X", "X"}, {"A"}, "attention")
      .Int("q_num_heads", 2)
      .Int("kv_num_heads", 2)
      .Int("is_causal", 1);
  mb.Output("Y", kOnnxFloat, {"B", "S", 1, hidden});
  mb.Output("Yh", kOnnxFloat, {"B", 1, hidden});
  mb.Output("A", kOnnxFloat, {"B", "S", d});
  ExpectOrderFree(mb.Bytes(), {{2, 9, d}, {1, 1, d}, {3, 33, d}, {1, 1, d}, {2, 7, d}});
}

// A batch of one runs the recurrent step on the one-row GEMM blocks (kernels/simd/gemm_row.h),
// larger batches on the 4-row tiles; gate widths past several 32-column blocks.
TEST(ShapeOrder, RecurrentStepsOverChangingBatches) {
  constexpr int64_t d = 7, hidden = 20;
  ModelBuilder mb(14);
  mb.Input("X", kOnnxFloat, {"S", "B", d});
  mb.FloatInit("W", {2, 3 * hidden, d}, RandomFloats(2 * 3 * hidden * d, 103));
  mb.FloatInit("R", {2, 3 * hidden, hidden}, RandomFloats(2 * 3 * hidden * hidden, 104));
  mb.FloatInit("Wl", {1, 4 * hidden, d}, RandomFloats(4 * hidden * d, 105));
  mb.FloatInit("Rl", {1, 4 * hidden, hidden}, RandomFloats(4 * hidden * hidden, 106));
  mb.Node("GRU", {"X", "W", "R"}, {"G"}, "gru")
      .Int("hidden_size", hidden)
      .String("direction", "bidirectional");
  mb.Node("LSTM", {"X", "Wl", "Rl"}, {"L"}, "lstm").Int("hidden_size", hidden);
  mb.Output("G", kOnnxFloat, {"S", 2, "B", hidden});
  mb.Output("L", kOnnxFloat, {"S", 1, "B", hidden});
  ExpectOrderFree(mb.Bytes(), {{9, 3, d}, {4, 1, d}, {30, 5, d}, {4, 1, d}, {2, 2, d}});
}

// GridSample reading a grid computed from the image (a conv's two channels, NHWC, squashed into
// [-1, 1]), then Einsum mixing channels.
TEST(ShapeOrder, GridSampleAndEinsumOverChangingImages) {
  constexpr int64_t c = 3;
  ModelBuilder mb(20);
  mb.Input("X", kOnnxFloat, {"N", c, "H", "W"});
  mb.FloatInit("Wg", {2, c, 3, 3}, RandomFloats(2 * c * 9, 107));
  mb.FloatInit("K", {c, 5}, RandomFloats(c * 5, 108));
  mb.Node("Conv", {"X", "Wg"}, {"G"}, "offsets")
      .Ints("kernel_shape", {3, 3})
      .Ints("pads", {1, 1, 1, 1});
  mb.Node("Transpose", {"G"}, {"Gt"}, "nhwc").Ints("perm", {0, 2, 3, 1});
  mb.Node("Tanh", {"Gt"}, {"Grid"}, "squash");
  mb.Node("GridSample", {"X", "Grid"}, {"S"}, "sample").String("padding_mode", "border");
  mb.Node("Einsum", {"S", "K"}, {"Y"}, "mix").String("equation", "nchw,ck->nkhw");
  mb.Output("Y", kOnnxFloat, {"N", 5, "H", "W"});
  ExpectOrderFree(mb.Bytes(), Planes(c));
}

// Signal ops over changing lengths: STFT (Hann window, frames of 16, hop 4) and a DFT of the
// whole signal.
TEST(ShapeOrder, SignalOpsOverChangingLengths) {
  constexpr int64_t frame = 16;
  ModelBuilder mb(20);
  mb.Input("X", kOnnxFloat, {"B", "T"});
  mb.Int64Init("axes", {1}, {2});
  mb.Int64Init("step", {}, {4});
  mb.Int64Init("length", {}, {frame});
  mb.Node("Unsqueeze", {"X", "axes"}, {"X3"}, "real");
  mb.Node("HannWindow", {"length"}, {"window"}, "hann");
  mb.Node("STFT", {"X3", "step", "window", "length"}, {"S"}, "stft");
  mb.Node("DFT", {"X3"}, {"F"}, "dft");  // axis -2: time
  mb.Output("S", kOnnxFloat, {"B", "F", frame / 2 + 1, 2});
  mb.Output("F", kOnnxFloat, {"B", "T", 2});
  ExpectOrderFree(mb.Bytes(), {{2, 100}, {1, 16}, {3, 257}, {1, 16}, {2, 31}});
}

// ConvTranspose on its GEMM + col2im path (strides 9 x 8: more phases than the phase path
// takes) and DeformConv on offsets computed from the image.
TEST(ShapeOrder, TransposedConvGemmAndDeformConvOverChangingSizes) {
  constexpr int64_t c = 4;
  ModelBuilder mb(19);
  mb.Input("X", kOnnxFloat, {"N", c, "H", "W"});
  mb.FloatInit("Wt", {c, 3, 3, 3}, RandomFloats(c * 3 * 9, 109));
  mb.FloatInit("Wo", {18, c, 3, 3}, RandomFloats(18 * c * 9, 110));
  mb.FloatInit("Wd", {5, c, 3, 3}, RandomFloats(5 * c * 9, 111));
  mb.Node("ConvTranspose", {"X", "Wt"}, {"U"}, "up").Ints("strides", {9, 8});
  mb.Node("Conv", {"X", "Wo"}, {"O"}, "offsets").Ints("pads", {1, 1, 1, 1});
  mb.Node("DeformConv", {"X", "Wd", "O"}, {"D"}, "deform").Ints("pads", {1, 1, 1, 1});
  mb.Output("U", kOnnxFloat, {"N", 3, "H2", "W2"});
  mb.Output("D", kOnnxFloat, {"N", 5, "H", "W"});
  ExpectOrderFree(mb.Bytes(), Planes(c));
}

// Outputs sized by the values (plan continuations): NonZero, Compress and Unique.
TEST(ShapeOrder, DataDependentShapesOverChangingSizes) {
  ModelBuilder mb(13);
  mb.Input("X", kOnnxFloat, {"N", "L"});
  mb.FloatInit("threshold", {}, {0.2f});
  mb.Int64Init("flat", {1}, {-1});
  mb.Node("Greater", {"X", "threshold"}, {"G"}, "greater");
  mb.Node("NonZero", {"G"}, {"NZ"}, "nonzero");
  mb.Node("Reshape", {"G", "flat"}, {"Gf"}, "flatten");
  mb.Node("Compress", {"X", "Gf"}, {"C"}, "compress");
  mb.Node("Unique", {"X"}, {"U"}, "unique");
  mb.Output("NZ", kOnnxInt64, {2, "K"});
  mb.Output("C", kOnnxFloat, {"K"});
  mb.Output("U", kOnnxFloat, {"M"});
  ExpectOrderFree(mb.Bytes(), {{3, 50}, {1, 2}, {4, 90}, {1, 2}, {2, 17}});
}

// InstanceNormalization (the mean taken off in double before scaling) over changing images,
// one-pixel planes among them, fed by a conv.
TEST(ShapeOrder, InstanceNormOverChangingImages) {
  constexpr int64_t c = 5;
  ModelBuilder mb(13);
  mb.Input("X", kOnnxFloat, {"N", c, "H", "W"});
  mb.FloatInit("W", {c, c, 3, 3}, RandomFloats(c * c * 9, 90));
  mb.FloatInit("scale", {c}, RandomFloats(c, 91));
  mb.FloatInit("B", {c}, RandomFloats(c, 92));
  mb.Node("Conv", {"X", "W"}, {"C"}, "conv").Ints("pads", {1, 1, 1, 1});
  mb.Node("InstanceNormalization", {"C", "scale", "B"}, {"Y"}, "norm");
  mb.Output("Y", kOnnxFloat, {"N", c, "H", "W"});
  ExpectOrderFree(mb.Bytes(),
                  {{3, c, 17, 13}, {1, c, 1, 1}, {2, c, 9, 31}, {1, c, 1, 1}, {3, c, 17, 13}});
}

// An initializer of any element type from its little-endian bytes.
template <typename T>
void RawInit(ModelBuilder& mb, const std::string& name, int32_t type,
             const std::vector<int64_t>& dims, const std::vector<T>& values) {
  onnx::TensorProto t;
  for (int64_t d : dims) t.add_dims(d);
  t.set_data_type(type);
  t.set_raw_data(
      std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T)));
  mb.Initializer(name, t);
}

// float64 and uint64 islands over changing batches: the shared float64 loops (broadcast Add,
// unary Exp, Max), the double reduction and CumSum, Einsum in double, uint64 in int64 (modular
// Add, ordered Less and Max).
TEST(ShapeOrder, Float64AndUint64OverChangingBatches) {
  constexpr int32_t kUint64 = 13;
  ModelBuilder mb(14);
  mb.Input("X", kOnnxFloat, {"N", 6});
  RawInit<double>(mb, "c", kOnnxDouble, {6}, {0.1, -0.2, 0.3, 1.0 / 3, 2.5, -7.25});
  RawInit<double>(mb, "k", kOnnxDouble, {6, 3}, std::vector<double>(18, 0.125));
  RawInit<uint64_t>(mb, "big", kUint64, {1}, {(uint64_t{1} << 63) + 5});
  mb.Int64Init("axis", {}, {0});
  mb.Int64Init("axes", {1}, {1});
  mb.Node("Cast", {"X"}, {"D"}, "to_double").Int("to", kOnnxDouble);
  mb.Node("Add", {"D", "c"}, {"A"}, "add");
  mb.Node("Exp", {"A"}, {"E"}, "exp");
  mb.Node("Max", {"E", "D"}, {"M"}, "max");
  mb.Node("CumSum", {"M", "axis"}, {"S"}, "cumsum");
  mb.Node("ReduceSum", {"S", "axes"}, {"R"}, "sum");
  mb.Node("Einsum", {"S", "k"}, {"P"}, "mix").String("equation", "nk,kj->nj");
  mb.Node("Abs", {"X"}, {"Xa"}, "abs");
  mb.Node("Cast", {"Xa"}, {"U"}, "to_u64").Int("to", kUint64);
  mb.Node("Add", {"U", "big"}, {"Ub"}, "add_u64");
  mb.Node("Less", {"U", "Ub"}, {"L"}, "less_u64");
  mb.Node("Max", {"U", "Ub"}, {"Um"}, "max_u64");
  mb.Output("R", kOnnxDouble, {"N", 1});
  mb.Output("P", kOnnxDouble, {"N", 3});
  mb.Output("L", kOnnxBool, {"N", 6});
  mb.Output("Um", kUint64, {"N", 6});
  ExpectOrderFree(mb.Bytes(), Batches({6}));
}

// A float16 conv net (computed in float32 by the load-time pass, converted at its boundary)
// over changing images.
TEST(ShapeOrder, Float16GraphOverChangingImages) {
  constexpr int64_t c = 3;
  ModelBuilder mb(13);
  mb.Input("X", kOnnxFloat, {"N", c, "H", "W"});
  std::vector<uint16_t> w(4 * c * 9);
  const std::vector<float> wf = RandomFloats(4 * c * 9, 120);
  for (size_t i = 0; i < w.size(); ++i) w[i] = FloatToHalf(wf[i]);
  RawInit<uint16_t>(mb, "W", kOnnxFloat16, {4, c, 3, 3}, w);
  mb.Node("Cast", {"X"}, {"H16"}, "to_half").Int("to", kOnnxFloat16);
  mb.Node("Conv", {"H16", "W"}, {"C"}, "conv").Ints("pads", {1, 1, 1, 1});
  mb.Node("Relu", {"C"}, {"Y"}, "relu");
  mb.Output("Y", kOnnxFloat16, {"N", 4, "H", "W"});
  ExpectOrderFree(mb.Bytes(), Planes(c));
}

// The QOperator ops and MatMulIntegerToFloat over changing batches, fed by QuantizeLinear.
TEST(ShapeOrder, QLinearOpsOverChangingBatches) {
  constexpr int64_t c = 3;
  ModelBuilder mb(13);
  mb.Opset("com.microsoft", 1);
  mb.Input("X", kOnnxFloat, {"N", c, 4, 5});
  mb.FloatInit("s", {}, {0.02f});
  mb.FloatInit("t", {}, {0.05f});
  RawInit<uint8_t>(mb, "z", kOnnxUint8, {}, {128});
  RawInit<uint8_t>(mb, "z2", kOnnxUint8, {}, {100});
  RawInit<uint8_t>(mb, "cb", kOnnxUint8, {5}, {0, 64, 128, 192, 255});
  std::vector<int8_t> b(5 * 7);
  for (size_t i = 0; i < b.size(); ++i)
    b[i] = static_cast<int8_t>(static_cast<int>(i * 37 % 255) - 127);
  RawInit<int8_t>(mb, "B", 3, {5, 7}, b);
  mb.FloatInit("bias", {7}, RandomFloats(7, 121));
  mb.Node("QuantizeLinear", {"X", "s", "z"}, {"Q"}, "quantize");
  const char* ms = "com.microsoft";
  mb.Node("QLinearAdd", {"Q", "s", "z", "cb", "t", "z2", "t", "z2"}, {"A"}, "qadd").Domain(ms);
  mb.Node("QLinearSigmoid", {"A", "t", "z2", "s", "z"}, {"G"}, "qsigmoid").Domain(ms);
  mb.Node("QLinearConcat", {"t", "z2", "A", "t", "z2", "G", "s", "z"}, {"K"}, "qconcat")
      .Domain(ms)
      .Int("axis", 1);
  mb.Node("QLinearGlobalAveragePool", {"K", "t", "z2", "s", "z"}, {"P"}, "qpool").Domain(ms);
  mb.Node("MatMulIntegerToFloat", {"Q", "B", "s", "t", "z", "", "bias"}, {"F"}, "qmatmul")
      .Domain(ms);
  mb.Output("P", kOnnxUint8, {"N", 2 * c, 1, 1});
  mb.Output("F", kOnnxFloat, {"N", c, 4, 7});
  ExpectOrderFree(mb.Bytes(), Batches({c, 4, 5}));
}

// This change's kernels over changing batches: the integer ops through the shared element loops
// (int32, int64, bool), uint64 division and remainder, a uint64 Pow exponent, int8 max pooling,
// and QDQ MatMul and Gemm fused into int8 products (transB, an int32 bias, a residual sum).
TEST(ShapeOrder, SharedElementLoopsAndQdqProductsOverChangingBatches) {
  constexpr int32_t kUint64 = 13;
  constexpr int64_t k = 6, n = 5;
  ModelBuilder mb(18);
  mb.Input("X", kOnnxFloat, {"N", k});
  mb.Int64Init("two", {1}, {2});
  RawInit<uint64_t>(mb, "big", kUint64, {1}, {(uint64_t{1} << 63) + 7});
  RawInit<uint64_t>(mb, "e", kUint64, {1}, {~uint64_t{0} - 4});
  mb.FloatInit("s", {}, {0.03f});
  RawInit<uint8_t>(mb, "z", kOnnxUint8, {}, {110});
  std::vector<int8_t> w(k * n);
  for (size_t i = 0; i < w.size(); ++i)
    w[i] = static_cast<int8_t>(static_cast<int>(i * 29 % 255) - 127);
  RawInit<int8_t>(mb, "Wt", 3, {n, k}, w);  // Gemm's transB layout
  mb.FloatInit("ws", {n}, {0.01f, 0.02f, 0.015f, 0.005f, 0.03f});
  RawInit<int8_t>(mb, "wz", 3, {n}, std::vector<int8_t>(n, 0));
  RawInit<int32_t>(mb, "bq", 6, {n}, {50, -70, 0, 9, -3});
  mb.FloatInit("bs", {n}, {0.0003f, 0.0006f, 0.00045f, 0.00015f, 0.0009f});
  // Integers: int64 arithmetic, comparison and bit operations, uint64 division and powers.
  mb.Node("Cast", {"X"}, {"I"}, "to_int64").Int("to", 7);
  mb.Node("Mul", {"I", "two"}, {"I2"}, "mul");
  mb.Node("Mod", {"I2", "two"}, {"Im"}, "mod");
  mb.Node("BitwiseXor", {"I2", "Im"}, {"Ix"}, "xor");
  mb.Node("Less", {"Ix", "I"}, {"L"}, "less");
  mb.Node("Abs", {"X"}, {"Xa"}, "abs");
  mb.Node("Cast", {"Xa"}, {"U"}, "to_u64").Int("to", kUint64);
  mb.Node("Add", {"U", "big"}, {"Ub"}, "add_u64");
  mb.Node("Div", {"Ub", "U"}, {"Ud"}, "div_u64");
  mb.Node("Mod", {"Ub", "big"}, {"Ur"}, "mod_u64");
  mb.Node("Pow", {"I", "e"}, {"Ip"}, "pow_u64_exponent");
  // int8 max pooling of the quantized input.
  mb.Node("QuantizeLinear", {"X", "s", "z"}, {"Q"}, "quantize");
  mb.Node("Reshape", {"Q", "shape4"}, {"Q4"}, "to_4d");
  mb.Int64Init("shape4", {4}, {0, 1, 2, 3});
  mb.Node("MaxPool", {"Q4"}, {"Qp"}, "pool").Ints("kernel_shape", {2, 2});
  // A QDQ Gemm with transB, an int32 bias and a residual sum: one fused int8 product.
  mb.Node("DequantizeLinear", {"Q", "s", "z"}, {"Xd"}, "dequantize");
  mb.Node("DequantizeLinear", {"Wt", "ws", "wz"}, {"Wd"}, "dequantize_w").Int("axis", 0);
  mb.Node("DequantizeLinear", {"bq", "bs"}, {"Bd"}, "dequantize_b").Int("axis", 0);
  mb.Node("Gemm", {"Xd", "Wd", "Bd"}, {"G"}, "gemm").Int("transB", 1);
  mb.Node("Slice", {"X", "zero", "five", "one"}, {"Xs"}, "skip");
  mb.Int64Init("zero", {1}, {0});
  mb.Int64Init("five", {1}, {5});
  mb.Int64Init("one", {1}, {1});
  mb.Node("Add", {"G", "Xs"}, {"Gs"}, "residual");
  mb.Node("Relu", {"Gs"}, {"Y"}, "relu");
  mb.Output("L", kOnnxBool, {"N", k});
  mb.Output("Ud", kUint64, {"N", k});
  mb.Output("Ur", kUint64, {"N", k});
  mb.Output("Ip", 7, {"N", k});
  mb.Output("Qp", kOnnxUint8, {"N", 1, 1, 2});
  mb.Output("Y", kOnnxFloat, {"N", n});
  ExpectOrderFree(mb.Bytes(), Batches({k}));
}

// The int8 kernels on the relaxed dot (natively emulated) over changing planes: a QDQ depthwise
// conv and a QDQ 1x1 conv after it (quads GEMM, depthwise quads, per-channel weights), and an
// integer depthwise conv with strides and per-channel weight zero points.
TEST(ShapeOrder, Int8KernelsOnTheRelaxedDotOverChangingPlanes) {
  constexpr int64_t c = 4, m = 5;
  ModelBuilder mb(13);
  mb.Input("X", kOnnxFloat, {"N", c, "H", "W"});
  mb.FloatInit("s", {}, {0.02f});
  RawInit<uint8_t>(mb, "z", kOnnxUint8, {}, {120});
  std::vector<int8_t> dw(c * 9), pw(m * c);
  for (size_t i = 0; i < dw.size(); ++i)
    dw[i] = static_cast<int8_t>(static_cast<int>(i * 53 % 255) - 127);
  for (size_t i = 0; i < pw.size(); ++i)
    pw[i] = static_cast<int8_t>(static_cast<int>(i * 71 % 255) - 127);
  RawInit<int8_t>(mb, "Wdw", 3, {c, 1, 3, 3}, dw);
  RawInit<int8_t>(mb, "Wpw", 3, {m, c, 1, 1}, pw);
  mb.FloatInit("sdw", {c}, {0.01f, 0.02f, 0.015f, 0.005f});
  mb.FloatInit("spw", {m}, {0.01f, 0.02f, 0.015f, 0.005f, 0.03f});
  RawInit<int8_t>(mb, "zdw", 3, {c}, std::vector<int8_t>(c, 0));
  RawInit<int8_t>(mb, "zpw", 3, {m}, std::vector<int8_t>(m, 0));
  RawInit<int8_t>(mb, "zci", 3, {c}, {3, -7, 0, 11});
  mb.Node("QuantizeLinear", {"X", "s", "z"}, {"Q"}, "quantize");
  mb.Node("DequantizeLinear", {"Q", "s", "z"}, {"Xd"}, "dequantize");
  mb.Node("DequantizeLinear", {"Wdw", "sdw", "zdw"}, {"Wdwd"}, "dequantize_dw").Int("axis", 0);
  mb.Node("Conv", {"Xd", "Wdwd"}, {"D"}, "depthwise").Int("group", c).Ints("pads", {1, 1, 1, 1});
  mb.Node("QuantizeLinear", {"D", "s", "z"}, {"Q2"}, "quantize_2");
  mb.Node("DequantizeLinear", {"Q2", "s", "z"}, {"Dd"}, "dequantize_2");
  mb.Node("DequantizeLinear", {"Wpw", "spw", "zpw"}, {"Wpwd"}, "dequantize_pw").Int("axis", 0);
  mb.Node("Conv", {"Dd", "Wpwd"}, {"P"}, "pointwise");
  mb.Node("ConvInteger", {"Q", "Wdw", "z", "zci"}, {"CI"}, "conv_integer")
      .Int("group", c)
      .Ints("strides", {2, 2});
  mb.Output("P", kOnnxFloat, {"N", m, "H", "W"});
  mb.Output("CI", 6, {"N", c, "Ho", "Wo"});
  ExpectOrderFree(mb.Bytes(), Planes(c));
}

// QDQ convolutions handing 8-bit activations to each other over changing planes: a 3x3 conv
// whose Clip (bounds from Constant nodes) and QuantizeLinear it runs itself, writing uint8; a
// depthwise conv reading them as they are, with a Relu and its own 8-bit output; a 1x1 conv
// after it; and a DequantizeLinear of the depthwise conv's 8-bit output as a graph output too.
TEST(ShapeOrder, QdqConvsHandingEightBitActivationsOverChangingPlanes) {
  constexpr int64_t c = 3, e = 6, m = 4;
  ModelBuilder mb(13);
  mb.Input("X", kOnnxFloat, {"N", c, "H", "W"});
  mb.FloatInit("s", {}, {0.02f});
  mb.FloatInit("s2", {}, {0.03f});
  RawInit<uint8_t>(mb, "z", kOnnxUint8, {}, {120});
  RawInit<uint8_t>(mb, "z2", kOnnxUint8, {}, {9});
  auto weights = [&](const std::string& name, std::vector<int64_t> dims, int salt) {
    int64_t count = 1;
    for (int64_t d : dims) count *= d;
    std::vector<int8_t> w(count);
    for (int64_t i = 0; i < count; ++i)
      w[i] = static_cast<int8_t>(static_cast<int>((i + salt) * 53 % 255) - 127);
    RawInit<int8_t>(mb, name, 3, dims, w);
    std::vector<float> scales(dims[0]);
    for (int64_t o = 0; o < dims[0]; ++o) scales[o] = 0.002f * (1 + (o + salt) % 5);
    mb.FloatInit(name + "_s", {dims[0]}, scales);
    RawInit<int8_t>(mb, name + "_z", 3, {dims[0]}, std::vector<int8_t>(dims[0], 0));
    mb.Node("DequantizeLinear", {name, name + "_s", name + "_z"}, {name + "_d"}).Int("axis", 0);
  };
  weights("W3", {e, c, 3, 3}, 1);
  weights("Wdw", {e, 1, 3, 3}, 2);
  weights("Wpw", {m, e, 1, 1}, 3);
  mb.Node("Constant", {}, {"lo"}).TensorAttr("value", FloatTensor({}, {0.f}));
  mb.Node("Constant", {}, {"hi"}).TensorAttr("value", FloatTensor({}, {6.f}));
  mb.Node("QuantizeLinear", {"X", "s", "z"}, {"Xq"});
  mb.Node("DequantizeLinear", {"Xq", "s", "z"}, {"Xd"});
  mb.Node("Conv", {"Xd", "W3_d"}, {"A"}, "full").Ints("pads", {1, 1, 1, 1});
  mb.Node("Clip", {"A", "lo", "hi"}, {"Ac"});
  mb.Node("QuantizeLinear", {"Ac", "s2", "z2"}, {"Aq"});
  mb.Node("DequantizeLinear", {"Aq", "s2", "z2"}, {"Ad"});
  mb.Node("Conv", {"Ad", "Wdw_d"}, {"D"}, "depthwise")
      .Int("group", e)
      .Ints("pads", {1, 1, 1, 1})
      .Ints("strides", {2, 2});
  mb.Node("Relu", {"D"}, {"Dr"});
  mb.Node("QuantizeLinear", {"Dr", "s", "z"}, {"Dq"});
  mb.Node("DequantizeLinear", {"Dq", "s", "z"}, {"Dd"});
  mb.Node("Conv", {"Dd", "Wpw_d"}, {"P"}, "pointwise");
  mb.Output("P", kOnnxFloat, {"N", m, "Ho", "Wo"});
  mb.Output("Dd", kOnnxFloat, {"N", e, "Ho", "Wo"});
  std::unique_ptr<Session> session;
  ASSERT_TRUE(CreateSession(mb.Bytes(), &session).ok());
  EXPECT_EQ(session->stats().graph_nodes, 4u);  // three convs and the exposed DequantizeLinear
  ExpectOrderFree(mb.Bytes(), Planes(c));
}

// TopK in other dtypes (uint64 past 2^63, int8 and float16, on its int64 keys) and reductions
// with noop_with_empty_axes that still apply their element function (x^2, |x|, log x) over
// batches that grow, shrink and come back, 1 and 2 threads.
TEST(ShapeOrder, TopKOnKeysAndElementwiseNoopReductionsOverChangingBatches) {
  ModelBuilder mb(18);
  mb.Input("X", kOnnxFloat, {"N", 6, 5});
  mb.Int64Init("K", {1}, {3});
  mb.FloatInit("big", {}, {1e19f});
  mb.Node("Abs", {"X"}, {"A"});
  mb.Node("Mul", {"A", "big"}, {"B"});
  mb.Node("Cast", {"B"}, {"U"}).Int("to", 13);  // uint64
  mb.Node("Cast", {"X"}, {"I"}).Int("to", kOnnxInt8);
  mb.Node("Cast", {"X"}, {"H"}).Int("to", kOnnxFloat16);
  const char* typed[] = {"U", "I", "H"};
  const int32_t types[] = {13, kOnnxInt8, kOnnxFloat16};
  for (int t = 0; t < 3; ++t) {
    const std::string v = std::string("V") + typed[t], i = std::string("J") + typed[t];
    mb.Node("TopK", {typed[t], "K"}, {v, i}).Int("axis", 1).Int("largest", t != 1);
    mb.Output(v, types[t], {"N", 3, 5});
    mb.Output(i, kOnnxInt64, {"N", 3, 5});
  }
  for (const char* op : {"ReduceSumSquare", "ReduceL1", "ReduceLogSum"}) {
    mb.Node(op, {"A"}, {std::string(op) + "_y"}).Int("noop_with_empty_axes", 1);
    mb.Output(std::string(op) + "_y", kOnnxFloat, {"N", 6, 5});
  }
  ExpectOrderFree(mb.Bytes(), Batches({6, 5}));
}

// This stop's planner and kernel fixes over changing batches: LpNormalization dividing in double
// (L1 and L2), and a Loop whose body reads a value that folding a cancelling Transpose pair
// renamed (the fold follows the rename into the body).
TEST(ShapeOrder, LpNormAndALoopReadingAFoldedTransposeOverChangingBatches) {
  constexpr int64_t k = 6;
  ModelBuilder body;
  body.Input("i", kOnnxInt64, {});
  body.Input("cond_in", kOnnxBool, {});
  body.Input("s_in", kOnnxFloat, {"N", k});
  body.Node("Identity", {"cond_in"}, {"cond_out"});
  body.Node("Tanh", {"s_in"}, {"s_tanh"});
  body.Node("Add", {"s_tanh", "xt"}, {"s_out"});
  body.Output("cond_out", kOnnxBool, {});
  body.Output("s_out", kOnnxFloat, {"N", k});
  ModelBuilder mb(13);
  mb.Input("X", kOnnxFloat, {"N", k});
  mb.Int64Init("M", {}, {3});
  mb.Node("LpNormalization", {"X"}, {"L1"}, "l1").Int("axis", 1).Int("p", 1);
  mb.Node("LpNormalization", {"X"}, {"L2"}, "l2").Int("axis", 0).Int("p", 2);
  mb.Node("Transpose", {"L2"}, {"t"}, "transpose").Ints("perm", {1, 0});
  mb.Node("Transpose", {"t"}, {"xt"}, "transpose_back").Ints("perm", {1, 0});
  mb.Node("Loop", {"M", "", "xt"}, {"S"}, "loop").Graph("body", body.graph());
  mb.Output("L1", kOnnxFloat, {"N", k});
  mb.Output("S", kOnnxFloat, {"N", k});
  ExpectOrderFree(mb.Bytes(), Batches({k}));
}

}  // namespace
}  // namespace webnx::testing

namespace webnx::testing {
namespace {

// Concat inputs written in place (core/buffer_plan.h PlaceInside): only where the batch is 1 (a
// Concat's inputs are then single runs of its output). With an input that is a graph input, one
// read twice, one read again after the Concat, a graph output placed inside, a Concat of a
// Concat, and a partial Slice view that must be copied. Values checked at batches 1 and 3, and
// every batch bitwise a fresh session's.
TEST(ShapeOrder, ConcatInputsWrittenInPlaceOverChangingBatches) {
  ModelBuilder mb(13);
  mb.Input("X", kOnnxFloat, {"N", 2, 3});
  mb.Int64Init("starts", {1}, {1});
  mb.Int64Init("ends", {1}, {2});
  mb.Int64Init("axes", {1}, {1});
  mb.Node("Neg", {"X"}, {"a"}, "neg");
  mb.Node("Sigmoid", {"X"}, {"b"}, "sigmoid");
  mb.Node("Concat", {"a", "b", "X", "a"}, {"c"}, "concat").Int("axis", 1);
  mb.Node("Relu", {"a"}, {"e"}, "relu_after");
  mb.Node("Concat", {"c", "e"}, {"f"}, "concat_of_concat").Int("axis", -2);
  mb.Node("Slice", {"b", "starts", "ends", "axes"}, {"s"}, "slice_view");
  mb.Node("Concat", {"s", "e"}, {"g"}, "concat_view").Int("axis", 1);
  mb.Output("f", kOnnxFloat, {"N", 10, 3});
  mb.Output("b", kOnnxFloat, {"N", 2, 3});
  mb.Output("g", kOnnxFloat, {"N", 3, 3});
  const std::string bytes = mb.Bytes();
  ExpectOrderFree(bytes, Batches({2, 3}));
  std::unique_ptr<Session> session = NewSession(bytes, 1);
  ASSERT_TRUE(session);
  for (int64_t n : {3, 1, 3, 1}) {
    const Tensor x = RandomFloat({n, 2, 3}, 77 + static_cast<uint32_t>(n));
    std::vector<const Tensor*> outputs;
    Status s = session->Run({NamedTensor{"X", x}}, &outputs);
    ASSERT_TRUE(s.ok()) << s.ToString();
    const float* xv = x.ptr<float>();
    const float* f = outputs[0]->ptr<float>();
    const float* g = outputs[2]->ptr<float>();
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t k = 0; k < 6; ++k) {
        const float v = xv[i * 6 + k], sig = 1.f / (1.f + std::exp(-v));
        // f = [a, b, X, a, relu(a)] along the channels, 6 values each (2 channels x 3).
        const float want[5] = {-v, sig, v, -v, std::max(-v, 0.f)};
        for (int part = 0; part < 5; ++part)
          EXPECT_NEAR(f[i * 30 + part * 6 + k], want[part], 1e-6f) << "f part " << part;
        EXPECT_NEAR(outputs[1]->ptr<float>()[i * 6 + k], sig, 1e-6f) << "b";
        if (k >= 3) EXPECT_NEAR(g[i * 9 + k - 3], sig, 1e-6f) << "g's slice";
        EXPECT_NEAR(g[i * 9 + 3 + k], std::max(-v, 0.f), 1e-6f) << "g's relu";
      }
    }
  }
}

}  // namespace
}  // namespace webnx::testing
