// The recurrent ops' weights as packed GEMM panels, and the products that read them.
#include <algorithm>
#include <climits>
#include <string>
#include <vector>

#include "kernels/nn_common.h"
#include "kernels/rnn_common.h"
#include "kernels/simd/gemm.h"

namespace webnx::rnn {
namespace {

// Below this many multiply-adds a product runs on the calling thread: sharing it out costs more
// than it saves.
constexpr int64_t kParallelWork = int64_t{1} << 17;

// Every size the packed kernels index fits an int.
bool Packable(const PanelLayout& layout) {
  if (layout.directions < 1 || layout.hidden < 1 || layout.k < 1 || layout.groups.empty())
    return false;
  int64_t gates = 0;
  for (int g : layout.groups) gates += g;
  const int64_t limit = INT32_MAX / 2;
  const int64_t width = gates * layout.hidden;
  return layout.k < limit && width < limit && width * layout.k < limit / layout.directions;
}

std::string FormKind(const std::vector<int>& groups) {
  std::string kind = "rnn-panels";
  for (int g : groups) kind += "-" + std::to_string(g);
  return kind;
}

}  // namespace

size_t PanelLayout::GroupFloats(size_t group) const {
  return simd::PackedRhsSize(static_cast<int>(k), groups[group] * static_cast<int>(hidden));
}

size_t PanelLayout::GroupOffset(size_t group) const {
  size_t offset = 0;
  for (size_t g = 0; g < group; ++g) offset += GroupFloats(g);
  return offset;
}

ConstantForm PanelForm(int input, const PanelLayout& layout) {
  ConstantForm form;
  form.input = input;
  form.kind = FormKind(layout.groups);
  form.floats = layout.TotalFloats();
  form.derive = [layout](const float* from, float* to) {
    std::vector<float> copy;
    if (from == to) {  // over the constant's own storage: pack from a copy
      int64_t gates = 0;
      for (int g : layout.groups) gates += g;
      copy.assign(from, from + layout.directions * gates * layout.hidden * layout.k);
      from = copy.data();
    }
    PackPanels(layout, from, to);
  };
  return form;
}

void PackPanels(const PanelLayout& layout, const float* weights, float* packed) {
  const int k = static_cast<int>(layout.k);
  const int hidden = static_cast<int>(layout.hidden);
  const float* rows = weights;
  for (int64_t d = 0; d < layout.directions; ++d) {
    float* out = packed + d * layout.DirectionFloats();
    for (size_t g = 0; g < layout.groups.size(); ++g) {
      const int width = layout.groups[g] * hidden;
      simd::PackRhsTransposed(rows, k, width, k, out + layout.GroupOffset(g));
      rows += static_cast<size_t>(width) * k;
    }
  }
}

void PanelProduct(const RunContext& ctx, int m, int n, int k, const float* packed_a,
                  const float* panels, float* c, int ldc) {
  const int threads = ctx.threads();
  simd::GemmEpilogue ep;
  if (threads <= 1 || int64_t{m} * n * k < kParallelWork) {
    ep.addend = c;
    simd::GemmPacked(m, n, k, packed_a, panels, c, ldc, ep);
    return;
  }
  // Blocks of 8-column panels, and chunks of rows when the blocks are too few.
  const int panel_count = (n + simd::kGemmNr - 1) / simd::kGemmNr;
  const int per_block = (panel_count + 2 * threads - 1) / (2 * threads);
  const int blocks = (panel_count + per_block - 1) / per_block;
  const nn::RowChunks chunks = nn::SplitRows(m, blocks, threads);
  ctx.ParallelFor(int64_t{blocks} * chunks.count, [&](int64_t task, int) {
    const int j0 = static_cast<int>(task / chunks.count) * per_block * simd::kGemmNr;
    const int row0 = static_cast<int>((task % chunks.count) * chunks.rows);
    const int cols = std::min(per_block * simd::kGemmNr, n - j0);
    const int rows = static_cast<int>(std::min<int64_t>(chunks.rows, m - row0));
    float* out = c + static_cast<size_t>(row0) * ldc + j0;
    simd::GemmEpilogue part;
    part.addend = out;  // each element is read before it is written
    simd::GemmPacked(rows, cols, k, packed_a + static_cast<size_t>(row0) * k,
                     panels + static_cast<size_t>(j0) * k, out, ldc, part);
  });
}

void RecurrentKernel::DeclareForms(FormContext& ctx, std::vector<ConstantForm>* forms) const {
  const int gates = GateCount(cell_);
  auto declare = [&](int input, const std::vector<int>& groups) {
    const Tensor* w = ctx.constant(input);
    if (!w || w->dtype != DType::kFloat32 || w->shape.size() != 3 || w->shape[1] % gates != 0)
      return;
    const PanelLayout layout{w->shape[0], w->shape[1] / gates, w->shape[2], groups};
    if (Packable(layout)) forms->push_back(PanelForm(input, layout));
  };
  declare(kW, {gates});
  declare(kR, RecurrentGroups(cell_));
}

Status RecurrentKernel::PlanWeights(PlanContext& ctx) {
  const Dims& d = dims_;
  input_layout_ = {d.directions, d.hidden, d.input, {static_cast<int>(d.gates)}};
  recurrent_layout_ = {d.directions, d.hidden, d.hidden, RecurrentGroups(cell_)};
  auto plan = [&](int input, const PanelLayout& layout, Tensor* panels, bool* constant) {
    *panels = Tensor();
    *constant = false;
    if (layout.hidden == 0 || layout.k == 0) return Status::Ok();  // an empty product
    if (!Packable(layout)) {
      return ctx.Error(ErrorCode::kOutOfMemory,
                       "the weights are too large for the packed GEMM kernels");
    }
    if (!ctx.is_constant(input)) return nn::AllocateScratch(layout.TotalFloats(), panels);
    DerivedForm form;
    WEBNX_RETURN_IF_ERROR(ctx.Form(PanelForm(input, layout), &form));
    *panels = form.head;
    *constant = true;
    return Status::Ok();
  };
  WEBNX_RETURN_IF_ERROR(plan(kW, input_layout_, &w_panels_, &w_constant_));
  return plan(kR, recurrent_layout_, &r_panels_, &r_constant_);
}

void RecurrentKernel::MultiplyState(const RunContext& ctx, const float* state, const float* panels,
                                    int n, float* out, int ldc) {
  const int batch = static_cast<int>(dims_.batch), hidden = static_cast<int>(dims_.hidden);
  float* packed = packed_state_.ptr<float>();
  simd::PackLhs(state, batch, hidden, hidden, packed);
  PanelProduct(ctx, batch, n, hidden, packed, panels, out, ldc);
}

}  // namespace webnx::rnn
