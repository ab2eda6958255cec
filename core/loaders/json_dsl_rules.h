// The lowering rules of the webnx-graph op table (json_dsl_ops.cc) and the checks they share.
// NHWC (the DSL's vision layout) <-> NCHW (ONNX's): a lowered NHWC op runs NCHW between a pair
// of transposes, and Lowering pairs twins so consecutive NHWC ops share one layout change.
#pragma once

#include <cstddef>
#include <map>
#include <string>

#include "core/loaders/json_lowering.h"
#include "core/loaders/json_webnx.h"

namespace webnx {
namespace jsonl {

// The attributes of an emitted ONNX node (not webnx::Attrs, the kernels' attribute reader).
using OnnxAttrs = std::map<std::string, Attribute>;

// MalformedModel unless the node has `min` to `max` inputs.
Status ExpectInputs(const DslNode& node, size_t min, size_t max);
// MalformedModel unless the node has exactly one, named, output.
Status ExpectOneOutput(const DslNode& node);
// The first input, which must be given.
Status ExpectData(const DslNode& node);
// ExpectInputs, ExpectData and ExpectOneOutput: what most DSL ops check first.
Status ExpectDataNode(const DslNode& node, size_t min, size_t max);
// One given input, one output, no attributes (Relu6, HardSwish).
Status ExpectPlainUnary(const DslNode& node);
// The node unchanged as an ONNX node, its attributes converted.
Status Passthrough(const DslNode& node, Lowering& ctx);

// json_dsl_vision.cc: the NHWC vision ops.
Status LowerConv2D(const DslNode& node, Lowering& ctx);
Status LowerDepthwiseConv2D(const DslNode& node, Lowering& ctx);
Status LowerBatchNorm(const DslNode& node, Lowering& ctx);
Status LowerWindowPool(const DslNode& node, Lowering& ctx);  // AveragePool, MaxPool
Status LowerGlobalPool(const DslNode& node, Lowering& ctx);  // GlobalAveragePool, GlobalMaxPool

// json_dsl_tensor_ops.cc: elementwise, matrix and shape ops.
Status LowerElementwise(const DslNode& node, Lowering& ctx);
Status LowerRelu6(const DslNode& node, Lowering& ctx);
Status LowerHardSwish(const DslNode& node, Lowering& ctx);
Status LowerMatMul(const DslNode& node, Lowering& ctx);
Status LowerReshape(const DslNode& node, Lowering& ctx);
Status LowerConcat(const DslNode& node, Lowering& ctx);

}  // namespace jsonl
}  // namespace webnx
