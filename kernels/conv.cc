// Conv over 1-3 spatial dims (NCW, NCHW, NCDHW). The scalar paths (kernels/conv_reference.cc):
//  - one input channel per group (depthwise, or a single-channel input): direct accumulation of
//    each kernel tap into output rows;
//  - 1x1, stride 1, no padding: the input already is the GEMM's right-hand matrix;
//  - otherwise im2col into a scratch buffer, a band of output rows at a time, then GEMM.
// 1-D and 2-D inputs run through the 3-D loops with leading unit axes.
// With constant weights (every real model) the GEMM paths use the SIMD microkernel on weights
// packed at plan time (conv_gemm.cc, conv_winograd.cc), and 2-D depthwise convs the SIMD
// depthwise kernel (conv_depthwise.cc); bias, a residual sum, a clamp (Relu, Clip) and an
// activation (Sigmoid, HardSigmoid, or x times one of them: SiLU, hard-swish) fused by the
// planner are applied in their epilogues. The scalar paths remain the reference.
// Each way is its own class (kernels/conv_strategy.h), chosen when the conv is planned
// (conv::ChooseStrategy); ConvKernel checks the node, describes the conv (kernels/conv_shape.h)
// and takes the fusions the planner offers.
#include <algorithm>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "core/separate_function.h"
#include "kernels/conv_shape.h"
#include "kernels/conv_strategy.h"
#include "kernels/conv_weight_forms.h"
#include "kernels/epilogue_function.h"
#include "kernels/nn_common.h"
#include "kernels/quant_fusion.h"
#include "kernels/registrations.h"

