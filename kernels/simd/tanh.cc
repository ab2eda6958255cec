#include "kernels/simd/tanh.h"

#include <algorithm>

#include "kernels/simd/activation.h"
#include "kernels/simd/vec.h"

namespace webnx::simd {
namespace {

// Floats per pass: e^(-2|x|) for a chunk goes through Exp on the stack, then is combined.
constexpr int kChunk = 64;

// Below this |x|, (1 - e) / (1 + e) would lose bits to cancellation: the series is used there.
constexpr float kSeriesBound = 0.5f;

// Past this |x|, tanh rounds to +-1; clamping keeps e^(-2|x|) away from subnormals.
constexpr float kSaturation = 9.f;

// tanh's Taylor coefficients of x^3 ... x^13; the x^15 term is under 1e-7 relative at 0.5.
constexpr float kSeries[] = {-1.f / 3.f,    2.f / 15.f,         -17.f / 315.f,
                             62.f / 2835.f, -1382.f / 155925.f, 21844.f / 6081075.f};

inline f32x4 TanhVec(f32x4 x, f32x4 e) {
  const f32x4 sign = wasm_v128_and(x, Splat(-0.f));
  const f32x4 magnitude = wasm_v128_andnot(x, Splat(-0.f));
  const f32x4 one = Splat(1.f);
  // (1 - e) / (1 + e) carries the sign of x.
  const f32x4 far = wasm_v128_or(Div(Sub(one, e), Add(one, e)), sign);
  const f32x4 x2 = Mul(x, x);
  f32x4 p = Splat(kSeries[5]);
  for (int i = 4; i >= 0; --i) p = Add(Mul(p, x2), Splat(kSeries[i]));
  const f32x4 near = Add(x, Mul(Mul(x, x2), p));
  return Select(wasm_f32x4_lt(magnitude, Splat(kSeriesBound)), near, far);
}

}  // namespace

void Tanh(const float* x, float* y, int64_t n) {
  alignas(16) float e[kChunk] = {};  // zeros past a short chunk: the padded tail reads them
  alignas(16) float tail[4];
  const f32x4 minus_two = Splat(-2.f), bound = Splat(kSaturation);
  for (int64_t start = 0; start < n; start += kChunk) {
    const int len = static_cast<int>(std::min<int64_t>(kChunk, n - start));
    const float* xs = x + start;
    // e^(-2 min(|x|, 9)), NaN kept (PMin keeps its first operand when unordered).
    int i = 0;
    for (; i + 4 <= len; i += 4)
      Store(e + i, Mul(minus_two, PMin(wasm_v128_andnot(Load(xs + i), Splat(-0.f)), bound)));
    WEBNX_PLAIN_LOOP
    for (; i < len; ++i) e[i] = -2.f * std::min(xs[i] < 0 ? -xs[i] : xs[i], kSaturation);
    Exp(e, e, len);
    float* ys = y + start;
    i = 0;
    for (; i + 4 <= len; i += 4) Store(ys + i, TanhVec(Load(xs + i), Load(e + i)));
    if (i < len) {  // the last 1-3 through a padded vector: every element rounds the same way
      std::fill(tail, tail + 4, 0.f);
      std::copy(xs + i, xs + len, tail);
      Store(tail, TanhVec(Load(tail), Load(e + i)));
      std::copy(tail, tail + (len - i), ys + i);
    }
  }
}

}  // namespace webnx::simd
