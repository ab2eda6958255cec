#include "kernels/simd/gemm_row.h"

#include "kernels/simd/gemm.h"

namespace webnx::simd {
namespace {

// One block: kPanels panels of 8 columns, panel p's row kk at pb + p * panel_step + kk * ldb;
// two accumulators per panel.
template <int kPanels, bool kClamp>
WEBNX_SEPARATE_FUNCTION void RowBlock(int k, const float* pa, const float* pb, size_t panel_step,
                                      int ldb, float* c, const float* bias, const float* addend,
                                      f32x4 lo, f32x4 hi) {
  constexpr int kVecs = 2 * kPanels;
  f32x4 acc[kVecs];
  const f32x4 init = Splat(bias ? *bias : 0.f);
  for (int v = 0; v < kVecs; ++v) acc[v] = init;
  for (const float* end = pa + static_cast<size_t>(k) * kGemmMr; pa != end;
       pa += kGemmMr, pb += ldb) {
    const f32x4 a = LoadSplat(pa);
    for (int p = 0; p < kPanels; ++p) {
      acc[2 * p] = MulAdd(acc[2 * p], a, Load(pb + p * panel_step));
      acc[2 * p + 1] = MulAdd(acc[2 * p + 1], a, Load(pb + p * panel_step + 4));
    }
  }
  for (int v = 0; v < kVecs; ++v) {
    if (addend) acc[v] = Add(acc[v], Load(addend + 4 * v));
    if (kClamp) acc[v] = Clamp(acc[v], lo, hi);
    Store(c + 4 * v, acc[v]);
  }
}

}  // namespace

template <bool kClamp>
int GemmRowBlocks(int k, const float* pa, const float* b, size_t column_step, int ldb, int full,
                  float* c, const float* bias, const float* addend, f32x4 lo, f32x4 hi) {
  constexpr int kBlock = kGemmRowPanels * kGemmNr;
  const size_t panel_step = kGemmNr * column_step;
  int j = 0;
  for (; j + kBlock <= full; j += kBlock) {
    RowBlock<kGemmRowPanels, kClamp>(k, pa, b + j * column_step, panel_step, ldb, c + j, bias,
                                     addend ? addend + j : nullptr, lo, hi);
  }
  if (j + kBlock / 2 <= full) {  // two of the last 1-3 panels
    RowBlock<kGemmRowPanels / 2, kClamp>(k, pa, b + j * column_step, panel_step, ldb, c + j, bias,
                                         addend ? addend + j : nullptr, lo, hi);
    j += kBlock / 2;
  }
  return j;
}

template int GemmRowBlocks<true>(int, const float*, const float*, size_t, int, int, float*,
                                 const float*, const float*, f32x4, f32x4);
template int GemmRowBlocks<false>(int, const float*, const float*, size_t, int, int, float*,
                                  const float*, const float*, f32x4, f32x4);

}  // namespace webnx::simd
