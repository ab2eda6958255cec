// The scalar single-precision GEMM shared by Gemm, MatMul and Conv. Loops are blocked for cache
// and written so that compilers auto-vectorize the inner ones (native SSE, wasm SIMD128).
#pragma once

#include <cstdint>

namespace webnx {

// C = alpha * op(A) * op(B) + beta * C, all row-major with leading dimensions (elements between
// rows). op(A) is m x k (A is stored k x m when trans_a); op(B) is k x n (B is stored n x k when
// trans_b). beta == 0 overwrites C without reading it, so C may start uninitialised.
void GemmRef(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
             const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
             int64_t ldc);

// dst (cols x rows) = transpose of src (rows x cols), both dense row-major.
void TransposeMatrix(const float* src, int64_t rows, int64_t cols, float* dst);

}  // namespace webnx
