// The activation functions the recurrent ops (RNN, GRU, LSTM) name in their `activations`
// attribute, with the alpha/beta they consume from `activation_alpha`/`activation_beta`.
#pragma once

#include <string>
#include <vector>

namespace webnx::rnn {

struct Activation {
  enum class Kind {
    kRelu,
    kTanh,
    kSigmoid,
    kAffine,
    kLeakyRelu,
    kThresholdedRelu,
    kScaledTanh,
    kHardSigmoid,
    kElu,
    kSoftsign,
    kSoftplus,
  };
  Kind kind = Kind::kTanh;
  float alpha = 0.f;
  float beta = 0.f;
};

// Reads `names` in order; each function that takes an alpha (or beta) consumes the next value of
// `alphas` (`betas`), or takes its ONNX operator's default when they are used up. Names match
// case-insensitively. False with *error set for an unknown name.
bool ParseActivations(const std::vector<std::string>& names, const std::vector<float>& alphas,
                      const std::vector<float>& betas, std::vector<Activation>* out,
                      std::string* error);

// f(x), straight from the definition (the reference the vector paths are tested against).
float ApplyScalar(const Activation& a, float x);

// x[i] = f(x[i]) for i < n: SIMD for the sigmoid, tanh and hard sigmoid, plain loops otherwise.
void ApplyInPlace(const Activation& a, float* x, int n);

}  // namespace webnx::rnn
