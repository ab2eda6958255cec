#include "kernels/simd/warm_up.h"

#include <vector>

#include "kernels/simd/activation.h"
#include "kernels/simd/arith.h"
#include "kernels/simd/dwconv.h"
#include "kernels/simd/dwconv4.h"
#include "kernels/simd/gemm.h"
#include "kernels/simd/im2col.h"
#include "kernels/simd/maxpool.h"
#include "kernels/simd/plane_sum.h"

namespace webnx::simd {
namespace {

// Calls per kernel: enough to spend V8's tiering budget (about 1.8 MB of executed code per
// function). Measured on MobileNetV2 in Node 20: loading +2.5 ms, first run 53-57 -> 44 ms;
// GEMM alone gave 47 ms, four rounds no better.
constexpr int kRounds = 2;

}  // namespace

void WarmUpKernels() {
  constexpr int m = 16, n = 64, k = 64;
  std::vector<float> a(m * k, 0.5f), b(PackedRhsSize(k, n), 0.25f), c(m * n + k * kGemmNr);
  std::vector<float> packed(PackedLhsSize(m, k));
  PackLhs(a.data(), m, k, k, packed.data());
  GemmEpilogue plain, clamped;
  clamped.min = 0.f;
  clamped.max = 6.f;
  for (int r = 0; r < kRounds; ++r) {  // the drivers with and without a clamp
    for (const GemmEpilogue* ep : {&plain, &clamped}) {
      GemmPacked(m, n, k, packed.data(), b.data(), c.data(), n, *ep);
      GemmUnpackedRhs(m, n, k, packed.data(), b.data(), n, c.data(), n, *ep, c.data() + m * n);
      // Partial tiles: 7x7 and 14x14 planes end in one, squeeze-excite convs are nothing else.
      GemmUnpackedRhs(m - 1, n - 3, k, packed.data(), b.data(), n, c.data(), n, *ep,
                      c.data() + m * n);
      GemmUnpackedRhs(m - 2, 1, k, packed.data(), b.data(), n, c.data(), n, *ep, c.data() + m * n);
    }
  }
  const DepthwiseShape dw{28, 28, 28, 28, 3, 3, 1, 1, 1, 1, 1, 1};
  std::vector<float> dw_scratch(DepthwiseScratchFloats(dw));
  DepthwiseInitScratch(dw, dw_scratch.data());
  const DepthwiseShape dw5{28, 28, 28, 28, 5, 5, 1, 1, 2, 2, 1, 1};  // MobileNetV3, EfficientNet
  std::vector<float> dw5_scratch(DepthwiseScratchFloats(dw5));
  DepthwiseInitScratch(dw5, dw5_scratch.data());
  const DepthwiseShape dw4{14, 14, 7, 7, 3, 3, 2, 2, 1, 1, 1, 1};
  std::vector<float> dw4_scratch(Depthwise4ScratchFloats(dw4));
  Depthwise4InitScratch(dw4, dw4_scratch.data());
  const DepthwiseShape dw4_s1{14, 14, 14, 14, 3, 3, 1, 1, 1, 1, 1, 1};  // its stride-1 variant
  std::vector<float> dw4_s1_scratch(Depthwise4ScratchFloats(dw4_s1));
  Depthwise4InitScratch(dw4_s1, dw4_s1_scratch.data());
  std::vector<float> dw4_weights(Depthwise4WeightFloats(dw4, m));
  Depthwise4PackWeights(dw4, m, a.data(), dw4_weights.data());
  std::vector<float> fused_input(k * 196, 0.25f);
  const Conv2DGeometry g{8, 16, 16, 8, 8, 3, 3, 2, 2, 1, 1, 1, 1};
  std::vector<float> columns(PackedRhsSize(8 * 9, 64));
  for (int r = 0; r < kRounds; ++r) {
    DepthwisePlane(dw, b.data(), a.data(), 0.f, c.data(), 0.f, 6.f, dw_scratch.data());
    DepthwisePlane(dw5, b.data(), a.data(), 0.f, c.data(), 0.f, 6.f, dw5_scratch.data());
    Depthwise4Block(dw4, b.data(), 196, 0, 4, dw4_weights.data(), nullptr, 0.f, 6.f, c.data(), 49,
                    dw4_scratch.data());
    Depthwise4Block(dw4_s1, b.data(), 196, 0, 4, dw4_weights.data(), nullptr, 0.f, 6.f, c.data(),
                    196, dw4_s1_scratch.data());
    // A 1x1 conv fused with the depthwise conv after it (196 pixels: a partial panel).
    PackRhs(fused_input.data() + 192, k, 4, 196, c.data() + m * n);
    for (int c0 = 0; c0 < 2 * m; c0 += 4) {  // its tiling budget is spent in fewer calls
      GemmPanelInterleaved(196, k, packed.data() + c0 % m * k, 4, fused_input.data(), 196, nullptr,
                           0.f, 6.f, Depthwise4ScratchInput(dw4, dw4_scratch.data()),
                           c.data() + m * n);
      Depthwise4FromScratch(dw4, c0 % m, 4, dw4_weights.data(), nullptr, 0.f, 6.f, c.data(), 49,
                            dw4_scratch.data());
    }
    Im2ColPanels(g, b.data(), 0, 64, columns.data());
  }
  // Not WinogradBlock: only ResNet-style 3x3 convs use it, and its compile (6-18 ms of a
  // compile thread) shared the 2 cores with every other model's loading. ResNet18's first run
  // was no slower for compiling it itself (6 alternating cold starts: 167 -> 163 ms).
  const Pool2DShape pool{16, 16, 8, 8, 3, 3, 2, 2, 1, 1};
  std::vector<float> pool_scratch(MaxPoolScratchFloats(pool));
  MaxPoolInitScratch(pool, pool_scratch.data());
  for (int r = 0; r < kRounds; ++r) {
    MaxPoolPlane(pool, b.data(), c.data(), pool_scratch.data());
    // The classifier: one row against 64 weight rows.
    GemmTransposedRhs(1, 64, 64, b.data(), 64, b.data(), 64, c.data(), 64, plain);
  }
  // The activation epilogues (SiLU, hard-swish), squeeze-excite's scale and the global pool.
  const Activation silu{ActivationKind::kSigmoid, 0.f, 0.f, true};
  double sum = 0;
  for (int r = 0; r < kRounds; ++r) {
    ApplyActivation(silu, c.data(), 1024);
    ApplyActivation(kHardSwish, c.data(), 1024);
    ArithScalar(ArithOp::kMul, b.data(), 0.5f, false, c.data(), 1024);
    ArithSame(ArithOp::kAdd, b.data(), b.data() + 1024, c.data(), 1024);
    sum += PlaneSum(b.data(), 4096);
  }
  c[0] = static_cast<float>(sum);  // keeps the sums from being optimised away
}

}  // namespace webnx::simd
