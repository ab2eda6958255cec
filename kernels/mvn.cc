// MeanVarianceNormalization: (X - mean) / (std + 1e-9) over the listed axes (default N, H, W),
// std being sqrt(E[X^2] - E[X]^2) as in the op's ONNX function body, computed in double as the
// mean squared deviation.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/indexing_common.h"
#include "kernels/registrations.h"

namespace webnx {
namespace {

class MvnKernel final : public Kernel {
 public:
  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(1, 1));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(0, {DType::kFloat32}));
    const Shape& x = ctx.shape(0);
    const int64_t rank = static_cast<int64_t>(x.size());
    const std::vector<int64_t> axes = ctx.attrs().Ints("axes", {0, 2, 3});
    WEBNX_RETURN_IF_ERROR(ctx.attrs().status());
    std::vector<bool> reduced(x.size(), false);
    for (int64_t axis : axes) {
      int64_t a = 0;
      WEBNX_RETURN_IF_ERROR(indexing::NormalizeDistinctAxis(ctx, axis, rank, &reduced, &a));
    }
    // Each element's statistics slot: its index over the kept dims, row-major.
    kept_strides_.assign(x.size(), 0);
    int64_t groups = 1;
    for (size_t d = x.size(); d-- > 0;) {
      if (reduced[d]) continue;
      kept_strides_[d] = groups;
      groups *= x[d];
    }
    shape_ = x;
    index_.assign(x.size(), 0);
    stats_.assign(static_cast<size_t>(2 * groups), 0.0);
    ctx.SetOutput(0, DType::kFloat32, x);
    return Status::Ok();
  }

  Status Run(RunContext& ctx) override {
    const float* x = ctx.input(0).ptr<float>();
    float* y = ctx.output(0).ptr<float>();
    const int64_t n = ctx.input(0).numel();
    const size_t groups = stats_.size() / 2;
    std::fill(stats_.begin(), stats_.end(), 0.0);
    // The variance as the mean squared deviation from the mean, a second pass: E[X^2] - E[X]^2
    // loses a nearly constant plane's variance to cancellation even in double.
    ForEachSlot(n, [&](int64_t i, int64_t g) { stats_[2 * g] += x[i]; });
    const double count = groups ? static_cast<double>(n) / static_cast<double>(groups) : 1;
    for (size_t g = 0; g < groups; ++g) stats_[2 * g] /= count;
    ForEachSlot(n, [&](int64_t i, int64_t g) {
      const double deviation = x[i] - stats_[2 * g];
      stats_[2 * g + 1] += deviation * deviation;
    });
    for (size_t g = 0; g < groups; ++g) {
      stats_[2 * g + 1] = 1.0 / (std::sqrt(stats_[2 * g + 1] / count) + 1e-9);
    }
    ForEachSlot(n, [&](int64_t i, int64_t g) {
      y[i] = static_cast<float>((x[i] - stats_[2 * g]) * stats_[2 * g + 1]);
    });
    return Status::Ok();
  }

 private:
  // Calls fn(element, its statistics slot) for every element in order.
  template <typename Fn>
  void ForEachSlot(int64_t n, Fn&& fn) {
    std::vector<int64_t>& index = index_;
    std::fill(index.begin(), index.end(), 0);
    int64_t slot = 0;
    for (int64_t i = 0; i < n; ++i) {
      fn(i, slot);
      for (size_t d = shape_.size(); d-- > 0;) {
        slot += kept_strides_[d];
        if (++index[d] < shape_[d]) break;
        slot -= kept_strides_[d] * shape_[d];
        index[d] = 0;
      }
    }
  }

  Shape shape_;
  std::vector<int64_t> kept_strides_;  // 0 along reduced dims
  std::vector<int64_t> index_;         // the walk's position, sized when planned
  std::vector<double> stats_;          // per slot: sum then mean, squared deviations then 1/std
};

}  // namespace

void RegisterMvnKernels(OpRegistry& r) {
  r.Register("", "MeanVarianceNormalization", {{9, 13}, Inputs(1), Outputs(1)},
             MakeKernel<MvnKernel>);
}

}  // namespace webnx
