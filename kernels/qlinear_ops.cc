// com.microsoft's quantized element-wise ops, as onnxruntime's quantizer writes them in its
// QOperator format: QLinearAdd, QLinearMul, QLinearSigmoid, QLinearLeakyRelu,
// QLinearGlobalAveragePool and QLinearConcat. Each reads 8-bit tensors with a per-tensor scale
// and zero point, computes in float32 and quantizes its result into the output's own scale and
// zero point (round half to even, saturated), as QuantizeLinear does. An 8-bit input has 256
// values, so each input's dequantized values, and the unary ops' whole results, are tables of
// 256 entries made once per run (or per plan, where the parameters are constants).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/binary_common.h"
#include "kernels/indexing_common.h"
#include "kernels/nn_common.h"
#include "kernels/quant_params.h"
#include "kernels/registrations.h"

namespace webnx {
namespace {

// One tensor's quantization: its scale and zero point.
struct Quantization {
  float scale = 1.f;
  int32_t zero_point = 0;
};

// Scalar scale (float32 or float16) at `scale_input` and optional zero point of `dtype`.
Status CheckScalarParams(PlanContext& ctx, int scale_input, int zp_input, DType dtype) {
  WEBNX_RETURN_IF_ERROR(ctx.ExpectPresent(scale_input));
  WEBNX_RETURN_IF_ERROR(quant::CheckParam(ctx, scale_input, 1, "a scale", DType::kUndefined));
  return quant::CheckParam(ctx, zp_input, 1, "a zero point", dtype);
}

Quantization Read(const Tensor& scale, const Tensor* zero_point) {
  return {quant::ScaleAt(scale, 0), zero_point ? quant::IntegerAt(*zero_point, 0) : 0};
}

// The parameters at (scale_input, zp_input) when both are known at plan time.
bool ConstantParams(const PlanContext& ctx, int scale_input, int zp_input, Quantization* q) {
  const Tensor* scale = ctx.constant(scale_input);
  const Tensor* zp = ctx.has_input(zp_input) ? ctx.constant(zp_input) : nullptr;
  if (!scale || (ctx.has_input(zp_input) && !zp)) return false;
  *q = Read(*scale, zp);
  return true;
}

Quantization RunParams(const RunContext& ctx, int scale_input, int zp_input) {
  return Read(ctx.input(scale_input), ctx.has_input(zp_input) ? &ctx.input(zp_input) : nullptr);
}

// The value a byte of 8-bit data holds.
int32_t ByteValue(uint8_t byte, DType dtype) {
  return dtype == DType::kInt8 ? static_cast<int8_t>(byte) : byte;
}

uint8_t Quantize(float v, Quantization q, DType dtype) {
  int32_t lo = 0, hi = 0;
  quant::QuantRange(dtype, &lo, &hi);
  return static_cast<uint8_t>(quant::Saturate(v / q.scale, q.zero_point, lo, hi));
}

// Each byte's real value.
void DequantizeTable(Quantization q, DType dtype, float* table) {
  for (int b = 0; b < 256; ++b) table[b] = (ByteValue(b, dtype) - q.zero_point) * q.scale;
}

Status Expect8Bit(PlanContext& ctx, int input) {
  return ctx.ExpectDType(input, {DType::kUint8, DType::kInt8});
}

// The inputs of the one-input ops: X (8-bit), X_scale, X_zp?, Y_scale, Y_zp?.
Status PlanOneInput(PlanContext& ctx, DType* dtype) {
  WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(4, 5));
  WEBNX_RETURN_IF_ERROR(Expect8Bit(ctx, 0));
  *dtype = ctx.dtype(0);
  WEBNX_RETURN_IF_ERROR(CheckScalarParams(ctx, 1, 2, *dtype));
  return CheckScalarParams(ctx, 3, 4, *dtype);
}

// ---- QLinearSigmoid, QLinearLeakyRelu: X, X_scale, X_zp?, Y_scale, Y_zp?

enum class LookupFn { kSigmoid, kLeakyRelu };

class QLinearLookupKernel final : public Kernel {
 public:
  explicit QLinearLookupKernel(LookupFn fn) : fn_(fn) {}

  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(PlanOneInput(ctx, &dtype_));
    alpha_ = ctx.attrs().Float("alpha", 0.01f);
    WEBNX_RETURN_IF_ERROR(ctx.attrs().status());
    Quantization x, y;
    table_ready_ = ConstantParams(ctx, 1, 2, &x) && ConstantParams(ctx, 3, 4, &y);
    if (table_ready_) BuildTable(x, y);
    ctx.SetOutput(0, dtype_, ctx.shape(0));
    return Status::Ok();
  }

