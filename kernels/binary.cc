// Elementwise ops with numpy broadcasting: arithmetic (Add, Sub, Mul, Div, Pow), comparisons
// and logic (Equal, Less, Greater, LessOrEqual, GreaterOrEqual, And, Or, Xor), Where, the
// variadic Max/Min/Sum/Mean, and PRelu. All walk their operands with BroadcastWalker.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>

#include "kernels/broadcast.h"
#include "kernels/dtype_dispatch.h"
#include "kernels/registrations.h"
#include "kernels/simd/arith.h"

namespace webnx {
namespace {

// The dtype sets the op schemas allow (restricted to what webnx computes in).
enum class TypeSet { kFloat, kNumeric, kIntegerOrBool, kAll, kBool };

Status ExpectTypeSet(const PlanContext& ctx, int i, TypeSet set) {
  switch (set) {
    case TypeSet::kFloat:
      return ctx.ExpectDType(i, {DType::kFloat32});
    case TypeSet::kNumeric:
      return ctx.ExpectDType(i, {DType::kFloat32, DType::kInt32, DType::kInt64});
    case TypeSet::kIntegerOrBool:
      return ctx.ExpectDType(i, {DType::kBool, DType::kInt32, DType::kInt64});
    case TypeSet::kAll:
      return ctx.ExpectDType(i, {DType::kFloat32, DType::kInt32, DType::kInt64, DType::kBool});
    case TypeSet::kBool:
      return ctx.ExpectDType(i, {DType::kBool});
  }
  return ctx.Error(ErrorCode::kInternal, "unknown type set");
}

Status ExpectSameDType(const PlanContext& ctx, int i, int j) {
  if (ctx.dtype(i) == ctx.dtype(j)) return Status::Ok();
  return ctx.Error(ErrorCode::kMalformedModel, "inputs " + std::to_string(i) + " and " +
                                                   std::to_string(j) + " differ in dtype (" +
                                                   DTypeName(ctx.dtype(i)) + " vs " +
                                                   DTypeName(ctx.dtype(j)) + ")");
}

// Broadcasts the shapes of inputs [0, count) and checks the result's size.
Status PlanBroadcast(const PlanContext& ctx, int count, Shape* out) {
  std::vector<Shape> shapes;
  for (int i = 0; i < count; ++i) shapes.push_back(ctx.shape(i));
  Status s = BroadcastShapes(shapes, out);
  if (!s.ok()) return ctx.Error(s.code(), s.message());
  int64_t numel = 0;
  if (!ShapeNumel(*out, &numel)) {
    return ctx.Error(ErrorCode::kOutOfMemory,
                     "output shape " + ShapeToString(*out) + " is too large");
  }
  return Status::Ok();
}

// out[i] = fn(a[ia], b[ib]) over a two-operand walk; the step pattern is fixed per plan, so each
// run is one of four simple loops.
template <typename In, typename Out, typename Fn>
void BinaryLoop(BroadcastWalker& walker, const In* a, const In* b, Out* out, Fn fn) {
  const bool step_a = walker.step(0) != 0;
  const bool step_b = walker.step(1) != 0;
  walker.ForEachRun([&](const int64_t* offsets, int64_t out_offset, int64_t n) {
    const In* pa = a + offsets[0];
    const In* pb = b + offsets[1];
    Out* po = out + out_offset;
    if (step_a && step_b) {
      for (int64_t i = 0; i < n; ++i) po[i] = fn(pa[i], pb[i]);
    } else if (step_a) {
      const In vb = *pb;
      for (int64_t i = 0; i < n; ++i) po[i] = fn(pa[i], vb);
    } else if (step_b) {
      const In va = *pa;
      for (int64_t i = 0; i < n; ++i) po[i] = fn(va, pb[i]);
    } else {
      const Out v = fn(*pa, *pb);
      for (int64_t i = 0; i < n; ++i) po[i] = v;
    }
  });
}

// Integer arithmetic wraps (two's complement) instead of being undefined on overflow.
template <typename T>
T WrapAdd(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
}
template <typename T>
T WrapSub(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) - static_cast<U>(b));
}
template <typename T>
T WrapMul(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
}

