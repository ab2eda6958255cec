// ConvTranspose: hand-checked cases (the ONNX examples and a few of our own, through both the
// kernel and the scalar reference), the GEMM path (runtime W) and the phase path (constant W)
// against the reference on odd shapes (groups, strides, dilations, pads, output_padding,
// 1-D/2-D/3-D, bias, batch, 1 and 2 threads), W packed over itself in a session, and error codes.
// More of the phase path: test_conv_transpose_phases.cc.
#include <gtest/gtest.h>

#include "tests/unit/conv_transpose_testing.h"
#include "tests/unit/model_builder.h"

namespace webnx {
namespace {

using namespace conv_transpose_testing;       // NOLINT: the shared cases and checks
using Attrs = conv_transpose_testing::Attrs;  // not webnx::Attrs
using testing::StringAttr;

// A hand-checked case: the kernel under `attrs`, and the reference as `cc` describes it.
void ExpectHandChecked(const std::vector<Tensor>& inputs, const Attrs& attrs, const Case& cc,
                       const Tensor& want) {
  ExpectKernel(inputs, attrs, want);
  const Tensor* b = inputs.size() > 2 ? &inputs[2] : nullptr;
  SCOPED_TRACE("reference");
  ExpectAllNear(Reference(inputs[0], inputs[1], b, cc), want);
}

Tensor TwoChannels(const Shape& shape, const std::vector<float>& channel) {
  std::vector<float> both = channel;
  both.insert(both.end(), channel.begin(), channel.end());
  return MakeFloat(shape, both);
}

// The ONNX examples: X a 3x3 ramp, W ones [1, 2, 3, 3].
TEST(ConvTranspose, OnnxExamples) {
  const Tensor x = MakeFloat({1, 1, 3, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8});
  const Tensor w = MakeFloat({1, 2, 3, 3}, std::vector<float>(18, 1.f));
  const Case plain{1, 1, 2, 1, {3, 3}, {3, 3}, {1, 1}, {1, 1}, {0, 0, 0, 0}, {0, 0}, false};
  ExpectHandChecked({x, w}, {}, plain,
                    TwoChannels({1, 2, 5, 5}, {0,  1,  3, 3,  2,  3,  8,  15, 12, 7,  9,  21, 36,
                                               27, 15, 9, 20, 33, 24, 13, 6,  13, 21, 15, 8}));

  const Case pads{1, 1, 2, 1, {3, 3}, {3, 3}, {3, 2}, {1, 1}, {1, 2, 1, 2}, {0, 0}, false};
  ExpectHandChecked({x, w}, {{"strides", IntsAttr({3, 2})}, {"pads", IntsAttr({1, 2, 1, 2})}}, pads,
                    TwoChannels({1, 2, 7, 3}, {1, 1, 3, 1, 1,  3, 7,  4,  9, 7, 4,
                                               9, 7, 4, 9, 13, 7, 15, 13, 7, 15}));

  // output_shape [10, 8], output_padding [1, 1] and both: the same 10x8, its last row and
  // column beyond every input's footprint.
  std::vector<float> tall;
  const std::vector<std::vector<float>> rows = {
      {0, 0, 1, 1, 3, 2, 2, 0}, {3, 3, 7, 4, 9, 5, 5, 0}, {6, 6, 13, 7, 15, 8, 8, 0}};
  for (const auto& row : rows)
    for (int r = 0; r < 3; ++r) tall.insert(tall.end(), row.begin(), row.end());
  tall.insert(tall.end(), 8, 0.f);
  const Tensor want_tall = TwoChannels({1, 2, 10, 8}, tall);
  const Case padded{1, 1, 2, 1, {3, 3}, {3, 3}, {3, 2}, {1, 1}, {0, 0, 0, 0}, {1, 1}, false};
  const Attrs strides = {{"strides", IntsAttr({3, 2})}};
  Attrs by_shape = strides, by_padding = strides, by_both = strides;
  by_shape["output_shape"] = IntsAttr({10, 8});
  by_padding["output_padding"] = IntsAttr({1, 1});
  by_both["output_shape"] = IntsAttr({10, 8});
  by_both["output_padding"] = IntsAttr({1, 1});
  by_both["kernel_shape"] = IntsAttr({3, 3});
  for (const Attrs& attrs : {by_shape, by_padding, by_both})
    ExpectHandChecked({x, w}, attrs, padded, want_tall);

  // SAME_UPPER, strides 2: 6x6, the one row and column of padding at the end.
  const Case same{1, 1, 2, 1, {3, 3}, {3, 3}, {2, 2}, {1, 1}, {0, 0, 1, 1}, {0, 0}, false};
  ExpectHandChecked(
      {x, w}, {{"auto_pad", StringAttr("SAME_UPPER")}, {"strides", IntsAttr({2, 2})}}, same,
      TwoChannels({1, 2, 6, 6}, {0, 0, 1, 1, 3, 2, 0, 0, 1,  1,  3,  2,  3, 3, 8,  5, 12, 7,
                                 3, 3, 7, 4, 9, 5, 9, 9, 20, 11, 24, 13, 6, 6, 13, 7, 15, 8}));
}

TEST(ConvTranspose, OnnxDilationsExample) {
  const Tensor x = MakeFloat({1, 1, 3, 3}, {3, 8, 1, 9, 5, 7, 3, 2, 6});
  const Tensor w = MakeFloat({1, 1, 2, 2}, {7, 2, 1, 9});
  const Case cc{1, 1, 1, 1, {3, 3}, {2, 2}, {1, 1}, {2, 2}, {0, 0, 0, 0}, {0, 0}, false};
  ExpectHandChecked({x, w}, {{"dilations", IntsAttr({2, 2})}}, cc,
                    MakeFloat({1, 1, 5, 5}, {21, 56, 13, 16, 2,  63, 35, 67, 10, 14, 24, 22, 76,
                                             76, 21, 9,  5,  88, 45, 63, 3,  2,  33, 18, 54}));
}

TEST(ConvTranspose, HandCheckedGroupsStrideAndBias) {
  // Two groups of one channel: channel 0 scatters x * [1, -1], channel 1 x * [2, 0.5], two
  // apart; then the bias.
  const Tensor x = MakeFloat({1, 2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor w = MakeFloat({2, 1, 2}, {1, -1, 2, 0.5f});
  const Tensor b = MakeFloat({2}, {10, 20});
  const Case cc{1, 2, 2, 2, {3}, {2}, {2}, {1}, {0, 0}, {0}, true};
  ExpectHandChecked({x, w, b}, {{"group", IntAttr(2)}, {"strides", IntsAttr({2})}}, cc,
                    MakeFloat({1, 2, 6}, {11, 9, 12, 8, 13, 7, 28, 22, 30, 22.5f, 32, 23}));
}

TEST(ConvTranspose, OutputShapeAndAutoPadSplitThePadding) {
  const Tensor x = MakeFloat({1, 1, 3}, {1, 2, 3});
  // A kernel of ones [1, 1, 1]: the full result is [1, 3, 6, 5, 3].
  const Tensor ones = MakeFloat({1, 1, 3}, {1, 1, 1});
  const Case full{1, 1, 1, 1, {3}, {3}, {1}, {1}, {0, 0}, {0}, false};
  // Total padding 2: one each side. Total 1: the odd one before, unless SAME_UPPER.
  ExpectHandChecked({x, ones}, {{"output_shape", IntsAttr({3})}},
                    {1, 1, 1, 1, {3}, {3}, {1}, {1}, {1, 1}, {0}, false},
                    MakeFloat({1, 1, 3}, {3, 6, 5}));
  ExpectHandChecked({x, ones}, {{"output_shape", IntsAttr({4})}},
                    {1, 1, 1, 1, {3}, {3}, {1}, {1}, {1, 0}, {0}, false},
                    MakeFloat({1, 1, 4}, {3, 6, 5, 3}));
  ExpectHandChecked(
      {x, ones}, {{"output_shape", IntsAttr({4})}, {"auto_pad", StringAttr("SAME_UPPER")}},
      {1, 1, 1, 1, {3}, {3}, {1}, {1}, {0, 1}, {0}, false}, MakeFloat({1, 1, 4}, {1, 3, 6, 5}));
  // output_shape may name N and M too.
  ExpectHandChecked({x, ones}, {{"output_shape", IntsAttr({1, 1, 5})}}, full,
                    MakeFloat({1, 1, 5}, {1, 3, 6, 5, 3}));
  // A 1-tap kernel, stride 2, SAME: 6 outputs from a full result of 5, total padding -1. The
  // spec's floor halves put the extra output first for SAME_UPPER, last for SAME_LOWER.
  const Tensor one = MakeFloat({1, 1, 1}, {1});
  const Attrs stride2 = {{"strides", IntsAttr({2})}};
  Attrs upper = stride2, lower = stride2;
  upper["auto_pad"] = StringAttr("SAME_UPPER");
  lower["auto_pad"] = StringAttr("SAME_LOWER");
  ExpectHandChecked({x, one}, upper, {1, 1, 1, 1, {3}, {1}, {2}, {1}, {-1, 0}, {0}, false},
                    MakeFloat({1, 1, 6}, {0, 1, 0, 2, 0, 3}));
  ExpectHandChecked({x, one}, lower, {1, 1, 1, 1, {3}, {1}, {2}, {1}, {0, -1}, {0}, false},
                    MakeFloat({1, 1, 6}, {1, 0, 2, 0, 3, 0}));
  // VALID: no padding, output_padding still adds.
  ExpectHandChecked({x, ones},
                    {{"auto_pad", StringAttr("VALID")},
                     {"strides", IntsAttr({2})},
                     {"output_padding", IntsAttr({1})}},
                    {1, 1, 1, 1, {3}, {3}, {2}, {1}, {0, 0}, {1}, false},
                    MakeFloat({1, 1, 8}, {1, 1, 3, 2, 5, 3, 3, 0}));
}

TEST(ConvTranspose, GemmPathMatchesReference) {
  const std::vector<Case> cases = {
      // 2-D: odd channels and sizes, stride 2, asymmetric pads, output_padding, batch 2.
      {2, 3, 5, 1, {7, 9}, {3, 3}, {2, 2}, {1, 1}, {1, 0, 2, 1}, {1, 0}, true},
      // Strides 3 and 2, dilations, a rectangular kernel.
      {1, 5, 7, 1, {5, 6}, {3, 2}, {3, 2}, {2, 1}, {0, 1, 1, 0}, {2, 1}, true},
      // Groups (2 in, 3 out channels each), dilation along W.
      {2, 6, 9, 3, {6, 5}, {3, 3}, {2, 1}, {1, 2}, {1, 1, 1, 1}, {1, 0}, false},
      // One channel per group each way, a 4x4 kernel.
      {2, 7, 7, 7, {5, 5}, {4, 4}, {2, 2}, {1, 1}, {1, 2, 2, 1}, {0, 1}, true},
      // Many output channels: chunks of them over two threads, a short last chunk.
      {1, 3, 21, 1, {9, 11}, {3, 3}, {1, 1}, {1, 1}, {0, 0, 0, 0}, {0, 0}, true},
      {1, 16, 26, 2, {5, 7}, {2, 2}, {2, 2}, {1, 1}, {0, 0, 0, 0}, {1, 1}, true},
      // A plane wider than one block of columns, blocks ending inside rows.
      {1, 2, 3, 1, {40, 50}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}, {0, 0}, true},
      {1, 3, 9, 1, {23, 29}, {7, 7}, {1, 1}, {1, 1}, {3, 3, 3, 3}, {0, 0}, false},
      // Deep input: the GEMM packs X rather than reading it in place.
      {1, 70, 3, 1, {6, 7}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 0, 0}, {1, 1}, true},
      // Pads as large as the kernel's reach: outputs only inside.
      {1, 3, 5, 1, {4, 4}, {3, 3}, {1, 1}, {1, 1}, {2, 2, 2, 2}, {0, 0}, true},
      // 1-D.
      {2, 3, 5, 1, {17}, {5}, {3}, {2}, {2, 3}, {1}, true},
      {1, 4, 6, 2, {13}, {3}, {1}, {1}, {0, 0}, {0}, false},
      // 3-D.
      {2, 3, 4, 1, {3, 4, 5}, {2, 3, 2}, {2, 1, 3}, {1, 2, 1}, {1, 0, 1, 0, 1, 0}, {1, 0, 2}, true},
      {1,
       4,
       6,
       2,
       {4, 3, 5},
       {3, 3, 3},
       {1, 2, 1},
       {1, 1, 1},
       {1, 1, 1, 1, 1, 1},
       {0, 1, 0},
       false},
      // Single-element input and kernel.
      {1, 1, 1, 1, {1, 1}, {1, 1}, {1, 1}, {1, 1}, {0, 0, 0, 0}, {0, 0}, true},
  };
  CheckCasesAgainstReference(cases, 1);
}

TEST(ConvTranspose, EveryVersion) {
  const Tensor x = RandomFloat({1, 3, 4, 5}, 1);
  const Tensor w = RandomFloat({3, 5, 3, 3}, 2);
  const Case cc{1, 3, 5, 1, {4, 5}, {3, 3}, {1, 1}, {1, 1}, {0, 0, 0, 0}, {0, 0}, false};
  for (int opset : {1, 11, 22}) {
    SCOPED_TRACE("opset " + std::to_string(opset));
    ExpectKernel({x, w}, {}, Reference(x, w, nullptr, cc), opset);
  }
}

TEST(ConvTranspose, EmptyAndChannelless) {
  std::vector<Tensor> out;
  ASSERT_TRUE(RunOp("ConvTranspose", 22,
                    {{MakeFloat({0, 2, 4, 4}, {})}, {RandomFloat({2, 3, 3, 3}, 1)}}, {}, 1, &out)
                  .ok());
  EXPECT_EQ(out[0].shape, (Shape{0, 3, 6, 6}));
  // No input channels: the output is the bias.
  ExpectKernel({MakeFloat({2, 0, 3}, {}), MakeFloat({0, 2, 2}, {}), MakeFloat({2}, {1.5f, -2})}, {},
               MakeFloat({2, 2, 4}, {1.5f, 1.5f, 1.5f, 1.5f, -2, -2, -2, -2, 1.5f, 1.5f, 1.5f, 1.5f,
                                     -2, -2, -2, -2}));
}

// A constant W only this node reads is packed over its own storage at load (group_out * taps a
// multiple of 4); every input size then reads that form.
TEST(ConvTranspose, SessionPacksWeightsInPlace) {
  const Case base{1, 3, 4, 1, {0, 0}, {3, 3}, {2, 2}, {1, 1}, {1, 0, 1, 0}, {1, 1}, true};
  const Tensor w = RandomFloat({3, 4, 3, 3}, 5);
  const Tensor b = RandomFloat({4}, 6);
  testing::ModelBuilder mb(22);
  mb.Input("X", testing::kOnnxFloat, {1, 3, "H", "W"});
  mb.FloatInit("W", {3, 4, 3, 3}, std::vector<float>(w.ptr<float>(), w.ptr<float>() + w.numel()));
  mb.FloatInit("B", {4}, std::vector<float>(b.ptr<float>(), b.ptr<float>() + 4));
  mb.Node("ConvTranspose", {"X", "W", "B"}, {"Y"}, "up")
      .Ints("kernel_shape", base.kernel)
      .Ints("strides", base.strides)
      .Ints("pads", base.pads)
      .Ints("output_padding", base.output_padding);
  mb.Output("Y", testing::kOnnxFloat, {1, 4, "OH", "OW"});
  std::unique_ptr<Session> session;
  ASSERT_TRUE(testing::CreateSession(mb.Bytes(), &session).ok());
  EXPECT_GT(session->stats().packed_in_place_bytes, 0u);
  for (const Shape& hw : {Shape{5, 7}, Shape{9, 4}, Shape{5, 7}}) {
    SCOPED_TRACE(ShapeToString(hw));
    Case cc = base;
    cc.in = hw;
    const Tensor x = RandomFloat({1, 3, hw[0], hw[1]}, static_cast<uint32_t>(hw[0]));
    std::vector<const Tensor*> outputs;
    Status s = session->Run({{"X", x}}, &outputs);
    ASSERT_TRUE(s.ok()) << s.ToString();
    ExpectAllNear(*outputs[0], Reference(x, w, &b, cc));
  }
}

Status Plan(const std::vector<OpInput>& inputs, const Attrs& attrs) {
  std::vector<Tensor> out;
  return RunOp("ConvTranspose", 22, inputs, attrs, 1, &out);
}

TEST(ConvTranspose, ErrorsNameTheNode) {
  const Tensor x = RandomFloat({1, 4, 5, 5}, 1);
  const Tensor w = RandomFloat({4, 3, 3, 3}, 2);
  auto code = [&](std::vector<OpInput> in, const Attrs& attrs) {
    const Status s = Plan(in, attrs);
    EXPECT_NE(s.message().find("test_ConvTranspose"), std::string::npos) << s.ToString();
    return s.code();
  };
  const ErrorCode kShape = ErrorCode::kShapeMismatch, kModel = ErrorCode::kMalformedModel;
  // Channels: W's first dim is X's channels; group divides them.
  EXPECT_EQ(code({{x}, {RandomFloat({3, 3, 3, 3}, 3)}}, {}), kShape);
  EXPECT_EQ(code({{x}, {w}}, {{"group", IntAttr(3)}}), kShape);
  EXPECT_EQ(code({{x}, {w}}, {{"group", IntAttr(0)}}), kModel);
  EXPECT_EQ(code({{x}, {w}}, {{"group", IntAttr(-2)}}), kModel);
  EXPECT_EQ(code({{x}, {w}, {RandomFloat({4}, 3)}}, {}), kShape);  // B has M = 3
  // Ranks.
  EXPECT_EQ(code({{RandomFloat({4, 5}, 1)}, {RandomFloat({4, 3}, 2)}}, {}), kShape);
  EXPECT_EQ(code({{x}, {RandomFloat({4, 3, 3}, 2)}}, {}), kShape);
  // Window attributes.
  EXPECT_EQ(code({{x}, {w}}, {{"kernel_shape", IntsAttr({3, 2})}}), kShape);
  EXPECT_EQ(code({{x}, {w}}, {{"strides", IntsAttr({0, 1})}}), kModel);
  EXPECT_EQ(code({{x}, {w}}, {{"strides", IntsAttr({-1, 1})}}), kModel);
  EXPECT_EQ(code({{x}, {w}}, {{"strides", IntsAttr({1})}}), kModel);
  EXPECT_EQ(code({{x}, {w}}, {{"dilations", IntsAttr({1, 0})}}), kModel);
  EXPECT_EQ(code({{x}, {w}}, {{"pads", IntsAttr({1, 1, -1, 1})}}), kModel);
  EXPECT_EQ(code({{x}, {w}}, {{"pads", IntsAttr({1, 1})}}), kModel);
  EXPECT_EQ(code({{x}, {w}}, {{"pads", IntsAttr({4, 0, 4, 0})}}), kShape);  // output 7 - 8
  EXPECT_EQ(code({{x}, {w}}, {{"auto_pad", StringAttr("SAME")}}), kModel);
  EXPECT_EQ(code({{x}, {w}}, {{"auto_pad", StringAttr("VALID")}, {"pads", IntsAttr({1, 1, 1, 1})}}),
            kModel);
  // output_padding: one per axis, non-negative, below the stride or the dilation.
  EXPECT_EQ(code({{x}, {w}}, {{"output_padding", IntsAttr({1, 0})}}), kModel);
  EXPECT_EQ(code({{x}, {w}}, {{"strides", IntsAttr({2, 2})}, {"output_padding", IntsAttr({2, 0})}}),
            kModel);
  EXPECT_EQ(code({{x}, {w}}, {{"output_padding", IntsAttr({-1, 0})}}), kModel);
  EXPECT_EQ(code({{x}, {w}}, {{"output_padding", IntsAttr({0})}}), kModel);
  // output_shape: one per axis (or N, M first, M matching W), non-negative.
  EXPECT_EQ(code({{x}, {w}}, {{"output_shape", IntsAttr({7})}}), kModel);
  EXPECT_EQ(code({{x}, {w}}, {{"output_shape", IntsAttr({7, -1})}}), kModel);
  EXPECT_EQ(code({{x}, {w}}, {{"output_shape", IntsAttr({1, 5, 7, 7})}}), kShape);
  // Sizes past int64, or past the tensor byte limit.
  EXPECT_EQ(code({{MakeFloat({0, 1, int64_t{1} << 40}, {})}, {RandomFloat({1, 1, 1}, 1)}},
                 {{"strides", IntsAttr({int64_t{1} << 30})}}),
            kShape);
  EXPECT_EQ(code({{RandomFloat({1, 1, 3}, 1)}, {RandomFloat({1, 1, 1}, 2)}},
                 {{"output_shape", IntsAttr({int64_t{1} << 40})}}),
            ErrorCode::kOutOfMemory);
  // Dtypes and arity.
  EXPECT_EQ(code({{testing::MakeInt64({1, 1, 1}, {1})}, {RandomFloat({1, 1, 1}, 1)}}, {}),
            ErrorCode::kUnsupportedDtype);
  EXPECT_EQ(code({{x}, {w}, {testing::MakeInt64({3}, {1, 2, 3})}}, {}),
            ErrorCode::kUnsupportedDtype);
  EXPECT_EQ(code({{x}}, {}), kModel);
}

}  // namespace
}  // namespace webnx
