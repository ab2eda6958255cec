// ConvTranspose (the adjoint of Conv) over any spatial rank: every input element scatters its
// products with the kernel into the output, y[n, m, i * stride + k * dilation - pad] +=
// x[n, c, i] * W[c, m, k] within each group, plus the bias. The output size and padding follow
// the spec from pads, output_padding, output_shape and auto_pad (kernels/conv_transpose_shape.h).
// It runs as a GEMM per image and group followed by a scatter (kernels/conv_transpose_gemm.h),
// with W packed once per session when constant; the scalar loops from the definition
// (kernels/conv_transpose_reference.h) take what the GEMM cannot: no input channels or
// positions, or sizes past its int indices.
#include <vector>

#include "kernels/conv_transpose_gemm.h"
#include "kernels/conv_transpose_reference.h"
#include "kernels/conv_transpose_shape.h"
#include "kernels/registrations.h"

namespace webnx {
namespace {

using conv_transpose::ConvTransposeShape;
using conv_transpose::GemmPath;

class ConvTransposeKernel : public Kernel {
 public:
  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(2, 3));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(0, {DType::kFloat32}));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(1, {DType::kFloat32}));
    if (ctx.has_input(2)) WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(2, {DType::kFloat32}));
    WEBNX_RETURN_IF_ERROR(conv_transpose::PlanShape(ctx, &shape_));
    use_gemm_ = false;
    if (shape_.empty_output) return Status::Ok();
    if (GemmPath::Takes(shape_)) {
      use_gemm_ = true;
      return gemm_.Plan(ctx, shape_);
    }
    // W replaced by its packed form at load (DeclareForms): its values are gone.
    if (ctx.is_constant(1) && !ctx.constant(1) && shape_.group_in > 0 && shape_.in_plane > 0) {
      return ctx.Error(ErrorCode::kOutOfMemory,
                       "an input plane this big needs the scalar ConvTranspose, and W was "
                       "packed for the GEMM when the model loaded");
    }
    return Status::Ok();
  }

  void DeclareForms(FormContext& ctx, std::vector<ConstantForm>* forms) const override {
    GemmPath::DeclareForms(ctx, forms);
  }

  Status Run(RunContext& ctx) override {
    if (shape_.empty_output) return Status::Ok();
    const float* x = ctx.input(0).ptr<float>();
    const float* w = ctx.input(1).ptr<float>();
    const float* bias = shape_.has_bias ? ctx.input(2).ptr<float>() : nullptr;
    float* y = ctx.output(0).ptr<float>();
    if (use_gemm_) {
      gemm_.Run(ctx, x, w, bias, y);
    } else {
      conv_transpose::RunReference(shape_, x, w, bias, y);
    }
    return Status::Ok();
  }

 private:
  ConvTransposeShape shape_;
  bool use_gemm_ = false;
  GemmPath gemm_;
};

}  // namespace

void RegisterConvTransposeKernels(OpRegistry& r) {
  r.Register("", "ConvTranspose", {{1, 11, 22}, Inputs(2, 3), Outputs(1)},
             MakeKernel<ConvTransposeKernel>);
}

}  // namespace webnx
