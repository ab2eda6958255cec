// AffineGrid (20): the sampling grid of an affine transform, theta [N, 2, 3] or [N, 3, 4] applied
// to a grid of normalized coordinates over `size` (N, C, H, W) or (N, C, D, H, W) -> [N, H, W, 2]
// or [N, D, H, W, 3], as GridSample reads it. Col2Im (18): the sum of sliding blocks back into an
// image, the inverse of im2col: [N, C * prod(block), L] -> [N, C, image...]. Both need their
// shape inputs when planned.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/nn_common.h"
#include "kernels/registrations.h"

namespace webnx {
namespace {

// The int64 contents of input i, known when planned.
Status PlanTimeInts(const PlanContext& ctx, int i, const char* name, std::vector<int64_t>* out) {
  const Tensor* t = ctx.constant(i);
  if (!t || t->dtype != DType::kInt64 || t->rank() != 1) {
    return ctx.Error(ErrorCode::kMalformedModel, std::string("input '") + name +
                                                     "' must be a 1-D int64 tensor known when "
                                                     "the plan is made");
  }
  out->assign(t->ptr<int64_t>(), t->ptr<int64_t>() + t->numel());
  return Status::Ok();
}

class AffineGridKernel final : public Kernel {
 public:
  void DeclarePlanTimeInputs(FormContext&, std::vector<int>* inputs) const override {
    *inputs = {1};
  }

  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(0, {DType::kFloat32}));
    std::vector<int64_t> size;
    WEBNX_RETURN_IF_ERROR(PlanTimeInts(ctx, 1, "size", &size));
    align_corners_ = ctx.attrs().Int("align_corners", 0) != 0;
    WEBNX_RETURN_IF_ERROR(ctx.attrs().status());
    axes_ = static_cast<int>(size.size()) - 2;
    const Shape& theta = ctx.shape(0);
    if ((axes_ != 2 && axes_ != 3) || theta != Shape{size[0], axes_, axes_ + 1}) {
      return ctx.Error(ErrorCode::kShapeMismatch,
                       "theta must be [N, 2, 3] with a size of 4 values, or [N, 3, 4] with 5; "
                       "got theta " +
                           ShapeToString(theta) + " and " + std::to_string(size.size()) +
                           " values");
    }
    Shape out = {size[0]};
    for (int d = 0; d < axes_; ++d) {
      if (size[2 + d] < 0) return ctx.Error(ErrorCode::kMalformedModel, "size has a negative dim");
      extent_[d] = size[2 + d];
      out.push_back(size[2 + d]);
    }
    out.push_back(axes_);
    WEBNX_RETURN_IF_ERROR(nn::CheckNumel(ctx, out, "the grid"));
    ctx.SetOutput(0, DType::kFloat32, out);
    return Status::Ok();
  }

  Status Run(RunContext& ctx) override {
    const float* theta = ctx.input(0).ptr<float>();
    float* y = ctx.output(0).ptr<float>();
    const int64_t batch = ctx.output(0).shape[0];
    const int64_t d_extent = axes_ == 3 ? extent_[0] : 1;
    const int64_t h_extent = extent_[axes_ - 2], w_extent = extent_[axes_ - 1];
    for (int64_t n = 0; n < batch; ++n) {
      const float* t = theta + n * axes_ * (axes_ + 1);
      for (int64_t d = 0; d < d_extent; ++d)
        for (int64_t h = 0; h < h_extent; ++h)
          for (int64_t w = 0; w < w_extent; ++w) {
            // (x, y[, z], 1): the last spatial axis first, as GridSample reads them.
            const float base[4] = {Coordinate(w, w_extent), Coordinate(h, h_extent),
                                   axes_ == 3 ? Coordinate(d, d_extent) : 1.f, 1.f};
            for (int r = 0; r < axes_; ++r) {
              float v = 0.f;
              for (int k = 0; k <= axes_; ++k) v += t[r * (axes_ + 1) + k] * base[k];
              *y++ = v;
            }
          }
    }
    return Status::Ok();
  }

 private:
  // The normalized coordinate of position i of `extent`.
  float Coordinate(int64_t i, int64_t extent) const {
    if (align_corners_) return extent > 1 ? -1.f + 2.f * i / (extent - 1) : -1.f;
    return (2.f * i + 1.f) / extent - 1.f;
  }

  bool align_corners_ = false;
  int axes_ = 2;
  int64_t extent_[3] = {1, 1, 1};
};

