// Two-input elementwise ops with numpy broadcasting: arithmetic (Add, Sub, Mul, Div, Pow),
// comparisons and logic (Equal, Less, Greater, LessOrEqual, GreaterOrEqual, And, Or, Xor), and
// PRelu. All but Pow and PRelu are one functor over same-dtype operands (BinaryKernel).
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <type_traits>

#include "kernels/arith_fast_path.h"
#include "kernels/binary_common.h"
#include "kernels/broadcast.h"
#include "kernels/dtype_dispatch.h"
#include "kernels/registrations.h"
#include "kernels/widening.h"

namespace webnx {
namespace {

using binary::AddOp;
using binary::AnyDType;
using binary::ArithFastPath;
using binary::BinaryLoop;
using binary::BoolOnly;
using binary::DivOp;
using binary::ExpectSameDType;
using binary::ExpectTypeSet;
using binary::FloatArithOf;
using binary::ForEachBinaryRun;
using binary::kHasFloatArith;
using binary::MulOp;
using binary::NumbersOnly;
using binary::OpLoop;
using binary::PlanBroadcast;
using binary::SharedBinaryLoop;
using binary::SubOp;
using binary::TypeSet;
using binary::TypeSetForVersion;
using binary::WrapMul;

struct EqualOp : AnyDType {
  template <typename T>
  bool operator()(T a, T b) const {
    return a == b;
  }
};
struct LessOp : NumbersOnly {
  template <typename T>
  bool operator()(T a, T b) const {
    return a < b;
  }
};
struct GreaterOp : NumbersOnly {
  template <typename T>
  bool operator()(T a, T b) const {
    return a > b;
  }
};
struct LessOrEqualOp : NumbersOnly {
  template <typename T>
  bool operator()(T a, T b) const {
    return a <= b;
  }
};
struct GreaterOrEqualOp : NumbersOnly {
  template <typename T>
  bool operator()(T a, T b) const {
    return a >= b;
  }
};
struct AndOp : BoolOnly {
  bool operator()(bool a, bool b) const { return a && b; }
};
struct OrOp : BoolOnly {
  bool operator()(bool a, bool b) const { return a || b; }
};
struct XorOp : BoolOnly {
  bool operator()(bool a, bool b) const { return a != b; }
};

// A two-input op: same-dtype inputs, broadcast, output dtype = input dtype or bool.
template <typename Op, bool kOutputsBool>
class BinaryKernel final : public Kernel {
 public:
  ElementwiseKind Elementwise() const override { return ElementwiseKind::kBroadcast; }
  explicit BinaryKernel(TypeSetForVersion types) : types_(types) {}

  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(2, 2));
    WEBNX_RETURN_IF_ERROR(ExpectTypeSet(ctx, 0, types_(ctx.since_version())));
    WEBNX_RETURN_IF_ERROR(ExpectSameDType(ctx, 0, 1));
    Shape out;
    WEBNX_RETURN_IF_ERROR(PlanBroadcast(ctx, 2, &out));
    walker_.Init(out, {ctx.shape(0), ctx.shape(1)});
    dtype_ = ctx.dtype(0);
    ctx.SetOutput(0, kOutputsBool ? DType::kBool : dtype_, out);
    if constexpr (kHasFloatArith<Op> && !kOutputsBool) {
      if (dtype_ == DType::kFloat32)
        fast_.Plan(FloatArithOf<Op>(), ctx.shape(0), ctx.shape(1), out);
    }
    return Status::Ok();
  }

  EpilogueStage AsEpilogueStage() const override {
    if (dtype_ != DType::kFloat32) return {};
    if (std::is_same_v<Op, AddOp>) return EpilogueStage::Of(EpilogueStage::Kind::kSum);
    if (std::is_same_v<Op, MulOp>) return EpilogueStage::Of(EpilogueStage::Kind::kProduct);
    return {};
  }

