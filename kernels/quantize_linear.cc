// QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear: per tensor, per axis and (opset 21)
// per block, to and from int8, uint8, int16 and uint16 (and from int32). Quantizing divides by
// the scale in float32 and rounds half to even, as the spec and onnxruntime do.
#include <algorithm>
#include <cmath>
#include <string>

#include "core/float16.h"
#include "kernels/quant_params.h"
#include "kernels/registrations.h"
#include "kernels/simd/quantize_u8.h"

namespace webnx {
namespace {

using quant::QuantLayout;

// Calls fn(o, d, i, e) for every element e of a tensor laid out as `layout` describes.
template <typename Fn>
void ForEachElement(const QuantLayout& l, Fn&& fn) {
  int64_t e = 0;
  for (int64_t o = 0; o < l.outer; ++o)
    for (int64_t d = 0; d < l.dim; ++d)
      for (int64_t i = 0; i < l.inner; ++i, ++e) fn(l.ParamIndex(o, d, i), e);
}

// Calls fn(p, e, n) for each run of the n = layout.inner elements from e that share
// parameter p (layouts per tensor or per axis, not per block).
template <typename Fn>
void ForEachRun(const QuantLayout& l, Fn&& fn) {
  int64_t e = 0;
  for (int64_t o = 0; o < l.outer; ++o)
    for (int64_t d = 0; d < l.dim; ++d, e += l.inner) fn(l.ParamIndex(o, d, 0), e, l.inner);
}

float FloatAt(const Tensor& t, int64_t i) {
  switch (t.dtype) {
    case DType::kFloat16:
      return HalfToFloat(t.ptr<uint16_t>()[i]);
    case DType::kInt32:
      return static_cast<float>(t.ptr<int32_t>()[i]);
    default:
      return t.ptr<float>()[i];
  }
}

class QuantizeLinearKernel final : public Kernel {
 public:
  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(2, 3));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(0, {DType::kFloat32, DType::kFloat16, DType::kInt32}));
    WEBNX_RETURN_IF_ERROR(quant::PlanLayout(ctx, ctx.shape(0), 1, 2, &layout_));
    out_ = DType::kUint8;
    if (ctx.has_input(2)) {
      out_ = ctx.dtype(2);
    } else if (ctx.attrs().Has("output_dtype")) {
      out_ = static_cast<DType>(ctx.attrs().Int("output_dtype", 2));
      WEBNX_RETURN_IF_ERROR(ctx.attrs().status());
    }
    if (!quant::IsQuantizedDType(out_) || out_ == DType::kInt32) {
      return ctx.Error(ErrorCode::kUnsupportedDtype,
                       std::string("quantizing to ") + DTypeName(out_) +
                           " is not supported (int8, uint8, int16 and uint16 are)");
    }
    ctx.SetOutput(0, out_, ctx.shape(0));
    return Status::Ok();
  }

  Status Run(RunContext& ctx) override {
    const Tensor& x = ctx.input(0);
    const Tensor& scale = ctx.input(1);
    const Tensor* zp = ctx.has_input(2) ? &ctx.input(2) : nullptr;
    Tensor& y = ctx.output(0);
    if (x.dtype == DType::kFloat32 && (out_ == DType::kUint8 || out_ == DType::kInt8) &&
        layout_.block == 0) {  // to 8 bits, a scale per tensor or per axis: in SIMD runs
      ForEachRun(layout_, [&](int64_t p, int64_t e, int64_t n) {
        simd::QuantizeBytes(x.ptr<float>() + e, n, quant::ScaleAt(scale, p),
                            zp ? quant::IntegerAt(*zp, p) : 0, out_ == DType::kInt8,
                            static_cast<uint8_t*>(y.data) + e);
      });
      return Status::Ok();
    }
    int32_t lo = 0, hi = 0;
    quant::QuantRange(out_, &lo, &hi);
    ForEachElement(layout_, [&](int64_t p, int64_t e) {
      const int32_t z = zp ? quant::IntegerAt(*zp, p) : 0;
      const float v = FloatAt(x, e) / quant::ScaleAt(scale, p);
      quant::StoreQuantized(y, e, quant::Saturate(v, z, lo, hi));
    });
    return Status::Ok();
  }

 private:
  QuantLayout layout_;
  DType out_ = DType::kUint8;
};

