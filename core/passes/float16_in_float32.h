// float16 models computed in float32. Browsers' CPUs have no float16 arithmetic: a kernel
// computing float16 converts every element in and out, and the fast kernels (conv, gemm) are
// float32 only. This pass, at load, makes every float16 value of the graph float32 (constants
// widened once, tensor attributes too, dtype attributes such as Cast's "to" retargeted, into
// subgraphs), so the model runs at float32 speed with float32 rounding inside. The graph's
// float16 inputs and outputs stay float16 where the caller sees them: a conversion node (the
// registry's) widens each input and rounds each output once. Results then differ from a
// runtime that rounds to float16 after every op by float16 rounding only.
#pragma once

#include "core/graph.h"
#include "core/op_registry.h"

namespace webnx {

// *retyped: how many values and attributes it retyped (0: the graph has no float16). Fails only
// when a widened constant is over the tensor size limit.
Status ComputeFloat16InFloat32(Graph* graph, const OpRegistry& registry, int* retyped);

}  // namespace webnx