  Status Run(RunContext& ctx) override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    Tensor& out = ctx.output(0);
    if constexpr (kHasFloatArith<Op> && !kOutputsBool) {
      if (fast_.active()) {
        fast_.Run(ctx, a.ptr<float>(), b.ptr<float>(), out.ptr<float>());
        return Status::Ok();
      }
    }
    if constexpr (Op::kTakesUint64) {
      if (dtype_ == DType::kUint64) {
        OpLoop<Op>(walker_, a.ptr<uint64_t>(), b.ptr<uint64_t>(), out.ptr<uint64_t>());
        return Status::Ok();
      }
    }
    if constexpr (Op::kTakesNumbers) {
      if (dtype_ == DType::kFloat64) {
        using Out = std::conditional_t<kOutputsBool, bool, double>;
        OpLoop<Op>(walker_, a.ptr<double>(), b.ptr<double>(), out.ptr<Out>());
        return Status::Ok();
      }
    }
    DispatchDType(dtype_, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_same_v<T, bool> ? Op::kTakesBool : Op::kTakesNumbers) {
        using Out = std::conditional_t<kOutputsBool, bool, T>;
        OpLoop<Op>(walker_, a.ptr<T>(), b.ptr<T>(), out.ptr<Out>());
      }
    });
    return Status::Ok();
  }

 private:
  TypeSetForVersion types_;
  DType dtype_ = DType::kUndefined;
  BroadcastWalker walker_;
  ArithFastPath fast_;
};

template <typename Op, TypeSetForVersion kTypes, bool kOutputsBool = false>
Kernel* MakeBinary() {
  return new BinaryKernel<Op, kOutputsBool>(kTypes);
}

// ---- Pow: the exponent may have its own dtype from opset 12 on.

// Float to integer without undefined behaviour: NaN gives 0, out-of-range values saturate.
template <typename T>
T SaturatingCast(double v) {
  if (std::isnan(v)) return 0;
  if (v <= static_cast<double>(std::numeric_limits<T>::min())) {
    return std::numeric_limits<T>::min();
  }
  if (v >= static_cast<double>(std::numeric_limits<T>::max())) {
    return std::numeric_limits<T>::max();
  }
  return static_cast<T>(v);
}

// Integer power by squaring (wrapping); negative exponents truncate 1/x^n toward zero.
template <typename T, typename E>
T IntegerPow(T base, E exponent) {
  if (exponent < 0) {
    if (base == 1) return 1;
    if (base == -1) return (exponent % 2 == 0) ? 1 : -1;
    return 0;
  }
  T result = 1;
  while (exponent > 0) {
    if (exponent & 1) result = WrapMul(result, base);
    base = WrapMul(base, base);
    exponent >>= 1;
  }
  return result;
}

template <typename T, typename E>
T PowValue(T base, E exponent) {
  if constexpr (std::is_integral_v<T> && std::is_integral_v<E>) {
    return IntegerPow(base, exponent);
  } else if constexpr (std::is_integral_v<T>) {
    return SaturatingCast<T>(std::pow(static_cast<double>(base), static_cast<double>(exponent)));
  } else if constexpr (std::is_same_v<E, float>) {
    return std::pow(base, exponent);
  } else {
    return static_cast<T>(std::pow(static_cast<double>(base), static_cast<double>(exponent)));
  }
}

template <typename T, typename E>
void PowLoop(BroadcastWalker& walker, const T* base, const E* exponent, T* out) {
  const bool step_base = walker.step(0) != 0;
  const bool step_exp = walker.step(1) != 0;
  ForEachBinaryRun(walker, base, exponent, out, [&](const T* pb, const E* pe, T* po, int64_t n) {
    if constexpr (std::is_floating_point_v<T>) {
      // x^2 (variance in decomposed norms) is exact as a product and far cheaper than pow.
      if (step_base && !step_exp && *pe == E(2)) {
        for (int64_t i = 0; i < n; ++i) po[i] = pb[i] * pb[i];
        return;
      }
    }
    for (int64_t i = 0; i < n; ++i) {
      po[i] = PowValue(pb[step_base ? i : 0], pe[step_exp ? i : 0]);
    }
  });
}

