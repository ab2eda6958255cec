// ConvInteger and QLinearConv: convolutions of int8/uint8 data and weights (1-D to 3-D, groups,
// strides, dilations, pads, auto_pad), accumulated in int32. Padding contributes nothing, as if
// padded with the input's zero point. The weights' zero point (and QLinearConv's weight scale)
// is per tensor or per output channel; QLinearConv adds its int32 bias to each sum and
// requantizes as QLinearMatMul does. Each group is one product on the int8 SIMD GEMM
// (kernels/simd/gemm_i8.h): the weights' rows packed once per session when constant, the
// input unrolled over the taps into the GEMM's panels per run (kernels/simd/im2col_i8.h).
#include <algorithm>
#include <string>
#include <vector>

#include "kernels/nn_common.h"
#include "kernels/quant_gemm.h"
#include "kernels/quant_params.h"
#include "kernels/registrations.h"
#include "kernels/simd/im2col_i8.h"

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
    const int64_t depth = ctx.shape(in_.w)[1] * taps_;  // K of each group's product
    const quant::PackedOperand w_layout{false, 1, out_channels_, depth};
    if (ctx.constant(in_.w) && (!ctx.has_input(in_.w_zp) || ctx.constant(in_.w_zp))) {
      WEBNX_RETURN_IF_ERROR(quant::PackConstantOperand(ctx, in_.w, in_.w_zp, w_layout, &w_packed_));
    } else {
      w_packed_ = DerivedForm();
      WEBNX_RETURN_IF_ERROR(
          Tensor::AllocateUninitialized(DType::kInt16, {w_layout.PackedSize()}, &w_scratch_));
    }
    WEBNX_RETURN_IF_ERROR(Tensor::AllocateUninitialized(
        DType::kInt16, {simd::PanelsSize(depth, out_plane_)}, &panels_));
    WEBNX_RETURN_IF_ERROR(Tensor::AllocateUninitialized(
        DType::kUint8, {pointwise_ ? 0 : depth * out_plane_}, &columns_));
    const int64_t group_out = out_channels_ / groups_;
    return Tensor::AllocateUninitialized(DType::kInt32, {requantize_ ? group_out * out_plane_ : 0},
                                         &sums_);
  }

  Status Run(RunContext& ctx) override {
    const Tensor& x = ctx.input(in_.x);
    const Tensor* x_zp = ctx.has_input(in_.x_zp) ? &ctx.input(in_.x_zp) : nullptr;
    const int32_t xz = x_zp ? quant::IntegerAt(*x_zp, 0) : 0;
    const int64_t group_in = in_channels_ / groups_, group_out = out_channels_ / groups_;
    const int64_t depth = group_in * taps_, kp = simd::PairedDepth(depth);
    const int16_t* w_rows = w_packed_.head.ptr<int16_t>();
    if (!w_rows) {
      std::vector<int32_t> zp_values;
      const Tensor* w_zp = ctx.has_input(in_.w_zp) ? &ctx.input(in_.w_zp) : nullptr;
      const Tensor& w = ctx.input(in_.w);
      simd::PackRowsI16(w.data, w.dtype, out_channels_, depth, depth,
                        quant::ZeroPointsOf(w_zp, &zp_values), w_scratch_.ptr<int16_t>());
      w_rows = w_scratch_.ptr<int16_t>();
    }
    const int64_t in_plane = axes_[0].in * axes_[1].in * axes_[2].in;
    Tensor& y = ctx.output(0);
    for (int64_t n = 0; n < batch_; ++n) {
      for (int64_t g = 0; g < groups_; ++g) {
        const int64_t first_in = n * in_channels_ + g * group_in;
        const uint8_t* group_x = static_cast<const uint8_t*>(x.data) + first_in * in_plane;
        if (pointwise_) {  // the input planes are the columns operand's rows
          simd::PackPanelsI16(group_x, x.dtype, group_in, out_plane_, in_plane, {nullptr, xz},
                              panels_.ptr<int16_t>());
        } else {
          simd::Im2ColBytes(group_x, group_in, axes_.data(), static_cast<uint8_t>(xz),
                            columns_.ptr<uint8_t>());
          simd::PackPanelsI16(columns_.ptr<uint8_t>(), x.dtype, depth, out_plane_, out_plane_,
                              {nullptr, xz}, panels_.ptr<int16_t>());
        }
        const int64_t first_out = n * out_channels_ + g * group_out;
        int32_t* sums =
            requantize_ ? sums_.ptr<int32_t>() : y.ptr<int32_t>() + first_out * out_plane_;
        quant::RunGemmI16(ctx, group_out, depth, w_rows + g * group_out * kp,
                          panels_.ptr<int16_t>(), out_plane_, sums, out_plane_);
        if (requantize_) Requantize(ctx, y, first_out, g * group_out, group_out);
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
    out_plane_ = axes_[0].out * axes_[1].out * axes_[2].out;
    taps_ = axes_[0].kernel * axes_[1].kernel * axes_[2].kernel;
    pointwise_ = std::all_of(axes_.begin(), axes_.end(), [](const nn::WindowAxis& a) {
      return a.kernel == 1 && a.stride == 1 && a.pad_begin == 0 && a.out == a.in;
    });
    return Status::Ok();
  }

  // A group's sums (sums_, `count` channels from oc0) requantized into y's channels from
  // first_out: per channel, its bias and one multiplier.
  void Requantize(const RunContext& ctx, Tensor& y, int64_t first_out, int64_t oc0,
                  int64_t count) const {
    const Tensor& w_scale = ctx.input(in_.w_scale);
    const float x_scale = quant::ScaleAt(ctx.input(in_.x_scale), 0);
    const float y_scale = quant::ScaleAt(ctx.input(in_.y_scale), 0);
    const int32_t zero_point = quant::IntegerAt(ctx.input(in_.y_zp), 0);
    for (int64_t i = 0; i < count; ++i) {
      const int64_t oc = oc0 + i;
      const float multiplier =
          x_scale * quant::ScaleAt(w_scale, quant::ParamIndex(w_scale, oc)) / y_scale;
      const int32_t bias = ctx.has_input(in_.bias) ? ctx.input(in_.bias).ptr<int32_t>()[oc] : 0;
      simd::RequantizeRow(sums_.ptr<int32_t>() + i * out_plane_, out_plane_, bias, &multiplier,
                          true, zero_point, y.dtype,
                          static_cast<uint8_t*>(y.data) + (first_out + i) * out_plane_);
    }
  }

  const bool requantize_;
  ConvInputs in_;
  int64_t groups_ = 1, batch_ = 0, in_channels_ = 0, out_channels_ = 0;
  std::vector<nn::WindowAxis> axes_;  // (depth, height, width)
  Shape out_shape_;
  int64_t taps_ = 1, out_plane_ = 0;
  DerivedForm w_packed_;       // the weights' int16 rows, packed once per session (constant w)
  bool pointwise_ = false;     // 1x1 taps, stride 1, no padding: no unrolling needed
  Tensor w_scratch_, panels_;  // the weights' rows packed per run otherwise; a group's panels
  Tensor columns_;             // a group's input unrolled over the taps (8-bit)
  Tensor sums_;                // QLinearConv: one group's int32 sums
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
