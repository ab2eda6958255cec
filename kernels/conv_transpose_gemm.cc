#include "kernels/conv_transpose_gemm.h"

#include <algorithm>
#include <climits>
#include <string>
#include <vector>

#include "kernels/epilogue_function.h"
#include "kernels/nn_common.h"
#include "kernels/simd/activation.h"
#include "kernels/simd/gemm.h"
#include "kernels/simd/vec.h"

namespace webnx::conv_transpose {
namespace {

// The column buffer's budget per thread (256 KiB): a block of products stays in cache from the
// GEMM that writes it to the scatter that reads it.
constexpr int64_t kColumnBufferFloats = int64_t{1} << 16;
// Fewest input positions per block the channel chunks leave room for (or the whole plane).
constexpr int64_t kMinBlockColumns = 64;

// Sizes whose every GEMM index fits an int: rows x depth weights, depth x columns inputs.
bool FitsGemm(int64_t rows, int64_t depth, int64_t columns) {
  constexpr int64_t kMax = INT32_MAX / 2;
  return rows >= 1 && depth >= 1 && columns >= 1 && rows < kMax && depth < kMax && columns < kMax &&
         rows * depth < INT32_MAX && columns * depth < INT32_MAX;
}

// W's GEMM rows per group, group_out * taps, or -1 past int64.
int64_t RowsOf(int64_t group_out, int64_t taps) {
  int64_t rows = 0;
  return __builtin_mul_overflow(group_out, taps, &rows) ? -1 : rows;
}

int64_t RoundUp4(int64_t v) {
  return (v + 3) / 4 * 4;
}

// The fused clamp, then the fused activation, over n floats: as the GEMM's epilogue does them.
void ApplyEpilogue(const Epilogue& e, float* y, int64_t n) {
  if (e.HasClamp()) {
    const simd::f32x4 lo = simd::Splat(e.clamp_lo), hi = simd::Splat(e.clamp_hi);
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) simd::Store(y + i, simd::Clamp(simd::Load(y + i), lo, hi));
    WEBNX_PLAIN_LOOP
    for (; i < n; ++i) {
      const float v = e.clamp_lo < y[i] ? y[i] : e.clamp_lo;  // Clamp's lanes
      y[i] = v < e.clamp_hi ? v : e.clamp_hi;
    }
  }
  if (e.HasFunction()) simd::ApplyActivation(ActivationOf(e.function), y, n);
}

}  // namespace

bool GemmPath::Takes(const ConvTransposeShape& s) {
  return FitsGemm(RowsOf(s.group_out, s.kernel_size), s.group_in, s.in_plane);
}

ConstantForm GemmPath::PackedWeightsForm(int64_t groups, int64_t rows64, int64_t depth64) {
  const int rows = static_cast<int>(rows64), depth = static_cast<int>(depth64);
  const size_t per_group = simd::PackedLhsSize(rows, depth);
  ConstantForm form;
  form.input = 1;
  // The packing depends on the group count too: two nodes grouping one W differently must not
  // share a form.
  form.kind = "conv-transpose-lhs/" + std::to_string(groups);
  form.floats = per_group * groups;
  form.derive = [=](const float* from, float* to) {
    const size_t group_floats = static_cast<size_t>(rows) * depth;
    std::vector<float> group_copy;
    for (int64_t g = 0; g < groups; ++g) {
      const float* w_group = from + g * group_floats;  // depth x rows, row-major
      if (from == to) {  // over W itself (rows a multiple of 4): read a copy of the group
        group_copy.assign(w_group, w_group + group_floats);
        w_group = group_copy.data();
      }
      simd::PackLhsTransposed(w_group, rows, depth, rows, to + g * per_group);
    }
  };
  return form;
}

void GemmPath::DeclareForms(FormContext& ctx, std::vector<ConstantForm>* forms) {
  const Tensor* w = ctx.constant(1);
  if (!w || w->dtype != DType::kFloat32 || w->shape.size() < 3) return;
  const int64_t groups = ctx.attrs().Int("group", 1);
  if (!ctx.attrs().status().ok() || groups < 1) return;  // Plan reports the attribute
  const Shape& shape = w->shape;
  if (shape[0] < groups || shape[0] % groups != 0) return;
  int64_t taps = 1;
  for (size_t i = 2; i < shape.size(); ++i) {
    if (shape[i] < 1 || __builtin_mul_overflow(taps, shape[i], &taps)) return;
  }
  const int64_t rows = RowsOf(shape[1], taps), depth = shape[0] / groups;
  if (FitsGemm(rows, depth, 1)) forms->push_back(PackedWeightsForm(groups, rows, depth));
}

Status GemmPath::Plan(PlanContext& ctx, const ConvTransposeShape& s, const Epilogue* epilogue) {
  s_ = &s;
  epilogue_ = epilogue;
  rows_ = static_cast<int>(s.group_out * s.kernel_size);
  depth_ = static_cast<int>(s.group_in);
  packed_group_floats_ = simd::PackedLhsSize(rows_, depth_);
  pack_at_run_ = !ctx.is_constant(1);
  if (pack_at_run_) {
    WEBNX_RETURN_IF_ERROR(nn::CheckNumel(
        ctx, {static_cast<int64_t>(packed_group_floats_) * s.groups}, "packed weights"));
    WEBNX_RETURN_IF_ERROR(Tensor::AllocateUninitialized(
        DType::kFloat32, {static_cast<int64_t>(packed_group_floats_) * s.groups},
        &packed_weights_));
  } else {
    DerivedForm packed;
    WEBNX_RETURN_IF_ERROR(ctx.Form(PackedWeightsForm(s.groups, rows_, depth_), &packed));
    packed_weights_ = packed.head;
  }
  PlanTasks(s, ctx.threads());
  col2im_.Plan(s);
  const int64_t scratch_floats = (column_floats_ + panel_floats_) * ctx.threads();
  WEBNX_RETURN_IF_ERROR(nn::CheckNumel(ctx, {scratch_floats}, "column buffer"));
  return Tensor::AllocateUninitialized(DType::kFloat32, {scratch_floats}, &scratch_);
}