// Which input dtypes an op's C++ functor accepts (the schema checks happen in Plan).
struct NumbersOnly {
  static constexpr bool kTakesBool = false;
  static constexpr bool kTakesNumbers = true;
};
struct BoolOnly {
  static constexpr bool kTakesBool = true;
  static constexpr bool kTakesNumbers = false;
};
struct AnyDType {
  static constexpr bool kTakesBool = true;
  static constexpr bool kTakesNumbers = true;
};

struct AddOp : NumbersOnly {
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) return WrapAdd(a, b);
    return a + b;
  }
};
struct SubOp : NumbersOnly {
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) return WrapSub(a, b);
    return a - b;
  }
};
struct MulOp : NumbersOnly {
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) return WrapMul(a, b);
    return a * b;
  }
};
// Integer division truncates toward zero like C. Division by zero (undefined in ONNX, a trap on
// x86 and wasm) yields 0, and MIN / -1 wraps to MIN instead of trapping.
struct DivOp : NumbersOnly {
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      if (b == 0) return 0;
      if (b == -1) return WrapSub(T(0), a);
      return a / b;
    }
    return a / b;
  }
};
// NaN propagates as in numpy's maximum/minimum.
struct MaxOp : NumbersOnly {
  template <typename T>
  T operator()(T a, T b) const {
    return (a > b || a != a) ? a : b;
  }
};
struct MinOp : NumbersOnly {
  template <typename T>
  T operator()(T a, T b) const {
    return (a < b || a != a) ? a : b;
  }
};
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

// The float ops with a SIMD path for same-shape and per-plane operands (kernels/simd/arith.h).
template <typename Op>
constexpr bool kHasFloatArith = std::is_same_v<Op, AddOp> || std::is_same_v<Op, SubOp> ||
                                std::is_same_v<Op, MulOp> || std::is_same_v<Op, DivOp>;

template <typename Op>
constexpr simd::ArithOp FloatArithOf() {
  if constexpr (std::is_same_v<Op, SubOp>) return simd::ArithOp::kSub;
  if constexpr (std::is_same_v<Op, MulOp>) return simd::ArithOp::kMul;
  if constexpr (std::is_same_v<Op, DivOp>) return simd::ArithOp::kDiv;
  return simd::ArithOp::kAdd;
}

// Elements per task of the SIMD paths.
constexpr int64_t kArithChunk = 16384;

// Float operands of one shape, or one full and the other one value per run of `inner`
// trailing elements (a per-channel scale [1, C, 1, 1], a scalar): the SIMD paths. One class
// for the four ops keeps the download small.
class ArithFastPath {
 public:
  bool active() const { return kind_ != Kind::kNone; }

  void Plan(simd::ArithOp op, const Shape& a, const Shape& b, const Shape& out) {
    kind_ = Kind::kNone;
    op_ = op;
    if (!ShapeNumel(out, &numel_) || numel_ == 0) return;
    if (a == out && b == out) {
      kind_ = Kind::kSame;
      return;
    }
    const bool a_full = a == out;
    if (!a_full && b != out) return;
    const Shape& small = a_full ? b : a;
    if (small.size() > out.size()) return;
    Shape padded(out.size() - small.size(), 1);
    padded.insert(padded.end(), small.begin(), small.end());
    int64_t last = -1;  // last axis where the small operand varies
    for (size_t i = 0; i < padded.size(); ++i)
      if (padded[i] != 1) last = static_cast<int64_t>(i);
    inner_ = 1;
    for (size_t i = 0; i < out.size(); ++i) {
      if (static_cast<int64_t>(i) <= last) {
        if (padded[i] != out[i]) return;  // a broadcast in the leading axes: the walker
      } else {
        inner_ *= out[i];
      }
    }
    small_is_b_ = a_full;
    kind_ = Kind::kPlanes;
  }

