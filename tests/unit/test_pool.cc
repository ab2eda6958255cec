// MaxPool, AveragePool, GlobalMaxPool, GlobalAveragePool: hand-checked cases, randomized
// cross-checks against a naive N-D loop, Indices, and error codes.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

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

std::vector<float> Ramp(int n, float start = 1.f) {
  std::vector<float> v(n);
  for (int i = 0; i < n; ++i) v[i] = start + float(i);
  return v;
}

struct PoolCase {
  Shape x;  // N, C, spatial...
  Shape kernel, strides, dilations;
  std::vector<int64_t> pads;
  bool ceil_mode = false;
  bool count_include_pad = false;
};

struct NaivePool {
  Tensor y;
  std::vector<int64_t> argmax;  // row-major flat input index per output
};

// Visits every tap of every window explicitly, per the ONNX formulas.
NaivePool NaivePoolRun(const Tensor& x, const PoolCase& pc, bool max) {
  const size_t r = pc.x.size() - 2;
  Shape out = {pc.x[0], pc.x[1]};
  for (size_t i = 0; i < r; ++i) {
    const int64_t dk = (pc.kernel[i] - 1) * pc.dilations[i] + 1;
    const int64_t span = pc.x[i + 2] + pc.pads[i] + pc.pads[i + r] - dk;
    int64_t o =
        pc.ceil_mode ? (span + pc.strides[i] - 1) / pc.strides[i] + 1 : span / pc.strides[i] + 1;
    if (pc.ceil_mode && (o - 1) * pc.strides[i] >= pc.x[i + 2] + pc.pads[i]) --o;
    out.push_back(o);
  }
  int64_t out_plane = 1, in_plane = 1, ksize = 1;
  for (size_t i = 0; i < r; ++i) {
    out_plane *= out[i + 2];
    in_plane *= pc.x[i + 2];
    ksize *= pc.kernel[i];
  }
  const int64_t planes = pc.x[0] * pc.x[1];
  NaivePool res{MakeFloat(out, std::vector<float>(planes * out_plane, 0.f)), {}};
  std::vector<int64_t> o(r), k(r);
  for (int64_t p = 0; p < planes; ++p) {
    for (int64_t op = 0; op < out_plane; ++op) {
      for (size_t i = r, rem = op; i-- > 0;) o[i] = rem % out[i + 2], rem /= out[i + 2];
      double sum = 0;
      int64_t valid = 0, padded = 0, best_at = -1;
      float best = -std::numeric_limits<float>::infinity();
      for (int64_t kp = 0; kp < ksize; ++kp) {
        for (size_t i = r, rem = kp; i-- > 0;) k[i] = rem % pc.kernel[i], rem /= pc.kernel[i];
        bool inside = true, inside_padded = true;
        int64_t off = 0;
        for (size_t i = 0; i < r; ++i) {
          const int64_t pos = o[i] * pc.strides[i] - pc.pads[i] + k[i] * pc.dilations[i];
          inside = inside && pos >= 0 && pos < pc.x[i + 2];
          inside_padded = inside_padded && pos >= -pc.pads[i] && pos < pc.x[i + 2] + pc.pads[i + r];
          off = off * pc.x[i + 2] + pos;
        }
        padded += inside_padded;
        if (!inside) continue;
        ++valid;
        const float v = x.ptr<float>()[p * in_plane + off];
        sum += v;
        if (v > best) best = v, best_at = p * in_plane + off;
      }
      float& y = res.y.ptr<float>()[p * out_plane + op];
      y = max ? best : float(sum / double(pc.count_include_pad ? padded : valid));
      res.argmax.push_back(best_at);
    }
  }
  return res;
}

std::map<std::string, Attribute> PoolAttrs(const PoolCase& pc, bool max) {
  std::map<std::string, Attribute> attrs = {{"kernel_shape", IntsAttr(pc.kernel)},
                                            {"strides", IntsAttr(pc.strides)},
                                            {"pads", IntsAttr(pc.pads)},
                                            {"ceil_mode", IntAttr(pc.ceil_mode)},
                                            {"dilations", IntsAttr(pc.dilations)}};
  if (!max) attrs["count_include_pad"] = IntAttr(pc.count_include_pad);
  return attrs;
}