  Status Run(RunContext& ctx) override {
    if (!table_ready_) BuildTable(RunParams(ctx, 1, 2), RunParams(ctx, 3, 4));
    const uint8_t* in = static_cast<const uint8_t*>(ctx.input(0).data);
    uint8_t* out = static_cast<uint8_t*>(ctx.output(0).data);
    for (int64_t i = 0, n = ctx.input(0).numel(); i < n; ++i) out[i] = table_[in[i]];
    return Status::Ok();
  }

 private:
  void BuildTable(Quantization x, Quantization y) {
    float values[256];
    DequantizeTable(x, dtype_, values);
    for (int b = 0; b < 256; ++b) {
      const float v = values[b];
      const float f = fn_ == LookupFn::kSigmoid ? 1.f / (1.f + std::exp(-v))
                      : v < 0                   ? v * alpha_
                                                : v;
      table_[b] = Quantize(f, y, dtype_);
    }
  }

  const LookupFn fn_;
  DType dtype_ = DType::kUndefined;
  float alpha_ = 0.01f;
  bool table_ready_ = false;
  uint8_t table_[256] = {};
};

// ---- QLinearAdd, QLinearMul: A, A_scale, A_zp?, B, B_scale, B_zp?, C_scale, C_zp?

class QLinearBinaryKernel final : public Kernel {
 public:
  explicit QLinearBinaryKernel(bool multiply) : multiply_(multiply) {}

  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(7, 8));
    WEBNX_RETURN_IF_ERROR(Expect8Bit(ctx, 0));
    dtype_ = ctx.dtype(0);
    WEBNX_RETURN_IF_ERROR(binary::ExpectSameDType(ctx, 0, 3));
    for (int scale : {1, 4, 6})
      WEBNX_RETURN_IF_ERROR(CheckScalarParams(ctx, scale, scale + 1, dtype_));
    Shape out;
    Status s = BroadcastShapes({ctx.shape(0), ctx.shape(3)}, &out);
    if (!s.ok()) return ctx.Error(s.code(), s.message());
    WEBNX_RETURN_IF_ERROR(nn::CheckNumel(ctx, out, "the output"));
    walker_.Init(out, {ctx.shape(0), ctx.shape(3)});
    ctx.SetOutput(0, dtype_, out);
    return Status::Ok();
  }

  Status Run(RunContext& ctx) override {
    float a[256], b[256];
    DequantizeTable(RunParams(ctx, 1, 2), dtype_, a);
    DequantizeTable(RunParams(ctx, 4, 5), dtype_, b);
    const Quantization c = RunParams(ctx, 6, 7);
    const bool multiply = multiply_;
    const DType dtype = dtype_;
    binary::ForEachBinaryRun(
        walker_, static_cast<const uint8_t*>(ctx.input(0).data),
        static_cast<const uint8_t*>(ctx.input(3).data), static_cast<uint8_t*>(ctx.output(0).data),
        [&](const uint8_t* pa, const uint8_t* pb, uint8_t* po, int64_t n) {
          const int64_t step_a = walker_.step(0) != 0, step_b = walker_.step(1) != 0;
          for (int64_t i = 0; i < n; ++i) {
            const float x = a[pa[i * step_a]], y = b[pb[i * step_b]];
            po[i] = Quantize(multiply ? x * y : x + y, c, dtype);
          }
        });
    return Status::Ok();
  }

 private:
  const bool multiply_;
  DType dtype_ = DType::kUndefined;
  BroadcastWalker walker_;
};

