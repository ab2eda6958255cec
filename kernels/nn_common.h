// Helpers shared by the NN kernels (conv, pool, ...): sliding-window geometry from the ONNX
// conv/pool attributes, overflow-checked sizes and axis normalisation.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "core/kernel.h"
#include "core/limits.h"
#include "core/separate_function.h"

namespace webnx::nn {

// Window attributes (kernel, stride, dilation, pad) are bounded so that every derived size,
// e.g. the dilated kernel (k - 1) * d + 1, fits comfortably in int64.
constexpr int64_t kMaxWindowValue = int64_t{1} << 31;

// How a GEMM's output rows are shared over the threads too when its other tasks (images,
// column blocks) number fewer than two per thread: chunks of a multiple of 4 rows (the
// microkernel's tile height), the last maybe shorter, none empty.
struct RowChunks {
  int64_t count = 1;
  int64_t rows = 0;  // per chunk
};
inline RowChunks SplitRows(int64_t rows, int64_t tasks, int threads) {
  RowChunks c;
  if (threads > 1 && tasks < 2 * threads)
    c.count = std::max<int64_t>(1, std::min<int64_t>((rows + 15) / 16, 2 * threads));
  c.rows = ((rows + c.count - 1) / c.count + 3) / 4 * 4;
  if (c.rows > 0) c.count = (rows + c.rows - 1) / c.rows;
  return c;
}

// Converts a possibly negative axis into [0, rank); false when out of range.
inline bool NormalizeAxis(int64_t axis, int64_t rank, int64_t* out) {
  if (axis < -rank || axis >= rank) return false;
  *out = axis < 0 ? axis + rank : axis;
  return true;
}

// Product of dims [begin, end): 0 when any of them is 0, saturating at INT64_MAX on overflow
// (which a valid shape allows only when a dim outside the range is 0, i.e. the tensor is empty).
inline int64_t DimProduct(const Shape& shape, size_t begin, size_t end) {
  int64_t n = 1;
  bool overflow = false;
  for (size_t i = begin; i < end && i < shape.size(); ++i) {
    if (shape[i] == 0) return 0;
    overflow = overflow || __builtin_mul_overflow(n, shape[i], &n);
  }
  return overflow ? INT64_MAX : n;
}

// The mean and variance of n floats, in double and two passes (the mean, then the squares around
// it: no cancellation). Uncentered, the mean is taken as 0 (the variance is then the mean
// square, for RMS norms). n = 0 gives zeros.
struct Moments {
  double mean = 0, variance = 0;
};
inline Moments MomentsOf(const float* x, int64_t n, bool centered = true) {
  Moments m;
  if (n == 0) return m;
  double sum = 0;
  for (int64_t i = 0; i < n && centered; ++i) sum += x[i];
  m.mean = sum / static_cast<double>(n);
  double sq = 0;
  for (int64_t i = 0; i < n; ++i) sq += (x[i] - m.mean) * (x[i] - m.mean);
  m.variance = sq / static_cast<double>(n);
  return m;
}

// Allocates `count` floats of kernel scratch as a tensor, so running out of memory is a Status.
inline Status AllocateScratch(int64_t count, Tensor* out) {
  return Tensor::Allocate(DType::kFloat32, {count}, out);
}

// The element count of a kernel's output, checked before the kernel sizes tables or scratch
// from the output's dims: it must not overflow, and 4-byte elements must fit the byte cap in
// force (limits.maxTensorBytes), which the planner applies to the output itself afterwards.
inline Status CheckNumel(const PlanContext& ctx, const Shape& shape, const std::string& what) {
  int64_t n = 0;
  if (!ShapeNumel(shape, &n)) {
    return ctx.Error(ErrorCode::kShapeMismatch,
                     what + " shape " + ShapeToString(shape) + " is invalid or too large");
  }
  const int64_t cap = CurrentTensorByteLimit();
  constexpr int64_t kElement = sizeof(float);
  if (n > cap / kElement) {
    const Status over = LimitError(
        ErrorCode::kOutOfMemory, what + " of shape " + ShapeToString(shape) + " needs",
        n > INT64_MAX / kElement ? INT64_MAX : n * kElement, " bytes", cap, "maxTensorBytes");
    return ctx.Error(over.code(), over.message());
  }
  return Status::Ok();
}

inline std::string IntsToString(const std::vector<int64_t>& v) {
  return ShapeToString(v);
}

enum class AutoPad { kNotSet, kSameUpper, kSameLower, kValid };

// The window attributes of one Conv/Pool node, validated and sized to the spatial rank.
struct WindowAttrs {
  std::vector<int64_t> kernel;
  std::vector<int64_t> strides;
  std::vector<int64_t> dilations;
  std::vector<int64_t> pads;  // [x1_begin, x2_begin, ..., x1_end, x2_end, ...]
  AutoPad auto_pad = AutoPad::kNotSet;
  bool ceil_mode = false;
};

// What a given op (and version) accepts beyond kernel/strides/pads/auto_pad.
struct WindowOptions {
  bool allow_dilations = true;
  bool allow_ceil_mode = false;
  // Used when kernel_shape is absent (Conv infers it from W); empty means it is required.
  std::vector<int64_t> inferred_kernel;
};

inline Status ReadPositiveInts(PlanContext& ctx, const std::string& name, size_t rank,
                               int64_t min_value, std::vector<int64_t>* values) {
  if (values->size() != rank) {
    return ctx.Error(ErrorCode::kMalformedModel,
                     "attribute '" + name + "' " + IntsToString(*values) + " should have " +
                         std::to_string(rank) + " values, one per spatial axis");
  }
  for (int64_t v : *values) {
    if (v < min_value || v > kMaxWindowValue) {
      return ctx.Error(ErrorCode::kMalformedModel,
                       "attribute '" + name + "' " + IntsToString(*values) +
                           " has an out-of-range value (must be >= " + std::to_string(min_value) +
                           ")");
    }
  }
  return Status::Ok();
}

WEBNX_PLAN_TIME inline Status ReadWindowAttrs(PlanContext& ctx, size_t spatial_rank,
                                              const WindowOptions& options, WindowAttrs* out) {
  Attrs& attrs = ctx.attrs();
  const std::vector<int64_t> ones(spatial_rank, 1);
  if (attrs.Has("kernel_shape")) {
    out->kernel = attrs.Ints("kernel_shape");
  } else if (!options.inferred_kernel.empty()) {
    out->kernel = options.inferred_kernel;
  } else {
    return ctx.Error(ErrorCode::kMalformedModel, "required attribute 'kernel_shape' is missing");
  }
  out->strides = attrs.Ints("strides", ones);
  out->dilations = options.allow_dilations ? attrs.Ints("dilations", ones) : ones;
  out->pads = attrs.Ints("pads", std::vector<int64_t>(2 * spatial_rank, 0));
  const std::string auto_pad = attrs.String("auto_pad", "NOTSET");
  out->ceil_mode = options.allow_ceil_mode && attrs.Int("ceil_mode", 0) != 0;
  WEBNX_RETURN_IF_ERROR(attrs.status());

  WEBNX_RETURN_IF_ERROR(ReadPositiveInts(ctx, "kernel_shape", spatial_rank, 1, &out->kernel));
  WEBNX_RETURN_IF_ERROR(ReadPositiveInts(ctx, "strides", spatial_rank, 1, &out->strides));
  WEBNX_RETURN_IF_ERROR(ReadPositiveInts(ctx, "dilations", spatial_rank, 1, &out->dilations));
  WEBNX_RETURN_IF_ERROR(ReadPositiveInts(ctx, "pads", 2 * spatial_rank, 0, &out->pads));

  if (auto_pad == "NOTSET") {
    out->auto_pad = AutoPad::kNotSet;
  } else if (auto_pad == "SAME_UPPER") {
    out->auto_pad = AutoPad::kSameUpper;
  } else if (auto_pad == "SAME_LOWER") {
    out->auto_pad = AutoPad::kSameLower;
  } else if (auto_pad == "VALID") {
    out->auto_pad = AutoPad::kValid;
  } else {
    return ctx.Error(ErrorCode::kMalformedModel,
                     "attribute 'auto_pad' has unknown value '" + auto_pad + "'");
  }
  // The spec forbids explicit pads with auto_pad; all-zero pads are harmless and common.
  bool any_pad = std::any_of(out->pads.begin(), out->pads.end(), [](int64_t p) { return p != 0; });
  if (out->auto_pad != AutoPad::kNotSet && any_pad) {
    return ctx.Error(ErrorCode::kMalformedModel,
                     "attributes 'pads' and 'auto_pad' = '" + auto_pad + "' cannot both be set");
  }
  return Status::Ok();
}

// One spatial axis of a sliding window: output position o reads input positions
// o * stride - pad_begin + j * dilation for j in [0, kernel), those outside [0, in) being padding.
struct WindowAxis {
  int64_t in = 1;
  int64_t out = 1;
  int64_t kernel = 1;
  int64_t stride = 1;
  int64_t dilation = 1;
  int64_t pad_begin = 0;
  int64_t pad_end = 0;

