// DepthToSpace and SpaceToDepth: blocks of channels moved to b x b pixel blocks and back
// (sub-pixel upsampling in super-resolution models). Pure data movement, so every dtype is one
// byte-copying loop.
#include <cstdint>
#include <string>

#include "kernels/indexing_common.h"
#include "kernels/registrations.h"

namespace webnx {
namespace {

class DepthSpaceKernel final : public Kernel {
 public:
  explicit DepthSpaceKernel(bool to_space) : to_space_(to_space) {}

  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(1, 1));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectAnyDType(0));
    const Shape& x = ctx.shape(0);
    if (x.size() != 4) {
      return ctx.Error(ErrorCode::kShapeMismatch, "the input must be 4-D, got " + ShapeToString(x));
    }
    Attrs& attrs = ctx.attrs();
    block_ = attrs.Int("blocksize", 0);
    const std::string mode = to_space_ ? attrs.String("mode", "DCR") : "DCR";
    WEBNX_RETURN_IF_ERROR(attrs.status());
    if (block_ < 1 || block_ > (int64_t{1} << 20)) {
      return ctx.Error(ErrorCode::kMalformedModel,
                       "attribute 'blocksize' must be positive, got " + std::to_string(block_));
    }
    if (mode != "DCR" && mode != "CRD") {
      return ctx.Error(ErrorCode::kMalformedModel,
                       "attribute 'mode' must be DCR or CRD, got '" + mode + "'");
    }
    crd_ = mode == "CRD";
    WEBNX_RETURN_IF_ERROR(PlanShapes(ctx, x));
    elem_ = DTypeSize(ctx.dtype(0));
    return Status::Ok();
  }

  Status Run(RunContext& ctx) override {
    const auto* x = static_cast<const uint8_t*>(ctx.input(0).data);
    auto* y = static_cast<uint8_t*>(ctx.output(0).data);
    const int64_t b = block_;
    // (n, c, h, i, w, j) walks the space side [N, C, H*b, W*b] in order; the depth side holds
    // that element at channel (i*b + j)*C + c (DCR) or c*b*b + i*b + j (CRD) of [N, C*b*b, H, W].
    int64_t space = 0;
    for (int64_t n = 0; n < batch_; ++n)
      for (int64_t c = 0; c < channels_; ++c)
        for (int64_t h = 0; h < height_; ++h)
          for (int64_t i = 0; i < b; ++i)
            for (int64_t w = 0; w < width_; ++w)
              for (int64_t j = 0; j < b; ++j, ++space) {
                const int64_t depth_channel =
                    crd_ ? (c * b + i) * b + j : (i * b + j) * channels_ + c;
                const int64_t depth =
                    ((n * channels_ * b * b + depth_channel) * height_ + h) * width_ + w;
                const int64_t from = to_space_ ? depth : space, to = to_space_ ? space : depth;
                indexing::CopyBytes(y + to * elem_, x + from * elem_, elem_);
              }
    return Status::Ok();
  }

 private:
  // The depth side [N, C*b*b, H, W] and the space side [N, C, H*b, W*b]; C, H, W are stored.
  Status PlanShapes(PlanContext& ctx, const Shape& x) {
    const int64_t b = block_;
    batch_ = x[0];
    if (to_space_) {
      if (x[1] % (b * b) != 0) {
        return ctx.Error(ErrorCode::kShapeMismatch, "channels " + std::to_string(x[1]) +
                                                        " are not divisible by blocksize^2 " +
                                                        std::to_string(b * b));
      }
      channels_ = x[1] / (b * b);
      height_ = x[2];
      width_ = x[3];
      if (height_ > INT64_MAX / b || width_ > INT64_MAX / b)
        return ctx.Error(ErrorCode::kOutOfMemory, "the output is too large");
      ctx.SetOutput(0, ctx.dtype(0), {batch_, channels_, height_ * b, width_ * b});
      return Status::Ok();
    }
    if (x[2] % b != 0 || x[3] % b != 0) {
      return ctx.Error(ErrorCode::kShapeMismatch, "spatial dims of " + ShapeToString(x) +
                                                      " are not divisible by blocksize " +
                                                      std::to_string(b));
    }
    channels_ = x[1];
    height_ = x[2] / b;
    width_ = x[3] / b;
    if (channels_ > INT64_MAX / (b * b))
      return ctx.Error(ErrorCode::kOutOfMemory, "the output is too large");
    ctx.SetOutput(0, ctx.dtype(0), {batch_, channels_ * b * b, height_, width_});
    return Status::Ok();
  }

  const bool to_space_;  // DepthToSpace; else SpaceToDepth
  bool crd_ = false;
  int64_t block_ = 0, batch_ = 0, channels_ = 0, height_ = 0, width_ = 0;
  size_t elem_ = 0;
};

}  // namespace

void RegisterDepthSpaceKernels(OpRegistry& r) {
  r.Register("", "DepthToSpace", {{1, 11, 13}, Inputs(1), Outputs(1)},
             []() -> Kernel* { return new DepthSpaceKernel(true); });
  r.Register("", "SpaceToDepth", {{1, 13}, Inputs(1), Outputs(1)},
             []() -> Kernel* { return new DepthSpaceKernel(false); });
}

}  // namespace webnx
