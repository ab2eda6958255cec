// The SIMD microkernels against naive loops on odd shapes: column/row tails, tiny and large K,
// strides, pads, dilations, clamps. Natively this runs SIMDe's implementation of the same
// wasm intrinsics the .wasm uses.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/simd/activation.h"
#include "kernels/simd/dwconv.h"
#include "kernels/simd/dwconv4.h"
#include "kernels/simd/gemm.h"
#include "kernels/simd/im2col.h"
#include "kernels/simd/maxpool.h"
#include "kernels/simd/plane_sum.h"
#include "kernels/simd/vec.h"
#include "kernels/simd/warm_up.h"
#include "tests/unit/op_runner.h"

namespace webnx::simd {
namespace {

using testing::RandomFloats;

void ExpectClose(const std::vector<float>& got, const std::vector<float>& want, float tol,
                 const std::string& what) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], tol * (1.f + std::fabs(want[i]))) << what << " at " << i;
  }
}

// A random m x k left matrix (lda floats per row) and its packed form.
struct RandomLhs {
  std::vector<float> a, packed;
};
RandomLhs MakeRandomLhs(int m, int k, int lda, uint32_t seed) {
  RandomLhs lhs{RandomFloats(static_cast<size_t>(m) * lda, seed),
                std::vector<float>(PackedLhsSize(m, k))};
  PackLhs(lhs.a.data(), m, k, lda, lhs.packed.data());
  return lhs;
}

TEST(SimdGemm, PackedOperandsMatchNaiveOnOddShapes) {
  uint32_t seed = 1;
  for (int m : {1, 3, 4, 5, 9, 16, 17})
    for (int n : {1, 3, 4, 7, 8, 9, 13, 33, 70})
      for (int k : {1, 2, 5, 16, 67, 600}) {
        const int lda = k + 3, ldb = n + 5, ldc = n + 2;
        const RandomLhs lhs = MakeRandomLhs(m, k, lda, seed++);
        const std::vector<float>& a = lhs.a;
        const std::vector<float>& packed = lhs.packed;
        auto b = RandomFloats(static_cast<size_t>(k) * ldb + 8, seed++);
        auto bias = RandomFloats(m, seed++);
        GemmEpilogue ep;
        ep.bias = (m + n) % 2 ? bias.data() : nullptr;
        const auto addend = RandomFloats(static_cast<size_t>(m) * ldc, seed++);
        ep.addend = (m + k) % 3 == 0 ? addend.data() : nullptr;
        ep.min = (n % 3 == 0) ? -0.25f : ep.min;
        ep.max = (n % 3 == 0) ? 0.5f : ep.max;
        std::vector<float> packed_b(PackedRhsSize(k, n), NAN);
        PackRhs(b.data(), k, n, ldb, packed_b.data());
        std::vector<float> c(static_cast<size_t>(m) * ldc, 42.f), want = c;
        std::vector<float> c_unpacked = c, tail_panel(static_cast<size_t>(k) * kGemmNr, NAN);
        GemmPacked(m, n, k, packed.data(), packed_b.data(), c.data(), ldc, ep);
        GemmUnpackedRhs(m, n, k, packed.data(), b.data(), ldb, c_unpacked.data(), ldc, ep,
                        tail_panel.data());
        for (int i = 0; i < m; ++i)
          for (int j = 0; j < n; ++j) {
            float acc = ep.bias ? ep.bias[i] : 0.f;
            for (int kk = 0; kk < k; ++kk) acc += a[i * lda + kk] * b[kk * ldb + j];
            if (ep.addend) acc += ep.addend[i * ldc + j];
            want[i * ldc + j] = std::min(std::max(acc, ep.min), ep.max);
          }
        const std::string shape =
            "m=" + std::to_string(m) + " n=" + std::to_string(n) + " k=" + std::to_string(k);
        ExpectClose(c, want, 1e-5f, shape);
        ExpectClose(c_unpacked, want, 1e-5f, "unpacked B " + shape);
      }
}

// A dense row-major `rows` x `cols` copy of the transpose of `stored` (cols x rows, ld apart).
std::vector<float> TransposeOf(const std::vector<float>& stored, int rows, int cols, int ld) {
  std::vector<float> plain(static_cast<size_t>(rows) * cols);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) plain[r * cols + c] = stored[c * ld + r];
  return plain;
}

