// Assembles ONNX models in C++ (onnx::ModelProto) for loader, plan and session tests: graph
// inputs/outputs with fixed or symbolic dims, initializers as raw_data or typed fields, nodes
// with attributes and opset imports, serialized to the bytes a .onnx file would hold.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/session.h"
#include "onnx/onnx.pb.h"

namespace webnx::testing {

// ONNX TensorProto.DataType values used by the tests.
constexpr int32_t kOnnxFloat = 1;
constexpr int32_t kOnnxUint8 = 2;
constexpr int32_t kOnnxInt8 = 3;
constexpr int32_t kOnnxInt32 = 6;
constexpr int32_t kOnnxInt64 = 7;
constexpr int32_t kOnnxBool = 9;
constexpr int32_t kOnnxFloat16 = 10;
constexpr int32_t kOnnxDouble = 11;
constexpr int32_t kOnnxString = 8;
constexpr int32_t kOnnxBfloat16 = 16;

// One declared dimension: a fixed size (D(3)) or a symbol (D("N")); D() is unknown.
struct D {
  D() = default;
  D(int64_t v) : value(v) {}      // NOLINT: implicit on purpose, {1, "N", 3} reads naturally
  D(int v) : value(v) {}          // NOLINT
  D(const char* p) : param(p) {}  // NOLINT
  int64_t value = -1;
  std::string param;
};

// Chainable attribute setter for one node of a ModelBuilder.
class NodeRef {
 public:
  explicit NodeRef(onnx::NodeProto* node) : node_(node) {}
  NodeRef& Int(const std::string& name, int64_t v);
  NodeRef& Float(const std::string& name, float v);
  NodeRef& String(const std::string& name, const std::string& v);
  NodeRef& Ints(const std::string& name, const std::vector<int64_t>& v);
  NodeRef& Floats(const std::string& name, const std::vector<float>& v);
  NodeRef& TensorAttr(const std::string& name, const onnx::TensorProto& t);
  // A subgraph (If's branches, Loop's and Scan's bodies): build it with a ModelBuilder's graph().
  NodeRef& Graph(const std::string& name, const onnx::GraphProto& g);
  NodeRef& Domain(const std::string& domain);
  onnx::NodeProto* proto() { return node_; }

 private:
  onnx::NodeProto* node_;
};

// TensorProto factories (no name set unless given).
onnx::TensorProto FloatTensor(const std::vector<int64_t>& dims, const std::vector<float>& values,
                              bool raw = true, const std::string& name = "");
onnx::TensorProto Int64Tensor(const std::vector<int64_t>& dims, const std::vector<int64_t>& values,
                              bool raw = false, const std::string& name = "");

class ModelBuilder {
 public:
  // Imports the default domain at `opset` (no import when opset <= 0).
  explicit ModelBuilder(int64_t opset = 13);

  ModelBuilder& Opset(const std::string& domain, int64_t version);
  // A graph input with a shape (each dim fixed or symbolic).
  ModelBuilder& Input(const std::string& name, int32_t elem_type, const std::vector<D>& dims);
  // A graph input whose rank is unknown.
  ModelBuilder& InputNoShape(const std::string& name, int32_t elem_type);
  ModelBuilder& Output(const std::string& name, int32_t elem_type, const std::vector<D>& dims);
  // Adds an initializer (its name is set to `name`); returns it for further edits.
  onnx::TensorProto* Initializer(const std::string& name, const onnx::TensorProto& tensor);
  onnx::TensorProto* FloatInit(const std::string& name, const std::vector<int64_t>& dims,
                               const std::vector<float>& values, bool raw = true);
  onnx::TensorProto* Int64Init(const std::string& name, const std::vector<int64_t>& dims,
                               const std::vector<int64_t>& values, bool raw = false);
  NodeRef Node(const std::string& op_type, const std::vector<std::string>& inputs,
               const std::vector<std::string>& outputs, const std::string& name = "");

  onnx::ModelProto& proto() { return model_; }
  onnx::GraphProto& graph() { return *model_.mutable_graph(); }
  const onnx::ModelProto& proto() const { return model_; }
  const onnx::GraphProto& graph() const { return model_.graph(); }
  std::string Bytes() const { return model_.SerializeAsString(); }

 private:
  onnx::ModelProto model_;
};

// Loads serialized bytes with LoadOnnxModel.
Status LoadBytes(const std::string& bytes, Graph* graph);
// Session::CreateFromOnnx on serialized bytes.
Status CreateSession(const std::string& bytes, std::unique_ptr<Session>* session,
                     const SessionOptions& options = SessionOptions());

}  // namespace webnx::testing
