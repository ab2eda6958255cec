// Conv over 1-3 spatial dims (NCW, NCHW, NCDHW). Three strategies:
//  - one input channel per group (depthwise, or a single-channel input): direct accumulation of
//    each kernel tap into output rows;
//  - 1x1, stride 1, no padding: the input already is the GEMM's right-hand matrix;
//  - otherwise im2col into a scratch buffer, a band of output rows at a time, then GEMM.
// 1-D and 2-D inputs run through the 3-D loops with leading unit axes.
// With constant weights (every real model) the GEMM paths use the SIMD microkernel on weights
// packed here at plan time, and 2-D depthwise convs the SIMD depthwise kernel; bias, a residual
// sum, a clamp (Relu, Clip) and an activation (Sigmoid, HardSigmoid, or x times one of them:
// SiLU, hard-swish) fused by the planner are applied in their epilogues. The scalar paths remain
// the reference.
#include <algorithm>
#include <climits>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "core/separate_function.h"
#include "kernels/conv_weight_forms.h"
#include "kernels/epilogue_function.h"
#include "kernels/gemm_ref.h"
#include "kernels/nn_common.h"
#include "kernels/registrations.h"
#include "kernels/simd/dwconv.h"
#include "kernels/simd/dwconv4.h"
#include "kernels/simd/gemm.h"
#include "kernels/simd/im2col.h"
#include "kernels/simd/winograd.h"

