// Internals of the webnx-graph dialect shared by the document reader, the attribute and tensor
// readers and the op lowering table.
#pragma once

#include <string>
#include <vector>

#include "core/loaders/json_loader.h"
#include "core/loaders/json_values.h"

namespace webnx {
namespace jsonl {

// A compute node as written in the document, before lowering.
struct DslNode {
  std::string pointer;  // "/nodes/3"
  std::string id;
  std::string op;
  std::string domain;
  bool nhwc = true;  // the layout its pooling ops read (the node's "layout" or the document's)
  std::vector<std::string> inputs;  // "" for an omitted optional input
  std::vector<std::string> outputs;
  const Json* attrs = nullptr;  // the "attrs" object, or nullptr
  std::string AttrPointer(const std::string& key) const { return Child(pointer + "/attrs", key); }
  std::string InputPointer(size_t i) const { return Child(pointer + "/inputs", i); }
};

// A tensor object: { "dtype", "shape", and "data" | "base64" | "file" (+ "offset", "length") }.
Status ReadWebnxTensor(const Json& v, const std::string& pointer, const JsonExternalFiles& files,
                       Tensor* out);

// "float32", "int64", ...: the compute dtype of a graph input (float16 is not one).
Status ReadInputDType(const Json& v, const std::string& pointer, DType* out);

// A JSON attribute value of an ONNX op -> typed Attribute. JSON has one number type, so an
// integer-looking value is an int unless the name is a float attribute of ONNX ops ("alpha",
// "epsilon", ...); { "type": "FLOAT", "f": 1 } states the type outright.
Status ConvertAttribute(const std::string& name, const Json& v, const std::string& pointer,
                        const JsonExternalFiles& files, Attribute* out);

// Every attribute of the node, converted as above.
Status ConvertAttributes(const DslNode& node, const JsonExternalFiles& files,
                         std::map<std::string, Attribute>* out);

}  // namespace jsonl
}  // namespace webnx
