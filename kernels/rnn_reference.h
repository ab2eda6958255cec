// The recurrent ops straight from the ONNX equations, one element at a time in float: the oracle
// the unit tests hold RecurrentKernel's packed, vectorised path to.
#pragma once

#include "core/tensor.h"
#include "kernels/rnn_common.h"

namespace webnx::rnn {

struct ReferenceInputs {
  const Tensor* x = nullptr;
  const Tensor* w = nullptr;
  const Tensor* r = nullptr;
  const Tensor* b = nullptr;  // the optional ones may stay null
  const Tensor* sequence_lens = nullptr;
  const Tensor* initial_h = nullptr;
  const Tensor* initial_c = nullptr;
  const Tensor* p = nullptr;
};

struct ReferenceOutputs {
  Tensor y, y_h, y_c;  // y_c for LSTM only
};

// Inputs already checked (CheckInputs); allocates the outputs.
Status RunReference(const Attributes& attrs, const ReferenceInputs& in, ReferenceOutputs* out);

}  // namespace webnx::rnn
