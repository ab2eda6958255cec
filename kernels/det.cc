// Det (11, 22): the determinant of each square matrix in [..., M, M], by LU decomposition with
// partial pivoting in double precision: the product of the pivots, negated per row swap. An
// empty matrix (M = 0) has determinant 1.
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kernels/nn_common.h"
#include "kernels/registrations.h"

namespace webnx {
namespace {

// The determinant of the n x n row-major matrix `a`, which is overwritten by its LU factors.
double LuDeterminant(double* a, int64_t n) {
  double det = 1;
  for (int64_t col = 0; col < n; ++col) {
    int64_t pivot = col;
    for (int64_t r = col + 1; r < n; ++r) {
      if (std::fabs(a[r * n + col]) > std::fabs(a[pivot * n + col])) pivot = r;
    }
    const double p = a[pivot * n + col];
    if (p == 0) return 0;  // singular (a NaN pivot passes on, as NaN)
    if (pivot != col) {
      for (int64_t c = 0; c < n; ++c) std::swap(a[col * n + c], a[pivot * n + c]);
      det = -det;
    }
    det *= p;
    for (int64_t r = col + 1; r < n; ++r) {
      const double factor = a[r * n + col] / p;
      for (int64_t c = col + 1; c < n; ++c) a[r * n + c] -= factor * a[col * n + c];
    }
  }
  return det;
}

class DetKernel final : public Kernel {
 public:
  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(0, {DType::kFloat32}));
    const Shape& x = ctx.shape(0);
    if (x.size() < 2 || x[x.size() - 1] != x[x.size() - 2]) {
      return ctx.Error(ErrorCode::kShapeMismatch,
                       "the input must be square matrices [..., M, M], got " + ShapeToString(x));
    }
    n_ = x.back();
    const Shape out(x.begin(), x.end() - 2);
    matrices_ = nn::DimProduct(out, 0, out.size());
    WEBNX_RETURN_IF_ERROR(nn::CheckNumel(ctx, {n_, n_, 2, ctx.threads()}, "LU scratch"));
    lu_.resize(static_cast<size_t>(n_ * n_ * ctx.threads()));
    ctx.SetOutput(0, DType::kFloat32, out);
    return Status::Ok();
  }

  Status Run(RunContext& ctx) override {
    const float* x = ctx.input(0).ptr<float>();
    float* y = ctx.output(0).ptr<float>();
    const int64_t size = n_ * n_;
    ctx.ParallelFor(matrices_, [&](int64_t m, int slot) {
      double* a = lu_.data() + slot * size;
      for (int64_t i = 0; i < size; ++i) a[i] = x[m * size + i];
      y[m] = static_cast<float>(LuDeterminant(a, n_));
    });
    return Status::Ok();
  }

 private:
  int64_t n_ = 0, matrices_ = 0;
  std::vector<double> lu_;  // one n x n matrix per thread
};

}  // namespace

void RegisterDetKernels(OpRegistry& r) {
  r.Register("", "Det", {{11, 22}, Inputs(1), Outputs(1)}, MakeKernel<DetKernel>);
}

}  // namespace webnx
