#include "kernels/simd/arith.h"

#include "kernels/simd/vec.h"

namespace webnx::simd {
namespace {

template <ArithOp kOp>
inline f32x4 Apply(f32x4 a, f32x4 b) {
  if constexpr (kOp == ArithOp::kAdd) return Add(a, b);
  if constexpr (kOp == ArithOp::kSub) return Sub(a, b);
  if constexpr (kOp == ArithOp::kMul) return Mul(a, b);
  return Div(a, b);
}

template <ArithOp kOp>
inline float Apply(float a, float b) {
  if constexpr (kOp == ArithOp::kAdd) return a + b;
  if constexpr (kOp == ArithOp::kSub) return a - b;
  if constexpr (kOp == ArithOp::kMul) return a * b;
  return a / b;
}

template <ArithOp kOp>
void Same(const float* a, const float* b, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) Store(y + i, Apply<kOp>(Load(a + i), Load(b + i)));
  WEBNX_PLAIN_LOOP
  for (; i < n; ++i) y[i] = Apply<kOp>(a[i], b[i]);
}

template <ArithOp kOp, bool kLeft>
void Scalar(const float* a, float b, float* y, int64_t n) {
  const f32x4 bv = Splat(b);
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const f32x4 av = Load(a + i);
    Store(y + i, kLeft ? Apply<kOp>(bv, av) : Apply<kOp>(av, bv));
  }
  WEBNX_PLAIN_LOOP
  for (; i < n; ++i) y[i] = kLeft ? Apply<kOp>(b, a[i]) : Apply<kOp>(a[i], b);
}

}  // namespace

void ArithSame(ArithOp op, const float* a, const float* b, float* y, int64_t n) {
  switch (op) {
    case ArithOp::kAdd:
      return Same<ArithOp::kAdd>(a, b, y, n);
    case ArithOp::kSub:
      return Same<ArithOp::kSub>(a, b, y, n);
    case ArithOp::kMul:
      return Same<ArithOp::kMul>(a, b, y, n);
    case ArithOp::kDiv:
      return Same<ArithOp::kDiv>(a, b, y, n);
  }
}

void ArithScalar(ArithOp op, const float* a, float b, bool b_on_left, float* y, int64_t n) {
  switch (op) {
    case ArithOp::kAdd:
      return Scalar<ArithOp::kAdd, false>(a, b, y, n);  // commutes
    case ArithOp::kMul:
      return Scalar<ArithOp::kMul, false>(a, b, y, n);
    case ArithOp::kSub:
      return b_on_left ? Scalar<ArithOp::kSub, true>(a, b, y, n)
                       : Scalar<ArithOp::kSub, false>(a, b, y, n);
    case ArithOp::kDiv:
      return b_on_left ? Scalar<ArithOp::kDiv, true>(a, b, y, n)
                       : Scalar<ArithOp::kDiv, false>(a, b, y, n);
  }
}

}  // namespace webnx::simd