// The packers of transposed operands write what PackLhs and PackRhs write from the matrices
// transposed back, padding included (odd sizes, strides wider than the rows).
TEST(SimdGemm, TransposedPackersMatchPackingTheTranspose) {
  uint32_t seed = 900;
  for (int rows : {1, 3, 4, 5, 8, 9, 17})
    for (int k : {1, 2, 7, 64}) {
      const int lda = rows + 3;  // A stored k x rows
      const auto a = RandomFloats(static_cast<size_t>(k) * lda, seed++);
      std::vector<float> want(PackedLhsSize(rows, k), NAN), got(want.size(), NAN);
      PackLhs(TransposeOf(a, rows, k, lda).data(), rows, k, k, want.data());
      PackLhsTransposed(a.data(), rows, k, lda, got.data());
      EXPECT_EQ(got, want) << "lhs " << rows << "x" << k;
      const int ldb = k + 2;  // B stored n x k, n = rows
      const auto b = RandomFloats(static_cast<size_t>(rows) * ldb, seed++);
      std::vector<float> want_b(PackedRhsSize(k, rows), NAN), got_b(want_b.size(), NAN);
      PackRhs(TransposeOf(b, k, rows, ldb).data(), k, rows, rows, want_b.data());
      PackRhsTransposed(b.data(), k, rows, ldb, got_b.data());
      EXPECT_EQ(got_b, want_b) << "rhs " << k << "x" << rows;
    }
}

// One 4-row panel against an image of width x height pixels (B read in place), written
// interleaved into a padded buffer: every stored pixel equals GemmUnpackedRhs's output bit for
// bit, and nothing outside rows x cols of the image is touched.
TEST(SimdGemm, PanelInterleavedMatchesUnpackedBitwise) {
  uint32_t seed = 500;
  for (int rows : {1, 3, 4})
    for (int k : {1, 7, 16, 67})
      for (int width : {1, 3, 7, 8, 13, 28})
        for (int height : {1, 2, 5}) {
          const int n = width * height;
          // A consumer may read fewer rows and columns than the image has.
          const int keep_rows = std::max(1, height - (k % 2)), keep_cols = width - (width > 3);
          const std::vector<float> packed = MakeRandomLhs(rows, k, k, seed++).packed;
          auto b = RandomFloats(static_cast<size_t>(k) * n + 8, seed++);
          auto bias = RandomFloats(rows, seed++);
          GemmEpilogue ep;
          ep.bias = k % 2 ? bias.data() : nullptr;
          ep.min = width % 2 ? -0.3f : ep.min;
          ep.max = width % 2 ? 0.4f : ep.max;
          std::vector<float> want(static_cast<size_t>(rows) * n), tail(k * kGemmNr, NAN);
          GemmUnpackedRhs(rows, n, k, packed.data(), b.data(), n, want.data(), n, ep, tail.data());
          const int full = n / kGemmNr * kGemmNr;
          if (full < n) PackRhs(b.data() + full, k, n - full, n, tail.data());
          const size_t row_stride = static_cast<size_t>(width + 3) * 4;
          std::vector<float> image(row_stride * (height + 2), -7.f);
          InterleavedImage out{image.data() + row_stride + 8, row_stride, width, keep_rows,
                               keep_cols};
          GemmPanelInterleaved(n, k, packed.data(), rows, b.data(), n, ep.bias, ep.min, ep.max, out,
                               tail.data());
          const std::string shape = "rows=" + std::to_string(rows) + " k=" + std::to_string(k) +
                                    " " + std::to_string(width) + "x" + std::to_string(height);
          for (size_t i = 0; i < image.size(); ++i) {
            const ptrdiff_t at = static_cast<ptrdiff_t>(i) - (row_stride + 8);
            const ptrdiff_t y = at >= 0 ? at / static_cast<ptrdiff_t>(row_stride) : -1;
            const ptrdiff_t x = at >= 0 ? at % static_cast<ptrdiff_t>(row_stride) / 4 : -1;
            const int r = static_cast<int>(at >= 0 ? at % 4 : 0);
            if (y >= 0 && y < keep_rows && x >= 0 && x < keep_cols) {
              const float expected =
                  r < rows ? want[r * n + y * width + x] : std::min(std::max(0.f, ep.min), ep.max);
              ASSERT_EQ(image[i], expected) << shape << " pixel " << y << "," << x << " row " << r;
            } else {
              ASSERT_EQ(image[i], -7.f) << shape << " wrote outside the image at " << i;
            }
          }
        }
}