const std::vector<PoolCase>& RandomCases() {
  static const std::vector<PoolCase> cases = {
      {{2, 3, 9, 7}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}, false, false},
      {{2, 3, 9, 7}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}, false, true},
      {{1, 5, 10, 11}, {3, 2}, {3, 2}, {1, 1}, {0, 1, 2, 0}, true, false},
      {{1, 5, 10, 11}, {3, 2}, {3, 2}, {1, 1}, {0, 1, 2, 0}, true, true},
      {{1, 2, 12, 12}, {3, 3}, {2, 3}, {2, 2}, {1, 2, 1, 0}, true, true},
      {{2, 7, 8, 6}, {2, 4}, {1, 1}, {3, 1}, {0, 0, 0, 0}, false, false},
      {{3, 2, 17}, {4}, {3}, {2}, {1, 2}, true, false},
      {{1, 3, 5, 6, 7}, {2, 3, 2}, {2, 2, 3}, {1, 2, 1}, {1, 0, 1, 0, 1, 1}, true, true},
      {{1, 1, 4, 4}, {3, 3}, {3, 3}, {1, 1}, {1, 1, 1, 1}, true, true},
  };
  return cases;
}

TEST(Pool, MaxHandChecked) {
  Tensor x = MakeFloat({1, 1, 5, 5}, Ramp(25));
  Tensor y = RunOk("MaxPool", 12, {x},
                   {{"kernel_shape", IntsAttr({2, 2})}, {"strides", IntsAttr({2, 2})}});
  ExpectAllNear(y, MakeFloat({1, 1, 2, 2}, {7, 9, 17, 19}));
}

TEST(Pool, AverageHandCheckedPads) {
  // The ONNX precomputed example: 5x5 ramp, 5x5 kernel, pads 2, padding excluded from counts.
  Tensor x = MakeFloat({1, 1, 5, 5}, Ramp(25));
  std::map<std::string, Attribute> attrs = {{"kernel_shape", IntsAttr({5, 5})},
                                            {"pads", IntsAttr({2, 2, 2, 2})}};
  ExpectAllNear(
      RunOk("AveragePool", 11, {x}, attrs),
      MakeFloat({1, 1, 5, 5}, {7,  7.5,  8,  8.5,  9,  9.5,  10, 10.5, 11, 11.5, 12, 12.5, 13, 13.5,
                               14, 14.5, 15, 15.5, 16, 16.5, 17, 17.5, 18, 18.5, 19}));
  attrs["count_include_pad"] = IntAttr(1);
  Tensor y = RunOk("AveragePool", 11, {x}, attrs);
  EXPECT_NEAR(y.ptr<float>()[0], 2.52f, 1e-5f);  // 63 / 25
  EXPECT_NEAR(y.ptr<float>()[12], 13.f, 1e-5f);
}

TEST(Pool, RandomMaxMatchesNaive) {
  uint32_t seed = 10;
  for (const PoolCase& pc : RandomCases()) {
    SCOPED_TRACE("X " + ShapeToString(pc.x) + " kernel " + ShapeToString(pc.kernel));
    Tensor x = RandomFloat(pc.x, seed++);
    ExpectAllNear(RunOk("MaxPool", 12, {x}, PoolAttrs(pc, true)), NaivePoolRun(x, pc, true).y);
  }
}

TEST(Pool, RandomAverageMatchesNaive) {
  uint32_t seed = 50;
  for (const PoolCase& pc : RandomCases()) {
    SCOPED_TRACE("X " + ShapeToString(pc.x) + " kernel " + ShapeToString(pc.kernel));
    Tensor x = RandomFloat(pc.x, seed++);
    ExpectAllNear(RunOk("AveragePool", 19, {x}, PoolAttrs(pc, false)),
                  NaivePoolRun(x, pc, false).y);
  }
}

