// Load-time graph rewrite: a per-channel affine map (an inference BatchNormalization) folded into
// the node before it that keeps per-output-channel weights (a Conv). Which nodes are which, the
// kernels declare (Kernel::IsChannelAffine, Kernel::AbsorbsChannelAffine): no op is named here.
#pragma once

#include "core/op_registry.h"
#include "core/resolved_graph.h"

namespace webnx {

// P -> A, where A is a channel affine y = (x - center) * scale + shift of P's only output, read
// by nothing else, and P absorbs it with constant float32 weights W (dim 0: the channels) and
// an optional constant bias b: P gets W * scale and (b - center) * scale + shift and writes y;
// A is removed. Weights only P can see are scaled in place. Returns the affine nodes removed.
int FoldChannelAffines(ResolvedGraph* rg, const OpRegistry& registry);

}  // namespace webnx
