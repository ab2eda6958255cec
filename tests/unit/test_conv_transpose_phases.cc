// ConvTranspose's phase path (a constant W: kernels/conv_transpose_phases.h): the layout of taps
// per phase, the path against the scalar reference on odd shapes (strides 2 and 3, kernels 3-5,
// asymmetric pads, output_padding, dilations, groups, batch 2, odd channel counts, phases no tap
// reaches, blocks of columns within a row, 1-D and 3-D, 1 and 2 threads), and clamps and
// activations fused into both GEMM paths in a session, equal to the unfused nodes.
#include <gtest/gtest.h>

#include <memory>

#include "kernels/conv_transpose_phase_layout.h"
#include "tests/unit/conv_transpose_testing.h"
#include "tests/unit/model_builder.h"

namespace webnx {
namespace {

using conv_transpose::MakePhaseLayout;
using conv_transpose::PhaseLayout;
using namespace conv_transpose_testing;       // NOLINT: the shared cases and checks
using Attrs = conv_transpose_testing::Attrs;  // not webnx::Attrs

TEST(ConvTransposePhases, LayoutGroupsTapsByResidue) {
  PhaseLayout l;
  // Kernel 4, stride 2: residue 0 holds taps 0 and 2 (read 2 first), residue 1 taps 1 and 3.
  ASSERT_TRUE(MakePhaseLayout({6, 4, 4, 4}, 2, {2, 2}, {1, 1}, &l));
  EXPECT_EQ(l.phases, 4);
  EXPECT_EQ(l.group_in, 3);
  EXPECT_EQ(l.axes[2].taps, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(l.axes[2].last_tap, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(l.axes[2].tap_step, 2);
  EXPECT_EQ(l.axes[0].taps, (std::vector<int64_t>{1}));  // the unit axis before a 2-D kernel
  EXPECT_EQ(l.depth, (std::vector<int64_t>{12, 12, 12, 12}));
  // Four output channels a group: the packed form is W's size (it may be packed over W).
  EXPECT_EQ(l.total_floats, 6u * 4 * 4 * 4);

  // Kernel 5, stride 3, dilation 2: k * 2 mod 3 puts taps {0, 3}, {2}, {1, 4} in residues 0-2,
  // every third tap, reading inputs 2 apart.
  ASSERT_TRUE(MakePhaseLayout({1, 1, 5}, 1, {3}, {2}, &l));
  EXPECT_EQ(l.axes[2].taps, (std::vector<int64_t>{2, 1, 2}));
  EXPECT_EQ(l.axes[2].last_tap, (std::vector<int64_t>{3, 2, 4}));
  EXPECT_EQ(l.axes[2].tap_step, 3);
  EXPECT_EQ(l.axes[2].sub_dilation, 2);
  // Dilation 2, stride 2: every tap in residue 0, none in residue 1 (bias only there).
  ASSERT_TRUE(MakePhaseLayout({1, 1, 3}, 1, {2}, {2}, &l));
  EXPECT_EQ(l.axes[2].taps, (std::vector<int64_t>{3, 0}));
  EXPECT_EQ(l.axes[2].sub_dilation, 1);
  EXPECT_EQ(l.depth[1], 0);

  // Not taken: 4 spatial axes, more than 64 phases, a group count W's channels do not allow.
  EXPECT_FALSE(MakePhaseLayout({1, 1, 2, 2, 2, 2}, 1, {2, 2, 2, 2}, {1, 1, 1, 1}, &l));
  EXPECT_FALSE(MakePhaseLayout({1, 1, 3, 3}, 1, {9, 8}, {1, 1}, &l));
  EXPECT_FALSE(MakePhaseLayout({3, 1, 3, 3}, 2, {2, 2}, {1, 1}, &l));
  EXPECT_FALSE(MakePhaseLayout({2, 2, 3}, 1, {2, 2}, {1}, &l));  // strides of another rank
}

TEST(ConvTransposePhases, MatchReference) {
  const std::vector<Case> cases = {
      // The decoder's layers (kernel 4, stride 2, pad 1), smaller.
      {1, 16, 8, 1, {9, 10}, {4, 4}, {2, 2}, {1, 1}, {1, 1, 1, 1}, {0, 0}, true},
      {2, 64, 32, 1, {5, 4}, {4, 4}, {2, 2}, {1, 1}, {1, 1, 1, 1}, {0, 0}, true},
      // Stride 3, kernels 5 and 3, asymmetric pads, output_padding, odd channels.
      {2, 5, 7, 1, {6, 7}, {5, 3}, {3, 3}, {1, 1}, {2, 0, 1, 3}, {2, 1}, true},
      {1, 3, 5, 1, {7, 5}, {3, 5}, {3, 2}, {1, 1}, {0, 2, 2, 0}, {1, 1}, false},
      // Stride 2, kernel 3 (phases of 2 and 1 taps), kernel 5 with pads larger than 1.
      {2, 7, 3, 1, {8, 6}, {3, 3}, {2, 2}, {1, 1}, {1, 0, 0, 1}, {1, 1}, true},
      {1, 3, 7, 1, {6, 9}, {5, 5}, {2, 2}, {1, 1}, {3, 2, 1, 4}, {0, 1}, true},
      // Groups: 3 of (2 in, 3 out), 7 of one each way, 2 of (5 in, 6 out) with stride 3.
      {2, 6, 9, 3, {6, 5}, {4, 3}, {2, 3}, {1, 1}, {1, 1, 0, 2}, {1, 0}, true},
      {2, 7, 7, 7, {5, 5}, {4, 4}, {2, 2}, {1, 1}, {1, 2, 2, 1}, {0, 1}, true},
      {1, 10, 12, 2, {4, 6}, {3, 4}, {3, 2}, {1, 1}, {0, 1, 2, 1}, {2, 1}, false},
      // Dilations: 2 with stride 2 (every other output phase bias only), 2 with stride 3.
      {1, 3, 5, 1, {5, 6}, {3, 3}, {2, 2}, {2, 2}, {1, 1, 0, 2}, {1, 0}, true},
      {2, 5, 3, 1, {4, 5}, {5, 3}, {3, 3}, {2, 2}, {2, 1, 1, 2}, {2, 0}, true},
      // Kernels shorter than the stride: outputs no tap reaches, bias only.
      {1, 3, 5, 1, {4, 5}, {1, 2}, {2, 3}, {1, 1}, {0, 0, 0, 0}, {1, 2}, true},
      // Pads past the kernel's reach and a stride-1 axis beside a stride-3 one.
      {1, 5, 3, 1, {5, 4}, {3, 3}, {1, 3}, {1, 1}, {2, 3, 2, 3}, {0, 2}, true},
      // Row phases over whole rows (W stride 1), and rows of 8 + 7 columns (W stride 2).
      {2, 3, 5, 1, {5, 6}, {4, 3}, {3, 1}, {1, 1}, {1, 1, 2, 0}, {2, 0}, true},
      {1, 3, 5, 1, {4, 7}, {3, 3}, {2, 2}, {1, 1}, {0, 0, 0, 0}, {0, 0}, true},
      // Stride 1: one phase, the GEMM writing the output in place.
      {2, 5, 7, 1, {6, 7}, {3, 4}, {1, 1}, {1, 1}, {1, 2, 0, 1}, {0, 0}, true},
      // Many output channels: chunks of them over two threads, a short last chunk.
      {1, 3, 21, 1, {5, 6}, {4, 4}, {2, 2}, {1, 1}, {1, 1, 1, 1}, {0, 0}, true},
      // 1-D and 3-D.
      {2, 3, 5, 1, {17}, {5}, {3}, {2}, {2, 3}, {1}, true},
      {2, 5, 3, 1, {9}, {4}, {2}, {1}, {1, 2}, {1}, false},
      {2, 3, 4, 1, {3, 4, 5}, {2, 3, 2}, {2, 1, 3}, {1, 2, 1}, {1, 0, 1, 0, 1, 0}, {1, 0, 2}, true},
      {1, 4, 6, 2, {3, 4, 3}, {4, 3, 3}, {2, 2, 3}, {1, 1, 1}, {1, 1, 0, 1, 2, 1}, {0, 1, 2}, true},
  };
  CheckCasesAgainstReference(cases, 100);
}

// Planes wider than a block of GEMM columns: a row's phase columns in several blocks.
TEST(ConvTransposePhases, WideRowsInColumnBlocks) {
  const std::vector<Case> cases = {
      {1, 3, 5, 1, {2500}, {4}, {2}, {1}, {1, 1}, {0}, true},
      {1, 2, 3, 1, {3, 1100}, {3, 4}, {2, 2}, {1, 1}, {1, 1, 0, 2}, {1, 1}, true},
      {2, 4, 4, 1, {2, 2100}, {1, 3}, {1, 1}, {1, 1}, {0, 1, 0, 0}, {0, 0}, false},
  };
  CheckCasesAgainstReference(cases, 200);
}

// output_shape past the full result: negative pads, margins of outputs only the bias reaches.
TEST(ConvTransposePhases, OutputShapeBeyondTheFullResult) {
  const Tensor x = RandomFloat({2, 3, 4, 5}, 41);
  const Tensor w = RandomFloat({3, 2, 3, 3}, 42);
  const Tensor b = RandomFloat({2}, 43);
  // Full result 9 x 11; 15 x 18 splits the extra 6 as 3 + 3, 7 as 3 before + 4 after.
  const Case cc{2, 3, 2, 1, {4, 5}, {3, 3}, {2, 2}, {1, 1}, {-3, -3, -3, -4}, {0, 0}, true};
  ExpectKernel({x, w, b}, {{"strides", IntsAttr({2, 2})}, {"output_shape", IntsAttr({15, 18})}},
               Reference(x, w, &b, cc));
}

// A ConvTranspose [1, 5, 6, 7] -> [1, 4, ...] (W an initializer, or a graph input: the phase or
// the GEMM path), then `after` (Relu, Clip, Sigmoid...) reading it as its only input.
struct FusedModel {
  Case cc;
  std::string after;
  std::vector<float> clip;   // Clip's min and max
  bool w_input = false;      // W fed at run time
  bool expose_conv = false;  // the conv's output a graph output too: nothing fuses

  std::string Bytes(const Tensor& w, const Tensor& b) const {
    testing::ModelBuilder mb(13);
    mb.Input("X", testing::kOnnxFloat, {1, 5, 6, 7});
    if (w_input) {
      mb.Input("W", testing::kOnnxFloat, {5, 4, cc.kernel[0], cc.kernel[1]});
    } else {
      mb.FloatInit("W", w.shape, std::vector<float>(w.ptr<float>(), w.ptr<float>() + w.numel()));
    }
    mb.FloatInit("B", {4}, std::vector<float>(b.ptr<float>(), b.ptr<float>() + 4));
    mb.Node("ConvTranspose", {"X", "W", "B"}, {"Y"}, "up")
        .Ints("kernel_shape", cc.kernel)
        .Ints("strides", cc.strides)
        .Ints("pads", cc.pads)
        .Ints("output_padding", cc.output_padding);
    std::vector<std::string> inputs = {"Y"};
    if (!clip.empty()) {
      mb.FloatInit("lo", {}, {clip[0]});
      mb.FloatInit("hi", {}, {clip[1]});
      inputs = {"Y", "lo", "hi"};
    }
    mb.Node(after, inputs, {"Z"}, "act");
    mb.Output("Z", testing::kOnnxFloat, {1, 4, "H", "W"});
    if (expose_conv) mb.Output("Y", testing::kOnnxFloat, {1, 4, "H", "W"});
    return mb.Bytes();
  }
};

// Z from the model, and how many nodes the plan fused.
void RunModel(const FusedModel& model, int threads, const Tensor& x, const Tensor& w,
              const Tensor& b, Tensor* z, size_t* fused) {
  SessionOptions options;
  options.num_threads = threads;
  std::unique_ptr<Session> session;
  Status s = testing::CreateSession(model.Bytes(w, b), &session, options);
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::vector<NamedTensor> feeds = {{"X", x}};
  if (model.w_input) feeds.push_back({"W", w});
  std::vector<const Tensor*> outputs;
  s = session->Run(feeds, &outputs);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_TRUE(outputs[0]->Clone(z).ok());  // the session's arena goes with it
  *fused = session->stats().last_plan.fused_nodes;
}

// One check of FusesClampsAndActivations.
void ExpectFusedEqualsPlain(const FusedModel& fused_model, int threads, const Tensor& x,
                            const Tensor& w, const Tensor& b) {
  FusedModel model = fused_model;
  Tensor fused_z, plain_z;
  size_t fused = 0, plain = 0;
  RunModel(model, threads, x, w, b, &fused_z, &fused);
  model.expose_conv = true;
  RunModel(model, threads, x, w, b, &plain_z, &plain);
  EXPECT_EQ(fused, 1u);
  EXPECT_EQ(plain, 0u);
  ASSERT_EQ(fused_z.shape, plain_z.shape);
  for (int64_t i = 0; i < plain_z.numel(); ++i)
    ASSERT_EQ(fused_z.ptr<float>()[i], plain_z.ptr<float>()[i]) << "at " << i;
}

TEST(ConvTransposePhases, FusesClampsAndActivations) {
  // Kernel 3x4; kernel 3x1 (stride 2: every other column is the bias alone); stride 1.
  const std::vector<Case> convs = {
      {1, 5, 4, 1, {6, 7}, {3, 4}, {2, 2}, {1, 1}, {1, 0, 0, 1}, {1, 0}, true},
      {1, 5, 4, 1, {6, 7}, {3, 1}, {2, 2}, {1, 1}, {1, 0, 0, 0}, {1, 1}, true},
      {1, 5, 4, 1, {6, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, {0, 0}, true},
  };
  const Tensor x = RandomFloat({1, 5, 6, 7}, 31);
  const Tensor b = RandomFloat({4}, 33);
  struct After {
    std::string op;
    std::vector<float> clip;
  };
  // Clip's bounds inside the outputs' range: some clamp low, some high, some are the bias alone.
  const std::vector<After> afters = {
      {"Relu", {}}, {"Clip", {-0.3f, 0.4f}}, {"Sigmoid", {}}, {"HardSigmoid", {}}};
  for (size_t c = 0; c < convs.size(); ++c) {
    const Tensor w = RandomFloat({5, 4, convs[c].kernel[0], convs[c].kernel[1]}, 32);
    for (const After& after : afters) {
      for (bool w_input : {false, true}) {
        for (int threads : {1, 2}) {
          SCOPED_TRACE("conv " + std::to_string(c) + ", " + after.op +
                       (w_input ? ", runtime W" : ", constant W") + ", threads " +
                       std::to_string(threads));
          FusedModel model{convs[c], after.op, after.clip, w_input, false};
          ExpectFusedEqualsPlain(model, threads, x, w, b);
        }
      }
    }
  }
}

}  // namespace
}  // namespace webnx
