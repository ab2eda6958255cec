// What the Resize/Upsample files share (resize.cc, resize_taps.cc, resize_params.cc): the
// options, the per-axis taps tables, and the kernel's declaration.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/kernel.h"

namespace webnx::resize {

enum class Mode { kNearest, kLinear, kCubic };
enum class CoordMode {
  kHalfPixel,
  kHalfPixelSymmetric,
  kPytorchHalfPixel,
  kAlignCorners,
  kAsymmetric,
  kTfHalfPixelForNn,
  kTfCropAndResize,
};
// kSimple is the rule of Resize 10 and Upsample (no nearest_mode attribute): floor when
// upsampling, ceil when downsampling, as onnxruntime does.
enum class NearestMode { kRoundPreferFloor, kRoundPreferCeil, kFloor, kCeil, kSimple };

struct Options {
  Mode mode = Mode::kNearest;
  CoordMode coord = CoordMode::kHalfPixel;
  NearestMode nearest = NearestMode::kRoundPreferFloor;
  double cubic_a = -0.75;
  bool exclude_outside = false;
  bool antialias = false;
  float extrapolation = 0.f;
};

// One resized axis and its taps: output j reads count[j] inputs index[j * stride + t] with
// weights weight[j * stride + t]; count -1 means "outside the roi: write extrapolation".
struct AxisResize {
  int64_t axis = 0;
  int64_t in = 0, out = 0;
  double scale = 1;           // what the coordinate transforms divide by
  double resized_length = 0;  // scale * in: the output length before rounding
  double roi_start = 0, roi_end = 1;
  int64_t stride = 0;
  std::vector<int32_t> count;
  std::vector<int64_t> index;
  std::vector<float> weight;

  bool IsIdentity() const {
    if (in != out) return false;
    for (int64_t j = 0; j < out; ++j) {
      if (count[j] != 1 || index[j * stride] != j || weight[j * stride] != 1.f) return false;
    }
    return true;
  }
};

// resize_taps.cc: filter widths and the taps of one axis.
double FilterSupport(const Options& o, double scale);
void ComputeTaps(const Options& o, AxisResize* a, double* scratch);

// One separable pass: which axis, and the [outer, *, inner] split of its input.
struct Pass {
  size_t axis_index;  // into axes_
  int64_t outer, inner;
};

class ResizeKernel : public Kernel {
 public:
  explicit ResizeKernel(bool upsample) : upsample_(upsample) {}

  Status Plan(PlanContext& ctx) override;
  Status Run(RunContext& ctx) override;
  // roi, scales and sizes decide the output shape and the sampling tables.
  void DeclarePlanTimeInputs(FormContext& ctx, std::vector<int>* inputs) const override {
    for (size_t i = 1; i < ctx.node().inputs.size(); ++i) inputs->push_back(static_cast<int>(i));
  }

 private:
  int ScalesInput() const { return legacy_ ? 1 : 2; }

  // resize_params.cc: the inputs, attributes, axes, and output lengths from scales or sizes.
  Status CheckInputs(PlanContext& ctx);
  Status ReadOptions(PlanContext& ctx);
  Status ParseCoordMode(PlanContext& ctx, const std::string& name);
  Status ParseNearestMode(PlanContext& ctx, const std::string& name);
  Status ReadAxes(PlanContext& ctx, int64_t rank, std::vector<int64_t>* axes);
  Status KnownInput(PlanContext& ctx, int i, const char* name, const Tensor** out);
  Status PlanAxes(PlanContext& ctx, const Shape& x, const std::vector<int64_t>& axes);
  Status KeepAspectRatio(PlanContext& ctx, const std::vector<int64_t>& sizes);
  Status ReadScalesOrSizes(PlanContext& ctx, size_t count, std::vector<double>* scales,
                           std::vector<int64_t>* sizes);
  // resize.cc: the roi and the taps tables, and the passes.
  Status PlanRoi(PlanContext& ctx, const std::vector<int64_t>& axes);
  Status PlanPasses(const Shape& x);

  bool upsample_;
  int version_ = 0;
  bool legacy_ = false;
  Options options_;
  std::string policy_ = "stretch";
  std::vector<AxisResize> axes_;
  std::vector<Pass> passes_;
  std::vector<double> tap_scratch_;  // one output's raw weights
  bool roi_at_run_ = false;
  bool empty_ = false;
  Tensor scratch_;  // two intermediate tensors of scratch_half_ floats each
  int64_t scratch_half_ = 0;
};

}  // namespace webnx::resize
