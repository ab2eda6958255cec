// Conv: hand-checked cases, randomized cross-checks against a naive N-D loop (groups, depthwise,
// strides, pads, dilations, 1-D/2-D/3-D, bias), auto_pad, and error codes.
#include <gtest/gtest.h>

#include <cmath>

#include "tests/unit/op_runner.h"

namespace webnx {
namespace {

using testing::ExpectAllNear;
using testing::IntAttr;
using testing::IntsAttr;
using testing::MakeFloat;
using testing::OpInput;
using testing::RandomFloat;
using testing::RunOk;
using testing::RunOp;
using testing::StringAttr;

// The tolerance against the naive loops (long sums).
constexpr float kTolerance = 1e-4f;

struct ConvCase {
  int64_t n, c, m, group;
  Shape in, kernel, strides, dilations;
  std::vector<int64_t> pads;  // begin..., end...
  bool bias;
};

// Straightforward loops over every output, group, input channel and kernel tap.
Tensor NaiveConv(const Tensor& x, const Tensor& w, const Tensor* b, const ConvCase& cc) {
  const size_t r = cc.in.size();
  Shape out_spatial(r);
  for (size_t i = 0; i < r; ++i) {
    const int64_t dk = (cc.kernel[i] - 1) * cc.dilations[i] + 1;
    out_spatial[i] = (cc.in[i] + cc.pads[i] + cc.pads[i + r] - dk) / cc.strides[i] + 1;
  }
  Shape out = {cc.n, cc.m};
  out.insert(out.end(), out_spatial.begin(), out_spatial.end());
  int64_t out_plane = 1, in_plane = 1, ksize = 1;
  for (size_t i = 0; i < r; ++i) {
    out_plane *= out_spatial[i];
    in_plane *= cc.in[i];
    ksize *= cc.kernel[i];
  }
  Tensor y = MakeFloat(out, std::vector<float>(cc.n * cc.m * out_plane, 0.f));
  const int64_t cg = cc.c / cc.group, mg = cc.m / cc.group;
  std::vector<int64_t> o(r), k(r);
  for (int64_t n = 0; n < cc.n; ++n) {
    for (int64_t m = 0; m < cc.m; ++m) {
      const int64_t g = m / mg;
      for (int64_t op = 0; op < out_plane; ++op) {
        for (size_t i = r, rem = op; i-- > 0;) o[i] = rem % out_spatial[i], rem /= out_spatial[i];
        double sum = b ? b->ptr<float>()[m] : 0.0;
        for (int64_t ci = 0; ci < cg; ++ci) {
          for (int64_t kp = 0; kp < ksize; ++kp) {
            for (size_t i = r, rem = kp; i-- > 0;) k[i] = rem % cc.kernel[i], rem /= cc.kernel[i];
            int64_t in_off = 0;
            bool inside = true;
            for (size_t i = 0; i < r; ++i) {
              const int64_t pos = o[i] * cc.strides[i] - cc.pads[i] + k[i] * cc.dilations[i];
              inside = inside && pos >= 0 && pos < cc.in[i];
              in_off = in_off * cc.in[i] + pos;
            }
            if (!inside) continue;
            const float xv = x.ptr<float>()[(n * cc.c + g * cg + ci) * in_plane + in_off];
            const float wv = w.ptr<float>()[(m * cg + ci) * ksize + kp];
            sum += double(xv) * wv;
          }
        }
        y.ptr<float>()[(n * cc.m + m) * out_plane + op] = float(sum);
      }
    }
  }
  return y;
}

std::map<std::string, Attribute> ConvAttrs(const ConvCase& cc) {
  return {{"group", IntAttr(cc.group)},
          {"kernel_shape", IntsAttr(cc.kernel)},
          {"strides", IntsAttr(cc.strides)},
          {"dilations", IntsAttr(cc.dilations)},
          {"pads", IntsAttr(cc.pads)}};
}

void CheckCase(const ConvCase& cc, uint32_t seed, bool constant_weights) {
  Shape xs = {cc.n, cc.c};
  xs.insert(xs.end(), cc.in.begin(), cc.in.end());
  Shape ws = {cc.m, cc.c / cc.group};
  ws.insert(ws.end(), cc.kernel.begin(), cc.kernel.end());
  Tensor x = RandomFloat(xs, seed);
  Tensor w = RandomFloat(ws, seed + 1);
  Tensor b = RandomFloat({cc.m}, seed + 2);
  std::vector<OpInput> inputs = {{x}, {w, constant_weights}};
  if (cc.bias) inputs.push_back({b, constant_weights});
  std::vector<Tensor> out;
  Status s = RunOp("Conv", 11, inputs, ConvAttrs(cc), 1, &out);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ExpectAllNear(out[0], NaiveConv(x, w, cc.bias ? &b : nullptr, cc), kTolerance);
}

// Each case with runtime weights (the scalar loops) and constant ones (the SIMD paths).
void CheckCases(const std::vector<ConvCase>& cases, uint32_t seed, const std::string& label) {
  for (size_t i = 0; i < cases.size(); ++i) {
    for (bool constant : {false, true}) {
      SCOPED_TRACE(label + " " + std::to_string(i) + (constant ? " (constant W)" : ""));
      CheckCase(cases[i], seed, constant);
      seed += 3;
    }
  }
}

TEST(Conv, HandCheckedWithPadding) {
  // The ONNX spec example: 5x5 ramp, 3x3 ones, pad 1.
  std::vector<float> ramp(25);
  for (int i = 0; i < 25; ++i) ramp[i] = float(i);
  Tensor x = MakeFloat({1, 1, 5, 5}, ramp);
  Tensor w = MakeFloat({1, 1, 3, 3}, std::vector<float>(9, 1.f));
  Tensor y = RunOk("Conv", 11, {x, w}, {{"pads", IntsAttr({1, 1, 1, 1})}});
  ExpectAllNear(
      y, MakeFloat({1, 1, 5, 5}, {12,  21, 27, 33,  24,  33,  54,  63, 72,  51,  63,  99, 108,
                                  117, 81, 93, 144, 153, 162, 111, 72, 111, 117, 123, 84}),
      kTolerance);
}

TEST(Conv, HandCheckedPointwiseWithBias) {
  // 1x1 conv mixes channels: y0 = x0 + 2 x1 + 1, y1 = -x0 + 0.
  Tensor x = MakeFloat({1, 2, 1, 2}, {1, 2, 3, 4});
  Tensor w = MakeFloat({2, 2, 1, 1}, {1, 2, -1, 0});
  Tensor b = MakeFloat({2}, {1, 0});
  ExpectAllNear(RunOk("Conv", 1, {x, w, b}), MakeFloat({1, 2, 1, 2}, {8, 11, -1, -2}), kTolerance);
}

TEST(Conv, RandomCasesMatchNaive) {
  const std::vector<ConvCase> cases = {
      // 2-D, im2col: odd channels, stride 2, asymmetric pads, batch > 1.
      {2, 3, 5, 1, {9, 7}, {3, 3}, {2, 2}, {1, 1}, {1, 0, 2, 1}, true},
      // Dilations and rectangular kernel.
      {1, 5, 7, 1, {11, 10}, {3, 2}, {1, 2}, {2, 3}, {2, 1, 0, 2}, true},
      // Grouped (not depthwise): 6 -> 4 channels in 2 groups.
      {2, 6, 4, 2, {8, 8}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, false},
      // Depthwise, multiplier 1 and 2, strides and dilations.
      {2, 7, 7, 7, {10, 9}, {3, 3}, {2, 1}, {1, 2}, {1, 1, 1, 1}, true},
      {1, 3, 6, 3, {7, 7}, {5, 3}, {1, 2}, {1, 1}, {2, 1, 2, 1}, true},
      // Single input channel (direct path with group 1).
      {2, 1, 4, 1, {6, 9}, {3, 4}, {2, 3}, {1, 1}, {0, 2, 1, 0}, true},
      // Pointwise 1x1, and 1x1 with stride 2 (im2col).
      {2, 5, 3, 1, {4, 6}, {1, 1}, {1, 1}, {1, 1}, {0, 0, 0, 0}, true},
      {1, 5, 3, 1, {5, 6}, {1, 1}, {2, 2}, {1, 1}, {0, 0, 0, 0}, true},
      // Pointwise grouped.
      {1, 6, 9, 3, {3, 5}, {1, 1}, {1, 1}, {1, 1}, {0, 0, 0, 0}, false},
      // 1-D and 3-D.
      {2, 3, 4, 1, {17}, {5}, {3}, {2}, {2, 3}, true},
      {1, 4, 4, 4, {13}, {3}, {1}, {1}, {1, 1}, true},
      // A mono signal's front end (one input channel, 1-D: the packed GEMM), 3-D depthwise.
      {1, 1, 16, 1, {131}, {8}, {4}, {1}, {0, 3}, true},
      {2, 3, 6, 3, {4, 5, 9}, {3, 2, 3}, {1, 2, 1}, {1, 1, 2}, {1, 0, 1, 1, 0, 2}, true},
      {1, 3, 2, 1, {5, 6, 4}, {2, 3, 2}, {2, 1, 1}, {1, 1, 2}, {1, 0, 1, 0, 1, 0}, true},
      {1, 2, 4, 2, {4, 5, 5}, {3, 3, 3}, {1, 2, 1}, {1, 1, 1}, {1, 1, 1, 1, 1, 1}, false},
      // 3-D on the packed GEMM (constant W): rows of 8+ outputs (interior panels), stride 2 in
      // width, depth stride and dilation, groups, depth padding, and 1x1x1.
      {2, 5, 6, 1, {6, 9, 11}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1, 1, 1, 1}, true},
      {1, 4, 3, 1, {5, 12, 20}, {2, 3, 3}, {2, 1, 2}, {2, 1, 1}, {0, 1, 1, 1, 1, 0}, true},
      {1, 6, 4, 2, {7, 5, 9}, {3, 1, 3}, {1, 1, 1}, {1, 1, 1}, {2, 0, 1, 1, 0, 1}, false},
      {1, 5, 3, 1, {3, 4, 5}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, {0, 0, 0, 0, 0, 0}, true},
      // One to three outputs, stride 1 (rows straight from X): 16- and 4-column blocks and
      // scalar edges, dilations, asymmetric pads, a kernel wider than the row's interior.
      {2, 5, 1, 1, {9, 37}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, true},
      {1, 3, 2, 1, {11, 23}, {5, 3}, {1, 1}, {2, 3}, {3, 0, 1, 4}, false},
      {1, 4, 3, 1, {6, 7}, {2, 7}, {1, 1}, {1, 1}, {0, 3, 1, 3}, true},
      {1, 2, 1, 1, {5, 12}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, true},
      // Kernel larger than the input, covered by padding.
      {1, 2, 3, 1, {2, 3}, {5, 5}, {1, 1}, {1, 1}, {2, 2, 2, 2}, true},
      // Tall output that needs several im2col bands.
      {1, 16, 4, 1, {100, 30}, {3, 3}, {1, 1}, {1, 1}, {0, 0, 0, 0}, true},
  };
  CheckCases(cases, 1, "case");
}

// 3x3 stride 1 with >= 16 channels each way takes Winograd F(2x2, 3x3) when W is constant:
// odd and even sizes (partial tiles), pads 0-2 on either side, rows of tiles wider and
// narrower than the 4-tile vector path, batch > 1, several tile blocks.
TEST(Conv, WinogradCasesMatchNaive) {
  const std::vector<ConvCase> cases = {
      {2, 16, 16, 1, {7, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, true},
      {1, 17, 19, 1, {14, 13}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, true},
      {1, 16, 24, 1, {23, 30}, {3, 3}, {1, 1}, {1, 1}, {0, 0, 0, 0}, false},
      {2, 20, 16, 1, {12, 21}, {3, 3}, {1, 1}, {1, 1}, {2, 0, 1, 2}, true},
      {1, 32, 18, 1, {3, 4}, {3, 3}, {1, 1}, {1, 1}, {1, 2, 1, 1}, true},
      // Input channels past the weight packer's groups of four (3 left), a 1-lane last panel.
      {1, 19, 17, 1, {9, 8}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, true},
  };
  CheckCases(cases, 101, "winograd case");
}

TEST(Conv, KernelShapeInferredFromWeights) {
  Tensor x = RandomFloat({1, 2, 6, 6}, 1);
  Tensor w = RandomFloat({3, 2, 3, 2}, 2);
  Tensor y = RunOk("Conv", 11, {x, w});
  ConvCase cc{1, 2, 3, 1, {6, 6}, {3, 2}, {1, 1}, {1, 1}, {0, 0, 0, 0}, false};
  ExpectAllNear(y, NaiveConv(x, w, nullptr, cc), kTolerance);
}

TEST(Conv, AutoPad) {
  Tensor x = RandomFloat({1, 2, 7, 6}, 5);
  Tensor w = RandomFloat({3, 2, 3, 4}, 6);
  // Strides 2: outputs ceil(7/2)=4 and ceil(6/2)=3; total pads 3+... per axis:
  // H: (4-1)*2+3-7 = 2 -> 1/1; W: (3-1)*2+4-6 = 2 -> 1/1 for both SAME modes.
  // With stride 1: H pad 2 -> 1/1, W pad 3 -> UPPER 1/2, LOWER 2/1.
  struct Mode {
    std::string auto_pad;
    Shape strides;
    std::vector<int64_t> pads;
  };
  const std::vector<Mode> modes = {
      {"SAME_UPPER", {2, 2}, {1, 1, 1, 1}}, {"SAME_LOWER", {2, 2}, {1, 1, 1, 1}},
      {"SAME_UPPER", {1, 1}, {1, 1, 1, 2}}, {"SAME_LOWER", {1, 1}, {1, 2, 1, 1}},
      {"VALID", {2, 1}, {0, 0, 0, 0}},      {"NOTSET", {1, 1}, {0, 0, 0, 0}}};
  for (const Mode& mode : modes) {
    SCOPED_TRACE(mode.auto_pad + " strides " + ShapeToString(mode.strides));
    Tensor y =
        RunOk("Conv", 11, {x, w},
              {{"auto_pad", StringAttr(mode.auto_pad)}, {"strides", IntsAttr(mode.strides)}});
    ConvCase cc{1, 2, 3, 1, {7, 6}, {3, 4}, mode.strides, {1, 1}, mode.pads, false};
    ExpectAllNear(y, NaiveConv(x, w, nullptr, cc), kTolerance);
  }
}

TEST(Conv, EmptyBatch) {
  Tensor x = MakeFloat({0, 2, 4, 4}, {});
  Tensor y = RunOk("Conv", 11, {x, RandomFloat({3, 2, 3, 3}, 1)});
  EXPECT_EQ(y.shape, (Shape{0, 3, 2, 2}));
}

TEST(Conv, NoInputChannelsGivesBias) {
  Tensor y = RunOk(
      "Conv", 11,
      {MakeFloat({2, 0, 3, 3}, {}), MakeFloat({2, 0, 2, 2}, {}), MakeFloat({2}, {1.5f, -2.f})});
  ExpectAllNear(y,
                MakeFloat({2, 2, 2, 2}, {1.5f, 1.5f, 1.5f, 1.5f, -2, -2, -2, -2, 1.5f, 1.5f, 1.5f,
                                         1.5f, -2, -2, -2, -2}),
                kTolerance);
}

TEST(Conv, HugeEmptyInputPlansWithoutAllocating) {
  Tensor x = MakeFloat({0, 2, int64_t{1} << 40, 3}, {});
  Tensor y =
      RunOk("Conv", 11, {x, RandomFloat({4, 2, 3, 3}, 1)}, {{"pads", IntsAttr({1, 1, 1, 1})}});
  EXPECT_EQ(y.shape, (Shape{0, 4, int64_t{1} << 40, 3}));
}

TEST(Conv, Errors) {
  Tensor x = RandomFloat({1, 4, 5, 5}, 1);
  Tensor w = RandomFloat({6, 4, 3, 3}, 2);
  auto code = [](std::vector<OpInput> in, std::map<std::string, Attribute> attrs) {
    std::vector<Tensor> out;
    return RunOp("Conv", 11, in, attrs, 1, &out).code();
  };
  // Channel mismatch between X and W.
  EXPECT_EQ(code({{x}, {RandomFloat({6, 3, 3, 3}, 3)}}, {}), ErrorCode::kShapeMismatch);
  // Group that does not divide the channels, or that mismatches W.
  EXPECT_EQ(code({{x}, {w}}, {{"group", IntAttr(3)}}), ErrorCode::kShapeMismatch);
  EXPECT_EQ(code({{x}, {w}}, {{"group", IntAttr(2)}}), ErrorCode::kShapeMismatch);
  // A group below 1 is an attribute out of range, whatever the shapes.
  EXPECT_EQ(code({{x}, {w}}, {{"group", IntAttr(0)}}), ErrorCode::kMalformedModel);
  // Ranks.
  EXPECT_EQ(code({{RandomFloat({4, 5}, 1)}, {RandomFloat({6, 4}, 2)}}, {}),
            ErrorCode::kShapeMismatch);
  EXPECT_EQ(code({{x}, {RandomFloat({6, 4, 3}, 2)}}, {}), ErrorCode::kShapeMismatch);
  EXPECT_EQ(code({{RandomFloat({1, 1, 2, 2, 2, 2}, 1)}, {RandomFloat({1, 1, 1, 1, 1, 1}, 2)}}, {}),
            ErrorCode::kUnsupportedOperator);
  // Bias of the wrong length.
  EXPECT_EQ(code({{x}, {w}, {RandomFloat({5}, 3)}}, {}), ErrorCode::kShapeMismatch);
  // kernel_shape that contradicts W.
  EXPECT_EQ(code({{x}, {w}}, {{"kernel_shape", IntsAttr({3, 2})}}), ErrorCode::kShapeMismatch);
  // Bad attribute values and lengths.
  EXPECT_EQ(code({{x}, {w}}, {{"strides", IntsAttr({0, 1})}}), ErrorCode::kMalformedModel);
  EXPECT_EQ(code({{x}, {w}}, {{"strides", IntsAttr({1})}}), ErrorCode::kMalformedModel);
  EXPECT_EQ(code({{x}, {w}}, {{"dilations", IntsAttr({1, -1})}}), ErrorCode::kMalformedModel);
  EXPECT_EQ(code({{x}, {w}}, {{"pads", IntsAttr({1, 1, -1, 1})}}), ErrorCode::kMalformedModel);
  EXPECT_EQ(code({{x}, {w}}, {{"pads", IntsAttr({1, 1})}}), ErrorCode::kMalformedModel);
  EXPECT_EQ(code({{x}, {w}}, {{"auto_pad", StringAttr("SAME")}}), ErrorCode::kMalformedModel);
  EXPECT_EQ(code({{x}, {w}}, {{"auto_pad", StringAttr("VALID")}, {"pads", IntsAttr({1, 1, 1, 1})}}),
            ErrorCode::kMalformedModel);
  EXPECT_EQ(code({{x}, {w}}, {{"group", IntsAttr({1})}}), ErrorCode::kMalformedModel);
  // A kernel that does not fit the input.
  EXPECT_EQ(code({{x}, {RandomFloat({6, 4, 7, 3}, 2)}}, {}), ErrorCode::kShapeMismatch);
  EXPECT_EQ(code({{x}, {w}}, {{"dilations", IntsAttr({3, 1})}}), ErrorCode::kShapeMismatch);
  // Dtypes and arity.
  EXPECT_EQ(code({{testing::MakeInt64({1, 1, 1, 1}, {1})}, {RandomFloat({1, 1, 1, 1}, 1)}}, {}),
            ErrorCode::kUnsupportedDtype);
  EXPECT_EQ(code({{x}}, {}), ErrorCode::kMalformedModel);
}

}  // namespace
}  // namespace webnx
