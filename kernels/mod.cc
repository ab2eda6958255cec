// Mod(A, B) with numpy broadcasting: with fmod=0 (integers only) the remainder takes the sign
// of the divisor, as Python's %; with fmod=1 the sign of the dividend, as C's fmod. An integer
// remainder by zero is 0, as integer Div's quotient is (binary_common.h): never a trap.
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "kernels/binary_common.h"
#include "kernels/broadcast.h"
#include "kernels/registrations.h"
#include "kernels/widening.h"

namespace webnx {
namespace {

using binary::ExpectSameDType;
using binary::ExpectTypeSet;
using binary::PlanBroadcast;
using binary::TypeSet;

// The remainder of integers with the sign of the divisor (fmod=0) or of the dividend (fmod=1).
template <typename T, bool kFmod>
T Remainder(T a, T b) {
  if (b == 0) return 0;
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return 0;  // also avoids INT_MIN % -1, which traps
  }
  const T r = a % b;  // C++: the sign of the dividend
  if constexpr (std::is_signed_v<T> && !kFmod) {
    if (r != 0 && ((r < 0) != (b < 0))) return static_cast<T>(r + b);
  }
  return r;
}

template <typename T>
T FloatRemainder(T a, T b) {
  return std::fmod(a, b);  // only fmod=1 reaches here
}

class ModKernel final : public Kernel {
 public:
  ElementwiseKind Elementwise() const override { return ElementwiseKind::kBroadcast; }

  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(2, 2));
    WEBNX_RETURN_IF_ERROR(ExpectTypeSet(ctx, 0, TypeSet::kNumericAndUint64));
    WEBNX_RETURN_IF_ERROR(ExpectSameDType(ctx, 0, 1));
    fmod_ = ctx.attrs().Int("fmod", 0) != 0;
    WEBNX_RETURN_IF_ERROR(ctx.attrs().status());
    dtype_ = ctx.dtype(0);
    if ((dtype_ == DType::kFloat32 || dtype_ == DType::kFloat64) && !fmod_) {
      return ctx.Error(ErrorCode::kMalformedModel,
                       "a float Mod must set fmod=1 (the spec defines no other float remainder)");
    }
    Shape out;
    WEBNX_RETURN_IF_ERROR(PlanBroadcast(ctx, 2, &out));
    walker_.Init(out, {ctx.shape(0), ctx.shape(1)});
    ctx.SetOutput(0, dtype_, out);
    return Status::Ok();
  }

  Status Run(RunContext& ctx) override {
    switch (dtype_) {
      case DType::kFloat32:
        binary::BinaryLoop(walker_, ctx.input(0).ptr<float>(), ctx.input(1).ptr<float>(),
                           ctx.output(0).ptr<float>(), &FloatRemainder<float>);
        break;
      case DType::kFloat64:
        RunShared<double>(ctx, &FloatRemainder<double>, &FloatRemainder<double>);
        break;
      case DType::kInt32:
        RunShared<int32_t>(ctx, &Remainder<int32_t, false>, &Remainder<int32_t, true>);
        break;
      case DType::kInt64:
        RunShared<int64_t>(ctx, &Remainder<int64_t, false>, &Remainder<int64_t, true>);
        break;
      case DType::kUint64:  // fmod or not: an unsigned remainder has no sign
        RunShared<uint64_t>(ctx, &Remainder<uint64_t, false>, &Remainder<uint64_t, false>);
        break;
      default:
        break;
    }
    return Status::Ok();
  }

 private:
  template <typename T>
  void RunShared(RunContext& ctx, binary::ElementFn<T, T> python, binary::ElementFn<T, T> c) {
    binary::SharedBinaryLoop<T, T>(walker_, ctx.input(0).ptr<T>(), ctx.input(1).ptr<T>(),
                                   ctx.output(0).ptr<T>(), fmod_ ? c : python);
  }

  bool fmod_ = false;
  DType dtype_ = DType::kUndefined;
  BroadcastWalker walker_;
};

}  // namespace

void RegisterModKernels(OpRegistry& r) {
  r.Register("", "Mod", {{10, 13}, Inputs(2), Outputs(1)}, MakeWidening<MakeKernel<ModKernel>>);
}

}  // namespace webnx