// A last column alone takes its own kernel (ColumnTile); its outputs must be bitwise those
// the 8-column tile gives the same column, with bias, residual addend and clamp, for every
// row-panel height.
TEST(SimdGemm, LoneLastColumnIsBitwiseTheTilesColumn) {
  uint32_t seed = 900;
  for (int m : {1, 3, 4, 7})
    for (int k : {1, 5, 37}) {
      const std::vector<float> packed = MakeRandomLhs(m, k, k, seed++).packed;
      const int ldb = 16;
      auto b = RandomFloats(static_cast<size_t>(k) * ldb, seed++);
      auto bias = RandomFloats(m, seed++);
      auto addend = RandomFloats(static_cast<size_t>(m) * ldb, seed++);
      GemmEpilogue ep;
      ep.bias = bias.data();
      ep.addend = addend.data();
      ep.min = -0.5f;
      ep.max = 0.6f;
      std::vector<float> tile(static_cast<size_t>(m) * ldb), lone(tile.size(), NAN);
      std::vector<float> tail(static_cast<size_t>(k) * kGemmNr);
      GemmUnpackedRhs(m, 16, k, packed.data(), b.data(), ldb, tile.data(), ldb, ep, tail.data());
      GemmUnpackedRhs(m, 9, k, packed.data(), b.data(), ldb, lone.data(), ldb, ep, tail.data());
      for (int r = 0; r < m; ++r)
        for (int j = 0; j < 9; ++j)
          ASSERT_EQ(lone[r * ldb + j], tile[r * ldb + j])
              << "m=" << m << " k=" << k << " row " << r << " column " << j;
    }
}

// A one-row product runs blocks of four panels at once (kernels/simd/gemm_row.h): each output
// is still the 4x8 tile's chain, so row 0 alone equals row 0 of a four-row product, bitwise.
TEST(SimdGemm, SingleRowIsBitwiseTheTilesRow) {
  uint32_t seed = 1300;
  for (int n : {16, 32, 40, 48, 56, 70, 97})
    for (int k : {1, 6, 128}) {
      const RandomLhs lhs = MakeRandomLhs(4, k, k, seed++);
      std::vector<float> row_packed(PackedLhsSize(1, k));
      PackLhs(lhs.a.data(), 1, k, k, row_packed.data());
      const int ldb = n + 3;
      const auto b = RandomFloats(static_cast<size_t>(k) * ldb, seed++);
      const auto bias = RandomFloats(4, seed++);
      const auto addend = RandomFloats(static_cast<size_t>(4) * ldb, seed++);
      std::vector<float> packed_b(PackedRhsSize(k, n)), tail(static_cast<size_t>(k) * kGemmNr);
      PackRhs(b.data(), k, n, ldb, packed_b.data());
      for (int variant = 0; variant < 4; ++variant) {
        GemmEpilogue ep;
        ep.bias = variant & 1 ? bias.data() : nullptr;
        ep.addend = variant & 2 ? addend.data() : nullptr;
        if (variant == 3) ep.min = -0.5f, ep.max = 0.6f;
        std::vector<float> four(static_cast<size_t>(4) * ldb), one(ldb, NAN), one_in_place = one;
        GemmPacked(4, n, k, lhs.packed.data(), packed_b.data(), four.data(), ldb, ep);
        GemmPacked(1, n, k, row_packed.data(), packed_b.data(), one.data(), ldb, ep);
        GemmUnpackedRhs(1, n, k, row_packed.data(), b.data(), ldb, one_in_place.data(), ldb, ep,
                        tail.data());
        for (int j = 0; j < n; ++j) {
          ASSERT_EQ(one[j], four[j])
              << "n=" << n << " k=" << k << " variant " << variant << " column " << j;
          ASSERT_EQ(one_in_place[j], four[j])
              << "in place, n=" << n << " k=" << k << " column " << j;
        }
      }
    }
}

