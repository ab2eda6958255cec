// Constant, Identity and Dropout (inference: identity).
#include <cmath>
#include <cstring>
#include <memory>
#include <string>

#include "kernels/registrations.h"

namespace webnx {
namespace {

// Views share the input's storage: output 0 points at it, and the planner keeps it alive.
void ViewInput(RunContext& ctx) {
  ctx.output(0).data = ctx.input(0).data;
}

// ---- Constant: 'value' tensor; from 12 also value_float(s) / value_int(s).

class ConstantKernel final : public Kernel {
 public:
  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(0, 0));
    Attrs& attrs = ctx.attrs();
    static const char* const kUnsupported[] = {"sparse_value", "value_string", "value_strings"};
    for (const char* name : kUnsupported) {
      if (attrs.Has(name)) {
        return ctx.Error(ErrorCode::kUnsupportedOperator,
                         std::string("Constant with '") + name + "' is not supported");
      }
    }
    const bool modern = ctx.since_version() >= 12;
    const int present =
        attrs.Has("value") + (modern ? attrs.Has("value_float") + attrs.Has("value_floats") +
                                           attrs.Has("value_int") + attrs.Has("value_ints")
                                     : 0);
    if (present != 1) {
      return ctx.Error(ErrorCode::kMalformedModel,
                       "exactly one value attribute must be set, found " + std::to_string(present));
    }
    if (attrs.Has("value")) {
      const Tensor* t = attrs.TensorAttr("value");
      WEBNX_RETURN_IF_ERROR(attrs.status());
      if (!t || DTypeSize(t->dtype) == 0) {
        return ctx.Error(ErrorCode::kUnsupportedDtype, "'value' has an unsupported dtype");
      }
      int64_t numel = 0;
      if (!ShapeNumel(t->shape, &numel) || (numel > 0 && !t->data)) {
        return ctx.Error(ErrorCode::kMalformedModel, "'value' holds no data for its shape");
      }
      value_ = *t;  // shares the attribute's storage
    } else if (attrs.Has("value_float")) {
      WEBNX_RETURN_IF_ERROR(MakeValue(ctx, DType::kFloat32, {}, &value_));
      value_.ptr<float>()[0] = attrs.Float("value_float", 0);
    } else if (attrs.Has("value_floats")) {
      const std::vector<float> v = attrs.Floats("value_floats");
      WEBNX_RETURN_IF_ERROR(
          MakeValue(ctx, DType::kFloat32, {static_cast<int64_t>(v.size())}, &value_));
      std::copy(v.begin(), v.end(), value_.ptr<float>());
    } else if (attrs.Has("value_int")) {
      WEBNX_RETURN_IF_ERROR(MakeValue(ctx, DType::kInt64, {}, &value_));
      value_.ptr<int64_t>()[0] = attrs.Int("value_int", 0);
    } else {
      const std::vector<int64_t> v = attrs.Ints("value_ints");
      WEBNX_RETURN_IF_ERROR(
          MakeValue(ctx, DType::kInt64, {static_cast<int64_t>(v.size())}, &value_));
      std::copy(v.begin(), v.end(), value_.ptr<int64_t>());
    }
    WEBNX_RETURN_IF_ERROR(attrs.status());
    ctx.SetOutput(0, value_.dtype, value_.shape);
    return Status::Ok();
  }

  Status Run(RunContext& ctx) override {
    Tensor& y = ctx.output(0);
    if (value_.nbytes() > 0) std::memcpy(y.data, value_.data, value_.nbytes());
    return Status::Ok();
  }

 private:
  static Status MakeValue(const PlanContext& ctx, DType dtype, const Shape& shape, Tensor* out) {
    Status s = Tensor::Allocate(dtype, shape, out);
    return s.ok() ? s : ctx.Error(s.code(), s.message());
  }

  Tensor value_;
};

// ---- Identity

class IdentityKernel final : public Kernel {
 public:
  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(1, 1));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectAnyDType(0));
    ctx.SetOutput(0, ctx.dtype(0), ctx.shape(0));
    return Status::Ok();
  }
  int OutputAliasesInput() const override { return 0; }
  Status Run(RunContext& ctx) override {
    ViewInput(ctx);
    return Status::Ok();
  }
};

