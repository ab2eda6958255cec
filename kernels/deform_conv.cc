// DeformConv (19, 22), 2-D: a convolution whose every tap reads X at its regular position plus
// a learned offset (bilinear, zeros outside), scaled by an optional mask: per image, the taps'
// samples are gathered into columns [C * kh * kw, oh * ow], then each group's weights multiply
// them. Offsets and masks are shared by the channels of each of `offset_group` groups.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/nn_common.h"
#include "kernels/registrations.h"

namespace webnx {
namespace {

class DeformConvKernel final : public Kernel {
 public:
  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(3, 5));
    for (int i = 0; i < 5; ++i)
      if (ctx.has_input(i)) WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(i, {DType::kFloat32}));
    const Shape& x = ctx.shape(0);
    const Shape& w = ctx.shape(1);
    if (x.size() != 4 || w.size() != 4)
      return ctx.Error(ErrorCode::kUnsupportedOperator, "only 2-D deformable convs are supported");
    Attrs& attrs = ctx.attrs();
    group_ = attrs.Int("group", 1);
    offset_groups_ = attrs.Int("offset_group", 1);
    WEBNX_RETURN_IF_ERROR(attrs.status());
    nn::WindowOptions options;
    options.inferred_kernel = {w[2], w[3]};
    nn::WindowAttrs window;
    WEBNX_RETURN_IF_ERROR(nn::ReadWindowAttrs(ctx, 2, options, &window));
    WEBNX_RETURN_IF_ERROR(nn::ComputeWindowAxes(ctx, {x[2], x[3]}, window, &axes_));
    n_ = x[0];
    c_ = x[1];
    m_ = w[0];
    kh_ = w[2];
    kw_ = w[3];
    const int64_t oh = axes_[0].out, ow = axes_[1].out, taps = kh_ * kw_;
    const bool groups_ok = group_ > 0 && offset_groups_ > 0 && c_ % group_ == 0 &&
                           m_ % group_ == 0 && w[1] * group_ == c_ && c_ % offset_groups_ == 0;
    const Shape offsets = {n_, offset_groups_ * 2 * taps, oh, ow};
    const Shape mask = {n_, offset_groups_ * taps, oh, ow};
    if (!groups_ok || ctx.shape(2) != offsets || (ctx.has_input(3) && ctx.shape(3) != Shape{m_}) ||
        (ctx.has_input(4) && ctx.shape(4) != mask)) {
      return ctx.Error(ErrorCode::kShapeMismatch,
                       "X " + ShapeToString(x) + ", W " + ShapeToString(w) + " and offset " +
                           ShapeToString(ctx.shape(2)) + " do not agree (offset must be " +
                           ShapeToString(offsets) + ", B [M], mask " + ShapeToString(mask) + ")");
    }
    WEBNX_RETURN_IF_ERROR(nn::AllocateScratch(c_ * taps * oh * ow, &columns_));
    ctx.SetOutput(0, DType::kFloat32, {n_, m_, oh, ow});
    return Status::Ok();
  }

  Status Run(RunContext& ctx) override {
    const int64_t plane = axes_[0].out * axes_[1].out;
    for (int64_t n = 0; n < n_; ++n) {
      Gather(ctx, n);
      Multiply(ctx, n, plane);
    }
    return Status::Ok();
  }

 private:
  // X[n, c] at (y, x), bilinear, zero outside.
  float Bilinear(const float* image, float y, float x) const {
    const int64_t h = axes_[0].in, w = axes_[1].in;
    // Written so that NaN (a hostile offset) is outside too.
    if (!(y > -1.f && y < h && x > -1.f && x < w)) return 0.f;
    const int64_t y0 = static_cast<int64_t>(std::floor(y)),
                  x0 = static_cast<int64_t>(std::floor(x));
    const float fy = y - y0, fx = x - x0;
    auto at = [&](int64_t r, int64_t c) {
      return r >= 0 && r < h && c >= 0 && c < w ? image[r * w + c] : 0.f;
    };
    return (1 - fy) * ((1 - fx) * at(y0, x0) + fx * at(y0, x0 + 1)) +
           fy * ((1 - fx) * at(y0 + 1, x0) + fx * at(y0 + 1, x0 + 1));
  }

  // columns_[(c * kh + i) * kw + j][p]: X[n, c] at tap (i, j) of output p, offset and masked.
  void Gather(RunContext& ctx, int64_t n) {
    const int64_t oh = axes_[0].out, ow = axes_[1].out, plane = oh * ow, taps = kh_ * kw_;
    const int64_t in_plane = axes_[0].in * axes_[1].in;
    const float* x = ctx.input(0).ptr<float>() + n * c_ * in_plane;
    const float* offset = ctx.input(2).ptr<float>() + n * offset_groups_ * 2 * taps * plane;
    const float* mask =
        ctx.has_input(4) ? ctx.input(4).ptr<float>() + n * offset_groups_ * taps * plane : nullptr;
    float* col = columns_.ptr<float>();
    for (int64_t c = 0; c < c_; ++c) {
      const int64_t g = c / (c_ / offset_groups_);
      for (int64_t t = 0; t < taps; ++t, col += plane) {
        const int64_t i = t / kw_, j = t % kw_;
        const float* dy = offset + (g * 2 * taps + 2 * t) * plane;
        const float* dx = dy + plane;
        const float* mk = mask ? mask + (g * taps + t) * plane : nullptr;
        for (int64_t p = 0; p < plane; ++p) {
          const int64_t r = p / ow, q = p % ow;
          const float y = static_cast<float>(axes_[0].start(r) + i * axes_[0].dilation) + dy[p];
          const float xx = static_cast<float>(axes_[1].start(q) + j * axes_[1].dilation) + dx[p];
          const float v = Bilinear(x + c * in_plane, y, xx);
          col[p] = mk ? v * mk[p] : v;
        }
      }
    }
  }

  // Y[n] = W_g . columns_g per group, plus B.
  void Multiply(RunContext& ctx, int64_t n, int64_t plane) {
    const int64_t depth = (c_ / group_) * kh_ * kw_, per_group = m_ / group_;
    const float* w = ctx.input(1).ptr<float>();
    const float* bias = ctx.has_input(3) ? ctx.input(3).ptr<float>() : nullptr;
    float* y = ctx.output(0).ptr<float>() + n * m_ * plane;
    for (int64_t m = 0; m < m_; ++m) {
      const float* col = columns_.ptr<float>() + (m / per_group) * depth * plane;
      float* out = y + m * plane;
      for (int64_t p = 0; p < plane; ++p) out[p] = bias ? bias[m] : 0.f;
      for (int64_t k = 0; k < depth; ++k) {
        const float wk = w[m * depth + k];
        const float* row = col + k * plane;
        for (int64_t p = 0; p < plane; ++p) out[p] += wk * row[p];
      }
    }
  }

  std::vector<nn::WindowAxis> axes_;
  int64_t n_ = 0, c_ = 0, m_ = 0, kh_ = 1, kw_ = 1, group_ = 1, offset_groups_ = 1;
  Tensor columns_;
};

}  // namespace

void RegisterDeformConvKernels(OpRegistry& r) {
  r.Register("", "DeformConv", {{19, 22}, Inputs(3, 5), Outputs(1)}, MakeKernel<DeformConvKernel>);
}

}  // namespace webnx