class DequantizeLinearKernel final : public Kernel {
 public:
  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(2, 3));
    if (!quant::IsQuantizedDType(ctx.dtype(0))) {
      return ctx.Error(ErrorCode::kUnsupportedDtype,
                       std::string("input 0 is ") + DTypeName(ctx.dtype(0)) +
                           "; webnx dequantizes int8, uint8, int16, uint16 and int32");
    }
    ctx.AcceptDType(0);
    WEBNX_RETURN_IF_ERROR(quant::PlanLayout(ctx, ctx.shape(0), 1, 2, &layout_));
    if (ctx.has_input(2) && ctx.dtype(2) != ctx.dtype(0)) {
      return ctx.Error(ErrorCode::kMalformedModel, "the zero point's dtype differs from x's");
    }
    out_ = ctx.dtype(1);
    ctx.SetOutput(0, out_, ctx.shape(0));
    return Status::Ok();
  }

  Status Run(RunContext& ctx) override {
    const Tensor& x = ctx.input(0);
    const Tensor& scale = ctx.input(1);
    const Tensor* zp = ctx.has_input(2) ? &ctx.input(2) : nullptr;
    Tensor& y = ctx.output(0);
    if ((x.dtype == DType::kUint8 || x.dtype == DType::kInt8) && out_ == DType::kFloat32 &&
        layout_.block == 0) {  // 8-bit data to float32, a scale per tensor or per axis: in runs
      const auto* bytes = static_cast<const uint8_t*>(x.data);
      const bool is_signed = x.dtype == DType::kInt8;
      ForEachRun(layout_, [&](int64_t p, int64_t e, int64_t n) {
        simd::DequantizeBytes(bytes + e, n, is_signed, zp ? quant::IntegerAt(*zp, p) : 0,
                              quant::ScaleAt(scale, p), y.ptr<float>() + e);
      });
      return Status::Ok();
    }
    ForEachElement(layout_, [&](int64_t p, int64_t e) {
      const int32_t z = zp ? quant::IntegerAt(*zp, p) : 0;
      // In int64: int32 data minus an int32 zero point may not fit in int32.
      const float v =
          static_cast<float>(int64_t{quant::IntegerAt(x, e)} - z) * quant::ScaleAt(scale, p);
      if (out_ == DType::kFloat16) {
        y.ptr<uint16_t>()[e] = FloatToHalf(v);
      } else {
        y.ptr<float>()[e] = v;
      }
    });
    return Status::Ok();
  }

 private:
  QuantLayout layout_;
  DType out_ = DType::kFloat32;
};

// x -> uint8 y, with the scale and zero point that map [min(x, 0), max(x, 0)] onto [0, 255].
class DynamicQuantizeLinearKernel final : public Kernel {
 public:
  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(1, 1));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(0, {DType::kFloat32}));
    ctx.SetOutput(0, DType::kUint8, ctx.shape(0));
    ctx.SetOutput(1, DType::kFloat32, {});
    ctx.SetOutput(2, DType::kUint8, {});
    return Status::Ok();
  }

  Status Run(RunContext& ctx) override {
    const Tensor& x = ctx.input(0);
    float scale = 1.f;
    int32_t zero_point = 0;
    quant::DynamicParams(x.ptr<float>(), x.numel(), &scale, &zero_point);
    simd::QuantizeU8(x.ptr<float>(), x.numel(), scale, zero_point, ctx.output(0).ptr<uint8_t>());
    if (ctx.has_output(1)) ctx.output(1).ptr<float>()[0] = scale;
    if (ctx.has_output(2)) ctx.output(2).ptr<uint8_t>()[0] = static_cast<uint8_t>(zero_point);
    return Status::Ok();
  }
};

}  // namespace

void RegisterQuantizeLinearKernels(OpRegistry& r) {
  // 19 added float8 types, 21 blocks and int16/uint16, 23-25 float8/4-bit/2-bit types and
  // attributes for them: every version computes the integer types alike.
  r.Register(
      "", "QuantizeLinear",
      {{{10}, Inputs(2, 3), Outputs(1)}, {{13, 19, 21, 23, 24, 25}, Inputs(2, 3), Outputs(1)}},
      MakeKernel<QuantizeLinearKernel>);
  r.Register(
      "", "DequantizeLinear",
      {{{10}, Inputs(2, 3), Outputs(1)}, {{13, 19, 21, 23, 24, 25}, Inputs(2, 3), Outputs(1)}},
      MakeKernel<DequantizeLinearKernel>);
  r.Register("", "DynamicQuantizeLinear", {{11}, Inputs(1), Outputs(3)},
             MakeKernel<DynamicQuantizeLinearKernel>);
}

}  // namespace webnx
