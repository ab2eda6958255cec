// MatMulInteger and QLinearMatMul: numpy-broadcast batched products of int8/uint8 matrices,
// with zero points per tensor, per row of A and per column of B, accumulated in int32.
// QLinearMatMul requantizes each sum as onnxruntime does: sum * (a_scale * b_scale / y_scale)
// in float32, rounded half to even, plus y's zero point, saturated. The products run on the
// int8 SIMD GEMM (kernels/simd/gemm_i8.h): A's rows widened to int16 per run, B's panels packed
// once per session when B and its zero points are constants.
// com.webnx QDQMatMul, which the fusion pass writes for a QDQ MatMul or Gemm
// (kernels/quant_fusion.h), quantizes its float A by the given scale and zero point, and
// dequantizes the sums with the bias as the float chain would.
#include <string>
#include <utility>
#include <vector>

#include "kernels/broadcast.h"
#include "kernels/nn_common.h"
#include "kernels/quant_fusion.h"
#include "kernels/quant_gemm.h"
#include "kernels/quant_params.h"
#include "kernels/registrations.h"
#include "kernels/simd/quantize_u8.h"

namespace webnx {
namespace {

int64_t Numel(const Shape& s) {
  return nn::DimProduct(s, 0, s.size());
}

// The inputs of one product: positions of A, B and their zero points; QLinearMatMul adds scales.
struct Operands {
  int a = 0, a_zp = 2, b = 1, b_zp = 3;
  int a_scale = -1, b_scale = -1, y_scale = -1, y_zp = -1, bias = -1, bias_scale = -1;
};

// MatMulInteger (int32 sums), QLinearMatMul (requantized), or com.microsoft
// DynamicQuantizeMatMul: the dynamically quantized chain (kernels/quant_fusion.h) of A
// (float32), B, B_scale, B_zp, bias, in float32 with a residual sum and a clamp in its epilogue;
// or com.microsoft MatMulIntegerToFloat: A, B, A_scale (per tensor), B_scale, A_zp, B_zp, bias,
// the sums scaled to float32 and the bias added; or com.webnx QDQMatMul: A (float32), A_scale,
// A_zp (uint8, per tensor), B, B_scale, B_zp, a float32 bias or an int32 one and its scale, with
// attribute transB (B given as N x K), the dynamic mode's epilogue.
enum class MatMulMode { kInteger, kRequantize, kDynamic, kToFloat, kStatic };

class QuantizedMatMulKernel final : public Kernel {
 public:
  explicit QuantizedMatMulKernel(MatMulMode mode) : mode_(mode) {
    if (mode == MatMulMode::kRequantize) ops_ = Operands{0, 2, 3, 5, 1, 4, 6, 7};
    if (mode == MatMulMode::kDynamic) ops_ = Operands{0, -1, 1, 3, -1, 2, -1, -1, 4};
    if (mode == MatMulMode::kToFloat) ops_ = Operands{0, 4, 1, 5, 2, 3, -1, -1, 6};
    if (mode == MatMulMode::kStatic) ops_ = Operands{0, 2, 3, 5, 1, 4, -1, -1, 6, 7};
  }

