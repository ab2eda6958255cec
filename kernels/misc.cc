// Constant, Identity, Dropout (inference: identity), and Cast and CastLike between the supported
// dtypes.
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>

#include "core/onnx_type_names.h"
#include "kernels/registrations.h"

namespace webnx {
namespace {

Status ExpectAnyDType(const PlanContext& ctx, int i) {
  return ctx.ExpectDType(i, {DType::kFloat32, DType::kInt32, DType::kInt64, DType::kBool});
}

void CopyInput(RunContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  if (x.data != y.data && x.nbytes() > 0) std::memcpy(y.data, x.data, x.nbytes());
}

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
    WEBNX_RETURN_IF_ERROR(ExpectAnyDType(ctx, 0));
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

// ---- Cast

// Float to integer without undefined behaviour: truncates toward zero, NaN gives 0 and
// out-of-range values saturate.
template <typename To>
To FloatToInt(float v) {
  if (std::isnan(v)) return 0;
  constexpr double lo = static_cast<double>(std::numeric_limits<To>::min());
  constexpr double hi = static_cast<double>(std::numeric_limits<To>::max());
  if (v <= lo) return std::numeric_limits<To>::min();
  if (v >= hi) return std::numeric_limits<To>::max();
  return static_cast<To>(v);
}

template <typename To, typename From>
To Convert(From v) {
  if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (std::is_same_v<From, float> && std::is_integral_v<To>) {
    return FloatToInt<To>(v);
  } else {
    return static_cast<To>(v);  // integer narrowing wraps (two's complement)
  }
}

template <typename T>
struct TypeTag {
  using type = T;
};

template <typename Fn>
void DispatchDType(DType dtype, Fn&& fn) {
  switch (dtype) {
    case DType::kFloat32:
      fn(TypeTag<float>{});
      break;
    case DType::kInt32:
      fn(TypeTag<int32_t>{});
      break;
    case DType::kInt64:
      fn(TypeTag<int64_t>{});
      break;
    case DType::kBool:
      fn(TypeTag<bool>{});
      break;
    case DType::kUndefined:
      break;
  }
}

// Cast to attribute 'to', or (CastLike) to the dtype of input 1.
class CastKernel final : public Kernel {
 public:
  explicit CastKernel(bool like = false) : like_(like) {}

  Status Plan(PlanContext& ctx) override {
    if (like_) {
      WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(2, 2));
      WEBNX_RETURN_IF_ERROR(ExpectAnyDType(ctx, 0));
      WEBNX_RETURN_IF_ERROR(ExpectAnyDType(ctx, 1));
      from_ = ctx.dtype(0);
      to_ = ctx.dtype(1);
      ctx.SetOutput(0, to_, ctx.shape(0));
      return Status::Ok();
    }
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(1, 1));
    WEBNX_RETURN_IF_ERROR(ExpectAnyDType(ctx, 0));
    Attrs& attrs = ctx.attrs();
    if (!attrs.Has("to"))
      return ctx.Error(ErrorCode::kMalformedModel, "attribute 'to' is required");
    int64_t to = 0;
    const Attribute* to_attr = ctx.node().attr("to");
    if (ctx.since_version() < 6 && to_attr && to_attr->type == Attribute::Type::kString) {
      to = FromCast1Name(attrs.String("to", ""));
    } else {
      to = attrs.Int("to", 0);
    }
    WEBNX_RETURN_IF_ERROR(attrs.status());
    if (to > std::numeric_limits<int32_t>::max() || to < 0 ||
        !IsSupportedDType(static_cast<int32_t>(to))) {
      return ctx.Error(ErrorCode::kUnsupportedDtype, "Cast to " + OnnxDataTypeName(to) +
                                                         " is not supported (float32, int32, "
                                                         "int64 and bool are)");
    }
    from_ = ctx.dtype(0);
    to_ = static_cast<DType>(to);
    ctx.SetOutput(0, to_, ctx.shape(0));
    return Status::Ok();
  }

  Status Run(RunContext& ctx) override {
    const Tensor& x = ctx.input(0);
    Tensor& y = ctx.output(0);
    const int64_t n = x.numel();
    if (from_ == to_) {
      CopyInput(ctx);
      return Status::Ok();
    }
    DispatchDType(from_, [&](auto from_tag) {
      using From = typename decltype(from_tag)::type;
      DispatchDType(to_, [&](auto to_tag) {
        using To = typename decltype(to_tag)::type;
        const From* in = x.ptr<From>();
        To* out = y.ptr<To>();
        for (int64_t i = 0; i < n; ++i) out[i] = Convert<To>(in[i]);
      });
    });
    return Status::Ok();
  }

 private:
  // Cast-1 named the target type with a string.
  static int64_t FromCast1Name(const std::string& name) {
    if (name == "FLOAT") return 1;
    if (name == "INT32") return 6;
    if (name == "INT64") return 7;
    if (name == "BOOL") return 9;
    return -1;
  }

  const bool like_;
  DType from_ = DType::kUndefined;
  DType to_ = DType::kUndefined;
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
  r.Register("", "Cast", {{1, 6, 9, 13, 19, 21}, Inputs(1), Outputs(1)}, MakeKernel<CastKernel>);
  r.Register("", "CastLike", {{15, 19, 21}, Inputs(2), Outputs(1)},
             []() -> std::unique_ptr<Kernel> { return std::make_unique<CastKernel>(true); });
}

}  // namespace webnx
