// Where(condition, X, Y): X where the bool condition holds, else Y, the three inputs broadcast
// together (numpy broadcasting).
#include <cstdint>

#include "kernels/binary_common.h"
#include "kernels/broadcast.h"
#include "kernels/dtype_dispatch.h"
#include "kernels/registrations.h"

namespace webnx {
namespace {

using binary::ExpectSameDType;
using binary::ExpectTypeSet;
using binary::PlanBroadcast;
using binary::TypeSet;

class WhereKernel final : public Kernel {
 public:
  ElementwiseKind Elementwise() const override { return ElementwiseKind::kBroadcast; }
  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(3, 3));
    WEBNX_RETURN_IF_ERROR(ExpectTypeSet(ctx, 0, TypeSet::kBool));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectAnyDType(1));
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
    // Only elements move: one loop per element size serves every dtype.
    DispatchBySize(DTypeSize(dtype_), [&](auto tag) {
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

}  // namespace

void RegisterWhereKernels(OpRegistry& r) {
  r.Register("", "Where", {{9, 16}, Inputs(3), Outputs(1)}, MakeKernel<WhereKernel>);
}

}  // namespace webnx
