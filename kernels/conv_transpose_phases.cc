#include "kernels/conv_transpose_phases.h"

#include <algorithm>
#include <cstring>

#include "kernels/epilogue_function.h"
#include "kernels/nn_common.h"
#include "kernels/simd/gemm.h"
#include "kernels/simd/offset_gemm.h"

namespace webnx::conv_transpose {
namespace {

// Sizes, pads and margins stay this far inside int.
constexpr int64_t kMaxCoordinate = int64_t{1} << 28;
// A block's results per column phase: about this many floats (they stay in cache until they
// are interleaved).
constexpr int64_t kBlockFloats = int64_t{1} << 12;

}  // namespace

bool PhasePath::MakeAxes(const ConvTransposeShape& s, const PhaseLayout& l, PlanAxis* axes) {
  const size_t front = kMaxPhaseRank - s.axes.size();
  for (size_t a = 0; a < kMaxPhaseRank; ++a) {
    const Axis axis = a < front ? Axis() : s.axes[a - front];
    const PhaseAxis& pa = l.axes[a];
    if (axis.in > kMaxCoordinate || axis.out > kMaxCoordinate || axis.stride != pa.stride ||
        axis.kernel != pa.kernel || axis.dilation != pa.dilation ||
        (pa.kernel - 1) * pa.dilation / pa.stride > kMaxCoordinate) {
      return false;
    }
    PlanAxis& p = axes[a];
    p.in = static_cast<int>(axis.in);
    p.out = static_cast<int>(axis.out);
    p.stride = static_cast<int>(axis.stride);
    p.dilation = static_cast<int>(pa.sub_dilation);
    p.phases.assign(axis.stride, OutPhase());
    int64_t before = 0, last = axis.in - 1;  // the inputs read: [-before, last]
    for (int64_t r = 0; r < axis.stride; ++r) {
      OutPhase& ph = p.phases[r];
      const int64_t rho = ((r + axis.pad_begin) % axis.stride + axis.stride) % axis.stride;
      ph.count =
          r < axis.out ? static_cast<int>((axis.out - r + axis.stride - 1) / axis.stride) : 0;
      ph.rho = static_cast<int>(rho);
      ph.taps = static_cast<int>(pa.taps[rho]);
      if (ph.taps == 0) continue;
      // Output stride * q + r reads input q - pad + j * sub_dilation for its j-th tap.
      const int64_t pad = (pa.last_tap[rho] * pa.dilation - r - axis.pad_begin) / axis.stride;
      if (pad > kMaxCoordinate || pad < -kMaxCoordinate) return false;
      ph.pad = static_cast<int>(pad);
      if (ph.count == 0) continue;
      before = std::max(before, pad);
      last = std::max(last, ph.count - 1 - pad + (ph.taps - 1) * pa.sub_dilation);
    }
    if (before > kMaxCoordinate || last - axis.in > kMaxCoordinate) return false;
    p.before = static_cast<int>(before);
    p.padded = static_cast<int>(before + last + 1);
  }
  return true;
}

bool PhasePath::Fits(const ConvTransposeShape& s, const PhaseLayout& l) {
  PlanAxis axes[kMaxPhaseRank];
  if (s.axes.size() > kMaxPhaseRank || s.group_in != l.group_in || s.group_out != l.group_out ||
      s.groups != l.groups || !MakeAxes(s, l, axes) || s.out_plane >= kMaxCoordinate * 4) {
    return false;
  }
  // The padded copy: at most about twice X and Y (margins past that are outputs no input
  // reaches, which the GEMM path leaves alone).
  const int64_t plane = int64_t{axes[0].padded} * axes[1].padded * axes[2].padded;
  const int64_t limit = 2 * (s.in_plane * s.in_channels + s.out_plane * s.out_channels) + 4096;
  return plane <= limit / std::max<int64_t>(1, s.in_channels);
}

Status PhasePath::Plan(PlanContext& ctx, const ConvTransposeShape& s, const PhaseLayout& layout,
                       const Epilogue* epilogue) {
  s_ = &s;
  layout_ = layout;
  epilogue_ = epilogue;
  if (!MakeAxes(s, layout_, axes_)) {
    return ctx.Error(ErrorCode::kInternal, "the phase path was chosen for sizes it cannot take");
  }
  in_plane_ = s.in_plane;
  padded_plane_ = int64_t{axes_[0].padded} * axes_[1].padded * axes_[2].padded;
  out_slice_ = int64_t{axes_[1].out} * axes_[2].out;
  DerivedForm packed;
  WEBNX_RETURN_IF_ERROR(ctx.Form(PhaseWeightsForm(layout_), &packed));
  packed_weights_ = packed.head;
  PlanOffsets();
  PlanBlocks(ctx.threads());
  // Zeroed once: runs write only the input's own positions, and the GEMM's last tile may read
  // up to kGemmNr - 1 floats past the last.
  const int64_t padded = s.batch * s.in_channels * padded_plane_ + simd::kGemmNr;
  WEBNX_RETURN_IF_ERROR(nn::CheckNumel(ctx, {padded}, "padded input"));
  WEBNX_RETURN_IF_ERROR(Tensor::Allocate(DType::kFloat32, {padded}, &padded_));
  const int64_t floats = axes_[2].stride * phase_floats_ * ctx.threads();
  WEBNX_RETURN_IF_ERROR(nn::CheckNumel(ctx, {floats}, "phase scratch"));
  return Tensor::AllocateUninitialized(DType::kFloat32, {floats}, &scratch_);
}

// Per phase, the GEMM depth's (channel, kz, ky, kx) as offsets in the padded copy.
void PhasePath::PlanOffsets() {
  const PlanAxis &az = axes_[0], &ay = axes_[1], &ax = axes_[2];
  const int64_t row = ax.padded, slice = int64_t{ay.padded} * ax.padded;
  offsets_.clear();
  offset_start_.assign(layout_.phases, 0);
  for (int64_t p = 0; p < layout_.phases; ++p) {
    offset_start_[p] = offsets_.size();
    const int64_t rx = p % ax.stride, ry = p / ax.stride % ay.stride;
    const int64_t rz = p / (int64_t{ax.stride} * ay.stride);
    const int64_t nz = layout_.axes[0].taps[rz], ny = layout_.axes[1].taps[ry];
    const int64_t nx = layout_.axes[2].taps[rx];
    for (int64_t c = 0; c < layout_.group_in; ++c)
      for (int64_t jz = 0; jz < nz; ++jz)
        for (int64_t jy = 0; jy < ny; ++jy)
          for (int64_t jx = 0; jx < nx; ++jx) {
            offsets_.push_back(static_cast<ptrdiff_t>(c * padded_plane_ + jz * az.dilation * slice +
                                                      jy * ay.dilation * row + jx * ax.dilation));
          }
  }
}

// Blocks of whole phase rows when they are short, else of one row's columns in pieces, about
// kBlockFloats results per column phase. With threads, blocks of fewer rows (down to one) and
// chunks of output channels until there are tasks for all.
void PhasePath::PlanBlocks(int threads) {
  const ConvTransposeShape& s = *s_;
  const int rows = axes_[1].phases[0].count, columns = axes_[2].phases[0].count;
  const int64_t channels = (s.group_out + simd::kGemmMr - 1) / simd::kGemmMr * simd::kGemmMr;
  block_columns_ = static_cast<int>(std::min<int64_t>(columns, 1024));
  block_rows_ = static_cast<int>(
      std::max<int64_t>(1, std::min<int64_t>(rows, kBlockFloats / (channels * block_columns_))));
  x_blocks_ = (columns + block_columns_ - 1) / block_columns_;
  const int64_t images = s.batch * s.groups * axes_[0].out * axes_[1].stride;
  auto tasks = [&] {
    y_blocks_ = (rows + block_rows_ - 1) / block_rows_;
    return images * y_blocks_ * x_blocks_;
  };
  while (threads > 1 && tasks() < 4 * threads && block_rows_ > 1)
    block_rows_ = (block_rows_ + 1) / 2;
  const nn::RowChunks chunks = nn::SplitRows(s.group_out, tasks(), threads);
  chunks_ = chunks.count;
  chunk_rows_ = chunks.rows;
  direct_ = axes_[1].stride == 1 && axes_[2].stride == 1 && x_blocks_ == 1;
  phase_floats_ = direct_ ? 0 : chunk_rows_ * block_rows_ * block_columns_;
}

// Every channel of X into the padded copy, whose margins stay zero.
void PhasePath::PadInput(const RunContext& ctx) {
  ctx.ParallelFor(s_->batch * s_->in_channels, [this](int64_t channel, int) {
    const PlanAxis &az = axes_[0], &ay = axes_[1], &ax = axes_[2];
    const float* src = x_ + channel * in_plane_;
    float* dst = padded_.ptr<float>() + channel * padded_plane_ + ax.before;
    for (int z = 0; z < az.in; ++z) {
      for (int y = 0; y < ay.in; ++y, src += ax.in) {
        const int64_t row = (int64_t{z} + az.before) * ay.padded + y + ay.before;
        std::memcpy(dst + row * ax.padded, src, sizeof(float) * ax.in);
      }
    }
  });
}

PhasePath::Block PhasePath::BlockOf(int64_t task) const {
  const ConvTransposeShape& s = *s_;
  Block b;
  const int64_t chunk = task % chunks_;
  int64_t t = task / chunks_;
  const int64_t xb = t % x_blocks_;
  t /= x_blocks_;
  const int64_t yb = t % y_blocks_;
  t /= y_blocks_;
  b.ry = t % axes_[1].stride;
  t /= axes_[1].stride;
  b.oz = t % axes_[0].out;
  t /= axes_[0].out;
  b.g = t % s.groups;
  b.n = t / s.groups;
  b.qy0 = static_cast<int>(yb * block_rows_);
  b.rows = std::min(block_rows_, axes_[1].phases[b.ry].count - b.qy0);
  b.qx0 = static_cast<int>(xb * block_columns_);
  b.row0 = chunk * chunk_rows_;
  b.channels = static_cast<int>(std::min(chunk_rows_, s.group_out - b.row0));
  return b;
}

void PhasePath::Run(const RunContext& ctx, const float* x, const float* bias, float* y) {
  x_ = x;
  bias_ = bias;
  y_ = y;
  PadInput(ctx);
  const int64_t tasks =
      s_->batch * s_->groups * axes_[0].out * axes_[1].stride * y_blocks_ * x_blocks_ * chunks_;
  ctx.ParallelFor(tasks, [this](int64_t task, int slot) { RunTask(task, slot); });
}

void PhasePath::RunTask(int64_t task, int slot) {
  const ConvTransposeShape& s = *s_;
  const Block b = BlockOf(task);
  if (b.rows <= 0 || b.channels <= 0) return;  // a row phase with fewer rows than the others
  const float* bias = bias_;
  float* y_rows =
      y_ + (b.n * s.out_channels + b.g * s.group_out + b.row0) * s.out_plane + b.oz * out_slice_;
  const PlanAxis& ax = axes_[2];
  if (direct_) {
    PhaseGemm(b, 0, bias, y_rows + int64_t{b.qy0} * ax.out, ax.out, static_cast<int>(s.out_plane));
    return;
  }
  float* results = scratch_.ptr<float>() + slot * ax.stride * phase_floats_;
  for (int rx = 0; rx < ax.stride; ++rx) {
    const int columns = std::max(0, std::min(block_columns_, ax.phases[rx].count - b.qx0));
    PhaseGemm(b, rx, bias, results + rx * phase_floats_, columns, b.rows * columns);
  }
  Interleave(b, results, y_rows);
}

void PhasePath::PhaseGemm(const Block& b, int rx, const float* bias, float* out, int64_t row_step,
                          int ldc) const {
  const PlanAxis &az = axes_[0], &ay = axes_[1], &ax = axes_[2];
  const OutPhase& pz = az.phases[b.oz % az.stride];
  const OutPhase& py = ay.phases[b.ry];
  const OutPhase& px = ax.phases[rx];
  const int columns = std::min(block_columns_, px.count - b.qx0);
  if (columns <= 0) return;
  const int64_t phase = layout_.PhaseOf(pz.rho, py.rho, px.rho);
  const int depth = static_cast<int>(layout_.depth[phase]);
  simd::GemmEpilogue ep;
  ep.bias = bias ? bias + b.g * s_->group_out + b.row0 : nullptr;
  ep.min = epilogue_->clamp_lo;
  ep.max = epilogue_->clamp_hi;
  ep.activation = ActivationOf(epilogue_->function);
  const float* lhs = packed_weights_.ptr<float>() + layout_.Offset(b.g, phase) + b.row0 * depth;
  const ptrdiff_t* offsets = offsets_.data() + offset_start_[phase];
  // Phase row qy0 + t's first output, (qz, qy, qx0), reads its first tap at `origin` (no tap:
  // depth 0, nothing is read).
  const float* origin =
      padded_.ptr<float>() + (b.n * s_->in_channels + b.g * s_->group_in) * padded_plane_;
  if (depth > 0) {
    const int64_t z = b.oz / az.stride - pz.pad + az.before;
    const int64_t y = int64_t{b.qy0} - py.pad + ay.before;
    origin += (z * ay.padded + y) * ax.padded + (b.qx0 - px.pad + ax.before);
  }
  for (int t = 0; t < b.rows; ++t) {
    simd::GemmOffsetRhs(b.channels, columns, depth, lhs, origin, offsets, out + t * row_step, ldc,
                        ep);
    if (depth > 0) origin += ax.padded;
  }
}

// Row segment t of the block, output row stride_h * (qy0 + t) + ry, columns from
// stride_w * qx0: column phase rx's results land every stride_w-th float from rx.
void PhasePath::Interleave(const Block& b, const float* scratch, float* y_rows) const {
  const PlanAxis &ay = axes_[1], &ax = axes_[2];
  const int sw = ax.stride;
  int columns[kMaxPhases];
  for (int rx = 0; rx < sw; ++rx)
    columns[rx] = std::max(0, std::min(block_columns_, ax.phases[rx].count - b.qx0));
  for (int m = 0; m < b.channels; ++m) {
    float* y_m = y_rows + m * s_->out_plane + int64_t{sw} * b.qx0;
    for (int t = 0; t < b.rows; ++t) {
      float* row = y_m + (int64_t{ay.stride} * (b.qy0 + t) + b.ry) * ax.out;
      const float* src = scratch + (int64_t{m} * b.rows + t) * columns[0];
      if (sw == 1) {
        std::memcpy(row, src, sizeof(float) * columns[0]);
      } else if (sw == 2) {
        simd::Interleave2(src, columns[0],
                          scratch + phase_floats_ + (int64_t{m} * b.rows + t) * columns[1],
                          columns[1], row);
      } else {
        for (int rx = 0; rx < sw; ++rx) {
          const float* from =
              scratch + rx * phase_floats_ + (int64_t{m} * b.rows + t) * columns[rx];
          for (int j = 0; j < columns[rx]; ++j) row[int64_t{sw} * j + rx] = from[j];
        }
      }
    }
  }
}

}  // namespace webnx::conv_transpose
