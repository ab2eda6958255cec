// MaxPool, AveragePool (1-3 spatial dims, run through 3-D loops with leading unit axes) and
// GlobalMaxPool, GlobalAveragePool (any rank).
#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/separate_function.h"
#include "kernels/nn_common.h"
#include "kernels/registrations.h"
#include "kernels/simd/maxpool.h"
#include "kernels/simd/plane_sum.h"
#include "kernels/widening.h"

namespace webnx {
namespace {

constexpr size_t kMaxSpatialRank = 3;

enum class PoolMode { kMax, kAverage };

// Per output position of one axis: the taps inside the input, and for count_include_pad the
// number of taps inside the padded input (windows may overhang the end pad in ceil mode).
struct AxisTaps {
  std::vector<int64_t> lo, hi, padded_count;
};

AxisTaps TabulateTaps(const nn::WindowAxis& axis) {
  AxisTaps t;
  t.lo.resize(axis.out);
  t.hi.resize(axis.out);
  t.padded_count.resize(axis.out);
  for (int64_t o = 0; o < axis.out; ++o) {
    axis.ValidTaps(o, &t.lo[o], &t.hi[o]);
    int64_t lo, hi;
    axis.TapRange(o, -axis.pad_begin, axis.in + axis.pad_end, &lo, &hi);
    t.padded_count[o] = hi - lo;
  }
  return t;
}

class PoolKernel : public Kernel {
 public:
  explicit PoolKernel(PoolMode mode) : mode_(mode) {}

  WEBNX_PLAN_TIME Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(1, 1));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(0, {DType::kFloat32}));
    const Shape& x = ctx.shape(0);
    if (x.size() < 3) {
      return ctx.Error(ErrorCode::kShapeMismatch,
                       "input X " + ShapeToString(x) + " must have rank >= 3 (N, C, spatial...)");
    }
    if (x.size() > 2 + kMaxSpatialRank) {
      return ctx.Error(ErrorCode::kUnsupportedOperator,
                       "only 1-3 spatial dims are supported, X is " + ShapeToString(x));
    }
    WEBNX_RETURN_IF_ERROR(ReadModeAttrs(ctx));

    const int version = ctx.since_version();
    nn::WindowOptions options;
    options.allow_ceil_mode = version >= 10;
    options.allow_dilations = mode_ == PoolMode::kMax ? version >= 10 : version >= 19;
    nn::WindowAttrs window;
    WEBNX_RETURN_IF_ERROR(nn::ReadWindowAttrs(ctx, x.size() - 2, options, &window));
    std::vector<nn::WindowAxis> axes;
    WEBNX_RETURN_IF_ERROR(nn::ComputeWindowAxes(ctx, Shape(x.begin() + 2, x.end()), window, &axes));
    Shape out = {x[0], x[1]};
    for (const nn::WindowAxis& a : axes) out.push_back(a.out);
    WEBNX_RETURN_IF_ERROR(nn::CheckNumel(ctx, out, "output"));
    ctx.SetOutput(0, DType::kFloat32, out);
    if (with_indices_) ctx.SetOutput(1, DType::kInt64, out);

