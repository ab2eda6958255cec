// Element conversion between dtypes with Cast's rules (kernels/cast.cc), for kernels that
// compute a dtype in a wider one.
#pragma once

#include <cstdint>

#include "core/tensor.h"

namespace webnx {

// dst[i] = src[i] converted from `from` to `to`, for n elements (any two dtypes).
void ConvertElements(DType from, const void* src, DType to, void* dst, int64_t n);

}  // namespace webnx
