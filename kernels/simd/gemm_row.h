// A single row of C (a batch of one: a recurrent step's state, a classifier's input) against
// several of B's 8-column panels at once. The 4x8 tile computes one row with only two
// accumulators, so each sum waits on the add before it; four panels give eight independent
// chains, and every output is still the tile's chain of multiply-adds, bitwise.
#pragma once

#include <cstddef>

#include "kernels/simd/vec.h"

namespace webnx::simd {

constexpr int kGemmRowPanels = 4;

// Row 0 of A's packed panel (k values kGemmMr apart) times B's panels at b + j * column_step
// for j < `full` (rows ldb floats apart), in blocks of kGemmRowPanels panels and then one of
// half as many; stores clamp(bias + sum + addend) at c[j]. Returns the columns done (a last
// single panel is left to the tile). bias is one float or null; addend is laid out like c, or null.
template <bool kClamp>
int GemmRowBlocks(int k, const float* pa, const float* b, size_t column_step, int ldb, int full,
                  float* c, const float* bias, const float* addend, f32x4 lo, f32x4 hi);

}  // namespace webnx::simd