// ---- QLinearGlobalAveragePool: X, x_scale, x_zp?, y_scale, y_zp?; channels_last

class QLinearGlobalAveragePoolKernel final : public Kernel {
 public:
  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(PlanOneInput(ctx, &dtype_));
    const bool channels_last = ctx.attrs().Int("channels_last", 0) != 0;
    WEBNX_RETURN_IF_ERROR(ctx.attrs().status());
    const Shape& x = ctx.shape(0);
    if (x.size() < 3) {
      return ctx.Error(ErrorCode::kShapeMismatch,
                       "the input must be [N, C, spatial...] (rank >= 3), got " + ShapeToString(x));
    }
    const size_t channel_axis = channels_last ? x.size() - 1 : 1;
    Shape out(x.size(), 1);
    out[0] = x[0];
    out[channel_axis] = x[channel_axis];
    batch_ = x[0];
    channels_ = x[channel_axis];
    area_ = nn::DimProduct(x, 0, x.size()) / std::max<int64_t>(batch_ * channels_, 1);
    channel_stride_ = channels_last ? 1 : area_;
    element_stride_ = channels_last ? channels_ : 1;
    ctx.SetOutput(0, dtype_, out);
    return Status::Ok();
  }

  Status Run(RunContext& ctx) override {
    const Quantization x = RunParams(ctx, 1, 2), y = RunParams(ctx, 3, 4);
    const uint8_t* in = static_cast<const uint8_t*>(ctx.input(0).data);
    uint8_t* out = static_cast<uint8_t*>(ctx.output(0).data);
    for (int64_t n = 0; n < batch_; ++n) {
      for (int64_t c = 0; c < channels_; ++c) {
        const uint8_t* plane = in + n * channels_ * area_ + c * channel_stride_;
        int64_t sum = 0;
        for (int64_t i = 0; i < area_; ++i) sum += ByteValue(plane[i * element_stride_], dtype_);
        const float mean =
            static_cast<float>(sum - area_ * x.zero_point) / static_cast<float>(area_);
        out[n * channels_ + c] = Quantize(mean * x.scale, y, dtype_);
      }
    }
    return Status::Ok();
  }

 private:
  DType dtype_ = DType::kUndefined;
  int64_t batch_ = 0, channels_ = 0, area_ = 0, channel_stride_ = 0, element_stride_ = 0;
};

// ---- QLinearConcat: Y_scale, Y_zp, then (X, X_scale, X_zp) per input; axis

