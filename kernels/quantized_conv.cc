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
#include "kernels/quant_conv_output.h"
#include "kernels/quant_fusion.h"
#include "kernels/quant_gemm.h"
#include "kernels/quant_params.h"
#include "kernels/registrations.h"
#include "kernels/simd/dwconv_i8.h"
#include "kernels/simd/dwconv_quads.h"
#include "kernels/simd/im2col_i8.h"
#include "kernels/simd/quantize_u8.h"

namespace webnx {
namespace {

// Output planes of more columns than this are finished in chunks of columns as the product
// computes them (RunGroup); smaller ones after it: their sums stay in cache, and chunks of the
// few columns that keep many channels' sums in the first-level cache would make the product read
// its weights again for every few columns.
constexpr int64_t kFinishByColumnsAbove = 512;

struct ConvInputs {
  int x = 0, w = 1, x_zp = 2, w_zp = 3;
  int x_scale = -1, w_scale = -1, y_scale = -1, y_zp = -1, bias = -1, bias_scale = -1;
};

// ConvInteger (int32 sums), QLinearConv (requantized), com.webnx DynamicQuantizeConv (the
// dynamically quantized chain, kernels/quant_fusion.h: x float32, W, W_scale, W_zp, bias) or
// com.webnx QDQConv (a QDQ convolution: x float32 quantized by x_scale and x_zp, or uint8
// quantized so already, W, W_scale, W_zp, a float32 bias or an int32 one and its scale, and
// y_scale and y_zp when it quantizes its output for the next: kernels/quant_fusion.h). The
// last two give float32 with a residual sum and a clamp in their epilogue; QDQConv with y_zp
// gives uint8, its clamp the attributes clip_min and clip_max.
enum class ConvMode { kInteger, kRequantize, kDynamic, kStatic };

class QuantizedConvKernel final : public Kernel {
 public:
  explicit QuantizedConvKernel(ConvMode mode) : mode_(mode) {
    if (mode == ConvMode::kRequantize) in_ = ConvInputs{0, 3, 2, 5, 1, 4, 6, 7, 8};
    if (mode == ConvMode::kDynamic) in_ = ConvInputs{0, 1, -1, 3, -1, 2, -1, -1, 4};
    if (mode == ConvMode::kStatic) in_ = ConvInputs{0, 3, 2, 5, 1, 4, 8, 9, 6, 7};
  }