class PowKernel final : public Kernel {
 public:
  ElementwiseKind Elementwise() const override { return ElementwiseKind::kBroadcast; }
  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(2, 2));
    if (ctx.since_version() < 12) {
      // Pow-7: base and exponent share one float type.
      WEBNX_RETURN_IF_ERROR(ExpectTypeSet(ctx, 0, TypeSet::kFloat));
      WEBNX_RETURN_IF_ERROR(ExpectTypeSet(ctx, 1, TypeSet::kFloat));
    } else {
      WEBNX_RETURN_IF_ERROR(ExpectTypeSet(ctx, 0, TypeSet::kNumeric));
      WEBNX_RETURN_IF_ERROR(ExpectTypeSet(ctx, 1, TypeSet::kNumericAndUint64));
    }
    if ((ctx.dtype(0) == DType::kFloat64) != (ctx.dtype(1) == DType::kFloat64)) {
      return ctx.Error(ErrorCode::kUnsupportedDtype,
                       "computes float64 only when the base and the exponent both are (got " +
                           std::string(DTypeName(ctx.dtype(0))) + " and " +
                           DTypeName(ctx.dtype(1)) + ")");
    }
    Shape out;
    WEBNX_RETURN_IF_ERROR(PlanBroadcast(ctx, 2, &out));
    walker_.Init(out, {ctx.shape(0), ctx.shape(1)});
    base_dtype_ = ctx.dtype(0);
    exponent_dtype_ = ctx.dtype(1);
    ctx.SetOutput(0, base_dtype_, out);
    exponent_as_int64_ = Tensor();
    if (exponent_dtype_ == DType::kUint64) {
      return Tensor::AllocateUninitialized(DType::kInt64, ctx.shape(1), &exponent_as_int64_);
    }
    return Status::Ok();
  }

  Status Run(RunContext& ctx) override {
    const Tensor& base = ctx.input(0);
    const Tensor& exponent = ctx.input(1);
    Tensor& out = ctx.output(0);
    if (base_dtype_ == DType::kFloat64) {
      SharedBinaryLoop<double, double>(walker_, base.ptr<double>(), exponent.ptr<double>(),
                                       out.ptr<double>(),
                                       [](double b, double e) { return PowValue(b, e); });
      return Status::Ok();
    }
    const Tensor* exponents = &exponent;
    if (exponent_dtype_ == DType::kUint64) {
      ReduceUint64Exponents(exponent.ptr<uint64_t>(), exponent.numel(), &exponent_as_int64_);
      exponents = &exponent_as_int64_;
    }
    DispatchDType(base_dtype_, [&](auto base_tag) {
      using T = decltype(base_tag);
      DispatchDType(exponents->dtype, [&](auto exp_tag) {
        using E = decltype(exp_tag);
        if constexpr (!std::is_same_v<T, bool> && !std::is_same_v<E, bool>) {
          PowLoop(walker_, base.ptr<T>(), exponents->ptr<E>(), out.ptr<T>());
        }
      });
    });
    return Status::Ok();
  }

 private:
  // uint64 exponents as int64 with the same powers: those past 2^63 are reduced modulo 2^62
  // into [2^62, 2^63). An odd integer's powers modulo 2^64 repeat with period 2^62 and an even
  // one's are 0 from the 64th on; a float base meets an even exponent past 2^53 either way.
  static void ReduceUint64Exponents(const uint64_t* in, int64_t n, Tensor* out) {
    constexpr uint64_t kTop = uint64_t{1} << 63;
    constexpr uint64_t kPeriod = uint64_t{1} << 62;
    int64_t* reduced = out->ptr<int64_t>();
    for (int64_t i = 0; i < n; ++i) {
      const uint64_t e = in[i];
      reduced[i] = static_cast<int64_t>(e < kTop ? e : (e & (kPeriod - 1)) | kPeriod);
    }
  }

  DType base_dtype_ = DType::kUndefined;
  DType exponent_dtype_ = DType::kUndefined;
  BroadcastWalker walker_;
  Tensor exponent_as_int64_;  // a uint64 exponent, reduced (planned with its shape)
};

// ---- PRelu(X, slope): slope broadcasts to X (unidirectionally).

struct PReluOp {
  template <typename T>
  T operator()(T v, T slope) const {
    return v < 0 ? MulOp()(v, slope) : v;
  }
};

