// One RNN, GRU or LSTM node with its inputs, run through its kernel (RunOp) or through the
// scalar reference (kernels/rnn_reference.h), for test_rnn.cc and test_rnn_errors.cc.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "core/op_registry.h"
#include "kernels/rnn_reference.h"
#include "tests/unit/op_runner.h"

namespace webnx::testing {

inline Tensor MakeInt32(const Shape& shape, const std::vector<int32_t>& values) {
  Tensor t;
  EXPECT_TRUE(Tensor::Allocate(DType::kInt32, shape, &t).ok());
  std::copy(values.begin(), values.end(), t.ptr<int32_t>());
  return t;
}

inline Attribute StringsAttr(std::vector<std::string> v) {
  Attribute a;
  a.type = Attribute::Type::kStrings;
  a.strings = std::move(v);
  return a;
}

struct RnnCase {
  std::string op = "LSTM";
  int opset = 22;
  std::map<std::string, Attribute> attrs;
  // By input position: X, W, R, B, sequence_lens, initial_h, initial_c, P; dtype kUndefined for
  // an absent optional input.
  std::vector<Tensor> inputs = std::vector<Tensor>(8);
  bool constant_weights = false;  // W and R as plan-time constants (packed through forms)
  int threads = 1;

  int Gates() const { return op == "LSTM" ? 4 : op == "GRU" ? 3 : 1; }
  int Outputs() const { return op == "LSTM" ? 3 : 2; }

  // RunOp's inputs: up to the last present one, the absent ones before it omitted.
  std::vector<OpInput> OpInputs() const {
    size_t count = 0;
    for (size_t i = 0; i < inputs.size(); ++i)
      if (inputs[i].dtype != DType::kUndefined) count = i + 1;
    std::vector<OpInput> in;
    for (size_t i = 0; i < count; ++i) {
      const bool present = inputs[i].dtype != DType::kUndefined;
      const bool constant = constant_weights && (i == 1 || i == 2);
      Tensor placeholder = present ? inputs[i] : MakeFloat({0}, {});
      in.push_back(OpInput{placeholder, constant, present});
    }
    return in;
  }

  Status RunFast(std::vector<Tensor>* out) const {
    return RunOp(op, opset, OpInputs(), attrs, Outputs(), out, threads);
  }

  // The reference's outputs, with the attributes parsed as the kernel parses them.
  std::vector<Tensor> RunReference() const {
    const int version = OpRegistry::Default().Resolve("", op, opset);
    Node node;
    node.name = "reference";
    node.op_type = op;
    node.attrs = attrs;
    PlanContext ctx(node, version, {});
    const rnn::Cell cell = op == "LSTM"  ? rnn::Cell::kLstm
                           : op == "GRU" ? rnn::Cell::kGru
                                         : rnn::Cell::kSimple;
    rnn::Attributes parsed;
    Status s = rnn::ParseAttributes(ctx, cell, &parsed);
    EXPECT_TRUE(s.ok()) << s.ToString();
    auto get = [this](int i) {
      return inputs[i].dtype == DType::kUndefined ? nullptr : &inputs[i];
    };
    rnn::ReferenceInputs in{get(0), get(1), get(2), get(3), get(4), get(5), get(6), get(7)};
    rnn::ReferenceOutputs out;
    s = rnn::RunReference(parsed, in, &out);
    EXPECT_TRUE(s.ok()) << s.ToString();
    std::vector<Tensor> outputs = {out.y, out.y_h, out.y_c};
    outputs.resize(Outputs());
    return outputs;
  }
};

// Random inputs for `op` with every optional input but sequence_lens and P present.
inline RnnCase RandomRnnCase(const std::string& op, int64_t hidden, int64_t input, int64_t batch,
                             int64_t seq, const std::string& direction, int layout, uint32_t seed) {
  RnnCase c;
  c.op = op;
  c.attrs["direction"] = StringAttr(direction);
  c.attrs["hidden_size"] = IntAttr(hidden);
  c.attrs["layout"] = IntAttr(layout);
  const int64_t dirs = direction == "bidirectional" ? 2 : 1;
  const int64_t width = c.Gates() * hidden;
  const Shape x = layout == 0 ? Shape{seq, batch, input} : Shape{batch, seq, input};
  const Shape state = layout == 0 ? Shape{dirs, batch, hidden} : Shape{batch, dirs, hidden};
  c.inputs[0] = RandomFloat(x, seed, -1.f, 1.f);
  c.inputs[1] = RandomFloat({dirs, width, input}, seed + 1, -0.5f, 0.5f);
  c.inputs[2] = RandomFloat({dirs, width, hidden}, seed + 2, -0.5f, 0.5f);
  c.inputs[3] = RandomFloat({dirs, 2 * width}, seed + 3, -0.5f, 0.5f);
  c.inputs[5] = RandomFloat(state, seed + 4, -1.f, 1.f);
  if (op == "LSTM") c.inputs[6] = RandomFloat(state, seed + 5, -1.f, 1.f);
  return c;
}

inline void ExpectAllClose(const std::vector<Tensor>& got, const std::vector<Tensor>& want,
                           float tolerance, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t o = 0; o < want.size(); ++o) {
    ASSERT_EQ(got[o].shape, want[o].shape) << what << ", output " << o;
    for (int64_t i = 0; i < want[o].numel(); ++i) {
      const float w = want[o].ptr<float>()[i];
      ASSERT_NEAR(got[o].ptr<float>()[i], w, tolerance * std::max(1.f, std::fabs(w)))
          << what << ", output " << o << " at " << i;
    }
  }
}

inline void ExpectBitwiseEqual(const Tensor& got, const Tensor& want, const std::string& what) {
  ASSERT_EQ(got.shape, want.shape) << what;
  EXPECT_EQ(std::memcmp(got.data, want.data, want.nbytes()), 0) << what;
}

}  // namespace webnx::testing
