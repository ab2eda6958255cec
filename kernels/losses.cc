// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (the latter: log-softmax over the class
// axis, then the former). Inputs [N, C, d1..dk], int32/int64 targets [N, d1..dk], optional class
// weights [C]; reduction none, sum or mean (a weighted mean: divided by the weights of the
// targets counted); targets equal to ignore_index count for nothing. A target outside [0, C)
// is an InvalidInput error of the run, naming the node.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "kernels/indexing_common.h"
#include "kernels/nn_common.h"
#include "kernels/registrations.h"

namespace webnx {
namespace {

class LossKernel final : public Kernel {
 public:
  explicit LossKernel(bool softmax) : softmax_(softmax) {}

  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(2, 3));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(0, {DType::kFloat32}));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(1, {DType::kInt32, DType::kInt64}));
    const Shape& x = ctx.shape(0);
    const Shape& target = ctx.shape(1);
    if (x.size() < 2 || target.size() != x.size() - 1 || target[0] != x[0] ||
        !std::equal(target.begin() + 1, target.end(), x.begin() + 2)) {
      return ctx.Error(ErrorCode::kShapeMismatch, "input " + ShapeToString(x) + " and target " +
                                                      ShapeToString(target) +
                                                      " must be [N, C, d...] and [N, d...]");
    }
    classes_ = x[1];
    has_weight_ = ctx.has_input(2);
    if (has_weight_) {
      WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(2, {DType::kFloat32}));
      if (ctx.shape(2) != Shape{classes_}) {
        return ctx.Error(ErrorCode::kShapeMismatch, "weight " + ShapeToString(ctx.shape(2)) +
                                                        " must be [C] = [" +
                                                        std::to_string(classes_) + "]");
      }
    }
    WEBNX_RETURN_IF_ERROR(ReadAttrs(ctx));
    batch_ = x[0];
    inner_ = nn::DimProduct(x, 2, x.size());
    node_ = ctx.node().Describe();
    ctx.SetOutput(0, DType::kFloat32, reduction_ == Reduction::kNone ? target : Shape{});
    if (softmax_ && ctx.has_output(1)) ctx.SetOutput(1, DType::kFloat32, x);
    // Log-probabilities are computed into output 1, or into scratch when it is not asked for.
    return nn::AllocateScratch(softmax_ && !ctx.has_output(1) ? batch_ * classes_ * inner_ : 0,
                               &log_prob_);
  }

  Status Run(RunContext& ctx) override {
    const float* x = ctx.input(0).ptr<float>();
    if (softmax_) {
      float* log_prob = ctx.has_output(1) ? ctx.output(1).ptr<float>() : log_prob_.ptr<float>();
      LogSoftmax(x, log_prob);
      x = log_prob;
    }
    const Tensor& target = ctx.input(1);
    const float* weight = has_weight_ ? ctx.input(2).ptr<float>() : nullptr;
    float* loss = ctx.output(0).ptr<float>();
    double sum = 0, weights = 0;
    for (int64_t n = 0; n < batch_; ++n) {
      for (int64_t i = 0; i < inner_; ++i) {
        const int64_t t = indexing::IndexAt(target, n * inner_ + i);
        float value = 0.f;
        if (t != ignore_index_) {
          if (t < 0 || t >= classes_) {
            return Status(ErrorCode::kInvalidInput,
                          node_ + ": target " + std::to_string(t) + " is outside [0, " +
                              std::to_string(classes_) + ") and is not ignore_index");
          }
          const float w = weight ? weight[t] : 1.f;
          value = -x[(n * classes_ + t) * inner_ + i] * w;
          weights += w;
        }
        sum += value;
        if (reduction_ == Reduction::kNone) loss[n * inner_ + i] = value;
      }
    }
    if (reduction_ == Reduction::kSum) loss[0] = static_cast<float>(sum);
    if (reduction_ == Reduction::kMean)
      loss[0] = static_cast<float>(weights == 0 ? 0 : sum / weights);
    return Status::Ok();
  }

 private:
  enum class Reduction { kNone, kSum, kMean };

  Status ReadAttrs(PlanContext& ctx) {
    Attrs& attrs = ctx.attrs();
    const std::string reduction = attrs.String("reduction", "mean");
    ignore_index_ = attrs.Has("ignore_index") ? attrs.Int("ignore_index", 0) : INT64_MIN;
    WEBNX_RETURN_IF_ERROR(attrs.status());
    if (reduction == "none") {
      reduction_ = Reduction::kNone;
    } else if (reduction == "sum") {
      reduction_ = Reduction::kSum;
    } else if (reduction == "mean") {
      reduction_ = Reduction::kMean;
    } else {
      return ctx.Error(ErrorCode::kMalformedModel,
                       "attribute 'reduction' must be none, sum or mean, got '" + reduction + "'");
    }
    return Status::Ok();
  }

  // Over the class axis of [N, C, inner], in double for the sum of exponentials.
  void LogSoftmax(const float* x, float* y) const {
    for (int64_t n = 0; n < batch_; ++n) {
      for (int64_t i = 0; i < inner_; ++i) {
        const float* xs = x + n * classes_ * inner_ + i;
        float* ys = y + n * classes_ * inner_ + i;
        float max = -INFINITY;
        for (int64_t c = 0; c < classes_; ++c) max = std::fmax(max, xs[c * inner_]);
        double sum = 0;
        for (int64_t c = 0; c < classes_; ++c) sum += std::exp(double(xs[c * inner_]) - max);
        const float log_sum = static_cast<float>(std::log(sum)) + max;
        for (int64_t c = 0; c < classes_; ++c) ys[c * inner_] = xs[c * inner_] - log_sum;
      }
    }
  }

  const bool softmax_;  // SoftmaxCrossEntropyLoss
  Reduction reduction_ = Reduction::kMean;
  int64_t ignore_index_ = INT64_MIN;  // none
  bool has_weight_ = false;
  std::string node_;  // names the node in a run's error
  int64_t batch_ = 0, classes_ = 0, inner_ = 0;
  Tensor log_prob_;
};

}  // namespace

void RegisterLossKernels(OpRegistry& r) {
  r.Register("", "NegativeLogLikelihoodLoss", {{12, 13, 22}, Inputs(2, 3), Outputs(1)},
             []() -> Kernel* { return new LossKernel(false); });
  r.Register("", "SoftmaxCrossEntropyLoss", {{12, 13}, Inputs(2, 3), Outputs(1, 2)},
             []() -> Kernel* { return new LossKernel(true); });
}

}  // namespace webnx
