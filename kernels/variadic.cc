// The variadic elementwise ops Max, Min, Sum and Mean: any number of inputs, all broadcast
// together (numpy broadcasting) and folded into the output one input at a time.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "kernels/binary_common.h"
#include "kernels/broadcast.h"
#include "kernels/dtype_dispatch.h"
#include "kernels/registrations.h"
#include "kernels/widening.h"

namespace webnx {
namespace {

using binary::AddOp;
using binary::ExpectSameDType;
using binary::ExpectTypeSet;
using binary::NumbersOnly;
using binary::OpLoop;
using binary::PlanBroadcast;
using binary::TypeSet;
using binary::TypeSetForVersion;

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

template <typename Op, bool kMean>
class VariadicKernel final : public Kernel {
 public:
  explicit VariadicKernel(TypeSetForVersion types) : types_(types) {}
  ElementwiseKind Elementwise() const override { return ElementwiseKind::kBroadcast; }

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
    if (dtype_ == DType::kFloat64) {
      RunAs<double>(ctx);
      return Status::Ok();
    }
    DispatchDType(dtype_, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_same_v<T, bool>) RunAs<T>(ctx);
    });
    return Status::Ok();
  }

 private:
  struct FirstOp {  // one input: its values, broadcast to the output
    template <typename T>
    T operator()(T a, T) const {
      return a;
    }
  };

  template <typename T>
  void RunAs(RunContext& ctx) {
    const int n = ctx.num_inputs();
    Tensor& out = ctx.output(0);
    T* po = out.ptr<T>();
    if (n == 1) {
      const T* in = ctx.input(0).ptr<T>();
      OpLoop<FirstOp>(walkers_[0], in, in, po);
    } else {
      OpLoop<Op>(walkers_[0], ctx.input(0).ptr<T>(), ctx.input(1).ptr<T>(), po);
      for (int i = 2; i < n; ++i) {
        OpLoop<Op>(walkers_[i - 1], static_cast<const T*>(po), ctx.input(i).ptr<T>(), po);
      }
    }
    if constexpr (kMean) {
      const T count = static_cast<T>(n);
      for (int64_t i = 0; i < out.numel(); ++i) po[i] /= count;
    }
  }

  TypeSetForVersion types_;
  DType dtype_ = DType::kUndefined;
  std::vector<BroadcastWalker> walkers_;
};

template <typename Op, TypeSetForVersion kTypes, bool kMean = false>
Kernel* MakeVariadic() {
  return new VariadicKernel<Op, kMean>(kTypes);
}

// Type sets per since-version, from the ONNX schemas.
TypeSet FloatTypes(int) {
  return TypeSet::kFloat;
}
// Max/Min-6/8 are float only; integers join at 12.
TypeSet MaxMinTypes(int v) {
  return v >= 12 ? TypeSet::kNumeric : TypeSet::kFloat;
}

}  // namespace

void RegisterVariadicKernels(OpRegistry& r) {
  // The -6 versions (same-shape inputs only) are still current at opset 7; broadcasting is a
  // superset of them.
  r.Register("", "Max", {{6, 8, 12, 13}, Inputs::AtLeast(1), Outputs(1)},
             MakeWidening<MakeVariadic<MaxOp, MaxMinTypes>, Uint64As::kOrdered>);
  r.Register("", "Min", {{6, 8, 12, 13}, Inputs::AtLeast(1), Outputs(1)},
             MakeWidening<MakeVariadic<MinOp, MaxMinTypes>, Uint64As::kOrdered>);
  r.Register("", "Sum", {{6, 8, 13}, Inputs::AtLeast(1), Outputs(1)},
             MakeWidening<MakeVariadic<AddOp, FloatTypes>>);
  r.Register("", "Mean", {{6, 8, 13}, Inputs::AtLeast(1), Outputs(1)},
             MakeWidening<MakeVariadic<AddOp, FloatTypes, true>>);
}

}  // namespace webnx
