// ONNX (protobuf) bytes -> Graph. Reports malformed bytes, unsupported dtypes and opsets with
// codes; knows no operator.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "core/graph.h"
#include "core/limits.h"

namespace onnx {
class TensorProto;
}

namespace webnx {

// Default-domain opsets the runtime supports. Opsets 24 and 25 only widened type lists of
// ops, which the dtype checks cover. Models of an older opset load (from kOldestDefaultOpset)
// when every op they use has an implementation of a version that old (Session::Resolve).
constexpr int64_t kMinDefaultOpset = 7;
constexpr int64_t kMaxDefaultOpset = 25;
constexpr int64_t kOldestDefaultOpset = 1;

Status LoadOnnxModel(const uint8_t* data, size_t size, Graph* graph);
// The same under `limits`: node count, subgraph nesting and every tensor's shape and the
// running total of initializer bytes are checked before anything that size is allocated.
Status LoadOnnxModel(const uint8_t* data, size_t size, const SessionLimits& limits, Graph* graph);
// The same, taking the bytes (which it rewrites): the raw_data of large initializers is moved
// to aligned places inside them and the graph's tensors keep `bytes` alive, instead of each
// weight being copied (the copying overloads above copy the whole model once, then do this).
// `files` are the side files initializers stored outside the model name (data_location
// EXTERNAL: the "location", "offset" and "length" of their bytes): their bytes are copied.
Status LoadOnnxModel(std::shared_ptr<uint8_t> bytes, size_t size, const SessionLimits& limits,
                     Graph* graph, const std::map<std::string, std::string>* files = nullptr);

// Converts a TensorProto (raw_data or typed fields) of any numeric dtype. `what` names
// the tensor in error messages.
Status TensorFromProto(const onnx::TensorProto& proto, const std::string& what, Tensor* out);

}  // namespace webnx
