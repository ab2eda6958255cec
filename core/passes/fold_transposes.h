// Load-time graph rewrite for models exported in NHWC (tf2onnx, jax2onnx): their convs sit
// between a Transpose to NCHW and one back, with elementwise ops (activations, residual sums) in
// NHWC between them. Transposes are pushed down through elementwise nodes until they meet the
// next transpose, and pairs that cancel are removed, so the convs run on NCHW activations with
// no copy between them. Which nodes are transposes or elementwise, the kernels declare
// (Kernel::IsTranspose, Kernel::Elementwise): no op is named here.
#pragma once

#include "core/op_registry.h"
#include "core/resolved_graph.h"

namespace webnx {

// Rewrites, until none applies:
//  - T_q(T_p(x)) with q undoing p: its readers read x (when it is a graph output, the node
//    writing x, if x has no other reader, writes it instead);
//  - U(T_p(x)) for an elementwise U that alone reads T_p(x) (its other inputs scalar
//    constants): becomes T_p(U(x));
//  - B(.., T_p(x), .., T_p(y), .., c, ..) for a broadcasting elementwise B that alone reads
//    each transposed value, all transposed alike, and constants c of no higher rank: becomes
//    T_p(B(.., x, .., y, .., c', ..)), c' being c transposed by p's inverse (a new constant;
//    c is dropped once nothing else reads it);
//  - a transpose nothing reads is removed.
// Graph outputs keep their names and values. Each rewrite costs the nodes it touches; nodes
// are put back in topological order at the end. `removed` (if given) gets the transposes
// removed; an error is a bug in the pass (Internal).
Status FoldTransposes(ResolvedGraph* rg, const OpRegistry& registry, int* removed = nullptr);

}  // namespace webnx
