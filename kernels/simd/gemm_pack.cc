// Packing of the GEMM's operands into the panels its microkernels stream (kernels/simd/gemm.h).
#include <algorithm>
#include <cstring>
#include <memory>

#include "kernels/simd/gemm.h"
#include "kernels/simd/vec.h"

namespace webnx::simd {

size_t PackedLhsSize(int m, int k) {
  return static_cast<size_t>((m + kGemmMr - 1) / kGemmMr) * kGemmMr * static_cast<size_t>(k);
}

void PackLhs(const float* a, int m, int k, int lda, float* packed) {
  for (int p = 0; p < m; p += kGemmMr) {
    int kk = 0;
    if (p + kGemmMr <= m) {
      // Four rows by four columns at a time, transposed in registers: plans pack every weight.
      const float* r0 = a + static_cast<size_t>(p) * lda;
      const float* r1 = r0 + lda;
      const float* r2 = r1 + lda;
      const float* r3 = r2 + lda;
      for (; kk + 4 <= k; kk += 4, packed += 16) {
        f32x4 x0 = Load(r0 + kk), x1 = Load(r1 + kk), x2 = Load(r2 + kk), x3 = Load(r3 + kk);
        Transpose4x4(x0, x1, x2, x3);
        Store(packed, x0);
        Store(packed + 4, x1);
        Store(packed + 8, x2);
        Store(packed + 12, x3);
      }
    }
    if (p + kGemmMr > m) {  // the last 1-3 rows (a recurrent step's state: every step)
      std::fill(packed, packed + static_cast<size_t>(kGemmMr) * k, 0.f);
      for (int r = 0; p + r < m; ++r) {
        const float* row = a + static_cast<size_t>(p + r) * lda;
        WEBNX_PLAIN_LOOP
        for (int j = 0; j < k; ++j) packed[static_cast<size_t>(j) * kGemmMr + r] = row[j];
      }
      return;
    }
    for (; kk < k; ++kk) {
      for (int r = 0; r < kGemmMr; ++r) *packed++ = a[static_cast<size_t>(p + r) * lda + kk];
    }
  }
}

void PackLhsTransposed(const float* a, int m, int k, int lda, float* packed) {
  for (int p = 0; p < m; p += kGemmMr) {
    const float* column = a + p;  // rows p..p+3 of op(A) are 4 floats of each stored row
    if (p + kGemmMr <= m) {
      for (int kk = 0; kk < k; ++kk, packed += kGemmMr)
        Store(packed, Load(column + static_cast<size_t>(kk) * lda));
      continue;
    }
    WEBNX_PLAIN_LOOP
    for (int kk = 0; kk < k; ++kk) {
      for (int r = 0; r < kGemmMr; ++r)
        *packed++ = p + r < m ? column[static_cast<size_t>(kk) * lda + r] : 0.f;
    }
  }
}

void PackLhsInPlace(float* a, int m, int k) {
  std::unique_ptr<float[]> rows(new float[static_cast<size_t>(kGemmMr) * k]);
  const size_t panel = static_cast<size_t>(kGemmMr) * k;
  for (int p = 0; p < m; p += kGemmMr) {
    float* at = a + static_cast<size_t>(p) * k;
    std::memcpy(rows.get(), at, panel * sizeof(float));
    PackLhs(rows.get(), kGemmMr, k, k, at);
  }
}

void UnpackLhs(const float* packed, int m, int k, float* a) {
  const size_t n = static_cast<size_t>(m) * k;
  // Element i of the packed panels, in order: panels of kGemmMr rows, k columns each.
  WEBNX_PLAIN_LOOP
  for (size_t i = 0; i < PackedLhsSize(m, k); ++i) {
    const size_t panel = i / (static_cast<size_t>(kGemmMr) * k), at = i % (kGemmMr * k);
    const size_t row = panel * kGemmMr + at % kGemmMr, col = at / kGemmMr;
    if (row * k + col < n) a[row * k + col] = packed[i];
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

void PackRhsTransposed(const float* b, int k, int n, int ldb, float* packed) {
  for (int j = 0; j < n; j += kGemmNr) {
    const int cols = std::min(kGemmNr, n - j);
    const float* rows = b + static_cast<size_t>(j) * ldb;  // column j + c of op(B) is row c
    WEBNX_PLAIN_LOOP
    for (int kk = 0; kk < k; ++kk, packed += kGemmNr) {
      for (int c = 0; c < kGemmNr; ++c)
        packed[c] = c < cols ? rows[static_cast<size_t>(c) * ldb + kk] : 0.f;
    }
  }
}

}  // namespace webnx::simd
