#include "kernels/simd/offset_gemm.h"

#include <limits>

#include "kernels/simd/activation.h"
#include "kernels/simd/vec.h"

namespace webnx::simd {
namespace {

template <int kVecs>
struct Sums {
  f32x4 acc[kGemmMr][kVecs];
};

// bias + A's panel times B's k x (4 * kVecs) block, B's row kk at origin + offsets[kk]. Written
// with constant indices only (as in gemm.cc: a dynamically indexed accumulator makes LLVM keep
// them all in memory). Rows past `rows` are A's zero padding and take no bias.
template <int kVecs>
inline Sums<kVecs> OffsetSums(int k, const float* pa, const float* origin, const ptrdiff_t* offsets,
                              int rows, const float* bias) {
  Sums<kVecs> t;
  for (int r = 0; r < kGemmMr; ++r) {
    const f32x4 init = Splat(bias && r < rows ? bias[r] : 0.f);
    for (int v = 0; v < kVecs; ++v) t.acc[r][v] = init;
  }
  for (const ptrdiff_t* end = offsets + k; offsets != end; ++offsets, pa += kGemmMr) {
    const float* pb = origin + *offsets;
    f32x4 b[kVecs];
    for (int v = 0; v < kVecs; ++v) b[v] = Load(pb + 4 * v);
    for (int r = 0; r < kGemmMr; ++r) {
      const f32x4 a = LoadSplat(pa + r);
      for (int v = 0; v < kVecs; ++v) t.acc[r][v] = MulAdd(t.acc[r][v], a, b[v]);
    }
  }
  return t;
}

template <int kVecs, bool kClamp>
inline void ClampSums(Sums<kVecs>& t, f32x4 lo, f32x4 hi) {
  if (!kClamp) return;
  for (int r = 0; r < kGemmMr; ++r)
    for (int v = 0; v < kVecs; ++v) t.acc[r][v] = Clamp(t.acc[r][v], lo, hi);
}

// A tile of kGemmMr rows and 4 * kVecs columns; stores `rows` x `cols` of it.
template <int kVecs, bool kClamp>
inline void OffsetTile(int k, const float* pa, const float* origin, const ptrdiff_t* offsets,
                       float* c, int ldc, int rows, int cols, const float* bias, f32x4 lo,
                       f32x4 hi) {
  Sums<kVecs> t = OffsetSums<kVecs>(k, pa, origin, offsets, rows, bias);
  ClampSums<kVecs, kClamp>(t, lo, hi);
  if (rows == kGemmMr && cols == 4 * kVecs) {
    for (int r = 0; r < kGemmMr; ++r)
      for (int v = 0; v < kVecs; ++v) Store(c + r * ldc + 4 * v, t.acc[r][v]);
    return;
  }
  alignas(16) float tile[kGemmMr][4 * kVecs];
  for (int r = 0; r < kGemmMr; ++r)
    for (int v = 0; v < kVecs; ++v) Store(tile[r] + 4 * v, t.acc[r][v]);
  for (int r = 0; r < rows; ++r)
    for (int j = 0; j < cols; ++j) c[r * ldc + j] = tile[r][j];
}

// Fewer than kGemmMr rows or kGemmNr columns: kept out of the driver, which then inlines only
// the whole tile.
template <bool kClamp>
WEBNX_SEPARATE_FUNCTION void PartialOffsetTile(int k, const float* pa, const float* origin,
                                               const ptrdiff_t* offsets, float* c, int ldc,
                                               int rows, int cols, const float* bias, f32x4 lo,
                                               f32x4 hi) {
  if (cols > 4) {
    OffsetTile<2, kClamp>(k, pa, origin, offsets, c, ldc, rows, cols, bias, lo, hi);
  } else {
    OffsetTile<1, kClamp>(k, pa, origin, offsets, c, ldc, rows, cols, bias, lo, hi);
  }
}

template <bool kClamp>
void OffsetGemmImpl(int m, int n, int k, const float* packed_a, const float* origin,
                    const ptrdiff_t* offsets, float* c, int ldc, const GemmEpilogue& ep) {
  const f32x4 lo = Splat(ep.min);
  const f32x4 hi = Splat(ep.max);
  const int full = n / kGemmNr * kGemmNr;
  for (int i = 0; i < m; i += kGemmMr) {
    const int rows = m - i < kGemmMr ? m - i : kGemmMr;
    const float* pa = packed_a + static_cast<size_t>(i) * k;
    const float* bias = ep.bias ? ep.bias + i : nullptr;
    float* ci = c + static_cast<size_t>(i) * ldc;
    for (int j = 0; j < full; j += kGemmNr) {
      if (rows == kGemmMr) {
        OffsetTile<2, kClamp>(k, pa, origin + j, offsets, ci + j, ldc, kGemmMr, kGemmNr, bias, lo,
                              hi);
      } else {
        PartialOffsetTile<kClamp>(k, pa, origin + j, offsets, ci + j, ldc, rows, kGemmNr, bias, lo,
                                  hi);
      }
    }
    if (full < n) {
      PartialOffsetTile<kClamp>(k, pa, origin + full, offsets, ci + full, ldc, rows, n - full, bias,
                                lo, hi);
    }
    if (ep.activation.kind != ActivationKind::kNone) {
      for (int r = 0; r < rows; ++r)
        ApplyActivation(ep.activation, ci + static_cast<size_t>(r) * ldc, n);
    }
  }
}

bool NeedsClamp(const GemmEpilogue& ep) {
  return ep.min > -std::numeric_limits<float>::infinity() ||
         ep.max < std::numeric_limits<float>::infinity();
}

}  // namespace

void GemmOffsetRhs(int m, int n, int k, const float* packed_a, const float* origin,
                   const ptrdiff_t* offsets, float* c, int ldc, const GemmEpilogue& ep) {
  if (NeedsClamp(ep)) return OffsetGemmImpl<true>(m, n, k, packed_a, origin, offsets, c, ldc, ep);
  OffsetGemmImpl<false>(m, n, k, packed_a, origin, offsets, c, ldc, ep);
}

void Interleave2(const float* a, int na, const float* b, int nb, float* out) {
  int j = 0;
  for (; j + 4 <= nb; j += 4) {
    const f32x4 va = Load(a + j), vb = Load(b + j);
    Store(out + 2 * j, wasm_i32x4_shuffle(va, vb, 0, 4, 1, 5));
    Store(out + 2 * j + 4, wasm_i32x4_shuffle(va, vb, 2, 6, 3, 7));
  }
  WEBNX_PLAIN_LOOP
  for (; j < nb; ++j) {
    out[2 * j] = a[j];
    out[2 * j + 1] = b[j];
  }
  WEBNX_PLAIN_LOOP
  for (; j < na; ++j) out[2 * j] = a[j];
}

}  // namespace webnx::simd
