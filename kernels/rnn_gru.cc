// GRU, gates z (update), r (reset) and h (hidden), f = Sigmoid and g = Tanh by default:
//   zt = f(Xt * Wz^T + Ht-1 * Rz^T + Wbz + Rbz)
//   rt = f(Xt * Wr^T + Ht-1 * Rr^T + Wbr + Rbr)
//   ht = g(Xt * Wh^T + (rt (.) Ht-1) * Rh^T + Rbh + Wbh)      linear_before_reset = 0
//   ht = g(Xt * Wh^T + rt (.) (Ht-1 * Rh^T + Rbh) + Wbh)      linear_before_reset = 1
//   Ht = (1 - zt) (.) ht + zt (.) Ht-1
#include <algorithm>
#include <memory>

#include "kernels/rnn_common.h"

namespace webnx::rnn {
namespace {

class GruKernel final : public RecurrentKernel {
 public:
  GruKernel() : RecurrentKernel(Cell::kGru) {}

 protected:
  // (rt (.) Ht-1) for every row, or Ht-1 * Rh^T + Rbh.
  int64_t CellScratchFloats() const override { return dims_.batch * dims_.hidden; }

  // Rbh stays out of the projection when it is multiplied by rt.
  void FoldBias(const float* b, float* out) const override {
    const int64_t hidden = dims_.hidden, width = dims_.gate_width();
    const int64_t folded = attrs_.linear_before_reset ? 2 * hidden : width;
    for (int64_t j = 0; j < width; ++j) out[j] = b[j] + (j < folded ? b[width + j] : 0.f);
  }

  void RunStep(const RunContext& ctx, const Step& step) override {
    const int hidden = static_cast<int>(dims_.hidden), width = 3 * hidden;
    // z and r: one product with their two groups of R's rows.
    MultiplyState(ctx, step.h, step.recurrent, 2 * hidden, step.gates, width);
    for (int a = 0; a < step.active_count; ++a) {
      float* zr = step.gates + step.active[a] * width;
      Clip(zr, 2 * hidden);
      ApplyInPlace(step.functions[0], zr, 2 * hidden);
    }
    const float* rh_panels = step.recurrent + recurrent_layout_.GroupOffset(1);
    float* scratch = cell_scratch_.ptr<float>();
    if (attrs_.linear_before_reset) {
      AddResetLinear(ctx, step, rh_panels, scratch);
    } else {
      AddResetState(ctx, step, rh_panels, scratch);
    }
    for (int a = 0; a < step.active_count; ++a) {
      const int b = step.active[a];
      const float* z = step.gates + b * width;
      float* candidate = step.gates + b * width + 2 * hidden;
      float* h = step.h + b * hidden;
      Clip(candidate, hidden);
      ApplyInPlace(step.functions[1], candidate, hidden);
      for (int j = 0; j < hidden; ++j) h[j] = (1.f - z[j]) * candidate[j] + z[j] * h[j];
    }
  }

 private:
  // h gate += (rt (.) Ht-1) * Rh^T.
  void AddResetState(const RunContext& ctx, const Step& step, const float* rh_panels,
                     float* reset_state) {
    const int hidden = static_cast<int>(dims_.hidden), width = 3 * hidden;
    std::fill(reset_state, reset_state + dims_.batch * hidden, 0.f);
    for (int a = 0; a < step.active_count; ++a) {
      const int b = step.active[a];
      const float* r = step.gates + b * width + hidden;
      const float* h = step.h + b * hidden;
      float* out = reset_state + b * hidden;
      for (int j = 0; j < hidden; ++j) out[j] = r[j] * h[j];
    }
    MultiplyState(ctx, reset_state, rh_panels, hidden, step.gates + 2 * hidden, width);
  }

  // h gate += rt (.) (Ht-1 * Rh^T + Rbh).
  void AddResetLinear(const RunContext& ctx, const Step& step, const float* rh_panels,
                      float* recurrent) {
    const int hidden = static_cast<int>(dims_.hidden), width = 3 * hidden;
    for (int b = 0; b < dims_.batch; ++b) {
      float* row = recurrent + b * hidden;
      if (step.bias) {
        std::copy(step.bias + width + 2 * hidden, step.bias + 2 * width, row);
      } else {
        std::fill(row, row + hidden, 0.f);
      }
    }
    MultiplyState(ctx, step.h, rh_panels, hidden, recurrent, hidden);
    for (int a = 0; a < step.active_count; ++a) {
      const int b = step.active[a];
      const float* r = step.gates + b * width + hidden;
      const float* linear = recurrent + b * hidden;
      float* candidate = step.gates + b * width + 2 * hidden;
      for (int j = 0; j < hidden; ++j) candidate[j] += r[j] * linear[j];
    }
  }
};

}  // namespace

Kernel* MakeGruKernel() {
  return new GruKernel();
}

}  // namespace webnx::rnn