TEST(Pool, MaxIndicesRowAndColumnMajor) {
  for (const PoolCase& pc : RandomCases()) {
    Tensor x = RandomFloat(pc.x, 7);
    NaivePool want = NaivePoolRun(x, pc, true);
    for (int order = 0; order < 2; ++order) {
      auto attrs = PoolAttrs(pc, true);
      attrs["storage_order"] = IntAttr(order);
      std::vector<Tensor> out;
      Status s = RunOp("MaxPool", 12, {{x}}, attrs, 2, &out);
      ASSERT_TRUE(s.ok()) << s.ToString();
      ASSERT_EQ(out[1].dtype, DType::kInt64);
      ASSERT_EQ(out[1].shape, want.y.shape);
      const size_t r = pc.x.size() - 2;
      int64_t in_plane = 1;
      for (size_t i = 0; i < r; ++i) in_plane *= pc.x[i + 2];
      for (size_t i = 0; i < want.argmax.size(); ++i) {
        int64_t expect = want.argmax[i];
        if (order == 1) {
          // Column-major: the first spatial axis varies fastest within the plane.
          int64_t rem = expect % in_plane, col = 0, mul = 1;
          std::vector<int64_t> pos(r);
          for (size_t d = r; d-- > 0;) pos[d] = rem % pc.x[d + 2], rem /= pc.x[d + 2];
          for (size_t d = 0; d < r; ++d) col += pos[d] * mul, mul *= pc.x[d + 2];
          expect = expect / in_plane * in_plane + col;
        }
        ASSERT_EQ(out[1].ptr<int64_t>()[i], expect) << "output " << i << " order " << order;
      }
    }
  }
}

TEST(Pool, AutoPad) {
  Tensor x = RandomFloat({1, 2, 7, 6}, 3);
  // Kernel 3x2, stride 2: SAME outputs 4x3; H pad (4-1)*2+3-7=2 -> 1/1, W pad (3-1)*2+2-6=0.
  // Stride 1: H pad 2 -> 1/1, W pad 1 -> UPPER 0/1, LOWER 1/0.
  struct Mode {
    std::string auto_pad;
    Shape strides;
    std::vector<int64_t> pads;
  };
  const std::vector<Mode> modes = {{"SAME_UPPER", {2, 2}, {1, 0, 1, 0}},
                                   {"SAME_UPPER", {1, 1}, {1, 0, 1, 1}},
                                   {"SAME_LOWER", {1, 1}, {1, 1, 1, 0}},
                                   {"VALID", {2, 1}, {0, 0, 0, 0}}};
  for (const Mode& mode : modes) {
    for (bool max : {true, false}) {
      SCOPED_TRACE(mode.auto_pad + (max ? " max" : " average"));
      std::map<std::string, Attribute> attrs = {{"kernel_shape", IntsAttr({3, 2})},
                                                {"strides", IntsAttr(mode.strides)},
                                                {"auto_pad", StringAttr(mode.auto_pad)}};
      Tensor y = RunOk(max ? "MaxPool" : "AveragePool", 11, {x}, attrs);
      PoolCase pc{{1, 2, 7, 6}, {3, 2}, mode.strides, {1, 1}, mode.pads, false, false};
      ExpectAllNear(y, NaivePoolRun(x, pc, max).y);
    }
  }
}

TEST(Pool, CeilModeDropsWindowStartingInEndPad) {
  // ceil((2 - 1) / 2) + 1 = 2 windows, but the second would start past the input.
  Tensor x = MakeFloat({1, 1, 2, 2}, {1, 2, 3, 4});
  Tensor y = RunOk("MaxPool", 12, {x},
                   {{"kernel_shape", IntsAttr({1, 1})},
                    {"strides", IntsAttr({2, 2})},
                    {"ceil_mode", IntAttr(1)}});
  ExpectAllNear(y, MakeFloat({1, 1, 1, 1}, {1}));
}

TEST(Pool, MaxSkipsNaN) {
  Tensor x = MakeFloat({1, 1, 1, 3}, {NAN, 2, 1});
  Tensor y = RunOk("MaxPool", 12, {x}, {{"kernel_shape", IntsAttr({1, 3})}});
  EXPECT_EQ(y.ptr<float>()[0], 2.f);
}

