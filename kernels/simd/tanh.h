// tanh with WASM SIMD128, for the recurrent ops' cell and hidden activations.
#pragma once

#include <cstdint>

namespace webnx::simd {

// y[i] = tanh(x[i]) for i < n (x may be y), within about 2 ulp of std::tanh: an odd Taylor
// polynomial where |x| < 0.5, (1 - e) / (1 + e) with e = e^(-2|x|) elsewhere.
void Tanh(const float* x, float* y, int64_t n);

}  // namespace webnx::simd
