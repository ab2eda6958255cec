// Swish (24): x * sigmoid(alpha * x), float32. The sigmoid is the one Sigmoid computes
// (activations.cc, kernels/simd/activation.h), so alpha = 1 matches Sigmoid then Mul bitwise.
#include <cmath>
#include <cstdint>

#include "kernels/registrations.h"
#include "kernels/simd/activation.h"
#include "kernels/unary_common.h"

namespace webnx {
namespace {

struct SwishFn {
  float alpha = 1.f;
  void ReadAttrs(Attrs& a) { alpha = a.Float("alpha", 1.f); }
  static constexpr int kIntegersSince = 0;
  // sigmoid from e^-|z| so nothing overflows, as SigmoidFn does.
  float operator()(float x) const {
    const float z = alpha * x;
    const float e = unary::ExpFloat(-std::fabs(z));
    const float s = 1.f / (1.f + e);
    return x * (z >= 0 ? s : e * s);
  }
  void Vector(const float* x, float* y, int64_t n) const {
    for (int64_t i = 0; i < n; ++i) y[i] = alpha * x[i];
    simd::Sigmoid(y, y, n);
    for (int64_t i = 0; i < n; ++i) y[i] *= x[i];
  }
};

}  // namespace

void RegisterSwishKernels(OpRegistry& r) {
  unary::RegisterUnary<SwishFn>(r, "Swish", {24});
}

}  // namespace webnx
