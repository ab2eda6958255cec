// The two JSON dialects json_loader.cc dispatches to, and the pieces they share.
#pragma once

#include <string>

#include "core/loaders/json_loader.h"
#include "core/loaders/json_values.h"

namespace webnx {
namespace jsonl {

// ONNX-JSON: a ModelProto, { "graph": ... } or a bare GraphProto, in protobuf's JSON mapping
// (camelCase, int64 as strings, base64 bytes, enum names) or snake_case.
Status LoadOnnxJsonDocument(const Json& doc, const JsonExternalFiles& files, Graph* graph);

// webnx-graph: { "format": "webnx-graph", ... } (docs/dsl.md).
Status LoadWebnxGraphDocument(const Json& doc, const JsonExternalFiles& files, Graph* graph);

// One AttributeProto in JSON (either spelling). *name receives "name" when present, else "".
// webnx-graph reuses it for attribute values written as { "type": "FLOAT", "f": 1 }.
Status ReadOnnxAttribute(const Json& a, const std::string& pointer, const JsonExternalFiles& files,
                         std::string* name, Attribute* out);

// One TensorProto in JSON (either spelling). *name receives "name" when present, else "".
Status ReadOnnxTensor(const Json& t, const std::string& pointer, const JsonExternalFiles& files,
                      std::string* name, Tensor* out);

// "ai.onnx" is the default domain too.
inline std::string NormalizeDomain(const std::string& domain) {
  return domain == "ai.onnx" ? std::string() : domain;
}

}  // namespace jsonl
}  // namespace webnx