  // A float32 output scaled from the sums (the dynamic and QDQ products).
  bool float_out() const {
    return mode_ == MatMulMode::kDynamic || mode_ == MatMulMode::kToFloat ||
           mode_ == MatMulMode::kStatic;
  }
  bool float_in() const { return mode_ == MatMulMode::kDynamic || mode_ == MatMulMode::kStatic; }

  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(mode_ == MatMulMode::kRequantize ? ctx.ExpectInputs(8, 8)
                          : mode_ == MatMulMode::kDynamic  ? ctx.ExpectInputs(3, 5)
                          : mode_ == MatMulMode::kToFloat  ? ctx.ExpectInputs(4, 7)
                          : mode_ == MatMulMode::kStatic   ? ctx.ExpectInputs(5, 8)
                                                           : ctx.ExpectInputs(2, 4));
    trans_b_ = mode_ == MatMulMode::kStatic && ctx.attrs().Int("transB", 0) != 0;
    WEBNX_RETURN_IF_ERROR(ctx.attrs().status());
    if (float_in()) {
      WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(ops_.a, {DType::kFloat32}));
    } else {
      WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(ops_.a, {DType::kUint8, DType::kInt8}));
    }
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(ops_.b, {DType::kUint8, DType::kInt8}));
    WEBNX_RETURN_IF_ERROR(PlanShapes(ctx));
    WEBNX_RETURN_IF_ERROR(quant::CheckParam(ctx, ops_.a_zp, float_in() ? 1 : m_, "a_zero_point",
                                            float_in() ? DType::kUint8 : ctx.dtype(ops_.a)));
    WEBNX_RETURN_IF_ERROR(quant::CheckParam(ctx, ops_.b_zp, n_, "b_zero_point", ctx.dtype(ops_.b)));
    if (mode_ == MatMulMode::kRequantize) WEBNX_RETURN_IF_ERROR(PlanRequantize(ctx));
    if (float_out()) WEBNX_RETURN_IF_ERROR(PlanFloatOut(ctx));
    const DType out = mode_ == MatMulMode::kInteger      ? DType::kInt32
                      : mode_ == MatMulMode::kRequantize ? ctx.dtype(ops_.y_zp)
                                                         : DType::kFloat32;
    ctx.SetOutput(0, out, out_shape_);
    return PlanScratch(ctx);
  }

  Epilogue* epilogue() override { return float_in() ? &epilogue_ : nullptr; }

  bool ProposeFusion(const FusionContext& ctx, FusedNode* fused) const override {
    return mode_ == MatMulMode::kInteger && quant::ProposeDynamicMatMul(ctx, fused);
  }

  Status Run(RunContext& ctx) override {
    const Tensor& a_in = ctx.input(ops_.a);
    const void* a = a_in.data;
    DType a_type = a_in.dtype;
    std::vector<int32_t> a_zp_values, b_zp_values;
    simd::ZeroPoints a_zp = quant::ZeroPointsOf(Param(ctx, ops_.a_zp), &a_zp_values);
    const simd::ZeroPoints b_zp = quant::ZeroPointsOf(Param(ctx, ops_.b_zp), &b_zp_values);
    if (float_out()) {
      if (mode_ == MatMulMode::kDynamic) {  // DynamicQuantizeLinear of the whole of A
        quant::DynamicParamsParallel(ctx, a_in.ptr<float>(), a_in.numel(), &a_scale_, &a_zp.all);
      } else {
        a_scale_ = quant::ScaleAt(ctx.input(ops_.a_scale), 0);
      }
      if (float_in()) {
        quant::QuantizeU8Parallel(ctx, a_in.ptr<float>(), a_in.numel(), a_scale_, a_zp.all,
                                  a_q_.ptr<uint8_t>());
        a = a_q_.data, a_type = DType::kUint8;
      }
      PlanColumnScales(ctx);
    }
    const Tensor& b = ctx.input(ops_.b);
    const int64_t panels_size = simd::PanelsBytes(form_, k_, n_);
    for (int64_t batch = 0; batch < batches_; ++batch) {
      simd::PackRows(form_, static_cast<const uint8_t*>(a) + a_offsets_[batch] * m_ * k_, a_type,
                     m_, k_, k_, a_zp, a_rows_.data);
      const void* panels = nullptr;
      if (b_packed_.head.data) {
        panels = b_packed_.head.ptr<uint8_t>() + b_offsets_[batch] * panels_size;
      } else {
        simd::PackPanels(form_, static_cast<const uint8_t*>(b.data) + b_offsets_[batch] * k_ * n_,
                         b.dtype, k_, n_, n_, b_zp, b_scratch_.data);
        panels = b_scratch_.data;
      }
      int32_t* sums = mode_ == MatMulMode::kInteger ? ctx.output(0).ptr<int32_t>() + batch * m_ * n_
                                                    : sums_.ptr<int32_t>();
      quant::RunGemm(ctx, form_, m_, k_, a_rows_.data, panels, n_, sums, n_);
      if (mode_ == MatMulMode::kRequantize) Requantize(ctx, ctx.output(0), batch);
      if (float_out()) Dequantize(ctx, batch);
    }
    return Status::Ok();
  }

 private:
  Status PlanRequantize(PlanContext& ctx) {
    WEBNX_RETURN_IF_ERROR(quant::CheckParam(ctx, ops_.a_scale, m_, "a_scale", DType::kUndefined));
    WEBNX_RETURN_IF_ERROR(quant::CheckParam(ctx, ops_.b_scale, n_, "b_scale", DType::kUndefined));
    WEBNX_RETURN_IF_ERROR(quant::CheckParam(ctx, ops_.y_scale, m_, "y_scale", DType::kUndefined));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(ops_.y_zp, {DType::kUint8, DType::kInt8}));
    return quant::CheckParam(ctx, ops_.y_zp, m_, "y_zero_point", ctx.dtype(ops_.y_zp));
  }

  // B_scale and the bias: float32 (QDQMatMul's bias int32 with a scale), one value or one per
  // column of B (A_scale one value).
  Status PlanFloatOut(PlanContext& ctx) {
    if (mode_ != MatMulMode::kDynamic) {
      WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(ops_.a_scale, {DType::kFloat32}));
      WEBNX_RETURN_IF_ERROR(quant::CheckParam(ctx, ops_.a_scale, 1, "a_scale", DType::kFloat32));
      WEBNX_RETURN_IF_ERROR(ctx.ExpectPresent(ops_.b_scale));
    }
    const bool int_bias = ctx.has_input(ops_.bias_scale);
    for (int input : {ops_.b_scale, ops_.bias, ops_.bias_scale}) {
      if (!ctx.has_input(input)) continue;
      const bool is_int = input == ops_.bias && int_bias;
      WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(input, {is_int ? DType::kInt32 : DType::kFloat32}));
      const Shape& shape = ctx.shape(input);
      if (shape.size() > 1 || (Numel(shape) != 1 && Numel(shape) != n_)) {
        return ctx.Error(
            ErrorCode::kShapeMismatch,
            ctx.node().inputs[input] + " must be a scalar or hold one value per column of B");
      }
    }
    epilogue_ = Epilogue();
    if (!float_in()) return Status::Ok();
    epilogue_.accepts_addend = true;
    epilogue_.addend_input = mode_ == MatMulMode::kStatic ? 8 : 5;  // after the node's inputs
    epilogue_.accepts_clamp = true;
    WEBNX_RETURN_IF_ERROR(Tensor::AllocateUninitialized(DType::kFloat32, {n_}, &bias_values_));
    return Tensor::AllocateUninitialized(DType::kUint8, {Numel(ctx.shape(ops_.a))}, &a_q_);
  }

  Status PlanScratch(const PlanContext& ctx) {
    const int64_t b_matrices = b_numel_ / std::max<int64_t>(k_ * n_, 1);
    form_ = simd::FastestForm();
    const quant::PackedOperand b_layout{form_, true, b_matrices, k_, n_, trans_b_};
    if (ctx.constant(ops_.b) && (!ctx.has_input(ops_.b_zp) || ctx.constant(ops_.b_zp))) {
      WEBNX_RETURN_IF_ERROR(
          quant::PackConstantOperand(ctx, ops_.b, ops_.b_zp, b_layout, &b_packed_));
    } else if (trans_b_) {
      return ctx.Error(ErrorCode::kUnsupportedOperator,
                       "transB needs B and its zero point to be constants (they are packed once)");
    } else {
      b_packed_ = DerivedForm();
      WEBNX_RETURN_IF_ERROR(
          Tensor::AllocateUninitialized(DType::kUint8, {b_layout.PackedBytes()}, &b_scratch_));
    }
    WEBNX_RETURN_IF_ERROR(
        Tensor::AllocateUninitialized(DType::kUint8, {simd::RowsBytes(form_, m_, k_)}, &a_rows_));
    WEBNX_RETURN_IF_ERROR(Tensor::AllocateUninitialized(DType::kFloat32, {n_}, &multipliers_));
    const int64_t sums = mode_ == MatMulMode::kInteger ? 0 : m_ * n_;
    return Tensor::AllocateUninitialized(DType::kInt32, {sums}, &sums_);
  }

  // Dynamic: a_scale * B_scale[n] per column, as the chain's Mul(a_scale, B_scale) makes them.
  void PlanColumnScales(const RunContext& ctx) {
    const Tensor& b_scale = ctx.input(ops_.b_scale);
    for (int64_t n = 0; n < n_; ++n) {
      multipliers_.ptr<float>()[n] = a_scale_ * b_scale.ptr<float>()[quant::ParamIndex(b_scale, n)];
    }
  }

  // One batch's sums in float32 as the chain computes them, then the epilogue's sum and clamp.
  void Dequantize(RunContext& ctx, int64_t batch) {
    const Tensor* bias = Param(ctx, ops_.bias);
    const float* addend =
        epilogue_.has_addend ? ctx.input(epilogue_.addend_input).ptr<float>() : nullptr;
    const float* bias_values = bias ? BiasValues(ctx, *bias) : nullptr;
    simd::DequantizeArgs args{multipliers_.ptr<float>(),
                              false,
                              bias_values,
                              bias && bias->numel() == 1,
                              nullptr,
                              epilogue_.HasClamp(),
                              epilogue_.clamp_lo,
                              epilogue_.clamp_hi};
    for (int64_t m = 0; m < m_; ++m) {
      const int64_t at = (batch * m_ + m) * n_;
      args.addend = addend ? addend + at : nullptr;
      simd::DequantizeRow(sums_.ptr<int32_t>() + m * n_, n_, args, ctx.output(0).ptr<float>() + at);
    }
  }

  // The float bias: as given, or an int32 one dequantized as DequantizeLinear does.
  const float* BiasValues(const RunContext& ctx, const Tensor& bias) {
    if (bias.dtype != DType::kInt32) return bias.ptr<float>();
    float* values = bias_values_.ptr<float>();
    quant::BiasValues(bias, &ctx.input(ops_.bias_scale), bias.numel(), values);
    return values;
  }

  // numpy matmul shapes (1-D operands promoted), the batch broadcast and each batch's offsets.
  Status PlanShapes(PlanContext& ctx) {
    const Shape& a_in = ctx.shape(ops_.a);
    const Shape& b_in = ctx.shape(ops_.b);
    if (a_in.empty() || b_in.empty()) {
      return ctx.Error(ErrorCode::kShapeMismatch, "A and B must have rank >= 1");
    }
    const Shape a = a_in.size() == 1 ? Shape{1, a_in[0]} : a_in;
    Shape b = b_in.size() == 1 ? Shape{b_in[0], 1} : b_in;
    if (trans_b_) {
      if (b_in.size() != 2)
        return ctx.Error(ErrorCode::kShapeMismatch, "with transB, B must be 2-D");
      std::swap(b[0], b[1]);
    }
    m_ = a[a.size() - 2], k_ = a.back(), n_ = b.back();
    if (b[b.size() - 2] != k_) {
      return ctx.Error(
          ErrorCode::kShapeMismatch,
          "inner dimensions differ: A " + ShapeToString(a_in) + " x B " + ShapeToString(b_in));
    }
    const Shape a_batch(a.begin(), a.end() - 2), b_batch(b.begin(), b.end() - 2);
    Shape batch;
    Status s = BroadcastShapes({a_batch, b_batch}, &batch);
    if (!s.ok()) return ctx.Error(ErrorCode::kShapeMismatch, "batch dims: " + s.message());
    out_shape_ = batch;
    if (a_in.size() > 1) out_shape_.push_back(m_);
    if (b_in.size() > 1) out_shape_.push_back(n_);
    WEBNX_RETURN_IF_ERROR(nn::CheckNumel(ctx, out_shape_, "the output"));
    BatchOffsets(batch, a_batch, &a_offsets_);
    BatchOffsets(batch, b_batch, &b_offsets_);
    batches_ = static_cast<int64_t>(a_offsets_.size());
    b_numel_ = k_ * n_ * Numel(b_batch);
    return Status::Ok();
  }

  // For every batch index of `out`, the matrix index in an operand with batch dims `in`.
  static void BatchOffsets(const Shape& out, const Shape& in, std::vector<int64_t>* offsets) {
    const int64_t total = Numel(out);
    const size_t lead = out.size() - in.size();
    offsets->assign(total, 0);
    for (int64_t i = 0; i < total; ++i) {
      int64_t rest = i, offset = 0, stride = 1;
      for (size_t d = out.size(); d-- > 0;) {
        const int64_t coord = rest % out[d];
        rest /= out[d];
        if (d >= lead && in[d - lead] != 1) offset += coord * stride;
        if (d >= lead) stride *= in[d - lead];
      }
      (*offsets)[i] = offset;
    }
  }

  static const Tensor* Param(const RunContext& ctx, int input) {
    return ctx.has_input(input) ? &ctx.input(input) : nullptr;
  }

  // One batch's sums (sums_) requantized into y: a multiplier per column (b_scale), row scales.
  void Requantize(const RunContext& ctx, Tensor& y, int64_t batch) {
    const Tensor& a_scale = ctx.input(ops_.a_scale);
    const Tensor& b_scale = ctx.input(ops_.b_scale);
    const Tensor& y_scale = ctx.input(ops_.y_scale);
    const Tensor& y_zp = ctx.input(ops_.y_zp);
    float* multipliers = multipliers_.ptr<float>();
    const size_t element = DTypeSize(y.dtype);
    for (int64_t m = 0; m < m_; ++m) {
      const float row_scale = quant::ScaleAt(a_scale, quant::ParamIndex(a_scale, m));
      const float out_scale = quant::ScaleAt(y_scale, quant::ParamIndex(y_scale, m));
      for (int64_t n = 0; n < n_; ++n) {
        multipliers[n] =
            row_scale * quant::ScaleAt(b_scale, quant::ParamIndex(b_scale, n)) / out_scale;
      }
      simd::RequantizeRow(sums_.ptr<int32_t>() + m * n_, n_, 0, multipliers, false,
                          quant::IntegerAt(y_zp, quant::ParamIndex(y_zp, m)), y.dtype,
                          static_cast<uint8_t*>(y.data) + ((batch * m_ + m) * n_) * element);
    }
  }

  const MatMulMode mode_;
  Operands ops_;
  int64_t m_ = 0, k_ = 0, n_ = 0, batches_ = 0, b_numel_ = 0;
  Shape out_shape_;
  std::vector<int64_t> a_offsets_, b_offsets_;  // per output batch, the operand's matrix
  Tensor a_rows_, b_scratch_;  // A's packed rows (per run); B's panels when not packed once
  simd::I8Form form_ = simd::I8Form::kPairs;  // how the GEMM's operands are packed
  DerivedForm b_packed_;                      // B's panels, packed once per session (constant B)
  Tensor sums_, multipliers_;  // one batch's int32 sums; a row's multipliers (column scales)
  Tensor a_q_;                 // float A: A quantized
  Tensor bias_values_;         // float A: an int32 bias dequantized
  bool trans_b_ = false;       // QDQMatMul: B is N x K
  float a_scale_ = 1.f;        // dynamic: its scale, this run's
  Epilogue epilogue_;
};

}  // namespace

void RegisterQuantizedMatMulKernels(OpRegistry& r) {
  r.Register("", "MatMulInteger", {{10}, Inputs(2, 4), Outputs(1)},
             []() -> Kernel* { return new QuantizedMatMulKernel(MatMulMode::kInteger); });
  // 21 added float16 (and bfloat16) scales.
  r.Register("", "QLinearMatMul", {{10, 21}, Inputs(8), Outputs(1)},
             []() -> Kernel* { return new QuantizedMatMulKernel(MatMulMode::kRequantize); });
  r.Register("com.microsoft", "DynamicQuantizeMatMul", {{1}, Inputs(3, 5), Outputs(1)},
             []() -> Kernel* { return new QuantizedMatMulKernel(MatMulMode::kDynamic); });
  r.Register("com.microsoft", "MatMulIntegerToFloat", {{1}, Inputs(4, 7), Outputs(1)},
             []() -> Kernel* { return new QuantizedMatMulKernel(MatMulMode::kToFloat); });
  r.Register("com.webnx", "QDQMatMul", {{1}, Inputs(5, 8), Outputs(1)},
             []() -> Kernel* { return new QuantizedMatMulKernel(MatMulMode::kStatic); });
}

}  // namespace webnx
