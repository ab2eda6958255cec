// The inner loops of Attention (kernels/attention.cc) with WASM SIMD128: the softmax of a score
// row and the probability-weighted sum of value rows (P·V) for a block of query rows. Q·Kᵀ
// runs on GemmTransposedRhs (kernels/simd/gemm.h).
#pragma once

namespace webnx::simd {

// The largest of x[0, n); -inf when n is 0.
float RowMax(const float* x, int n);

// x[i] = e^(x[i] - shift) for i < n, in place; returns the sum of the results.
float ExpShiftedSum(float* x, int n, float shift);

// x[i] *= factor for i < n.
void ScaleRow(float* x, int n, float factor);

// y[r][j] = (accumulate ? y[r][j] : 0) + sum over t < keys of p[r][t] * v[t][j], for r < rows
// (1 to 4) and j < n. Row r of P is p + r * ldp, row t of V is v + t * ldv, row r of Y is
// y + r * ldy. Each value row is loaded once for every query row of the block.
void WeightedSumRows(int rows, int keys, int n, const float* p, int ldp, const float* v, int ldv,
                     float* y, int ldy, bool accumulate);

}  // namespace webnx::simd
