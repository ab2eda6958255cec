// Runs one node through its registered kernel (Plan, then Run) without a session, for kernel
// unit tests.
#pragma once

#include <string>
#include <vector>

#include "core/graph.h"
#include "core/op_registry.h"

namespace webnx::testing {

// Builds tensors for tests.
Tensor MakeFloat(const Shape& shape, const std::vector<float>& values);
Tensor MakeDouble(const Shape& shape, const std::vector<double>& values);
Tensor MakeInt64(const Shape& shape, const std::vector<int64_t>& values);
// Deterministic uniform values in [lo, hi).
std::vector<float> RandomFloats(size_t n, uint32_t seed, float lo = -1.f, float hi = 1.f);
Tensor RandomFloat(const Shape& shape, uint32_t seed, float lo = -1.f, float hi = 1.f);

// Same shape, and every float element within tol * (1 + |want|) of want's; a non-finite want
// must be matched exactly (NaN by NaN).
void ExpectAllNear(const Tensor& got, const Tensor& want, float tol = 1e-5f);

Attribute IntAttr(int64_t v);
Attribute FloatAttr(float v);
Attribute IntsAttr(std::vector<int64_t> v);
Attribute FloatsAttr(std::vector<float> v);
Attribute StringAttr(std::string v);

struct OpInput {
  Tensor tensor;
  bool constant = false;  // visible to Plan as a plan-time value
  bool present = true;    // false: an omitted optional input ("")
};

// Runs `op_type` at `opset` on the inputs; fills outputs. The Status is whatever Plan or Run
// returned (or UnsupportedOperator when the registry lacks the op at that opset). `threads`:
// what the plan sizes its scratch for and the run may use.
Status RunOp(const std::string& op_type, int opset, const std::vector<OpInput>& inputs,
             const std::map<std::string, Attribute>& attrs, int num_outputs,
             std::vector<Tensor>* outputs, int threads = 1);

// Convenience: all inputs non-constant, one output; fails the test on error.
Tensor RunOk(const std::string& op_type, int opset, const std::vector<Tensor>& inputs,
             const std::map<std::string, Attribute>& attrs = {});

}  // namespace webnx::testing
