#include "kernels/simd/gemm.h"

#include <algorithm>
#include <cstring>

#include "kernels/simd/vec.h"

namespace webnx::simd {
namespace {

inline float ClampScalar(float v, float lo, float hi) {
  return std::min(std::max(v, lo), hi);
}

// One Mr x Nr tile: 8 accumulators, 2 B vectors and 1 splat live (V8 slows down past ~10).
inline void Tile4x8(int k, const float* pa, const float* b, int ldb, float* c, int ldc, int rows,
                    const float* bias, f32x4 lo, f32x4 hi) {
  f32x4 acc[4][2];
  for (int r = 0; r < 4; ++r) {
    f32x4 init = Splat(bias && r < rows ? bias[r] : 0.f);
    acc[r][0] = init;
    acc[r][1] = init;
  }
  for (int kk = 0; kk < k; ++kk) {
    const f32x4 b0 = Load(b);
    const f32x4 b1 = Load(b + 4);
    b += ldb;
    f32x4 a = LoadSplat(pa);
    acc[0][0] = MulAdd(acc[0][0], a, b0);
    acc[0][1] = MulAdd(acc[0][1], a, b1);
    a = LoadSplat(pa + 1);
    acc[1][0] = MulAdd(acc[1][0], a, b0);
    acc[1][1] = MulAdd(acc[1][1], a, b1);
    a = LoadSplat(pa + 2);
    acc[2][0] = MulAdd(acc[2][0], a, b0);
    acc[2][1] = MulAdd(acc[2][1], a, b1);
    a = LoadSplat(pa + 3);
    acc[3][0] = MulAdd(acc[3][0], a, b0);
    acc[3][1] = MulAdd(acc[3][1], a, b1);
    pa += 4;
  }
  for (int r = 0; r < rows; ++r) {
    Store(c + r * ldc, Clamp(acc[r][0], lo, hi));
    Store(c + r * ldc + 4, Clamp(acc[r][1], lo, hi));
  }
}

// Mr x 4 tile for a column tail of 4..7.
inline void Tile4x4(int k, const float* pa, const float* b, int ldb, float* c, int ldc, int rows,
                    const float* bias, f32x4 lo, f32x4 hi) {
  f32x4 acc[4];
  for (int r = 0; r < 4; ++r) acc[r] = Splat(bias && r < rows ? bias[r] : 0.f);
  for (int kk = 0; kk < k; ++kk) {
    const f32x4 b0 = Load(b);
    b += ldb;
    acc[0] = MulAdd(acc[0], LoadSplat(pa), b0);
    acc[1] = MulAdd(acc[1], LoadSplat(pa + 1), b0);
    acc[2] = MulAdd(acc[2], LoadSplat(pa + 2), b0);
    acc[3] = MulAdd(acc[3], LoadSplat(pa + 3), b0);
    pa += 4;
  }
  for (int r = 0; r < rows; ++r) Store(c + r * ldc, Clamp(acc[r], lo, hi));
}

// Mr x 1..3 columns, scalar.
inline void TileScalar(int k, const float* pa, const float* b, int ldb, float* c, int ldc, int rows,
                       int cols, const float* bias, float lo, float hi) {
  for (int j = 0; j < cols; ++j) {
    float acc[4] = {0, 0, 0, 0};
    const float* bj = b + j;
    for (int kk = 0; kk < k; ++kk) {
      const float bv = bj[static_cast<ptrdiff_t>(kk) * ldb];
      for (int r = 0; r < 4; ++r) acc[r] += pa[kk * 4 + r] * bv;
    }
    for (int r = 0; r < rows; ++r)
      c[r * ldc + j] = ClampScalar((bias ? bias[r] : 0.f) + acc[r], lo, hi);
  }
}

}  // namespace

size_t PackedLhsSize(int m, int k) {
  return static_cast<size_t>((m + kGemmMr - 1) / kGemmMr) * kGemmMr * static_cast<size_t>(k);
}

void PackLhs(const float* a, int m, int k, int lda, float* packed) {
  for (int p = 0; p < m; p += kGemmMr) {
    for (int kk = 0; kk < k; ++kk) {
      for (int r = 0; r < kGemmMr; ++r) {
        *packed++ = p + r < m ? a[static_cast<size_t>(p + r) * lda + kk] : 0.f;
      }
    }
  }
}

void GemmPackedLhs(int m, int n, int k, const float* packed_a, const float* b, int ldb, float* c,
                   int ldc, const GemmEpilogue& ep) {
  const f32x4 lo = Splat(ep.min);
  const f32x4 hi = Splat(ep.max);
  // Columns in blocks whose B panel (k x block) stays in cache while every row panel of A
  // passes over it.
  const int block = std::max(kGemmNr, (16384 / std::max(k, 1)) / kGemmNr * kGemmNr);
  for (int j0 = 0; j0 < n; j0 += block) {
    const int j1 = std::min(n, j0 + block);
    for (int i = 0; i < m; i += kGemmMr) {
      const int rows = std::min(kGemmMr, m - i);
      const float* pa = packed_a + static_cast<size_t>(i) * k;
      const float* bias = ep.bias ? ep.bias + i : nullptr;
      float* ci = c + static_cast<size_t>(i) * ldc;
      int j = j0;
      for (; j + kGemmNr <= j1; j += kGemmNr)
        Tile4x8(k, pa, b + j, ldb, ci + j, ldc, rows, bias, lo, hi);
      if (j + 4 <= j1) {
        Tile4x4(k, pa, b + j, ldb, ci + j, ldc, rows, bias, lo, hi);
        j += 4;
      }
      if (j < j1) TileScalar(k, pa, b + j, ldb, ci + j, ldc, rows, j1 - j, bias, ep.min, ep.max);
    }
  }
}

void GemmTransposedRhs(int m, int n, int k, const float* x, int ldx, const float* w, int ldw,
                       float* y, int ldy, const GemmEpilogue& ep) {
  const int k4 = k & ~3;
  for (int i = 0; i < m; ++i) {
    const float* xi = x + static_cast<size_t>(i) * ldx;
    float* yi = y + static_cast<size_t>(i) * ldy;
    int j = 0;
    // Four weight rows at a time share each load of x.
    for (; j + 4 <= n; j += 4) {
      const float* w0 = w + static_cast<size_t>(j) * ldw;
      const float* w1 = w0 + ldw;
      const float* w2 = w1 + ldw;
      const float* w3 = w2 + ldw;
      f32x4 a0 = Splat(0.f), a1 = a0, a2 = a0, a3 = a0;
      for (int kk = 0; kk < k4; kk += 4) {
        const f32x4 xv = Load(xi + kk);
        a0 = MulAdd(a0, xv, Load(w0 + kk));
        a1 = MulAdd(a1, xv, Load(w1 + kk));
        a2 = MulAdd(a2, xv, Load(w2 + kk));
        a3 = MulAdd(a3, xv, Load(w3 + kk));
      }
      float s[4] = {HorizontalSum(a0), HorizontalSum(a1), HorizontalSum(a2), HorizontalSum(a3)};
      for (int kk = k4; kk < k; ++kk) {
        s[0] += xi[kk] * w0[kk];
        s[1] += xi[kk] * w1[kk];
        s[2] += xi[kk] * w2[kk];
        s[3] += xi[kk] * w3[kk];
      }
      for (int r = 0; r < 4; ++r)
        yi[j + r] = ClampScalar((ep.bias ? ep.bias[j + r] : 0.f) + s[r], ep.min, ep.max);
    }
    for (; j < n; ++j) {
      const float* wj = w + static_cast<size_t>(j) * ldw;
      f32x4 a = Splat(0.f);
      for (int kk = 0; kk < k4; kk += 4) a = MulAdd(a, Load(xi + kk), Load(wj + kk));
      float s = HorizontalSum(a);
      for (int kk = k4; kk < k; ++kk) s += xi[kk] * wj[kk];
      yi[j] = ClampScalar((ep.bias ? ep.bias[j] : 0.f) + s, ep.min, ep.max);
    }
  }
}

}  // namespace webnx::simd