  void Run(const RunContext& ctx, const float* a, const float* b, float* y) const {
    if (kind_ == Kind::kSame) {
      const int64_t tasks = (numel_ + kArithChunk - 1) / kArithChunk;
      ctx.ParallelFor(tasks, [&](int64_t t, int) {
        const int64_t at = t * kArithChunk, n = std::min(kArithChunk, numel_ - at);
        simd::ArithSame(op_, a + at, b + at, y + at, n);
      });
      return;
    }
    const float* full = small_is_b_ ? a : b;
    const float* small = small_is_b_ ? b : a;
    const int64_t runs = numel_ / inner_;
    const int64_t per_task = std::max<int64_t>(1, kArithChunk / inner_);
    ctx.ParallelFor((runs + per_task - 1) / per_task, [&](int64_t t, int) {
      const int64_t end = std::min(runs, (t + 1) * per_task);
      for (int64_t r = t * per_task; r < end; ++r) {
        simd::ArithScalar(op_, full + r * inner_, small[r], !small_is_b_, y + r * inner_, inner_);
      }
    });
  }

 private:
  enum class Kind { kNone, kSame, kPlanes };
  Kind kind_ = Kind::kNone;
  simd::ArithOp op_ = simd::ArithOp::kAdd;
  int64_t numel_ = 0;
  int64_t inner_ = 1;        // kPlanes: elements sharing one value of the small operand
  bool small_is_b_ = false;  // kPlanes: which operand is the small one
};

// The allowed input dtypes of an op at a since-version.
using TypeSetForVersion = TypeSet (*)(int since_version);

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

  bool IsSum() const override { return std::is_same_v<Op, AddOp> && dtype_ == DType::kFloat32; }
  bool IsProduct() const override { return std::is_same_v<Op, MulOp> && dtype_ == DType::kFloat32; }

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
    DispatchDType(dtype_, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_same_v<T, bool> ? Op::kTakesBool : Op::kTakesNumbers) {
        using Out = std::conditional_t<kOutputsBool, bool, T>;
        BinaryLoop(walker_, a.ptr<T>(), b.ptr<T>(), out.ptr<Out>(), Op());
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
std::unique_ptr<Kernel> MakeBinary() {
  return std::make_unique<BinaryKernel<Op, kOutputsBool>>(kTypes);
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
  walker.ForEachRun([&](const int64_t* offsets, int64_t out_offset, int64_t n) {
    const T* pb = base + offsets[0];
    const E* pe = exponent + offsets[1];
    T* po = out + out_offset;
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
      WEBNX_RETURN_IF_ERROR(ExpectTypeSet(ctx, 1, TypeSet::kNumeric));
    }
    Shape out;
    WEBNX_RETURN_IF_ERROR(PlanBroadcast(ctx, 2, &out));
    walker_.Init(out, {ctx.shape(0), ctx.shape(1)});
    base_dtype_ = ctx.dtype(0);
    exponent_dtype_ = ctx.dtype(1);
    ctx.SetOutput(0, base_dtype_, out);
    return Status::Ok();
  }

  Status Run(RunContext& ctx) override {
    const Tensor& base = ctx.input(0);
    const Tensor& exponent = ctx.input(1);
    Tensor& out = ctx.output(0);
    DispatchDType(base_dtype_, [&](auto base_tag) {
      using T = decltype(base_tag);
      DispatchDType(exponent_dtype_, [&](auto exp_tag) {
        using E = decltype(exp_tag);
        if constexpr (!std::is_same_v<T, bool> && !std::is_same_v<E, bool>) {
          PowLoop(walker_, base.ptr<T>(), exponent.ptr<E>(), out.ptr<T>());
        }
      });
    });
    return Status::Ok();
  }

 private:
  DType base_dtype_ = DType::kUndefined;
  DType exponent_dtype_ = DType::kUndefined;
  BroadcastWalker walker_;
};

// ---- Where(condition, X, Y)

class WhereKernel final : public Kernel {
 public:
  ElementwiseKind Elementwise() const override { return ElementwiseKind::kBroadcast; }
  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(3, 3));
    WEBNX_RETURN_IF_ERROR(ExpectTypeSet(ctx, 0, TypeSet::kBool));
    WEBNX_RETURN_IF_ERROR(ExpectTypeSet(ctx, 1, TypeSet::kAll));
    WEBNX_RETURN_IF_ERROR(ExpectSameDType(ctx, 1, 2));
    Shape out;
    WEBNX_RETURN_IF_ERROR(PlanBroadcast(ctx, 3, &out));
    walker_.Init(out, {ctx.shape(0), ctx.shape(1), ctx.shape(2)});
    dtype_ = ctx.dtype(1);
    ctx.SetOutput(0, dtype_, out);
    return Status::Ok();
  }

  Status Run(RunContext& ctx) override {
    const bool* cond = ctx.input(0).ptr<bool>();
    const Tensor& x = ctx.input(1);
    const Tensor& y = ctx.input(2);
    Tensor& out = ctx.output(0);
    const int64_t sc = walker_.step(0), sx = walker_.step(1), sy = walker_.step(2);
    DispatchDType(dtype_, [&](auto tag) {
      using T = decltype(tag);
      const T* px = x.ptr<T>();
      const T* py = y.ptr<T>();
      T* po = out.ptr<T>();
      walker_.ForEachRun([&](const int64_t* off, int64_t o, int64_t n) {
        for (int64_t i = 0; i < n; ++i) {
          po[o + i] = cond[off[0] + i * sc] ? px[off[1] + i * sx] : py[off[2] + i * sy];
        }
      });
    });
    return Status::Ok();
  }

 private:
  DType dtype_ = DType::kUndefined;
  BroadcastWalker walker_;
};

