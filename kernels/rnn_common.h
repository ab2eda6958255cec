// What the recurrent ops (RNN, GRU, LSTM) share: their attributes, the shapes of a run and
// where each time step lives in the two layouts, the weights packed as GEMM panels, and
// RecurrentKernel, which runs the input projection and the time loop; each cell supplies its
// step (rnn_simple.cc, rnn_gru.cc, rnn_lstm.cc).
#pragma once

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/kernel.h"
#include "kernels/rnn_activations.h"

namespace webnx::rnn {

enum class Cell { kSimple, kGru, kLstm };

// Input positions (GRU and RNN stop at kInitialH).
enum InputIndex { kX, kW, kR, kB, kSequenceLens, kInitialH, kInitialC, kPeepholes };

// Gates per direction: RNN 1 (i), GRU 3 (z, r, h), LSTM 4 (i, o, f, c).
int GateCount(Cell cell);
// Activation functions per direction: RNN 1 (f), GRU 2 (f, g), LSTM 3 (f, g, h).
int FunctionCount(Cell cell);
// Groups of R's gate rows that a step multiplies separately: GRU's h rows (after the reset
// gate is known) apart from z and r; every gate at once for the others.
std::vector<int> RecurrentGroups(Cell cell);

struct Attributes {
  Cell cell = Cell::kSimple;
  int directions = 1;
  bool reverse = false;                 // direction "reverse" (bidirectional: direction 1 is)
  int64_t hidden_size = -1;             // the attribute, -1 when absent
  int layout = 0;                       // 1: batch before time in X, Y, and the states
  float clip = INFINITY;                // gate inputs are clamped to [-clip, clip]
  bool input_forget = false;            // LSTM: f = 1 - i
  bool linear_before_reset = false;     // GRU
  std::vector<Activation> activations;  // FunctionCount per direction, direction after direction

  bool Backward(int direction) const { return directions == 2 ? direction == 1 : reverse; }
  const Activation* Functions(int direction) const {
    return activations.data() + direction * FunctionCount(cell);
  }
};

// Reads and checks the attributes of the node's version (`layout` from 14 on).
Status ParseAttributes(PlanContext& ctx, Cell cell, Attributes* out);

// The sizes of a run and the offsets of its values in either layout.
struct Dims {
  int64_t seq = 0, batch = 0, input = 0, hidden = 0, directions = 1, gates = 1;
  int layout = 0;

  int64_t rows() const { return seq * batch; }
  int64_t gate_width() const { return gates * hidden; }
  // Row of X, and of its projection, that holds time t of batch entry b.
  int64_t Row(int64_t t, int64_t b) const { return layout == 0 ? t * batch + b : b * seq + t; }
  // Offset of Y's hidden vector at time t, direction d, batch entry b.
  int64_t YOffset(int64_t t, int64_t d, int64_t b) const {
    return (layout == 0 ? (t * directions + d) * batch + b : (b * seq + t) * directions + d) *
           hidden;
  }
  // Offset of a state vector (initial_h/c, Y_h/Y_c) of direction d, batch entry b.
  int64_t StateOffset(int64_t d, int64_t b) const {
    return (layout == 0 ? d * batch + b : b * directions + d) * hidden;
  }
  Shape YShape() const {
    return layout == 0 ? Shape{seq, directions, batch, hidden}
                       : Shape{batch, seq, directions, hidden};
  }
  Shape StateShape() const {
    return layout == 0 ? Shape{directions, batch, hidden} : Shape{batch, directions, hidden};
  }
};

// Checks every present input's dtype and shape against the attributes and derives the Dims.
Status CheckInputs(const PlanContext& ctx, const Attributes& attrs, Dims* dims);

// W [directions, gates * hidden, k] or R (k = hidden) as the right operand of x * W^T: per
// direction, each group of gate rows packed into 8-column GEMM panels (simd::PackRhsTransposed).
struct PanelLayout {
  int64_t directions = 0, hidden = 0, k = 0;
  std::vector<int> groups;  // gates per group

