#include "kernels/simd/attention.h"

#include <cstddef>
#include <limits>

#include "kernels/simd/activation.h"
#include "kernels/simd/vec.h"

namespace webnx::simd {

float RowMax(const float* x, int n) {
  float best = -std::numeric_limits<float>::infinity();
  int i = 0;
  if (n >= 4) {
    f32x4 acc = Load(x);
    for (i = 4; i + 4 <= n; i += 4) acc = PMax(acc, Load(x + i));
    alignas(16) float lanes[4];
    Store(lanes, acc);
    for (float lane : lanes) best = lane > best ? lane : best;
  }
  WEBNX_PLAIN_LOOP
  for (; i < n; ++i) best = x[i] > best ? x[i] : best;
  return best;
}

float ExpShiftedSum(float* x, int n, float shift) {
  const f32x4 shift_v = Splat(shift);
  int i = 0;
  for (; i + 4 <= n; i += 4) Store(x + i, Sub(Load(x + i), shift_v));
  WEBNX_PLAIN_LOOP
  for (; i < n; ++i) x[i] -= shift;
  Exp(x, x, n);
  f32x4 acc = Splat(0.f);
  for (i = 0; i + 4 <= n; i += 4) acc = Add(acc, Load(x + i));
  float sum = HorizontalSum(acc);
  WEBNX_PLAIN_LOOP
  for (; i < n; ++i) sum += x[i];
  return sum;
}

void ScaleRow(float* x, int n, float factor) {
  const f32x4 f = Splat(factor);
  int i = 0;
  for (; i + 4 <= n; i += 4) Store(x + i, Mul(Load(x + i), f));
  WEBNX_PLAIN_LOOP
  for (; i < n; ++i) x[i] *= factor;
}

namespace {

// Columns [j, j + 4 * kVecs) of kRows output rows, the accumulators kept in registers over
// every key.
template <int kRows, int kVecs>
inline void WeightedColumns(int j, int keys, const float* p, int ldp, const float* v, int ldv,
                            float* y, int ldy, bool accumulate) {
  f32x4 acc[kRows][kVecs];
  for (int r = 0; r < kRows; ++r) {
    for (int c = 0; c < kVecs; ++c)
      acc[r][c] = accumulate ? Load(y + static_cast<size_t>(r) * ldy + j + 4 * c) : Splat(0.f);
  }
  for (int t = 0; t < keys; ++t) {
    const float* vt = v + static_cast<size_t>(t) * ldv + j;
    f32x4 vv[kVecs];
    for (int c = 0; c < kVecs; ++c) vv[c] = Load(vt + 4 * c);
    for (int r = 0; r < kRows; ++r) {
      const f32x4 w = LoadSplat(p + static_cast<size_t>(r) * ldp + t);
      for (int c = 0; c < kVecs; ++c) acc[r][c] = MulAdd(acc[r][c], w, vv[c]);
    }
  }
  for (int r = 0; r < kRows; ++r) {
    for (int c = 0; c < kVecs; ++c) Store(y + static_cast<size_t>(r) * ldy + j + 4 * c, acc[r][c]);
  }
}

template <int kRows>
WEBNX_SEPARATE_FUNCTION void WeightedSum(int keys, int n, const float* p, int ldp, const float* v,
                                         int ldv, float* y, int ldy, bool accumulate) {
  int j = 0;
  for (; j + 8 <= n; j += 8) WeightedColumns<kRows, 2>(j, keys, p, ldp, v, ldv, y, ldy, accumulate);
  for (; j + 4 <= n; j += 4) WeightedColumns<kRows, 1>(j, keys, p, ldp, v, ldv, y, ldy, accumulate);
  // The last 1-3 columns, in the same order of additions as the vector lanes.
  for (; j < n; ++j) {
    for (int r = 0; r < kRows; ++r) {
      float* out = y + static_cast<size_t>(r) * ldy + j;
      const float* pr = p + static_cast<size_t>(r) * ldp;
      float acc = accumulate ? *out : 0.f;
      WEBNX_PLAIN_LOOP
      for (int t = 0; t < keys; ++t) acc += pr[t] * v[static_cast<size_t>(t) * ldv + j];
      *out = acc;
    }
  }
}

}  // namespace

// Four rows share each load of V; fewer (a block's last rows) go one at a time: variants for two
// and three rows cost more code than they gained.
void WeightedSumRows(int rows, int keys, int n, const float* p, int ldp, const float* v, int ldv,
                     float* y, int ldy, bool accumulate) {
  if (rows >= 4) return WeightedSum<4>(keys, n, p, ldp, v, ldv, y, ldy, accumulate);
  for (int r = 0; r < rows; ++r) {
    WeightedSum<1>(keys, n, p + static_cast<size_t>(r) * ldp, ldp, v, ldv,
                   y + static_cast<size_t>(r) * ldy, ldy, accumulate);
  }
}

}  // namespace webnx::simd