// A GEMM deeper than 2048 with whole row panels runs in passes over its depth, each resuming
// from the sums the one before stored in C (kernels/simd/gemm.cc, DepthPass); a single row runs
// in one pass. Every row of a deep product must equal that row's product alone, bitwise: whole
// and partial row panels (the last of 5 or 7 rows), the lone last column, tail panels, and every
// epilogue applied once, after the last pass. It fails if a pass restarts from the bias, drops
// a partial tile's sums or applies the clamp or addend early.
TEST(SimdGemm, DeepProductInPassesIsBitwiseOnePass) {
  uint32_t seed = 1700;
  for (int m : {4, 5, 7})
    for (int n : {9, 13, 16})
      for (int k : {2049, 2600}) {
        const RandomLhs lhs = MakeRandomLhs(m, k, k, seed++);
        const int ldb = n + 3;
        const auto b = RandomFloats(static_cast<size_t>(k) * ldb, seed++);
        const auto bias = RandomFloats(m, seed++);
        const auto addend = RandomFloats(static_cast<size_t>(m) * ldb, seed++);
        std::vector<float> packed_b(PackedRhsSize(k, n)), tail(static_cast<size_t>(k) * kGemmNr);
        PackRhs(b.data(), k, n, ldb, packed_b.data());
        for (int variant = 0; variant < 3; ++variant) {
          GemmEpilogue ep;
          ep.bias = variant != 1 ? bias.data() : nullptr;
          ep.addend = variant != 0 ? addend.data() : nullptr;
          if (variant == 2) ep.min = -3.f, ep.max = 2.5f;
          std::vector<float> deep(static_cast<size_t>(m) * ldb), in_place = deep;
          GemmPacked(m, n, k, lhs.packed.data(), packed_b.data(), deep.data(), ldb, ep);
          GemmUnpackedRhs(m, n, k, lhs.packed.data(), b.data(), ldb, in_place.data(), ldb, ep,
                          tail.data());
          for (int r = 0; r < m; ++r) {
            std::vector<float> row_packed(PackedLhsSize(1, k)), one(ldb, NAN);
            PackLhs(lhs.a.data() + static_cast<size_t>(r) * k, 1, k, k, row_packed.data());
            GemmEpilogue row_ep = ep;
            row_ep.bias = ep.bias ? ep.bias + r : nullptr;
            row_ep.addend = ep.addend ? ep.addend + static_cast<size_t>(r) * ldb : nullptr;
            GemmPacked(1, n, k, row_packed.data(), packed_b.data(), one.data(), ldb, row_ep);
            for (int j = 0; j < n; ++j) {
              ASSERT_EQ(deep[r * ldb + j], one[j])
                  << "m=" << m << " n=" << n << " k=" << k << " variant " << variant << " row " << r
                  << " column " << j;
              ASSERT_EQ(in_place[r * ldb + j], one[j]) << "in place, m=" << m << " n=" << n;
            }
          }
        }
      }
}

TEST(SimdGemm, TransposedRhsMatchesNaive) {
  uint32_t seed = 100;
  for (int m : {1, 2, 5})
    for (int n : {1, 3, 4, 10, 13, 1000})  // 8-, 4- and 1-row steps
      for (int k : {1, 3, 4, 9, 1280}) {
        auto x = RandomFloats(static_cast<size_t>(m) * k, seed++);
        auto w = RandomFloats(static_cast<size_t>(n) * k, seed++);
        auto bias = RandomFloats(n, seed++);
        GemmEpilogue ep;
        ep.bias = bias.data();
        std::vector<float> y(static_cast<size_t>(m) * n), want(y.size());
        GemmTransposedRhs(m, n, k, x.data(), k, w.data(), k, y.data(), n, ep);
        for (int i = 0; i < m; ++i)
          for (int j = 0; j < n; ++j) {
            double acc = bias[j];
            for (int kk = 0; kk < k; ++kk) acc += double(x[i * k + kk]) * w[j * k + kk];
            want[i * n + j] = static_cast<float>(acc);
          }
        ExpectClose(y, want, 1e-4f, "transposed");
      }
}

