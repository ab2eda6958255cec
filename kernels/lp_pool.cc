// LpPool (1, 2, 11, 18, 22): the p-norm of each window, (sum |x|^p)^(1/p), padding reading
// zeros. Windows as Conv's and the other pools' (kernels/nn_common.h): strides, pads, auto_pad,
// and from 18 dilations and ceil_mode. Any spatial rank up to 3.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/nn_common.h"
#include "kernels/registrations.h"

namespace webnx {
namespace {

class LpPoolKernel final : public Kernel {
 public:
  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(1, 1));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(0, {DType::kFloat32}));
    const Shape& x = ctx.shape(0);
    if (x.size() < 3 || x.size() > 5)
      return ctx.Error(ErrorCode::kShapeMismatch,
                       "the input must be [N, C, d1..dr] with r = 1 to 3, not " + ShapeToString(x));
    const size_t rank = x.size() - 2;
    nn::WindowOptions options;
    options.allow_dilations = ctx.since_version() >= 18;
    options.allow_ceil_mode = ctx.since_version() >= 18;
    nn::WindowAttrs window;
    WEBNX_RETURN_IF_ERROR(nn::ReadWindowAttrs(ctx, rank, options, &window));
    // Version 1 takes p as a float; later ones as an int.
    const Attribute* p = ctx.node().attr("p");
    p_ = !p ? 2.f : p->type == Attribute::Type::kFloat ? p->f : static_cast<float>(p->i);
    if (!(p_ > 0.f)) return ctx.Error(ErrorCode::kMalformedModel, "attribute 'p' must be positive");
    std::vector<nn::WindowAxis> axes;
    WEBNX_RETURN_IF_ERROR(nn::ComputeWindowAxes(ctx, Shape(x.begin() + 2, x.end()), window, &axes));
    axes_ = nn::PadAxesFront(axes, 3);
    planes_ = x[0] * x[1];
    in_plane_ = nn::DimProduct(x, 2, x.size());
    Shape y = {x[0], x[1]};
    out_plane_ = 1;
    for (const nn::WindowAxis& a : axes) {
      y.push_back(a.out);
      out_plane_ *= a.out;
    }
    ctx.SetOutput(0, DType::kFloat32, y);
    return Status::Ok();
  }

  Status Run(RunContext& ctx) override {
    const float* x = ctx.input(0).ptr<float>();
    float* y = ctx.output(0).ptr<float>();
    ctx.ParallelFor(
        planes_, [&](int64_t plane, int) { Pool(x + plane * in_plane_, y + plane * out_plane_); });
    return Status::Ok();
  }

 private:
  float Power(float v) const {
    const float a = std::fabs(v);
    return p_ == 2.f ? a * a : p_ == 1.f ? a : std::pow(a, p_);
  }

  float Root(float sum) const {
    return p_ == 2.f ? std::sqrt(sum) : p_ == 1.f ? sum : std::pow(sum, 1.f / p_);
  }

  void Pool(const float* x, float* y) const {
    const nn::WindowAxis &ad = axes_[0], &ah = axes_[1], &aw = axes_[2];
    for (int64_t od = 0; od < ad.out; ++od)
      for (int64_t oh = 0; oh < ah.out; ++oh)
        for (int64_t ow = 0; ow < aw.out; ++ow) {
          int64_t d0, d1, h0, h1, w0, w1;
          ad.ValidTaps(od, &d0, &d1);
          ah.ValidTaps(oh, &h0, &h1);
          aw.ValidTaps(ow, &w0, &w1);
          float sum = 0.f;
          for (int64_t kd = d0; kd < d1; ++kd) {
            const int64_t id = ad.start(od) + kd * ad.dilation;
            for (int64_t kh = h0; kh < h1; ++kh) {
              const int64_t ih = ah.start(oh) + kh * ah.dilation;
              const float* row = x + (id * ah.in + ih) * aw.in + aw.start(ow);
              for (int64_t kw = w0; kw < w1; ++kw) sum += Power(row[kw * aw.dilation]);
            }
          }
          *y++ = Root(sum);
        }
  }

  float p_ = 2.f;
  std::vector<nn::WindowAxis> axes_;  // (depth, height, width), unit axes in front
  int64_t planes_ = 0, in_plane_ = 0, out_plane_ = 0;
};

}  // namespace

void RegisterLpPoolKernels(OpRegistry& r) {
  r.Register("", "LpPool", {{1, 2, 11, 18, 22}, Inputs(1), Outputs(1)}, MakeKernel<LpPoolKernel>);
}

}  // namespace webnx
