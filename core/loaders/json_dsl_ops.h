// The webnx-graph op lowering (the table in json_dsl_ops.cc, the rules in json_dsl_vision.cc and
// json_dsl_tensor_ops.cc): the DSL's own ops (Conv2D, DepthwiseConv2D, BatchNorm,
// Relu6, the NHWC pooling ops, MatMul with transA/transB, attribute-form Reshape) become
// standard ONNX nodes of the IR here, so nothing after the loader knows them.
#pragma once

#include <string>

#include "core/loaders/json_lowering.h"
#include "core/loaders/json_webnx.h"

namespace webnx {
namespace jsonl {

// Lowers one compute node (not Input or Constant: the document reader turns those into graph
// inputs and initializers). Ops without a rule are ONNX ops: they pass through under their
// name with their attributes converted.
Status LowerDslNode(const DslNode& node, Lowering* ctx);

}  // namespace jsonl
}  // namespace webnx