    // An empty output needs no tables; otherwise N * C and every output dim are positive, so
    // the tables below are no larger than the output.
    planes_ = nn::DimProduct(out, 0, out.size()) == 0 ? 0 : x[0] * x[1];
    if (planes_ == 0) return Status::Ok();
    axes_ = nn::PadAxesFront(axes, kMaxSpatialRank);
    for (size_t i = 0; i < kMaxSpatialRank; ++i) taps_[i] = TabulateTaps(axes_[i]);
    // A window covers at most min(kernel, input) distinct rows per axis.
    rows_.assign(std::min(axes_[0].kernel, axes_[0].in) * std::min(axes_[1].kernel, axes_[1].in),
                 0);
    in_plane_ = nn::DimProduct(x, 2, x.size());
    return PlanSimd(ctx.threads());
  }

  Status Run(RunContext& ctx) override {
    const float* x = ctx.input(0).ptr<float>();
    float* y = ctx.output(0).ptr<float>();
    int64_t* indices = with_indices_ ? ctx.output(1).ptr<int64_t>() : nullptr;
    if (planes_ == 0) return Status::Ok();  // empty output: Plan made no tables
    const int64_t out_plane = axes_[0].out * axes_[1].out * axes_[2].out;
    if (mode_ == PoolMode::kMax && !indices && simd_scratch_.data) {
      ctx.ParallelFor(planes_, [&](int64_t p, int slot) {
        simd::MaxPoolPlane(simd_shape_, x + p * in_plane_, y + p * out_plane,
                           simd_scratch_.ptr<float>() + slot * simd_scratch_floats_);
      });
      return Status::Ok();
    }
    for (int64_t p = 0; p < planes_; ++p) {
      const float* xp = x + p * in_plane_;
      float* yp = y + p * out_plane;
      if (mode_ == PoolMode::kAverage) {
        AveragePlane(xp, yp);
      } else if (indices) {
        MaxPlaneWithIndices(xp, p * in_plane_, yp, indices + p * out_plane);
      } else {
        MaxPlane(xp, yp);
      }
    }
    return Status::Ok();
  }

 private:
  Status ReadModeAttrs(PlanContext& ctx) {
    Attrs& attrs = ctx.attrs();
    count_include_pad_ = false;
    with_indices_ = false;
    if (mode_ == PoolMode::kAverage) {
      count_include_pad_ = attrs.Int("count_include_pad", 0) != 0;
      return attrs.status();
    }
    storage_order_ = attrs.Int("storage_order", 0);
    WEBNX_RETURN_IF_ERROR(attrs.status());
    if (storage_order_ != 0 && storage_order_ != 1) {
      return ctx.Error(
          ErrorCode::kMalformedModel,
          "attribute 'storage_order' must be 0 or 1, got " + std::to_string(storage_order_));
    }
    with_indices_ = ctx.has_output(1);
    if (with_indices_ && ctx.since_version() < 8) {
      return ctx.Error(ErrorCode::kMalformedModel, "the Indices output needs MaxPool version 8");
    }
    return Status::Ok();
  }

  // 2-D max pooling without indices and with unit dilation takes the SIMD kernel.
  Status PlanSimd(int threads) {
    simd_scratch_ = Tensor();
    const nn::WindowAxis &ad = axes_[0], &ah = axes_[1], &aw = axes_[2];
    const bool two_d = ad.in == 1 && ad.out == 1 && ad.kernel == 1;
    if (mode_ != PoolMode::kMax || with_indices_ || !two_d || ah.dilation != 1 ||
        aw.dilation != 1) {
      return Status::Ok();
    }
    if (ah.in > INT32_MAX / 4 || aw.in > INT32_MAX / 4 || ah.kernel > 4096 || aw.kernel > 4096) {
      return Status::Ok();
    }
    simd_shape_ = simd::Pool2DShape{static_cast<int>(ah.in),        static_cast<int>(aw.in),
                                    static_cast<int>(ah.out),       static_cast<int>(aw.out),
                                    static_cast<int>(ah.kernel),    static_cast<int>(aw.kernel),
                                    static_cast<int>(ah.stride),    static_cast<int>(aw.stride),
                                    static_cast<int>(ah.pad_begin), static_cast<int>(aw.pad_begin)};
    simd_scratch_floats_ = static_cast<int64_t>(simd::MaxPoolScratchFloats(simd_shape_));
    if (simd_scratch_floats_ == 0) return Status::Ok();
    WEBNX_RETURN_IF_ERROR(Tensor::AllocateUninitialized(
        DType::kFloat32, {simd_scratch_floats_ * threads}, &simd_scratch_));
    for (int slot = 0; slot < threads; ++slot)
      simd::MaxPoolInitScratch(simd_shape_,
                               simd_scratch_.ptr<float>() + slot * simd_scratch_floats_);
    return Status::Ok();
  }

  // Plane offsets of the input rows that the windows of output row (od, oh) cover, into
  // rows_; returns how many.
  int64_t GatherRows(int64_t od, int64_t oh) {
    const nn::WindowAxis &ad = axes_[0], &ah = axes_[1];
    int64_t count = 0;
    for (int64_t kd = taps_[0].lo[od]; kd < taps_[0].hi[od]; ++kd) {
      const int64_t id = ad.start(od) + kd * ad.dilation;
      for (int64_t kh = taps_[1].lo[oh]; kh < taps_[1].hi[oh]; ++kh) {
        rows_[count++] = (id * ah.in + ah.start(oh) + kh * ah.dilation) * axes_[2].in;
      }
    }
    return count;
  }

  void AveragePlane(const float* xp, float* yp) {
    const nn::WindowAxis& aw = axes_[2];
    const AxisTaps &td = taps_[0], &th = taps_[1], &tw = taps_[2];
    for (int64_t od = 0; od < axes_[0].out; ++od) {
      for (int64_t oh = 0; oh < axes_[1].out; ++oh) {
        const int64_t nrows = GatherRows(od, oh);
        const int64_t padded_rows = td.padded_count[od] * th.padded_count[oh];
        for (int64_t ow = 0; ow < aw.out; ++ow) {
          const int64_t lo = tw.lo[ow], hi = tw.hi[ow], start = aw.start(ow);
          float sum = 0.f;
          for (int64_t r = 0; r < nrows; ++r) {
            const float* xr = xp + rows_[r] + start;
            for (int64_t kw = lo; kw < hi; ++kw) sum += xr[kw * aw.dilation];
          }
          const int64_t count =
              count_include_pad_ ? padded_rows * tw.padded_count[ow] : nrows * (hi - lo);
          *yp++ = sum / static_cast<float>(count);
        }
      }
    }
  }

  // Branch-free max (the compare selects, so NaNs are skipped as onnxruntime does).
  void MaxPlane(const float* xp, float* yp) {
    const nn::WindowAxis& aw = axes_[2];
    const AxisTaps& tw = taps_[2];
    for (int64_t od = 0; od < axes_[0].out; ++od) {
      for (int64_t oh = 0; oh < axes_[1].out; ++oh) {
        const int64_t nrows = GatherRows(od, oh);
        for (int64_t ow = 0; ow < aw.out; ++ow) {
          const int64_t lo = tw.lo[ow], hi = tw.hi[ow], start = aw.start(ow);
          float best = -std::numeric_limits<float>::infinity();
          for (int64_t r = 0; r < nrows; ++r) {
            const float* xr = xp + rows_[r] + start;
            for (int64_t kw = lo; kw < hi; ++kw) {
              const float v = xr[kw * aw.dilation];
              best = v > best ? v : best;
            }
          }
          *yp++ = best;
        }
      }
    }
  }

  // As MaxPlane, also reporting where each maximum is (the first one on ties);
  // `plane_offset` turns plane positions into the flat indices MaxPool reports.
  void MaxPlaneWithIndices(const float* xp, int64_t plane_offset, float* yp, int64_t* ip) {
    const nn::WindowAxis& aw = axes_[2];
    const AxisTaps& tw = taps_[2];
    for (int64_t od = 0; od < axes_[0].out; ++od) {
      for (int64_t oh = 0; oh < axes_[1].out; ++oh) {
        const int64_t nrows = GatherRows(od, oh);
        for (int64_t ow = 0; ow < aw.out; ++ow) {
          const int64_t lo = tw.lo[ow], hi = tw.hi[ow], start = aw.start(ow);
          float best = -std::numeric_limits<float>::infinity();
          int64_t best_at = -1;
          for (int64_t r = 0; r < nrows; ++r) {
            for (int64_t kw = lo; kw < hi; ++kw) {
              const int64_t at = rows_[r] + start + kw * aw.dilation;
              if (xp[at] > best || (best_at < 0 && xp[at] == best)) {
                best = xp[at];
                best_at = at;
              }
            }
          }
          *yp++ = best;
          *ip++ = best_at < 0 ? -1 : plane_offset + StorageIndex(best_at);
        }
      }
    }
  }

  // A row-major plane position in the requested storage order (1: column-major, the first
  // spatial axis fastest).
  int64_t StorageIndex(int64_t row_major) const {
    if (storage_order_ == 0) return row_major;
    const int64_t dn = axes_[0].in, hn = axes_[1].in, wn = axes_[2].in;
    const int64_t w = row_major % wn, h = row_major / wn % hn, d = row_major / wn / hn;
    return d + dn * (h + hn * w);
  }

  PoolMode mode_;
  bool count_include_pad_ = false;
  bool with_indices_ = false;
  int64_t storage_order_ = 0;
  std::vector<nn::WindowAxis> axes_;  // exactly 3: (depth, height, width)
  AxisTaps taps_[kMaxSpatialRank];
  std::vector<int64_t> rows_;  // GatherRows scratch: up to kernel depth * height entries
  int64_t planes_ = 0;         // N * C
  int64_t in_plane_ = 0;
  simd::Pool2DShape simd_shape_{};
  Tensor simd_scratch_;  // per thread: a -inf padded plane for the SIMD max pool; empty: scalar
  int64_t simd_scratch_floats_ = 0;
};