// Every panel kind: interior rows (vector loads, stride 1 and 2), inside but across output rows,
// and borders in the padding.
TEST(SimdIm2Col, PanelsMatchNaiveColumns) {
  uint32_t seed = 3;
  int cases = 0;
  for (int kernel : {1, 3, 5})
    for (int stride : {1, 2, 3})
      for (int dilation : {1, 2})
        for (int pad : {0, 1, 2})
          for (int size : {4, 11, 37}) {
            Conv2DGeometry g{};
            g.channels = 2;
            g.in_h = size;
            g.in_w = size + 3;
            g.kernel_h = g.kernel_w = kernel;
            g.stride_h = g.stride_w = stride;
            g.dilation_h = g.dilation_w = dilation;
            g.pad_top = g.pad_left = pad;
            const int span = dilation * (kernel - 1) + 1;
            g.out_h = (g.in_h + 2 * pad - span) / stride + 1;
            g.out_w = (g.in_w + 2 * pad - span) / stride + 1;
            if (g.out_h <= 0 || g.out_w <= 0) continue;
            const auto x = RandomFloats(static_cast<size_t>(g.channels) * g.in_h * g.in_w, seed++);
            const int total = g.out_h * g.out_w, rows = g.channels * kernel * kernel;
            const int first = total > 9 ? 3 : 0, count = total - first;  // panels off row starts
            std::vector<float> got(PackedRhsSize(rows, count), NAN);
            Im2ColPanels(g, x.data(), first, count, got.data());
            std::vector<float> want(got.size(), 0.f);
            for (int q = 0; q < count; ++q) {
              const int oy = (first + q) / g.out_w, ox = (first + q) % g.out_w;
              for (int r = 0; r < rows; ++r) {
                const int c = r / (kernel * kernel), ky = r / kernel % kernel, kx = r % kernel;
                const int iy = oy * stride - pad + ky * dilation,
                          ix = ox * stride - pad + kx * dilation;
                const bool inside = iy >= 0 && iy < g.in_h && ix >= 0 && ix < g.in_w;
                want[(q / kGemmNr) * rows * kGemmNr + r * kGemmNr + q % kGemmNr] =
                    inside ? x[(c * g.in_h + iy) * g.in_w + ix] : 0.f;
              }
            }
            ExpectClose(got, want, 0.f,
                        "im2col k=" + std::to_string(kernel) + " s=" + std::to_string(stride) +
                            " d=" + std::to_string(dilation) + " p=" + std::to_string(pad) +
                            " size=" + std::to_string(size));
            ++cases;
          }
  EXPECT_GT(cases, 100);
}

// Windows overhanging the end (ceil mode) and pads on either side; two planes through one scratch.
TEST(SimdMaxPool, MatchesNaiveOnOddPlanes) {
  uint32_t seed = 5;
  int cases = 0;
  for (int kernel : {2, 3, 5})
    for (int stride : {1, 2})
      for (int pad : {0, 1, 2})
        for (int extra : {0, 1})  // ceil mode: one more output than floor mode
          for (int h : {3, 8, 17})
            for (int w : {4, 13, 38}) {
              Pool2DShape s{};
              s.in_h = h;
              s.in_w = w;
              s.kernel_h = s.kernel_w = kernel;
              s.stride_h = s.stride_w = stride;
              s.pad_top = s.pad_left = pad;
              s.out_h = (h + 2 * pad - kernel) / stride + 1 + extra;
              s.out_w = (w + 2 * pad - kernel) / stride + 1 + extra;
              if (s.out_h <= 0 || s.out_w <= 0 || pad >= kernel) continue;
              std::vector<float> scratch(MaxPoolScratchFloats(s), NAN);
              ASSERT_FALSE(scratch.empty());
              MaxPoolInitScratch(s, scratch.data());
              for (int plane = 0; plane < 2; ++plane) {
                auto in = RandomFloats(static_cast<size_t>(h) * w, seed++);
                for (auto& v : in) v -= 2.f;  // all negative: a stale border would show
                // The second plane has NaNs, which the max skips like std::max(best, x) does.
                for (size_t i = 3; plane == 1 && i < in.size(); i += 7) in[i] = NAN;
                std::vector<float> got(static_cast<size_t>(s.out_h) * s.out_w), want(got.size());
                MaxPoolPlane(s, in.data(), got.data(), scratch.data());
                for (int oy = 0; oy < s.out_h; ++oy)
                  for (int ox = 0; ox < s.out_w; ++ox) {
                    float best = -INFINITY;
                    for (int ky = 0; ky < kernel; ++ky)
                      for (int kx = 0; kx < kernel; ++kx) {
                        const int iy = oy * stride - pad + ky, ix = ox * stride - pad + kx;
                        if (iy >= 0 && iy < h && ix >= 0 && ix < w)
                          best = std::max(best, in[iy * w + ix]);
                      }
                    want[oy * s.out_w + ox] = best;
                  }
                for (size_t i = 0; i < want.size(); ++i)  // exact, -inf included
                  ASSERT_EQ(got[i], want[i])
                      << "maxpool k=" << kernel << " s=" << stride << " p=" << pad << " h=" << h
                      << " w=" << w << " plane " << plane << " at " << i;
              }
              ++cases;
            }
  EXPECT_GT(cases, 100);
}

