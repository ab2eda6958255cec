// Stores a tile row of eight int32 sums: the int8 GEMMs' (gemm_i8.cc, gemm_i8_quads.cc) last step.
#pragma once

#include <cstdint>
#include <cstring>

#include "kernels/simd/vec.h"

namespace webnx::simd {

// Stores (or adds to what is there, `accumulate`) a row's 8 sums or its first `cols`.
inline void StoreRow(int32_t* out, v128_t lo, v128_t hi, int cols, bool accumulate) {
  if (!accumulate) return StoreFirstInts(out, lo, hi, cols);
  int32_t tile[8];  // a later depth block's sums, added to the row's (rare: K over a block)
  int32_t* dst = cols == 8 ? out : tile;
  if (dst == tile) std::memcpy(tile, out, sizeof(int32_t) * cols);
  lo = wasm_i32x4_add(lo, wasm_v128_load(dst));
  hi = wasm_i32x4_add(hi, wasm_v128_load(dst + 4));
  wasm_v128_store(dst, lo);
  wasm_v128_store(dst + 4, hi);
  if (dst == tile) std::memcpy(out, tile, sizeof(int32_t) * cols);
}

}  // namespace webnx::simd
