// RNN: Ht = f(Xt * Wi^T + Ht-1 * Ri^T + Wbi + Rbi).
#include <algorithm>
#include <memory>

#include "kernels/rnn_common.h"

namespace webnx::rnn {
namespace {

class SimpleRnnKernel final : public RecurrentKernel {
 public:
  SimpleRnnKernel() : RecurrentKernel(Cell::kSimple) {}

 protected:
  void RunStep(const RunContext& ctx, const Step& step) override {
    const int hidden = static_cast<int>(dims_.hidden);
    MultiplyState(ctx, step.h, step.recurrent, hidden, step.gates, hidden);
    for (int a = 0; a < step.active_count; ++a) {
      const int b = step.active[a];
      float* gate = step.gates + b * hidden;
      Clip(gate, hidden);
      ApplyInPlace(step.functions[0], gate, hidden);
      std::copy(gate, gate + hidden, step.h + b * hidden);
    }
  }
};

}  // namespace

Kernel* MakeSimpleRnnKernel() {
  return new SimpleRnnKernel();
}

}  // namespace webnx::rnn
