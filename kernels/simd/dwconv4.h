// Depthwise convolution of four channels at once (NCHW in and out), vectorised across the
// channels: each block of four planes is interleaved into a zero-padded [rows][cols][4] copy,
// every output pixel of the four channels is one f32x4 sum over the kernel taps, and the result
// is split back into planes. No lane is wasted on a plane's last columns, which makes it the
// fast path for small planes (7x7, 14x14), where the row-vectorised kernel of dwconv.h leaves
// lanes empty. Any kernel size, stride, dilation and padding.
#pragma once

#include <cstddef>

#include "kernels/simd/dwconv.h"
#include "kernels/simd/gemm.h"

namespace webnx::simd {

// Floats of scratch one call needs: the padded interleaved input and the interleaved output;
// 0 when the padding would dwarf the data (huge pads or dilations: use DepthwisePlaneScalar).
size_t Depthwise4ScratchFloats(const DepthwiseShape& s);
// Zeroes the scratch's padding; calls write only the interior, so one init serves every block.
void Depthwise4InitScratch(const DepthwiseShape& s, float* scratch);

// Floats of the packed weights of `channels` channels: per block of 4 and per tap, the 4
// channels' weights.
size_t Depthwise4WeightFloats(const DepthwiseShape& s, int channels);
// w is [channels][kernel_h][kernel_w].
void Depthwise4PackWeights(const DepthwiseShape& s, int channels, const float* w, float* packed);

// Channels [c0, c0 + count) (count <= 4, c0 a multiple of 4) of one image: in and out point at
// channel c0's plane, planes in_plane and out_plane floats apart, bias at channel c0's (or
// null); outputs clamped to [lo, hi].
void Depthwise4Block(const DepthwiseShape& s, const float* in, size_t in_plane, int c0, int count,
                     const float* packed, const float* bias, float lo, float hi, float* out,
                     size_t out_plane, float* scratch);

// Interleaves `count` planes (in_plane floats apart, missing channels as zero) into the
// scratch's padded copy: Depthwise4Block's first half.
void Depthwise4Interleave(const DepthwiseShape& s, const float* in, size_t in_plane, int count,
                          float* scratch);

// Where Depthwise4FromScratch reads its input in the scratch: the interior of the padded copy,
// whose padding Depthwise4InitScratch zeroed. A producer writing four channels there directly
// (GemmPanelInterleaved) saves the interleaving pass.
InterleavedImage Depthwise4ScratchInput(const DepthwiseShape& s, float* scratch);

// Depthwise4Block on input already in the scratch (Depthwise4ScratchInput).
void Depthwise4FromScratch(const DepthwiseShape& s, int c0, int count, const float* packed,
                           const float* bias, float lo, float hi, float* out, size_t out_plane,
                           float* scratch);

}  // namespace webnx::simd
