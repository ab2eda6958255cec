// ArithFastPath (arith_fast_path.h): which SIMD path float Add, Sub, Mul or Div operands allow,
// and running it in tasks of kArithChunk elements.
#include "kernels/arith_fast_path.h"

#include <algorithm>

namespace webnx::binary {
namespace {

// Elements per task of the SIMD paths.
constexpr int64_t kArithChunk = 16384;

}  // namespace

void ArithFastPath::Plan(simd::ArithOp op, const Shape& a, const Shape& b, const Shape& out) {
  kind_ = Kind::kNone;
  op_ = op;
  if (!ShapeNumel(out, &numel_) || numel_ == 0) return;
  if (a == out && b == out) {
    kind_ = Kind::kSame;
    return;
  }
  const bool a_full = a == out;
  if (!a_full && b != out) return;
  const Shape& small = a_full ? b : a;
  if (small.size() > out.size()) return;
  Shape padded(out.size() - small.size(), 1);
  padded.insert(padded.end(), small.begin(), small.end());
  int64_t last = -1;  // last axis where the small operand varies
  for (size_t i = 0; i < padded.size(); ++i)
    if (padded[i] != 1) last = static_cast<int64_t>(i);
  inner_ = 1;
  for (size_t i = 0; i < out.size(); ++i) {
    if (static_cast<int64_t>(i) <= last) {
      if (padded[i] != out[i]) return;  // a broadcast in the leading axes: the walker
    } else {
      inner_ *= out[i];
    }
  }
  small_is_b_ = a_full;
  kind_ = Kind::kPlanes;
}

void ArithFastPath::Run(const RunContext& ctx, const float* a, const float* b, float* y) const {
  if (kind_ == Kind::kSame) {
    const int64_t tasks = (numel_ + kArithChunk - 1) / kArithChunk;
    ctx.ParallelFor(tasks, [&](int64_t t, int) {
      const int64_t at = t * kArithChunk, n = std::min(kArithChunk, numel_ - at);
      simd::ArithSame(op_, a + at, b + at, y + at, n);
    });
    return;
  }
  const float* full = small_is_b_ ? a : b;
  const float* small = small_is_b_ ? b : a;
  const int64_t runs = numel_ / inner_;
  const int64_t per_task = std::max<int64_t>(1, kArithChunk / inner_);
  ctx.ParallelFor((runs + per_task - 1) / per_task, [&](int64_t t, int) {
    const int64_t end = std::min(runs, (t + 1) * per_task);
    for (int64_t r = t * per_task; r < end; ++r) {
      simd::ArithScalar(op_, full + r * inner_, small[r], !small_is_b_, y + r * inner_, inner_);
    }
  });
}

}  // namespace webnx::binary