// ---- Max, Min, Sum, Mean: any number of inputs, all broadcast together.

template <typename Op, bool kMean>
class VariadicKernel final : public Kernel {
 public:
  ElementwiseKind Elementwise() const override { return ElementwiseKind::kBroadcast; }
  explicit VariadicKernel(TypeSetForVersion types) : types_(types) {}

  Status Plan(PlanContext& ctx) override {
    if (ctx.num_inputs() < 1)
      return ctx.Error(ErrorCode::kMalformedModel, "needs at least one input");
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(ctx.num_inputs(), ctx.num_inputs()));
    WEBNX_RETURN_IF_ERROR(ExpectTypeSet(ctx, 0, types_(ctx.since_version())));
    for (int i = 1; i < ctx.num_inputs(); ++i) WEBNX_RETURN_IF_ERROR(ExpectSameDType(ctx, 0, i));
    Shape out;
    WEBNX_RETURN_IF_ERROR(PlanBroadcast(ctx, ctx.num_inputs(), &out));
    // The first walk combines inputs 0 and 1 into the output; each later one folds input i
    // into the output in place. A single input is broadcast-copied.
    walkers_.assign(std::max(1, ctx.num_inputs() - 1), BroadcastWalker());
    if (ctx.num_inputs() == 1) {
      walkers_[0].Init(out, {ctx.shape(0), ctx.shape(0)});
    } else {
      walkers_[0].Init(out, {ctx.shape(0), ctx.shape(1)});
      for (int i = 2; i < ctx.num_inputs(); ++i) walkers_[i - 1].Init(out, {out, ctx.shape(i)});
    }
    dtype_ = ctx.dtype(0);
    ctx.SetOutput(0, dtype_, out);
    return Status::Ok();
  }

  Status Run(RunContext& ctx) override {
    Tensor& out = ctx.output(0);
    const int n = ctx.num_inputs();
    DispatchDType(dtype_, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_same_v<T, bool>) {
        T* po = out.ptr<T>();
        if (n == 1) {
          const T* in = ctx.input(0).ptr<T>();
          BinaryLoop(walkers_[0], in, in, po, [](T a, T) { return a; });
        } else {
          BinaryLoop(walkers_[0], ctx.input(0).ptr<T>(), ctx.input(1).ptr<T>(), po, Op());
          for (int i = 2; i < n; ++i) {
            BinaryLoop(walkers_[i - 1], static_cast<const T*>(po), ctx.input(i).ptr<T>(), po, Op());
          }
        }
        if constexpr (kMean) {
          const T count = static_cast<T>(n);
          for (int64_t i = 0; i < out.numel(); ++i) po[i] /= count;
        }
      }
    });
    return Status::Ok();
  }

 private:
  TypeSetForVersion types_;
  DType dtype_ = DType::kUndefined;
  std::vector<BroadcastWalker> walkers_;
};