// Chunks of output channels: all of a group's in one task, unless the images and groups are
// too few to keep the threads busy or the chunk's rows would leave a block too few columns.
// Chunks start on the packed weights' 4-row panels: a multiple of 4 channels each.
void GemmPath::PlanTasks(const ConvTransposeShape& s, int threads) {
  const int64_t taps = s.kernel_size;
  const int64_t images = s.batch * s.groups;
  int64_t chunk = s.group_out;
  if (threads > 1 && images < 2 * threads) {
    const int64_t wanted_chunks = (2 * threads + images - 1) / images;
    chunk = RoundUp4((s.group_out + wanted_chunks - 1) / wanted_chunks);
  }
  const int64_t min_columns = std::min(s.in_plane, kMinBlockColumns);
  chunk = std::min(chunk, std::max<int64_t>(4, kColumnBufferFloats / (taps * min_columns) / 4 * 4));
  chunk_channels_ = std::min(chunk, s.group_out);
  chunks_ = (s.group_out + chunk_channels_ - 1) / chunk_channels_;

  const int64_t chunk_rows = chunk_channels_ * taps;
  int64_t columns =
      std::min<int64_t>(kColumnBufferFloats / chunk_rows, simd::GemmColumnBlock(depth_));
  columns = std::max<int64_t>(columns / simd::kGemmNr * simd::kGemmNr, simd::kGemmNr);
  block_columns_ = static_cast<int>(std::min(columns, s.in_plane));
  unpacked_rhs_ = simd::GemmPrefersUnpackedRhs(static_cast<int>(chunk_rows), depth_);
  column_floats_ = chunk_rows * block_columns_;
  panel_floats_ = unpacked_rhs_ ? int64_t{depth_} * simd::kGemmNr
                                : static_cast<int64_t>(simd::PackedRhsSize(depth_, block_columns_));
}

void GemmPath::Run(const RunContext& ctx, const float* x, const float* w, const float* bias,
                   float* y) {
  const ConvTransposeShape& s = *s_;
  float* packed = packed_weights_.ptr<float>();
  if (pack_at_run_) {
    const int64_t group_floats = int64_t{rows_} * depth_;
    ctx.ParallelFor(s.groups, [&](int64_t g, int) {
      simd::PackLhsTransposed(w + g * group_floats, rows_, depth_, rows_,
                              packed + g * packed_group_floats_);
    });
  }
  ctx.ParallelFor(s.batch * s.groups * chunks_,
                  [&](int64_t task, int slot) { RunTask(task, slot, x, bias, y); });
}

// One chunk of one group's output channels for one image: the bias, then per block of input
// positions a GEMM into the column buffer and its scatter into the output.
void GemmPath::RunTask(int64_t task, int slot, const float* x, const float* bias, float* y) {
  const ConvTransposeShape& s = *s_;
  const int64_t chunk = task % chunks_, image = task / chunks_;
  const int64_t n = image / s.groups, g = image % s.groups;
  const int64_t first_channel = chunk * chunk_channels_;
  const int64_t channels = std::min(chunk_channels_, s.group_out - first_channel);
  const int64_t out_channel = g * s.group_out + first_channel;
  float* y_chunk = y + (n * s.out_channels + out_channel) * s.out_plane;
  for (int64_t c = 0; c < channels; ++c) {
    float* plane = y_chunk + c * s.out_plane;
    std::fill(plane, plane + s.out_plane, bias ? bias[out_channel + c] : 0.f);
  }
  const float* x_group = x + (n * s.in_channels + g * s.group_in) * s.in_plane;
  // The chunk's first row is a multiple of 4: the start of a packed panel.
  const float* lhs = packed_weights_.ptr<float>() + g * packed_group_floats_ +
                     first_channel * s.kernel_size * depth_;
  float* columns = scratch_.ptr<float>() + slot * (column_floats_ + panel_floats_);
  float* panel = columns + column_floats_;
  const int rows = static_cast<int>(channels * s.kernel_size);
  const int ld_x = static_cast<int>(s.in_plane);
  const simd::GemmEpilogue no_epilogue{};
  for (int64_t first = 0; first < s.in_plane; first += block_columns_) {
    const int width = static_cast<int>(std::min<int64_t>(block_columns_, s.in_plane - first));
    if (unpacked_rhs_) {
      simd::GemmUnpackedRhs(rows, width, depth_, lhs, x_group + first, ld_x, columns, width,
                            no_epilogue, panel);
    } else {
      simd::PackRhs(x_group + first, depth_, width, ld_x, panel);
      simd::GemmPacked(rows, width, depth_, lhs, panel, columns, width, no_epilogue);
    }
    col2im_.Add(columns, channels, first, width, y_chunk);
  }
  ApplyEpilogue(*epilogue_, y_chunk, channels * s.out_plane);
}

}  // namespace webnx::conv_transpose
