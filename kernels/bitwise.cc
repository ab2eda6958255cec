// BitwiseAnd, BitwiseOr, BitwiseXor (broadcasting) and BitwiseNot (18), on int32 and int64, the
// integer types webnx has. (BitShift is not here: its schema allows only unsigned types.)
#include <cstdint>

#include "kernels/binary_common.h"
#include "kernels/registrations.h"
#include "kernels/widening.h"

namespace webnx {
namespace {

enum class BitOp { kAnd, kOr, kXor };

template <BitOp kOp, typename T>
T Bits(T a, T b) {
  if constexpr (kOp == BitOp::kAnd) return a & b;
  if constexpr (kOp == BitOp::kOr) return a | b;
  return a ^ b;
}

template <BitOp kOp>
class BitwiseBinaryKernel final : public Kernel {
 public:
  ElementwiseKind Elementwise() const override { return ElementwiseKind::kBroadcast; }

  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(0, {DType::kInt32, DType::kInt64}));
    WEBNX_RETURN_IF_ERROR(binary::ExpectSameDType(ctx, 0, 1));
    Shape out;
    WEBNX_RETURN_IF_ERROR(binary::PlanBroadcast(ctx, 2, &out));
    walker_.Init(out, {ctx.shape(0), ctx.shape(1)});
    dtype_ = ctx.dtype(0);
    ctx.SetOutput(0, dtype_, out);
    return Status::Ok();
  }

  Status Run(RunContext& ctx) override {
    if (dtype_ == DType::kInt32) RunAs<int32_t>(ctx);
    if (dtype_ == DType::kInt64) RunAs<int64_t>(ctx);
    return Status::Ok();
  }

 private:
  template <typename T>
  void RunAs(RunContext& ctx) {
    binary::SharedBinaryLoop<T, T>(walker_, ctx.input(0).ptr<T>(), ctx.input(1).ptr<T>(),
                                   ctx.output(0).ptr<T>(), &Bits<kOp, T>);
  }

  BroadcastWalker walker_;
  DType dtype_ = DType::kUndefined;
};

class BitwiseNotKernel final : public Kernel {
 public:
  ElementwiseKind Elementwise() const override { return ElementwiseKind::kUnary; }

  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(0, {DType::kInt32, DType::kInt64}));
    ctx.SetOutput(0, ctx.dtype(0), ctx.shape(0));
    return Status::Ok();
  }

  // ~x bit for bit: the int32 and int64 cases are one loop over 32-bit words.
  Status Run(RunContext& ctx) override {
    const Tensor& x = ctx.input(0);
    const int64_t words = static_cast<int64_t>(x.nbytes() / sizeof(uint32_t));
    const uint32_t* in = x.ptr<uint32_t>();
    uint32_t* out = ctx.output(0).ptr<uint32_t>();
    for (int64_t i = 0; i < words; ++i) out[i] = ~in[i];
    return Status::Ok();
  }
};

}  // namespace

void RegisterBitwiseKernels(OpRegistry& r) {
  r.Register("", "BitwiseAnd", {{18}, Inputs(2), Outputs(1)},
             MakeWidening<MakeKernel<BitwiseBinaryKernel<BitOp::kAnd>>, Uint64As::kModular>);
  r.Register("", "BitwiseOr", {{18}, Inputs(2), Outputs(1)},
             MakeWidening<MakeKernel<BitwiseBinaryKernel<BitOp::kOr>>, Uint64As::kModular>);
  r.Register("", "BitwiseXor", {{18}, Inputs(2), Outputs(1)},
             MakeWidening<MakeKernel<BitwiseBinaryKernel<BitOp::kXor>>, Uint64As::kModular>);
  r.Register("", "BitwiseNot", {{18}, Inputs(1), Outputs(1)},
             MakeWidening<MakeKernel<BitwiseNotKernel>, Uint64As::kModular>);
}

}  // namespace webnx
