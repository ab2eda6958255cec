// What the broadcasting elementwise kernels share (binary.cc, where.cc, variadic.cc): the
// schemas' dtype sets, broadcast planning, the loops over a two-operand BroadcastWalker and the
// arithmetic functors, whose integer arithmetic wraps.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "core/kernel.h"
#include "kernels/broadcast.h"

namespace webnx::binary {

// The dtype sets the op schemas allow (restricted to what webnx computes in). A kernel that takes
// one of these computes float64 through SharedBinaryLoop.
// kNumericAndUint64 adds uint64 for the ops that compute it outside int64: division and
// remainder (SharedBinaryLoop) and Pow's exponent.
enum class TypeSet { kFloat, kNumeric, kNumericAndUint64, kIntegerOrBool, kAll, kBool };

inline Status ExpectTypeSet(const PlanContext& ctx, int i, TypeSet set) {
  switch (set) {
    case TypeSet::kFloat:
      return ctx.ExpectDType(i, {DType::kFloat32, DType::kFloat64});
    case TypeSet::kNumeric:
      return ctx.ExpectDType(i, {DType::kFloat32, DType::kFloat64, DType::kInt32, DType::kInt64});
    case TypeSet::kNumericAndUint64:
      return ctx.ExpectDType(
          i, {DType::kFloat32, DType::kFloat64, DType::kInt32, DType::kInt64, DType::kUint64});
    case TypeSet::kIntegerOrBool:
      return ctx.ExpectDType(i, {DType::kBool, DType::kInt32, DType::kInt64});
    case TypeSet::kAll:
      return ctx.ExpectDType(
          i, {DType::kFloat32, DType::kFloat64, DType::kInt32, DType::kInt64, DType::kBool});
    case TypeSet::kBool:
      return ctx.ExpectDType(i, {DType::kBool});
  }
  return ctx.Error(ErrorCode::kInternal, "unknown type set");
}

inline Status ExpectSameDType(const PlanContext& ctx, int i, int j) {
  WEBNX_RETURN_IF_ERROR(ctx.ExpectPresent(i));
  WEBNX_RETURN_IF_ERROR(ctx.ExpectPresent(j));
  if (ctx.dtype(i) == ctx.dtype(j)) {
    if (ctx.DTypeAccepted(i)) ctx.AcceptDType(j);
    return Status::Ok();
  }
  return ctx.Error(ErrorCode::kMalformedModel, "inputs " + std::to_string(i) + " and " +
                                                   std::to_string(j) + " differ in dtype (" +
                                                   DTypeName(ctx.dtype(i)) + " vs " +
                                                   DTypeName(ctx.dtype(j)) + ")");
}

// Broadcasts the shapes of inputs [0, count) and checks the result's size.
inline Status PlanBroadcast(const PlanContext& ctx, int count, Shape* out) {
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

// Calls run(pa, pb, po, n) for each run of n output elements of a two-operand walk, pa, pb and
// po pointing at the run's first element in a, b and out.
template <typename A, typename B, typename Out, typename RunFn>
void ForEachBinaryRun(BroadcastWalker& walker, const A* a, const B* b, Out* out, RunFn&& run) {
  walker.ForEachRun([&](const int64_t* offsets, int64_t out_offset, int64_t n) {
    run(a + offsets[0], b + offsets[1], out + out_offset, n);
  });
}

// out[i] = fn(a[ia], b[ib]) over a two-operand walk; the step pattern is fixed per plan, so each
// run is one of four simple loops.
template <typename In, typename Out, typename Fn>
void BinaryLoop(BroadcastWalker& walker, const In* a, const In* b, Out* out, Fn fn) {
  const bool step_a = walker.step(0) != 0;
  const bool step_b = walker.step(1) != 0;
  ForEachBinaryRun(walker, a, b, out, [&](const In* pa, const In* pb, Out* po, int64_t n) {
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

// The loops of the types other than float32 are shared by every op: one per (input, output)
// type, calling the op through a plain function per element (kernels/element_loops.cc). Those
// tensors are indices, shapes, masks and the rare float64 model, small next to the float32
// activations, and a loop per (op, type) pair was ~0.5 KB of every download each: 20 KB in all.
template <typename T, typename Out>
using ElementFn = Out (*)(T, T);
template <typename T, typename Out>
void SharedBinaryLoop(BroadcastWalker& walker, const T* a, const T* b, Out* out,
                      ElementFn<T, Out> fn);

// An op's functor as a plain function for SharedBinaryLoop.
template <typename Op, typename T, typename Out>
Out OnElements(T a, T b) {
  return static_cast<Out>(Op()(a, b));
}

// out = Op()(a, b) over a walk: float32 in a loop of its own, the other types in the shared ones.
template <typename Op, typename T, typename Out>
void OpLoop(BroadcastWalker& walker, const T* a, const T* b, Out* out) {
  if constexpr (std::is_same_v<T, float>) {
    BinaryLoop(walker, a, b, out, Op());
  } else {
    SharedBinaryLoop<T, Out>(walker, a, b, out, &OnElements<Op, T, Out>);
  }
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
// kTakesUint64: uint64 computed in the op's own loop (kNumericAndUint64: no int64 form exists).
struct NumbersOnly {
  static constexpr bool kTakesBool = false;
  static constexpr bool kTakesNumbers = true;
  static constexpr bool kTakesUint64 = false;
};
struct BoolOnly {
  static constexpr bool kTakesBool = true;
  static constexpr bool kTakesNumbers = false;
  static constexpr bool kTakesUint64 = false;
};
struct AnyDType {
  static constexpr bool kTakesBool = true;
  static constexpr bool kTakesNumbers = true;
  static constexpr bool kTakesUint64 = false;
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
  static constexpr bool kTakesUint64 = true;
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      if (b == 0) return 0;
      if constexpr (std::is_signed_v<T>) {
        if (b == -1) return WrapSub(T(0), a);
      }
      return a / b;
    }
    return a / b;
  }
};

// The allowed input dtypes of an op at a since-version.
using TypeSetForVersion = TypeSet (*)(int since_version);

}  // namespace webnx::binary
