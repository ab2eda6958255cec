// Quantization parameters as the ONNX quantization ops give them: a scale (float32 or float16)
// and an optional zero point (an integer dtype), per tensor, per slice of one axis, or per block
// of `block_size` elements along that axis (blocked, opset 21).
#pragma once

#include <cstdint>

#include "core/kernel.h"

namespace webnx::quant {

// Element e of a tensor viewed as [outer, dim, inner] around the quantized axis.
struct QuantLayout {
  int64_t outer = 1, dim = 1, inner = 1;
  int64_t block = 0;  // 0: per tensor or per axis
  bool per_tensor = true;
  // The parameter index of the element at (o, d, i).
  int64_t ParamIndex(int64_t o, int64_t d, int64_t i) const {
    if (per_tensor) return 0;
    if (block == 0) return d;
    const int64_t blocks = dim / block + (dim % block != 0);  // no overflow for a huge block
    return (o * blocks + d / block) * inner + i;
  }
};

// Checks the scale (input `scale_input`) and zero point (`zp_input`, may be absent) against the
// quantized tensor's shape, attributes `axis` and `block_size`, and fills the layout.
Status PlanLayout(PlanContext& ctx, const Shape& data, int scale_input, int zp_input,
                  QuantLayout* layout);

// A scale (dtype kUndefined: float32 or float16) or zero point (of `dtype`) of the quantized
// products: absent, one value, or `count` values (one per row, column or output channel).
Status CheckParam(const PlanContext& ctx, int input, int64_t count, const char* name, DType dtype);

// The index of value i of a parameter that holds one value (per tensor) or one per i.
inline int64_t ParamIndex(const Tensor& param, int64_t i) {
  return param.numel() == 1 ? 0 : i;
}

// Element i of a scale tensor (float32 or float16) as float.
float ScaleAt(const Tensor& scale, int64_t i);
// Elements 0 to count - 1 of a QDQ product's bias into out: float32 as it is, or int32
// dequantized by its scale as DequantizeLinear does (a per-tensor bias or scale: its one value
// for all).
void BiasValues(const Tensor& bias, const Tensor* bias_scale, int64_t count, float* out);
// Element i of an integer tensor (a zero point or quantized data) as int32.
int32_t IntegerAt(const Tensor& t, int64_t i);
// True for the integer dtypes the quantization ops take as quantized data.
bool IsQuantizedDType(DType dtype);
// The range of a quantized dtype.
void QuantRange(DType dtype, int32_t* lo, int32_t* hi);
// Writes value (already in range) as element i of a quantized tensor.
void StoreQuantized(Tensor& t, int64_t i, int32_t value);
// DynamicQuantizeLinear's scale and zero point for x[0, n): its range (holding 0) over 255.
void DynamicParams(const float* x, int64_t n, float* scale, int32_t* zero_point);
// The same from the range [lo, hi] of x (with 0: simd::RangeWithZero's).
void DynamicParamsOfRange(float lo, float hi, float* scale, int32_t* zero_point);
// round-half-to-even(v) + zero_point, saturated to [lo, hi].
int32_t Saturate(float v, int32_t zero_point, int32_t lo, int32_t hi);

}  // namespace webnx::quant