namespace webnx {
namespace {

constexpr size_t kMaxSpatialRank = 3;
// im2col works on bands of output rows whose column matrix stays near this size (1 MiB).
constexpr int64_t kColBudgetFloats = int64_t{1} << 18;
// The session's name for a depthwise W packed four channels at a time (Depthwise4PackWeights);
// the GEMM paths' forms are in kernels/conv_weight_forms.h.
constexpr char kDepthwise4Weights[] = "conv-depthwise4";

// Floor division for a positive divisor and any sign of numerator.
int64_t FloorDiv(int64_t a, int64_t b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}
int64_t CeilDiv(int64_t a, int64_t b) {
  return -FloorDiv(-a, b);
}

// For each tap kw of the innermost axis, the outputs [lo, hi) whose input lies inside [0, in).
struct TapSpan {
  int64_t offset = 0;  // input index = o * stride + offset
  int64_t lo = 0, hi = 0;
};

std::vector<TapSpan> InnerTapSpans(const nn::WindowAxis& axis) {
  std::vector<TapSpan> spans(axis.kernel);
  for (int64_t k = 0; k < axis.kernel; ++k) {
    TapSpan& s = spans[k];
    s.offset = k * axis.dilation - axis.pad_begin;
    s.lo = std::clamp<int64_t>(CeilDiv(-s.offset, axis.stride), 0, axis.out);
    s.hi = std::clamp<int64_t>(CeilDiv(axis.in - s.offset, axis.stride), s.lo, axis.out);
  }
  return spans;
}

enum class ConvPath { kBiasOnly, kDirect, kPointwise, kIm2Col };

class ConvKernel : public Kernel {
 public:
  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(2, 3));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(0, {DType::kFloat32}));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(1, {DType::kFloat32}));
    has_bias_ = ctx.has_input(2);
    if (has_bias_) WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(2, {DType::kFloat32}));
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
    Shape out = {x[0], out_channels_};
    for (const nn::WindowAxis& a : axes) out.push_back(a.out);
    WEBNX_RETURN_IF_ERROR(nn::CheckNumel(ctx, out, "output"));
    ctx.SetOutput(0, DType::kFloat32, out);

    // From here on sizes are bounded by tensors that really exist: a non-empty output means
    // N, M and every output dim are positive, and a non-empty W bounds the kernel.
    col_ = Tensor();
    inner_spans_.clear();
    skip_run_ = nn::DimProduct(out, 0, out.size()) == 0;
    if (skip_run_) return Status::Ok();
    axes_ = nn::PadAxesFront(axes, kMaxSpatialRank);
    batch_ = x[0];
    out_plane_ = nn::DimProduct(out, 2, out.size());
    if (group_in_ == 0) {
      path_ = ConvPath::kBiasOnly;  // no input channels: the output is the bias
      in_plane_ = kernel_size_ = 0;
      return Status::Ok();
    }
    in_plane_ = nn::DimProduct(x, 2, x.size());
    kernel_size_ = nn::DimProduct(w, 2, w.size());
    inner_spans_ = InnerTapSpans(axes_[2]);
    WEBNX_RETURN_IF_ERROR(PlanPath(ctx));
    return PlanSimd(ctx);
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

  // The GEMM paths add a residual in their epilogue, before any clamp fused after it.
  int FuseAddend() override {
    if (fused_dw_) return -1;
    const bool gemm = path_ == ConvPath::kPointwise || path_ == ConvPath::kIm2Col;
    if (!simd_ || !gemm || has_addend_ || clamp_lo_ > -INFINITY || clamp_hi_ < INFINITY ||
        HasActivation()) {
      return -1;
    }
    has_addend_ = true;
    return kAddendInput;
  }

  bool FuseClamp(float lo, float hi) override {
    if (fused_dw_) return fused_dw_->FuseClamp(lo, hi);
    if (HasActivation()) return false;  // the clamp would have to come after it
    clamp_lo_ = std::max(clamp_lo_, lo);
    clamp_hi_ = std::min(clamp_hi_, hi);
    return true;
  }

  // The SIMD GEMM and depthwise paths apply Sigmoid / HardSigmoid (gated or not) last.
  bool FuseFunction(const EpilogueFunction& f) override {
    if (fused_dw_) return fused_dw_->FuseFunction(f);
    const simd::Activation a = ActivationOf(f);
    const bool known =
        a.kind == simd::ActivationKind::kSigmoid || a.kind == simd::ActivationKind::kHardSigmoid;
    if (!simd_ || winograd_ || !known || HasActivation()) return false;
    activation_ = a;
    return true;
  }

  // A depthwise conv reading this pointwise one's output (MobileNet's expand, then depthwise):
  // both run per block of four channels, the GEMM writing straight into the depthwise kernel's
  // interleaved, zero-padded input. The wide intermediate is never stored and never
  // interleaved by a pass of its own.
  bool FuseConsumer(std::unique_ptr<Kernel>& consumer) override {
    auto* dw = dynamic_cast<ConvKernel*>(consumer.get());
    if (!dw || fused_dw_ || !simd_ || path_ != ConvPath::kPointwise || groups_ != 1 ||
        has_addend_ || skip_run_ || !dw->TakesInterleavedInput(batch_, out_channels_, out_plane_)) {
      return false;
    }
    const int64_t tail = out_plane_ % simd::kGemmNr ? group_in_ * simd::kGemmNr : 0;
    if (!Tensor::AllocateUninitialized(DType::kFloat32, {batch_ * tail}, &tail_panels_).ok())
      return false;
    rhs_panels_ = Tensor();  // the fused run packs its tail columns into tail_panels_
    fused_dw_.reset(dw);
    consumer.release();
    return true;
  }

  Status Run(RunContext& ctx) override {
    const float* x = ctx.input(0).ptr<float>();
    const float* w = ctx.input(1).ptr<float>();
    const float* bias = has_bias_ ? ctx.input(2).ptr<float>() : nullptr;
    float* y = ctx.output(0).ptr<float>();
    if (skip_run_) return Status::Ok();
    if (simd_) {
      if (fused_dw_) {
        RunWithDepthwise(ctx, x, bias_.empty() ? bias : bias_.data(), y);
        return Status::Ok();
      }
      const float* addend = has_addend_ ? ctx.input(kAddendInput).ptr<float>() : nullptr;
      RunSimd(ctx, x, bias_.empty() ? bias : bias_.data(), addend, y);
      return Status::Ok();
    }
    RunReference(x, w, bias, y);
    return Status::Ok();
  }

 private:
  bool HasActivation() const { return activation_.kind != simd::ActivationKind::kNone; }

  // The scalar paths: any rank, runtime weights, and the reference the SIMD ones are tested
  // against.
  WEBNX_SEPARATE_FUNCTION void RunReference(const float* x, const float* w, const float* bias,
                                            float* y) {
    for (int64_t n = 0; n < batch_; ++n) {
      for (int64_t g = 0; g < groups_; ++g) {
        const float* xg = x + (n * in_channels_ + g * group_in_) * in_plane_;
        const float* wg = w + g * group_out_ * group_in_ * kernel_size_;
        float* yg = y + (n * out_channels_ + g * group_out_) * out_plane_;
        for (int64_t m = 0; m < group_out_; ++m) {
          const float init = bias ? bias[g * group_out_ + m] : 0.f;
          std::fill(yg + m * out_plane_, yg + (m + 1) * out_plane_, init);
        }
        switch (path_) {
          case ConvPath::kBiasOnly:
            break;
          case ConvPath::kDirect:
            RunDirect(xg, wg, yg);
            break;
          case ConvPath::kPointwise:
            GemmRef(false, false, group_out_, out_plane_, group_in_, 1.f, wg, group_in_, xg,
                    out_plane_, 1.f, yg, out_plane_);
            break;
          case ConvPath::kIm2Col:
            RunIm2Col(xg, wg, yg);
            break;
        }
      }
    }
    if (clamp_lo_ > -INFINITY || clamp_hi_ < INFINITY) {
      const int64_t total = batch_ * out_channels_ * out_plane_;
      for (int64_t i = 0; i < total; ++i) y[i] = std::min(std::max(y[i], clamp_lo_), clamp_hi_);
    }
  }

  // Chooses the SIMD path for 2-D convs with constant weights: packs each group's weights as
  // the GEMM's left matrix, or keeps them for the depthwise kernel.
  Status PlanSimd(PlanContext& ctx) {
    simd_ = false;
    winograd_ = false;
    packed_ = Tensor();
    winograd_tail_ = Tensor();
    bias_.clear();
    // W replaced by its declared form (conv_forms::Declare): its values are gone.
    const bool replaced = ctx.is_constant(1) && !ctx.constant(1);
    const bool two_d = axes_[0].kernel == 1 && axes_[0].out == 1 && axes_[0].in == 1;
    const bool fits_int =
        col_rows_ < INT32_MAX && out_plane_ < INT32_MAX && group_in_ * kernel_size_ < INT32_MAX;
    const int k = static_cast<int>(std::min<int64_t>(group_in_ * kernel_size_, INT32_MAX));
    if (!ctx.is_constant(1) || !two_d || !fits_int || path_ == ConvPath::kBiasOnly ||
        (path_ == ConvPath::kDirect && group_out_ != 1)) {  // last: depthwise multiplier > 1
      if (!replaced) return Status::Ok();
      return ctx.Error(ErrorCode::kOutOfMemory,
                       "an output plane this big needs the scalar conv, and W was packed for "
                       "the SIMD convs when the model loaded");
    }
    if (const Tensor* b = has_bias_ ? ctx.constant(2) : nullptr) {
      bias_.assign(b->ptr<float>(), b->ptr<float>() + out_channels_);
    }
    simd_ = true;
    if (path_ == ConvPath::kDirect) {
      if (replaced) return ctx.Error(ErrorCode::kInternal, "a depthwise W was replaced at load");
      weights_for_depthwise_ = ctx.constant(1)->ptr<float>();  // constants outlive every plan
      return PlanDepthwise(ctx);
    }
    if (PlanWinograd(ctx)) {
      return Tensor::AllocateUninitialized(
          DType::kFloat32, {winograd_scratch_floats_ * ctx.threads()}, &rhs_panels_);
    }
    DerivedForm packed;
    WEBNX_RETURN_IF_ERROR(ctx.Form(conv_forms::PackedLhs(groups_, group_out_, k), &packed));
    packed_ = packed.head;
    col_ = Tensor();  // the packed path builds its column panels itself
    geometry_ = Geometry();
    PlanGemmTasks(k, ctx.threads());
    int block = 0;  // the widest column block
    for (int64_t b = 0; b < col_blocks_; ++b)
      block = std::max(block, ColumnBlockStart(b + 1) - ColumnBlockStart(b));
    panel_floats_ = static_cast<int64_t>(simd::PackedRhsSize(k, block));
    return Tensor::AllocateUninitialized(DType::kFloat32, {panel_floats_ * ctx.threads()},
                                         &rhs_panels_);
  }

  // Depthwise: stride-1 3x3 and 5x5 convs on planes wider than kDepthwise4MaxWidth a plane at a
  // time, everything else four channels at a time with weights packed here (measured: faster on
  // small planes, where plane rows leave vector lanes empty, and for every stride 2). Tasks take
  // runs of consecutive planes (up to about 16K outputs, at least 4 tasks per thread): small
  // late-layer planes share cache lines, which threads taking alternate planes would pass back
  // and forth.
  Status PlanDepthwise(PlanContext& ctx) {
    depthwise_ = DepthwiseShape();
    dw_scratch_ = Tensor();
    depthwise4_ =
        simd::Depthwise4ScratchFloats(depthwise_) > 0 &&
        (depthwise_.out_w <= kDepthwise4MaxWidth || simd::DepthwiseScratchFloats(depthwise_) == 0);
    const int64_t images = batch_ * groups_;
    const int64_t balanced = (images + 4 * ctx.threads() - 1) / (4 * ctx.threads());
    dw_planes_per_task_ =
        std::max<int64_t>(1, std::min(balanced, 16384 / std::max<int64_t>(out_plane_, 1)));
    size_t scratch = 0;
    if (depthwise4_) {
      dw_planes_per_task_ = (dw_planes_per_task_ + 3) / 4 * 4;  // whole blocks of 4 channels
      const int channels = static_cast<int>(groups_);
      // Beside W (the plane-at-a-time path that another input shape may take reads W as
      // given); taps and channels only, so one form per session.
      const auto pack = [shape = depthwise_, channels](const float* from, float* to) {
        simd::Depthwise4PackWeights(shape, channels, from, to);
      };
      ConstantForm form;
      form.input = 1;
      form.kind = kDepthwise4Weights;
      form.floats = simd::Depthwise4WeightFloats(depthwise_, channels);
      form.derive = pack;
      DerivedForm packed;
      WEBNX_RETURN_IF_ERROR(ctx.Form(form, &packed));
      packed_ = packed.head;
      scratch = simd::Depthwise4ScratchFloats(depthwise_);
    } else {
      scratch = simd::DepthwiseScratchFloats(depthwise_);
    }
    dw_scratch_floats_ = static_cast<int64_t>(scratch);
    if (scratch == 0) return Status::Ok();
    WEBNX_RETURN_IF_ERROR(
        Tensor::AllocateUninitialized(DType::kFloat32, {dw_scratch_floats_ * ctx.threads()},
                                      &dw_scratch_));  // zeroed by the Init calls below
    for (int slot = 0; slot < ctx.threads(); ++slot) {
      float* slot_scratch = dw_scratch_.ptr<float>() + slot * dw_scratch_floats_;
      if (depthwise4_) {
        simd::Depthwise4InitScratch(depthwise_, slot_scratch);
      } else {
        simd::DepthwiseInitScratch(depthwise_, slot_scratch);
      }
    }
    return Status::Ok();
  }

  // Whether this conv can read `channels` planes of `plane` pixels for `batch` images
  // interleaved by a producer (FuseConsumer): a depthwise conv planned for the four-channel
  // kernel, its weights and bias known when planned. (Wide stride-1 planes keep the row
  // kernel: measured on MobileNetV2, it beats the four-channel kernel by more than the fusion
  // saves.)
  bool TakesInterleavedInput(int64_t batch, int64_t channels, int64_t plane) const {
    return simd_ && path_ == ConvPath::kDirect && depthwise4_ && !skip_run_ && !has_addend_ &&
           batch_ == batch && groups_ == channels && in_channels_ == channels &&
           out_channels_ == channels && in_plane_ == plane && (!has_bias_ || !bias_.empty()) &&
           simd::Depthwise4ScratchFloats(depthwise_) > 0;
  }

  // This pointwise conv and the depthwise conv it took over: tasks over (image, block of four
  // channels), each computing the block's intermediate planes into its scratch, then the
  // depthwise outputs from there.
  void RunWithDepthwise(const RunContext& ctx, const float* x, const float* bias, float* y) {
    ConvKernel& dw = *fused_dw_;
    const int k = static_cast<int>(group_in_);
    const int n = static_cast<int>(out_plane_);
    const int64_t blocks = (out_channels_ + 3) / 4;
    const float* dw_bias = dw.bias_.empty() ? nullptr : dw.bias_.data();
    const int full = n / simd::kGemmNr * simd::kGemmNr;
    const size_t tail_floats = static_cast<size_t>(k) * simd::kGemmNr;
    for (int64_t image = 0; image < batch_ && full < n; ++image) {
      simd::PackRhs(x + image * in_channels_ * in_plane_ + full, k, n - full, n,
                    tail_panels_.ptr<float>() + image * tail_floats);
    }
    ctx.ParallelFor(batch_ * blocks, [&](int64_t task, int slot) {
      const int64_t image = task / blocks;
      const int c0 = static_cast<int>(task % blocks * 4);
      const int count = static_cast<int>(std::min<int64_t>(4, out_channels_ - c0));
      float* scratch = dw.Depthwise4Scratch(slot);
      const simd::InterleavedImage mid = simd::Depthwise4ScratchInput(dw.depthwise_, scratch);
      simd::GemmPanelInterleaved(n, k, packed_.ptr<float>() + static_cast<size_t>(c0) * k, count,
                                 x + image * in_channels_ * in_plane_, n,
                                 bias ? bias + c0 : nullptr, clamp_lo_, clamp_hi_, mid,
                                 tail_panels_.ptr<float>() + image * tail_floats);
      if (HasActivation()) {
        for (int r = 0; r < mid.rows; ++r)
          simd::ApplyActivation(activation_, mid.origin + r * mid.row_stride, mid.cols * 4);
      }
      dw.Depthwise4Outputs(dw_bias, c0, count, scratch,
                           y + (image * out_channels_ + c0) * dw.out_plane_);
    });
  }

  // The four-channel kernel's scratch for thread `slot`: its padded, interleaved input first.
  float* Depthwise4Scratch(int slot) {
    return dw_scratch_.ptr<float>() + slot * dw_scratch_floats_;
  }

  // Channels [c0, c0 + count) of one image (`out`: channel c0's plane) from the input already
  // in `scratch` (interleaved there, or written by a fused producer), then the activation
  // fused into this conv.
  void Depthwise4Outputs(const float* bias, int c0, int count, float* scratch, float* out) const {
    simd::Depthwise4FromScratch(depthwise_, c0, count, packed_.ptr<float>(),
                                bias ? bias + c0 : nullptr, clamp_lo_, clamp_hi_, out,
                                static_cast<size_t>(out_plane_), scratch);
    for (int c = 0; c < count && HasActivation(); ++c)
      simd::ApplyActivation(activation_, out + c * out_plane_, out_plane_);
  }

  // Depthwise, four channels at a time: tasks are runs of blocks within one image.
  void RunDepthwise4(const RunContext& ctx, const float* x, const float* bias, float* y) {
    const int64_t blocks = (groups_ + 3) / 4;  // per image
    const int64_t per_task = dw_planes_per_task_ / 4;
    const int64_t tasks_per_image = (blocks + per_task - 1) / per_task;
    ctx.ParallelFor(batch_ * tasks_per_image, [&](int64_t task, int slot) {
      const int64_t n = task / tasks_per_image;
      const int64_t first = task % tasks_per_image * per_task;
      const int64_t end = std::min(blocks, first + per_task);
      for (int64_t b = first; b < end; ++b) {
        const int c0 = static_cast<int>(4 * b);
        const int count = static_cast<int>(std::min<int64_t>(4, groups_ - c0));
        const int64_t plane = n * groups_ + c0;
        float* scratch = Depthwise4Scratch(slot);
        simd::Depthwise4Interleave(depthwise_, x + plane * in_plane_,
                                   static_cast<size_t>(in_plane_), count, scratch);
        Depthwise4Outputs(bias, c0, count, scratch, y + plane * out_plane_);
      }
    });
  }

  // The GEMM paths' tasks: (image, group, column block, row chunk).
  void PlanGemmTasks(int k, int threads) {
    const int64_t images = batch_ * groups_;
    unpacked_rhs_ = path_ == ConvPath::kPointwise &&
                    simd::GemmPrefersUnpackedRhs(static_cast<int>(group_out_), k);
    const int column_block = simd::GemmColumnBlock(k);
    col_blocks_ = (out_plane_ + column_block - 1) / column_block;
    if (threads > 1 && images * col_blocks_ < 8 * threads) {
      // Few tasks: as many column blocks as make their count a multiple of the threads, of
      // nearly equal widths, so that no thread waits for another's last block (MobileNetV2's
      // 28x28 1x1 convs had 5 blocks: 3 on one thread, 2 on the other; its 14x14 ones split
      // 196 columns 56/56/56/28).
      while ((images * col_blocks_) % threads != 0) ++col_blocks_;
    }
    SplitRows(images * col_blocks_, threads);
  }

  // The first output column of column block `b` (b = col_blocks_: the end): blocks of nearly
  // equal widths, each starting at a multiple of the GEMM's panel width.
  int ColumnBlockStart(int64_t b) const {
    if (b >= col_blocks_) return static_cast<int>(out_plane_);
    return static_cast<int>(b * out_plane_ / col_blocks_ / simd::kGemmNr * simd::kGemmNr);
  }

  // Few tasks otherwise (small late-layer planes): split each group's output channels too.
  void SplitRows(int64_t tasks, int threads) {
    const nn::RowChunks chunks = nn::SplitRows(group_out_, tasks, threads);
    row_chunks_ = chunks.count;
    chunk_rows_ = chunks.rows;
  }

  // 3x3, stride 1, one group, enough channels for the transforms to pay: Winograd F(2x2, 3x3)
  // with its transformed weights in packed_ (and winograd_tail_: see simd::WinogradWeights).
  bool PlanWinograd(const PlanContext& ctx) {
    winograd_ = false;
    const nn::WindowAxis& ah = axes_[1];
    const nn::WindowAxis& aw = axes_[2];
    const bool unit_strides = ah.stride == 1 && aw.stride == 1;
    const bool unit_dilations = ah.dilation == 1 && aw.dilation == 1;
    if (path_ != ConvPath::kIm2Col ||
        !conv_forms::TakesWinograd(ah.kernel, aw.kernel, unit_strides, unit_dilations, groups_,
                                   group_in_, group_out_, ah.pad_begin, aw.pad_begin)) {
      return false;
    }
    winograd_shape_ = simd::WinogradShape{
        static_cast<int>(group_in_),    static_cast<int>(group_out_),  static_cast<int>(ah.in),
        static_cast<int>(aw.in),        static_cast<int>(ah.out),      static_cast<int>(aw.out),
        static_cast<int>(ah.pad_begin), static_cast<int>(aw.pad_begin)};
    // A W only this conv reads was replaced at load, 9/16 of the form over it (ResNet18: 38 of
    // 67 MB); failing that (out of memory) the form is made here, or the im2col path taken.
    DerivedForm form;
    if (!ctx.Form(conv_forms::Winograd(winograd_shape_.in_channels, winograd_shape_.out_channels),
                  &form)
             .ok()) {
      return false;
    }
    packed_ = form.head;
    winograd_tail_ = form.tail;
    const int64_t group_floats = static_cast<int64_t>(simd::WinogradGroupFloats(winograd_shape_));
    winograd_weights_ = simd::WinogradWeights{
        // a head alone ends in a group maybe short
        packed_.ptr<float>(), static_cast<int>((packed_.numel() + group_floats - 1) / group_floats),
        winograd_tail_.ptr<float>()};
    winograd_scratch_floats_ = static_cast<int64_t>(simd::WinogradScratchFloats(winograd_shape_));
    winograd_tiles_ = simd::WinogradTiles(winograd_shape_);
    winograd_blocks_ =
        (winograd_tiles_ + simd::kWinogradTilesPerBlock - 1) / simd::kWinogradTilesPerBlock;
    SplitRows(batch_ * winograd_blocks_, ctx.threads());
    col_ = Tensor();
    winograd_ = true;
    return true;
  }

  // Tasks over (image, block of tiles, channel chunk): small planes have few blocks, so their
  // output channels are split too (each chunk transforms the block's inputs itself).
  void RunWinograd(const RunContext& ctx, const float* x, const float* bias, const float* addend,
                   float* y) {
    ctx.ParallelFor(batch_ * winograd_blocks_ * row_chunks_, [&](int64_t task, int slot) {
      const int64_t chunk = task % row_chunks_;
      const int64_t block = task / row_chunks_ % winograd_blocks_;
      const int64_t image = task / row_chunks_ / winograd_blocks_;
      const int row0 = static_cast<int>(chunk * chunk_rows_);
      const int rows = static_cast<int>(std::min<int64_t>(chunk_rows_, out_channels_ - row0));
      if (rows <= 0) return;
      const int first = static_cast<int>(block) * simd::kWinogradTilesPerBlock;
      simd::GemmEpilogue ep;
      ep.bias = bias;
      ep.min = clamp_lo_;
      ep.max = clamp_hi_;
      ep.addend = addend ? addend + image * out_channels_ * out_plane_ : nullptr;
      simd::WinogradBlock(winograd_shape_, x + image * in_channels_ * in_plane_, winograd_weights_,
                          first, std::min(simd::kWinogradTilesPerBlock, winograd_tiles_ - first),
                          row0, rows, ep, y + image * out_channels_ * out_plane_,
                          rhs_panels_.ptr<float>() + slot * winograd_scratch_floats_);
    });
  }

  // Work is split into tasks over (image, group, column block, row chunk) for the GEMM paths
  // and (image, channel) for depthwise; each task writes its own outputs with its own scratch.
  void RunSimd(const RunContext& ctx, const float* x, const float* bias, const float* addend,
               float* y) {
    if (winograd_) return RunWinograd(ctx, x, bias, addend, y);
    const int k = static_cast<int>(group_in_ * kernel_size_);
    const int64_t images = batch_ * groups_;
    if (path_ == ConvPath::kDirect && depthwise4_) return RunDepthwise4(ctx, x, bias, y);
    if (path_ == ConvPath::kDirect) {
      const int64_t per_task = dw_planes_per_task_;
      ctx.ParallelFor((images + per_task - 1) / per_task, [&](int64_t task, int slot) {
        const int64_t end = std::min(images, (task + 1) * per_task);
        for (int64_t plane = task * per_task; plane < end; ++plane) {
          const int64_t g = plane % groups_;
          const float* xg = x + plane * in_plane_;  // one input and one output channel per group
          float* yp = y + plane * out_plane_;
          simd::DepthwisePlane(depthwise_, xg, weights_for_depthwise_ + g * kernel_size_,
                               bias ? bias[g] : 0.f, yp, clamp_lo_, clamp_hi_,
                               dw_scratch_.ptr<float>() + slot * dw_scratch_floats_);
          simd::ApplyActivation(activation_, yp, out_plane_);
        }
      });
      return;
    }
    const int n = static_cast<int>(out_plane_);
    const size_t per_group = simd::PackedLhsSize(static_cast<int>(group_out_), k);
    ctx.ParallelFor(images * col_blocks_ * row_chunks_, [&](int64_t task, int slot) {
      const int64_t row_chunk = task % row_chunks_;
      const int64_t col_block = task / row_chunks_ % col_blocks_;
      const int64_t image = task / row_chunks_ / col_blocks_;
      const int64_t nb = image / groups_, g = image % groups_;
      const int64_t row0 = row_chunk * chunk_rows_;
      const int rows = static_cast<int>(std::min(chunk_rows_, group_out_ - row0));
      if (rows <= 0) return;
      const int j0 = ColumnBlockStart(col_block);
      const int cols = ColumnBlockStart(col_block + 1) - j0;
      if (cols <= 0) return;  // more blocks than panels of columns
      const float* xg = x + (nb * in_channels_ + g * group_in_) * in_plane_;
      float* panels = rhs_panels_.ptr<float>() + slot * panel_floats_;
      simd::GemmEpilogue ep;
      ep.bias = bias ? bias + g * group_out_ + row0 : nullptr;
      ep.min = clamp_lo_;
      ep.max = clamp_hi_;
      ep.activation = activation_;
      const float* packed_w = packed_.ptr<float>() + g * per_group + row0 * k;
      const int64_t out_offset = (nb * out_channels_ + g * group_out_ + row0) * out_plane_;
      float* yg = y + out_offset;
      ep.addend = addend ? addend + out_offset + j0 : nullptr;
      if (unpacked_rhs_) {
        simd::GemmUnpackedRhs(rows, cols, k, packed_w, xg + j0, n, yg + j0, n, ep, panels);
        return;
      }
      if (path_ == ConvPath::kPointwise) {
        simd::PackRhs(xg + j0, k, cols, n, panels);
      } else {
        simd::Im2ColPanels(geometry_, xg, j0, cols, panels);
      }
      simd::GemmPacked(rows, cols, k, packed_w, panels, yg + j0, n, ep);
    });
  }

  simd::Conv2DGeometry Geometry() const {
    const nn::WindowAxis& ah = axes_[1];
    const nn::WindowAxis& aw = axes_[2];
    simd::Conv2DGeometry g{};
    g.channels = static_cast<int>(group_in_);
    g.in_h = static_cast<int>(ah.in);
    g.in_w = static_cast<int>(aw.in);
    g.out_h = static_cast<int>(ah.out);
    g.out_w = static_cast<int>(aw.out);
    g.kernel_h = static_cast<int>(ah.kernel);
    g.kernel_w = static_cast<int>(aw.kernel);
    g.stride_h = static_cast<int>(ah.stride);
    g.stride_w = static_cast<int>(aw.stride);
    g.pad_top = static_cast<int>(ah.pad_begin);
    g.pad_left = static_cast<int>(aw.pad_begin);
    g.dilation_h = static_cast<int>(ah.dilation);
    g.dilation_w = static_cast<int>(aw.dilation);
    return g;
  }

  simd::DepthwiseShape DepthwiseShape() const {
    const nn::WindowAxis& ah = axes_[1];
    const nn::WindowAxis& aw = axes_[2];
    simd::DepthwiseShape s{};
    s.in_h = static_cast<int>(ah.in);
    s.in_w = static_cast<int>(aw.in);
    s.out_h = static_cast<int>(ah.out);
    s.out_w = static_cast<int>(aw.out);
    s.kernel_h = static_cast<int>(ah.kernel);
    s.kernel_w = static_cast<int>(aw.kernel);
    s.stride_h = static_cast<int>(ah.stride);
    s.stride_w = static_cast<int>(aw.stride);
    s.pad_top = static_cast<int>(ah.pad_begin);
    s.pad_left = static_cast<int>(aw.pad_begin);
    s.dilation_h = static_cast<int>(ah.dilation);
    s.dilation_w = static_cast<int>(aw.dilation);
    return s;
  }

  // Checks X [N, C, ...], W [M, C/group, k...], B [M] and the group count.
  Status PlanChannels(PlanContext& ctx) {
    const Shape& x = ctx.shape(0);
    const Shape& w = ctx.shape(1);
    if (x.size() < 3) {
      return ctx.Error(ErrorCode::kShapeMismatch,
                       "input X " + ShapeToString(x) + " must have rank >= 3 (N, C, spatial...)");
    }
    if (x.size() > 2 + kMaxSpatialRank) {
      return ctx.Error(ErrorCode::kUnsupportedOperator,
                       "only 1-3 spatial dims are supported, X is " + ShapeToString(x));
    }
    if (w.size() != x.size()) {
      return ctx.Error(
          ErrorCode::kShapeMismatch,
          "weight W " + ShapeToString(w) + " must have the rank of X " + ShapeToString(x));
    }
    groups_ = ctx.attrs().Int("group", 1);
    WEBNX_RETURN_IF_ERROR(ctx.attrs().status());
    in_channels_ = x[1];
    out_channels_ = w[0];
    if (groups_ < 1) {  // an attribute out of range, whatever the shapes
      return ctx.Error(ErrorCode::kMalformedModel,
                       "attribute 'group' = " + std::to_string(groups_) + " must be >= 1");
    }
    if (in_channels_ % groups_ != 0 || out_channels_ % groups_ != 0) {
      return ctx.Error(ErrorCode::kShapeMismatch,
                       "attribute 'group' = " + std::to_string(groups_) +
                           " must be >= 1 and divide the input channels (" +
                           std::to_string(in_channels_) + ") and output channels (" +
                           std::to_string(out_channels_) + ")");
    }
    group_in_ = in_channels_ / groups_;
    group_out_ = out_channels_ / groups_;
    if (w[1] != group_in_) {
      return ctx.Error(ErrorCode::kShapeMismatch,
                       "weight W " + ShapeToString(w) + " should have " +
                           std::to_string(group_in_) + " input channels per group (X has " +
                           std::to_string(in_channels_) + " channels, group " +
                           std::to_string(groups_) + ")");
    }
    int64_t kernel_numel = 0;
    if (!ShapeNumel(Shape(w.begin() + 2, w.end()), &kernel_numel)) {
      return ctx.Error(ErrorCode::kShapeMismatch, "weight W " + ShapeToString(w) + " is invalid");
    }
    if (has_bias_ && (ctx.shape(2).size() != 1 || ctx.shape(2)[0] != out_channels_)) {
      return ctx.Error(ErrorCode::kShapeMismatch, "bias B " + ShapeToString(ctx.shape(2)) +
                                                      " should be [" +
                                                      std::to_string(out_channels_) + "]");
    }
    return Status::Ok();
  }

  Status PlanPath(const PlanContext& ctx) {
    const bool pointwise = std::all_of(axes_.begin(), axes_.end(), [](const nn::WindowAxis& a) {
      return a.kernel == 1 && a.stride == 1 && a.pad_begin == 0 && a.pad_end == 0;
    });
    if (group_in_ == 1) {
      path_ = ConvPath::kDirect;
    } else if (pointwise) {
      path_ = ConvPath::kPointwise;
    } else {
      path_ = ConvPath::kIm2Col;
    }
    if (path_ != ConvPath::kIm2Col) return Status::Ok();

    // Rows of the column matrix: one per (input channel, kernel tap).
    if (!ShapeNumel({group_in_, kernel_size_}, &col_rows_)) {
      return ctx.Error(ErrorCode::kOutOfMemory, "im2col buffer size overflows");
    }
    const int64_t out_rows = axes_[0].out * axes_[1].out;
    const int64_t row_cols = axes_[2].out;
    band_rows_ = std::clamp<int64_t>(kColBudgetFloats / col_rows_ / row_cols, 1, out_rows);
    return Tensor::Allocate(DType::kFloat32, {col_rows_, band_rows_ * row_cols}, &col_);
  }

  // One input channel per group: each output channel m accumulates its kernel taps over the
  // single input plane of its group, a contiguous output row at a time.
  void RunDirect(const float* xg, const float* wg, float* yg) const {
    const nn::WindowAxis& ad = axes_[0];
    const nn::WindowAxis& ah = axes_[1];
    const nn::WindowAxis& aw = axes_[2];
    for (int64_t m = 0; m < group_out_; ++m) {
      const float* wm = wg + m * kernel_size_;
      float* ym = yg + m * out_plane_;
      for (int64_t od = 0; od < ad.out; ++od) {
        int64_t kd_lo, kd_hi;
        ad.ValidTaps(od, &kd_lo, &kd_hi);
        for (int64_t oh = 0; oh < ah.out; ++oh) {
          int64_t kh_lo, kh_hi;
          ah.ValidTaps(oh, &kh_lo, &kh_hi);
          float* yrow = ym + (od * ah.out + oh) * aw.out;
          for (int64_t kd = kd_lo; kd < kd_hi; ++kd) {
            const int64_t id = ad.start(od) + kd * ad.dilation;
            for (int64_t kh = kh_lo; kh < kh_hi; ++kh) {
              const int64_t ih = ah.start(oh) + kh * ah.dilation;
              const float* xrow = xg + (id * ah.in + ih) * aw.in;
              const float* wtaps = wm + (kd * ah.kernel + kh) * aw.kernel;
              AccumulateRow(xrow, wtaps, yrow);
            }
          }
        }
      }
    }
  }

  // yrow[o] += sum over taps k of w[k] * xrow[o * stride + offset_k], for in-range inputs.
  void AccumulateRow(const float* xrow, const float* wtaps, float* yrow) const {
    const int64_t stride = axes_[2].stride;
    for (size_t k = 0; k < inner_spans_.size(); ++k) {
      const TapSpan& s = inner_spans_[k];
      const float wv = wtaps[k];
      if (stride == 1) {
        const float* src = xrow + s.offset;
        for (int64_t o = s.lo; o < s.hi; ++o) yrow[o] += wv * src[o];
      } else {
        for (int64_t o = s.lo; o < s.hi; ++o) yrow[o] += wv * xrow[o * stride + s.offset];
      }
    }
  }

  void RunIm2Col(const float* xg, const float* wg, float* yg) {
    const int64_t out_rows = axes_[0].out * axes_[1].out;
    const int64_t row_cols = axes_[2].out;
    float* col = col_.ptr<float>();
    for (int64_t r0 = 0; r0 < out_rows; r0 += band_rows_) {
      const int64_t r1 = std::min(out_rows, r0 + band_rows_);
      const int64_t cols = (r1 - r0) * row_cols;
      Im2ColBand(xg, r0, r1, col);
      GemmRef(false, false, group_out_, cols, col_rows_, 1.f, wg, col_rows_, col, cols, 1.f,
              yg + r0 * row_cols, out_plane_);
    }
  }

  // Fills col[(c, kd, kh, kw), p] for the output rows [r0, r1) of the (od, oh) grid, where p
  // runs over those rows' output positions; padding reads as zero.
  void Im2ColBand(const float* xg, int64_t r0, int64_t r1, float* col) const {
    const nn::WindowAxis& ad = axes_[0];
    const nn::WindowAxis& ah = axes_[1];
    const nn::WindowAxis& aw = axes_[2];
    const int64_t cols = (r1 - r0) * aw.out;
    float* dst = col;
    for (int64_t c = 0; c < group_in_; ++c) {
      const float* xc = xg + c * in_plane_;
      for (int64_t kd = 0; kd < ad.kernel; ++kd) {
        for (int64_t kh = 0; kh < ah.kernel; ++kh) {
          for (int64_t kw = 0; kw < aw.kernel; ++kw, dst += cols) {
            const TapSpan& s = inner_spans_[kw];
            for (int64_t r = r0; r < r1; ++r) {
              const int64_t id = ad.start(r / ah.out) + kd * ad.dilation;
              const int64_t ih = ah.start(r % ah.out) + kh * ah.dilation;
              float* seg = dst + (r - r0) * aw.out;
              if (id < 0 || id >= ad.in || ih < 0 || ih >= ah.in) {
                std::fill(seg, seg + aw.out, 0.f);
                continue;
              }
              const float* xrow = xc + (id * ah.in + ih) * aw.in;
              std::fill(seg, seg + s.lo, 0.f);
              for (int64_t o = s.lo; o < s.hi; ++o) seg[o] = xrow[o * aw.stride + s.offset];
              std::fill(seg + s.hi, seg + aw.out, 0.f);
            }
          }
        }
      }
    }
  }

  static constexpr int kAddendInput = 3;  // after X, W, B
  static constexpr int kDepthwise4MaxWidth = 16;
  bool has_bias_ = false;
  bool has_addend_ = false;  // a residual fused by the planner, passed as input 3
  int64_t groups_ = 1;
  int64_t batch_ = 0;
  int64_t in_channels_ = 0, out_channels_ = 0;
  int64_t group_in_ = 0, group_out_ = 0;  // channels per group
  std::vector<nn::WindowAxis> axes_;      // exactly 3: (depth, height, width)
  int64_t in_plane_ = 0, out_plane_ = 0;  // spatial sizes
  int64_t kernel_size_ = 0;               // taps per (output, input) channel pair
  std::vector<TapSpan> inner_spans_;      // per innermost-axis tap
  ConvPath path_ = ConvPath::kIm2Col;
  bool skip_run_ = false;  // empty output
  int64_t col_rows_ = 0;   // group_in_ * kernel_size_
  int64_t band_rows_ = 0;  // output rows per im2col band
  Tensor col_;             // im2col scratch: col_rows_ x (band_rows_ * output width)
  bool simd_ = false;      // 2-D with constant weights: the SIMD paths below
  Tensor packed_;          // per group: W packed as the GEMM's left matrix
  Tensor rhs_panels_;      // per thread: one block of the right matrix in 8-column panels
  simd::Conv2DGeometry geometry_{};
  std::vector<float> bias_;  // constant bias, when there is one
  const float* weights_for_depthwise_ = nullptr;
  simd::DepthwiseShape depthwise_{};
  Tensor dw_scratch_;  // per thread: a zero-padded copy of one plane for the depthwise kernel
  int64_t dw_scratch_floats_ = 0;
  int64_t panel_floats_ = 0;  // rhs_panels_ floats per thread
  bool winograd_ = false;  // 3x3 stride 1: F(2x2, 3x3), weights in packed_, scratch in rhs_panels_
  Tensor winograd_tail_;   // the transformed weights' groups that do not fit over W
  simd::WinogradWeights winograd_weights_{};  // in packed_ and winograd_tail_
  simd::WinogradShape winograd_shape_{};
  int64_t winograd_scratch_floats_ = 0;
  int winograd_tiles_ = 0;                // output tiles per image
  int64_t winograd_blocks_ = 0;           // tasks per image
  int64_t dw_planes_per_task_ = 1;        // depthwise: consecutive planes per task
  bool depthwise4_ = false;               // depthwise four channels at a time, weights in packed_
  bool unpacked_rhs_ = false;             // 1x1: the GEMM reads the input in place
  int64_t col_blocks_ = 0;                // GEMM paths: column blocks per image (tasks)
  int64_t row_chunks_ = 1;                // ... output-channel chunks (threads on small planes)
  int64_t chunk_rows_ = 0;                // ... rows per chunk, a multiple of 4
  std::unique_ptr<ConvKernel> fused_dw_;  // a depthwise conv reading the output (FuseConsumer)
  Tensor tail_panels_;  // with fused_dw_: per image, the input's last out_plane_ % 8 columns
  float clamp_lo_ = -INFINITY, clamp_hi_ = INFINITY;  // fused Relu/Clip
  simd::Activation activation_;                       // fused Sigmoid/HardSigmoid, x * them
};

}  // namespace

void RegisterConvKernels(OpRegistry& r) {
  r.Register("", "Conv", {{1, 11, 22}, Inputs(2, 3), Outputs(1)}, MakeKernel<ConvKernel>);
}

}  // namespace webnx
