#include "kernels/simd/conv_rows.h"

#include <algorithm>

#include "kernels/simd/vec.h"

namespace webnx::simd {
namespace {

// Where output row y's kernel rows fall in X: kernel row kh reads input row first + kh * step.
struct RowTaps {
  int first, step;
  bool Inside(const ConvRowsShape& s, int kh) const {
    const int iy = first + kh * step;
    return iy >= 0 && iy < s.in_h;
  }
};

// Output column ox, every tap checked against X's columns (the row's first and last columns,
// which padding reaches).
float OutputAt(const ConvRowsShape& s, const float* x, const float* w, float bias, RowTaps rows,
               int ox) {
  const int plane = s.in_h * s.in_w;
  float acc = bias;
  for (int c = 0; c < s.in_channels; ++c) {
    for (int kh = 0; kh < s.kernel_h; ++kh) {
      if (!rows.Inside(s, kh)) continue;
      const float* row = x + c * plane + (rows.first + kh * rows.step) * s.in_w;
      const float* wr = w + (c * s.kernel_h + kh) * s.kernel_w;
      WEBNX_PLAIN_LOOP
      for (int kw = 0; kw < s.kernel_w; ++kw) {
        const int ix = ox - s.pad_left + kw * s.dilation_w;
        if (ix >= 0 && ix < s.in_w) acc += wr[kw] * row[ix];
      }
    }
  }
  return acc;
}

// kVecs * 4 outputs from column ox on, every tap inside X.
template <int kVecs>
WEBNX_SEPARATE_FUNCTION void Block(const ConvRowsShape& s, const float* x, const float* w,
                                   float bias, RowTaps rows, int ox, const float* addend, f32x4 lo,
                                   f32x4 hi, float* out) {
  const int plane = s.in_h * s.in_w;
  f32x4 acc[kVecs];
  for (int v = 0; v < kVecs; ++v) acc[v] = Splat(bias);
  for (int c = 0; c < s.in_channels; ++c) {
    for (int kh = 0; kh < s.kernel_h; ++kh) {
      if (!rows.Inside(s, kh)) continue;
      const float* row = x + c * plane + (rows.first + kh * rows.step) * s.in_w + ox - s.pad_left;
      const float* wr = w + (c * s.kernel_h + kh) * s.kernel_w;
      for (int kw = 0; kw < s.kernel_w; ++kw) {
        const f32x4 tap = LoadSplat(wr + kw);
        const float* at = row + kw * s.dilation_w;
        for (int v = 0; v < kVecs; ++v) acc[v] = MulAdd(acc[v], tap, Load(at + 4 * v));
      }
    }
  }
  for (int v = 0; v < kVecs; ++v) {
    if (addend) acc[v] = Add(acc[v], Load(addend + ox + 4 * v));
    Store(out + ox + 4 * v, Clamp(acc[v], lo, hi));
  }
}

}  // namespace

void ConvRow(const ConvRowsShape& s, const float* x, const float* w, float bias, int y,
             const float* addend, float lo, float hi, float* out) {
  const RowTaps rows{y - s.pad_top, s.dilation_h};
  // Columns [inner_begin, inner_end) have every tap inside X.
  const int reach = (s.kernel_w - 1) * s.dilation_w;
  const int inner_begin = std::min(s.pad_left, s.out_w);
  const int inner_end = std::max(inner_begin, std::min(s.out_w, s.in_w - reach + s.pad_left));
  const f32x4 vlo = Splat(lo), vhi = Splat(hi);
  auto edge = [&](int ox) {  // the vector path's arithmetic and clamp, lane by lane
    float v = OutputAt(s, x, w, bias, rows, ox);
    if (addend) v += addend[ox];
    v = lo < v ? v : lo;
    out[ox] = v < hi ? v : hi;
  };
  for (int ox = 0; ox < inner_begin; ++ox) edge(ox);
  int ox = inner_begin;
  for (; ox + 32 <= inner_end; ox += 32) Block<8>(s, x, w, bias, rows, ox, addend, vlo, vhi, out);
  for (; ox + 16 <= inner_end; ox += 16) Block<4>(s, x, w, bias, rows, ox, addend, vlo, vhi, out);
  if (ox < inner_end && inner_end - inner_begin >= 16 && addend != out) {
    // The last columns as one block ending at inner_end: the ones it repeats come out the same
    // (unless the residual is the output itself, already overwritten).
    Block<4>(s, x, w, bias, rows, inner_end - 16, addend, vlo, vhi, out);
    ox = inner_end;
  }
  for (; ox + 4 <= inner_end; ox += 4) Block<1>(s, x, w, bias, rows, ox, addend, vlo, vhi, out);
  for (; ox < s.out_w; ++ox) edge(ox);
}

}  // namespace webnx::simd
