// ReverseSequence (10): for each batch item b, the first sequence_lens[b] steps along the time
// axis reversed, the rest copied. Batch and time are axes 0 and 1 in either order; whatever
// follows them moves as one block of bytes, so one loop serves every dtype.
#include <cstdint>
#include <cstring>
#include <string>

#include "kernels/indexing_common.h"
#include "kernels/nn_common.h"
#include "kernels/registrations.h"

namespace webnx {
namespace {

class ReverseSequenceKernel final : public Kernel {
 public:
  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectAnyDType(0));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(1, {DType::kInt64}));
    Attrs& attrs = ctx.attrs();
    const int64_t time_axis = attrs.Int("time_axis", 0);
    const int64_t batch_axis = attrs.Int("batch_axis", 1);
    WEBNX_RETURN_IF_ERROR(attrs.status());
    if ((time_axis != 0 && time_axis != 1) || batch_axis != 1 - time_axis) {
      return ctx.Error(ErrorCode::kMalformedModel,
                       "time_axis and batch_axis must be 0 and 1 in some order, got " +
                           std::to_string(time_axis) + " and " + std::to_string(batch_axis));
    }
    const Shape& x = ctx.shape(0);
    if (x.size() < 2) {
      return ctx.Error(ErrorCode::kShapeMismatch,
                       "the input must have rank >= 2, got " + ShapeToString(x));
    }
    batch_ = x[batch_axis];
    steps_ = x[time_axis];
    if (ctx.shape(1) != Shape{batch_}) {
      return ctx.Error(ErrorCode::kShapeMismatch, "sequence_lens must have shape [" +
                                                      std::to_string(batch_) + "], got " +
                                                      ShapeToString(ctx.shape(1)));
    }
    const int64_t elem = static_cast<int64_t>(DTypeSize(ctx.dtype(0)));
    block_bytes_ = nn::DimProduct(x, 2, x.size()) * elem;
    // Byte strides of one batch item and one time step.
    batch_stride_ = time_axis == 0 ? block_bytes_ : block_bytes_ * steps_;
    step_stride_ = time_axis == 0 ? block_bytes_ * batch_ : block_bytes_;
    node_ = ctx.node().Describe();
    ctx.SetOutput(0, ctx.dtype(0), x);
    return Status::Ok();
  }

  Status Run(RunContext& ctx) override {
    const int64_t* lengths = ctx.input(1).ptr<int64_t>();
    for (int64_t b = 0; b < batch_; ++b) {
      if (lengths[b] < 0 || lengths[b] > steps_) {
        return Status(ErrorCode::kInvalidInput, node_ + ": sequence_lens[" + std::to_string(b) +
                                                    "] = " + std::to_string(lengths[b]) +
                                                    " is outside [0, " + std::to_string(steps_) +
                                                    "]");
      }
    }
    const uint8_t* x = static_cast<const uint8_t*>(ctx.input(0).data);
    uint8_t* y = static_cast<uint8_t*>(ctx.output(0).data);
    for (int64_t b = 0; b < batch_; ++b) {
      for (int64_t t = 0; t < steps_; ++t) {
        const int64_t from = t < lengths[b] ? lengths[b] - 1 - t : t;
        std::memcpy(y + b * batch_stride_ + t * step_stride_,
                    x + b * batch_stride_ + from * step_stride_, static_cast<size_t>(block_bytes_));
      }
    }
    return Status::Ok();
  }

 private:
  std::string node_;  // for errors found when run
  int64_t batch_ = 0, steps_ = 0;
  int64_t block_bytes_ = 0, batch_stride_ = 0, step_stride_ = 0;
};

}  // namespace

void RegisterReverseSequenceKernels(OpRegistry& r) {
  r.Register("", "ReverseSequence", {{10}, Inputs(2), Outputs(1)},
             MakeKernel<ReverseSequenceKernel>);
}

}  // namespace webnx
