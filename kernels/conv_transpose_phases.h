// ConvTranspose with a constant W as one regular convolution per output phase (sub-pixel
// decomposition, kernels/conv_transpose_phase_layout.h): the outputs whose coordinates leave
// residues (rz, ry, rx) modulo the strides are a stride-1 correlation of X with that phase's
// taps of W, reversed. No product is computed twice and nothing is scattered.
//
// X is first copied once per run into a zero-padded buffer wide enough for every phase's
// window; each phase is then a GEMM of its packed weights (depth group_in * its taps) with that
// buffer read in place at one offset per (channel, tap) (simd::GemmOffsetRhs, an implicit
// im2col), bias and the fused epilogue (clamp, activation) applied as it stores. Outputs that no
// tap reaches are a GEMM of depth 0: the bias alone.
//
// Work is split into tasks of (image, group, output depth slice, row phase ry, block of phase
// rows, block of phase columns, chunk of output channels). A task computes its block for every
// column phase rx into its thread's scratch, then interleaves those into the output rows they
// make up, a whole row segment at a time; with unit strides in H and W the GEMM writes the
// output in place. (Storing two column phases interleaved straight from the GEMM's tiles
// measured no faster in V8: the scratch stays in cache.)
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/kernel.h"
#include "kernels/conv_transpose_phase_layout.h"
#include "kernels/conv_transpose_shape.h"

namespace webnx::conv_transpose {

class PhasePath {
 public:
  // True when the plan's sizes fit the GEMM's int indices and the padded copy of X is not
  // much larger than X and Y.
  static bool Fits(const ConvTransposeShape& shape, const PhaseLayout& layout);
  // `epilogue`: the kernel's, read when it runs (the planner adds stages after Plan).
  Status Plan(PlanContext& ctx, const ConvTransposeShape& shape, const PhaseLayout& layout,
              const Epilogue* epilogue);
  void Run(const RunContext& ctx, const float* x, const float* bias, float* y);

 private:
  // One output residue of one axis: the outputs o = stride * q + r, q < count, read taps of
  // residue `rho` (taps of them, 0 for none): output q reads input q - pad + j * dilation for
  // its j-th tap.
  struct OutPhase {
    int count = 0;
    int rho = 0;
    int taps = 0;
    int pad = 0;
  };
  struct PlanAxis {
    int in = 1, out = 1, stride = 1;
    int dilation = 1;              // the phases' sub-dilation
    int before = 0, padded = 1;    // the padded copy: zeros before the input, and its length
    std::vector<OutPhase> phases;  // per output residue
  };
  // A task's block: phase rows [qy0, qy0 + rows) of row phase ry, phase columns from qx0.
  struct Block {
    int64_t n, g, oz, ry;
    int qy0, rows, qx0;
    int64_t row0;  // first output channel of the group
    int channels;
  };
  static bool MakeAxes(const ConvTransposeShape& s, const PhaseLayout& l, PlanAxis* axes);
  void PlanOffsets();
  void PlanBlocks(int threads);
  void PadInput(const RunContext& ctx);
  Block BlockOf(int64_t task) const;
  void RunTask(int64_t task, int slot);
  // The GEMMs of column phase rx over the block, phase row t into `out` + t * row_step.
  void PhaseGemm(const Block& b, int rx, const float* bias, float* out, int64_t row_step,
                 int ldc) const;
  void Interleave(const Block& b, const float* scratch, float* y_rows) const;

  const ConvTransposeShape* s_ = nullptr;
  PhaseLayout layout_;
  const Epilogue* epilogue_ = nullptr;
  Tensor packed_weights_;
  PlanAxis axes_[kMaxPhaseRank];  // z, y, x
  int64_t in_plane_ = 0;          // one channel of X
  int64_t padded_plane_ = 0;      // ... of its padded copy
  int64_t out_slice_ = 0;         // one output depth slice: out_h * out_w
  // Per phase (layout_'s order), from offset_start_[p]: per (channel, tap) the offset of its
  // input from an output's origin in the padded copy.
  std::vector<ptrdiff_t> offsets_;
  std::vector<size_t> offset_start_;
  int block_rows_ = 1;     // phase rows per block
  int block_columns_ = 1;  // phase columns per block
  int64_t y_blocks_ = 1, x_blocks_ = 1;
  int64_t chunks_ = 1, chunk_rows_ = 0;  // output-channel chunks per (image, group) block
  bool direct_ = false;                  // unit H and W strides: the GEMM writes y in place
  int64_t phase_floats_ = 0;             // scratch per thread and column phase
  Tensor padded_;                        // X zero-padded, every image and channel
  Tensor scratch_;                       // per thread: the column phases' results
  // The run's tensors (the tasks capture only `this`: no std::function allocates).
  const float* x_ = nullptr;
  const float* bias_ = nullptr;
  float* y_ = nullptr;
};

}  // namespace webnx::conv_transpose
