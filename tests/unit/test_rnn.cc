// RNN, GRU and LSTM: hand-computed steps, the packed SIMD path against the scalar reference on
// odd shapes and every attribute, and a sequence streamed one step per run.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "tests/unit/rnn_test_case.h"

namespace webnx::testing {
namespace {

float Sigmoid(float x) {
  return 1.f / (1.f + std::exp(-x));
}

RnnCase TinyCase(const std::string& op, const std::vector<float>& w, const std::vector<float>& r) {
  RnnCase c;
  c.op = op;
  c.inputs[1] = MakeFloat({1, static_cast<int64_t>(w.size()), 1}, w);
  c.inputs[2] = MakeFloat({1, static_cast<int64_t>(r.size()), 1}, r);
  return c;
}

TEST(Rnn, SimpleRnnByHand) {
  RnnCase c = TinyCase("RNN", {0.5f}, {0.25f});
  c.inputs[0] = MakeFloat({2, 1, 1}, {1.f, 2.f});
  c.inputs[3] = MakeFloat({1, 2}, {0.1f, 0.2f});
  std::vector<Tensor> out;
  ASSERT_TRUE(c.RunFast(&out).ok());
  const float h1 = std::tanh(0.5f + 0.3f);
  const float h2 = std::tanh(1.f + 0.25f * h1 + 0.3f);
  ExpectAllClose(out, {MakeFloat({2, 1, 1, 1}, {h1, h2}), MakeFloat({1, 1, 1}, {h2})}, 1e-6f,
                 "RNN");
}

TEST(Rnn, LstmStepByHand) {
  RnnCase c = TinyCase("LSTM", {1.f, 2.f, 3.f, 4.f}, {0.f, 0.f, 0.f, 0.f});
  c.inputs[0] = MakeFloat({1, 1, 1}, {1.f});
  c.inputs[6] = MakeFloat({1, 1, 1}, {0.5f});  // initial_c; initial_h absent (zero)
  std::vector<Tensor> out;
  ASSERT_TRUE(c.RunFast(&out).ok());
  // W rows are the gates i, o, f, c.
  const float cell = Sigmoid(3.f) * 0.5f + Sigmoid(1.f) * std::tanh(4.f);
  const float h = Sigmoid(2.f) * std::tanh(cell);
  ExpectAllClose(
      out, {MakeFloat({1, 1, 1, 1}, {h}), MakeFloat({1, 1, 1}, {h}), MakeFloat({1, 1, 1}, {cell})},
      1e-6f, "LSTM");
}

TEST(Rnn, GruStepByHandBothResetOrders) {
  for (int linear_before_reset : {0, 1}) {
    RnnCase c = TinyCase("GRU", {0.5f, -0.5f, 1.f}, {0.3f, 0.2f, 0.7f});
    c.attrs["linear_before_reset"] = IntAttr(linear_before_reset);
    c.inputs[0] = MakeFloat({1, 1, 1}, {1.f});
    c.inputs[3] = MakeFloat({1, 6}, {0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f});
    c.inputs[5] = MakeFloat({1, 1, 1}, {0.8f});
    std::vector<Tensor> out;
    ASSERT_TRUE(c.RunFast(&out).ok());
    const float z = Sigmoid(0.5f + 0.3f * 0.8f + 0.1f + 0.4f);
    const float r = Sigmoid(-0.5f + 0.2f * 0.8f + 0.2f + 0.5f);
    const float candidate = linear_before_reset ? std::tanh(1.f + r * (0.7f * 0.8f + 0.6f) + 0.3f)
                                                : std::tanh(1.f + 0.7f * (r * 0.8f) + 0.6f + 0.3f);
    const float h = (1.f - z) * candidate + z * 0.8f;
    ExpectAllClose(out, {MakeFloat({1, 1, 1, 1}, {h}), MakeFloat({1, 1, 1}, {h})}, 1e-6f,
                   "GRU linear_before_reset=" + std::to_string(linear_before_reset));
  }
}

// h = x + h with Affine(1, 0): sums, exact. Entry 1 has length 1: Y is zero after it, and a
// reverse pass starts at its own end.
TEST(Rnn, SequenceLensZeroThePaddingAndKeepTheLastState) {
  RnnCase c = TinyCase("RNN", {1.f, 1.f}, {1.f, 1.f});
  c.inputs[1].shape = {2, 1, 1};
  c.inputs[2].shape = {2, 1, 1};
  c.attrs["direction"] = StringAttr("bidirectional");
  c.attrs["activations"] = StringsAttr({"Affine", "Affine"});
  c.attrs["activation_alpha"] = FloatsAttr({1.f, 1.f});
  c.attrs["activation_beta"] = FloatsAttr({0.f, 0.f});
  c.inputs[0] = MakeFloat({3, 2, 1}, {1.f, 10.f, 2.f, 20.f, 3.f, 30.f});
  c.inputs[4] = MakeInt32({2}, {3, 1});
  std::vector<Tensor> out;
  ASSERT_TRUE(c.RunFast(&out).ok());
  // Y [seq, direction, batch, 1]: forward 1 3 6 | 10 0 0, reverse 6 5 3 | 10 0 0.
  const Tensor y = MakeFloat({3, 2, 2, 1}, {1, 10, 6, 10, 3, 0, 5, 0, 6, 0, 3, 0});
  const Tensor y_h = MakeFloat({2, 2, 1}, {6, 10, 6, 10});
  ExpectAllClose(out, {y, y_h}, 0.f, "bidirectional RNN with sequence_lens");
  ExpectAllClose(c.RunReference(), {y, y_h}, 0.f, "the reference");
}

// Every cell, direction and layout on odd sizes (hidden 3, 5, 17; input 7; batch 1 and 3;
// seq 1 and 9), with sequence_lens (one of them 0) for batch 3.
TEST(Rnn, FastPathMatchesReferenceOnOddShapes) {
  struct Variant {
    std::string op;
    const char* attr;  // an extra int attribute set to 1, or null
    bool peepholes;
  };
  const Variant variants[] = {
      {"RNN", nullptr, false},  {"GRU", nullptr, false}, {"GRU", "linear_before_reset", false},
      {"LSTM", nullptr, false}, {"LSTM", nullptr, true}, {"LSTM", "input_forget", true}};
  uint32_t seed = 100;
  for (const Variant& v : variants) {
    for (int64_t hidden : {3, 5, 17}) {
      for (int64_t batch : {1, 3}) {
        for (int64_t seq : {1, 9}) {
          for (const char* direction : {"forward", "reverse", "bidirectional"}) {
            for (int layout : {0, 1}) {
              RnnCase c = RandomRnnCase(v.op, hidden, 7, batch, seq, direction, layout, seed += 10);
              if (v.attr) c.attrs[v.attr] = IntAttr(1);
              const int64_t dirs = c.inputs[1].shape[0];
              if (v.peepholes) c.inputs[7] = RandomFloat({dirs, 3 * hidden}, seed + 7);
              if (batch == 3) c.inputs[4] = MakeInt32({3}, {static_cast<int32_t>(seq), 0, 1});
              c.constant_weights = seed % 20 == 0;
              std::vector<Tensor> out;
              const std::string what = v.op + (v.attr ? std::string(" ") + v.attr : "") +
                                       (v.peepholes ? " P" : "") + " hidden " +
                                       std::to_string(hidden) + " batch " + std::to_string(batch) +
                                       " seq " + std::to_string(seq) + " " + direction +
                                       " layout " + std::to_string(layout);
              Status s = c.RunFast(&out);
              ASSERT_TRUE(s.ok()) << what << ": " << s.ToString();
              ExpectAllClose(out, c.RunReference(), 1e-5f, what);
            }
          }
        }
      }
    }
  }
}

TEST(Rnn, EveryActivationWithAlphaAndBeta) {
  const std::vector<std::string> functions = {
      "Relu",       "Tanh",        "Sigmoid", "Affine",   "LeakyRelu", "ThresholdedRelu",
      "ScaledTanh", "HardSigmoid", "Elu",     "Softsign", "Softplus"};
  uint32_t seed = 7000;
  for (const std::string& f : functions) {
    for (const std::string op : {"RNN", "GRU", "LSTM"}) {
      RnnCase c = RandomRnnCase(op, 5, 7, 3, 9, "bidirectional", 0, seed += 10);
      const int functions_per_direction = op == "LSTM" ? 3 : op == "GRU" ? 2 : 1;
      c.attrs["activations"] =
          StringsAttr(std::vector<std::string>(2 * functions_per_direction, f));
      c.attrs["activation_alpha"] = FloatsAttr({0.3f, 0.7f, 0.2f, 0.9f, 0.4f, 0.6f});
      c.attrs["activation_beta"] = FloatsAttr({0.5f, 0.1f, 0.6f, 0.2f, 0.3f, 0.4f});
      c.attrs["clip"] = FloatAttr(1.5f);
      std::vector<Tensor> out;
      Status s = c.RunFast(&out);
      ASSERT_TRUE(s.ok()) << op << " " << f << ": " << s.ToString();
      ExpectAllClose(out, c.RunReference(), 1e-5f, op + " with " + f);
    }
  }
}

TEST(Rnn, ClipBoundsTheGateInputs) {
  for (const std::string op : {"RNN", "GRU", "LSTM"}) {
    RnnCase c = RandomRnnCase(op, 17, 7, 3, 9, "forward", 1, 31);
    c.inputs[0] = RandomFloat(c.inputs[0].shape, 32, -4.f, 4.f);
    c.attrs["clip"] = FloatAttr(0.25f);
    std::vector<Tensor> clipped, unclipped;
    ASSERT_TRUE(c.RunFast(&clipped).ok());
    ExpectAllClose(clipped, c.RunReference(), 1e-5f, op + " clip 0.25");
    c.attrs.erase("clip");
    ASSERT_TRUE(c.RunFast(&unclipped).ok());
    float largest_change = 0.f;
    for (int64_t i = 0; i < clipped[0].numel(); ++i) {
      largest_change = std::max(
          largest_change, std::fabs(clipped[0].ptr<float>()[i] - unclipped[0].ptr<float>()[i]));
    }
    EXPECT_GT(largest_change, 0.01f) << op << ": the clip changed nothing";
  }
}

// Packed constants, packing at run time and the threaded products agree bit for bit; the
// sizes make the projection large enough to be shared out.
TEST(Rnn, ConstantWeightsAndThreadsGiveTheSameBits) {
  for (const std::string op : {"GRU", "LSTM"}) {
    RnnCase c = RandomRnnCase(op, 64, 48, 5, 9, "bidirectional", 0, 77);
    if (op == "GRU") c.attrs["linear_before_reset"] = IntAttr(1);
    std::vector<Tensor> plain, constant, threaded;
    ASSERT_TRUE(c.RunFast(&plain).ok());
    c.constant_weights = true;
    ASSERT_TRUE(c.RunFast(&constant).ok());
    c.threads = 2;
    ASSERT_TRUE(c.RunFast(&threaded).ok());
    for (size_t o = 0; o < plain.size(); ++o) {
      ExpectBitwiseEqual(constant[o], plain[o],
                         op + " constant weights, output " + std::to_string(o));
      ExpectBitwiseEqual(threaded[o], plain[o], op + " 2 threads, output " + std::to_string(o));
    }
    ExpectAllClose(plain, c.RunReference(), 1e-5f, op + " large");
  }
}

// X[t] of either layout as its own one-step input.
Tensor TimeStep(const Tensor& x, int layout, int64_t t) {
  const int64_t seq = x.shape[layout == 0 ? 0 : 1], batch = x.shape[layout == 0 ? 1 : 0];
  const int64_t input = x.shape[2];
  Tensor step = MakeFloat(layout == 0 ? Shape{1, batch, input} : Shape{batch, 1, input},
                          std::vector<float>(batch * input));
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t row = layout == 0 ? t * batch + b : b * seq + t;
    std::copy_n(x.ptr<float>() + row * input, input, step.ptr<float>() + b * input);
  }
  return step;
}

// A sequence run one step per run, Y_h and Y_c fed back as initial_h and initial_c, gives
// bitwise one run over the whole sequence.
TEST(Rnn, StreamingOneStepPerRunEqualsOneRun) {
  for (const std::string op : {"RNN", "GRU", "LSTM"}) {
    for (int layout : {0, 1}) {
      RnnCase whole = RandomRnnCase(op, 17, 7, 3, 9, "forward", layout, 400 + layout);
      if (op == "LSTM") whole.inputs[7] = RandomFloat({1, 3 * 17}, 409);
      std::vector<Tensor> all;
      ASSERT_TRUE(whole.RunFast(&all).ok());
      RnnCase step = whole;
      const int64_t batch = 3, hidden = 17;
      for (int64_t t = 0; t < 9; ++t) {
        step.inputs[0] = TimeStep(whole.inputs[0], layout, t);
        std::vector<Tensor> out;
        ASSERT_TRUE(step.RunFast(&out).ok());
        for (int64_t b = 0; b < batch; ++b) {  // Y[t] is this run's Y_h
          const float* want =
              all[0].ptr<float>() + (layout == 0 ? t * batch + b : b * 9 + t) * hidden;
          EXPECT_EQ(std::memcmp(out[1].ptr<float>() + b * hidden, want, hidden * sizeof(float)), 0)
              << op << " layout " << layout << " step " << t << " batch " << b;
        }
        step.inputs[5] = out[1];
        if (op == "LSTM") step.inputs[6] = out[2];
      }
      ExpectBitwiseEqual(step.inputs[5], all[1], op + " final Y_h");
      if (op == "LSTM") ExpectBitwiseEqual(step.inputs[6], all[2], "LSTM final Y_c");
    }
  }
}

TEST(Rnn, EmptyDimensions) {
  // seq 0: Y is empty and Y_h is initial_h.
  RnnCase none = RandomRnnCase("LSTM", 5, 7, 2, 0, "bidirectional", 0, 900);
  std::vector<Tensor> out;
  ASSERT_TRUE(none.RunFast(&out).ok());
  EXPECT_EQ(out[0].shape, (Shape{0, 2, 2, 5}));
  ExpectBitwiseEqual(out[1], none.inputs[5], "Y_h without steps");
  ExpectBitwiseEqual(out[2], none.inputs[6], "Y_c without steps");
  // input 0: the gates are the biases and the recurrence alone.
  RnnCase no_input = RandomRnnCase("GRU", 5, 0, 3, 4, "reverse", 1, 910);
  ASSERT_TRUE(no_input.RunFast(&out).ok());
  ExpectAllClose(out, no_input.RunReference(), 1e-5f, "GRU with input size 0");
  // batch 0.
  RnnCase no_batch = RandomRnnCase("RNN", 5, 7, 0, 4, "forward", 0, 920);
  ASSERT_TRUE(no_batch.RunFast(&out).ok());
  EXPECT_EQ(out[0].shape, (Shape{4, 1, 0, 5}));
}

// GRU-1 had no linear_before_reset, versions before 14 no layout: both are ignored there.
TEST(Rnn, OlderVersionsIgnoreLaterAttributes) {
  RnnCase c = RandomRnnCase("GRU", 5, 7, 3, 4, "forward", 0, 950);
  c.attrs.erase("layout");
  std::vector<Tensor> want, got;
  c.opset = 3;
  ASSERT_TRUE(c.RunFast(&want).ok());
  c.opset = 1;
  c.attrs["linear_before_reset"] = IntAttr(1);
  c.attrs["output_sequence"] = IntAttr(1);
  ASSERT_TRUE(c.RunFast(&got).ok());
  ExpectBitwiseEqual(got[0], want[0], "GRU-1");
  c.opset = 7;
  c.attrs.erase("linear_before_reset");
  c.attrs.erase("output_sequence");
  c.attrs["layout"] = IntAttr(1);
  ASSERT_TRUE(c.RunFast(&got).ok());
  ExpectBitwiseEqual(got[0], want[0], "GRU-7 with a layout attribute");
}

}  // namespace
}  // namespace webnx::testing
