#include "kernels/rnn_activations.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "kernels/simd/activation.h"
#include "kernels/simd/tanh.h"

namespace webnx::rnn {
namespace {

using Kind = Activation::Kind;

struct FunctionInfo {
  const char* name;
  Kind kind;
  bool takes_alpha, takes_beta;
  float default_alpha, default_beta;  // those of the ONNX operator of the same name
};

constexpr FunctionInfo kFunctions[] = {
    {"Relu", Kind::kRelu, false, false, 0.f, 0.f},
    {"Tanh", Kind::kTanh, false, false, 0.f, 0.f},
    {"Sigmoid", Kind::kSigmoid, false, false, 0.f, 0.f},
    {"Affine", Kind::kAffine, true, true, 1.f, 0.f},
    {"LeakyRelu", Kind::kLeakyRelu, true, false, 0.01f, 0.f},
    {"ThresholdedRelu", Kind::kThresholdedRelu, true, false, 1.f, 0.f},
    {"ScaledTanh", Kind::kScaledTanh, true, true, 1.f, 1.f},
    {"HardSigmoid", Kind::kHardSigmoid, true, true, 0.2f, 0.5f},
    {"Elu", Kind::kElu, true, false, 1.f, 0.f},
    {"Softsign", Kind::kSoftsign, false, false, 0.f, 0.f},
    {"Softplus", Kind::kSoftplus, false, false, 0.f, 0.f},
};

bool SameNameIgnoringCase(const std::string& a, const char* b) {
  size_t i = 0;
  for (; i < a.size() && b[i]; ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  }
  return i == a.size() && !b[i];
}

// The next of `values`, or `fallback` once they are used up.
float Consume(const std::vector<float>& values, size_t* next, float fallback) {
  return *next < values.size() ? values[(*next)++] : fallback;
}

// The same function on every element: one switch per call, not per element.
template <typename Fn>
void MapInPlace(float* x, int n, Fn fn) {
  for (int i = 0; i < n; ++i) x[i] = fn(x[i]);
}

}  // namespace

bool ParseActivations(const std::vector<std::string>& names, const std::vector<float>& alphas,
                      const std::vector<float>& betas, std::vector<Activation>* out,
                      std::string* error) {
  out->clear();
  size_t next_alpha = 0, next_beta = 0;
  for (const std::string& name : names) {
    const FunctionInfo* info = nullptr;
    for (const FunctionInfo& f : kFunctions) {
      if (SameNameIgnoringCase(name, f.name)) info = &f;
    }
    if (!info) {
      *error = "unknown activation function '" + name +
               "' (expected Relu, Tanh, Sigmoid, Affine, LeakyRelu, ThresholdedRelu, "
               "ScaledTanh, HardSigmoid, Elu, Softsign or Softplus)";
      return false;
    }
    Activation a;
    a.kind = info->kind;
    if (info->takes_alpha) a.alpha = Consume(alphas, &next_alpha, info->default_alpha);
    if (info->takes_beta) a.beta = Consume(betas, &next_beta, info->default_beta);
    out->push_back(a);
  }
  return true;
}

float ApplyScalar(const Activation& a, float x) {
  switch (a.kind) {
    case Kind::kRelu:
      return x < 0.f ? 0.f : x;
    case Kind::kTanh:
      return std::tanh(x);
    case Kind::kSigmoid:
      return x >= 0.f ? 1.f / (1.f + std::exp(-x)) : std::exp(x) / (1.f + std::exp(x));
    case Kind::kAffine:
      return a.alpha * x + a.beta;
    case Kind::kLeakyRelu:
      return x < 0.f ? a.alpha * x : x;
    case Kind::kThresholdedRelu:
      return x >= a.alpha ? x : 0.f;
    case Kind::kScaledTanh:
      return a.alpha * std::tanh(a.beta * x);
    case Kind::kHardSigmoid:
      return std::min(std::max(a.alpha * x + a.beta, 0.f), 1.f);
    case Kind::kElu:
      return x < 0.f ? a.alpha * std::expm1(x) : x;
    case Kind::kSoftsign:
      return x / (1.f + std::fabs(x));
    case Kind::kSoftplus:
      return x > 0.f ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
  }
  return x;
}

void ApplyInPlace(const Activation& a, float* x, int n) {
  const float alpha = a.alpha, beta = a.beta;
  switch (a.kind) {
    case Kind::kTanh:
      return simd::Tanh(x, x, n);
    case Kind::kSigmoid:
      return simd::Sigmoid(x, x, n);
    case Kind::kHardSigmoid:
      return simd::HardSigmoid(alpha, beta, x, x, n);
    case Kind::kScaledTanh:
      MapInPlace(x, n, [beta](float v) { return beta * v; });
      simd::Tanh(x, x, n);
      return MapInPlace(x, n, [alpha](float v) { return alpha * v; });
    case Kind::kRelu:
      return MapInPlace(x, n, [](float v) { return v < 0.f ? 0.f : v; });
    case Kind::kAffine:
      return MapInPlace(x, n, [alpha, beta](float v) { return alpha * v + beta; });
    case Kind::kLeakyRelu:
      return MapInPlace(x, n, [alpha](float v) { return v < 0.f ? alpha * v : v; });
    case Kind::kSoftsign:
      return MapInPlace(x, n, [](float v) { return v / (1.f + std::fabs(v)); });
    default:  // ThresholdedRelu, Elu, Softplus: the scalar definitions
      return MapInPlace(x, n, [&a](float v) { return ApplyScalar(a, v); });
  }
}

}  // namespace webnx::rnn
