// The one f32x4 vector layer every SIMD kernel is written against. Under Emscripten it is
// wasm_simd128.h itself; natively SIMDe implements the same intrinsics with the same
// semantics, so gtest checks the very code that ships in the .wasm.
#pragma once

#include "core/separate_function.h"

#ifdef __wasm_simd128__
#include <wasm_simd128.h>
#else
#define SIMDE_ENABLE_NATIVE_ALIASES
#include <simde/wasm/simd128.h>
#endif

// A loop kept as written. The leftovers after a vector loop run 1-3 times, but LLVM cannot know
// that and unrolls and vectorises them into kilobytes of code, which V8 then recompiles with the
// kernel (an eight-row dot product's tails were most of a 23 KB function). WEBNX_NO_UNROLL
// still lets LLVM vectorise. Clang only: GCC, which builds the native tests, does not know the
// pragma.
#ifdef __clang__
#define WEBNX_PLAIN_LOOP _Pragma("clang loop unroll(disable) vectorize(disable)")
#define WEBNX_NO_UNROLL _Pragma("clang loop unroll(disable)")
#else
#define WEBNX_PLAIN_LOOP
#define WEBNX_NO_UNROLL
#endif

namespace webnx::simd {

using f32x4 = v128_t;

inline f32x4 Load(const float* p) {
  return wasm_v128_load(p);
}
inline void Store(float* p, f32x4 v) {
  wasm_v128_store(p, v);
}
inline f32x4 Splat(float x) {
  return wasm_f32x4_splat(x);
}
inline f32x4 LoadSplat(const float* p) {
  return wasm_v128_load32_splat(p);
}
inline f32x4 Add(f32x4 a, f32x4 b) {
  return wasm_f32x4_add(a, b);
}
inline f32x4 Sub(f32x4 a, f32x4 b) {
  return wasm_f32x4_sub(a, b);
}
inline f32x4 Mul(f32x4 a, f32x4 b) {
  return wasm_f32x4_mul(a, b);
}
inline f32x4 Div(f32x4 a, f32x4 b) {
  return wasm_f32x4_div(a, b);
}
// acc + a * b: rounded twice in SIMD128; in the relaxed builds (-mrelaxed-simd, CMake's
// WEBNX_RELAXED) one f32x4.relaxed_madd, which the engine fuses where the hardware has FMA
// (rounded once) and otherwise computes as here. clang 16's wasm_simd128.h has no wrapper.
inline f32x4 MulAdd(f32x4 acc, f32x4 a, f32x4 b) {
#ifdef __wasm_relaxed_simd__
  return __builtin_wasm_relaxed_madd_f32x4(a, b, acc);
#else
  return wasm_f32x4_add(acc, wasm_f32x4_mul(a, b));
#endif
}
// The bytes of v at `indices`, every index below 16: the relaxed builds' i8x16.relaxed_swizzle
// is then exact and one pshufb on x86, where i8x16.swizzle adds a saturating add to zero the
// lanes of larger indices.
inline v128_t SwizzleInRange(v128_t v, v128_t indices) {
#ifdef __wasm_relaxed_simd__
  using i8x16 = signed char __attribute__((vector_size(16)));
  return reinterpret_cast<v128_t>(__builtin_wasm_relaxed_swizzle_i8x16(
      reinterpret_cast<i8x16>(v), reinterpret_cast<i8x16>(indices)));
#else
  return wasm_i8x16_swizzle(v, indices);
#endif
}
// Pseudo-min/max, one maxps/minps on x86 (f32x4.max/min are several instructions there):
// PMax(a, b) = a < b ? b : a, PMin(a, b) = b < a ? b : a.
inline f32x4 PMax(f32x4 a, f32x4 b) {
  return wasm_f32x4_pmax(a, b);
}
inline f32x4 PMin(f32x4 a, f32x4 b) {
  return wasm_f32x4_pmin(a, b);
}
// Per lane, a where `mask` (a comparison's result: each lane all ones or all zeros) is set, else
// b. Relaxed builds: one i32x4.relaxed_laneselect (blendvps on x86, where bitselect is three
// instructions), exact for such masks.
inline f32x4 Select(v128_t mask, f32x4 a, f32x4 b) {
#ifdef __wasm_relaxed_simd__
  using i32x4 = int __attribute__((vector_size(16)));
  return reinterpret_cast<f32x4>(__builtin_wasm_relaxed_laneselect_i32x4(
      reinterpret_cast<i32x4>(a), reinterpret_cast<i32x4>(b), reinterpret_cast<i32x4>(mask)));
#else
  return wasm_v128_bitselect(a, b, mask);
#endif
}
// Clamps to [lo, hi] the way the scalar epilogue does: min(max(v, lo), hi).
inline f32x4 Clamp(f32x4 v, f32x4 lo, f32x4 hi) {
  return PMin(hi, PMax(lo, v));
}
// Lanes 0, 2 of a and 0, 2 of b: the even elements of 8 consecutive floats.
inline f32x4 Evens(f32x4 a, f32x4 b) {
  return wasm_i32x4_shuffle(a, b, 0, 2, 4, 6);
}
// Lanes 1, 3 of a and 1, 3 of b: the odd elements of 8 consecutive floats.
inline f32x4 Odds(f32x4 a, f32x4 b) {
  return wasm_i32x4_shuffle(a, b, 1, 3, 5, 7);
}
// dst[0, n) = src[0, n), four at a time (a plane row into a padded copy).
inline void CopyFloats(const float* src, int n, float* dst) {
  int i = 0;
  for (; i + 4 <= n; i += 4) Store(dst + i, Load(src + i));
  WEBNX_PLAIN_LOOP
  for (; i < n; ++i) dst[i] = src[i];
}
// The first `count` lanes of v into dst (all four when count >= 4): a row's last 1-3 outputs.
inline void StoreFirst(float* dst, f32x4 v, int count) {
  if (count >= 4) return Store(dst, v);
  alignas(16) float lanes[4];
  Store(lanes, v);
  WEBNX_PLAIN_LOOP
  for (int i = 0; i < count; ++i) dst[i] = lanes[i];
}
// The first `count` (0 to 8) int32 of lo then hi into dst: a row's last outputs, stored lane by
// lane rather than through a tile and a memcpy call.
inline void StoreFirstInts(int32_t* dst, v128_t lo, v128_t hi, int count) {
  if (count >= 4) wasm_v128_store(dst, lo), dst += 4, count -= 4, lo = hi;
  if (count == 4) return wasm_v128_store(dst, lo);
  if (count >= 2) {
    wasm_v128_store64_lane(dst, lo, 0);
    dst += 2, count -= 2, lo = wasm_i64x2_shuffle(lo, lo, 1, 1);
  }
  if (count == 1) wasm_v128_store32_lane(dst, lo, 0);
}
// fn(i) for i = 0, step, 2 * step, ... while a whole step fits in n (n >= step), then once at
// n - step for the last 1 to step - 1: a step overlapping the one before, which must write the
// same values again. Rows of vectors end so instead of in a scalar loop.
template <typename Fn>
inline void OverlappingSteps(int64_t n, int64_t step, Fn&& fn) {
  int64_t i = 0;
  WEBNX_NO_UNROLL
  for (; i + step <= n; i += step) fn(i);
  if (i < n) fn(n - step);
}
// dst[i] = src[i] ^ flip for i < n (a plane row into a padded copy; flip 0 copies): sixteen
// bytes at a time, rows under 16 bytes by eight, so that no row ends in a byte loop or a
// memcpy call.
inline void CopyFlipped(const uint8_t* src, int64_t n, uint8_t flip, uint8_t* dst) {
  const v128_t flip_v = wasm_i8x16_splat(static_cast<int8_t>(flip));
  if (n >= 16) {
    return OverlappingSteps(n, 16, [&](int64_t i) {
      wasm_v128_store(dst + i, wasm_v128_xor(wasm_v128_load(src + i), flip_v));
    });
  }
  if (n >= 8) {
    return OverlappingSteps(n, 8, [&](int64_t i) {
      wasm_v128_store64_lane(dst + i, wasm_v128_xor(wasm_v128_load64_zero(src + i), flip_v), 0);
    });
  }
  WEBNX_PLAIN_LOOP
  for (int64_t i = 0; i < n; ++i) dst[i] = src[i] ^ flip;
}
// Rows a, b, c, d become columns: afterwards a holds the first elements of the four inputs,
// b the second ones, and so on.
inline void Transpose4x4(f32x4& a, f32x4& b, f32x4& c, f32x4& d) {
  const f32x4 lo01 = wasm_i32x4_shuffle(a, b, 0, 4, 1, 5);  // a0 b0 a1 b1
  const f32x4 lo23 = wasm_i32x4_shuffle(c, d, 0, 4, 1, 5);  // c0 d0 c1 d1
  const f32x4 hi01 = wasm_i32x4_shuffle(a, b, 2, 6, 3, 7);  // a2 b2 a3 b3
  const f32x4 hi23 = wasm_i32x4_shuffle(c, d, 2, 6, 3, 7);  // c2 d2 c3 d3
  a = wasm_i32x4_shuffle(lo01, lo23, 0, 1, 4, 5);
  b = wasm_i32x4_shuffle(lo01, lo23, 2, 3, 6, 7);
  c = wasm_i32x4_shuffle(hi01, hi23, 0, 1, 4, 5);
  d = wasm_i32x4_shuffle(hi01, hi23, 2, 3, 6, 7);
}

inline float HorizontalSum(f32x4 v) {
  return wasm_f32x4_extract_lane(v, 0) + wasm_f32x4_extract_lane(v, 1) +
         wasm_f32x4_extract_lane(v, 2) + wasm_f32x4_extract_lane(v, 3);
}

}  // namespace webnx::simd
