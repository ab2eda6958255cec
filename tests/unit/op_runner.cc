#include "tests/unit/op_runner.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace webnx::testing {

void ExpectAllNear(const Tensor& got, const Tensor& want, float tol) {
  ASSERT_EQ(got.shape, want.shape);
  for (int64_t i = 0; i < want.numel(); ++i) {
    const float w = want.ptr<float>()[i], g = got.ptr<float>()[i];
    if (!std::isfinite(w)) {
      ASSERT_TRUE(g == w || (std::isnan(g) && std::isnan(w))) << "at flat index " << i << ": " << g;
      continue;
    }
    ASSERT_NEAR(g, w, tol * (1.f + std::fabs(w))) << "at flat index " << i;
  }
}

namespace {

template <typename T>
Tensor Filled(DType dtype, const Shape& shape, const std::vector<T>& values) {
  Tensor t;
  EXPECT_TRUE(Tensor::Allocate(dtype, shape, &t).ok());
  EXPECT_EQ(static_cast<size_t>(t.numel()), values.size());
  std::copy(values.begin(), values.end(), t.ptr<T>());
  return t;
}

}  // namespace

Tensor MakeFloat(const Shape& shape, const std::vector<float>& values) {
  return Filled(DType::kFloat32, shape, values);
}

Tensor MakeDouble(const Shape& shape, const std::vector<double>& values) {
  return Filled(DType::kFloat64, shape, values);
}

Tensor MakeInt64(const Shape& shape, const std::vector<int64_t>& values) {
  return Filled(DType::kInt64, shape, values);
}

std::vector<float> RandomFloats(size_t n, uint32_t seed, float lo, float hi) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

Tensor RandomFloat(const Shape& shape, uint32_t seed, float lo, float hi) {
  Tensor t;
  EXPECT_TRUE(Tensor::Allocate(DType::kFloat32, shape, &t).ok());
  const std::vector<float> v = RandomFloats(static_cast<size_t>(t.numel()), seed, lo, hi);
  std::copy(v.begin(), v.end(), t.ptr<float>());
  return t;
}

Attribute IntAttr(int64_t v) {
  Attribute a;
  a.type = Attribute::Type::kInt;
  a.i = v;
  return a;
}
Attribute FloatAttr(float v) {
  Attribute a;
  a.type = Attribute::Type::kFloat;
  a.f = v;
  return a;
}
Attribute IntsAttr(std::vector<int64_t> v) {
  Attribute a;
  a.type = Attribute::Type::kInts;
  a.ints = std::move(v);
  return a;
}
Attribute FloatsAttr(std::vector<float> v) {
  Attribute a;
  a.type = Attribute::Type::kFloats;
  a.floats = std::move(v);
  return a;
}
Attribute StringAttr(std::string v) {
  Attribute a;
  a.type = Attribute::Type::kString;
  a.s = std::move(v);
  return a;
}

Status RunOp(const std::string& op_type, int opset, const std::vector<OpInput>& inputs,
             const std::map<std::string, Attribute>& attrs, int num_outputs,
             std::vector<Tensor>* outputs, int threads) {
  const OpRegistry& registry = OpRegistry::Default();
  int version = registry.Resolve("", op_type, opset);
  if (version == 0) {
    return Status(ErrorCode::kUnsupportedOperator, op_type + " at opset " + std::to_string(opset));
  }
  Node node;
  node.name = "test_" + op_type;
  node.op_type = op_type;
  node.attrs = attrs;
  std::vector<PlannedValue> planned(inputs.size());
  std::vector<const PlannedValue*> planned_ptrs;
  std::vector<const Tensor*> run_inputs;
  for (size_t i = 0; i < inputs.size(); ++i) {
    node.inputs.push_back(inputs[i].present ? "in" + std::to_string(i) : "");
    planned[i].dtype = inputs[i].tensor.dtype;
    planned[i].shape = inputs[i].tensor.shape;
    planned[i].value = inputs[i].constant ? &inputs[i].tensor : nullptr;
    planned_ptrs.push_back(inputs[i].present ? &planned[i] : nullptr);
    run_inputs.push_back(inputs[i].present ? &inputs[i].tensor : nullptr);
  }
  for (int i = 0; i < num_outputs; ++i) node.outputs.push_back("out" + std::to_string(i));
  std::unique_ptr<Kernel> kernel = registry.Create("", op_type);
  PlanContext ctx(node, version, planned_ptrs);
  ctx.set_threads(threads);
  WEBNX_RETURN_IF_ERROR(kernel->Plan(ctx));
  WEBNX_RETURN_IF_ERROR(ctx.attrs().status());
  outputs->assign(num_outputs, Tensor());
  std::vector<Tensor*> run_outputs;
  for (int i = 0; i < num_outputs; ++i) {
    const PlannedValue& pv = ctx.outputs()[i];
    WEBNX_RETURN_IF_ERROR(Tensor::Allocate(pv.dtype, pv.shape, &(*outputs)[i]));
    run_outputs.push_back(&(*outputs)[i]);
  }
  RunContext run(run_inputs, run_outputs, threads);
  WEBNX_RETURN_IF_ERROR(kernel->Run(run));
  // A view's output points into its input: share the input's storage, as the planner does.
  const int alias = kernel->OutputAliasesInput();
  if (alias >= 0 && alias < static_cast<int>(inputs.size())) {
    (*outputs)[0].holder = inputs[alias].tensor.holder;
  }
  return Status::Ok();
}

Tensor RunOk(const std::string& op_type, int opset, const std::vector<Tensor>& inputs,
             const std::map<std::string, Attribute>& attrs) {
  std::vector<OpInput> in;
  for (const auto& t : inputs) in.push_back(OpInput{t, false, true});
  std::vector<Tensor> out;
  Status s = RunOp(op_type, opset, in, attrs, 1, &out);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return out.empty() ? Tensor() : out[0];
}

}  // namespace webnx::testing
