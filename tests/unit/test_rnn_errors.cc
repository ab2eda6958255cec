// RNN, GRU and LSTM: the activation functions' parsing and vector paths, coded errors naming
// the node, and packed weights in a session.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kernels/rnn_activations.h"
#include "kernels/simd/tanh.h"
#include "tests/unit/model_builder.h"
#include "tests/unit/rnn_test_case.h"

namespace webnx::testing {
namespace {

using rnn::Activation;

TEST(RnnActivations, AlphasAndBetasAreConsumedInOrderWithDefaults) {
  std::vector<Activation> parsed;
  std::string error;
  ASSERT_TRUE(rnn::ParseActivations({"Sigmoid", "leakyrelu", "HardSigmoid", "Elu", "Affine"},
                                    {0.3f, 0.4f}, {0.9f}, &parsed, &error));
  ASSERT_EQ(parsed.size(), 5u);
  EXPECT_EQ(parsed[1].kind, Activation::Kind::kLeakyRelu);
  EXPECT_EQ(parsed[1].alpha, 0.3f);
  EXPECT_EQ(parsed[2].alpha, 0.4f);
  EXPECT_EQ(parsed[2].beta, 0.9f);
  EXPECT_EQ(parsed[3].alpha, 1.f);  // Elu's default
  EXPECT_EQ(parsed[4].alpha, 1.f);  // Affine's defaults
  EXPECT_EQ(parsed[4].beta, 0.f);
  EXPECT_FALSE(rnn::ParseActivations({"Tanh", "Swish"}, {}, {}, &parsed, &error));
  EXPECT_NE(error.find("'Swish'"), std::string::npos) << error;
}

TEST(RnnActivations, VectorPathsMatchTheScalarDefinitions) {
  const std::vector<float> x = RandomFloats(203, 5, -12.f, 12.f);
  for (int kind = 0; kind <= static_cast<int>(Activation::Kind::kSoftplus); ++kind) {
    const Activation a{static_cast<Activation::Kind>(kind), 0.7f, 0.3f};
    std::vector<float> y = x;
    rnn::ApplyInPlace(a, y.data(), static_cast<int>(y.size()));
    for (size_t i = 0; i < x.size(); ++i) {
      const float want = rnn::ApplyScalar(a, x[i]);
      EXPECT_NEAR(y[i], want, 3e-7f * std::max(1.f, std::fabs(want)))
          << "kind " << kind << " at x = " << x[i];
    }
  }
}

TEST(RnnActivations, TanhIsWithinAFewUlps) {
  std::vector<float> x;
  for (float v = -20.f; v <= 20.f; v += 0.00731f) x.push_back(v);
  for (float v : {0.f, -0.f, 1e-30f, -1e-7f, 0.4999f, 0.5f, 0.5001f, 9.f, 1e30f}) x.push_back(v);
  std::vector<float> y(x.size());
  simd::Tanh(x.data(), y.data(), static_cast<int64_t>(x.size()));
  for (size_t i = 0; i < x.size(); ++i) {
    const double want = std::tanh(static_cast<double>(x[i]));
    EXPECT_LE(std::fabs(y[i] - want), 2.5e-7 * std::fabs(want) + 1e-38) << "x = " << x[i];
  }
  const float nan = std::numeric_limits<float>::quiet_NaN();
  float edge[] = {nan, INFINITY, -INFINITY};
  simd::Tanh(edge, edge, 3);
  EXPECT_TRUE(std::isnan(edge[0]));
  EXPECT_EQ(edge[1], 1.f);
  EXPECT_EQ(edge[2], -1.f);
}

// Runs `c` and expects a coded error that names the node and says `what`.
void ExpectError(const RnnCase& c, ErrorCode code, const std::string& what) {
  std::vector<Tensor> out;
  const Status s = c.RunFast(&out);
  ASSERT_FALSE(s.ok()) << what;
  EXPECT_EQ(s.code(), code) << s.ToString();
  EXPECT_NE(s.message().find("test_" + c.op), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find(what), std::string::npos) << s.ToString();
}

TEST(RnnErrors, BadAttributes) {
  const RnnCase good = RandomRnnCase("LSTM", 5, 7, 3, 4, "forward", 0, 1);
  RnnCase c = good;
  c.attrs["activations"] = StringsAttr({"Sigmoid", "Tanh", "Gelu"});
  ExpectError(c, ErrorCode::kMalformedModel, "unknown activation function 'Gelu'");
  c.attrs["activations"] = StringsAttr({"Sigmoid", "Tanh"});
  ExpectError(c, ErrorCode::kMalformedModel, "lists 2 functions; LSTM takes 3 per direction");
  c = good;
  c.attrs["activations"] = StringAttr("Tanh");
  ExpectError(c, ErrorCode::kMalformedModel, "'activations' must be a list of strings");
  c = good;
  c.attrs["direction"] = StringAttr("sideways");
  ExpectError(c, ErrorCode::kMalformedModel, "'direction' must be forward, reverse or");
  c = good;
  c.attrs["layout"] = IntAttr(2);
  ExpectError(c, ErrorCode::kMalformedModel, "'layout' must be 0 or 1, got 2");
  c = good;
  c.attrs["clip"] = FloatAttr(-1.f);
  ExpectError(c, ErrorCode::kMalformedModel, "'clip' must be positive");
  c = good;
  c.attrs["hidden_size"] = IntAttr(0);
  ExpectError(c, ErrorCode::kMalformedModel, "'hidden_size' must be positive");
  RnnCase gru = RandomRnnCase("GRU", 5, 7, 3, 4, "bidirectional", 0, 2);
  gru.attrs["activations"] = StringsAttr({"Sigmoid", "Tanh", "Sigmoid"});
  ExpectError(gru, ErrorCode::kMalformedModel, "lists 3 functions; GRU takes 2 per direction");
}

TEST(RnnErrors, ShapesAgainstHiddenSizeAndDirections) {
  const RnnCase good = RandomRnnCase("LSTM", 5, 7, 3, 4, "forward", 0, 3);
  RnnCase c = good;
  c.attrs["hidden_size"] = IntAttr(6);
  ExpectError(c, ErrorCode::kShapeMismatch, "input 'W' has shape [1,20,7], expected [1,24,7]");
  c = good;
  c.attrs["direction"] = StringAttr("bidirectional");
  ExpectError(c, ErrorCode::kShapeMismatch, "input 'W' has shape [1,20,7], expected [2,20,7]");
  c = good;
  c.inputs[2] = RandomFloat({1, 20, 4}, 4);
  c.attrs.erase("hidden_size");
  ExpectError(c, ErrorCode::kShapeMismatch, "input 'W' has shape [1,20,7], expected [1,16,7]");
  c = good;
  c.inputs[3] = RandomFloat({1, 20}, 5);
  ExpectError(c, ErrorCode::kShapeMismatch, "input 'B' has shape [1,20], expected [1,40]");
  c = good;
  c.inputs[5] = RandomFloat({1, 5, 3}, 6);
  ExpectError(c, ErrorCode::kShapeMismatch, "input 'initial_h' has shape [1,5,3]");
  c = good;
  c.inputs[6] = RandomFloat({1, 3, 4}, 6);
  ExpectError(c, ErrorCode::kShapeMismatch, "input 'initial_c' has shape [1,3,4]");
  c = good;
  c.inputs[7] = RandomFloat({1, 10}, 7);
  ExpectError(c, ErrorCode::kShapeMismatch, "input 'P' has shape [1,10], expected [1,15]");
  c = good;
  c.inputs[4] = MakeInt32({2}, {1, 1});
  ExpectError(c, ErrorCode::kShapeMismatch, "input 'sequence_lens' has shape [2]");
  c = good;
  c.inputs[4] = MakeInt64({3}, {1, 1, 1});
  ExpectError(c, ErrorCode::kUnsupportedDtype, "is int64, expected int32");
  c = good;
  c.inputs[0] = RandomFloat({4, 21}, 8);
  ExpectError(c, ErrorCode::kShapeMismatch, "input 'X' has shape [4,21], expected rank 3");
}

TEST(RnnErrors, SequenceLensOutOfRangeWhenRunning) {
  for (const std::string op : {"RNN", "GRU", "LSTM"}) {
    RnnCase c = RandomRnnCase(op, 5, 7, 3, 4, "reverse", 1, 9);
    c.inputs[4] = MakeInt32({3}, {4, 5, 1});
    ExpectError(c, ErrorCode::kInvalidInput, "sequence_lens[1] is 5, outside [0, 4]");
    c.inputs[4] = MakeInt32({3}, {4, 0, -1});
    ExpectError(c, ErrorCode::kInvalidInput, "sequence_lens[2] is -1, outside [0, 4]");
  }
}

// An LSTM and a GRU whose W and R only they read: packed once, in the weights' own storage when
// the panels fit it (hidden 8) and beside them otherwise (hidden 5), across two plans.
TEST(RnnSession, PackedWeightsMatchTheReference) {
  for (const std::string op : {"LSTM", "GRU"}) {
    for (int64_t hidden : {5, 8}) {
      RnnCase c = RandomRnnCase(op, hidden, 6, 2, 3, "bidirectional", 0, 60);
      c.inputs[5] = Tensor();
      c.inputs[6] = Tensor();
      ModelBuilder mb(14);
      mb.Input("X", kOnnxFloat, {"T", 2, 6});
      const char* names[] = {"X", "W", "R", "B"};
      for (int i = 1; i < 4; ++i) {
        const Tensor& t = c.inputs[i];
        mb.FloatInit(names[i], t.shape,
                     std::vector<float>(t.ptr<float>(), t.ptr<float>() + t.numel()));
      }
      NodeRef node = mb.Node(op, {"X", "W", "R", "B"}, {"Y", "Y_h"}, "cell");
      node.String("direction", "bidirectional").Int("hidden_size", hidden);
      mb.Output("Y", kOnnxFloat, {"T", 2, 2, hidden});
      mb.Output("Y_h", kOnnxFloat, {2, 2, hidden});
      std::unique_ptr<Session> session;
      ASSERT_TRUE(CreateSession(mb.Bytes(), &session).ok());
      for (int64_t seq : {3, 5, 3}) {
        c.inputs[0] = RandomFloat({seq, 2, 6}, static_cast<uint32_t>(seq));
        std::vector<const Tensor*> outputs;
        Status s = session->Run({{"X", c.inputs[0]}}, &outputs);
        ASSERT_TRUE(s.ok()) << s.ToString();
        std::vector<Tensor> want = c.RunReference();
        want.resize(2);
        ExpectAllClose({*outputs[0], *outputs[1]}, want, 1e-5f,
                       op + " hidden " + std::to_string(hidden));
      }
      EXPECT_EQ(session->stats().plans_built, 2u);
      if (hidden == 8) {
        EXPECT_GT(session->stats().packed_in_place_bytes, 0u) << op;
      } else {
        EXPECT_GT(session->stats().packed_weight_bytes, 0u) << op;
      }
    }
  }
}

// Y and Y_h left out (""), as the ONNX node tests and TensorFlow exports do: Y_c alone.
TEST(RnnSession, OmittedOutputs) {
  RnnCase c = RandomRnnCase("LSTM", 5, 4, 2, 3, "reverse", 1, 70);
  ModelBuilder mb(22);
  mb.Input("X", kOnnxFloat, {2, 3, 4});
  const char* names[] = {"X", "W", "R", "B", "", "h0", "c0"};
  for (int i : {1, 2, 3, 5, 6}) {
    const Tensor& t = c.inputs[i];
    mb.FloatInit(names[i], t.shape, std::vector<float>(t.ptr<float>(), t.ptr<float>() + t.numel()));
  }
  mb.Node("LSTM", {"X", "W", "R", "B", "", "h0", "c0"}, {"", "", "Y_c"}, "cell")
      .String("direction", "reverse")
      .Int("hidden_size", 5)
      .Int("layout", 1);
  mb.Output("Y_c", kOnnxFloat, {2, 1, 5});
  std::unique_ptr<Session> session;
  Status s = CreateSession(mb.Bytes(), &session);
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::vector<const Tensor*> outputs;
  s = session->Run({{"X", c.inputs[0]}}, &outputs);
  ASSERT_TRUE(s.ok()) << s.ToString();
  const std::vector<Tensor> want = c.RunReference();
  ExpectAllClose({*outputs[0]}, {want[2]}, 1e-5f, "Y_c alone");
}

}  // namespace
}  // namespace webnx::testing
