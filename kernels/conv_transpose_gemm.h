// ConvTranspose on the packed SIMD GEMM (kernels/simd/gemm.h). Per image and group, the products
// of every (output channel, kernel tap) with every input position are one GEMM (rows =
// group_out * taps),
//   cols [rows][in_plane] = W_g^T [rows][group_in] * X_g [group_in][in_plane],
// which Col2Im (kernels/conv_transpose_col2im.h) then adds into the output, over the bias.
// W_g^T is packed as the GEMM's left matrix: a constant W once per session (PackedWeightsForm),
// any other W at the start of each run into a buffer of the kernel's. The work is split into
// tasks of (image, group, chunk of output channels), whose outputs are disjoint; each task
// walks the input plane a block of columns at a time through its own column buffer, then applies
// the fused epilogue (a clamp, an activation) to its finished output planes.
#pragma once

#include <cstdint>

#include "core/kernel.h"
#include "kernels/conv_transpose_col2im.h"
#include "kernels/conv_transpose_shape.h"

namespace webnx::conv_transpose {

class GemmPath {
 public:
  // True when every size fits the GEMM's int indices (and there are input channels).
  static bool Takes(const ConvTransposeShape& shape);
  // W [groups * group_in][rows / taps][taps...] packed per group as the rows x group_in left
  // matrix W_g^T, from W's shape and the group count alone.
  static ConstantForm PackedWeightsForm(int64_t groups, int64_t rows, int64_t group_in);
  // Declares that form for a constant float32 W the GEMM path can take.
  static void DeclareForms(FormContext& ctx, std::vector<ConstantForm>* forms);

  // `epilogue`: the kernel's, read when it runs (the planner adds stages after Plan).
  Status Plan(PlanContext& ctx, const ConvTransposeShape& shape, const Epilogue* epilogue);
  void Run(const RunContext& ctx, const float* x, const float* w, const float* bias, float* y);

 private:
  void PlanTasks(const ConvTransposeShape& s, int threads);
  void RunTask(int64_t task, int slot, const float* x, const float* bias, float* y);

  const ConvTransposeShape* s_ = nullptr;
  const Epilogue* epilogue_ = nullptr;
  int rows_ = 0;   // the GEMM's rows per group: group_out * taps
  int depth_ = 0;  // its depth: group_in
  size_t packed_group_floats_ = 0;
  bool pack_at_run_ = false;    // W is not a constant
  Tensor packed_weights_;       // per group, W_g^T packed
  int64_t chunk_channels_ = 0;  // output channels per task, a multiple of 4 unless all
  int64_t chunks_ = 0;          // ... and tasks per (image, group)
  int block_columns_ = 0;       // input positions per GEMM
  bool unpacked_rhs_ = false;   // the GEMM reads X in place
  int64_t column_floats_ = 0;   // per thread: the column buffer
  int64_t panel_floats_ = 0;    // ... then X packed (or its tail panel)
  Tensor scratch_;
  Col2Im col2im_;
};

}  // namespace webnx::conv_transpose