class PReluKernel final : public Kernel {
 public:
  ElementwiseKind Elementwise() const override { return ElementwiseKind::kBroadcast; }
  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(2, 2));
    WEBNX_RETURN_IF_ERROR(
        ExpectTypeSet(ctx, 0, ctx.since_version() >= 9 ? TypeSet::kNumeric : TypeSet::kFloat));
    WEBNX_RETURN_IF_ERROR(ExpectSameDType(ctx, 0, 1));
    if (!BroadcastsTo(ctx.shape(1), ctx.shape(0))) {
      return ctx.Error(ErrorCode::kShapeMismatch, "slope of shape " + ShapeToString(ctx.shape(1)) +
                                                      " does not broadcast to the input shape " +
                                                      ShapeToString(ctx.shape(0)));
    }
    walker_.Init(ctx.shape(0), {ctx.shape(0), ctx.shape(1)});
    dtype_ = ctx.dtype(0);
    ctx.SetOutput(0, dtype_, ctx.shape(0));
    return Status::Ok();
  }

  Status Run(RunContext& ctx) override {
    const Tensor& x = ctx.input(0);
    const Tensor& slope = ctx.input(1);
    Tensor& out = ctx.output(0);
    if (dtype_ == DType::kFloat64) {
      OpLoop<PReluOp>(walker_, x.ptr<double>(), slope.ptr<double>(), out.ptr<double>());
      return Status::Ok();
    }
    DispatchDType(dtype_, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_same_v<T, bool>) {
        OpLoop<PReluOp>(walker_, x.ptr<T>(), slope.ptr<T>(), out.ptr<T>());
      }
    });
    return Status::Ok();
  }

 private:
  DType dtype_ = DType::kUndefined;
  BroadcastWalker walker_;
};

// Type sets per since-version, from the ONNX schemas.
TypeSet NumericTypes(int) {
  return TypeSet::kNumeric;
}
TypeSet NumericAndUint64Types(int) {
  return TypeSet::kNumericAndUint64;
}
TypeSet BoolTypes(int) {
  return TypeSet::kBool;
}
// Equal-7 compares bool/int32/int64 only; floats join at 11.
TypeSet EqualTypes(int v) {
  return v >= 11 ? TypeSet::kAll : TypeSet::kIntegerOrBool;
}
// Less/Greater-7 compare floats only; integers join at 9.
TypeSet OrderTypes(int v) {
  return v >= 9 ? TypeSet::kNumeric : TypeSet::kFloat;
}

}  // namespace

void RegisterBinaryKernels(OpRegistry& r) {
  const OpVersions arithmetic = {{7, 13, 14}, Inputs(2), Outputs(1)};
  r.Register("", "Add", arithmetic,
             MakeWidening<MakeBinary<AddOp, NumericTypes>, Uint64As::kModular>);
  r.Register("", "Sub", arithmetic,
             MakeWidening<MakeBinary<SubOp, NumericTypes>, Uint64As::kModular>);
  r.Register("", "Mul", arithmetic,
             MakeWidening<MakeBinary<MulOp, NumericTypes>, Uint64As::kModular>);
  r.Register("", "Div", arithmetic, MakeWidening<MakeBinary<DivOp, NumericAndUint64Types>>);
  r.Register("", "Pow", {{7, 12, 13, 15}, Inputs(2), Outputs(1)},
             MakeWidening<MakeKernel<PowKernel>>);

  r.Register("", "Equal", {{7, 11, 13, 19}, Inputs(2), Outputs(1)},
             MakeWidening<MakeBinary<EqualOp, EqualTypes, true>, Uint64As::kModular>);
  r.Register("", "Less", {{7, 9, 13}, Inputs(2), Outputs(1)},
             MakeWidening<MakeBinary<LessOp, OrderTypes, true>, Uint64As::kOrdered>);
  r.Register("", "Greater", {{7, 9, 13}, Inputs(2), Outputs(1)},
             MakeWidening<MakeBinary<GreaterOp, OrderTypes, true>, Uint64As::kOrdered>);
  r.Register("", "LessOrEqual", {{12, 16}, Inputs(2), Outputs(1)},
             MakeWidening<MakeBinary<LessOrEqualOp, NumericTypes, true>, Uint64As::kOrdered>);
  r.Register("", "GreaterOrEqual", {{12, 16}, Inputs(2), Outputs(1)},
             MakeWidening<MakeBinary<GreaterOrEqualOp, NumericTypes, true>, Uint64As::kOrdered>);
  r.Register("", "And", {{7}, Inputs(2), Outputs(1)}, MakeBinary<AndOp, BoolTypes, true>);
  r.Register("", "Or", {{7}, Inputs(2), Outputs(1)}, MakeBinary<OrOp, BoolTypes, true>);
  r.Register("", "Xor", {{7}, Inputs(2), Outputs(1)}, MakeBinary<XorOp, BoolTypes, true>);
  r.Register("", "PRelu", {{7, 9, 16}, Inputs(2), Outputs(1)},
             MakeWidening<MakeKernel<PReluKernel>>);
}

}  // namespace webnx