class Col2ImKernel final : public Kernel {
 public:
  void DeclarePlanTimeInputs(FormContext&, std::vector<int>* inputs) const override {
    *inputs = {1, 2};
  }

  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(0, {DType::kFloat32}));
    std::vector<int64_t> image, block;
    WEBNX_RETURN_IF_ERROR(PlanTimeInts(ctx, 1, "image_shape", &image));
    WEBNX_RETURN_IF_ERROR(PlanTimeInts(ctx, 2, "block_shape", &block));
    const size_t rank = image.size();
    if (rank == 0 || block.size() != rank)
      return ctx.Error(ErrorCode::kMalformedModel, "image_shape and block_shape must match");
    nn::WindowAttrs window;
    Attrs& attrs = ctx.attrs();
    window.kernel = block;
    window.strides = attrs.Ints("strides", std::vector<int64_t>(rank, 1));
    window.dilations = attrs.Ints("dilations", std::vector<int64_t>(rank, 1));
    window.pads = attrs.Ints("pads", std::vector<int64_t>(2 * rank, 0));
    WEBNX_RETURN_IF_ERROR(attrs.status());
    WEBNX_RETURN_IF_ERROR(nn::ReadPositiveInts(ctx, "block_shape", rank, 1, &window.kernel));
    WEBNX_RETURN_IF_ERROR(nn::ReadPositiveInts(ctx, "strides", rank, 1, &window.strides));
    WEBNX_RETURN_IF_ERROR(nn::ReadPositiveInts(ctx, "dilations", rank, 1, &window.dilations));
    WEBNX_RETURN_IF_ERROR(nn::ReadPositiveInts(ctx, "pads", 2 * rank, 0, &window.pads));
    WEBNX_RETURN_IF_ERROR(nn::ComputeWindowAxes(ctx, image, window, &axes_));
    const Shape& x = ctx.shape(0);
    const int64_t taps = nn::DimProduct(block, 0, rank);
    int64_t blocks = 1;
    for (const nn::WindowAxis& a : axes_) {  // saturated: no input is that long (hostile pads)
      if (__builtin_mul_overflow(blocks, a.out, &blocks)) blocks = INT64_MAX;
    }
    if (x.size() != 3 || x[1] % taps != 0 || x[2] != blocks) {
      return ctx.Error(ErrorCode::kShapeMismatch,
                       "the input must be [N, C * " + std::to_string(taps) + ", " +
                           std::to_string(blocks) + "] for these blocks, not " + ShapeToString(x));
    }
    channels_ = x[1] / taps;
    taps_ = taps;
    blocks_ = blocks;
    Shape out = {x[0], channels_};
    out.insert(out.end(), image.begin(), image.end());
    image_plane_ = nn::DimProduct(image, 0, rank);
    ctx.SetOutput(0, DType::kFloat32, out);
    return Status::Ok();
  }

  Status Run(RunContext& ctx) override {
    const float* x = ctx.input(0).ptr<float>();
    Tensor& y = ctx.output(0);
    std::memset(y.data, 0, y.nbytes());
    const int64_t planes = y.shape[0] * channels_;
    const size_t rank = axes_.size();
    for (int64_t p = 0; p < planes; ++p) {
      float* image = y.ptr<float>() + p * image_plane_;
      for (int64_t tap = 0; tap < taps_; ++tap) {
        const float* row = x + (p * taps_ + tap) * blocks_;
        for (int64_t b = 0; b < blocks_; ++b) {
          int64_t offset = 0;
          bool inside = true;
          for (size_t d = 0, tap_rest = tap, block_rest = b; d < rank; ++d) {
            // Decompose from the last axis: strides below.
            const size_t axis = rank - 1 - d;
            const nn::WindowAxis& a = axes_[axis];
            const int64_t k = tap_rest % a.kernel, o = block_rest % a.out;
            tap_rest /= a.kernel;
            block_rest /= a.out;
            const int64_t pos = a.start(o) + k * a.dilation;
            inside = inside && pos >= 0 && pos < a.in;
            offset += pos * Stride(axis);
          }
          if (inside) image[offset] += row[b];
        }
      }
    }
    return Status::Ok();
  }

 private:
  int64_t Stride(size_t axis) const {
    int64_t s = 1;
    for (size_t d = axis + 1; d < axes_.size(); ++d) s *= axes_[d].in;
    return s;
  }

  std::vector<nn::WindowAxis> axes_;
  int64_t channels_ = 0, taps_ = 1, blocks_ = 1, image_plane_ = 1;
};

}  // namespace

void RegisterAffineGridCol2ImKernels(OpRegistry& r) {
  r.Register("", "AffineGrid", {{20}, Inputs(2), Outputs(1)}, MakeKernel<AffineGridKernel>);
  r.Register("", "Col2Im", {{18}, Inputs(3), Outputs(1)}, MakeKernel<Col2ImKernel>);
}

}  // namespace webnx
