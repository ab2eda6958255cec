// Softmax and LogSoftmax. Before version 13 the input is coerced to 2-D at `axis` (default 1)
// and normalised over everything from `axis` on; from 13 it is normalised along `axis` alone
// (default -1). Both views are "outer x length x inner" blocks, normalised along length.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kernels/nn_common.h"
#include "kernels/registrations.h"

namespace webnx {
namespace {

class SoftmaxKernel : public Kernel {
 public:
  explicit SoftmaxKernel(bool log) : log_(log) {}

  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(1, 1));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(0, {DType::kFloat32}));
    const bool per_axis = ctx.since_version() >= 13;
    const int64_t axis_attr = ctx.attrs().Int("axis", per_axis ? -1 : 1);
    WEBNX_RETURN_IF_ERROR(ctx.attrs().status());
    const Shape& x = ctx.shape(0);
    const int64_t rank = static_cast<int64_t>(x.size());
    int64_t axis = 0;
    if (!nn::NormalizeAxis(axis_attr, rank, &axis)) {
      return ctx.Error(ErrorCode::kMalformedModel,
                       "attribute 'axis' = " + std::to_string(axis_attr) +
                           " is out of range for input of shape " + ShapeToString(x));
    }
    ctx.SetOutput(0, DType::kFloat32, x);
    // An empty input needs no work; otherwise every size below is bounded by its element count.
    outer_ = nn::DimProduct(x, 0, x.size()) == 0 ? 0 : nn::DimProduct(x, 0, axis);
    if (outer_ == 0) return Status::Ok();
    if (per_axis) {
      length_ = x[axis];
      inner_ = nn::DimProduct(x, axis + 1, x.size());
    } else {
      length_ = nn::DimProduct(x, axis, x.size());
      inner_ = 1;
    }
    return nn::AllocateScratch(2 * inner_, &scratch_);
  }

  Status Run(RunContext& ctx) override {
    const float* x = ctx.input(0).ptr<float>();
    float* y = ctx.output(0).ptr<float>();
    const int64_t block = length_ * inner_;
    for (int64_t o = 0; o < outer_; ++o) {
      if (inner_ == 1) {
        NormalizeRow(x + o * block, y + o * block);
      } else {
        NormalizeBlock(x + o * block, y + o * block);
      }
    }
    return Status::Ok();
  }

 private:
  // The common contiguous case (last axis, or coerced 2-D): one row of `length_` values.
  void NormalizeRow(const float* x, float* y) const {
    float mx = -std::numeric_limits<float>::infinity();
    for (int64_t l = 0; l < length_; ++l) mx = std::max(mx, x[l]);
    float sum = 0.f;
    for (int64_t l = 0; l < length_; ++l) {
      y[l] = std::exp(x[l] - mx);
      sum += y[l];
    }
    if (log_) {
      // (x - max) first: folding max + log(sum) into one float would round away its small part.
      const float log_sum = std::log(sum);
      for (int64_t l = 0; l < length_; ++l) y[l] = (x[l] - mx) - log_sum;
    } else {
      const float scale = 1.f / sum;
      for (int64_t l = 0; l < length_; ++l) y[l] *= scale;
    }
  }

  // One length x inner block; the inner positions are processed together so every pass reads
  // contiguous rows. Subtracting the max keeps exp() from overflowing.
  void NormalizeBlock(const float* x, float* y) {
    float* mx = scratch_.ptr<float>();
    float* sum = mx + inner_;
    std::fill(mx, mx + inner_, -std::numeric_limits<float>::infinity());
    std::fill(sum, sum + inner_, 0.f);
    for (int64_t l = 0; l < length_; ++l) {
      const float* row = x + l * inner_;
      for (int64_t i = 0; i < inner_; ++i) mx[i] = std::max(mx[i], row[i]);
    }
    for (int64_t l = 0; l < length_; ++l) {
      const float* row = x + l * inner_;
      float* out = y + l * inner_;
      for (int64_t i = 0; i < inner_; ++i) {
        out[i] = std::exp(row[i] - mx[i]);
        sum[i] += out[i];
      }
    }
    for (int64_t i = 0; i < inner_; ++i) sum[i] = log_ ? std::log(sum[i]) : 1.f / sum[i];
    for (int64_t l = 0; l < length_; ++l) {
      const float* row = x + l * inner_;
      float* out = y + l * inner_;
      if (log_) {
        for (int64_t i = 0; i < inner_; ++i) out[i] = row[i] - mx[i] - sum[i];
      } else {
        for (int64_t i = 0; i < inner_; ++i) out[i] *= sum[i];
      }
    }
  }

  bool log_;
  int64_t outer_ = 0, length_ = 0, inner_ = 0;
  Tensor scratch_;  // per inner position: the max, then the sum (or its log)
};

}  // namespace

void RegisterSoftmaxKernels(OpRegistry& r) {
  r.Register("", "Softmax", {{1, 11, 13}, Inputs(1), Outputs(1)},
             []() -> Kernel* { return new SoftmaxKernel(false); });
  r.Register("", "LogSoftmax", {{1, 11, 13}, Inputs(1), Outputs(1)},
             []() -> Kernel* { return new SoftmaxKernel(true); });
}

}  // namespace webnx
