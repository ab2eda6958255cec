#include "kernels/simd/plane_sum.h"

#include "kernels/simd/vec.h"

namespace webnx::simd {

double PlaneSum(const float* x, int64_t n) {
  v128_t lo0 = wasm_f64x2_splat(0.0), hi0 = lo0, lo1 = lo0, hi1 = lo0;
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const f32x4 a = Load(x + i), b = Load(x + i + 4);
    lo0 = wasm_f64x2_add(lo0, wasm_f64x2_promote_low_f32x4(a));
    hi0 = wasm_f64x2_add(hi0, wasm_f64x2_promote_low_f32x4(wasm_i32x4_shuffle(a, a, 2, 3, 0, 1)));
    lo1 = wasm_f64x2_add(lo1, wasm_f64x2_promote_low_f32x4(b));
    hi1 = wasm_f64x2_add(hi1, wasm_f64x2_promote_low_f32x4(wasm_i32x4_shuffle(b, b, 2, 3, 0, 1)));
  }
  const v128_t sum = wasm_f64x2_add(wasm_f64x2_add(lo0, hi0), wasm_f64x2_add(lo1, hi1));
  double total = wasm_f64x2_extract_lane(sum, 0) + wasm_f64x2_extract_lane(sum, 1);
  WEBNX_PLAIN_LOOP
  for (; i < n; ++i) total += x[i];
  return total;
}

}  // namespace webnx::simd