TEST(Pool, Global) {
  Tensor x = MakeFloat({1, 2, 2, 3}, {1, 5, 3, 4, 2, 6, -1, -2, -3, -4, -5, -7});
  ExpectAllNear(RunOk("GlobalMaxPool", 1, {x}), MakeFloat({1, 2, 1, 1}, {6, -1}));
  ExpectAllNear(RunOk("GlobalAveragePool", 1, {x}), MakeFloat({1, 2, 1, 1}, {3.5f, -22.f / 6}));
  Tensor x3 = RandomFloat({2, 3, 4, 2, 5}, 3);
  Tensor y3 = RunOk("GlobalAveragePool", 22, {x3});
  ASSERT_EQ(y3.shape, (Shape{2, 3, 1, 1, 1}));
  for (int p = 0; p < 6; ++p) {
    double sum = 0;
    for (int i = 0; i < 40; ++i) sum += x3.ptr<float>()[p * 40 + i];
    EXPECT_NEAR(y3.ptr<float>()[p], sum / 40, 1e-5);
  }
}

TEST(Pool, HugeEmptyInputPlansWithoutAllocating) {
  Tensor x = MakeFloat({0, 3, int64_t{1} << 40, 5}, {});
  for (const char* op : {"MaxPool", "AveragePool"}) {
    Tensor y = RunOk(op, 11, {x}, {{"kernel_shape", IntsAttr({2, 2})}});
    EXPECT_EQ(y.shape, (Shape{0, 3, (int64_t{1} << 40) - 1, 4}));
  }
  EXPECT_EQ(RunOk("GlobalMaxPool", 1, {x}).shape, (Shape{0, 3, 1, 1}));
}

TEST(Pool, Errors) {
  Tensor x = RandomFloat({1, 2, 5, 5}, 1);
  auto code = [](const std::string& op, int opset, const Tensor& in,
                 std::map<std::string, Attribute> attrs, int outputs = 1) {
    std::vector<Tensor> out;
    return RunOp(op, opset, {{in}}, attrs, outputs, &out).code();
  };
  const auto k2 = IntsAttr({2, 2});
  EXPECT_EQ(code("MaxPool", 12, x, {}), ErrorCode::kMalformedModel);  // kernel_shape missing
  EXPECT_EQ(code("MaxPool", 12, x, {{"kernel_shape", IntsAttr({2})}}), ErrorCode::kMalformedModel);
  EXPECT_EQ(code("MaxPool", 12, x, {{"kernel_shape", IntsAttr({0, 2})}}),
            ErrorCode::kMalformedModel);
  EXPECT_EQ(code("MaxPool", 12, x, {{"kernel_shape", k2}, {"storage_order", IntAttr(2)}}),
            ErrorCode::kMalformedModel);
  EXPECT_EQ(code("MaxPool", 12, x, {{"kernel_shape", k2}, {"strides", IntsAttr({1, 0})}}),
            ErrorCode::kMalformedModel);
  EXPECT_EQ(code("AveragePool", 11, x, {{"kernel_shape", k2}, {"auto_pad", StringAttr("FOO")}}),
            ErrorCode::kMalformedModel);
  EXPECT_EQ(code("MaxPool", 12, x, {{"kernel_shape", IntsAttr({6, 2})}}),
            ErrorCode::kShapeMismatch);
  // Indices output before version 8.
  EXPECT_EQ(code("MaxPool", 7, x, {{"kernel_shape", k2}}, 2), ErrorCode::kMalformedModel);
  EXPECT_EQ(code("MaxPool", 12, RandomFloat({2, 5}, 1), {{"kernel_shape", IntsAttr({2})}}),
            ErrorCode::kShapeMismatch);
  EXPECT_EQ(code("AveragePool", 11, RandomFloat({1, 1, 2, 2, 2, 2}, 1),
                 {{"kernel_shape", IntsAttr({1, 1, 1, 1})}}),
            ErrorCode::kUnsupportedOperator);
  EXPECT_EQ(code("GlobalAveragePool", 1, RandomFloat({2, 5}, 1), {}), ErrorCode::kShapeMismatch);
  EXPECT_EQ(code("GlobalMaxPool", 1, testing::MakeInt64({1, 1, 1}, {1}), {}),
            ErrorCode::kUnsupportedDtype);
  EXPECT_EQ(
      code("MaxPool", 12, testing::MakeInt64({1, 1, 1}, {1}), {{"kernel_shape", IntsAttr({1})}}),
      ErrorCode::kUnsupportedDtype);
}

}  // namespace
}  // namespace webnx
