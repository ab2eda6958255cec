// Float add/sub/mul/div with WASM SIMD128 for the two layouts conv nets feed them: operands of
// one shape (SiLU's x * sigmoid(x), residual adds) and a tensor with one value per channel
// plane (squeeze-excite's scale). Broadcasting in general stays with the scalar walker.
#pragma once

#include <cstdint>

namespace webnx::simd {

enum class ArithOp { kAdd, kSub, kMul, kDiv };

// y[i] = a[i] op b[i].
void ArithSame(ArithOp op, const float* a, const float* b, float* y, int64_t n);
// y[i] = a[i] op b (b_on_left: y[i] = b op a[i]).
void ArithScalar(ArithOp op, const float* a, float b, bool b_on_left, float* y, int64_t n);

}  // namespace webnx::simd