  size_t GroupFloats(size_t group) const;
  size_t GroupOffset(size_t group) const;  // within a direction
  size_t DirectionFloats() const { return GroupOffset(groups.size()); }
  size_t TotalFloats() const { return DirectionFloats() * static_cast<size_t>(directions); }
};
ConstantForm PanelForm(int input, const PanelLayout& layout);
void PackPanels(const PanelLayout& layout, const float* weights, float* packed);

// C (m x n, ldc floats per row) += A (m x k, packed by simd::PackLhs) times B (k x n, packed
// panels), over the run's threads when it is large enough to gain. Every element is the same
// chain of operations however the work is shared.
void PanelProduct(const RunContext& ctx, int m, int n, int k, const float* packed_a,
                  const float* panels, float* c, int ldc);

class RecurrentKernel : public Kernel {
 public:
  explicit RecurrentKernel(Cell cell) : cell_(cell) {}
  Status Plan(PlanContext& ctx) final;
  Status Run(RunContext& ctx) final;
  // W and R are read only as packed panels.
  void DeclareForms(FormContext& ctx, std::vector<ConstantForm>* forms) const final;

 protected:
  // One time step of one direction.
  struct Step {
    int direction = 0;
    const Activation* functions = nullptr;  // this direction's
    const int* active = nullptr;            // batch rows still inside their sequences
    int active_count = 0;
    float* gates = nullptr;  // [batch, gates * hidden]: X's projections plus bias (0 if inactive)
    float* h = nullptr;      // [batch, hidden]: H(t-1) in, H(t) out (inactive rows unchanged)
    float* c = nullptr;      // [batch, hidden]: LSTM's cell state, likewise
    const float* recurrent = nullptr;  // this direction's R panels
    const float* bias = nullptr;       // this direction's B: Wb then Rb, or null
    const float* peepholes = nullptr;  // LSTM: this direction's P, or null
  };

  // Floats of scratch the cell's step uses (cell_scratch_).
  virtual int64_t CellScratchFloats() const { return 0; }
  // The bias added to every projection row of a direction (gates * hidden floats) from its B
  // row: Wb + Rb for every gate a step does not add Rb to itself.
  virtual void FoldBias(const float* b, float* out) const;
  virtual void RunStep(const RunContext& ctx, const Step& step) = 0;

  // out (batch x n, ldc) += state (batch x hidden) times `panels` (hidden x n).
  void MultiplyState(const RunContext& ctx, const float* state, const float* panels, int n,
                     float* out, int ldc);
  // Clamps n gate inputs to [-clip, clip] when the node clips.
  void Clip(float* x, int n) const;

  const Cell cell_;
  Attributes attrs_;
  Dims dims_;
  PanelLayout recurrent_layout_;
  Tensor cell_scratch_;

 private:
  Status PlanWeights(PlanContext& ctx);
  Status ReadLengths(const RunContext& ctx);
  void RunDirection(RunContext& ctx, int dir, const float* w_panels, const float* r_panels);
  void InitState(const RunContext& ctx, int dir, int input, float* state) const;
  void ZeroPastLengths(RunContext& ctx, int dir) const;
  int GatherStep(int dir, int64_t s, const float* projection, float* gates);
  void WriteOutputs(RunContext& ctx, int dir, int64_t s, const float* h) const;

  std::string node_;  // for errors found when running
  PanelLayout input_layout_;
  Tensor w_panels_, r_panels_;  // packed once per session when constant, else every run
  bool w_constant_ = false, r_constant_ = false;
  Tensor packed_x_;      // X packed as the projection's left operand
  Tensor projection_;    // one direction's X * W^T + bias, [rows, gates * hidden]
  Tensor gates_;         // one step's gate inputs, [batch, gates * hidden]
  Tensor h_, c_;         // the state, [batch, hidden]
  Tensor packed_state_;  // a state packed as a left operand
  Tensor bias_;          // FoldBias per direction
  std::vector<int> lengths_, active_;
};

// The kernels of rnn_simple.cc, rnn_gru.cc and rnn_lstm.cc.
Kernel* MakeSimpleRnnKernel();
Kernel* MakeGruKernel();
Kernel* MakeLstmKernel();

}  // namespace webnx::rnn
