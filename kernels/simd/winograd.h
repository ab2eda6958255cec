// Winograd F(2x2, 3x3) for 3x3 convolutions with stride 1 and no dilation (NCHW, one group):
// each 2x2 block of outputs ("tile") comes from a 4x4 input patch through 16 elementwise
// products of transformed values, 16 multiplies where the direct form needs 36. Across
// channels those products are 16 GEMMs [Cout x Cin] x [Cin x tiles] on the packed microkernel,
// so a 3x3 conv costs 16/36 of its im2col GEMM plus the transforms.
//
// The transforms use only 0, +-1 and +-1/2, so results stay within a few ulps of the direct
// sum's scale (tested against the scalar conv).
#pragma once

#include <cstddef>

#include "kernels/simd/gemm.h"

namespace webnx::simd {

struct WinogradShape {
  int in_channels, out_channels;
  int in_h, in_w, out_h, out_w;
  int pad_top, pad_left;
};

constexpr int kWinogradTilesPerBlock = 32;  // tiles (output 2x2 blocks) per GEMM block

// Output tiles of one image: ceil(out_h / 2) x ceil(out_w / 2).
int WinogradTiles(const WinogradShape& s);

// The transformed weights, in groups of up to kWinogradGroupPanels panels of four output
// channels (channels past Cout zero): group g holds its 16 packed [rows x Cin] matrices one
// after the other, each a run of whole panels (PackLhs's layout), so a GEMM streams them.
// Groups [0, head_groups) lie from `head` on, the others from `tail` on: a W that only its
// conv reads is transformed over its own storage, which holds about 9/16 of the groups, and
// the rest go beside it.
constexpr int kWinogradGroupPanels = 8;
struct WinogradWeights {
  const float* head = nullptr;
  int head_groups = 0;
  const float* tail = nullptr;
};

size_t WinogradGroupFloats(const WinogradShape& s);  // a whole group's: 16 * 32 * Cin
int WinogradGroups(const WinogradShape& s);
// Floats for all the transformed weights: 16/9 of W's, or more when Cout % 4 != 0.
size_t WinogradWeightFloats(const WinogradShape& s);
// w is [Cout][Cin][3][3]. head may be w itself when its groups fit in W's storage: the tail's
// groups are made first, then the head's from the last back, so a group only ever lands on W
// rows already read (rows it shares with its own are copied out first).
void WinogradPackWeights(const WinogradShape& s, const float* w, float* head, int head_groups,
                         float* tail);

// Floats of scratch one call of WinogradBlock needs.
size_t WinogradScratchFloats(const WinogradShape& s);

// Tiles [first, first + count) (row-major over the tile grid, count <= kWinogradTilesPerBlock)
// of output channels [row0, row0 + rows) (row0 a multiple of 4) of one image: x is
// [Cin, in_h, in_w], y is [Cout, out_h, out_w]. The epilogue's bias, clamp and addend (laid out
// like y) apply as in GemmPacked. Splitting the channels changes no output's arithmetic.
void WinogradBlock(const WinogradShape& s, const float* x, const WinogradWeights& weights,
                   int first, int count, int row0, int rows, const GemmEpilogue& epilogue, float* y,
                   float* scratch);

}  // namespace webnx::simd
