// How the int32 sums of a quantized convolution become its output, per output channel: for
// QLinearConv, requantized to 8 bits by one multiplier (x_scale * w_scale[c] / y_scale) after
// its int32 bias; for the fused float chains (DynamicQuantizeConv, QDQConv), dequantized to
// float32 as the chain computes it (times x_scale * w_scale[c], plus bias[c], then a residual
// sum and a clamp), and for a QDQConv handing 8-bit values to the next, quantized again by
// y_scale and y_zp. Each run's factors are computed once before the product, so that a chunk
// of columns costs only its arithmetic.
#pragma once

#include <cstdint>
#include <vector>

#include "core/tensor.h"
#include "kernels/simd/gemm_i8_quads.h"

namespace webnx::quant {

// Columns [begin, end) of the output planes.
struct Columns {
  int64_t begin, end;
  int64_t size() const { return end - begin; }
};

class ConvOutput {
 public:
  // The factors of `channels` output channels, sized when planned: a run allocates nothing.
  void Size(int64_t channels);
  // Requantized to y's 8-bit type: `bias` int32 (may be null) and the scales per tensor or
  // per channel.
  void PrepareRequantize(const Tensor& x_scale, const Tensor& w_scale, const Tensor& y_scale,
                         const Tensor& y_zero_point, const Tensor* bias);
  // Dequantized by x_scale (this run's) and w_scale, plus `bias` (float32, or int32 times
  // bias_scale; may be null); `addend` (may be null) and the clamp after; then quantized by
  // y_scale and y_zero_point when both are given (y uint8).
  struct Dequantize {
    float x_scale;
    const Tensor* w_scale;
    const Tensor *bias, *bias_scale;
    const float* addend;
    bool clamp;
    float lo, hi;
    const Tensor *y_scale, *y_zero_point;
  };
  void PrepareDequantize(const Dequantize& args);

  // The sums of `count` channels from oc0 for columns `columns` of their planes (each channel's
  // from `sums` + i * sums_ld on), into y's channels from first_out (planes of `plane` values).
  void Write(const int32_t* sums, int64_t sums_ld, int64_t plane, int64_t first_out, int64_t oc0,
             int64_t count, Columns columns, Tensor* y) const;

  // Where Write would requantize to uint8 by simd::RequantizeRowsToU8: its factors from channel
  // oc0 and y's bytes from channel first_out, for the product's tiles to do it
  // (simd::GemmQuadsRequantized). False where Write takes another path.
  bool RequantizesInTiles(int64_t plane, int64_t first_out, int64_t oc0, Tensor* y,
                          simd::QuadsRequantize* requantize) const;

 private:
  bool requantize_ = false, quantize_ = false, has_bias_ = false, clamp_ = false;
  std::vector<float> factors_;  // per channel: the multiplier, or the dequantizing scale
  std::vector<float> biases_;
  std::vector<int32_t> int_biases_;
  const float* addend_ = nullptr;
  float lo_ = 0.f, hi_ = 0.f, y_scale_ = 1.f;
  // Quantizing by simd::RequantizeRowsToU8, to [quotient_lo_, quotient_hi_].
  bool one_clamp_ = false;
  float quotient_lo_ = 0.f, quotient_hi_ = 0.f;
  int32_t zero_point_ = 0;
};

}  // namespace webnx::quant
