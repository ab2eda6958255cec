// BatchNormalization (inference only), InstanceNormalization and LRN.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "kernels/nn_common.h"
#include "kernels/registrations.h"

namespace webnx {
namespace {

// Y = (X - mean) / sqrt(var + epsilon) * scale + B, folded per channel into Y = X * a + b.
class BatchNormKernel : public Kernel {
 public:
  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(5, 5));
    for (int i = 0; i < 5; ++i) WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(i, {DType::kFloat32}));
    WEBNX_RETURN_IF_ERROR(CheckInferenceMode(ctx));
    const int version = ctx.since_version();
    Attrs& attrs = ctx.attrs();
    epsilon_ = attrs.Float("epsilon", 1e-5f);
    attrs.Float("momentum", 0.9f);  // training only
    // Before version 9, spatial = 0 gives every (channel, position) its own statistics.
    const bool spatial = version >= 9 || attrs.Int("spatial", 1) != 0;
    WEBNX_RETURN_IF_ERROR(attrs.status());

    const Shape& x = ctx.shape(0);
    if (x.empty()) {
      return ctx.Error(ErrorCode::kShapeMismatch, "input X must have rank >= 1, got a scalar");
    }
    // A 1-D input is N values of a single channel.
    const int64_t batch = x[0];
    const int64_t channels = x.size() == 1 ? 1 : x[1];
    const int64_t positions = nn::DimProduct(x, 2, x.size());
    // Saturates when the product overflows; no real parameter tensor can then match it.
    param_count_ = channels;
    if (!spatial && __builtin_mul_overflow(channels, positions, &param_count_)) {
      param_count_ = INT64_MAX;
    }
    inner_ = spatial ? positions : 1;
    outer_ = batch;
    static const char* kNames[] = {"X", "scale", "B", "input_mean", "input_var"};
    for (int i = 1; i < 5; ++i) {
      const Shape& p = ctx.shape(i);
      const bool ok = spatial ? (p.size() == 1 && p[0] == channels)
                              : nn::DimProduct(p, 0, p.size()) == param_count_;
      if (!ok) {
        return ctx.Error(ErrorCode::kShapeMismatch,
                         std::string("input '") + kNames[i] + "' " + ShapeToString(p) +
                             " does not match X " + ShapeToString(x) +
                             (spatial ? " (expected [C])" : " (expected X's dims after N)"));
      }
    }
    // Parameter-sized (a real input's size), so bounded; one tensor holds the multipliers then
    // the addends.
    WEBNX_RETURN_IF_ERROR(nn::AllocateScratch(2 * param_count_, &folded_));
    mul_ = folded_.ptr<float>();
    add_ = mul_ + param_count_;
    params_folded_ = true;
    for (int i = 1; i < 5; ++i) params_folded_ = params_folded_ && ctx.constant(i) != nullptr;
    if (params_folded_) {
      Fold(ctx.constant(1)->ptr<float>(), ctx.constant(2)->ptr<float>(),
           ctx.constant(3)->ptr<float>(), ctx.constant(4)->ptr<float>());
    }
    ctx.SetOutput(0, DType::kFloat32, x);
    return Status::Ok();
  }

  // The inference form with one constant statistic per channel: a channel affine that the
  // conv before it may absorb (core/passes/fold_channel_affine.cc).
  bool IsChannelAffine(FormContext& ctx, ChannelAffine* affine) const override {
    const Node& node = ctx.node();
    if (node.inputs.size() != 5) return false;
    for (size_t i = 1; i < node.outputs.size(); ++i)
      if (!node.outputs[i].empty()) return false;  // training outputs
    Attrs& attrs = ctx.attrs();
    const float epsilon = attrs.Float("epsilon", 1e-5f);
    const bool training = attrs.Int("training_mode", 0) != 0;
    const bool spatial = ctx.since_version() >= 9 || attrs.Int("spatial", 1) != 0;
    if (!attrs.status().ok() || training || !spatial) return false;
    const Tensor* p[5] = {};
    for (int i = 1; i < 5; ++i) {
      p[i] = ctx.constant(i);
      if (!p[i] || p[i]->dtype != DType::kFloat32 || p[i]->shape.size() != 1 ||
          p[i]->shape[0] != ctx.constant(1)->shape[0]) {
        return false;
      }
    }
    const int64_t channels = p[1]->shape[0];
    affine->center.assign(p[3]->ptr<float>(), p[3]->ptr<float>() + channels);
    affine->shift.assign(p[2]->ptr<float>(), p[2]->ptr<float>() + channels);
    affine->scale.resize(channels);
    for (int64_t c = 0; c < channels; ++c)
      affine->scale[c] = p[1]->ptr<float>()[c] / std::sqrt(p[4]->ptr<float>()[c] + epsilon);
    return channels > 0;
  }

  Status Run(RunContext& ctx) override {
    if (!params_folded_) {
      Fold(ctx.input(1).ptr<float>(), ctx.input(2).ptr<float>(), ctx.input(3).ptr<float>(),
           ctx.input(4).ptr<float>());
    }
    const float* x = ctx.input(0).ptr<float>();
    float* y = ctx.output(0).ptr<float>();
    for (int64_t n = 0; n < outer_; ++n) {
      for (int64_t p = 0; p < param_count_; ++p) {
        const float a = mul_[p], b = add_[p];
        const int64_t base = (n * param_count_ + p) * inner_;
        for (int64_t i = 0; i < inner_; ++i) y[base + i] = x[base + i] * a + b;
      }
    }
    return Status::Ok();
  }

 private:
  // Only the inference form is implemented: the running statistics are inputs, never outputs.
  static Status CheckInferenceMode(PlanContext& ctx) {
    const int64_t training = ctx.attrs().Int("training_mode", 0);
    WEBNX_RETURN_IF_ERROR(ctx.attrs().status());
    int extra_outputs = 0;
    for (int i = 1; i < ctx.num_outputs(); ++i) extra_outputs += ctx.has_output(i) ? 1 : 0;
    if (training != 0 || extra_outputs > 0) {
      return ctx.Error(ErrorCode::kUnsupportedOperator,
                       "training mode (training_mode=1 or the mean/var outputs) is not supported; "
                       "only inference BatchNormalization is");
    }
    return Status::Ok();
  }

  void Fold(const float* scale, const float* bias, const float* mean, const float* var) {
    for (int64_t p = 0; p < param_count_; ++p) {
      mul_[p] = scale[p] / std::sqrt(var[p] + epsilon_);
      add_[p] = bias[p] - mean[p] * mul_[p];
    }
  }

  float epsilon_ = 1e-5f;
  int64_t outer_ = 0;        // N
  int64_t param_count_ = 0;  // C, or C * positions when not spatial
  int64_t inner_ = 0;        // elements sharing one parameter, per n
  bool params_folded_ = false;
  Tensor folded_;  // [mul_ | add_], param_count_ each
  float* mul_ = nullptr;
  float* add_ = nullptr;
};