  bool float_io() const { return mode_ == ConvMode::kDynamic || mode_ == ConvMode::kStatic; }

  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(mode_ == ConvMode::kRequantize ? ctx.ExpectInputs(8, 9)
                          : mode_ == ConvMode::kDynamic  ? ctx.ExpectInputs(3, 5)
                          : mode_ == ConvMode::kStatic   ? ctx.ExpectInputs(5, 10)
                                                         : ctx.ExpectInputs(2, 4));
    if (mode_ == ConvMode::kStatic) {
      WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(in_.x, {DType::kFloat32, DType::kUint8}));
    } else if (float_io()) {
      WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(in_.x, {DType::kFloat32}));
    } else {
      WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(in_.x, {DType::kUint8, DType::kInt8}));
    }
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(in_.w, {DType::kUint8, DType::kInt8}));
    WEBNX_RETURN_IF_ERROR(PlanShapes(ctx));
    WEBNX_RETURN_IF_ERROR(quant::CheckParam(ctx, in_.x_zp, 1, "x_zero_point",
                                            float_io() ? DType::kUint8 : ctx.dtype(in_.x)));
    WEBNX_RETURN_IF_ERROR(
        quant::CheckParam(ctx, in_.w_zp, out_channels_, "w_zero_point", ctx.dtype(in_.w)));
    if (mode_ == ConvMode::kRequantize) WEBNX_RETURN_IF_ERROR(PlanRequantize(ctx));
    if (float_io()) WEBNX_RETURN_IF_ERROR(PlanFloatIo(ctx));
    const DType out = mode_ == ConvMode::kInteger                           ? DType::kInt32
                      : mode_ == ConvMode::kRequantize || quantized_output_ ? ctx.dtype(in_.y_zp)
                                                                            : DType::kFloat32;
    ctx.SetOutput(0, out, out_shape_);
    return PlanScratch(ctx);
  }

  Epilogue* epilogue() override { return float_io() ? &epilogue_ : nullptr; }

  bool ProposeFusion(const FusionContext& ctx, FusedNode* fused) const override {
    if (mode_ == ConvMode::kStatic) return quant::ProposeQuantizedOutput(ctx, fused);
    return mode_ == ConvMode::kInteger && quant::ProposeDynamicConv(ctx, fused);
  }

  Status Run(RunContext& ctx) override {
    const void* w_rows = w_packed_.head.data;
    if (!w_rows && !dw_quads_) {
      std::vector<int32_t> zp_values;
      const Tensor* w_zp = ctx.has_input(in_.w_zp) ? &ctx.input(in_.w_zp) : nullptr;
      const Tensor& w = ctx.input(in_.w);
      const int64_t depth = w.numel() / std::max<int64_t>(out_channels_, 1);
      simd::PackRows(form_, w.data, w.dtype, out_channels_, depth, depth,
                     quant::ZeroPointsOf(w_zp, &zp_values), w_scratch_.data);
      w_rows = w_scratch_.data;
    }
    const Tensor& x_in = ctx.input(in_.x);
    const void* x = x_in.data;
    DType x_type = x_in.dtype;
    int32_t xz = ctx.has_input(in_.x_zp) ? quant::IntegerAt(ctx.input(in_.x_zp), 0) : 0;
    if (float_io()) {  // DynamicQuantizeLinear, or QuantizeLinear by x_scale and x_zp
      if (mode_ == ConvMode::kDynamic) {
        quant::DynamicParamsParallel(ctx, x_in.ptr<float>(), x_in.numel(), &x_scale_, &xz);
      } else {
        x_scale_ = quant::ScaleAt(ctx.input(in_.x_scale), 0);
      }
      if (x_in.dtype == DType::kFloat32) {
        quant::QuantizeU8Parallel(ctx, x_in.ptr<float>(), x_in.numel(), x_scale_, xz,
                                  x_q_.ptr<uint8_t>());
        x = x_q_.data, x_type = DType::kUint8;
      }
    }
    PrepareOutput(ctx);
    if (is_depthwise_) {
      RunDepthwise(ctx, static_cast<const uint8_t*>(x), x_type, xz,
                   static_cast<const int16_t*>(w_rows));
      return Status::Ok();
    }
    const int64_t group_in = in_channels_ / groups_;
    for (int64_t n = 0; n < batch_; ++n) {
      for (int64_t g = 0; g < groups_; ++g) {
        PackColumns(ctx,
                    static_cast<const uint8_t*>(x) + (n * in_channels_ + g * group_in) * in_plane_,
                    x_type, xz);
        RunGroup(ctx, n, g, w_rows);
      }
    }
    return Status::Ok();
  }

 private:
  // Group g of batch n, its input packed into panels_: the product and its output stage. Large
  // planes are finished a chunk of columns at a time as the product computes them, from each
  // thread's scratch while in cache; small ones (whose sums stay in cache anyway) after it.
  void RunGroup(RunContext& ctx, int64_t n, int64_t g, const void* w_rows) {
    const int64_t group_out = out_channels_ / groups_, depth = in_channels_ / groups_ * taps_;
    const int64_t first_out = n * out_channels_ + g * group_out;
    const void* rows =
        static_cast<const uint8_t*>(w_rows) + g * group_out * simd::RowStrideBytes(form_, depth);
    if (mode_ != ConvMode::kInteger && FinishesByChunks()) {
#if WEBNX_HAS_DOT_I8
      simd::QuadsRequantize requantize;
      if (form_ == simd::I8Form::kQuads && simd::QuadDepth(depth) <= simd::kQuadsDepthBlock &&
          output_.RequantizesInTiles(out_plane_, first_out, g * group_out, &ctx.output(0),
                                     &requantize)) {
        quant::RunGemmRequantized(ctx, group_out, depth, rows, panels_.data, out_plane_,
                                  requantize);
        return;
      }
#endif
      auto finish = [&](int64_t begin, int64_t end, const int32_t* sums, int64_t ld) {
        output_.Write(sums, ld, out_plane_, first_out, g * group_out, group_out, {begin, end},
                      &ctx.output(0));
      };
      quant::RunGemmByChunks(ctx, form_, group_out, depth, rows, panels_.data, out_plane_,
                             sums_.ptr<int32_t>(), finish);
      return;
    }
    int32_t* sums = mode_ == ConvMode::kInteger
                        ? ctx.output(0).ptr<int32_t>() + first_out * out_plane_
                        : sums_.ptr<int32_t>();
    quant::RunGemm(ctx, form_, group_out, depth, rows, panels_.data, out_plane_, sums, out_plane_);
    if (mode_ == ConvMode::kInteger) return;
    quant::ForEachChannel(ctx, group_out, [&](int64_t i, int) {
      Finish(ctx, sums + i * out_plane_, first_out + i, g * group_out + i, 1);
    });
  }

  bool FinishesByChunks() const {
    return out_plane_ > kFinishByColumnsAbove;
  }

  Status PlanRequantize(PlanContext& ctx) {
    WEBNX_RETURN_IF_ERROR(quant::CheckParam(ctx, in_.x_scale, 1, "x_scale", DType::kUndefined));
    WEBNX_RETURN_IF_ERROR(
        quant::CheckParam(ctx, in_.w_scale, out_channels_, "w_scale", DType::kUndefined));
    WEBNX_RETURN_IF_ERROR(quant::CheckParam(ctx, in_.y_scale, 1, "y_scale", DType::kUndefined));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(in_.y_zp, {DType::kUint8, DType::kInt8}));
    WEBNX_RETURN_IF_ERROR(quant::CheckParam(ctx, in_.y_zp, 1, "y_zero_point", ctx.dtype(in_.y_zp)));
    if (!ctx.has_input(in_.bias)) return Status::Ok();
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(in_.bias, {DType::kInt32}));
    if (ctx.shape(in_.bias) != Shape{out_channels_}) {
      return ctx.Error(ErrorCode::kShapeMismatch, "B must hold one int32 per output channel");
    }
    return Status::Ok();
  }

  // The float32 modes' scales and bias: one value or one per output channel (any shape holding
  // them); QDQConv's bias may be int32 with a scale (DequantizeLinear's).
  Status PlanFloatIo(PlanContext& ctx) {
    if (mode_ == ConvMode::kStatic) {
      WEBNX_RETURN_IF_ERROR(quant::CheckParam(ctx, in_.x_scale, 1, "x_scale", DType::kUndefined));
    }
    const bool int_bias = ctx.has_input(in_.bias_scale);
    for (int input : {in_.w_scale, in_.bias, in_.bias_scale}) {
      if (!ctx.has_input(input)) continue;
      const bool is_int = input == in_.bias && int_bias;
      WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(input, {is_int ? DType::kInt32 : DType::kFloat32}));
      const int64_t n = nn::DimProduct(ctx.shape(input), 0, ctx.shape(input).size());
      if (n != 1 && n != out_channels_) {
        return ctx.Error(
            ErrorCode::kShapeMismatch,
            ctx.node().inputs[input] + " must hold one value or one per output channel");
      }
    }
    epilogue_ = Epilogue();
    quantized_output_ = ctx.has_input(in_.y_zp);
    if (quantized_output_) {  // the clamp before the quantization is the node's own
      WEBNX_RETURN_IF_ERROR(quant::CheckParam(ctx, in_.y_scale, 1, "y_scale", DType::kUndefined));
      WEBNX_RETURN_IF_ERROR(quant::CheckParam(ctx, in_.y_zp, 1, "y_zero_point", DType::kUint8));
      epilogue_.clamp_lo = ctx.attrs().Float("clip_min", -INFINITY);
      epilogue_.clamp_hi = ctx.attrs().Float("clip_max", INFINITY);
      WEBNX_RETURN_IF_ERROR(ctx.attrs().status());
    } else {
      epilogue_.accepts_addend = true;
      epilogue_.addend_input = mode_ == ConvMode::kStatic ? 10 : 5;  // after the node's inputs
      epilogue_.accepts_clamp = true;
    }
    const int64_t x_count = nn::DimProduct(ctx.shape(in_.x), 0, ctx.shape(in_.x).size());
    return Tensor::AllocateUninitialized(
        DType::kUint8, {ctx.dtype(in_.x) == DType::kFloat32 ? x_count : 0}, &x_q_);
  }

  Status PlanScratch(const PlanContext& ctx) {
    output_.Size(out_channels_);
    const int64_t depth = ctx.shape(in_.w)[1] * taps_;  // K of each group's product
    // The GEMM takes the engine's fastest form; the depthwise loop on int16 pairs reads the
    // weights packed so, the one on the relaxed dot reads them as they are.
    dw_quads_ = is_depthwise_ && simd::FastestForm() == simd::I8Form::kQuads &&
                simd::DepthwiseQuadsFits(axes_[1], axes_[2]);
    form_ = is_depthwise_ ? simd::I8Form::kPairs : simd::FastestForm();
    const quant::PackedOperand w_layout{form_, false, 1, out_channels_, depth};
    if (dw_quads_) {
      w_packed_ = DerivedForm();
    } else if (ctx.constant(in_.w) && (!ctx.has_input(in_.w_zp) || ctx.constant(in_.w_zp))) {
      WEBNX_RETURN_IF_ERROR(quant::PackConstantOperand(ctx, in_.w, in_.w_zp, w_layout, &w_packed_));
    } else {
      w_packed_ = DerivedForm();
      WEBNX_RETURN_IF_ERROR(
          Tensor::AllocateUninitialized(DType::kUint8, {w_layout.PackedBytes()}, &w_scratch_));
    }
    if (is_depthwise_) {
      depthwise_ = simd::MakeDepthwiseI8Shape(axes_[1], axes_[2]);
      dw_quads_shape_ = simd::MakeDepthwiseQuadsShape(axes_[1], axes_[2]);
      const int64_t bytes = dw_quads_ ? dw_quads_shape_.PlaneBytes()
                                      : 2 * (depthwise_.RowsScratch() + depthwise_.PairsSize());
      WEBNX_RETURN_IF_ERROR(
          Tensor::AllocateUninitialized(DType::kUint8, {ctx.threads() * bytes}, &dw_scratch_));
      return Tensor::AllocateUninitialized(DType::kInt32, {ctx.threads() * out_plane_}, &dw_sums_);
    }
    WEBNX_RETURN_IF_ERROR(Tensor::AllocateUninitialized(
        DType::kUint8, {simd::PanelsBytes(form_, depth, out_plane_)}, &panels_));
    WEBNX_RETURN_IF_ERROR(Tensor::AllocateUninitialized(
        DType::kUint8, {pointwise_ ? 0 : depth * out_plane_}, &columns_));
    const int64_t group_out = out_channels_ / groups_;
    const int64_t sums = mode_ == ConvMode::kInteger ? 0
                         : FinishesByChunks() ? ctx.threads() * quant::ChunkScratchInts(group_out)
                                              : group_out * out_plane_;
    return Tensor::AllocateUninitialized(DType::kInt32, {sums}, &sums_);
  }

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
    in_plane_ = axes_[0].in * axes_[1].in * axes_[2].in;
    taps_ = axes_[0].kernel * axes_[1].kernel * axes_[2].kernel;
    is_depthwise_ = groups_ == in_channels_ && groups_ == out_channels_ && axes_[0].kernel == 1 &&
                    axes_[0].in == 1 && taps_ <= simd::kMaxDepthwiseI8Taps;
    pointwise_ = std::all_of(axes_.begin(), axes_.end(), [](const nn::WindowAxis& a) {
      return a.kernel == 1 && a.stride == 1 && a.pad_begin == 0 && a.out == a.in;
    });
    return Status::Ok();
  }

  // The sums of `count` channels from oc0 (output channels from first_out), planes whole, into
  // the output, as the mode wants them (ConvInteger's sums are the output already).
  void Finish(RunContext& ctx, const int32_t* sums, int64_t first_out, int64_t oc0,
              int64_t count) const {
    if (mode_ == ConvMode::kInteger) return;
    output_.Write(sums, out_plane_, out_plane_, first_out, oc0, count, {0, out_plane_},
                  &ctx.output(0));
  }

  // Depthwise: each channel on its own (kernels/simd/dwconv_i8.h), channels split among threads.
  void RunDepthwise(RunContext& ctx, const uint8_t* x, DType x_type, int32_t xz,
                    const int16_t* w_rows) {
    if (dw_quads_) return RunDepthwiseOnDot(ctx, x, x_type, xz);
    const int64_t kp = simd::PairedDepth(taps_), rows = depthwise_.RowsScratch();
    const int64_t scratch = rows + depthwise_.PairsSize();
    quant::ForEachChannel(ctx, batch_ * out_channels_, [&](int64_t task, int slot) {
      int16_t* row_scratch = dw_scratch_.ptr<int16_t>() + slot * scratch;
      int16_t* pairs = row_scratch + rows;
      int32_t* sums = dw_sums_.ptr<int32_t>() + slot * out_plane_;
      const int64_t c = task % out_channels_;
      if (mode_ == ConvMode::kInteger) sums = ctx.output(0).ptr<int32_t>() + task * out_plane_;
      simd::FillPairedPlanes(depthwise_, x + task * in_plane_, x_type, xz, row_scratch, pairs);
      simd::DepthwiseI16(depthwise_, pairs, w_rows + c * kp, sums);
      Finish(ctx, sums, task, c, 1);
    });
  }

  // The same on the relaxed dot (kernels/simd/dwconv_quads.h), reading the weights as they are
  // (dw_quads_ is only set in builds that have the dot).
  void RunDepthwiseOnDot(RunContext& ctx, const uint8_t* x, DType x_type, int32_t xz) {
#if WEBNX_HAS_DOT_I8
    const Tensor& w = ctx.input(in_.w);
    std::vector<int32_t> zp_values;
    const simd::ZeroPoints w_zp =
        quant::ZeroPointsOf(ctx.has_input(in_.w_zp) ? &ctx.input(in_.w_zp) : nullptr, &zp_values);
    const bool unsigned_x = simd::EngineDot() == simd::DotKind::kUnsignedSecond;
    quant::ForEachChannel(ctx, batch_ * out_channels_, [&](int64_t task, int slot) {
      int32_t* sums = dw_sums_.ptr<int32_t>() + slot * out_plane_;
      const int64_t c = task % out_channels_;
      if (mode_ == ConvMode::kInteger) sums = ctx.output(0).ptr<int32_t>() + task * out_plane_;
      uint8_t* padded = dw_scratch_.ptr<uint8_t>() + slot * dw_quads_shape_.PlaneBytes();
      simd::DepthwiseQuads(dw_quads_shape_, x + task * in_plane_, x_type, xz,
                           w.ptr<uint8_t>() + c * taps_, w.dtype, w_zp.at(c), unsigned_x, padded,
                           sums);
      Finish(ctx, sums, task, c, 1);
    });
#endif
  }

  // One group's input (`channels` planes from x) as the GEMM's panels.
  void PackColumns(const RunContext& ctx, const uint8_t* x, DType dtype, int32_t zero_point) {
    const int64_t group_in = in_channels_ / groups_;
    if (pointwise_) {  // the input planes are the columns operand's rows
      quant::PackPanelsParallel(ctx, form_, x, dtype, group_in, out_plane_, in_plane_,
                                {nullptr, zero_point}, panels_.data);
      return;
    }
    quant::ForEachChannel(ctx, group_in, [&](int64_t c, int) {  // a channel's rows of taps
      simd::Im2ColBytes(x + c * in_plane_, 1, axes_.data(), static_cast<uint8_t>(zero_point),
                        columns_.ptr<uint8_t>() + c * taps_ * out_plane_);
    });
    quant::PackPanelsParallel(ctx, form_, columns_.ptr<uint8_t>(), dtype, group_in * taps_,
                              out_plane_, out_plane_, {nullptr, zero_point}, panels_.data);
  }

  // This run's factors of the output stage (kernels/quant_conv_output.h).
  void PrepareOutput(RunContext& ctx) {
    auto optional = [&](int input) { return ctx.has_input(input) ? &ctx.input(input) : nullptr; };
    if (mode_ == ConvMode::kRequantize) {
      output_.PrepareRequantize(ctx.input(in_.x_scale), ctx.input(in_.w_scale),
                                ctx.input(in_.y_scale), ctx.input(in_.y_zp), optional(in_.bias));
    }
    if (!float_io()) return;
    const bool quantize = quantized_output_;
    output_.PrepareDequantize(
        {x_scale_, &ctx.input(in_.w_scale), optional(in_.bias), optional(in_.bias_scale),
         epilogue_.has_addend ? ctx.input(epilogue_.addend_input).ptr<float>() : nullptr,
         epilogue_.HasClamp(), epilogue_.clamp_lo, epilogue_.clamp_hi,
         quantize ? &ctx.input(in_.y_scale) : nullptr, quantize ? &ctx.input(in_.y_zp) : nullptr});
  }

  const ConvMode mode_;
  ConvInputs in_;
  int64_t groups_ = 1, batch_ = 0, in_channels_ = 0, out_channels_ = 0;
  std::vector<nn::WindowAxis> axes_;  // (depth, height, width)
  Shape out_shape_;
  int64_t taps_ = 1, out_plane_ = 0, in_plane_ = 0;
  simd::I8Form form_ = simd::I8Form::kPairs;  // how the GEMM's operands are packed
  DerivedForm w_packed_;       // the weights' packed rows, once per session (constant w)
  bool pointwise_ = false;     // 1x1 taps, stride 1, no padding: no unrolling needed
  Tensor w_scratch_, panels_;  // the weights' rows packed per run otherwise; a group's panels
  Tensor columns_;             // a group's input unrolled over the taps (8-bit)
  Tensor sums_;                // QLinearConv, dynamic: one group's int32 sums
  Tensor x_q_;                 // dynamic: the input quantized
  bool is_depthwise_ = false;  // one input channel per output channel, 1-D or 2-D
  simd::DepthwiseI8Shape depthwise_;
  bool dw_quads_ = false;  // depthwise on the relaxed dot (kernels/simd/dwconv_quads.h)
  simd::DepthwiseQuadsShape dw_quads_shape_;
  Tensor dw_scratch_, dw_sums_;    // per thread: a channel's phase planes and sums
  float x_scale_ = 1.f;            // dynamic: its scale, this run's
  quant::ConvOutput output_;       // the sums into the output, this run's factors
  bool quantized_output_ = false;  // QDQConv with y_scale and y_zp: uint8 out
  Epilogue epilogue_;
};

}  // namespace

void RegisterQuantizedConvKernels(OpRegistry& r) {
  r.Register("", "ConvInteger", {{10}, Inputs(2, 4), Outputs(1)},
             []() -> Kernel* { return new QuantizedConvKernel(ConvMode::kInteger); });
  r.Register("", "QLinearConv", {{10}, Inputs(8, 9), Outputs(1)},
             []() -> Kernel* { return new QuantizedConvKernel(ConvMode::kRequantize); });
  r.Register("com.webnx", "DynamicQuantizeConv", {{1}, Inputs(3, 5), Outputs(1)},
             []() -> Kernel* { return new QuantizedConvKernel(ConvMode::kDynamic); });
  r.Register("com.webnx", "QDQConv", {{1}, Inputs(5, 10), Outputs(1)},
             []() -> Kernel* { return new QuantizedConvKernel(ConvMode::kStatic); });
}

}  // namespace webnx
