#include "kernels/simd/dwconv_quads.h"

#include <algorithm>
#include <cstring>

namespace webnx::simd {
namespace {

constexpr int kOutputs = 4;     // per dot: one int32 lane each
constexpr int64_t kSlack = 16;  // a 16-byte load from the last block's first column

}  // namespace

bool DepthwiseQuadsFits(const nn::WindowAxis& h, const nn::WindowAxis& w) {
  return w.kernel <= 4 && (kOutputs - 1) * w.stride + (w.kernel - 1) * w.dilation < 16 &&
         h.kernel <= 16;
}

DepthwiseQuadsShape MakeDepthwiseQuadsShape(const nn::WindowAxis& h, const nn::WindowAxis& w) {
  DepthwiseQuadsShape s;
  s.h = h, s.w = w;
  s.padded_rows =
      std::max((h.out - 1) * h.stride + (h.kernel - 1) * h.dilation + 1, h.pad_begin + h.in);
  const int64_t blocks = (w.out + kOutputs - 1) / kOutputs * kOutputs;
  s.padded_cols = std::max((blocks - kOutputs) * w.stride + kSlack, w.pad_begin + w.in);
  return s;
}

}  // namespace webnx::simd

#if WEBNX_HAS_DOT_I8
namespace webnx::simd {
namespace {

// Lane j's four bytes after the shuffle: output j's taps of one kernel row. A tap past the
// kernel's width reads any byte of the load (its weight and its `ones` byte are 0).
v128_t TapShuffle(const nn::WindowAxis& w) {
  uint8_t index[16];
  for (int j = 0; j < kOutputs; ++j) {
    for (int t = 0; t < 4; ++t) {
      const int64_t tap = t < w.kernel ? t : 0;
      index[4 * j + t] = static_cast<uint8_t>(j * w.stride + tap * w.dilation);
    }
  }
  return wasm_v128_load(index);
}

// The channel's plane, flipped into the dot's signedness, inside a plane of its zero point.
void FillPadded(const DepthwiseQuadsShape& s, const uint8_t* x, Flip flip, uint8_t pad,
                uint8_t* padded) {
  std::memset(padded, pad, s.PlaneBytes());
  for (int64_t ih = 0; ih < s.h.in; ++ih) {
    CopyFlipped(x + ih * s.w.in, s.w.in, static_cast<uint8_t>(flip.byte),
                padded + (ih + s.h.pad_begin) * s.padded_cols + s.w.pad_begin);
  }
}

// What every block of four outputs reads: the tap shuffle, the step between kernel rows, each
// kernel row's weights, the ones that sum the window (zw != 0) and the zero points' constant.
struct Taps {
  v128_t shuffle;
  int64_t row_step;
  const v128_t* row_weights;
  v128_t ones;
  int32_t w_zero;
  v128_t constant;
};

// Four outputs from `base`: a dot per kernel row (kRows of them, or `rows` when 0), and the
// window's sum times zw when kWeightZeroPoint (zw != 0).
template <int kRows, bool kWeightZeroPoint>
inline v128_t FourOutputs(const uint8_t* base, int rows, const Taps& t) {
  const int count = kRows ? kRows : rows;
  v128_t acc = t.constant, sums = wasm_i32x4_splat(0);
  for (int kh = 0; kh < count; ++kh) {
    const v128_t taps = SwizzleInRange(wasm_v128_load(base + kh * t.row_step), t.shuffle);
    acc = DotAdd(t.row_weights[kh], taps, acc);
    if (kWeightZeroPoint) sums = DotAdd(t.ones, taps, sums);
  }
  if (!kWeightZeroPoint) return acc;
  return wasm_i32x4_sub(acc, wasm_i32x4_mul(wasm_i32x4_splat(t.w_zero), sums));
}

template <int kRows, bool kWeightZeroPoint>
void OutputRows(const DepthwiseQuadsShape& s, const uint8_t* padded, const Taps& t, int32_t* out) {
  const int rows = static_cast<int>(s.h.kernel);
  for (int64_t oh = 0; oh < s.h.out; ++oh) {
    const uint8_t* row = padded + oh * s.h.stride * s.padded_cols;
    int32_t* dst = out + oh * s.w.out;
    int64_t ow = 0;
    for (; ow + kOutputs <= s.w.out; ow += kOutputs) {
      const v128_t four = FourOutputs<kRows, kWeightZeroPoint>(row + ow * s.w.stride, rows, t);
      wasm_v128_store(dst + ow, four);
    }
    if (ow == s.w.out) continue;
    const v128_t last = FourOutputs<kRows, kWeightZeroPoint>(row + ow * s.w.stride, rows, t);
    StoreFirstInts(dst + ow, last, last, static_cast<int>(s.w.out - ow));
  }
}

}  // namespace

void DepthwiseQuads(const DepthwiseQuadsShape& s, const uint8_t* x, DType x_type, int32_t zx,
                    const uint8_t* weights, DType w_type, int32_t zw, bool unsigned_x,
                    uint8_t* padded, int32_t* out) {
  const Flip x_flip = FlipInto(x_type, unsigned_x), w_flip = FlipInto(w_type, false);
  const int32_t x_zero = zx + x_flip.zero_point_shift, w_zero = zw + w_flip.zero_point_shift;
  FillPadded(s, x, x_flip, static_cast<uint8_t>(x_zero), padded);
  // Each kernel row's weights as one lane's bytes (int8, zeros past the width), and their sum.
  const int rows = static_cast<int>(s.h.kernel), width = static_cast<int>(s.w.kernel);
  v128_t row_weights[16];
  int64_t weight_sum = 0;
  for (int kh = 0; kh < rows; ++kh) {
    int8_t lane[4] = {0, 0, 0, 0};
    for (int t = 0; t < width; ++t) {
      lane[t] = static_cast<int8_t>(weights[kh * width + t] ^ w_flip.byte);
      weight_sum += lane[t];
    }
    int32_t packed;
    std::memcpy(&packed, lane, sizeof(packed));
    row_weights[kh] = wasm_i32x4_splat(packed);
  }
  const int8_t ones_lane[4] = {1, width > 1, width > 2, width > 3};
  int32_t ones_packed;
  std::memcpy(&ones_packed, ones_lane, sizeof(ones_packed));
  const v128_t ones = wasm_i32x4_splat(ones_packed), shuffle = TapShuffle(s.w);
  const int64_t taps = int64_t{rows} * width;
  const v128_t constant =
      wasm_i32x4_splat(WrapToInt32(taps * x_zero * int64_t{w_zero} - int64_t{x_zero} * weight_sum));
  const Taps taps_of{shuffle, s.h.dilation * s.padded_cols, row_weights, ones, w_zero, constant};
  // 3 x 3 kernels, nearly all of them, with the kernel rows unrolled and their weights held.
  if (rows == 3 && w_zero == 0) {
    OutputRows<3, false>(s, padded, taps_of, out);
  } else if (rows == 3) {
    OutputRows<3, true>(s, padded, taps_of, out);
  } else {
    OutputRows<0, true>(s, padded, taps_of, out);
  }
}

}  // namespace webnx::simd
#endif
