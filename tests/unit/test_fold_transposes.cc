// Transposes folded at load (core/passes/fold_transposes.cc): an NHWC export's convs run with no
// transpose between them, and the outputs are those of the NCHW graph.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "tests/unit/model_builder.h"
#include "tests/unit/op_runner.h"

namespace webnx::testing {
namespace {

constexpr int64_t kC = 8, kH = 5, kW = 6;

// conv1 -> relu -> conv2 (+ x), NCHW, or NHWC with a Transpose around each conv.
std::string Model(bool nhwc) {
  ModelBuilder mb;
  mb.Input("X", kOnnxFloat, nhwc ? std::vector<D>{1, kH, kW, kC} : std::vector<D>{1, kC, kH, kW});
  mb.FloatInit("W1", {kC, kC, 1, 1}, RandomFloats(kC * kC, 1));
  mb.FloatInit("W2", {kC, kC, 3, 3}, RandomFloats(kC * kC * 9, 2));
  std::string x = "X";
  const auto conv = [&](const std::string& w, const std::string& out, int64_t k) {
    std::string in = x;
    if (nhwc) {
      mb.Node("Transpose", {x}, {out + "_in"}, out + "_to_nchw").Ints("perm", {0, 3, 1, 2});
      in = out + "_in";
    }
    const std::string y = nhwc ? out + "_nchw" : out;
    mb.Node("Conv", {in, w}, {y}, out)
        .Ints("kernel_shape", {k, k})
        .Ints("pads", {k / 2, k / 2, k / 2, k / 2});
    if (nhwc) mb.Node("Transpose", {y}, {out}, out + "_to_nhwc").Ints("perm", {0, 2, 3, 1});
  };
  conv("W1", "c1", 1);
  mb.Node("Relu", {"c1"}, {"r"}, "relu");
  // A per-channel bias, and a scale over (W, C) given first: constants the transposes move
  // past (each layout's constants hold the same numbers in its own order).
  const std::vector<float> bias = RandomFloats(kC, 3), scale = RandomFloats(kW * kC, 4);
  if (nhwc) {
    mb.FloatInit("bias", {kC}, bias);
    mb.FloatInit("scale", {1, kW, kC}, scale);
  } else {
    std::vector<float> scale_nchw(kW * kC);
    for (int64_t w = 0; w < kW; ++w)
      for (int64_t c = 0; c < kC; ++c) scale_nchw[c * kW + w] = scale[w * kC + c];
    mb.FloatInit("bias", {kC, 1, 1}, bias);
    mb.FloatInit("scale", {kC, 1, kW}, scale_nchw);
  }
  mb.Node("Add", {"r", "bias"}, {"rb"}, "add_bias");
  mb.Node("Mul", {"scale", "rb"}, {"rs"}, "scale");
  x = "rs";
  conv("W2", "c2", 3);
  mb.Node("Add", {"c2", "X"}, {"s"}, "residual");
  mb.Node("Sigmoid", {"s"}, {"Y"}, "sigmoid");
  mb.Output("Y", kOnnxFloat, nhwc ? std::vector<D>{1, kH, kW, kC} : std::vector<D>{1, kC, kH, kW});
  return mb.Bytes();
}

TEST(FoldTransposes, AnNhwcExportRunsItsConvsWithoutTransposesBetweenThem) {
  std::unique_ptr<Session> nchw, nhwc;
  ASSERT_TRUE(CreateSession(Model(false), &nchw).ok());
  ASSERT_TRUE(CreateSession(Model(true), &nhwc).ok());
  // Left: the input's transpose to NCHW and the output's back to NHWC.
  EXPECT_EQ(nhwc->stats().graph_nodes, nchw->stats().graph_nodes + 2);
  const Tensor x = RandomFloat({1, kC, kH, kW}, 9);
  Tensor x_nhwc = RandomFloat({1, kH, kW, kC}, 0);
  for (int64_t c = 0; c < kC; ++c)
    for (int64_t p = 0; p < kH * kW; ++p)
      x_nhwc.ptr<float>()[p * kC + c] = x.ptr<float>()[c * kH * kW + p];
  std::vector<const Tensor*> want, got;
  ASSERT_TRUE(nchw->Run({NamedTensor{"X", x}}, &want).ok());
  ASSERT_TRUE(nhwc->Run({NamedTensor{"X", x_nhwc}}, &got).ok());
  for (int64_t c = 0; c < kC; ++c)
    for (int64_t p = 0; p < kH * kW; ++p)
      ASSERT_EQ(got[0]->ptr<float>()[p * kC + c], want[0]->ptr<float>()[c * kH * kW + p]);
}

// A pair that cancels right before a graph output: the node before it writes the output.
TEST(FoldTransposes, APairThatCancelsIntoAGraphOutputGoes) {
  ModelBuilder mb;
  mb.Input("X", kOnnxFloat, {1, kC, kH, kW});
  mb.Node("Relu", {"X"}, {"r"}, "relu");
  mb.Node("Transpose", {"r"}, {"t"}, "to_nhwc").Ints("perm", {0, 2, 3, 1});
  mb.Node("Transpose", {"t"}, {"Y"}, "to_nchw").Ints("perm", {0, 3, 1, 2});
  mb.Output("Y", kOnnxFloat, {1, kC, kH, kW});
  std::unique_ptr<Session> session;
  ASSERT_TRUE(CreateSession(mb.Bytes(), &session).ok());
  EXPECT_EQ(session->stats().graph_nodes, 1u);
  const Tensor x = RandomFloat({1, kC, kH, kW}, 3);
  std::vector<const Tensor*> y;
  ASSERT_TRUE(session->Run({NamedTensor{"X", x}}, &y).ok());
  ASSERT_EQ(y[0]->shape, x.shape);
  for (int64_t i = 0; i < x.numel(); ++i)
    ASSERT_EQ(y[0]->ptr<float>()[i], std::max(x.ptr<float>()[i], 0.f));
}

}  // namespace
}  // namespace webnx::testing
