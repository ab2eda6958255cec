// What the integer convolutions and products share around the int8 SIMD GEMM
// (kernels/simd/gemm_i8.h): zero points as it takes them, constant operands packed once per
// session, and the product run on the context's threads.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "core/function_ref.h"
#include "core/kernel.h"
#include "kernels/simd/dot_i8.h"
#include "kernels/simd/gemm_i8.h"
#include "kernels/simd/gemm_i8_quads.h"

namespace webnx::quant {

// A zero-point tensor (absent, one value, or one per row or column) as the GEMM reads it;
// per-index values are widened into `storage`.
simd::ZeroPoints ZeroPointsOf(const Tensor* zero_point, std::vector<int32_t>* storage);

// How a constant 8-bit operand is packed: `matrices` matrices of rows x cols in `form`, as rows
// (simd::PackRows, zero point per row) or panels (simd::PackPanels, zero point per column); a
// `transposed` one is stored cols x rows (Gemm's transB), and only one matrix.
struct PackedOperand {
  simd::I8Form form;
  bool as_panels = false;
  int64_t matrices = 1, rows = 0, cols = 0;
  bool transposed = false;
  int64_t PackedBytes() const;  // of one matrix (rows: the GEMM's overread too)
};

// Input `input` (a constant) with the constant zero points of input `zp_input` (may be absent),
// packed once per session through the constant cache; its bytes in *packed.
Status PackConstantOperand(const PlanContext& ctx, int input, int zp_input,
                           const PackedOperand& layout, DerivedForm* packed);

// out = rows x panels (simd::Gemm, both packed in `form`) for every column < n, the panels split
// among threads.
void RunGemm(const RunContext& ctx, simd::I8Form form, int64_t rows, int64_t k,
             const void* packed_rows, const void* panels, int64_t n, int32_t* out, int64_t ldo);

// DynamicQuantizeLinear's scale and zero point of x (quant::DynamicParams), its range found on
// the context's threads: a minimum and a maximum do not depend on the order.
void DynamicParamsParallel(const RunContext& ctx, const float* x, int64_t n, float* scale,
                           int32_t* zero_point);
// simd::QuantizeU8 of x on the context's threads.
void QuantizeU8Parallel(const RunContext& ctx, const float* x, int64_t n, float scale,
                        int32_t zero_point, uint8_t* y);

// simd::PackPanels of a K x N matrix, the panels split among threads.
void PackPanelsParallel(const RunContext& ctx, simd::I8Form form, const void* src, DType dtype,
                        int64_t k, int64_t n, int64_t stride, simd::ZeroPoints zero_points,
                        void* dst);

// What follows the product on columns [begin, end) of every row, on the thread that computed
// them: their sums, rows `ld` apart, are in that thread's scratch and in its cache (borrowed,
// core/function_ref.h).
using ColumnsDone = FunctionRef<void(int64_t begin, int64_t end, const int32_t* sums, int64_t ld)>;

// The columns of a chunk of RunGemmByChunks with `rows` rows, and the int32 scratch it needs per
// thread: chunks small enough that their sums stay in the first-level cache (a plane's sums,
// 4.8 MB for MobileNetV2's first expansion, went to memory and back).
int64_t ChunkColumns(int64_t rows);
inline int64_t ChunkScratchInts(int64_t rows) {
  return rows * ChunkColumns(rows);
}

// As RunGemm, the sums of each chunk of columns in the scratch of the thread computing it
// (`scratch`: ChunkScratchInts(rows) per thread), then `done` on them.
void RunGemmByChunks(const RunContext& ctx, simd::I8Form form, int64_t rows, int64_t k,
                     const void* packed_rows, const void* panels, int64_t n, int32_t* scratch,
                     ColumnsDone done);

#if WEBNX_HAS_DOT_I8
// As RunGemmByChunks with RequantizeRowsToU8 as the output stage, for the relaxed form and a
// depth of one pass (simd::GemmQuadsRequantized): each chunk's sums are requantized in the
// tiles and never stored; `requantize` holds row 0's factors and column 0's output byte.
void RunGemmRequantized(const RunContext& ctx, int64_t rows, int64_t k, const void* packed_rows,
                        const void* panels, int64_t n, const simd::QuadsRequantize& requantize);
#endif

// fn(i, slot) for every i < count, a run of consecutive i per task, a few tasks per thread: a
// late layer's channel plane is 49 bytes, and channel by channel the threads wrote into each
// other's cache lines (MobileNetV2's 7 x 7 depthwise convs ran no faster on 2 threads).
template <typename Fn>
void ForEachChannel(const RunContext& ctx, int64_t count, Fn&& fn) {
  const int64_t per_task = std::max<int64_t>(1, count / (8 * ctx.threads()));
  ctx.ParallelFor((count + per_task - 1) / per_task, [&](int64_t task, int slot) {
    const int64_t end = std::min(count, (task + 1) * per_task);
    for (int64_t i = task * per_task; i < end; ++i) fn(i, slot);
  });
}

}  // namespace webnx::quant
