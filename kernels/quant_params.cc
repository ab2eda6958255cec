#include "kernels/quant_params.h"

#include <cmath>
#include <string>

#include "core/float16.h"
#include "kernels/indexing_common.h"
#include "kernels/nn_common.h"
#include "kernels/simd/quantize_u8.h"

namespace webnx::quant {

Status PlanLayout(PlanContext& ctx, const Shape& data, int scale_input, int zp_input,
                  QuantLayout* layout) {
  WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(scale_input, {DType::kFloat32, DType::kFloat16}));
  const Shape& scale = ctx.shape(scale_input);
  if (ctx.has_input(zp_input)) {
    if (!IsQuantizedDType(ctx.dtype(zp_input))) {
      return ctx.Error(ErrorCode::kUnsupportedDtype,
                       std::string("the zero point is ") + DTypeName(ctx.dtype(zp_input)) +
                           "; webnx quantizes to int8, uint8, int16, uint16 and int32");
    }
    ctx.AcceptDType(zp_input);
    if (ctx.shape(zp_input) != scale) {
      return ctx.Error(ErrorCode::kShapeMismatch,
                       "the zero point " + ShapeToString(ctx.shape(zp_input)) + " and the scale " +
                           ShapeToString(scale) + " differ in shape");
    }
  }
  const int64_t rank = static_cast<int64_t>(data.size());
  const int64_t block = ctx.attrs().Int("block_size", 0);
  int64_t axis = 0;
  WEBNX_RETURN_IF_ERROR(ctx.attrs().status());
  int64_t scale_numel = 1;
  for (int64_t d : scale) scale_numel *= d;
  *layout = QuantLayout();
  if (scale.size() <= 1 && scale_numel == 1 && block == 0) {  // per tensor: one run of all
    for (int64_t d : data) layout->inner *= d;
    return Status::Ok();
  }
  if (rank == 0) return ctx.Error(ErrorCode::kShapeMismatch, "a scalar takes a scalar scale");
  WEBNX_RETURN_IF_ERROR(indexing::NormalizeAxis(ctx, ctx.attrs().Int("axis", 1), rank, &axis));
  layout->per_tensor = false;
  layout->dim = data[axis];
  for (int64_t d = 0; d < axis; ++d) layout->outer *= data[d];
  for (int64_t d = axis + 1; d < rank; ++d) layout->inner *= data[d];
  if (block == 0) {
    if (scale.size() != 1 || scale[0] != data[axis]) {
      return ctx.Error(ErrorCode::kShapeMismatch,
                       "a per-axis scale must be 1-D of size " + std::to_string(data[axis]) +
                           " (axis " + std::to_string(axis) + "), got " + ShapeToString(scale));
    }
    return Status::Ok();
  }
  if (block < 0) return ctx.Error(ErrorCode::kMalformedModel, "block_size must be positive");
  Shape want = data;
  want[axis] = data[axis] / block + (data[axis] % block != 0);
  if (scale != want) {
    return ctx.Error(
        ErrorCode::kShapeMismatch,
        "a blocked scale must have shape " + ShapeToString(want) + ", got " + ShapeToString(scale));
  }
  layout->block = block;
  return Status::Ok();
}

Status CheckParam(const PlanContext& ctx, int input, int64_t count, const char* name, DType dtype) {
  if (!ctx.has_input(input)) return Status::Ok();
  if (dtype == DType::kUndefined) {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(input, {DType::kFloat32, DType::kFloat16}));
  } else if (ctx.dtype(input) != dtype) {
    return ctx.Error(ErrorCode::kMalformedModel, std::string(name) + " is " +
                                                     DTypeName(ctx.dtype(input)) +
                                                     ", not its operand's " + DTypeName(dtype));
  } else {
    ctx.AcceptDType(input);
  }
  const Shape& s = ctx.shape(input);
  const int64_t numel = nn::DimProduct(s, 0, s.size());
  if ((s.size() <= 1 && numel == 1) || (s.size() == 1 && s[0] == count)) return Status::Ok();
  return ctx.Error(ErrorCode::kShapeMismatch, std::string(name) + " must be a scalar or hold " +
                                                  std::to_string(count) + " values, got " +
                                                  ShapeToString(s));
}

