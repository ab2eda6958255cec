// ConvTranspose (the adjoint of Conv) over any spatial rank: every input element scatters its
// products with the kernel into the output, y[n, m, i * stride + k * dilation - pad] +=
// x[n, c, i] * W[c, m, k] within each group, plus the bias. The output size and padding follow
// the spec from pads, output_padding, output_shape and auto_pad (kernels/conv_transpose_shape.h).
// Three strategies, chosen by ChoosePath:
//  - a constant W (every real model) of 1-3 spatial axes runs as one regular convolution per
//    output phase on the packed SIMD GEMM (kernels/conv_transpose_phases.h), W packed per phase
//    once per session;
//  - any other W as a GEMM per image and group followed by a scatter
//    (kernels/conv_transpose_gemm.h), W packed once per session when constant;
//  - the scalar loops from the definition (kernels/conv_transpose_reference.h) take what the
//    GEMMs cannot: no input channels or positions, or sizes past their int indices.
// Both GEMM paths apply a clamp (Relu, Clip) and an activation the planner fuses (core/epilogue.h).
#include <vector>

#include "kernels/conv_transpose_gemm.h"
#include "kernels/conv_transpose_phase_layout.h"
#include "kernels/conv_transpose_phases.h"
#include "kernels/conv_transpose_reference.h"
#include "kernels/conv_transpose_shape.h"
#include "kernels/registrations.h"

namespace webnx {
namespace {

using conv_transpose::ConvTransposeShape;
using conv_transpose::GemmPath;
using conv_transpose::PhaseLayout;
using conv_transpose::PhasePath;

enum class Path { kReference, kGemm, kPhases };

// The one choice of strategy. Phases whenever W is constant and the attributes lay it out for
// them (`phase_layout`), unless the sizes are past their int indices (`phases_fit`): the rest
// is known at load, where W's form is declared, so every plan of a session reads one form.
Path ChoosePath(bool constant_w, bool phase_layout, bool phases_fit, bool gemm_fits) {
  if (constant_w && phase_layout && phases_fit) return Path::kPhases;
  return gemm_fits ? Path::kGemm : Path::kReference;
}

class ConvTransposeKernel : public Kernel {
 public:
  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(2, 3));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(0, {DType::kFloat32}));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(1, {DType::kFloat32}));
    if (ctx.has_input(2)) WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(2, {DType::kFloat32}));
    WEBNX_RETURN_IF_ERROR(conv_transpose::PlanShape(ctx, &shape_));
    const ConvTransposeShape& s = shape_;
    path_ = Path::kReference;
    epilogue_ = Epilogue();
    if (s.empty_output) return Status::Ok();
    std::vector<int64_t> strides, dilations;
    for (const conv_transpose::Axis& a : s.axes) {
      strides.push_back(a.stride);
      dilations.push_back(a.dilation);
    }
    PhaseLayout layout;
    const bool phase_layout =
        conv_transpose::MakePhaseLayout(ctx.shape(1), s.groups, strides, dilations, &layout);
    path_ = ChoosePath(ctx.is_constant(1), phase_layout, phase_layout && PhasePath::Fits(s, layout),
                       GemmPath::Takes(s));
    // W replaced by its packed form at load (DeclareForms): its values are gone, and only the
    // path that form is for can run.
    const bool replaced = ctx.is_constant(1) && !ctx.constant(1);
    if (replaced && phase_layout && path_ != Path::kPhases) {
      return ctx.Error(ErrorCode::kOutOfMemory,
                       "sizes this big need the GEMM or scalar ConvTranspose, and W was packed "
                       "for the phase path when the model loaded");
    }
    if (replaced && path_ == Path::kReference && s.group_in > 0 && s.in_plane > 0) {
      return ctx.Error(ErrorCode::kOutOfMemory,
                       "an input plane this big needs the scalar ConvTranspose, and W was "
                       "packed for the GEMM when the model loaded");
    }
    if (path_ == Path::kReference) return Status::Ok();
    epilogue_.accepts_clamp = true;
    epilogue_.accepts_function = true;
    if (path_ == Path::kPhases) return phases_.Plan(ctx, s, layout, &epilogue_);
    return gemm_.Plan(ctx, s, &epilogue_);
  }

  void DeclareForms(FormContext& ctx, std::vector<ConstantForm>* forms) const override {
    const Tensor* w = ctx.constant(1);
    if (!w || w->dtype != DType::kFloat32) return;
    PhaseLayout layout;
    const bool phase_layout = conv_transpose::PhaseLayoutOf(ctx, w->shape, &layout);
    if (ChoosePath(true, phase_layout, true, true) == Path::kPhases) {
      forms->push_back(conv_transpose::PhaseWeightsForm(layout));
    } else {
      GemmPath::DeclareForms(ctx, forms);
    }
  }

  // The planner fuses a following clamp or activation into the GEMM paths' epilogues.
  Epilogue* epilogue() override { return &epilogue_; }

  Status Run(RunContext& ctx) override {
    const ConvTransposeShape& s = shape_;
    if (s.empty_output) return Status::Ok();
    const float* x = ctx.input(0).ptr<float>();
    const float* w = ctx.input(1).ptr<float>();
    const float* bias = s.has_bias ? ctx.input(2).ptr<float>() : nullptr;
    float* y = ctx.output(0).ptr<float>();
    switch (path_) {
      case Path::kPhases:
        phases_.Run(ctx, x, bias, y);
        break;
      case Path::kGemm:
        gemm_.Run(ctx, x, w, bias, y);
        break;
      case Path::kReference:
        conv_transpose::RunReference(s, x, w, bias, y);
        break;
    }
    return Status::Ok();
  }

 private:
  ConvTransposeShape shape_;
  Path path_ = Path::kReference;
  Epilogue epilogue_;
  PhasePath phases_;
  GemmPath gemm_;
};

}  // namespace

void RegisterConvTransposeKernels(OpRegistry& r) {
  r.Register("", "ConvTranspose", {{1, 11, 22}, Inputs(2, 3), Outputs(1)},
             MakeKernel<ConvTransposeKernel>);
}

}  // namespace webnx