// Normalises each (n, c) plane by its own mean and variance, then applies scale[c] and B[c].
class InstanceNormKernel : public Kernel {
 public:
  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(3, 3));
    for (int i = 0; i < 3; ++i) WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(i, {DType::kFloat32}));
    epsilon_ = ctx.attrs().Float("epsilon", 1e-5f);
    WEBNX_RETURN_IF_ERROR(ctx.attrs().status());
    const Shape& x = ctx.shape(0);
    if (x.size() < 3) {
      return ctx.Error(ErrorCode::kShapeMismatch,
                       "input X " + ShapeToString(x) + " must have rank >= 3 (N, C, spatial...)");
    }
    channels_ = x[1];
    planes_ = nn::DimProduct(x, 0, 2);
    plane_size_ = planes_ == 0 ? 0 : nn::DimProduct(x, 2, x.size());
    for (int i = 1; i < 3; ++i) {
      const Shape& p = ctx.shape(i);
      if (p.size() != 1 || p[0] != channels_) {
        return ctx.Error(ErrorCode::kShapeMismatch,
                         std::string("input '") + (i == 1 ? "scale" : "B") + "' " +
                             ShapeToString(p) + " should be [" + std::to_string(channels_) + "]");
      }
    }
    ctx.SetOutput(0, DType::kFloat32, x);
    return Status::Ok();
  }

  Status Run(RunContext& ctx) override {
    const float* x = ctx.input(0).ptr<float>();
    const float* scale = ctx.input(1).ptr<float>();
    const float* bias = ctx.input(2).ptr<float>();
    float* y = ctx.output(0).ptr<float>();
    for (int64_t p = 0; p < planes_; ++p) {
      const float* xp = x + p * plane_size_;
      float* yp = y + p * plane_size_;
      const nn::Moments m = nn::MomentsOf(xp, plane_size_);
      const int64_t c = p % channels_;
      // The mean comes off first, in double: folded into the bias (x * a + (B - mean * a)) it
      // cancels against x * a, and a float mean's rounding is scaled by a; both lose the
      // result's bits when |mean| is large next to the spread.
      const float a = static_cast<float>(scale[c] / std::sqrt(m.variance + epsilon_));
      const float b = bias[c];
      for (int64_t i = 0; i < plane_size_; ++i) yp[i] = static_cast<float>(xp[i] - m.mean) * a + b;
    }
    return Status::Ok();
  }

 private:
  float epsilon_ = 1e-5f;
  int64_t channels_ = 0, planes_ = 0, plane_size_ = 0;
};

