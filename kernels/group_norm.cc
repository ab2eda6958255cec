// GroupNormalization: X [N, C, ...] normalised over each group of C / num_groups channels and
// all spatial positions, then scaled and shifted per channel (version 21) or per group (18).
// Statistics accumulate in double, two passes (nn::MomentsOf), as in LayerNormalization.
#include <cmath>
#include <cstdint>
#include <string>

#include "kernels/nn_common.h"
#include "kernels/registrations.h"

namespace webnx {
namespace {

class GroupNormKernel final : public Kernel {
 public:
  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(3, 3));
    for (int i = 0; i < 3; ++i) WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(i, {DType::kFloat32}));
    Attrs& attrs = ctx.attrs();
    if (!attrs.Has("num_groups"))
      return ctx.Error(ErrorCode::kMalformedModel, "attribute 'num_groups' is required");
    groups_ = attrs.Int("num_groups", 1);
    epsilon_ = attrs.Float("epsilon", 1e-5f);
    WEBNX_RETURN_IF_ERROR(attrs.status());
    const Shape& x = ctx.shape(0);
    if (x.size() < 2) {
      return ctx.Error(ErrorCode::kShapeMismatch, "X must be [N, C, ...], got " + ShapeToString(x));
    }
    channels_ = x[1];
    if (groups_ < 1 || channels_ % groups_ != 0) {
      return ctx.Error(ErrorCode::kMalformedModel, "num_groups " + std::to_string(groups_) +
                                                       " does not divide the " +
                                                       std::to_string(channels_) + " channels");
    }
    per_channel_ = ctx.since_version() >= 21;
    const Shape params{per_channel_ ? channels_ : groups_};
    for (int i = 1; i < 3; ++i) {
      if (ctx.shape(i) != params) {
        return ctx.Error(ErrorCode::kShapeMismatch, std::string(i == 1 ? "scale " : "bias ") +
                                                        ShapeToString(ctx.shape(i)) + " must be " +
                                                        ShapeToString(params));
      }
    }
    batch_ = x[0];
    plane_ = nn::DimProduct(x, 2, x.size());
    ctx.SetOutput(0, DType::kFloat32, x);
    return Status::Ok();
  }

  Status Run(RunContext& ctx) override {
    const float* x = ctx.input(0).ptr<float>();
    const float* scale = ctx.input(1).ptr<float>();
    const float* bias = ctx.input(2).ptr<float>();
    float* y = ctx.output(0).ptr<float>();
    const int64_t group_channels = channels_ / groups_;
    const int64_t size = group_channels * plane_;  // elements per (image, group)
    for (int64_t n = 0; n < batch_; ++n) {
      for (int64_t g = 0; g < groups_; ++g) {
        const int64_t start = (n * channels_ + g * group_channels) * plane_;
        const float* xg = x + start;
        const nn::Moments moments = nn::MomentsOf(xg, size);
        const float m = static_cast<float>(moments.mean);
        const float inv = static_cast<float>(1.0 / std::sqrt(moments.variance + epsilon_));
        for (int64_t c = 0; c < group_channels; ++c) {
          const int64_t p = per_channel_ ? g * group_channels + c : g;
          const float a = inv * scale[p], b = bias[p];
          const float* xc = xg + c * plane_;
          float* yc = y + start + c * plane_;
          for (int64_t i = 0; i < plane_; ++i) yc[i] = (xc[i] - m) * a + b;
        }
      }
    }
    return Status::Ok();
  }

 private:
  int64_t groups_ = 1, channels_ = 0, batch_ = 0, plane_ = 0;
  float epsilon_ = 1e-5f;
  bool per_channel_ = true;  // scale and bias per channel (21) or per group (18)
};

}  // namespace

void RegisterGroupNormKernels(OpRegistry& r) {
  r.Register("", "GroupNormalization", {{18, 21}, Inputs(3), Outputs(1)},
             MakeKernel<GroupNormKernel>);
}

}  // namespace webnx
