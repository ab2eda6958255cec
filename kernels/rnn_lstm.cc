// LSTM, gates i (input), o (output), f (forget) and c (cell), f = Sigmoid, g = h = Tanh by
// default, peepholes P[iof]:
//   it = f(Xt * Wi^T + Ht-1 * Ri^T + Pi (.) Ct-1 + Wbi + Rbi)
//   ft = f(Xt * Wf^T + Ht-1 * Rf^T + Pf (.) Ct-1 + Wbf + Rbf)     (1 - it with input_forget)
//   ct = g(Xt * Wc^T + Ht-1 * Rc^T + Wbc + Rbc)
//   Ct = ft (.) Ct-1 + it (.) ct
//   ot = f(Xt * Wo^T + Ht-1 * Ro^T + Po (.) Ct + Wbo + Rbo)
//   Ht = ot (.) h(Ct)
#include <algorithm>
#include <memory>

#include "kernels/rnn_common.h"

namespace webnx::rnn {
namespace {

class LstmKernel final : public RecurrentKernel {
 public:
  LstmKernel() : RecurrentKernel(Cell::kLstm) {}

 protected:
  int64_t CellScratchFloats() const override { return dims_.hidden; }  // h(Ct)

  void RunStep(const RunContext& ctx, const Step& step) override {
    const int width = static_cast<int>(dims_.gate_width());
    MultiplyState(ctx, step.h, step.recurrent, width, step.gates, width);
    for (int a = 0; a < step.active_count; ++a) UpdateRow(step, step.active[a]);
  }

 private:
  void UpdateRow(const Step& step, int b) {
    const int hidden = static_cast<int>(dims_.hidden);
    float* in = step.gates + b * 4 * hidden;
    float* out = in + hidden;
    float* forget = in + 2 * hidden;
    float* cell = in + 3 * hidden;
    float* c = step.c + b * hidden;
    float* h = step.h + b * hidden;
    const Activation& f = step.functions[0];
    const float* p = step.peepholes;
    // Without peepholes or input_forget, i, o and f are consecutive and none reads C: one pass of
    // f over the three (a VAD's 32-wide gates spent more in three calls' set-up than in them).
    const bool merged = !p && !attrs_.input_forget;
    if (merged) {
      Clip(in, 3 * hidden);
      ApplyInPlace(f, in, 3 * hidden);
    } else {
      if (p) {
        for (int j = 0; j < hidden; ++j) in[j] += p[j] * c[j];
        for (int j = 0; j < hidden; ++j) forget[j] += p[2 * hidden + j] * c[j];
      }
      Clip(in, hidden);
      ApplyInPlace(f, in, hidden);
      if (attrs_.input_forget) {
        for (int j = 0; j < hidden; ++j) forget[j] = 1.f - in[j];
      } else {
        Clip(forget, hidden);
        ApplyInPlace(f, forget, hidden);
      }
    }
    Clip(cell, hidden);
    ApplyInPlace(step.functions[1], cell, hidden);
    for (int j = 0; j < hidden; ++j) c[j] = forget[j] * c[j] + in[j] * cell[j];
    if (!merged) {
      if (p) {
        for (int j = 0; j < hidden; ++j) out[j] += p[hidden + j] * c[j];
      }
      Clip(out, hidden);
      ApplyInPlace(f, out, hidden);
    }
    float* squashed = cell_scratch_.ptr<float>();
    std::copy(c, c + hidden, squashed);
    ApplyInPlace(step.functions[2], squashed, hidden);
    for (int j = 0; j < hidden; ++j) h[j] = out[j] * squashed[j];
  }
};

}  // namespace

Kernel* MakeLstmKernel() {
  return new LstmKernel();
}

}  // namespace webnx::rnn
