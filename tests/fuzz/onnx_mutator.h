// Structural edits of an ONNX model for the structure-aware fuzz target: each keeps the model a
// parseable ModelProto, so the edit reaches the loader's validation, the planner and the
// kernels instead of dying in the protobuf parser.
#pragma once

#include <random>
#include <string>
#include <vector>

#include "onnx/onnx.pb.h"

namespace webnx::fuzz {

class OnnxMutator {
 public:
  explicit OnnxMutator(unsigned seed) : rng_(seed) {}
  // One to four edits: attribute values, types and names; declared shapes and dtypes;
  // initializer dims, dtypes and contents; edges; inserted, deleted and re-typed nodes; opset.
  void Mutate(onnx::ModelProto* model);

 private:
  uint32_t Below(uint32_t n) { return n ? static_cast<uint32_t>(rng_() % n) : 0; }
  bool OneIn(uint32_t n) { return Below(n) == 0; }
  int64_t Int();
  float Float();
  std::string OpType();
  std::vector<std::string> ValueNames(const onnx::GraphProto& g) const;
  std::string ValueName(const onnx::GraphProto& g);

  void EditAttribute(onnx::NodeProto* node);
  void AddAttribute(onnx::NodeProto* node);
  void EditValueInfo(onnx::ValueInfoProto* info);
  void EditInitializer(onnx::TensorProto* t);
  void RefillInitializer(onnx::TensorProto* t);
  void EditEdge(onnx::GraphProto* g);
  void InsertNode(onnx::GraphProto* g);
  void EditNode(onnx::GraphProto* g);

  std::mt19937 rng_;
};

}  // namespace webnx::fuzz
