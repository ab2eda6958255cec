// Fusion described as data. A node that can run inside the epilogue of the step producing its
// input declares what it is (EpilogueStage, from Kernel::AsEpilogueStage). A kernel that can
// apply such stages after its own computation holds an Epilogue (Kernel::epilogue()): it states
// which stages it accepts when it is planned, the planner adds the stages of the nodes it fuses
// (core/plan_fusion.cc), and the kernel applies what was added when it runs. The order rule
// (a residual sum, then a clamp, then one function last) lives here, once.
#pragma once

#include <algorithm>
#include <cmath>

namespace webnx {

// An elementwise float32 function of one value that a producing kernel may apply in its
// epilogue: `kind` (0: none), `alpha` and `beta` mean what the kernel family computing it says
// (the core only passes them on); `gated` asks for x * f(x) instead of f(x) (SiLU, hard-swish).
struct EpilogueFunction {
  int kind = 0;
  float alpha = 0.f, beta = 0.f;
  bool gated = false;
};

// What a float32 elementwise node is, for fusion: a clamp of input 0 to [lo, hi] (Relu, Clip
// with known bounds), a function of input 0, a sum of inputs 0 and 1 of one shape (a residual
// add), or a product of inputs 0 and 1 (x * f(x) with f a function just planned).
struct EpilogueStage {
  enum class Kind { kNone, kClamp, kFunction, kSum, kProduct };
  Kind kind = Kind::kNone;
  float lo = -INFINITY, hi = INFINITY;  // kClamp
  EpilogueFunction function;            // kFunction

  static EpilogueStage Clamp(float lo, float hi) { return {Kind::kClamp, lo, hi, {}}; }
  static EpilogueStage Function(const EpilogueFunction& f) {
    return {Kind::kFunction, -INFINITY, INFINITY, f};
  }
  static EpilogueStage Of(Kind kind) { return {kind, -INFINITY, INFINITY, {}}; }
};

struct Epilogue {
  // What the kernel accepts, set when it is planned.
  bool accepts_addend = false;    // a float32 tensor shaped like output 0, added first
  int addend_input = -1;          // the input position the planner passes it at
  bool accepts_clamp = false;     // clamps, merged into one
  bool accepts_function = false;  // one function, applied last

  // What the planner added, applied in this order after the kernel's own output.
  bool has_addend = false;
  float clamp_lo = -INFINITY, clamp_hi = INFINITY;
  EpilogueFunction function;

  bool HasClamp() const { return clamp_lo > -INFINITY || clamp_hi < INFINITY; }
  bool HasFunction() const { return function.kind != 0; }

  // Each adds its stage and returns true when the kernel accepts it and the stage comes in
  // order after what is already there; otherwise changes nothing and returns false.
  bool AddAddend() {
    if (!accepts_addend || addend_input < 0 || has_addend || HasClamp() || HasFunction())
      return false;
    has_addend = true;
    return true;
  }
  bool AddClamp(float lo, float hi) {
    if (!accepts_clamp || HasFunction()) return false;
    clamp_lo = std::max(clamp_lo, lo);
    clamp_hi = std::min(clamp_hi, hi);
    return true;
  }
  bool AddFunction(const EpilogueFunction& f) {
    if (!accepts_function || f.kind == 0 || HasFunction()) return false;
    function = f;
    return true;
  }
};

}  // namespace webnx