template <typename Op, TypeSetForVersion kTypes, bool kMean = false>
std::unique_ptr<Kernel> MakeVariadic() {
  return std::make_unique<VariadicKernel<Op, kMean>>(kTypes);
}

// ---- PRelu(X, slope): slope broadcasts to X (unidirectionally).

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
    DispatchDType(dtype_, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_same_v<T, bool>) {
        BinaryLoop(walker_, x.ptr<T>(), slope.ptr<T>(), out.ptr<T>(),
                   [](T v, T s) { return v < 0 ? MulOp()(v, s) : v; });
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
TypeSet FloatTypes(int) {
  return TypeSet::kFloat;
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
// Max/Min-6/8 are float only; integers join at 12.
TypeSet MaxMinTypes(int v) {
  return v >= 12 ? TypeSet::kNumeric : TypeSet::kFloat;
}

}  // namespace

void RegisterBinaryKernels(OpRegistry& r) {
  const OpVersions arithmetic = {{7, 13, 14}, Inputs(2), Outputs(1)};
  r.Register("", "Add", arithmetic, MakeBinary<AddOp, NumericTypes>);
  r.Register("", "Sub", arithmetic, MakeBinary<SubOp, NumericTypes>);
  r.Register("", "Mul", arithmetic, MakeBinary<MulOp, NumericTypes>);
  r.Register("", "Div", arithmetic, MakeBinary<DivOp, NumericTypes>);
  r.Register("", "Pow", {{7, 12, 13, 15}, Inputs(2), Outputs(1)}, MakeKernel<PowKernel>);

  r.Register("", "Equal", {{7, 11, 13, 19}, Inputs(2), Outputs(1)},
             MakeBinary<EqualOp, EqualTypes, true>);
  r.Register("", "Less", {{7, 9, 13}, Inputs(2), Outputs(1)}, MakeBinary<LessOp, OrderTypes, true>);
  r.Register("", "Greater", {{7, 9, 13}, Inputs(2), Outputs(1)},
             MakeBinary<GreaterOp, OrderTypes, true>);
  r.Register("", "LessOrEqual", {{12, 16}, Inputs(2), Outputs(1)},
             MakeBinary<LessOrEqualOp, NumericTypes, true>);
  r.Register("", "GreaterOrEqual", {{12, 16}, Inputs(2), Outputs(1)},
             MakeBinary<GreaterOrEqualOp, NumericTypes, true>);
  r.Register("", "And", {{7}, Inputs(2), Outputs(1)}, MakeBinary<AndOp, BoolTypes, true>);
  r.Register("", "Or", {{7}, Inputs(2), Outputs(1)}, MakeBinary<OrOp, BoolTypes, true>);
  r.Register("", "Xor", {{7}, Inputs(2), Outputs(1)}, MakeBinary<XorOp, BoolTypes, true>);

  r.Register("", "Where", {{9, 16}, Inputs(3), Outputs(1)}, MakeKernel<WhereKernel>);
  // The -6 versions (same-shape inputs only) are still current at opset 7; broadcasting is a
  // superset of them.
  r.Register("", "Max", {{6, 8, 12, 13}, Inputs::AtLeast(1), Outputs(1)},
             MakeVariadic<MaxOp, MaxMinTypes>);
  r.Register("", "Min", {{6, 8, 12, 13}, Inputs::AtLeast(1), Outputs(1)},
             MakeVariadic<MinOp, MaxMinTypes>);
  r.Register("", "Sum", {{6, 8, 13}, Inputs::AtLeast(1), Outputs(1)},
             MakeVariadic<AddOp, FloatTypes>);
  r.Register("", "Mean", {{6, 8, 13}, Inputs::AtLeast(1), Outputs(1)},
             MakeVariadic<AddOp, FloatTypes, true>);
  r.Register("", "PRelu", {{7, 9, 16}, Inputs(2), Outputs(1)}, MakeKernel<PReluKernel>);
}

}  // namespace webnx
