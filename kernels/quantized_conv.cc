// ConvInteger and QLinearConv: convolutions of int8/uint8 data and weights (1-D to 3-D, groups,
// strides, dilations, pads, auto_pad), accumulated in int32. Padding contributes nothing, as if
// padded with the input's zero point. The weights' zero point (and QLinearConv's weight scale)
// is per tensor or per output channel; QLinearConv adds its int32 bias to each sum and
// requantizes as QLinearMatMul does. A direct loop over the taps on operands widened to int32
// once per run: the reference the int8 SIMD kernels still to come will be tested against.
#include <algorithm>
#include <string>
#include <vector>

#include "kernels/nn_common.h"
#include "kernels/quant_params.h"
#include "kernels/registrations.h"

namespace webnx {
namespace {

struct ConvInputs {
  int x = 0, w = 1, x_zp = 2, w_zp = 3;
  int x_scale = -1, w_scale = -1, y_scale = -1, y_zp = -1, bias = -1;
};

class QuantizedConvKernel final : public Kernel {
 public:
  explicit QuantizedConvKernel(bool requantize) : requantize_(requantize) {
    if (requantize) in_ = ConvInputs{0, 3, 2, 5, 1, 4, 6, 7, 8};
  }

  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(requantize_ ? ctx.ExpectInputs(8, 9) : ctx.ExpectInputs(2, 4));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(in_.x, {DType::kUint8, DType::kInt8}));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(in_.w, {DType::kUint8, DType::kInt8}));
    WEBNX_RETURN_IF_ERROR(PlanShapes(ctx));
    WEBNX_RETURN_IF_ERROR(quant::CheckParam(ctx, in_.x_zp, 1, "x_zero_point", ctx.dtype(in_.x)));
    WEBNX_RETURN_IF_ERROR(
        quant::CheckParam(ctx, in_.w_zp, out_channels_, "w_zero_point", ctx.dtype(in_.w)));
    DType out = DType::kInt32;
    if (requantize_) {
      WEBNX_RETURN_IF_ERROR(quant::CheckParam(ctx, in_.x_scale, 1, "x_scale", DType::kUndefined));
      WEBNX_RETURN_IF_ERROR(
          quant::CheckParam(ctx, in_.w_scale, out_channels_, "w_scale", DType::kUndefined));
      WEBNX_RETURN_IF_ERROR(quant::CheckParam(ctx, in_.y_scale, 1, "y_scale", DType::kUndefined));
      WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(in_.y_zp, {DType::kUint8, DType::kInt8}));
      WEBNX_RETURN_IF_ERROR(
          quant::CheckParam(ctx, in_.y_zp, 1, "y_zero_point", ctx.dtype(in_.y_zp)));
      if (ctx.has_input(in_.bias)) {
        WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(in_.bias, {DType::kInt32}));
        if (ctx.shape(in_.bias) != Shape{out_channels_}) {
          return ctx.Error(ErrorCode::kShapeMismatch, "B must hold one int32 per output channel");
        }
      }
      out = ctx.dtype(in_.y_zp);
    }
    ctx.SetOutput(0, out, out_shape_);
    WEBNX_RETURN_IF_ERROR(Tensor::AllocateUninitialized(
        DType::kInt32, {nn::DimProduct(ctx.shape(in_.x), 0, ctx.shape(in_.x).size())}, &x_wide_));
    return Tensor::AllocateUninitialized(
        DType::kInt32, {nn::DimProduct(ctx.shape(in_.w), 0, ctx.shape(in_.w).size())}, &w_wide_);
  }

  Status Run(RunContext& ctx) override {
    const Tensor& x = ctx.input(in_.x);
    const Tensor& w = ctx.input(in_.w);
    const Tensor* x_zp = ctx.has_input(in_.x_zp) ? &ctx.input(in_.x_zp) : nullptr;
    const Tensor* w_zp = ctx.has_input(in_.w_zp) ? &ctx.input(in_.w_zp) : nullptr;
    const int32_t xz = x_zp ? quant::IntegerAt(*x_zp, 0) : 0;
    int32_t* xw = x_wide_.ptr<int32_t>();
    for (int64_t i = 0; i < x.numel(); ++i) xw[i] = quant::IntegerAt(x, i) - xz;
    const int64_t per_channel = w.numel() / std::max<int64_t>(out_channels_, 1);
    int32_t* ww = w_wide_.ptr<int32_t>();
    for (int64_t i = 0; i < w.numel(); ++i) {
      const int64_t oc = i / per_channel;
      ww[i] = quant::IntegerAt(w, i) -
              (w_zp ? quant::IntegerAt(*w_zp, quant::ParamIndex(*w_zp, oc)) : 0);
    }
    Tensor& y = ctx.output(0);
    const int64_t out_plane = axes_[0].out * axes_[1].out * axes_[2].out;
    for (int64_t n = 0; n < batch_; ++n) {
      for (int64_t oc = 0; oc < out_channels_; ++oc) {
        const int64_t g = oc / (out_channels_ / groups_);
        const int64_t at = (n * out_channels_ + oc) * out_plane;
        ConvolveChannel(n, g, oc);
        Store(ctx, y, at, out_plane, oc);
      }
    }
    return Status::Ok();
  }

 private:
  Status PlanShapes(PlanContext& ctx) {
    const Shape& x = ctx.shape(in_.x);
    const Shape& w = ctx.shape(in_.w);
    if (x.size() < 3 || x.size() > 5 || w.size() != x.size()) {
      return ctx.Error(ErrorCode::kShapeMismatch, "x " + ShapeToString(x) + " and w " +
                                                      ShapeToString(w) +
                                                      " must both be [N, C, 1 to 3 spatial dims]");
    }
    groups_ = ctx.attrs().Int("group", 1);
    WEBNX_RETURN_IF_ERROR(ctx.attrs().status());
    batch_ = x[0], in_channels_ = x[1], out_channels_ = w[0];
    if (groups_ < 1 || in_channels_ % groups_ != 0 || out_channels_ % groups_ != 0 ||
        w[1] != in_channels_ / groups_) {
      return ctx.Error(ErrorCode::kShapeMismatch, "w " + ShapeToString(w) + " does not fit x " +
                                                      ShapeToString(x) + " in " +
                                                      std::to_string(groups_) + " groups");
    }
    const size_t spatial = x.size() - 2;
    nn::WindowOptions options;
    options.inferred_kernel.assign(w.begin() + 2, w.end());
    nn::WindowAttrs attrs;
    WEBNX_RETURN_IF_ERROR(nn::ReadWindowAttrs(ctx, spatial, options, &attrs));
    if (attrs.kernel != options.inferred_kernel) {
      return ctx.Error(ErrorCode::kShapeMismatch, "kernel_shape differs from w's spatial dims");
    }
    std::vector<nn::WindowAxis> axes;
    WEBNX_RETURN_IF_ERROR(nn::ComputeWindowAxes(ctx, Shape(x.begin() + 2, x.end()), attrs, &axes));
    axes_ = nn::PadAxesFront(axes, 3);
    out_shape_ = {batch_, out_channels_};
    for (const nn::WindowAxis& a : axes) out_shape_.push_back(a.out);
    WEBNX_RETURN_IF_ERROR(nn::CheckNumel(ctx, out_shape_, "the output"));
    acc_.assign(axes_[0].out * axes_[1].out * axes_[2].out, 0);
    return Status::Ok();
  }

  // The int32 sums of output channel oc of image n into acc_ (one output plane).
  void ConvolveChannel(int64_t n, int64_t g, int64_t oc) {
    const int64_t group_in = in_channels_ / groups_;
    const nn::WindowAxis &ad = axes_[0], &ah = axes_[1], &aw = axes_[2];
    const int64_t in_plane = ad.in * ah.in * aw.in, taps = ad.kernel * ah.kernel * aw.kernel;
    std::fill(acc_.begin(), acc_.end(), 0u);
    for (int64_t c = 0; c < group_in; ++c) {
      const int32_t* xc = x_wide_.ptr<int32_t>() + (n * in_channels_ + g * group_in + c) * in_plane;
      const int32_t* wc = w_wide_.ptr<int32_t>() + (oc * group_in + c) * taps;
      int64_t o = 0;
      for (int64_t od = 0; od < ad.out; ++od)
        for (int64_t oh = 0; oh < ah.out; ++oh)
          for (int64_t ow = 0; ow < aw.out; ++ow, ++o) acc_[o] += Dot(xc, wc, od, oh, ow);
    }
  }

  // Sums wrap modulo 2^32 (unsigned arithmetic) as int32 accumulators do, without overflowing.
  uint32_t Dot(const int32_t* xc, const int32_t* wc, int64_t od, int64_t oh, int64_t ow) const {
    const nn::WindowAxis &ad = axes_[0], &ah = axes_[1], &aw = axes_[2];
    int64_t d0, d1, h0, h1, w0, w1;
    ad.ValidTaps(od, &d0, &d1);
    ah.ValidTaps(oh, &h0, &h1);
    aw.ValidTaps(ow, &w0, &w1);
    uint32_t sum = 0;
    for (int64_t kd = d0; kd < d1; ++kd) {
      const int64_t id = ad.start(od) + kd * ad.dilation;
      for (int64_t kh = h0; kh < h1; ++kh) {
        const int64_t ih = ah.start(oh) + kh * ah.dilation;
        const int32_t* xrow = xc + (id * ah.in + ih) * aw.in + aw.start(ow);
        const int32_t* wrow = wc + (kd * ah.kernel + kh) * aw.kernel;
        for (int64_t kw = w0; kw < w1; ++kw) {
          sum += static_cast<uint32_t>(xrow[kw * aw.dilation]) * static_cast<uint32_t>(wrow[kw]);
        }
      }
    }
    return sum;
  }

  void Store(const RunContext& ctx, Tensor& y, int64_t at, int64_t count, int64_t oc) const {
    if (!requantize_) {
      for (int64_t i = 0; i < count; ++i) y.ptr<int32_t>()[at + i] = static_cast<int32_t>(acc_[i]);
      return;
    }
    const Tensor& w_scale = ctx.input(in_.w_scale);
    const float multiplier = quant::ScaleAt(ctx.input(in_.x_scale), 0) *
                             quant::ScaleAt(w_scale, quant::ParamIndex(w_scale, oc)) /
                             quant::ScaleAt(ctx.input(in_.y_scale), 0);
    const int32_t bias = ctx.has_input(in_.bias) ? ctx.input(in_.bias).ptr<int32_t>()[oc] : 0;
    const int32_t zero_point = quant::IntegerAt(ctx.input(in_.y_zp), 0);
    int32_t lo = 0, hi = 0;
    quant::QuantRange(y.dtype, &lo, &hi);
    for (int64_t i = 0; i < count; ++i) {
      const float v =
          static_cast<float>(static_cast<int32_t>(acc_[i] + static_cast<uint32_t>(bias))) *
          multiplier;
      quant::StoreQuantized(y, at + i, quant::Saturate(v, zero_point, lo, hi));
    }
  }

  const bool requantize_;
  ConvInputs in_;
  int64_t groups_ = 1, batch_ = 0, in_channels_ = 0, out_channels_ = 0;
  std::vector<nn::WindowAxis> axes_;  // (depth, height, width)
  Shape out_shape_;
  Tensor x_wide_, w_wide_;     // operands minus their zero points, as int32
  std::vector<uint32_t> acc_;  // one output plane's sums (wrapping), sized per plan
};

}  // namespace

void RegisterQuantizedConvKernels(OpRegistry& r) {
  r.Register("", "ConvInteger", {{10}, Inputs(2, 4), Outputs(1)}, []() -> std::unique_ptr<Kernel> {
    return std::make_unique<QuantizedConvKernel>(false);
  });
  r.Register("", "QLinearConv", {{10}, Inputs(8, 9), Outputs(1)}, []() -> std::unique_ptr<Kernel> {
    return std::make_unique<QuantizedConvKernel>(true);
  });
}

}  // namespace webnx
