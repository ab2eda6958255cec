// Sum of a channel plane for GlobalAveragePool, in double precision like the scalar loop it
// replaces, but with independent f64x2 accumulators instead of one serial chain of adds.
#pragma once

#include <cstdint>

namespace webnx::simd {

double PlaneSum(const float* x, int64_t n);

}  // namespace webnx::simd
