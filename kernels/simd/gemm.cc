#include "kernels/simd/gemm.h"

#include <algorithm>
#include <cstring>

#include "kernels/simd/vec.h"

namespace webnx::simd {
namespace {

inline float ClampScalar(float v, float lo, float hi) {
  return std::min(std::max(v, lo), hi);
}

// One Mr x Nr tile on packed operands: 8 accumulators, 2 B vectors and 1 splat live (V8
// slows down past ~10 live vectors). Stores `rows` x `cols` of it (cols < 8 via a copy).
inline void Tile4x8(int k, const float* pa, const float* pb, float* c, int ldc, int rows, int cols,
                    const float* bias, f32x4 lo, f32x4 hi) {
  f32x4 acc[4][2];
  for (int r = 0; r < 4; ++r) {
    f32x4 init = Splat(bias && r < rows ? bias[r] : 0.f);
    acc[r][0] = init;
    acc[r][1] = init;
  }
  for (int kk = 0; kk < k; ++kk) {
    const f32x4 b0 = Load(pb);
    const f32x4 b1 = Load(pb + 4);
    pb += 8;
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
  if (cols == 8) {
    for (int r = 0; r < rows; ++r) {
      Store(c + r * ldc, Clamp(acc[r][0], lo, hi));
      Store(c + r * ldc + 4, Clamp(acc[r][1], lo, hi));
    }
    return;
  }
  alignas(16) float tile[8];
  for (int r = 0; r < rows; ++r) {
    Store(tile, Clamp(acc[r][0], lo, hi));
    Store(tile + 4, Clamp(acc[r][1], lo, hi));
    std::memcpy(c + r * ldc, tile, sizeof(float) * cols);
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

size_t PackedRhsSize(int k, int n) {
  return static_cast<size_t>((n + kGemmNr - 1) / kGemmNr) * kGemmNr * static_cast<size_t>(k);
}

void PackRhs(const float* b, int k, int n, int ldb, float* packed) {
  for (int j = 0; j < n; j += kGemmNr) {
    const int cols = std::min(kGemmNr, n - j);
    for (int kk = 0; kk < k; ++kk) {
      const float* src = b + static_cast<size_t>(kk) * ldb + j;
      if (cols == kGemmNr) {
        Store(packed, Load(src));
        Store(packed + 4, Load(src + 4));
      } else {
        for (int t = 0; t < kGemmNr; ++t) packed[t] = t < cols ? src[t] : 0.f;
      }
      packed += kGemmNr;
    }
  }
}

int GemmColumnBlock(int k) {
  // About 128 KiB of packed B per block: L2-resident while every row panel of A passes over it.
  const int cols = (32768 / std::max(k, 1)) / kGemmNr * kGemmNr;
  return std::max(kGemmNr, std::min(cols, 1024));
}

void GemmPacked(int m, int n, int k, const float* packed_a, const float* packed_b, float* c,
                int ldc, const GemmEpilogue& ep) {
  const f32x4 lo = Splat(ep.min);
  const f32x4 hi = Splat(ep.max);
  for (int i = 0; i < m; i += kGemmMr) {
    const int rows = std::min(kGemmMr, m - i);
    const float* pa = packed_a + static_cast<size_t>(i) * k;
    const float* bias = ep.bias ? ep.bias + i : nullptr;
    float* ci = c + static_cast<size_t>(i) * ldc;
    for (int j = 0; j < n; j += kGemmNr) {
      const float* pb = packed_b + static_cast<size_t>(j) * k;
      Tile4x8(k, pa, pb, ci + j, ldc, rows, std::min(kGemmNr, n - j), bias, lo, hi);
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
