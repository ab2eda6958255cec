// JSON graph documents -> Graph. One entry point, two dialects recognised by shape:
//  - webnx-graph: { "format": "webnx-graph", "inputs", "outputs", "tensors", "nodes" } with the
//    ONNX op set plus NHWC vision ops that the loader lowers to ONNX nodes (docs/dsl.md);
//  - ONNX-JSON: a ModelProto / { "graph": ... } in protobuf's JSON mapping or the snake_case
//    form JS exporters write.
// Every error is MalformedModel (or the dtype/opset code) with a JSON Pointer to its place.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

#include "core/graph.h"

namespace webnx {

// Side files a document refers to by name (webnx-graph "file"+"offset", ONNX external data):
// name -> bytes, supplied by the caller.
using JsonExternalFiles = std::map<std::string, std::string>;

// Default-domain opset of an ONNX-JSON document without an opset_import.
constexpr int64_t kDefaultOnnxJsonOpset = 13;
// Opset a webnx-graph document's ONNX ops follow unless it says "opset".
constexpr int64_t kDefaultWebnxGraphOpset = 17;

Status LoadJsonModel(const char* text, size_t size, Graph* graph);
Status LoadJsonModel(const char* text, size_t size, const JsonExternalFiles& files, Graph* graph);

}  // namespace webnx
