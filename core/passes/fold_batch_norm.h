// Load-time graph rewrite: BatchNormalization folded into the Conv before it.
#pragma once

#include "core/plan.h"

namespace webnx {

// Conv -> BatchNormalization (inference form, per-channel statistics, every parameter an
// initializer, the conv's output read by nothing else) becomes one Conv with scaled weights
// and a shifted bias: Y = conv(X, W * s) + (B - mean) * s + beta, s = scale / sqrt(var + eps).
// Leaves every other node as it is. Returns the number of BatchNormalization nodes removed.
int FoldBatchNormIntoConv(ResolvedGraph* rg);

}  // namespace webnx
