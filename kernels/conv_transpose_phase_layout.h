// The phase (sub-pixel) decomposition of a ConvTranspose, from its attributes and W's shape
// alone (never an input shape), and W packed for it (kernels/conv_transpose_phases.h).
//
// Along one axis output o takes tap k from input i = (o + pad - k * dilation) / stride, when
// that divides. The taps whose k * dilation leave one residue rho mod stride are one phase's:
// every output with (o + pad) mod stride == rho reads exactly them, as a stride-1 correlation
// of the input with those taps reversed. They are every `tap_step`-th tap, and read inputs
// `sub_dilation` apart. Which outputs a phase serves depends on the pads (and so on the input
// shape, for output_shape); which taps it holds does not, so W is packed per group and residue
// once per session.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/kernel.h"

namespace webnx::conv_transpose {

constexpr int kMaxPhaseRank = 3;
// At most this many phases (the product of the strides): each is a GEMM of its own per block.
constexpr int64_t kMaxPhases = 64;

struct PhaseAxis {
  int64_t kernel = 1, stride = 1, dilation = 1;
  int64_t tap_step = 1;      // stride / gcd(stride, dilation)
  int64_t sub_dilation = 1;  // dilation / gcd(stride, dilation)
  // Per residue rho in [0, stride): its largest tap (the first its correlation reads), or -1
  // when no tap leaves that residue, and how many taps it has.
  std::vector<int64_t> last_tap;
  std::vector<int64_t> taps;
};

struct PhaseLayout {
  int64_t groups = 1, group_in = 0, group_out = 0;
  // Always kMaxPhaseRank axes, outermost first: unit axes before a 1-D or 2-D kernel's.
  std::vector<PhaseAxis> axes;
  int64_t phases = 1;          // the product of the strides
  std::vector<int64_t> depth;  // per phase (residues flat, row-major): group_in * its taps
  std::vector<size_t> offset;  // per phase: its packed weights within a group's
  size_t group_floats = 0;     // one group's packed weights
  size_t total_floats = 0;

  // Flat phase of residues (rz, ry, rx).
  int64_t PhaseOf(int64_t rz, int64_t ry, int64_t rx) const {
    return (rz * axes[1].stride + ry) * axes[2].stride + rx;
  }
  // Group g's packed weights of phase p: group_out x depth[p] rows, packed by simd::PackLhs.
  size_t Offset(int64_t g, int64_t p) const {
    return static_cast<size_t>(g) * group_floats + offset[p];
  }
};

// The layout of W [groups * group_in][group_out][kernel...] under those strides and dilations
// (one per spatial axis), or false when the phase path does not take it: a rank past 3, more
// than kMaxPhases phases, no channels, or sizes past the GEMM's int indices.
bool MakePhaseLayout(const Shape& w, int64_t groups, const std::vector<int64_t>& strides,
                     const std::vector<int64_t>& dilations, PhaseLayout* layout);
// The same from the node's attributes (group, strides, dilations): false also when they are
// malformed (Plan reports them).
bool PhaseLayoutOf(FormContext& ctx, const Shape& w, PhaseLayout* layout);

// W packed per group and phase as the GEMM's left matrices: rows the group's output channels,
// columns (input channel, taps of each axis from the last), as simd::PackLhs lays them out.
ConstantForm PhaseWeightsForm(const PhaseLayout& layout);

}  // namespace webnx::conv_transpose
