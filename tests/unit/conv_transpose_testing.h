// Shared by the ConvTranspose tests (test_conv_transpose*.cc): a case as the scalar reference
// takes it, the reference's output, and the kernel run with W constant (the phase path) and
// not (the GEMM path) on 1 and 2 threads against it.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "kernels/conv_transpose_reference.h"
#include "tests/unit/op_runner.h"

namespace webnx::conv_transpose_testing {

using conv_transpose::ConvTransposeShape;
using testing::ExpectAllNear;
using testing::IntAttr;
using testing::IntsAttr;
using testing::MakeFloat;
using testing::OpInput;
using testing::RandomFloat;
using testing::RunOp;

using Attrs = std::map<std::string, Attribute>;

// A ConvTranspose as the reference takes it, with explicit pads (negative ones stand for an
// output larger than the full result, as output_shape and SAME can make it).
struct Case {
  int64_t n, c, m, group;
  Shape in, kernel, strides, dilations;
  std::vector<int64_t> pads;  // begin..., end...
  std::vector<int64_t> output_padding;
  bool bias;
};

inline ConvTransposeShape ShapeOf(const Case& cc) {
  ConvTransposeShape s;
  s.batch = cc.n;
  s.in_channels = cc.c;
  s.out_channels = cc.m;
  s.groups = cc.group;
  s.group_in = cc.c / cc.group;
  s.group_out = cc.m / cc.group;
  s.has_bias = cc.bias;
  s.in_plane = s.out_plane = s.kernel_size = 1;
  const size_t rank = cc.in.size();
  for (size_t i = 0; i < rank; ++i) {
    conv_transpose::Axis a;
    a.in = cc.in[i];
    a.kernel = cc.kernel[i];
    a.stride = cc.strides[i];
    a.dilation = cc.dilations[i];
    a.pad_begin = cc.pads[i];
    a.out = a.stride * (a.in - 1) + cc.output_padding[i] + (a.kernel - 1) * a.dilation + 1 -
            cc.pads[i] - cc.pads[i + rank];
    s.axes.push_back(a);
    s.in_plane *= a.in;
    s.out_plane *= a.out;
    s.kernel_size *= a.kernel;
  }
  s.empty_output = s.batch * s.out_channels * s.out_plane == 0;
  return s;
}

inline Tensor Reference(const Tensor& x, const Tensor& w, const Tensor* b, const Case& cc) {
  const ConvTransposeShape s = ShapeOf(cc);
  Shape out = {cc.n, cc.m};
  for (const conv_transpose::Axis& a : s.axes) out.push_back(a.out);
  Tensor y = MakeFloat(out, std::vector<float>(s.batch * s.out_channels * s.out_plane, -7.f));
  conv_transpose::RunReference(s, x.ptr<float>(), w.ptr<float>(), b ? b->ptr<float>() : nullptr,
                               y.ptr<float>());
  return y;
}

// Runs the kernel with W (and B) constant or not, on 1 and 2 threads: every run must give `want`.
inline void ExpectKernel(const std::vector<Tensor>& inputs, const Attrs& attrs, const Tensor& want,
                         int opset = 22) {
  for (bool constant : {false, true}) {
    for (int threads : {1, 2}) {
      SCOPED_TRACE(std::string(constant ? "constant W" : "runtime W") + ", threads " +
                   std::to_string(threads));
      std::vector<OpInput> in = {{inputs[0]}};
      for (size_t i = 1; i < inputs.size(); ++i) in.push_back({inputs[i], constant});
      std::vector<Tensor> out;
      Status s = RunOp("ConvTranspose", opset, in, attrs, 1, &out, threads);
      ASSERT_TRUE(s.ok()) << s.ToString();
      ExpectAllNear(out[0], want);
    }
  }
}

inline Attrs AttrsOf(const Case& cc) {
  return {{"group", IntAttr(cc.group)},      {"kernel_shape", IntsAttr(cc.kernel)},
          {"strides", IntsAttr(cc.strides)}, {"dilations", IntsAttr(cc.dilations)},
          {"pads", IntsAttr(cc.pads)},       {"output_padding", IntsAttr(cc.output_padding)}};
}

inline void CheckAgainstReference(const Case& cc, uint32_t seed) {
  Shape xs = {cc.n, cc.c};
  xs.insert(xs.end(), cc.in.begin(), cc.in.end());
  Shape ws = {cc.c, cc.m / cc.group};
  ws.insert(ws.end(), cc.kernel.begin(), cc.kernel.end());
  const Tensor x = RandomFloat(xs, seed);
  const Tensor w = RandomFloat(ws, seed + 1);
  const Tensor b = RandomFloat({cc.m}, seed + 2);
  std::vector<Tensor> inputs = {x, w};
  if (cc.bias) inputs.push_back(b);
  ExpectKernel(inputs, AttrsOf(cc), Reference(x, w, cc.bias ? &b : nullptr, cc));
}

// Each case against the reference, inputs from seeds `seed`, `seed + 3`, ...
inline void CheckCasesAgainstReference(const std::vector<Case>& cases, uint32_t seed) {
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE("case " + std::to_string(i));
    CheckAgainstReference(cases[i], seed);
    seed += 3;
  }
}

}  // namespace webnx::conv_transpose_testing