float ScaleAt(const Tensor& scale, int64_t i) {
  return scale.dtype == DType::kFloat16 ? HalfToFloat(scale.ptr<uint16_t>()[i])
                                        : scale.ptr<float>()[i];
}

void BiasValues(const Tensor& bias, const Tensor* bias_scale, int64_t count, float* out) {
  // Each tensor's element step (0: one value for all), found once, not per element.
  const int64_t b_step = bias.numel() == 1 ? 0 : 1;
  if (bias.dtype != DType::kInt32) {
    for (int64_t i = 0; i < count; ++i) out[i] = bias.ptr<float>()[i * b_step];
    return;
  }
  const int64_t s_step = bias_scale->numel() == 1 ? 0 : 1;
  for (int64_t i = 0; i < count; ++i) {
    out[i] =
        static_cast<float>(bias.ptr<int32_t>()[i * b_step]) * bias_scale->ptr<float>()[i * s_step];
  }
}

int32_t IntegerAt(const Tensor& t, int64_t i) {
  switch (t.dtype) {
    case DType::kUint8:
      return t.ptr<uint8_t>()[i];
    case DType::kInt8:
      return t.ptr<int8_t>()[i];
    case DType::kUint16:
      return t.ptr<uint16_t>()[i];
    case DType::kInt16:
      return t.ptr<int16_t>()[i];
    case DType::kInt32:
      return t.ptr<int32_t>()[i];
    default:
      return 0;
  }
}

bool IsQuantizedDType(DType dtype) {
  return dtype == DType::kUint8 || dtype == DType::kInt8 || dtype == DType::kUint16 ||
         dtype == DType::kInt16 || dtype == DType::kInt32;
}

void QuantRange(DType dtype, int32_t* lo, int32_t* hi) {
  switch (dtype) {
    case DType::kUint8:
      *lo = 0, *hi = 255;
      return;
    case DType::kInt8:
      *lo = -128, *hi = 127;
      return;
    case DType::kUint16:
      *lo = 0, *hi = 65535;
      return;
    case DType::kInt16:
      *lo = -32768, *hi = 32767;
      return;
    default:
      *lo = INT32_MIN, *hi = INT32_MAX;
      return;
  }
}

void StoreQuantized(Tensor& t, int64_t i, int32_t value) {
  switch (DTypeSize(t.dtype)) {
    case 1:
      t.ptr<uint8_t>()[i] = static_cast<uint8_t>(value);
      return;
    case 2:
      t.ptr<uint16_t>()[i] = static_cast<uint16_t>(value);
      return;
    default:
      t.ptr<int32_t>()[i] = value;
      return;
  }
}

int32_t Saturate(float v, int32_t zero_point, int32_t lo, int32_t hi) {
  // nearbyint rounds half to even in the default rounding mode; NaN saturates to the zero point.
  const double q = std::isnan(v) ? zero_point : std::nearbyint(v) + static_cast<double>(zero_point);
  if (q <= lo) return lo;
  if (q >= hi) return hi;
  return static_cast<int32_t>(q);
}

void DynamicParams(const float* x, int64_t n, float* scale, int32_t* zero_point) {
  float lo = 0.f, hi = 0.f;
  simd::RangeWithZero(x, n, &lo, &hi);
  DynamicParamsOfRange(lo, hi, scale, zero_point);
}

void DynamicParamsOfRange(float lo, float hi, float* scale, int32_t* zero_point) {
  // An all-zero input has no range: scale 1 keeps the division defined (onnxruntime's choice).
  *scale = hi == lo ? 1.f : (hi - lo) / 255.f;
  *zero_point = Saturate(0.f - lo / *scale, 0, 0, 255);
}

}  // namespace webnx::quant