TEST(SimdDepthwise, MatchesScalarOnOddPlanes) {
  uint32_t seed = 7;
  int cases = 0;
  for (int kernel : {1, 3, 5})
    for (int stride : {1, 2, 3})
      for (int dilation : {1, 2})
        for (int pad : {0, 1, 2})
          for (int left : {pad, 2 - pad})  // left pad may differ from the others
            for (int h : {1, 4, 7, 13})
              for (int w : {1, 5, 8, 17, 30, 71}) {
                DepthwiseShape s{};
                s.in_h = h;
                s.in_w = w;
                s.kernel_h = s.kernel_w = kernel;
                s.stride_h = s.stride_w = stride;
                s.dilation_h = s.dilation_w = dilation;
                s.pad_top = pad;
                s.pad_left = left;
                const int span = dilation * (kernel - 1) + 1;
                s.out_h = (h + 2 * pad - span) / stride + 1;
                s.out_w = (w + left + pad - span) / stride + 1;
                if (s.out_h <= 0 || s.out_w <= 0) continue;
                auto in = RandomFloats(static_cast<size_t>(h) * w, seed++);
                auto wt = RandomFloats(static_cast<size_t>(kernel) * kernel, seed++);
                std::vector<float> got(static_cast<size_t>(s.out_h) * s.out_w), want(got.size());
                const float lo = pad == 1 ? 0.f : -INFINITY, hi = pad == 1 ? 0.6f : INFINITY;
                std::vector<float> scratch(DepthwiseScratchFloats(s), NAN);
                DepthwiseInitScratch(s, scratch.data());
                // Two planes through one scratch: the second must not see the first's values.
                for (int plane = 0; plane < 2; ++plane) {
                  if (plane == 1) in = RandomFloats(in.size(), seed++);
                  DepthwisePlane(s, in.data(), wt.data(), 0.125f, got.data(), lo, hi,
                                 scratch.data());
                  DepthwisePlaneScalar(s, in.data(), wt.data(), 0.125f, want.data(), lo, hi);
                  ExpectClose(got, want, 1e-5f,
                              "dw k=" + std::to_string(kernel) + " s=" + std::to_string(stride) +
                                  " pad=" + std::to_string(pad) + "/" + std::to_string(left) +
                                  " h=" + std::to_string(h) + " w=" + std::to_string(w) +
                                  " plane " + std::to_string(plane));
                }
                ++cases;
              }
  EXPECT_GT(cases, 300);
}

// A row's last outputs stored lane by lane: exactly the first `count`, nothing after them.
TEST(SimdStoreFirst, StoresTheFirstCountAndNothingElse) {
  int32_t ints[12];
  for (int i = 0; i < 8; ++i) ints[i] = 100 + i;
  for (int count = 0; count <= 8; ++count) {
    std::vector<int32_t> dst(12, -1);
    StoreFirstInts(dst.data(), wasm_v128_load(ints), wasm_v128_load(ints + 4), count);
    for (int i = 0; i < 12; ++i) EXPECT_EQ(dst[i], i < count ? 100 + i : -1) << count;
  }
}

// Rows of every length up to 40 bytes (each path: bytes, two 8-byte steps, 16-byte steps with
// an overlapping last one), flipped and not, and nothing written past them.
TEST(SimdCopyFlipped, CopiesEachByteOnce) {
  std::vector<uint8_t> src(40);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint8_t>(i * 37 + 11);
  for (int64_t n = 0; n <= 40; ++n) {
    for (uint8_t flip : {0x00, 0x80}) {
      std::vector<uint8_t> dst(48, 5);
      CopyFlipped(src.data(), n, flip, dst.data());
      for (int64_t i = 0; i < 48; ++i) {
        EXPECT_EQ(dst[i], i < n ? static_cast<uint8_t>(src[i] ^ flip) : 5) << n << " " << i;
      }
    }
  }
}

// The start-up warm-up stays inside its buffers (ASan build) and leaves no state behind.
TEST(SimdWarmUp, RunsOnItsOwnBuffers) {
  WarmUpKernels();
  WarmUpKernels();
}

// Against the serial double sum it replaced, on lengths around the 8-float step (tails 0-7),
// with values of mixed magnitude.
TEST(SimdPlaneSum, MatchesTheSerialDoubleSum) {
  for (int64_t n : {0, 1, 3, 7, 8, 9, 15, 16, 17, 49, 196, 785, 12544}) {
    auto x = RandomFloats(static_cast<size_t>(n), static_cast<uint32_t>(n) + 5);
    for (size_t i = 0; i < x.size(); i += 7) x[i] *= 1e4f;
    double want = 0;
    for (float v : x) want += v;
    EXPECT_NEAR(PlaneSum(x.data(), n), want, 1e-9 * (1.0 + std::fabs(want))) << "n=" << n;
  }
}

