// The parts of an ONNX GraphProto every graph has, the main one and its subgraphs (If's
// branches, Loop's and Scan's bodies) alike: value infos, nodes and their attributes. The main
// graph's initializers are read by core/loaders/onnx_loader.cc (their payloads may be detached).
#pragma once

#include <cstdint>
#include <string>

#include "core/graph.h"
#include "core/limits.h"
#include "core/loaders/onnx_tensors.h"

namespace onnx {
class GraphProto;
class TensorProto;
}  // namespace onnx

namespace webnx {

// What loading one model accumulates against its limits.
struct LoadBudget {
  const SessionLimits& limits;
  int64_t initializer_bytes = 0;
};

// A tensor's declared shape within the limits, and its bytes within the running total, before
// it is converted. Unsupported dtypes and data that does not match the shape are left to
// TensorFromProto, which names them more precisely.
Status CheckTensorProto(const onnx::TensorProto& proto, const RawData& raw, const std::string& what,
                        LoadBudget* budget);

// Reads the graph's inputs (those that are not initializers already read), outputs and nodes;
// subgraphs are read whole and their outer-scope reads made explicit (CaptureOuterScope).
// `scope` prefixes the names made up for unnamed nodes ("" for the main graph).
Status ReadGraphBody(const onnx::GraphProto& proto, const std::string& scope, LoadBudget* budget,
                     Graph* graph);

}  // namespace webnx
