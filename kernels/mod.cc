// Mod(A, B) with numpy broadcasting: with fmod=0 (integers only) the remainder takes the sign
// of the divisor, as Python's %; with fmod=1 the sign of the dividend, as C's fmod. An integer
// remainder by zero is 0, as integer Div's quotient is (binary_common.h): never a trap.
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "kernels/binary_common.h"
#include "kernels/broadcast.h"
#include "kernels/dtype_dispatch.h"
#include "kernels/registrations.h"
#include "kernels/widening.h"

namespace webnx {
namespace {

using binary::BinaryLoop;
using binary::ExpectSameDType;
using binary::ExpectTypeSet;
using binary::PlanBroadcast;
using binary::TypeSet;

template <typename T>
T Remainder(T a, T b, bool fmod) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::fmod(a, b);  // only fmod=1 reaches here
  } else {
    if (b == 0) return 0;
    if (b == -1) return 0;  // also avoids INT_MIN % -1, which traps
    const T r = a % b;      // C++: the sign of the dividend
    return !fmod && r != 0 && ((r < 0) != (b < 0)) ? static_cast<T>(r + b) : r;
  }
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
    const bool fmod = fmod_;
    if (dtype_ == DType::kFloat64) {
      binary::BinaryLoopFloat64(walker_, ctx.input(0).ptr<double>(), ctx.input(1).ptr<double>(),
                                ctx.output(0).ptr<double>(),
                                [](double a, double b) { return std::fmod(a, b); });
      return Status::Ok();
    }
    if (dtype_ == DType::kUint64) {  // fmod or not: an unsigned remainder has no sign
      binary::BinaryLoopUint64(walker_, ctx.input(0).ptr<uint64_t>(), ctx.input(1).ptr<uint64_t>(),
                               ctx.output(0).ptr<uint64_t>(),
                               [](uint64_t a, uint64_t b) { return b == 0 ? 0 : a % b; });
      return Status::Ok();
    }
    DispatchDType(dtype_, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_same_v<T, bool>) {
        BinaryLoop(walker_, ctx.input(0).ptr<T>(), ctx.input(1).ptr<T>(), ctx.output(0).ptr<T>(),
                   [fmod](T a, T b) { return Remainder(a, b, fmod); });
      }
    });
    return Status::Ok();
  }

 private:
  bool fmod_ = false;
  DType dtype_ = DType::kUndefined;
  BroadcastWalker walker_;
};

}  // namespace

void RegisterModKernels(OpRegistry& r) {
  r.Register("", "Mod", {{10, 13}, Inputs(2), Outputs(1)}, MakeWidening<MakeKernel<ModKernel>>);
}

}  // namespace webnx
