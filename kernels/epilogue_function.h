// The core's EpilogueFunction (what the planner passes from an activation node to the kernel
// producing its input) and the SIMD kernels' Activation hold the same fields; here they convert,
// the core's opaque `kind` being a simd::ActivationKind.
#pragma once

#include "core/epilogue.h"
#include "kernels/simd/activation.h"

namespace webnx {

inline EpilogueFunction EpilogueOf(const simd::Activation& a) {
  return {static_cast<int>(a.kind), a.alpha, a.beta, a.gated};
}

inline simd::Activation ActivationOf(const EpilogueFunction& f) {
  return {static_cast<simd::ActivationKind>(f.kind), f.alpha, f.beta, f.gated};
}

}  // namespace webnx