// Four channels at once against the scalar plane kernel: every block size 1-4 (the channel
// tail), kernels 1-5 with strides, dilations and asymmetric pads, planes from 1x1 up, and two
// images through one scratch.
TEST(SimdDepthwise4, MatchesScalarPerChannel) {
  uint32_t seed = 101;
  int cases = 0;
  for (int kernel : {1, 3, 5})
    for (int stride : {1, 2, 3})  // the kernel has fixed-stride variants for 1 and 2
      for (int dilation : {1, 2})
        for (int pad : {0, 1, 2})
          for (int h : {1, 7, 14})
            for (int w : {1, 5, 7, 8, 14, 16, 19})  // groups of 7 or 4 pixels per row
              for (int channels : {1, 3, 4, 6}) {
                DepthwiseShape s{};
                s.in_h = h;
                s.in_w = w;
                s.kernel_h = kernel;
                s.kernel_w = kernel == 1 ? 1 : kernel - (stride - 1);  // not always square
                s.stride_h = stride;
                s.stride_w = stride == 3 ? 3 : 3 - stride;
                s.dilation_h = dilation;
                s.dilation_w = 1;
                s.pad_top = pad;
                s.pad_left = 2 - pad;
                s.out_h = (h + 2 * pad - (dilation * (s.kernel_h - 1) + 1)) / s.stride_h + 1;
                s.out_w = (w + 2 - (s.kernel_w - 1) - 1) / s.stride_w + 1;
                if (s.out_h <= 0 || s.out_w <= 0) continue;
                const size_t in_plane = static_cast<size_t>(h) * w;
                const size_t out_plane = static_cast<size_t>(s.out_h) * s.out_w;
                const int taps = s.kernel_h * s.kernel_w;
                auto wt = RandomFloats(static_cast<size_t>(channels) * taps, seed++);
                auto bias = RandomFloats(channels, seed++);
                std::vector<float> packed(Depthwise4WeightFloats(s, channels), NAN);
                Depthwise4PackWeights(s, channels, wt.data(), packed.data());
                ASSERT_GT(Depthwise4ScratchFloats(s), 0u);
                std::vector<float> scratch(Depthwise4ScratchFloats(s), NAN);
                Depthwise4InitScratch(s, scratch.data());
                const float lo = pad == 1 ? 0.f : -INFINITY, hi = pad == 1 ? 0.6f : INFINITY;
                for (int image = 0; image < 2; ++image) {
                  auto in = RandomFloats(in_plane * channels, seed++);
                  std::vector<float> got(out_plane * channels, NAN), want(got.size());
                  for (int c0 = 0; c0 < channels; c0 += 4) {
                    Depthwise4Block(s, in.data() + c0 * in_plane, in_plane, c0,
                                    std::min(4, channels - c0), packed.data(),
                                    channels == 3 ? nullptr : bias.data() + c0, lo, hi,
                                    got.data() + c0 * out_plane, out_plane, scratch.data());
                  }
                  for (int c = 0; c < channels; ++c) {
                    DepthwisePlaneScalar(s, in.data() + c * in_plane, wt.data() + c * taps,
                                         channels == 3 ? 0.f : bias[c], want.data() + c * out_plane,
                                         lo, hi);
                  }
                  ExpectClose(got, want, 1e-5f,
                              "dw4 k=" + std::to_string(s.kernel_h) + "x" +
                                  std::to_string(s.kernel_w) + " s=" + std::to_string(stride) +
                                  " d=" + std::to_string(dilation) + " pad=" + std::to_string(pad) +
                                  " " + std::to_string(h) + "x" + std::to_string(w) + " c=" +
                                  std::to_string(channels) + " image " + std::to_string(image));
                }
                ++cases;
              }
  EXPECT_GT(cases, 500);
}

}  // namespace
}  // namespace webnx::simd

