// The relaxed int8 dot product, i32x4.relaxed_dot_i8x16_i7x16_add_s: each int32 lane adds the
// four products of its bytes, 16 multiply-adds in one instruction. The specification fixes the
// result only while the second operand's bytes are below 128; past that an engine may read them
// as uint8 (x86 with AVX-VNNI: vpdpbusd), as int8 (Arm: sdot), or saturate pairs of products to
// int16 (x86 without VNNI: pmaddubsw). EngineDot() finds out once, by computing: the int8
// products use the dot only where it is exact for every 8-bit value, and the int16 pairs of
// kernels/simd/gemm_i8.h elsewhere, so the results never depend on the engine.
#pragma once

#include <cstdint>

#include "core/tensor.h"
#include "kernels/simd/vec.h"

// The relaxed builds compile the dot; the native build emulates it (gtest checks both kinds);
// the plain .wasm has no use for it.
#if defined(__wasm_relaxed_simd__) || !defined(__EMSCRIPTEN__)
#define WEBNX_HAS_DOT_I8 1
#else
#define WEBNX_HAS_DOT_I8 0
#endif

namespace webnx::simd {

enum class DotKind {
  kNone,            // no relaxed dot, or not exact past 127 (saturating, or a faulty engine)
  kUnsignedSecond,  // the second operand's bytes read as uint8
  kSignedSecond,    // read as int8
};

// What this engine's relaxed dot computes (measured on the first call; kNone in plain builds).
DotKind EngineDot();

// The byte that turns 8-bit data of type `source` into the signedness the dot wants (xor), and
// what that adds to its zero point: int8 v is uint8 v + 128 with its top bit flipped, and back.
struct Flip {
  uint8_t byte;
  int32_t zero_point_shift;
};
inline Flip FlipInto(DType source, bool unsigned_target) {
  if ((source == DType::kInt8) != unsigned_target) return {0, 0};
  return {0x80, unsigned_target ? 128 : -128};
}

// int32 arithmetic modulo 2^32, as the dot's int32 sums wrap.
inline int32_t WrapToInt32(int64_t v) {
  return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v)));
}

#if WEBNX_HAS_DOT_I8
#ifdef __wasm_relaxed_simd__
// acc + per lane i: sum over j < 4 of first[4i + j] * second[4i + j], first read as int8.
inline v128_t DotAdd(v128_t first, v128_t second, v128_t acc) {
  using i8x16 = signed char __attribute__((vector_size(16)));
  using i32x4 = int __attribute__((vector_size(16)));
  return reinterpret_cast<v128_t>(__builtin_wasm_relaxed_dot_i8x16_i7x16_add_s_i32x4(
      reinterpret_cast<i8x16>(first), reinterpret_cast<i8x16>(second),
      reinterpret_cast<i32x4>(acc)));
}
#else
// Natively, the dot of the kind gtest chooses (kUnsignedSecond unless a test sets another).
void EmulateDotForTesting(DotKind kind);
DotKind EmulatedDot();
inline v128_t DotAdd(v128_t first, v128_t second, v128_t acc) {
  int8_t a[16];
  uint8_t b[16];
  int32_t sums[4];
  wasm_v128_store(a, first);
  wasm_v128_store(b, second);
  wasm_v128_store(sums, acc);
  const bool is_signed = EmulatedDot() == DotKind::kSignedSecond;
  for (int i = 0; i < 16; ++i) {
    const int32_t b_value = is_signed ? static_cast<int8_t>(b[i]) : b[i];
    sums[i / 4] = static_cast<int32_t>(static_cast<uint32_t>(sums[i / 4]) +
                                       static_cast<uint32_t>(a[i] * b_value));
  }
  return wasm_v128_load(sums);
}
#endif
#endif

}  // namespace webnx::simd
