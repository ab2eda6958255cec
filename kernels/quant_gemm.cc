#include "kernels/quant_gemm.h"

#include <algorithm>
#include <vector>

#include "kernels/quant_params.h"
#include "kernels/simd/quantize_u8.h"

namespace webnx::quant {

simd::ZeroPoints ZeroPointsOf(const Tensor* zero_point, std::vector<int32_t>* storage) {
  simd::ZeroPoints zp;
  if (!zero_point) return zp;
  if (zero_point->numel() == 1) {
    zp.all = IntegerAt(*zero_point, 0);
    return zp;
  }
  storage->resize(zero_point->numel());
  for (int64_t i = 0; i < zero_point->numel(); ++i) (*storage)[i] = IntegerAt(*zero_point, i);
  zp.per_index = storage->data();
  return zp;
}

int64_t PackedOperand::PackedBytes() const {
  return as_panels ? simd::PanelsBytes(form, rows, cols) : simd::RowsBytes(form, rows, cols);
}

Status PackConstantOperand(const PlanContext& ctx, int input, int zp_input,
                           const PackedOperand& layout, DerivedForm* packed) {
  const Tensor* zp_tensor = ctx.has_input(zp_input) ? ctx.constant(zp_input) : nullptr;
  std::vector<int32_t> zp_values;
  const simd::ZeroPoints zp = ZeroPointsOf(zp_tensor, &zp_values);
  const DType dtype = ctx.dtype(input);
  const int64_t matrix = layout.rows * layout.cols, size = layout.PackedBytes();
  ConstantForm form;
  form.input = input;
  // The form depends on the zero points too: their input's name keys it beside the layout.
  form.kind = std::string(layout.form == simd::I8Form::kQuads ? "quad " : "i16 ") +
              (layout.as_panels ? "panels" : "rows") +
              (layout.transposed ? " of the transpose" : "") + " less " +
              (ctx.has_input(zp_input) ? ctx.node().inputs[zp_input] : std::string("0"));
  form.floats = static_cast<size_t>((layout.matrices * size + 3) / 4);
  form.derive = [=](const float* from, float* to) {
    const auto* src = reinterpret_cast<const uint8_t*>(from);
    auto* dst = reinterpret_cast<uint8_t*>(to);
    std::vector<uint8_t> transposed;  // 8-bit elements: bytes of either signedness
    if (layout.transposed) {
      transposed.resize(matrix);
      for (int64_t r = 0; r < layout.rows; ++r) {
        for (int64_t c = 0; c < layout.cols; ++c)
          transposed[r * layout.cols + c] = src[c * layout.rows + r];
      }
      src = transposed.data();
    }
    for (int64_t m = 0; m < layout.matrices; ++m) {
      simd::ZeroPoints zero_points = zp;
      zero_points.per_index = zp_values.empty() ? nullptr : zp_values.data();
      if (layout.as_panels) {
        simd::PackPanels(layout.form, src + m * matrix, dtype, layout.rows, layout.cols,
                         layout.cols, zero_points, dst + m * size);
      } else {
        simd::PackRows(layout.form, src + m * matrix, dtype, layout.rows, layout.cols, layout.cols,
                       zero_points, dst + m * size);
        const int64_t packed = layout.rows * simd::RowStrideBytes(layout.form, layout.cols);
        std::fill(dst + m * size + packed, dst + (m + 1) * size, uint8_t{0});  // the overread
      }
    }
  };
  return ctx.Form(form, packed);
}

void RunGemm(const RunContext& ctx, simd::I8Form form, int64_t rows, int64_t k,
             const void* packed_rows, const void* panels, int64_t n, int32_t* out, int64_t ldo) {
  const int64_t count = simd::ColumnPanels(n), threads = ctx.threads();
  // Chunks of panels small enough that every thread gets several; where the columns give too
  // few (the small planes of a network's last layers), the rows are split too, in whole tiles.
  const int64_t chunk = std::max<int64_t>(1, std::min<int64_t>(16, count / (4 * threads)));
  const int64_t column_tasks = (count + chunk - 1) / chunk, tiles = (rows + 3) / 4;
  const int64_t row_tasks =
      threads > 1 && column_tasks < 4 * threads
          ? std::max<int64_t>(1, std::min(tiles, (4 * threads + column_tasks - 1) / column_tasks))
          : 1;
  const int64_t rows_per_task = (tiles + row_tasks - 1) / row_tasks * 4;
  const int64_t row_bytes = simd::RowStrideBytes(form, k);
  ctx.ParallelFor(column_tasks * row_tasks, [&](int64_t task, int) {
    const int64_t begin = task / row_tasks * chunk, end = std::min(count, begin + chunk);
    const int64_t row0 = task % row_tasks * rows_per_task;
    if (row0 >= rows) return;
    simd::Gemm(form, std::min(rows_per_task, rows - row0), k,
               static_cast<const uint8_t*>(packed_rows) + row0 * row_bytes, panels, begin, end, n,
               out + row0 * ldo, ldo);
  });
}

namespace {

// Runs of x for the elementwise passes: at least 64 K values, at most 64 runs.
constexpr int64_t kMaxRuns = 64;
int64_t RunLength(int64_t n) {
  return std::max<int64_t>(int64_t{1} << 16, (n + kMaxRuns - 1) / kMaxRuns);
}

}  // namespace

void DynamicParamsParallel(const RunContext& ctx, const float* x, int64_t n, float* scale,
                           int32_t* zero_point) {
  const int64_t length = RunLength(n), runs = (n + length - 1) / length;
  float lows[kMaxRuns], highs[kMaxRuns];
  ctx.ParallelFor(runs, [&](int64_t run, int) {
    const int64_t at = run * length;
    simd::RangeWithZero(x + at, std::min(length, n - at), &lows[run], &highs[run]);
  });
  float lo = 0.f, hi = 0.f;  // as RangeWithZero meets each value: NaN never wins
  for (int64_t run = 0; run < runs; ++run) {
    lo = lows[run] < lo ? lows[run] : lo;
    hi = hi < highs[run] ? highs[run] : hi;
  }
  DynamicParamsOfRange(lo, hi, scale, zero_point);
}

void QuantizeU8Parallel(const RunContext& ctx, const float* x, int64_t n, float scale,
                        int32_t zero_point, uint8_t* y) {
  const int64_t length = RunLength(n);
  ctx.ParallelFor((n + length - 1) / length, [&](int64_t run, int) {
    const int64_t at = run * length;
    simd::QuantizeU8(x + at, std::min(length, n - at), scale, zero_point, y + at);
  });
}

void PackPanelsParallel(const RunContext& ctx, simd::I8Form form, const void* src, DType dtype,
                        int64_t k, int64_t n, int64_t stride, simd::ZeroPoints zero_points,
                        void* dst) {
  // Chunks of 32 panels: packing a column runs over all k, a few columns are enough work.
  constexpr int64_t kPanelsPerTask = 32;
  const int64_t count = simd::ColumnPanels(n);
  const int64_t panel_bytes = simd::PanelsBytes(form, k, simd::kI8PanelCols);
  ctx.ParallelFor((count + kPanelsPerTask - 1) / kPanelsPerTask, [&](int64_t task, int) {
    const int64_t n0 = task * kPanelsPerTask * simd::kI8PanelCols;
    const int64_t columns = std::min(n - n0, kPanelsPerTask * simd::kI8PanelCols);
    simd::ZeroPoints zp = zero_points;
    if (zp.per_index) zp.per_index += n0;
    simd::PackPanels(form, static_cast<const uint8_t*>(src) + n0, dtype, k, columns, stride, zp,
                     static_cast<uint8_t*>(dst) + task * kPanelsPerTask * panel_bytes);
  });
}

int64_t ChunkColumns(int64_t rows) {
  constexpr int64_t kChunkBytes = 24 << 10;
  constexpr int64_t kPanelBytes = simd::kI8PanelCols * sizeof(int32_t);
  const int64_t panels = kChunkBytes / (std::max<int64_t>(rows, 1) * kPanelBytes);
  // An even count: whole blocks of 16 columns for the output stage's 16-value steps.
  return std::clamp<int64_t>(panels & ~int64_t{1}, 2, 16) * simd::kI8PanelCols;
}

namespace {

// Panels per chunk of RunGemmByChunks: ChunkColumns' worth, and at least four chunks a thread.
int64_t ChunkPanels(const RunContext& ctx, int64_t rows, int64_t count) {
  const int64_t chunk =
      std::min<int64_t>(ChunkColumns(rows) / simd::kI8PanelCols, count / (4 * ctx.threads()));
  return chunk > 1 ? chunk & ~int64_t{1} : 1;
}

}  // namespace

#if WEBNX_HAS_DOT_I8
void RunGemmRequantized(const RunContext& ctx, int64_t rows, int64_t k, const void* packed_rows,
                        const void* panels, int64_t n, const simd::QuadsRequantize& requantize) {
  const int64_t count = simd::ColumnPanels(n), chunk = ChunkPanels(ctx, rows, count);
  ctx.ParallelFor((count + chunk - 1) / chunk, [&](int64_t task, int) {
    const int64_t begin = task * chunk, end = std::min(count, begin + chunk);
    simd::GemmQuadsRequantized(rows, k, static_cast<const uint8_t*>(packed_rows),
                               static_cast<const uint8_t*>(panels), begin, end, n, requantize);
  });
}
#endif

void RunGemmByChunks(const RunContext& ctx, simd::I8Form form, int64_t rows, int64_t k,
                     const void* packed_rows, const void* panels, int64_t n, int32_t* scratch,
                     ColumnsDone done) {
  const int64_t count = simd::ColumnPanels(n), width = ChunkColumns(rows);
  const int64_t chunk = ChunkPanels(ctx, rows, count);
  const int64_t panel_bytes = simd::PanelsBytes(form, k, simd::kI8PanelCols);
  const int64_t tasks = (count + chunk - 1) / chunk;
  ctx.ParallelFor(tasks, [&](int64_t task, int slot) {
    const int64_t begin = task * chunk, end = std::min(count, begin + chunk);
    const int64_t first = begin * simd::kI8PanelCols, last = std::min(n, end * simd::kI8PanelCols);
    // The chunk's panels as a product of their own: column 0 is the chunk's first.
    int32_t* sums = scratch + slot * ChunkScratchInts(rows);
    simd::Gemm(form, rows, k, packed_rows,
               static_cast<const uint8_t*>(panels) + begin * panel_bytes, 0, end - begin,
               last - first, sums, width);
    done(first, last, sums, width);
  });
}

}  // namespace webnx::quant
