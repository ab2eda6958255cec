#include "kernels/simd/dwconv4.h"

#include <algorithm>
#include <climits>
#include <cstdint>

#include "kernels/simd/vec.h"

namespace webnx::simd {
namespace {

// The padded interleaved input: rows x cols pixels of 4 floats, input pixel (y, x) at
// (y + pad_top, x + pad_left).
struct Padded4 {
  int rows, cols;
};

Padded4 PaddedGeometry4(const DepthwiseShape& s) {
  return {(s.out_h - 1) * s.stride_h + (s.kernel_h - 1) * s.dilation_h + 1,
          (s.out_w - 1) * s.stride_w + (s.kernel_w - 1) * s.dilation_w + 1};
}

int Taps(const DepthwiseShape& s) {
  return s.kernel_h * s.kernel_w;
}

// Input rows and columns that land inside the padded copy.
int InteriorRows(const DepthwiseShape& s, const Padded4& p) {
  return std::max(0, std::min(s.in_h, p.rows - s.pad_top));
}
int InteriorCols(const DepthwiseShape& s, const Padded4& p) {
  return std::max(0, std::min(s.in_w, p.cols - s.pad_left));
}

// Interleaves `count` planes into the interior of the padded copy (missing channels as zero).
void Interleave(const DepthwiseShape& s, const Padded4& p, const float* in, size_t in_plane,
                int count, float* padded) {
  const int rows = InteriorRows(s, p), cols = InteriorCols(s, p);
  for (int y = 0; y < rows; ++y) {
    float* dst = padded + (static_cast<size_t>(y + s.pad_top) * p.cols + s.pad_left) * 4;
    const float* src = in + static_cast<size_t>(y) * s.in_w;
    int x = 0;
    if (count == 4) {
      for (; x + 4 <= cols; x += 4) {
        f32x4 a = Load(src + x), b = Load(src + in_plane + x);
        f32x4 c = Load(src + 2 * in_plane + x), d = Load(src + 3 * in_plane + x);
        Transpose4x4(a, b, c, d);
        Store(dst + 4 * x, a);
        Store(dst + 4 * x + 4, b);
        Store(dst + 4 * x + 8, c);
        Store(dst + 4 * x + 12, d);
      }
    }
    // Scalar leftovers: kept as plain loops (unrolled and vectorised they cost kilobytes).
    WEBNX_PLAIN_LOOP
    for (; x < cols; ++x) {
      WEBNX_PLAIN_LOOP
      for (int c = 0; c < 4; ++c) dst[4 * x + c] = c < count ? src[c * in_plane + x] : 0.f;
    }
  }
}

// Splits the interleaved output back into `count` planes.
void Deinterleave(const DepthwiseShape& s, const float* result, int count, float* out,
                  size_t out_plane) {
  const int pixels = s.out_h * s.out_w;
  int i = 0;
  if (count == 4) {
    for (; i + 4 <= pixels; i += 4) {
      f32x4 a = Load(result + 4 * i), b = Load(result + 4 * i + 4);
      f32x4 c = Load(result + 4 * i + 8), d = Load(result + 4 * i + 12);
      Transpose4x4(a, b, c, d);
      Store(out + i, a);
      Store(out + out_plane + i, b);
      Store(out + 2 * out_plane + i, c);
      Store(out + 3 * out_plane + i, d);
    }
  }
  WEBNX_PLAIN_LOOP
  for (; i < pixels; ++i) {
    WEBNX_PLAIN_LOOP
    for (int c = 0; c < count; ++c) out[c * out_plane + i] = result[4 * i + c];
  }
}

// kPixels consecutive output pixels of one row, starting at padded pixel `first` (the top-left
// tap of the first pixel), kStride pixels apart (0: s.stride_w). A constant stride makes every
// input load's offset a constant: with a runtime one, V8 computed each address with its own
// register and spilled (MobileNetV2's depthwise convs ~20% slower). Taps run in a loop:
// unrolled, LLVM issues all their loads first and V8 spills them.
template <int kPixels, int kStride>
inline void Pixels(const DepthwiseShape& s, const Padded4& p, const float* first, const float* w,
                   f32x4 bias, f32x4 lo, f32x4 hi, float* dst) {
  const size_t step = static_cast<size_t>(kStride ? kStride : s.stride_w) * 4;
  f32x4 acc[kPixels];
  for (int i = 0; i < kPixels; ++i) acc[i] = bias;
  WEBNX_NO_UNROLL
  for (int ky = 0; ky < s.kernel_h; ++ky) {
    const float* row = first + static_cast<size_t>(ky) * s.dilation_h * p.cols * 4;
    WEBNX_NO_UNROLL
    for (int kx = 0; kx < s.kernel_w; ++kx, w += 4) {
      const f32x4 wv = Load(w);
      const float* tap = row + static_cast<size_t>(kx) * s.dilation_w * 4;
      for (int i = 0; i < kPixels; ++i) acc[i] = MulAdd(acc[i], wv, Load(tap + i * step));
    }
  }
  for (int i = 0; i < kPixels; ++i) Store(dst + 4 * i, Clamp(acc[i], lo, hi));
}

// Every output row in groups of kGroup pixels: a group running past its row writes the next
// row's first pixels (recomputed right after) or the slack. A function of its own per variant:
// V8 then compiles only the variants a model runs, each quickly (the first run waits for them).
template <int kGroup, int kStride>
WEBNX_SEPARATE_FUNCTION void Rows(const DepthwiseShape& s, const Padded4& p, const float* padded,
                                  const float* weights, f32x4 bias, f32x4 lo, f32x4 hi,
                                  float* result) {
  for (int oy = 0; oy < s.out_h; ++oy) {
    const float* row = padded + static_cast<size_t>(oy) * s.stride_h * p.cols * 4;
    float* dst = result + static_cast<size_t>(oy) * s.out_w * 4;
    for (int ox = 0; ox < s.out_w; ox += kGroup) {
      Pixels<kGroup, kStride>(s, p, row + static_cast<size_t>(ox) * s.stride_w * 4, weights, bias,
                              lo, hi, dst + 4 * ox);
    }
  }
}

// Pixels per group: 7 (7 accumulators, 7 inputs and a weight fill V8's 15 vector registers
// without spilling; 8 spilled) or 4 when rows of 4 waste fewer pixels (width 8 or 16). Every
// plane of the zoo is a multiple of 7 wide.
constexpr int kMaxGroup = 7;

template <int kStride>
void AllRows(const DepthwiseShape& s, const Padded4& p, const float* padded, const float* weights,
             f32x4 bias, f32x4 lo, f32x4 hi, float* result) {
  const int by7 = (s.out_w + 6) / 7 * 7, by4 = (s.out_w + 3) / 4 * 4;
  if (by4 * 5 < by7 * 4) return Rows<4, kStride>(s, p, padded, weights, bias, lo, hi, result);
  Rows<7, kStride>(s, p, padded, weights, bias, lo, hi, result);
}

// Floats between the padded input and the result, and after the result: a row's last group
// may run up to kMaxGroup - 1 pixels past the row, reading past the padded input's last row and
// writing past the result's last pixel.
size_t InputSlack(const DepthwiseShape& s) {
  return static_cast<size_t>(kMaxGroup - 1) * s.stride_w * 4;
}
constexpr size_t kResultSlack = (kMaxGroup - 1) * 4;

}  // namespace

size_t Depthwise4ScratchFloats(const DepthwiseShape& s) {
  if (s.out_h <= 0 || s.out_w <= 0 || s.in_h <= 0 || s.in_w <= 0) return 0;
  // The padded copy spans the taps of every output; huge pads or dilations around a small input
  // would make it far larger than the data (and overflow int): those take the scalar loop.
  const int64_t rows =
      (int64_t{s.out_h} - 1) * s.stride_h + (int64_t{s.kernel_h} - 1) * s.dilation_h + 1;
  const int64_t cols =
      (int64_t{s.out_w} - 1) * s.stride_w + (int64_t{s.kernel_w} - 1) * s.dilation_w + 1;
  const int64_t data = int64_t{s.in_h} * s.in_w + int64_t{s.out_h} * s.out_w;
  if (rows > INT32_MAX / 4 || cols > INT32_MAX / 4 || rows * cols > 2 * data + 4096) return 0;
  const Padded4 p = PaddedGeometry4(s);
  return static_cast<size_t>(p.rows) * p.cols * 4 + InputSlack(s) +
         static_cast<size_t>(s.out_h) * s.out_w * 4 + kResultSlack;
}

WEBNX_PLAN_TIME void Depthwise4InitScratch(const DepthwiseShape& s, float* scratch) {
  std::fill(scratch, scratch + Depthwise4ScratchFloats(s), 0.f);
}

size_t Depthwise4WeightFloats(const DepthwiseShape& s, int channels) {
  return static_cast<size_t>((channels + 3) / 4) * Taps(s) * 4;
}

WEBNX_PLAN_TIME void Depthwise4PackWeights(const DepthwiseShape& s, int channels, const float* w,
                                           float* packed) {
  const int taps = Taps(s);
  for (int c0 = 0; c0 < channels; c0 += 4) {
    for (int t = 0; t < taps; ++t, packed += 4)
      for (int c = 0; c < 4; ++c)
        packed[c] = c0 + c < channels ? w[static_cast<size_t>(c0 + c) * taps + t] : 0.f;
  }
}

InterleavedImage Depthwise4ScratchInput(const DepthwiseShape& s, float* scratch) {
  const Padded4 p = PaddedGeometry4(s);
  InterleavedImage image;
  image.row_stride = static_cast<size_t>(p.cols) * 4;
  image.origin = scratch + s.pad_top * image.row_stride + static_cast<size_t>(s.pad_left) * 4;
  image.width = s.in_w;
  image.rows = InteriorRows(s, p);
  image.cols = InteriorCols(s, p);
  return image;
}

void Depthwise4Interleave(const DepthwiseShape& s, const float* in, size_t in_plane, int count,
                          float* scratch) {
  Interleave(s, PaddedGeometry4(s), in, in_plane, count, scratch);
}

void Depthwise4Block(const DepthwiseShape& s, const float* in, size_t in_plane, int c0, int count,
                     const float* packed, const float* bias, float lo, float hi, float* out,
                     size_t out_plane, float* scratch) {
  Depthwise4Interleave(s, in, in_plane, count, scratch);
  Depthwise4FromScratch(s, c0, count, packed, bias, lo, hi, out, out_plane, scratch);
}

void Depthwise4FromScratch(const DepthwiseShape& s, int c0, int count, const float* packed,
                           const float* bias, float lo, float hi, float* out, size_t out_plane,
                           float* scratch) {
  const Padded4 p = PaddedGeometry4(s);
  const float* padded = scratch;
  float* result = scratch + static_cast<size_t>(p.rows) * p.cols * 4 + InputSlack(s);
  const float* block_weights = packed + static_cast<size_t>(c0 / 4) * Taps(s) * 4;
  alignas(16) float biases[4] = {0.f, 0.f, 0.f, 0.f};
  for (int c = 0; c < count && bias; ++c) biases[c] = bias[c];
  const f32x4 vbias = Load(biases), vlo = Splat(lo), vhi = Splat(hi);
  if (s.stride_w == 1) {
    AllRows<1>(s, p, padded, block_weights, vbias, vlo, vhi, result);
  } else if (s.stride_w == 2) {
    AllRows<2>(s, p, padded, block_weights, vbias, vlo, vhi, result);
  } else {
    AllRows<0>(s, p, padded, block_weights, vbias, vlo, vhi, result);
  }
  Deinterleave(s, result, count, out, out_plane);
}

}  // namespace webnx::simd