// ---- Dropout: inference copies the input; the optional mask is all ones (bool from 10, the
// input dtype before). From 12, ratio and training_mode are optional inputs; training with a
// non-zero ratio needs random masks, which webnx does not do.

class DropoutKernel final : public Kernel {
 public:
  Status Plan(PlanContext& ctx) override {
    const bool inputs_form = ctx.since_version() >= 12;
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(1, inputs_form ? 3 : 1));
    if (ctx.since_version() >= 12) {
      WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(0, {DType::kFloat32}));
      if (ctx.has_input(1)) WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(1, {DType::kFloat32}));
      if (ctx.has_input(2)) WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(2, {DType::kBool}));
    } else {
      WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(0, {DType::kFloat32}));
    }
    node_ = ctx.node().Describe();
    training_input_ = inputs_form && ctx.has_input(2);
    ratio_input_ = inputs_form && ctx.has_input(1);
    for (int i = 1; i <= 2; ++i) {
      int64_t numel = 0;
      if (inputs_form && ctx.has_input(i) && (!ShapeNumel(ctx.shape(i), &numel) || numel != 1)) {
        return ctx.Error(ErrorCode::kMalformedModel,
                         std::string(i == 1 ? "ratio" : "training_mode") + " must be a scalar");
      }
    }
    const Tensor* training = ctx.constant(2);
    if (training_input_ && training && training->ptr<bool>()[0]) {
      // Training is honoured only with a zero ratio (then it is the identity too); the default
      // ratio is 0.5, and a ratio only known at run time is checked then.
      const Tensor* ratio = ctx.constant(1);
      const bool nonzero_ratio = !ratio_input_ || (ratio && ratio->ptr<float>()[0] != 0.f);
      if (nonzero_ratio) {
        return ctx.Error(ErrorCode::kUnsupportedOperator,
                         "training_mode=true with a non-zero ratio (random dropout) is not "
                         "supported");
      }
    }
    mask_dtype_ = ctx.since_version() >= 10 ? DType::kBool : ctx.dtype(0);
    ctx.SetOutput(0, ctx.dtype(0), ctx.shape(0));
    if (ctx.has_output(1)) ctx.SetOutput(1, mask_dtype_, ctx.shape(0));
    return Status::Ok();
  }

  int OutputAliasesInput() const override { return 0; }
  Status Run(RunContext& ctx) override {
    if (training_input_ && ctx.input(2).ptr<bool>()[0]) {
      const float ratio = ratio_input_ ? ctx.input(1).ptr<float>()[0] : 0.5f;
      if (ratio != 0.f) {
        return Status(ErrorCode::kInvalidInput,
                      node_ +
                          ": training_mode=true with a non-zero ratio (random dropout) is "
                          "not supported");
      }
    }
    ViewInput(ctx);
    if (ctx.has_output(1)) {
      Tensor& mask = ctx.output(1);
      const int64_t n = mask.numel();
      if (mask_dtype_ == DType::kBool) {
        std::fill(mask.ptr<bool>(), mask.ptr<bool>() + n, true);
      } else {
        std::fill(mask.ptr<float>(), mask.ptr<float>() + n, 1.f);
      }
    }
    return Status::Ok();
  }

 private:
  std::string node_;
  bool training_input_ = false;
  bool ratio_input_ = false;
  DType mask_dtype_ = DType::kBool;
};

}  // namespace

void RegisterMiscKernels(OpRegistry& r) {
  r.Register("", "Constant", {{1, 9, 11, 12, 13, 19}, Inputs(0), Outputs(1)},
             MakeKernel<ConstantKernel>);
  r.Register("", "Identity", {{1, 13, 14, 16, 19, 21}, Inputs(1), Outputs(1)},
             MakeKernel<IdentityKernel>);
  // 12 turned ratio and training_mode into optional inputs.
  r.Register("", "Dropout",
             {{{1, 6, 7, 10}, Inputs(1), Outputs(1, 2)}, {{12, 13}, Inputs(1, 3), Outputs(1, 2)}},
             MakeKernel<DropoutKernel>);
}

}  // namespace webnx
