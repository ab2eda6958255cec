#include "kernels/gemm_ref.h"

#include <algorithm>

namespace webnx {
namespace {

// A kBlockK x kBlockN panel of B (128 KiB) stays in L2 while every row block of A streams over
// it; four C row segments of kBlockN floats stay in L1.
constexpr int64_t kBlockK = 128;
constexpr int64_t kBlockN = 256;
// Independent partial sums let the dot product vectorize without reassociating a single sum.
constexpr int kDotLanes = 8;

void ScaleC(int64_t m, int64_t n, float beta, float* c, int64_t ldc) {
  if (beta == 1.f) return;
  for (int64_t i = 0; i < m; ++i) {
    float* row = c + i * ldc;
    if (beta == 0.f) {
      std::fill(row, row + n, 0.f);
    } else {
      for (int64_t j = 0; j < n; ++j) row[j] *= beta;
    }
  }
}

inline float ElemA(bool trans_a, const float* a, int64_t lda, int64_t i, int64_t kk) {
  return trans_a ? a[kk * lda + i] : a[i * lda + kk];
}

// C[i0..i0+4) += alpha * op(A)[i0..i0+4, k-block] * B[k-block, n-block]: each B row is read
// once for four C rows, and the j loop is a plain vectorizable axpy.
void Rows4(bool trans_a, int64_t i0, int64_t k0, int64_t kb, int64_t n0, int64_t nb, float alpha,
           const float* a, int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc) {
  float* __restrict c0 = c + i0 * ldc + n0;
  float* __restrict c1 = c0 + ldc;
  float* __restrict c2 = c1 + ldc;
  float* __restrict c3 = c2 + ldc;
  for (int64_t kk = k0; kk < k0 + kb; ++kk) {
    const float* __restrict brow = b + kk * ldb + n0;
    const float a0 = alpha * ElemA(trans_a, a, lda, i0, kk);
    const float a1 = alpha * ElemA(trans_a, a, lda, i0 + 1, kk);
    const float a2 = alpha * ElemA(trans_a, a, lda, i0 + 2, kk);
    const float a3 = alpha * ElemA(trans_a, a, lda, i0 + 3, kk);
    for (int64_t j = 0; j < nb; ++j) {
      const float bj = brow[j];
      c0[j] += a0 * bj;
      c1[j] += a1 * bj;
      c2[j] += a2 * bj;
      c3[j] += a3 * bj;
    }
  }
}

void Row1(bool trans_a, int64_t i, int64_t k0, int64_t kb, int64_t n0, int64_t nb, float alpha,
          const float* a, int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc) {
  float* __restrict crow = c + i * ldc + n0;
  for (int64_t kk = k0; kk < k0 + kb; ++kk) {
    const float* __restrict brow = b + kk * ldb + n0;
    const float av = alpha * ElemA(trans_a, a, lda, i, kk);
    for (int64_t j = 0; j < nb; ++j) crow[j] += av * brow[j];
  }
}

// B stored k x n (not transposed).
void GemmBNormal(bool trans_a, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                 int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc) {
  for (int64_t k0 = 0; k0 < k; k0 += kBlockK) {
    const int64_t kb = std::min(kBlockK, k - k0);
    for (int64_t n0 = 0; n0 < n; n0 += kBlockN) {
      const int64_t nb = std::min(kBlockN, n - n0);
      int64_t i = 0;
      for (; i + 4 <= m; i += 4) Rows4(trans_a, i, k0, kb, n0, nb, alpha, a, lda, b, ldb, c, ldc);
      for (; i < m; ++i) Row1(trans_a, i, k0, kb, n0, nb, alpha, a, lda, b, ldb, c, ldc);
    }
  }
}

float Dot(const float* __restrict x, const float* __restrict y, int64_t k) {
  float lanes[kDotLanes] = {};
  int64_t kk = 0;
  for (; kk + kDotLanes <= k; kk += kDotLanes) {
    for (int l = 0; l < kDotLanes; ++l) lanes[l] += x[kk + l] * y[kk + l];
  }
  float tail = 0.f;
  for (; kk < k; ++kk) tail += x[kk] * y[kk];
  float sum = 0.f;
  for (int l = 0; l < kDotLanes; ++l) sum += lanes[l];
  return sum + tail;
}

// B stored n x k (transposed): every C element is a dot product of two rows.
void GemmBTransposed(bool trans_a, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                     int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i) {
    float* crow = c + i * ldc;
    for (int64_t j = 0; j < n; ++j) {
      const float* brow = b + j * ldb;
      float sum;
      if (!trans_a) {
        sum = Dot(a + i * lda, brow, k);
      } else {
        sum = 0.f;
        for (int64_t kk = 0; kk < k; ++kk) sum += a[kk * lda + i] * brow[kk];
      }
      crow[j] += alpha * sum;
    }
  }
}

}  // namespace

void GemmRef(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
             const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
             int64_t ldc) {
  if (m <= 0 || n <= 0) return;
  ScaleC(m, n, beta, c, ldc);
  if (k <= 0) return;
  if (trans_b) {
    GemmBTransposed(trans_a, m, n, k, alpha, a, lda, b, ldb, c, ldc);
  } else {
    GemmBNormal(trans_a, m, n, k, alpha, a, lda, b, ldb, c, ldc);
  }
}

void TransposeMatrix(const float* src, int64_t rows, int64_t cols, float* dst) {
  // Tiles keep both the reads and the strided writes within a few cache lines.
  constexpr int64_t kTile = 32;
  for (int64_t r0 = 0; r0 < rows; r0 += kTile) {
    for (int64_t c0 = 0; c0 < cols; c0 += kTile) {
      const int64_t r1 = std::min(rows, r0 + kTile);
      const int64_t c1 = std::min(cols, c0 + kTile);
      for (int64_t r = r0; r < r1; ++r) {
        for (int64_t col = c0; col < c1; ++col) dst[col * rows + r] = src[r * cols + col];
      }
    }
  }
}

}  // namespace webnx
