#include "kernels/conv_depthwise.h"

#include <algorithm>

#include "core/separate_function.h"
#include "kernels/epilogue_function.h"
#include "kernels/simd/dwconv4.h"

namespace webnx::conv {
namespace {

// The session's name for a depthwise W packed four channels at a time (Depthwise4PackWeights);
// the GEMM paths' forms are in kernels/conv_weight_forms.h.
constexpr char kDepthwise4Weights[] = "conv-depthwise4";

simd::DepthwiseShape DepthwiseShapeOf(const ConvShape& shape) {
  const nn::WindowAxis& ah = shape.axes[1];
  const nn::WindowAxis& aw = shape.axes[2];
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

}  // namespace

// Stride-1 3x3 and 5x5 convs on planes wider than kDepthwise4MaxWidth a plane at a time,
// everything else four channels at a time with weights packed here (measured: faster on small
// planes, where plane rows leave vector lanes empty, and for every stride 2). Tasks take runs
// of consecutive planes (up to about 16K outputs, at least 4 tasks per thread): small
// late-layer planes share cache lines, which threads taking alternate planes would pass back
// and forth.
WEBNX_PLAN_TIME Status Depthwise::Plan(PlanContext& ctx) {
  shape_ = DepthwiseShapeOf(s_);
  four_ = simd::Depthwise4ScratchFloats(shape_) > 0 &&
          (shape_.out_w <= kDepthwise4MaxWidth || simd::DepthwiseScratchFloats(shape_) == 0);
  const int64_t images = s_.batch * s_.groups;
  const int64_t balanced = (images + 4 * ctx.threads() - 1) / (4 * ctx.threads());
  planes_per_task_ =
      std::max<int64_t>(1, std::min(balanced, 16384 / std::max<int64_t>(s_.out_plane, 1)));
  size_t scratch = 0;
  if (four_) {
    planes_per_task_ = (planes_per_task_ + 3) / 4 * 4;  // whole blocks of 4 channels
    const int channels = static_cast<int>(s_.groups);
    // Beside W (the plane-at-a-time path that another input shape may take reads W as
    // given); taps and channels only, so one form per session.
    const auto pack = [shape = shape_, channels](const float* from, float* to) {
      simd::Depthwise4PackWeights(shape, channels, from, to);
    };
    ConstantForm form;
    form.input = 1;
    form.kind = kDepthwise4Weights;
    form.floats = simd::Depthwise4WeightFloats(shape_, channels);
    form.derive = pack;
    DerivedForm packed;
    WEBNX_RETURN_IF_ERROR(ctx.Form(form, &packed));
    buffers_.weights = packed.head;
    scratch = simd::Depthwise4ScratchFloats(shape_);
  } else {
    scratch = simd::DepthwiseScratchFloats(shape_);
  }
  scratch_floats_ = static_cast<int64_t>(scratch);
  if (scratch == 0) return Status::Ok();
  WEBNX_RETURN_IF_ERROR(
      Tensor::AllocateUninitialized(DType::kFloat32, {scratch_floats_ * ctx.threads()},
                                    &buffers_.scratch));  // zeroed by the Init calls below
  for (int slot = 0; slot < ctx.threads(); ++slot) {
    float* slot_scratch = BlockScratch(slot);
    if (four_) {
      simd::Depthwise4InitScratch(shape_, slot_scratch);
    } else {
      simd::DepthwiseInitScratch(shape_, slot_scratch);
    }
  }
  return Status::Ok();
}

bool Depthwise::TakesInterleavedInput(int64_t batch, int64_t channels, int64_t plane) const {
  return four_ && !s_.skip_run && !s_.epilogue.has_addend && s_.batch == batch &&
         s_.groups == channels && s_.in_channels == channels && s_.out_channels == channels &&
         s_.in_plane == plane && (!s_.has_bias || !s_.bias.empty()) &&
         simd::Depthwise4ScratchFloats(shape_) > 0;
}

simd::InterleavedImage Depthwise::BlockInput(float* scratch) const {
  return simd::Depthwise4ScratchInput(shape_, scratch);
}

void Depthwise::BlockOutputs(const float* bias, int c0, int count, float* scratch,
                             float* out) const {
  const Epilogue& ep = s_.epilogue;
  simd::Depthwise4FromScratch(shape_, c0, count, buffers_.weights.ptr<float>(),
                              bias ? bias + c0 : nullptr, ep.clamp_lo, ep.clamp_hi, out,
                              static_cast<size_t>(s_.out_plane), scratch);
  for (int c = 0; c < count && ep.HasFunction(); ++c)
    simd::ApplyActivation(ActivationOf(ep.function), out + c * s_.out_plane, s_.out_plane);
}

// Tasks are runs of planes, (image, channel) in order: four channels at a time, runs of blocks
// within one image.
void Depthwise::Run(const RunContext& ctx, const RunArgs& args) {
  const float* x = args.x;
  const float* bias = args.bias;
  float* y = args.y;
  const int64_t groups = s_.groups;
  if (four_) {
    const int64_t blocks = (groups + 3) / 4;  // per image
    const int64_t per_task = planes_per_task_ / 4;
    const int64_t tasks_per_image = (blocks + per_task - 1) / per_task;
    ctx.ParallelFor(s_.batch * tasks_per_image, [&](int64_t task, int slot) {
      const int64_t n = task / tasks_per_image;
      const int64_t first = task % tasks_per_image * per_task;
      const int64_t end = std::min(blocks, first + per_task);
      for (int64_t b = first; b < end; ++b) {
        const int c0 = static_cast<int>(4 * b);
        const int count = static_cast<int>(std::min<int64_t>(4, groups - c0));
        const int64_t plane = n * groups + c0;
        float* scratch = BlockScratch(slot);
        simd::Depthwise4Interleave(shape_, x + plane * s_.in_plane,
                                   static_cast<size_t>(s_.in_plane), count, scratch);
        BlockOutputs(bias, c0, count, scratch, y + plane * s_.out_plane);
      }
    });
    return;
  }
  const int64_t images = s_.batch * groups;
  const int64_t per_task = planes_per_task_;
  ctx.ParallelFor((images + per_task - 1) / per_task, [&](int64_t task, int slot) {
    const int64_t end = std::min(images, (task + 1) * per_task);
    for (int64_t plane = task * per_task; plane < end; ++plane) {
      const int64_t g = plane % groups;
      const float* xg = x + plane * s_.in_plane;  // one input and one output channel per group
      float* yp = y + plane * s_.out_plane;
      simd::DepthwisePlane(shape_, xg, weights_ + g * s_.kernel_size, bias ? bias[g] : 0.f, yp,
                           s_.epilogue.clamp_lo, s_.epilogue.clamp_hi,
                           buffers_.scratch.ptr<float>() + slot * scratch_floats_);
      simd::ApplyActivation(ActivationOf(s_.epilogue.function), yp, s_.out_plane);
    }
  });
}

}  // namespace webnx::conv
