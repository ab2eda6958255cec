// RecurrentKernel: the input projections of a whole direction as one packed GEMM, then the time
// loop, a step at a time: each batch entry's gate inputs gathered from its own time step (its
// sequence may be shorter, and a reverse pass starts at its end), the cell's step, and Y.
#include <algorithm>
#include <climits>
#include <iterator>
#include <string>

#include "kernels/nn_common.h"
#include "kernels/rnn_common.h"
#include "kernels/simd/gemm.h"

namespace webnx::rnn {
namespace {

// Every GEMM size and offset of the run fits an int.
bool FitsPackedKernels(const Dims& d) {
  const int64_t limit = INT32_MAX / 2;
  const int64_t widest = std::max(d.input, d.hidden);
  return d.rows() < limit && d.gate_width() < limit && widest < limit &&
         (d.rows() == 0 || std::max(d.input, d.gate_width()) < limit / d.rows());
}

void CopyFloats(const float* from, int64_t n, float* to) {
  std::copy(from, from + n, to);
}

}  // namespace

Status RecurrentKernel::Plan(PlanContext& ctx) {
  node_ = ctx.node().Describe();
  WEBNX_RETURN_IF_ERROR(ParseAttributes(ctx, cell_, &attrs_));
  WEBNX_RETURN_IF_ERROR(CheckInputs(ctx, attrs_, &dims_));
  const Dims& d = dims_;
  WEBNX_RETURN_IF_ERROR(nn::CheckNumel(ctx, d.YShape(), "output Y"));
  WEBNX_RETURN_IF_ERROR(nn::CheckNumel(ctx, {d.rows(), d.gate_width()}, "the input projection"));
  if (!FitsPackedKernels(d)) {
    return ctx.Error(ErrorCode::kOutOfMemory,
                     "X " + ShapeToString(ctx.shape(kX)) + " is too large for the packed GEMM");
  }
  ctx.SetOutput(0, DType::kFloat32, d.YShape());
  ctx.SetOutput(1, DType::kFloat32, d.StateShape());
  if (cell_ == Cell::kLstm) ctx.SetOutput(2, DType::kFloat32, d.StateShape());
  WEBNX_RETURN_IF_ERROR(PlanWeights(ctx));

  // Scratch (at least one float each, so every pointer is real).
  const int batch = static_cast<int>(d.batch), hidden = static_cast<int>(d.hidden);
  const int64_t packed_x = d.rows() > 0 && d.input > 0
                               ? static_cast<int64_t>(simd::PackedLhsSize(
                                     static_cast<int>(d.rows()), static_cast<int>(d.input)))
                               : 0;
  const int64_t state = d.batch * d.hidden;
  const int64_t sizes[] = {packed_x,
                           d.rows() * d.gate_width(),
                           d.batch * d.gate_width(),
                           state,
                           cell_ == Cell::kLstm ? state : 0,
                           static_cast<int64_t>(simd::PackedLhsSize(batch, hidden)),
                           d.directions * d.gate_width(),
                           CellScratchFloats()};
  Tensor* tensors[] = {&packed_x_, &projection_,   &gates_, &h_,
                       &c_,        &packed_state_, &bias_,  &cell_scratch_};
  for (size_t i = 0; i < std::size(sizes); ++i)
    WEBNX_RETURN_IF_ERROR(nn::AllocateScratch(std::max<int64_t>(sizes[i], 1), tensors[i]));
  lengths_.assign(batch, 0);
  active_.assign(batch, 0);
  return Status::Ok();
}

Status RecurrentKernel::Run(RunContext& ctx) {
  WEBNX_RETURN_IF_ERROR(ReadLengths(ctx));
  const Dims& d = dims_;
  if (d.batch == 0 || d.hidden == 0) return Status::Ok();  // every output is empty
  if (!w_constant_ && w_panels_.data)
    PackPanels(input_layout_, ctx.input(kW).ptr<float>(), w_panels_.ptr<float>());
  if (!r_constant_ && r_panels_.data)
    PackPanels(recurrent_layout_, ctx.input(kR).ptr<float>(), r_panels_.ptr<float>());
  const int64_t width = d.gate_width();
  float* bias = bias_.ptr<float>();
  for (int dir = 0; dir < d.directions; ++dir) {
    if (ctx.has_input(kB)) {
      FoldBias(ctx.input(kB).ptr<float>() + dir * 2 * width, bias + dir * width);
    } else {
      std::fill(bias + dir * width, bias + (dir + 1) * width, 0.f);
    }
  }
  if (d.rows() > 0 && d.input > 0) {
    simd::PackLhs(ctx.input(kX).ptr<float>(), static_cast<int>(d.rows()), static_cast<int>(d.input),
                  static_cast<int>(d.input), packed_x_.ptr<float>());
  }
  for (int dir = 0; dir < d.directions; ++dir) {
    const float* w =
        w_panels_.data ? w_panels_.ptr<float>() + dir * input_layout_.DirectionFloats() : nullptr;
    const float* r = r_panels_.ptr<float>() + dir * recurrent_layout_.DirectionFloats();
    RunDirection(ctx, dir, w, r);
  }
  return Status::Ok();
}

void RecurrentKernel::FoldBias(const float* b, float* out) const {
  const int64_t width = dims_.gate_width();
  for (int64_t j = 0; j < width; ++j) out[j] = b[j] + b[width + j];
}

void RecurrentKernel::Clip(float* x, int n) const {
  if (std::isinf(attrs_.clip)) return;
  const float hi = attrs_.clip, lo = -attrs_.clip;
  for (int i = 0; i < n; ++i) x[i] = std::min(std::max(x[i], lo), hi);
}

Status RecurrentKernel::ReadLengths(const RunContext& ctx) {
  const int64_t seq = dims_.seq;
  if (!ctx.has_input(kSequenceLens)) {
    std::fill(lengths_.begin(), lengths_.end(), static_cast<int>(seq));
    return Status::Ok();
  }
  const int32_t* lengths = ctx.input(kSequenceLens).ptr<int32_t>();
  for (size_t b = 0; b < lengths_.size(); ++b) {
    if (lengths[b] < 0 || lengths[b] > seq) {
      return Status(ErrorCode::kInvalidInput, node_ + ": sequence_lens[" + std::to_string(b) +
                                                  "] is " + std::to_string(lengths[b]) +
                                                  ", outside [0, " + std::to_string(seq) + "]");
    }
    lengths_[b] = lengths[b];
  }
  return Status::Ok();
}

void RecurrentKernel::RunDirection(RunContext& ctx, int dir, const float* w_panels,
                                   const float* r_panels) {
  const Dims& d = dims_;
  const int64_t width = d.gate_width();
  float* projection = projection_.ptr<float>();
  const float* bias = bias_.ptr<float>() + dir * width;
  for (int64_t row = 0; row < d.rows(); ++row) CopyFloats(bias, width, projection + row * width);
  if (d.rows() > 0 && w_panels) {
    PanelProduct(ctx, static_cast<int>(d.rows()), static_cast<int>(width),
                 static_cast<int>(d.input), packed_x_.ptr<float>(), w_panels, projection,
                 static_cast<int>(width));
  }
  InitState(ctx, dir, kInitialH, h_.ptr<float>());
  if (cell_ == Cell::kLstm) InitState(ctx, dir, kInitialC, c_.ptr<float>());
  ZeroPastLengths(ctx, dir);

  Step step;
  step.direction = dir;
  step.functions = attrs_.Functions(dir);
  step.active = active_.data();
  step.gates = gates_.ptr<float>();
  step.h = h_.ptr<float>();
  step.c = c_.ptr<float>();
  step.recurrent = r_panels;
  step.bias = ctx.has_input(kB) ? ctx.input(kB).ptr<float>() + dir * 2 * width : nullptr;
  step.peepholes =
      ctx.has_input(kPeepholes) ? ctx.input(kPeepholes).ptr<float>() + dir * 3 * d.hidden : nullptr;
  for (int64_t s = 0; s < d.seq; ++s) {
    step.active_count = GatherStep(dir, s, projection, step.gates);
    if (step.active_count == 0) break;  // every sequence has ended
    RunStep(ctx, step);
    WriteOutputs(ctx, dir, s, step.h);
  }
  for (int b = 0; b < d.batch; ++b) {
    const int64_t at = d.StateOffset(dir, b);
    if (ctx.has_output(1))
      CopyFloats(step.h + b * d.hidden, d.hidden, ctx.output(1).ptr<float>() + at);
    if (cell_ == Cell::kLstm && ctx.has_output(2))
      CopyFloats(step.c + b * d.hidden, d.hidden, ctx.output(2).ptr<float>() + at);
  }
}

void RecurrentKernel::InitState(const RunContext& ctx, int dir, int input, float* state) const {
  const Dims& d = dims_;
  for (int b = 0; b < d.batch; ++b) {
    float* row = state + b * d.hidden;
    if (ctx.has_input(input)) {
      CopyFloats(ctx.input(input).ptr<float>() + d.StateOffset(dir, b), d.hidden, row);
    } else {
      std::fill(row, row + d.hidden, 0.f);
    }
  }
}

// Y is zero at the time steps past each batch entry's length.
void RecurrentKernel::ZeroPastLengths(RunContext& ctx, int dir) const {
  if (!ctx.has_output(0)) return;
  const Dims& d = dims_;
  float* y = ctx.output(0).ptr<float>();
  for (int b = 0; b < d.batch; ++b) {
    for (int64_t t = lengths_[b]; t < d.seq; ++t) {
      float* at = y + d.YOffset(t, dir, b);
      std::fill(at, at + d.hidden, 0.f);
    }
  }
}

// Step s of a batch entry of length L is time s forward, L - 1 - s backward. Gathers the gate
// inputs of the entries still running (zeros for the others) and lists them in active_.
int RecurrentKernel::GatherStep(int dir, int64_t s, const float* projection, float* gates) {
  const Dims& d = dims_;
  const int64_t width = d.gate_width();
  const bool backward = attrs_.Backward(dir);
  int count = 0;
  for (int b = 0; b < d.batch; ++b) {
    float* row = gates + b * width;
    if (s >= lengths_[b]) {
      std::fill(row, row + width, 0.f);
      continue;
    }
    const int64_t t = backward ? lengths_[b] - 1 - s : s;
    CopyFloats(projection + d.Row(t, b) * width, width, row);
    active_[count++] = b;
  }
  return count;
}

void RecurrentKernel::WriteOutputs(RunContext& ctx, int dir, int64_t s, const float* h) const {
  if (!ctx.has_output(0)) return;
  const Dims& d = dims_;
  const bool backward = attrs_.Backward(dir);
  float* y = ctx.output(0).ptr<float>();
  for (int b = 0; b < d.batch; ++b) {
    if (s >= lengths_[b]) continue;
    const int64_t t = backward ? lengths_[b] - 1 - s : s;
    CopyFloats(h + b * d.hidden, d.hidden, y + d.YOffset(t, dir, b));
  }
}

}  // namespace webnx::rnn
