// The scalar ConvTranspose, straight from the definition: every input element scatters its
// products with the kernel into the output. Any spatial rank and size; what the GEMM path
// (kernels/conv_transpose_gemm.h) does not take runs here, and the tests compare that path
// with it.
#pragma once

#include "kernels/conv_transpose_shape.h"

namespace webnx::conv_transpose {

// y [N, M, out...] = bias (or 0) + the scattered products of x [N, C, in...] and
// w [C, M / groups, k...]. Allocates nothing.
void RunReference(const ConvTransposeShape& shape, const float* x, const float* w,
                  const float* bias, float* y);

}  // namespace webnx::conv_transpose
