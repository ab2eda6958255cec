// A GEMM whose right-hand matrix is never built: row kk of B is a zero-padded image read in place
// at a fixed offset, offsets[kk] floats from each output's origin, so the columns are consecutive
// outputs of a stride-1 correlation (an implicit im2col: ConvTranspose's phases,
// kernels/conv_transpose_phases.h). The left matrix is packed by PackLhs (kernels/simd/gemm.h);
// every output is the same chain of multiply-adds as GemmPacked's, the same epilogue after it.
#pragma once

#include <cstddef>

#include "kernels/simd/gemm.h"

namespace webnx::simd {

// C[i][j] = act(clamp(bias[i] + sum_kk A[i][kk] * origin[j + offsets[kk]])) for i < m, j < n.
// Reads origin[j + offsets[kk]] for j up to n rounded up to a multiple of kGemmNr: the image
// must extend kGemmNr - 1 floats past its last read. The addend is not supported.
void GemmOffsetRhs(int m, int n, int k, const float* packed_a, const float* origin,
                   const ptrdiff_t* offsets, float* c, int ldc, const GemmEpilogue& epilogue);

// out[2 j] = a[j] for j < na, out[2 j + 1] = b[j] for j < nb (nb <= na <= nb + 1): two column
// phases of a stride-2 output row into the row.
void Interleave2(const float* a, int na, const float* b, int nb, float* out);

}  // namespace webnx::simd
