// f32 GEMM microkernels (WASM SIMD128 via kernels/simd/vec.h) with the left matrix packed once
// at plan time. Convolutions in NCHW map onto them directly: weights [Cout, Cin*kh*kw] are the
// packed left matrix and the (im2col'd) input [Cin*kh*kw, H*W] is read in place.
#pragma once

#include <cstddef>
#include <limits>

namespace webnx::simd {

constexpr int kGemmMr = 4;  // rows of C per microkernel tile
constexpr int kGemmNr = 8;  // columns of C per microkernel tile (two f32x4)

struct GemmEpilogue {
  const float* bias = nullptr;  // one per row of C, or null
  float min = -std::numeric_limits<float>::infinity();
  float max = std::numeric_limits<float>::infinity();
};

// Floats needed to pack an M x K matrix into kGemmMr-row panels.
size_t PackedLhsSize(int m, int k);
// Panel p holds, for each k, rows [p*Mr, p*Mr+Mr) of column k; rows past M are zero.
void PackLhs(const float* a, int m, int k, int lda, float* packed);

// C[i][j] = clamp(bias[i] + sum_k A[i][k] * B[k][j]) for i < M, j < N.
void GemmPackedLhs(int m, int n, int k, const float* packed_a, const float* b, int ldb, float* c,
                   int ldc, const GemmEpilogue& epilogue);

// Y[i][j] = clamp(bias[j] + dot(X[i, :], W[j, :])): a matrix times the transpose of a
// row-major weight (Gemm with transB=1, the classifier of every zoo model).
void GemmTransposedRhs(int m, int n, int k, const float* x, int ldx, const float* w, int ldw,
                       float* y, int ldy, const GemmEpilogue& epilogue);

}  // namespace webnx::simd