// Local response normalisation across channels:
// Y = X / (bias + alpha / size * sum of X^2 over the `size` neighbouring channels) ^ beta.
class LrnKernel : public Kernel {
 public:
  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(1, 1));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(0, {DType::kFloat32}));
    Attrs& attrs = ctx.attrs();
    alpha_ = attrs.Float("alpha", 1e-4f);
    beta_ = attrs.Float("beta", 0.75f);
    bias_ = attrs.Float("bias", 1.f);
    if (!attrs.Has("size")) {
      return ctx.Error(ErrorCode::kMalformedModel, "required attribute 'size' is missing");
    }
    size_ = attrs.Int("size", 1);
    WEBNX_RETURN_IF_ERROR(attrs.status());
    if (size_ < 1 || size_ > nn::kMaxWindowValue) {
      return ctx.Error(ErrorCode::kMalformedModel,
                       "attribute 'size' must be >= 1, got " + std::to_string(size_));
    }
    const Shape& x = ctx.shape(0);
    if (x.size() < 3) {
      return ctx.Error(ErrorCode::kShapeMismatch,
                       "input X " + ShapeToString(x) + " must have rank >= 3 (N, C, spatial...)");
    }
    ctx.SetOutput(0, DType::kFloat32, x);
    // Nothing to do (and no scratch) for an empty input; otherwise the plane is bounded by it.
    const bool empty = nn::DimProduct(x, 0, x.size()) == 0;
    batch_ = empty ? 0 : x[0];
    channels_ = x[1];
    plane_size_ = empty ? 0 : nn::DimProduct(x, 2, x.size());
    return nn::AllocateScratch(plane_size_, &square_sum_);
  }

  Status Run(RunContext& ctx) override {
    const float* x = ctx.input(0).ptr<float>();
    float* y = ctx.output(0).ptr<float>();
    const int64_t before = (size_ - 1) / 2;    // floor
    const int64_t after = size_ - 1 - before;  // ceil
    const float scale = alpha_ / static_cast<float>(size_);
    float* sq = square_sum_.ptr<float>();
    for (int64_t n = 0; n < batch_; ++n) {
      const float* xn = x + n * channels_ * plane_size_;
      float* yn = y + n * channels_ * plane_size_;
      for (int64_t c = 0; c < channels_; ++c) {
        std::fill(sq, sq + plane_size_, 0.f);
        const int64_t c_lo = std::max<int64_t>(0, c - before);
        const int64_t c_hi = std::min(channels_ - 1, c + after);
        for (int64_t k = c_lo; k <= c_hi; ++k) {
          const float* xk = xn + k * plane_size_;
          for (int64_t i = 0; i < plane_size_; ++i) sq[i] += xk[i] * xk[i];
        }
        const float* xc = xn + c * plane_size_;
        float* yc = yn + c * plane_size_;
        for (int64_t i = 0; i < plane_size_; ++i) {
          yc[i] = xc[i] / std::pow(bias_ + scale * sq[i], beta_);
        }
      }
    }
    return Status::Ok();
  }

 private:
  float alpha_ = 1e-4f, beta_ = 0.75f, bias_ = 1.f;
  int64_t size_ = 1;
  int64_t batch_ = 0, channels_ = 0, plane_size_ = 0;
  Tensor square_sum_;  // one plane of windowed sums of squares
};

}  // namespace

void RegisterNormalizationKernels(OpRegistry& r) {
  // 14 dropped the saved mean and variance outputs.
  r.Register("", "BatchNormalization",
             {{{1, 6, 7, 9}, Inputs(5), Outputs(1, 5)}, {{14, 15}, Inputs(5), Outputs(1, 3)}},
             MakeKernel<BatchNormKernel>);
  r.Register("", "InstanceNormalization", {{1, 6, 22}, Inputs(3), Outputs(1)},
             MakeKernel<InstanceNormKernel>);
  r.Register("", "LRN", {{1, 13}, Inputs(1), Outputs(1)}, MakeKernel<LrnKernel>);
}

}  // namespace webnx
