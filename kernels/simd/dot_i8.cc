#include "kernels/simd/dot_i8.h"

#include <atomic>
#include <initializer_list>

namespace webnx::simd {

#if WEBNX_HAS_DOT_I8
namespace {

#ifndef __wasm_relaxed_simd__
std::atomic<DotKind> emulated_kind{DotKind::kUnsignedSecond};
#endif

// One lane's sum as each kind computes it: c + sum over j of first[j] * second[j].
int32_t ExpectedSum(const int8_t* first, const uint8_t* second, int32_t c, bool is_signed) {
  int32_t sum = c;
  for (int j = 0; j < 4; ++j)
    sum += first[j] * (is_signed ? static_cast<int8_t>(second[j]) : second[j]);
  return sum;
}

// Operands that tell the kinds apart and catch a saturating or faulty engine: extreme bytes
// (pairs of products past int16), mixed signs, and an accumulator that must be added.
DotKind Probe() {
  static volatile int8_t first_bytes[16] = {-128, -128, -128, -128, 127, -128, 127, -128,
                                            1,    2,    3,    4,    -7,  100,  -1,  0};
  static volatile uint8_t second_bytes[16] = {255, 255, 255, 255, 255, 255, 128, 200,
                                              5,   6,   7,   8,   130, 127, 255, 9};
  static volatile int32_t accumulators[4] = {7, -1000, 123456, -5};
  int8_t first[16];
  uint8_t second[16];
  int32_t c[4], got[4];
  for (int i = 0; i < 16; ++i) first[i] = first_bytes[i], second[i] = second_bytes[i];
  for (int i = 0; i < 4; ++i) c[i] = accumulators[i];
  wasm_v128_store(got, DotAdd(wasm_v128_load(first), wasm_v128_load(second), wasm_v128_load(c)));
  for (bool is_signed : {false, true}) {
    bool all = true;
    for (int i = 0; i < 4; ++i)
      all = all && got[i] == ExpectedSum(first + 4 * i, second + 4 * i, c[i], is_signed);
    if (all) return is_signed ? DotKind::kSignedSecond : DotKind::kUnsignedSecond;
  }
  return DotKind::kNone;
}

}  // namespace

#ifndef __wasm_relaxed_simd__
void EmulateDotForTesting(DotKind kind) {
  emulated_kind.store(kind);
}
DotKind EmulatedDot() {
  return emulated_kind.load(std::memory_order_relaxed);
}
DotKind EngineDot() {
  const DotKind kind = EmulatedDot();
  return kind == DotKind::kNone ? kind : Probe();
}
#else
DotKind EngineDot() {
  static const DotKind kind = Probe();
  return kind;
}
#endif

#else
DotKind EngineDot() {
  return DotKind::kNone;
}
#endif

}  // namespace webnx::simd
