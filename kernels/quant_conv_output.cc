#include "kernels/quant_conv_output.h"

#include <algorithm>
#include <cmath>

#include "kernels/quant_params.h"
#include "kernels/simd/gemm_i8.h"
#include "kernels/simd/quantize_u8.h"

namespace webnx::quant {

void ConvOutput::Size(int64_t channels) {
  factors_.resize(channels);
  biases_.resize(channels);
  int_biases_.resize(channels);
}

void ConvOutput::PrepareRequantize(const Tensor& x_scale, const Tensor& w_scale,
                                   const Tensor& y_scale, const Tensor& y_zero_point,
                                   const Tensor* bias) {
  requantize_ = true;
  const float x = ScaleAt(x_scale, 0), y = ScaleAt(y_scale, 0);
  for (size_t c = 0; c < factors_.size(); ++c) {
    factors_[c] = x * ScaleAt(w_scale, ParamIndex(w_scale, c)) / y;
    int_biases_[c] = bias ? bias->ptr<int32_t>()[c] : 0;
  }
  zero_point_ = IntegerAt(y_zero_point, 0);
}

void ConvOutput::PrepareDequantize(const Dequantize& args) {
  requantize_ = false;
  has_bias_ = args.bias != nullptr;
  // The scale's element step (0: one value for all) found once: a run prepares every channel of
  // every convolution.
  const float* w_scale = args.w_scale->ptr<float>();
  const int64_t w_step = args.w_scale->numel() == 1 ? 0 : 1;
  const int64_t channels = static_cast<int64_t>(factors_.size());
  for (int64_t c = 0; c < channels; ++c) factors_[c] = args.x_scale * w_scale[c * w_step];
  if (has_bias_) {
    BiasValues(*args.bias, args.bias_scale, channels, biases_.data());
  } else {
    std::fill(biases_.begin(), biases_.end(), 0.f);
  }
  addend_ = args.addend;
  clamp_ = args.clamp, lo_ = args.lo, hi_ = args.hi;
  quantize_ = args.y_zero_point != nullptr;
  if (!quantize_) return;
  y_scale_ = ScaleAt(*args.y_scale, 0);
  zero_point_ = IntegerAt(*args.y_zero_point, 0);
  // Where no value can be NaN, simd::RequantizeRowsToU8's one clamp gives the same bytes.
  one_clamp_ = std::isfinite(y_scale_) && y_scale_ > 0.f && (!clamp_ || lo_ <= hi_);
  for (size_t c = 0; c < factors_.size() && one_clamp_; ++c)
    one_clamp_ = std::isfinite(factors_[c]) && std::isfinite(biases_[c]);
  simd::QuotientBounds(clamp_ ? lo_ : -INFINITY, clamp_ ? hi_ : INFINITY, y_scale_, zero_point_,
                       &quotient_lo_, &quotient_hi_);
}

bool ConvOutput::RequantizesInTiles(int64_t plane, int64_t first_out, int64_t oc0, Tensor* y,
                                    simd::QuadsRequantize* requantize) const {
  if (!quantize_ || !one_clamp_) return false;
  *requantize = {&factors_[oc0],
                 has_bias_ ? &biases_[oc0] : nullptr,
                 y->ptr<uint8_t>() + first_out * plane,
                 plane,
                 y_scale_,
                 quotient_lo_,
                 quotient_hi_,
                 zero_point_};
  return true;
}

void ConvOutput::Write(const int32_t* sums, int64_t sums_ld, int64_t plane, int64_t first_out,
                       int64_t oc0, int64_t count, Columns columns, Tensor* y) const {
  if (quantize_ && one_clamp_) {  // every row in one call: its constants set up once
    const simd::RequantizeRows rows{sums,
                                    sums_ld,
                                    &factors_[oc0],
                                    has_bias_ ? &biases_[oc0] : nullptr,
                                    y->ptr<uint8_t>() + first_out * plane + columns.begin,
                                    plane,
                                    count,
                                    columns.size()};
    simd::RequantizeRowsToU8(rows, y_scale_, quotient_lo_, quotient_hi_, zero_point_);
    return;
  }
  for (int64_t i = 0; i < count; ++i) {
    const int64_t oc = oc0 + i, at = (first_out + i) * plane + columns.begin;
    const int32_t* row = sums + i * sums_ld;
    if (requantize_) {
      simd::RequantizeRow(row, columns.size(), int_biases_[oc], &factors_[oc], true, zero_point_,
                          y->dtype, static_cast<uint8_t*>(y->data) + at);
      continue;
    }
    const simd::DequantizeArgs args{&factors_[oc],
                                    true,
                                    has_bias_ ? &biases_[oc] : nullptr,
                                    true,
                                    addend_ ? addend_ + at : nullptr,
                                    clamp_,
                                    lo_,
                                    hi_};
    if (quantize_) {
      simd::DequantizeRowToU8(row, columns.size(), args, y_scale_, zero_point_,
                              y->ptr<uint8_t>() + at);
    } else {
      simd::DequantizeRow(row, columns.size(), args, y->ptr<float>() + at);
    }
  }
}

}  // namespace webnx::quant
