#include "kernels/conv_transpose_col2im.h"

#include <algorithm>

namespace webnx::conv_transpose {
namespace {

// ceil(a / b) for b > 0 and any sign of a.
int64_t CeilDiv(int64_t a, int64_t b) {
  return a >= 0 ? (a + b - 1) / b : -(-a / b);
}

// Calls fn(line, x0, x1, col) for each run of the flat input positions [first, first + width)
// within one line of the innermost axis (`line_length` long): positions [x0, x1) of that line,
// whose products start at column `col` of the block.
template <typename Fn>
void ForEachLine(int64_t first, int64_t width, int64_t line_length, Fn&& fn) {
  int64_t line = first / line_length, x0 = first % line_length;
  for (int64_t col = 0; col < width; ++line, x0 = 0) {
    const int64_t x1 = std::min(line_length, x0 + width - col);
    fn(line, x0, x1, col);
    col += x1 - x0;
  }
}

// y[base + i * stride] += src[src_base + i] for i in [lo, hi).
inline void AddRun(const float* src, int64_t src_base, int64_t lo, int64_t hi, float* y,
                   int64_t base, int64_t stride) {
  if (stride == 1) {
    for (int64_t i = lo; i < hi; ++i) y[base + i] += src[src_base + i];
    return;
  }
  for (int64_t i = lo; i < hi; ++i) y[base + i * stride] += src[src_base + i];
}

}  // namespace

void Col2Im::Plan(const ConvTransposeShape& s) {
  outer_axes_.assign(s.axes.begin(), s.axes.end() - 1);
  if (outer_axes_.empty()) outer_axes_.push_back(Axis());  // 1-D: a unit axis before it
  inner_ = s.axes.back();
  kernel_size_ = s.kernel_size;
  out_plane_ = s.out_plane;
  inner_spans_.assign(inner_.kernel, TapSpan());
  for (int64_t k = 0; k < inner_.kernel; ++k) {
    TapSpan& span = inner_spans_[k];
    span.offset = inner_.OutputOf(0, k);
    // 0 <= i * stride + offset < out, within the input's [0, in).
    span.lo = std::min(inner_.in, std::max<int64_t>(0, CeilDiv(-span.offset, inner_.stride)));
    span.hi =
        std::max(span.lo, std::min(inner_.in, CeilDiv(inner_.out - span.offset, inner_.stride)));
  }
}

void Col2Im::Add(const float* cols, int64_t channels, int64_t first, int64_t width,
                 float* y) const {
  if (outer_axes_.size() == 1) {
    Add2D(cols, channels, first, width, y);
  } else {
    AddND(cols, channels, first, width, y);
  }
}

void Col2Im::Add2D(const float* cols, int64_t channels, int64_t first, int64_t width,
                   float* y) const {
  const Axis& outer = outer_axes_[0];
  for (int64_t c = 0; c < channels; ++c) {
    float* y_plane = y + c * out_plane_;
    const float* tap_row = cols + c * kernel_size_ * width;
    for (int64_t kh = 0; kh < outer.kernel; ++kh) {
      for (int64_t kw = 0; kw < inner_.kernel; ++kw, tap_row += width) {
        const TapSpan& span = inner_spans_[kw];
        ForEachLine(first, width, inner_.in,
                    [&](int64_t line, int64_t x0, int64_t x1, int64_t col) {
                      const int64_t oh = outer.OutputOf(line, kh);
                      if (oh < 0 || oh >= outer.out) return;
                      AddRun(tap_row, col - x0, std::max(x0, span.lo), std::min(x1, span.hi),
                             y_plane, oh * inner_.out + span.offset, inner_.stride);
                    });
      }
    }
  }
}

void Col2Im::AddND(const float* cols, int64_t channels, int64_t first, int64_t width,
                   float* y) const {
  for (int64_t c = 0; c < channels; ++c) {
    float* y_plane = y + c * out_plane_;
    const float* tap_row = cols + c * kernel_size_ * width;
    for (int64_t tap = 0; tap < kernel_size_; ++tap, tap_row += width) {
      const TapSpan& span = inner_spans_[tap % inner_.kernel];
      const int64_t outer_tap = tap / inner_.kernel;
      ForEachLine(first, width, inner_.in, [&](int64_t line, int64_t x0, int64_t x1, int64_t col) {
        const int64_t outer_offset = OuterOffset(line, outer_tap);
        if (outer_offset < 0) return;
        AddRun(tap_row, col - x0, std::max(x0, span.lo), std::min(x1, span.hi), y_plane,
               outer_offset + span.offset, inner_.stride);
      });
    }
  }
}

int64_t Col2Im::OuterOffset(int64_t line, int64_t outer_tap) const {
  int64_t offset = 0, out_stride = inner_.out;
  for (size_t a = outer_axes_.size(); a-- > 0;) {
    const Axis& axis = outer_axes_[a];
    const int64_t o = axis.OutputOf(line % axis.in, outer_tap % axis.kernel);
    if (o < 0 || o >= axis.out) return -1;
    offset += o * out_stride;
    out_stride *= axis.out;
    line /= axis.in;
    outer_tap /= axis.kernel;
  }
  return offset;
}

}  // namespace webnx::conv_transpose