// Kept out of the global pool's task, which the zoo's models run averaging: V8 recompiles that
// task without this loop (inlined there, it was three quarters of the task's code).
WEBNX_SEPARATE_FUNCTION float PlaneMax(const float* x, int64_t n) {
  float best = -std::numeric_limits<float>::infinity();
  for (int64_t i = 0; i < n; ++i) best = std::max(best, x[i]);
  return best;
}

// Pools each (n, c) plane down to one value; the output keeps the rank with unit spatial dims.
class GlobalPoolKernel : public Kernel {
 public:
  explicit GlobalPoolKernel(PoolMode mode) : mode_(mode) {}

  WEBNX_PLAN_TIME Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(1, 1));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(0, {DType::kFloat32}));
    const Shape& x = ctx.shape(0);
    if (x.size() < 3) {
      return ctx.Error(ErrorCode::kShapeMismatch,
                       "input X " + ShapeToString(x) + " must have rank >= 3 (N, C, spatial...)");
    }
    planes_ = nn::DimProduct(x, 0, 2);
    plane_size_ = planes_ == 0 ? 0 : nn::DimProduct(x, 2, x.size());
    Shape out(x.size(), 1);
    out[0] = x[0];
    out[1] = x[1];
    ctx.SetOutput(0, DType::kFloat32, out);
    return Status::Ok();
  }

  // Each plane is reduced whole by one thread, so results do not depend on the thread count.
  // Tasks are runs of planes of about 16K inputs: a task per small plane (MobileNetV2 ends with
  // 1280 planes of 7x7) made the threads fight over the task counter (2 threads: 0.03 -> 0.13 ms).
  Status Run(RunContext& ctx) override {
    const float* x = ctx.input(0).ptr<float>();
    float* y = ctx.output(0).ptr<float>();
    const int64_t per_task =
        std::max<int64_t>(1, (int64_t{1} << 14) / std::max<int64_t>(plane_size_, 1));
    ctx.ParallelFor((planes_ + per_task - 1) / per_task, [&](int64_t task, int) {
      const int64_t end = std::min(planes_, (task + 1) * per_task);
      for (int64_t p = task * per_task; p < end; ++p) {
        const float* xp = x + p * plane_size_;
        if (mode_ == PoolMode::kAverage) {
          y[p] = static_cast<float>(simd::PlaneSum(xp, plane_size_) /
                                    static_cast<double>(plane_size_));
        } else {
          y[p] = PlaneMax(xp, plane_size_);
        }
      }
    });
    return Status::Ok();
  }

 private:
  PoolMode mode_;
  int64_t planes_ = 0;
  int64_t plane_size_ = 0;
};

template <PoolMode mode>
Kernel* MakePool() {
  return new PoolKernel(mode);
}
template <PoolMode mode>
Kernel* MakeGlobalPool() {
  return new GlobalPoolKernel(mode);
}

}  // namespace

void RegisterPoolKernels(OpRegistry& r) {
  // 8 added the optional Indices output.
  r.Register("", "MaxPool",
             {{{1}, Inputs(1), Outputs(1)}, {{8, 10, 11, 12, 22}, Inputs(1), Outputs(1, 2)}},
             MakeWidening<MakePool<PoolMode::kMax>, Uint64As::kNone, SmallIntsAs::kFloat32>);
  r.Register("", "AveragePool", {{1, 7, 10, 11, 19, 22}, Inputs(1), Outputs(1)},
             MakePool<PoolMode::kAverage>);
  r.Register("", "GlobalMaxPool", {{1, 22}, Inputs(1), Outputs(1)}, MakeGlobalPool<PoolMode::kMax>);
  r.Register("", "GlobalAveragePool", {{1, 22}, Inputs(1), Outputs(1)},
             MakeGlobalPool<PoolMode::kAverage>);
}

}  // namespace webnx