class QLinearConcatKernel final : public Kernel {
 public:
  Status Plan(PlanContext& ctx) override {
    const int n = ctx.num_inputs();
    if ((n - 2) % 3 != 0) {
      return ctx.Error(ErrorCode::kMalformedModel,
                       "takes Y_scale, Y_zero_point, then (X, X_scale, X_zero_point) per input");
    }
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(n, n));
    WEBNX_RETURN_IF_ERROR(Expect8Bit(ctx, 1));
    dtype_ = ctx.dtype(1);
    WEBNX_RETURN_IF_ERROR(CheckScalarParams(ctx, 0, 1, dtype_));
    const Shape& first = ctx.shape(2);
    const int64_t rank = static_cast<int64_t>(first.size());
    int64_t axis = 0;
    WEBNX_RETURN_IF_ERROR(indexing::NormalizeAxis(ctx, ctx.attrs().Int("axis", 0),
                                                  std::max<int64_t>(rank, 1), &axis));
    WEBNX_RETURN_IF_ERROR(ctx.attrs().status());
    Shape out = first;
    if (rank == 0) return ctx.Error(ErrorCode::kShapeMismatch, "the inputs must have rank >= 1");
    out[axis] = 0;
    extents_.clear();
    for (int x = 2; x < n; x += 3) {
      WEBNX_RETURN_IF_ERROR(binary::ExpectSameDType(ctx, 1, x));
      WEBNX_RETURN_IF_ERROR(CheckScalarParams(ctx, x + 1, x + 2, dtype_));
      Shape s = ctx.shape(x);
      if (s.size() == first.size()) s[axis] = first[axis];
      if (s != first) {
        return ctx.Error(ErrorCode::kShapeMismatch, "input shapes " + ShapeToString(ctx.shape(x)) +
                                                        " and " + ShapeToString(first) +
                                                        " differ off the axis");
      }
      out[axis] += ctx.shape(x)[axis];
      extents_.push_back(ctx.shape(x)[axis]);
    }
    outer_ = nn::DimProduct(first, 0, axis);
    inner_ = nn::DimProduct(first, axis + 1, first.size());
    WEBNX_RETURN_IF_ERROR(nn::CheckNumel(ctx, out, "the output"));
    ctx.SetOutput(0, dtype_, out);
    return Status::Ok();
  }

  // Each input requantized into Y's scale and zero point through a table of its 256 values.
  Status Run(RunContext& ctx) override {
    const Quantization y = RunParams(ctx, 0, 1);
    uint8_t* out = static_cast<uint8_t*>(ctx.output(0).data);
    int64_t total = 0;
    for (int64_t extent : extents_) total += extent;
    int64_t offset = 0;
    for (size_t k = 0; k < extents_.size(); ++k) {
      const int x = 2 + 3 * static_cast<int>(k);
      float values[256];
      DequantizeTable(RunParams(ctx, x + 1, x + 2), dtype_, values);
      uint8_t table[256];
      for (int b = 0; b < 256; ++b) table[b] = Quantize(values[b], y, dtype_);
      const uint8_t* in = static_cast<const uint8_t*>(ctx.input(x).data);
      const int64_t chunk = extents_[k] * inner_;
      for (int64_t o = 0; o < outer_; ++o) {
        uint8_t* dst = out + (o * total + offset) * inner_;
        for (int64_t i = 0; i < chunk; ++i) dst[i] = table[in[o * chunk + i]];
      }
      offset += extents_[k];
    }
    return Status::Ok();
  }

 private:
  DType dtype_ = DType::kUndefined;
  std::vector<int64_t> extents_;  // each input's size along the axis
  int64_t outer_ = 0, inner_ = 0;
};

}  // namespace

void RegisterQLinearKernels(OpRegistry& r) {
  const char* ms = "com.microsoft";
  r.Register(ms, "QLinearAdd", {{1}, Inputs(7, 8), Outputs(1)},
             []() -> Kernel* { return new QLinearBinaryKernel(false); });
  r.Register(ms, "QLinearMul", {{1}, Inputs(7, 8), Outputs(1)},
             []() -> Kernel* { return new QLinearBinaryKernel(true); });
  r.Register(ms, "QLinearSigmoid", {{1}, Inputs(4, 5), Outputs(1)},
             []() -> Kernel* { return new QLinearLookupKernel(LookupFn::kSigmoid); });
  r.Register(ms, "QLinearLeakyRelu", {{1}, Inputs(4, 5), Outputs(1)},
             []() -> Kernel* { return new QLinearLookupKernel(LookupFn::kLeakyRelu); });
  r.Register(ms, "QLinearGlobalAveragePool", {{1}, Inputs(4, 5), Outputs(1)},
             MakeKernel<QLinearGlobalAveragePoolKernel>);
  r.Register(ms, "QLinearConcat", {{1}, Inputs::AtLeast(5), Outputs(1)},
             MakeKernel<QLinearConcatKernel>);
}

}  // namespace webnx