namespace webnx::simd {
namespace {

std::vector<float> ActivationInputs() {
  std::vector<float> x = RandomFloats(1003, 77);  // odd length: exercises the 1-3 element tail
  for (auto& v : x) v *= 12.f;
  const float specials[] = {0.f,   -0.f,   1e-30f,   -1e-30f,   88.f, -88.f, 104.f, -104.f,
                            1e30f, -1e30f, INFINITY, -INFINITY, NAN,  3.f,   -3.f};
  x.insert(x.end(), std::begin(specials), std::end(specials));
  return x;
}

TEST(SimdActivation, SigmoidMatchesDoublePrecision) {
  const auto x = ActivationInputs();
  std::vector<float> y(x.size());
  Sigmoid(x.data(), y.data(), static_cast<int64_t>(x.size()));
  for (size_t i = 0; i < x.size(); ++i) {
    if (std::isnan(x[i])) {
      EXPECT_TRUE(std::isnan(y[i]));
      continue;
    }
    const double want = 1.0 / (1.0 + std::exp(-static_cast<double>(x[i])));
    EXPECT_NEAR(y[i], want, 3e-7 * std::max(1e-30, want)) << "x=" << x[i];
  }
}

TEST(SimdActivation, ExpMatchesDoublePrecision) {
  auto x = ActivationInputs();
  std::vector<float> y(x.size());
  Exp(x.data(), y.data(), static_cast<int64_t>(x.size()));
  for (size_t i = 0; i < x.size(); ++i) {
    if (std::isnan(x[i])) continue;
    const double want = std::exp(std::min(88.8, std::max(-104.0, static_cast<double>(x[i]))));
    if (want < 1e-37) continue;  // subnormal results: only approximately representable
    if (want > 3.4028234663852886e38) {
      EXPECT_TRUE(std::isinf(y[i])) << "x=" << x[i];  // overflows to inf
      continue;
    }
    EXPECT_NEAR(y[i], want, 3e-7 * want) << "x=" << x[i];
  }
}

TEST(SimdActivation, HardSigmoidAndHardSwishMatchTheirFormulas) {
  const auto x = ActivationInputs();
  std::vector<float> hs(x.size()), sw(x.size());
  HardSigmoid(0.25f, 0.4f, x.data(), hs.data(), static_cast<int64_t>(x.size()));
  HardSwish(x.data(), sw.data(), static_cast<int64_t>(x.size()));
  auto unit = [](float v) { return v < 0.f ? 0.f : (v > 1.f ? 1.f : v); };
  for (size_t i = 0; i < x.size(); ++i) {
    if (std::isnan(x[i])) continue;
    EXPECT_EQ(hs[i], unit(0.25f * x[i] + 0.4f)) << "x=" << x[i];
    const float want = x[i] * unit(x[i] * (1.f / 6.f) + 0.5f);
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(sw[i]));
    } else {
      EXPECT_EQ(sw[i], want) << "x=" << x[i];
    }
  }
}

// The epilogue form agrees bitwise with the separate kernels and a Mul: what makes fusing
// Sigmoid / HardSigmoid (gated or not) into a conv invisible in its output.
TEST(SimdActivation, EpilogueFormsMatchTheSeparateKernelsBitwise) {
  const auto x = ActivationInputs();
  const int64_t n = static_cast<int64_t>(x.size());
  auto same = [](float a, float b) {
    return std::memcmp(&a, &b, sizeof a) == 0 || (a != a && b != b);
  };
  for (bool gated : {false, true}) {
    for (ActivationKind kind : {ActivationKind::kSigmoid, ActivationKind::kHardSigmoid}) {
      Activation a;
      a.kind = kind;
      a.alpha = 0.3f;
      a.beta = 0.45f;
      a.gated = gated;
      std::vector<float> f(x.size()), got = x;
      if (kind == ActivationKind::kSigmoid) {
        Sigmoid(x.data(), f.data(), n);
      } else {
        HardSigmoid(a.alpha, a.beta, x.data(), f.data(), n);
      }
      ApplyActivation(a, got.data(), n);
      for (size_t i = 0; i < x.size(); ++i) {
        const float want = gated ? x[i] * f[i] : f[i];
        EXPECT_TRUE(same(got[i], want)) << "x=" << x[i] << " gated " << gated;
      }
    }
  }
  // Hard-swish is x * hard-sigmoid(x) with alpha 1/6, beta 1/2.
  Activation swish;
  swish.kind = ActivationKind::kHardSigmoid;
  swish.alpha = 1.f / 6.f;
  swish.beta = 0.5f;
  swish.gated = true;
  std::vector<float> want(x.size()), got = x;
  HardSwish(x.data(), want.data(), n);
  ApplyActivation(swish, got.data(), n);
  for (size_t i = 0; i < x.size(); ++i) EXPECT_TRUE(same(got[i], want[i])) << "x=" << x[i];
}

}  // namespace
}  // namespace webnx::simd