  int64_t dilated_kernel() const { return (kernel - 1) * dilation + 1; }
  int64_t start(int64_t o) const { return o * stride - pad_begin; }
  // The kernel taps [*lo, *hi) of output o that land inside [lower, upper).
  void TapRange(int64_t o, int64_t lower, int64_t upper, int64_t* lo, int64_t* hi) const {
    int64_t s = start(o);
    int64_t first = s >= lower ? 0 : (lower - s + dilation - 1) / dilation;
    int64_t last = s >= upper ? 0 : (upper - s + dilation - 1) / dilation;
    *lo = std::min(first, kernel);
    *hi = std::max(*lo, std::min(last, kernel));
  }
  // Kernel taps of output o inside the input proper.
  void ValidTaps(int64_t o, int64_t* lo, int64_t* hi) const { TapRange(o, 0, in, lo, hi); }
};

// Computes output sizes and begin pads per the ONNX conv/pool formulas. `spatial_in` are the
// input's spatial dims. ShapeMismatch when the window does not fit the (padded) input.
inline Status ComputeWindowAxes(const PlanContext& ctx, const Shape& spatial_in,
                                const WindowAttrs& attrs, std::vector<WindowAxis>* axes) {
  axes->assign(spatial_in.size(), WindowAxis());
  for (size_t i = 0; i < spatial_in.size(); ++i) {
    WindowAxis& a = (*axes)[i];
    a.in = spatial_in[i];
    a.kernel = attrs.kernel[i];
    a.stride = attrs.strides[i];
    a.dilation = attrs.dilations[i];
    const int64_t dk = a.dilated_kernel();
    switch (attrs.auto_pad) {
      case AutoPad::kSameUpper:
      case AutoPad::kSameLower: {
        a.out = (a.in + a.stride - 1) / a.stride;
        int64_t total = std::max<int64_t>(0, (a.out - 1) * a.stride + dk - a.in);
        a.pad_begin = attrs.auto_pad == AutoPad::kSameUpper ? total / 2 : (total + 1) / 2;
        a.pad_end = total - a.pad_begin;
        break;
      }
      case AutoPad::kValid:
      case AutoPad::kNotSet: {
        if (attrs.auto_pad == AutoPad::kNotSet) {
          a.pad_begin = attrs.pads[i];
          a.pad_end = attrs.pads[i + spatial_in.size()];
        }
        const int64_t span = a.in + a.pad_begin + a.pad_end - dk;
        if (span < 0) {
          return ctx.Error(ErrorCode::kShapeMismatch,
                           "spatial axis " + std::to_string(i) + ": input size " +
                               std::to_string(a.in) + " plus pads is smaller than the kernel (" +
                               std::to_string(dk) + " with dilation)");
        }
        a.out = span / a.stride + 1;
        if (attrs.ceil_mode && span % a.stride != 0) {
          ++a.out;
          // A window must start inside the input or the begin padding; otherwise drop it.
          if ((a.out - 1) * a.stride >= a.in + a.pad_begin) --a.out;
        }
        break;
      }
    }
  }
  return Status::Ok();
}

// Pads a list of spatial axes at the front with unit axes to exactly `rank` (so 1-D and 2-D
// windows run through the 3-D loops).
inline std::vector<WindowAxis> PadAxesFront(const std::vector<WindowAxis>& axes, size_t rank) {
  std::vector<WindowAxis> out(rank > axes.size() ? rank - axes.size() : 0, WindowAxis());
  out.insert(out.end(), axes.begin(), axes.end());
  return out;
}

}  // namespace webnx::nn
