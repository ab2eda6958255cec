// LayerNormalization (17): normalises X over its trailing axes [axis, rank), then applies Scale
// and the optional B. The optional Mean and InvStdDev outputs keep X's rank with unit trailing
// dims. Statistics accumulate in double (two passes: mean, then variance around it).
// RMSNormalization (23) is the same with no mean taken out and no B: X / sqrt(mean(X^2) + eps).
#include <cmath>
#include <string>
#include <vector>

#include "kernels/nn_common.h"
#include "kernels/registrations.h"

namespace webnx {
namespace {

// Element strides that broadcast a parameter of shape `param` over the normalised shape `norm`
// (numpy rules, unidirectional: the parameter never widens the output). False when it cannot.
bool BroadcastStrides(const Shape& param, const Shape& norm, std::vector<int64_t>* strides) {
  if (param.size() > norm.size()) {
    // Extra leading dims are fine only when they are all 1.
    for (size_t i = 0; i < param.size() - norm.size(); ++i)
      if (param[i] != 1) return false;
  }
  strides->assign(norm.size(), 0);
  int64_t stride = 1;
  for (size_t k = 0; k < norm.size() && k < param.size(); ++k) {
    const int64_t p = param[param.size() - 1 - k];
    const size_t d = norm.size() - 1 - k;
    if (p != 1 && p != norm[d]) return false;
    (*strides)[d] = p == 1 ? 0 : stride;
    stride *= p;
  }
  return true;
}

class LayerNormKernel : public Kernel {
 public:
  explicit LayerNormKernel(bool rms = false) : rms_(rms) {}

  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(2, rms_ ? 2 : 3));
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      if (ctx.has_input(i)) WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(i, {DType::kFloat32}));
    }
    Attrs& attrs = ctx.attrs();
    const int64_t axis = attrs.Int("axis", -1);
    epsilon_ = attrs.Float("epsilon", 1e-5f);
    const int64_t stash_type = attrs.Int("stash_type", 1);
    WEBNX_RETURN_IF_ERROR(attrs.status());
    const bool wants_stats = ctx.has_output(1) || ctx.has_output(2);
    if (stash_type != 1 && wants_stats) {
      // The statistics outputs have the stash type; only float32 exists here.
      return ctx.Error(ErrorCode::kUnsupportedDtype,
                       "stash_type " + std::to_string(stash_type) +
                           " makes Mean/InvStdDev non-float32; only stash_type 1 is supported");
    }

    const Shape& x = ctx.shape(0);
    int64_t first = 0;
    if (x.empty() || !nn::NormalizeAxis(axis, static_cast<int64_t>(x.size()), &first)) {
      return ctx.Error(ErrorCode::kMalformedModel, "attribute 'axis' " + std::to_string(axis) +
                                                       " is out of range for X " +
                                                       ShapeToString(x));
    }
    const Shape norm(x.begin() + first, x.end());
    rows_ = nn::DimProduct(x, 0, first);
    row_size_ = nn::DimProduct(x, first, x.size());
    WEBNX_RETURN_IF_ERROR(PlanParam(ctx, 1, "Scale", norm, &scale_strides_));
    has_bias_ = ctx.has_input(2);
    if (has_bias_) WEBNX_RETURN_IF_ERROR(PlanParam(ctx, 2, "B", norm, &bias_strides_));
    norm_ = norm;

    ctx.SetOutput(0, DType::kFloat32, x);
    Shape stats_shape(x.begin(), x.begin() + first);
    stats_shape.resize(x.size(), 1);
    if (ctx.has_output(1)) ctx.SetOutput(1, DType::kFloat32, stats_shape);
    if (ctx.has_output(2)) ctx.SetOutput(2, DType::kFloat32, stats_shape);
    // Scale and B expanded to one full row each, so the inner loop is a plain multiply-add.
    const int64_t rows_needed = rows_ == 0 ? 0 : row_size_;
    return nn::AllocateScratch(2 * rows_needed, &expanded_);
  }

  Status Run(RunContext& ctx) override {
    const float* x = ctx.input(0).ptr<float>();
    float* y = ctx.output(0).ptr<float>();
    float* mean_out = ctx.has_output(1) ? ctx.output(1).ptr<float>() : nullptr;
    float* inv_out = ctx.has_output(2) ? ctx.output(2).ptr<float>() : nullptr;
    if (rows_ == 0) return Status::Ok();
    float* scale = expanded_.ptr<float>();
    float* bias = scale + row_size_;
    Expand(ctx.input(1).ptr<float>(), scale_strides_, scale);
    if (has_bias_) {
      Expand(ctx.input(2).ptr<float>(), bias_strides_, bias);
    } else {
      for (int64_t i = 0; i < row_size_; ++i) bias[i] = 0.f;
    }
    for (int64_t r = 0; r < rows_; ++r) {
      const float* xr = x + r * row_size_;
      float* yr = y + r * row_size_;
      const nn::Moments moments = nn::MomentsOf(xr, row_size_, /*centered=*/!rms_);
      const double inv_std = 1.0 / std::sqrt(moments.variance + epsilon_);
      const float m = static_cast<float>(moments.mean), s = static_cast<float>(inv_std);
      for (int64_t i = 0; i < row_size_; ++i) yr[i] = (xr[i] - m) * s * scale[i] + bias[i];
      if (mean_out) mean_out[r] = m;
      if (inv_out) inv_out[r] = s;
    }
    return Status::Ok();
  }

 private:
  // Checks that parameter input i (Scale or B) broadcasts to the normalised shape.
  static Status PlanParam(PlanContext& ctx, int i, const char* name, const Shape& norm,
                          std::vector<int64_t>* strides) {
    if (!BroadcastStrides(ctx.shape(i), norm, strides)) {
      return ctx.Error(ErrorCode::kShapeMismatch,
                       std::string("input '") + name + "' " + ShapeToString(ctx.shape(i)) +
                           " does not broadcast to the normalised shape " + ShapeToString(norm));
    }
    return Status::Ok();
  }

  // Writes the parameter broadcast over one normalised row (row-major over norm_).
  void Expand(const float* param, const std::vector<int64_t>& strides, float* row) const {
    const size_t rank = norm_.size();
    for (int64_t i = 0; i < row_size_; ++i) {
      int64_t rest = i, offset = 0;
      for (size_t d = rank; d-- > 0;) {
        offset += (rest % norm_[d]) * strides[d];
        rest /= norm_[d];
      }
      row[i] = param[offset];
    }
  }

  const bool rms_;  // RMSNormalization
  float epsilon_ = 1e-5f;
  int64_t rows_ = 0, row_size_ = 0;
  Shape norm_;  // X's dims from axis on
  std::vector<int64_t> scale_strides_, bias_strides_;
  bool has_bias_ = false;
  Tensor expanded_;  // [scale row | bias row]
};

}  // namespace

void RegisterLayerNormKernels(OpRegistry& r) {
  r.Register("", "LayerNormalization", {{17}, Inputs(2, 3), Outputs(1, 3)},
             MakeKernel<LayerNormKernel>);
  r.Register("", "RMSNormalization", {{23}, Inputs(2), Outputs(1)},
             []() -> Kernel* { return new LayerNormKernel(true); });
}

}  // namespace webnx
