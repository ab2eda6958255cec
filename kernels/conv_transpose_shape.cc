#include "kernels/conv_transpose_shape.h"

#include <algorithm>
#include <string>

#include "kernels/nn_common.h"

namespace webnx::conv_transpose {
namespace {

// The attributes beyond Conv's window: added output rows, and an explicit output size.
struct ExtraAttrs {
  std::vector<int64_t> output_padding;
  std::vector<int64_t> output_shape;  // spatial dims only; empty when absent
};

// floor(v / 2), also for negative v (the spec's pads come from Python's // on totals that an
// output_shape larger than the full result makes negative).
int64_t FloorHalf(int64_t v) {
  return v >= 0 ? v / 2 : -((-v + 1) / 2);
}

std::string AxisName(size_t axis) {
  return "spatial axis " + std::to_string(axis);
}

// Checks X [N, C, ...], W [C, M/group, k...], B [M] and the group count.
Status PlanChannels(PlanContext& ctx, ConvTransposeShape* s) {
  const Shape& x = ctx.shape(0);
  const Shape& w = ctx.shape(1);
  if (x.size() < 3) {
    return ctx.Error(ErrorCode::kShapeMismatch,
                     "input X " + ShapeToString(x) + " must have rank >= 3 (N, C, spatial...)");
  }
  if (w.size() != x.size()) {
    return ctx.Error(ErrorCode::kShapeMismatch, "weight W " + ShapeToString(w) +
                                                    " must have the rank of X " + ShapeToString(x));
  }
  s->groups = ctx.attrs().Int("group", 1);
  WEBNX_RETURN_IF_ERROR(ctx.attrs().status());
  if (s->groups < 1) {
    return ctx.Error(ErrorCode::kMalformedModel,
                     "attribute 'group' = " + std::to_string(s->groups) + " must be >= 1");
  }
  s->batch = x[0];
  s->in_channels = x[1];
  if (w[0] != s->in_channels || s->in_channels % s->groups != 0) {
    return ctx.Error(ErrorCode::kShapeMismatch,
                     "weight W " + ShapeToString(w) + " should have X's " +
                         std::to_string(s->in_channels) + " input channels first, a multiple of " +
                         "attribute 'group' = " + std::to_string(s->groups));
  }
  s->group_in = s->in_channels / s->groups;
  s->group_out = w[1];
  if (__builtin_mul_overflow(s->group_out, s->groups, &s->out_channels)) {
    return ctx.Error(ErrorCode::kShapeMismatch, "weight W " + ShapeToString(w) + " times group " +
                                                    std::to_string(s->groups) +
                                                    " output channels is too many");
  }
  for (size_t i = 2; i < w.size(); ++i) {
    if (w[i] < 1) {
      return ctx.Error(ErrorCode::kShapeMismatch,
                       "weight W " + ShapeToString(w) + " has an empty kernel axis");
    }
  }
  s->has_bias = ctx.has_input(2);
  if (s->has_bias && (ctx.shape(2).size() != 1 || ctx.shape(2)[0] != s->out_channels)) {
    return ctx.Error(ErrorCode::kShapeMismatch, "bias B " + ShapeToString(ctx.shape(2)) +
                                                    " should be [" +
                                                    std::to_string(s->out_channels) + "]");
  }
  return Status::Ok();
}

// output_padding (one per axis, each below its stride or dilation) and output_shape (one per
// axis, or N and M first too).
Status ReadExtraAttrs(PlanContext& ctx, const nn::WindowAttrs& window, int64_t out_channels,
                      ExtraAttrs* extra) {
  const size_t rank = window.kernel.size();
  Attrs& attrs = ctx.attrs();
  extra->output_padding = attrs.Ints("output_padding", std::vector<int64_t>(rank, 0));
  std::vector<int64_t> output_shape = attrs.Ints("output_shape");
  WEBNX_RETURN_IF_ERROR(attrs.status());
  WEBNX_RETURN_IF_ERROR(
      nn::ReadPositiveInts(ctx, "output_padding", rank, 0, &extra->output_padding));
  for (size_t i = 0; i < rank; ++i) {
    const int64_t pad = extra->output_padding[i];
    if (pad >= window.strides[i] && pad >= window.dilations[i]) {
      return ctx.Error(ErrorCode::kMalformedModel,
                       "attribute 'output_padding' " + nn::IntsToString(extra->output_padding) +
                           " must be below the stride or the dilation of each axis");
    }
  }
  extra->output_shape.clear();
  if (output_shape.empty()) return Status::Ok();
  const std::string given = nn::IntsToString(output_shape);
  const bool with_batch_and_channels = output_shape.size() == rank + 2;
  if (with_batch_and_channels && output_shape[1] != out_channels) {
    return ctx.Error(ErrorCode::kShapeMismatch, "attribute 'output_shape' " + given + " names " +
                                                    std::to_string(output_shape[1]) +
                                                    " channels, W gives " +
                                                    std::to_string(out_channels));
  }
  if (with_batch_and_channels) output_shape.erase(output_shape.begin(), output_shape.begin() + 2);
  const bool any_negative =
      std::any_of(output_shape.begin(), output_shape.end(), [](int64_t v) { return v < 0; });
  if (output_shape.size() != rank || any_negative) {
    return ctx.Error(ErrorCode::kMalformedModel,
                     "attribute 'output_shape' " + given + " should have " + std::to_string(rank) +
                         " non-negative values, one per spatial axis (or N and M first)");
  }
  extra->output_shape = output_shape;
  return Status::Ok();
}

// One axis's output size and begin padding, per the spec: from output_shape (its total padding
// split as auto_pad says), SAME (output in * stride), VALID (no padding) or the pads.
Status ComputeAxis(const PlanContext& ctx, size_t i, const nn::WindowAttrs& window,
                   const ExtraAttrs& extra, Axis* a) {
  const size_t rank = window.kernel.size();
  a->kernel = window.kernel[i];
  a->stride = window.strides[i];
  a->dilation = window.dilations[i];
  const int64_t dilated_kernel = (a->kernel - 1) * a->dilation + 1;  // bounded: nn_common.h
  // The full result's size: every input position's whole kernel footprint, output_padding on.
  int64_t full = 0;
  bool overflow = __builtin_mul_overflow(a->stride, a->in - 1, &full);
  overflow = overflow || __builtin_add_overflow(full, extra.output_padding[i], &full);
  overflow = overflow || __builtin_add_overflow(full, dilated_kernel, &full);
  const bool same =
      window.auto_pad == nn::AutoPad::kSameUpper || window.auto_pad == nn::AutoPad::kSameLower;
  int64_t total_pad = 0;
  if (!extra.output_shape.empty() || same) {
    if (!extra.output_shape.empty()) {
      a->out = extra.output_shape[i];
    } else {
      overflow = overflow || __builtin_mul_overflow(a->in, a->stride, &a->out);
    }
    overflow = overflow || __builtin_sub_overflow(full, a->out, &total_pad);
    a->pad_begin = window.auto_pad == nn::AutoPad::kSameUpper ? FloorHalf(total_pad)
                                                              : total_pad - FloorHalf(total_pad);
  } else {
    const bool valid = window.auto_pad == nn::AutoPad::kValid;
    a->pad_begin = valid ? 0 : window.pads[i];
    const int64_t pad_end = valid ? 0 : window.pads[i + rank];
    a->out = full - a->pad_begin - pad_end;  // no overflow: pads are bounded
  }
  if (overflow) {
    return ctx.Error(ErrorCode::kShapeMismatch, AxisName(i) + ": the output size of input size " +
                                                    std::to_string(a->in) + " with stride " +
                                                    std::to_string(a->stride) + " is too large");
  }
  if (a->out < 0) {
    return ctx.Error(ErrorCode::kShapeMismatch,
                     AxisName(i) + ": pads " + nn::IntsToString(window.pads) +
                         " are larger than the output of input size " + std::to_string(a->in) +
                         " (" + std::to_string(full) + ")");
  }
  return Status::Ok();
}

}  // namespace

Status PlanShape(PlanContext& ctx, ConvTransposeShape* shape) {
  ConvTransposeShape& s = *shape;
  s = ConvTransposeShape();
  WEBNX_RETURN_IF_ERROR(PlanChannels(ctx, &s));
  const Shape& x = ctx.shape(0);
  const Shape& w = ctx.shape(1);
  const size_t rank = x.size() - 2;
  nn::WindowOptions options;
  options.inferred_kernel.assign(w.begin() + 2, w.end());
  nn::WindowAttrs window;
  WEBNX_RETURN_IF_ERROR(nn::ReadWindowAttrs(ctx, rank, options, &window));
  if (window.kernel != options.inferred_kernel) {
    return ctx.Error(ErrorCode::kShapeMismatch,
                     "attribute 'kernel_shape' " + nn::IntsToString(window.kernel) +
                         " does not match the spatial dims of W " + ShapeToString(w));
  }
  ExtraAttrs extra;
  WEBNX_RETURN_IF_ERROR(ReadExtraAttrs(ctx, window, s.out_channels, &extra));
  s.axes.assign(rank, Axis());
  Shape out = {s.batch, s.out_channels};
  for (size_t i = 0; i < rank; ++i) {
    s.axes[i].in = x[i + 2];
    WEBNX_RETURN_IF_ERROR(ComputeAxis(ctx, i, window, extra, &s.axes[i]));
    out.push_back(s.axes[i].out);
  }
  WEBNX_RETURN_IF_ERROR(nn::CheckNumel(ctx, out, "output"));
  ctx.SetOutput(0, DType::kFloat32, out);
  // Past here a non-empty output bounds N, M and the output plane, and X (which exists) the
  // input plane; a kernel product past int64 needs a W that is empty, hence no input channels.
  s.empty_output = nn::DimProduct(out, 0, out.size()) == 0;
  s.out_plane = nn::DimProduct(out, 2, out.size());
  s.in_plane = nn::DimProduct(x, 2, x.size());
  s.kernel_size = nn::DimProduct(w, 2, w.size());
  return Status::Ok();
}

}  // namespace webnx::conv_transpose
