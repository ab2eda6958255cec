// Structure-aware libFuzzer target. Inputs are serialized ONNX models (the seed corpus is the
// ONNX node tests and small test models); the custom mutator parses one into onnx::ModelProto
// and applies OnnxMutator's structural edits, chosen by the fuzzer's seed, so that mutants stay
// well-formed protobufs and exercise validation, planning and kernels. The test itself is the
// same as fuzz_onnx's, so every crasher is a plain .onnx file.
#include <cstring>

#include "tests/fuzz/fuzz_common.h"
#include "tests/fuzz/onnx_mutator.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  onnx::ModelProto model;
  if (!model.ParseFromArray(data, static_cast<int>(size)) || !model.has_graph()) {
    return LLVMFuzzerMutate(data, size, max_size);  // not a model (yet): plain byte edits
  }
  webnx::fuzz::OnnxMutator(seed).Mutate(&model);
  const std::string bytes = model.SerializeAsString();
  if (bytes.size() > max_size) return LLVMFuzzerMutate(data, size, max_size);
  std::memcpy(data, bytes.data(), bytes.size());
  return bytes.size();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  webnx::fuzz::LoadAndRunOnnx(data, size);
  return 0;
}