namespace webnx {
namespace {

using conv::ConvShape;

// Runs whichever strategy was chosen.
struct RunStrategy {
  const RunContext& ctx;
  const conv::RunArgs& args;
  void operator()(std::monostate) const {}
  template <typename S>
  void operator()(S& strategy) const {
    strategy.Run(ctx, args);
  }
};

class ConvKernel : public Kernel {
 public:
  WEBNX_PLAN_TIME Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(2, 3));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(0, {DType::kFloat32}));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(1, {DType::kFloat32}));
    ConvShape& s = shape_;
    s.has_bias = ctx.has_input(2);
    if (s.has_bias) WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(2, {DType::kFloat32}));
    WEBNX_RETURN_IF_ERROR(PlanChannels(ctx));

    const Shape& x = ctx.shape(0);
    const Shape& w = ctx.shape(1);
    const size_t spatial_rank = x.size() - 2;
    nn::WindowOptions options;
    options.inferred_kernel.assign(w.begin() + 2, w.end());
    nn::WindowAttrs window;
    WEBNX_RETURN_IF_ERROR(nn::ReadWindowAttrs(ctx, spatial_rank, options, &window));
    if (window.kernel != options.inferred_kernel) {
      return ctx.Error(ErrorCode::kShapeMismatch,
                       "attribute 'kernel_shape' " + nn::IntsToString(window.kernel) +
                           " does not match the spatial dims of W " + ShapeToString(w));
    }
    std::vector<nn::WindowAxis> axes;
    WEBNX_RETURN_IF_ERROR(nn::ComputeWindowAxes(ctx, Shape(x.begin() + 2, x.end()), window, &axes));
    Shape out = {x[0], s.out_channels};
    for (const nn::WindowAxis& a : axes) out.push_back(a.out);
    WEBNX_RETURN_IF_ERROR(nn::CheckNumel(ctx, out, "output"));
    ctx.SetOutput(0, DType::kFloat32, out);

    // From here on sizes are bounded by tensors that really exist: a non-empty output means
    // N, M and every output dim are positive, and a non-empty W bounds the kernel.
    strategy_ = std::monostate();
    s.epilogue = Epilogue();
    s.epilogue.accepts_clamp = true;  // every strategy clamps
    s.epilogue.addend_input = kAddendInput;
    s.skip_run = nn::DimProduct(out, 0, out.size()) == 0;
    if (s.skip_run) return Status::Ok();
    s.axes = nn::PadAxesFront(axes, conv::kMaxSpatialRank);
    s.batch = x[0];
    s.out_plane = nn::DimProduct(out, 2, out.size());
    const bool no_input = s.group_in == 0;  // the output is the bias
    s.in_plane = no_input ? 0 : nn::DimProduct(x, 2, x.size());
    s.kernel_size = no_input ? 0 : nn::DimProduct(w, 2, w.size());
    WEBNX_RETURN_IF_ERROR(conv::ChooseStrategy(ctx, s, &strategy_));
    // The GEMM paths (and the few-outputs rows) add a residual; they and the depthwise path
    // apply a function.
    const bool gemm = std::holds_alternative<conv::PackedGemm>(strategy_) ||
                      std::holds_alternative<conv::FewOutputs>(strategy_);
    s.epilogue.accepts_addend = gemm || std::holds_alternative<conv::Winograd>(strategy_);
    s.epilogue.accepts_function = gemm || std::holds_alternative<conv::Depthwise>(strategy_);
    return Status::Ok();
  }

  void DeclareForms(FormContext& ctx, std::vector<ConstantForm>* forms) const override {
    conv_forms::Declare(ctx, forms);
  }

  // Output channel m is W[m] * X + B[m]: a channel affine after it folds into W and B.
  bool AbsorbsChannelAffine(FormContext& ctx, AffineAbsorber* absorber) const override {
    const Tensor* w = ctx.constant(1);
    if (ctx.node().inputs.size() < 2 || !w || w->shape.size() < 3) return false;
    absorber->weight_input = 1;
    absorber->bias_input = 2;
    return true;
  }

  const void* ClassTag() const override {
    static const char tag = 0;
    return &tag;
  }

  // Once a depthwise conv is fused in, what comes after is that conv's epilogue.
  Epilogue* epilogue() override { return fused_dw_ ? fused_dw_->epilogue() : &shape_.epilogue; }

  // A depthwise conv reading this pointwise one's output (MobileNet's expand, then depthwise):
  // both run per block of four channels, the GEMM writing straight into the depthwise kernel's
  // interleaved, zero-padded input. The wide intermediate is never stored and never
  // interleaved by a pass of its own.
  // A QDQ convolution (DequantizeLinear around input and weights) runs in int8.
  bool ProposeFusion(const FusionContext& ctx, FusedNode* fused) const override {
    return quant::ProposeQdqConv(ctx, fused);
  }

  bool FuseConsumer(std::unique_ptr<Kernel>& consumer) override {
    const ConvShape& s = shape_;
    auto* consumer_conv =
        consumer->ClassTag() == ClassTag() ? static_cast<ConvKernel*>(consumer.get()) : nullptr;
    const auto* gemm = std::get_if<conv::PackedGemm>(&strategy_);
    if (!consumer_conv || fused_dw_ || !gemm || !gemm->pointwise() || s.groups != 1 ||
        s.epilogue.has_addend || s.skip_run) {
      return false;
    }
    conv::Depthwise* dw =
        consumer_conv->InterleavedInputReader(s.batch, s.out_channels, s.out_plane);
    if (!dw) return false;
    conv::PlannedBuffers buffers;
    if (!conv::PointwiseDepthwise::PlanBuffers(s, gemm->packed(), &buffers).ok()) return false;
    // The GEMM's column panels go with it: the fused run packs its tail columns itself.
    strategy_.emplace<conv::PointwiseDepthwise>(s, std::move(buffers), *dw);
    fused_dw_.reset(consumer_conv);
    consumer.release();
    return true;
  }

  Status Run(RunContext& ctx) override {
    const ConvShape& s = shape_;
    const float* x = ctx.input(0).ptr<float>();
    const float* w = ctx.input(1).ptr<float>();
    const float* bias = s.has_bias ? ctx.input(2).ptr<float>() : nullptr;
    float* y = ctx.output(0).ptr<float>();
    if (s.skip_run) return Status::Ok();
    const float* addend = s.epilogue.has_addend ? ctx.input(kAddendInput).ptr<float>() : nullptr;
    // The SIMD strategies read the bias copied when planned (ChooseStrategy), if there is one.
    const conv::RunArgs args{x, w, s.bias.empty() ? bias : s.bias.data(), addend, y};
    std::visit(RunStrategy{ctx, args}, strategy_);
    return Status::Ok();
  }

  // This conv's depthwise strategy when it can read its input interleaved by a producer
  // (conv::Depthwise::TakesInterleavedInput), else null.
  conv::Depthwise* InterleavedInputReader(int64_t batch, int64_t channels, int64_t plane) {
    auto* dw = std::get_if<conv::Depthwise>(&strategy_);
    return dw && dw->TakesInterleavedInput(batch, channels, plane) ? dw : nullptr;
  }

 private:
  // Checks X [N, C, ...], W [M, C/group, k...], B [M] and the group count.
  Status PlanChannels(PlanContext& ctx) {
    ConvShape& s = shape_;
    const Shape& x = ctx.shape(0);
    const Shape& w = ctx.shape(1);
    if (x.size() < 3) {
      return ctx.Error(ErrorCode::kShapeMismatch,
                       "input X " + ShapeToString(x) + " must have rank >= 3 (N, C, spatial...)");
    }
    if (x.size() > 2 + conv::kMaxSpatialRank) {
      return ctx.Error(ErrorCode::kUnsupportedOperator,
                       "only 1-3 spatial dims are supported, X is " + ShapeToString(x));
    }
    if (w.size() != x.size()) {
      return ctx.Error(
          ErrorCode::kShapeMismatch,
          "weight W " + ShapeToString(w) + " must have the rank of X " + ShapeToString(x));
    }
    s.groups = ctx.attrs().Int("group", 1);
    WEBNX_RETURN_IF_ERROR(ctx.attrs().status());
    s.in_channels = x[1];
    s.out_channels = w[0];
    if (s.groups < 1) {  // an attribute out of range, whatever the shapes
      return ctx.Error(ErrorCode::kMalformedModel,
                       "attribute 'group' = " + std::to_string(s.groups) + " must be >= 1");
    }
    if (s.in_channels % s.groups != 0 || s.out_channels % s.groups != 0) {
      return ctx.Error(ErrorCode::kShapeMismatch,
                       "attribute 'group' = " + std::to_string(s.groups) +
                           " must be >= 1 and divide the input channels (" +
                           std::to_string(s.in_channels) + ") and output channels (" +
                           std::to_string(s.out_channels) + ")");
    }
    s.group_in = s.in_channels / s.groups;
    s.group_out = s.out_channels / s.groups;
    if (w[1] != s.group_in) {
      return ctx.Error(ErrorCode::kShapeMismatch,
                       "weight W " + ShapeToString(w) + " should have " +
                           std::to_string(s.group_in) + " input channels per group (X has " +
                           std::to_string(s.in_channels) + " channels, group " +
                           std::to_string(s.groups) + ")");
    }
    int64_t kernel_numel = 0;
    if (!ShapeNumel(Shape(w.begin() + 2, w.end()), &kernel_numel)) {
      return ctx.Error(ErrorCode::kShapeMismatch, "weight W " + ShapeToString(w) + " is invalid");
    }
    if (s.has_bias && (ctx.shape(2).size() != 1 || ctx.shape(2)[0] != s.out_channels)) {
      return ctx.Error(ErrorCode::kShapeMismatch, "bias B " + ShapeToString(ctx.shape(2)) +
                                                      " should be [" +
                                                      std::to_string(s.out_channels) + "]");
    }
    return Status::Ok();
  }

  static constexpr int kAddendInput = 3;  // after X, W, B
  ConvShape shape_;
  std::unique_ptr<ConvKernel> fused_dw_;  // a depthwise conv reading the output (FuseConsumer)
  conv::Strategy strategy_;
};

}  // namespace

void RegisterConvKernels(OpRegistry& r) {
  r.Register("", "Conv", {{1, 11, 22}, Inputs(2, 3), Outputs(1)}, MakeKernel<ConvKernel>);
}

}  // namespace webnx
