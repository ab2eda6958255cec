#include "kernels/conv_reference.h"

#include <algorithm>

#include "core/separate_function.h"
#include "kernels/gemm_ref.h"

namespace webnx::conv {
namespace {

// im2col works on bands of output rows whose column matrix stays near this size (1 MiB).
constexpr int64_t kColBudgetFloats = int64_t{1} << 18;

// Floor division for a positive divisor and any sign of numerator.
int64_t FloorDiv(int64_t a, int64_t b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}
int64_t CeilDiv(int64_t a, int64_t b) {
  return -FloorDiv(-a, b);
}

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

// yrow[o] += sum over taps k of w[k] * xrow[o * stride + offset_k], for in-range inputs.
void AccumulateRow(int64_t stride, const std::vector<TapSpan>& spans, const float* xrow,
                   const float* wtaps, float* yrow) {
  for (size_t k = 0; k < spans.size(); ++k) {
    const TapSpan& s = spans[k];
    const float wv = wtaps[k];
    if (stride == 1) {
      const float* src = xrow + s.offset;
      for (int64_t o = s.lo; o < s.hi; ++o) yrow[o] += wv * src[o];
    } else {
      for (int64_t o = s.lo; o < s.hi; ++o) yrow[o] += wv * xrow[o * stride + s.offset];
    }
  }
}

// One input channel per group: each output channel m accumulates its kernel taps over the
// single input plane of its group, a contiguous output row at a time.
void RunDirect(const ConvShape& shape, const std::vector<TapSpan>& spans, const float* xg,
               const float* wg, float* yg) {
  const nn::WindowAxis& ad = shape.axes[0];
  const nn::WindowAxis& ah = shape.axes[1];
  const nn::WindowAxis& aw = shape.axes[2];
  for (int64_t m = 0; m < shape.group_out; ++m) {
    const float* wm = wg + m * shape.kernel_size;
    float* ym = yg + m * shape.out_plane;
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
            AccumulateRow(shape.axes[2].stride, spans, xrow, wtaps, yrow);
          }
        }
      }
    }
  }
}

// Fills col[(c, kd, kh, kw), p] for the output rows [r0, r1) of the (od, oh) grid, where p
// runs over those rows' output positions; padding reads as zero.
void Im2ColBand(const ConvShape& shape, const std::vector<TapSpan>& spans, const float* xg,
                int64_t r0, int64_t r1, float* col) {
  const nn::WindowAxis& ad = shape.axes[0];
  const nn::WindowAxis& ah = shape.axes[1];
  const nn::WindowAxis& aw = shape.axes[2];
  const int64_t cols = (r1 - r0) * aw.out;
  float* dst = col;
  for (int64_t c = 0; c < shape.group_in; ++c) {
    const float* xc = xg + c * shape.in_plane;
    for (int64_t kd = 0; kd < ad.kernel; ++kd) {
      for (int64_t kh = 0; kh < ah.kernel; ++kh) {
        for (int64_t kw = 0; kw < aw.kernel; ++kw, dst += cols) {
          const TapSpan& s = spans[kw];
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

}  // namespace

WEBNX_PLAN_TIME Status Reference::Plan(const PlanContext& ctx) {
  if (path_ == Path::kBiasOnly) return Status::Ok();
  inner_spans_ = InnerTapSpans(s_.axes[2]);
  if (path_ != Path::kIm2Col) return Status::Ok();

  // Rows of the column matrix: one per (input channel, kernel tap).
  if (!ShapeNumel({s_.group_in, s_.kernel_size}, &col_rows_)) {
    return ctx.Error(ErrorCode::kOutOfMemory, "im2col buffer size overflows");
  }
  const int64_t out_rows = s_.axes[0].out * s_.axes[1].out;
  const int64_t row_cols = s_.axes[2].out;
  band_rows_ = std::clamp<int64_t>(kColBudgetFloats / col_rows_ / row_cols, 1, out_rows);
  return Tensor::Allocate(DType::kFloat32, {col_rows_, band_rows_ * row_cols}, &buffers_.scratch);
}

WEBNX_SEPARATE_FUNCTION void Reference::Run(const RunContext& ctx, const RunArgs& args) {
  const float* x = args.x;
  const float* w = args.w;
  const float* bias = args.bias;
  float* y = args.y;
  const int64_t group_in = s_.group_in, group_out = s_.group_out;
  const int64_t out_plane = s_.out_plane;
  for (int64_t n = 0; n < s_.batch; ++n) {
    for (int64_t g = 0; g < s_.groups; ++g) {
      const float* xg = x + (n * s_.in_channels + g * group_in) * s_.in_plane;
      const float* wg = w + g * group_out * group_in * s_.kernel_size;
      float* yg = y + (n * s_.out_channels + g * group_out) * out_plane;
      for (int64_t m = 0; m < group_out; ++m) {
        const float init = bias ? bias[g * group_out + m] : 0.f;
        std::fill(yg + m * out_plane, yg + (m + 1) * out_plane, init);
      }
      switch (path_) {
        case Path::kBiasOnly:
          break;
        case Path::kDirect:
          RunDirect(s_, inner_spans_, xg, wg, yg);
          break;
        case Path::kPointwise:
          GemmRef(false, false, group_out, out_plane, group_in, 1.f, wg, group_in, xg, out_plane,
                  1.f, yg, out_plane);
          break;
        case Path::kIm2Col:
          RunIm2Col(xg, wg, yg);
          break;
      }
    }
  }
  const Epilogue& ep = s_.epilogue;
  if (ep.HasClamp()) {
    const int64_t total = s_.batch * s_.out_channels * out_plane;
    for (int64_t i = 0; i < total; ++i) y[i] = std::min(std::max(y[i], ep.clamp_lo), ep.clamp_hi);
  }
}

void Reference::RunIm2Col(const float* xg, const float* wg, float* yg) {
  const int64_t out_rows = s_.axes[0].out * s_.axes[1].out;
  const int64_t row_cols = s_.axes[2].out;
  float* col = buffers_.scratch.ptr<float>();
  for (int64_t r0 = 0; r0 < out_rows; r0 += band_rows_) {
    const int64_t r1 = std::min(out_rows, r0 + band_rows_);
    const int64_t cols = (r1 - r0) * row_cols;
    Im2ColBand(s_, inner_spans_, xg, r0, r1, col);
    GemmRef(false, false, s_.group_out, cols, col_rows_, 1.f, wg, col_rows_, col, cols, 1.f,
            yg + r0 * row_cols, s_.out_plane);
  }
}

}  // namespace webnx::conv
