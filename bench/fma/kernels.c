// The FMA microbenchmarks of bench/fma/run.mjs, compiled by clang-16 for wasm32 with relaxed SIMD:
// the multiply-add peak (independent accumulators, fused or as a multiply and an add) and GEMM
// tiles of MR rows x 4 * NV columns on packed operands, every multiply-add one f32x4.relaxed_madd.
#include <wasm_simd128.h>

static inline v128_t Fused(v128_t acc, v128_t a, v128_t b) {
  return __builtin_wasm_relaxed_madd_f32x4(a, b, acc);
}
static inline v128_t Unfused(v128_t acc, v128_t a, v128_t b) {
  return wasm_f32x4_add(acc, wasm_f32x4_mul(a, b));
}

// `iters` times, N accumulators each take one multiply-add (8 flops per f32x4).
#define PEAK(NAME, MADD, N)                                                \
  __attribute__((export_name(#NAME))) float NAME(int iters, float seed) {  \
    v128_t acc[N];                                                         \
    for (int k = 0; k < N; ++k) acc[k] = wasm_f32x4_splat(seed * (k + 1)); \
    const v128_t a = wasm_f32x4_splat(0.99999f);                           \
    for (int i = 0; i < iters; ++i)                                        \
      for (int k = 0; k < N; ++k) acc[k] = MADD(acc[k], acc[k], a);        \
    v128_t s = acc[0];                                                     \
    for (int k = 1; k < N; ++k) s = wasm_f32x4_add(s, acc[k]);             \
    return wasm_f32x4_extract_lane(s, 0);                                  \
  }
PEAK(peak_fused_8, Fused, 8)
PEAK(peak_fused_10, Fused, 10)
PEAK(peak_fused_12, Fused, 12)
PEAK(peak_unfused_8, Unfused, 8)
PEAK(peak_unfused_10, Unfused, 10)
PEAK(peak_unfused_12, Unfused, 12)

// C[M][N] = A[M][K] B[K][N]: A in MR-row panels [K][MR], B in 8-column panels [K][8]; M a
// multiple of MR, N of 4 * NV.
#define TILE(MR, NV)                                                                              \
  __attribute__((export_name("tile_" #MR "x" #NV))) void tile_##MR##x##NV(                        \
      int m, int n, int k, const float* a, const float* b, float* c) {                            \
    for (int i0 = 0; i0 < m; i0 += MR) {                                                          \
      for (int j0 = 0; j0 < n; j0 += 4 * NV) {                                                    \
        v128_t acc[MR][NV];                                                                       \
        for (int r = 0; r < MR; ++r)                                                              \
          for (int v = 0; v < NV; ++v) acc[r][v] = wasm_f32x4_splat(0);                           \
        const float* ap = a + (i0 / MR) * k * MR;                                                 \
        const float* bp = b + (j0 / 8) * k * 8;                                                   \
        for (int p = 0; p < k; ++p) {                                                             \
          v128_t bv[NV];                                                                          \
          for (int v = 0; v < NV; ++v)                                                            \
            bv[v] = wasm_v128_load(bp + (v / 2) * k * 8 + p * 8 + (v % 2) * 4);                   \
          for (int r = 0; r < MR; ++r) {                                                          \
            const v128_t av = wasm_v128_load32_splat(ap + p * MR + r);                            \
            for (int v = 0; v < NV; ++v) acc[r][v] = Fused(acc[r][v], av, bv[v]);                 \
          }                                                                                       \
        }                                                                                         \
        for (int r = 0; r < MR; ++r)                                                              \
          for (int v = 0; v < NV; ++v) wasm_v128_store(c + (i0 + r) * n + j0 + 4 * v, acc[r][v]); \
      }                                                                                           \
    }                                                                                             \
  }
TILE(4, 2)
TILE(5, 2)
TILE(6, 2)
TILE(3, 4)

static float heap[3 << 20];
__attribute__((export_name("buffer"))) float* buffer(void) {
  return heap;
}
