// GridSample (16, 20, 22): samples X [N, C, d1..dr] at the normalized positions of grid
// [N, o1..or, r] (its last axis ordered x, y, z: the last spatial axis first), giving
// Y [N, C, o1..or]: nearest, (multi)linear, or bicubic (2-D) interpolation; out-of-range
// positions read zeros, the border, or the input reflected at its borders. As PyTorch's
// grid_sample: nearest rounds half to even; linear and nearest clip or reflect the position
// first, cubic each of its 4x4 taps.
#include <cmath>
#include <cstdint>
#include <string>

#include "kernels/nn_common.h"
#include "kernels/registrations.h"

namespace webnx {
namespace {

enum class Interpolation { kNearest, kLinear, kCubic };
enum class Padding { kZeros, kBorder, kReflection };
constexpr int kMaxAxes = 3;

class GridSampleKernel final : public Kernel {
 public:
  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(2, 2));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(0, {DType::kFloat32}));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(1, {DType::kFloat32}));
    WEBNX_RETURN_IF_ERROR(ReadAttributes(ctx));
    const Shape& x = ctx.shape(0);
    const Shape& grid = ctx.shape(1);
    axes_ = static_cast<int>(x.size()) - 2;
    if (axes_ < 1 || axes_ > kMaxAxes || grid.size() != x.size() || grid[0] != x[0] ||
        grid.back() != axes_) {
      return ctx.Error(ErrorCode::kShapeMismatch,
                       "X must be [N, C, d1..dr] (r = 1 to 3) and grid [N, o1..or, r]; got " +
                           ShapeToString(x) + " and " + ShapeToString(grid));
    }
    if (mode_ == Interpolation::kCubic && axes_ != 2)
      return ctx.Error(ErrorCode::kUnsupportedOperator, "cubic mode needs a 4-D input");
    batch_ = x[0];
    channels_ = x[1];
    in_plane_ = nn::DimProduct(x, 2, x.size());
    out_plane_ = nn::DimProduct(grid, 1, grid.size() - 1);
    for (int d = 0; d < axes_; ++d) size_[d] = x[2 + d];
    Shape y = {batch_, channels_};
    y.insert(y.end(), grid.begin() + 1, grid.end() - 1);
    ctx.SetOutput(0, DType::kFloat32, y);
    return Status::Ok();
  }

  Status Run(RunContext& ctx) override {
    const float* x = ctx.input(0).ptr<float>();
    const float* grid = ctx.input(1).ptr<float>();
    float* y = ctx.output(0).ptr<float>();
    ctx.ParallelFor(batch_, [&](int64_t n, int) {
      for (int64_t p = 0; p < out_plane_; ++p) {
        const float* g = grid + (n * out_plane_ + p) * axes_;
        float pos[kMaxAxes];
        for (int d = 0; d < axes_; ++d) pos[d] = Unnormalize(g[axes_ - 1 - d], size_[d]);
        const float* xn = x + n * channels_ * in_plane_;
        float* yn = y + n * channels_ * out_plane_ + p;
        for (int64_t c = 0; c < channels_; ++c)
          yn[c * out_plane_] = Sample(xn + c * in_plane_, pos);
      }
    });
    return Status::Ok();
  }

 private:
  Status ReadAttributes(PlanContext& ctx) {
    Attrs& attrs = ctx.attrs();
    const bool v16 = ctx.since_version() < 20;
    const std::string mode = attrs.String("mode", v16 ? "bilinear" : "linear");
    const std::string padding = attrs.String("padding_mode", "zeros");
    align_corners_ = attrs.Int("align_corners", 0) != 0;
    WEBNX_RETURN_IF_ERROR(attrs.status());
    if (mode == "nearest")
      mode_ = Interpolation::kNearest;
    else if (mode == (v16 ? "bilinear" : "linear"))
      mode_ = Interpolation::kLinear;
    else if (mode == (v16 ? "bicubic" : "cubic"))
      mode_ = Interpolation::kCubic;
    else
      return ctx.Error(ErrorCode::kMalformedModel, "unknown mode '" + mode + "'");
    if (padding == "zeros")
      padding_ = Padding::kZeros;
    else if (padding == "border")
      padding_ = Padding::kBorder;
    else if (padding == "reflection")
      padding_ = Padding::kReflection;
    else
      return ctx.Error(ErrorCode::kMalformedModel, "unknown padding_mode '" + padding + "'");
    return Status::Ok();
  }

  float Unnormalize(float g, int64_t size) const {
    const float s = static_cast<float>(size);
    return align_corners_ ? (g + 1.f) / 2.f * (s - 1.f) : ((g + 1.f) * s - 1.f) / 2.f;
  }

  // A position as an integer without undefined behaviour: NaN, infinities and values past
  // +-2^40 (a hostile grid; far outside any tensor) become +-2^40, which every tap treats as
  // outside.
  static int64_t ToIndex(float v) {
    constexpr float kFar = 1099511627776.f;  // 2^40
    if (!(v > -kFar)) return -static_cast<int64_t>(kFar);
    if (v > kFar) return static_cast<int64_t>(kFar);
    return static_cast<int64_t>(v);
  }

  // Reflects x into [low, high] (as often as it takes), PyTorch's reflect_coordinates.
  static float Reflect(float x, float low, float high) {
    if (high <= low) return low;
    const float span = high - low;
    const float dist = std::fabs(x - low);
    const float extra = std::fmod(dist, span);
    const int64_t flips = ToIndex(std::floor(dist / span));
    return flips % 2 == 0 ? low + extra : high - extra;
  }

  // A position as the padding mode sees it: clipped to the border, or reflected then clipped.
  float Pad(float x, int64_t size) const {
    const float last = static_cast<float>(size - 1);
    if (padding_ == Padding::kReflection) {
      x = align_corners_ ? Reflect(x, 0.f, last) : Reflect(x, -0.5f, last + 0.5f);
    }
    if (padding_ == Padding::kZeros) return x;
    return x < 0.f ? 0.f : (x > last ? last : x);
  }

  // X at integer coordinates idx, zero outside.
  float At(const float* plane, const int64_t* idx) const {
    int64_t offset = 0;
    for (int d = 0; d < axes_; ++d) {
      if (idx[d] < 0 || idx[d] >= size_[d]) return 0.f;
      offset = offset * size_[d] + idx[d];
    }
    return plane[offset];
  }

  float Sample(const float* plane, const float* raw) const {
    if (mode_ == Interpolation::kCubic) return Bicubic(plane, raw);
    float pos[kMaxAxes];
    for (int d = 0; d < axes_; ++d) pos[d] = Pad(raw[d], size_[d]);
    int64_t idx[kMaxAxes];
    if (mode_ == Interpolation::kNearest) {
      for (int d = 0; d < axes_; ++d) idx[d] = ToIndex(std::nearbyint(pos[d]));
      return At(plane, idx);
    }
    int64_t low[kMaxAxes];
    float frac[kMaxAxes];
    for (int d = 0; d < axes_; ++d) {
      const float f = std::floor(pos[d]);
      low[d] = ToIndex(f);
      frac[d] = pos[d] - f;
    }
    float sum = 0.f;
    for (int corner = 0; corner < (1 << axes_); ++corner) {
      float weight = 1.f;
      for (int d = 0; d < axes_; ++d) {
        const bool high = (corner >> (axes_ - 1 - d)) & 1;
        idx[d] = low[d] + (high ? 1 : 0);
        weight *= high ? frac[d] : 1.f - frac[d];
      }
      sum += weight * At(plane, idx);
    }
    return sum;
  }

  // X at one bicubic tap, the padding mode applied to the tap's own position.
  float CubicTap(const float* plane, int64_t yi, int64_t xi) const {
    int64_t idx[2] = {yi, xi};
    if (padding_ != Padding::kZeros) {
      for (int d = 0; d < 2; ++d) idx[d] = ToIndex(Pad(static_cast<float>(idx[d]), size_[d]));
    }
    return At(plane, idx);
  }

  static void CubicWeights(float t, float* w) {
    constexpr float a = -0.75f;
    const float t1 = t + 1.f, t2 = 1.f - t;
    w[0] = ((a * t1 - 5.f * a) * t1 + 8.f * a) * t1 - 4.f * a;
    w[1] = ((a + 2.f) * t - (a + 3.f)) * t * t + 1.f;
    w[2] = ((a + 2.f) * t2 - (a + 3.f)) * t2 * t2 + 1.f;
    w[3] = 1.f - w[0] - w[1] - w[2];
  }

  float Bicubic(const float* plane, const float* pos) const {
    const float fy = std::floor(pos[0]), fx = std::floor(pos[1]);
    float wy[4], wx[4];
    CubicWeights(pos[0] - fy, wy);
    CubicWeights(pos[1] - fx, wx);
    const int64_t y0 = ToIndex(fy) - 1, x0 = ToIndex(fx) - 1;
    float sum = 0.f;
    for (int i = 0; i < 4; ++i) {
      float row = 0.f;
      for (int j = 0; j < 4; ++j) row += wx[j] * CubicTap(plane, y0 + i, x0 + j);
      sum += wy[i] * row;
    }
    return sum;
  }

  Interpolation mode_ = Interpolation::kLinear;
  Padding padding_ = Padding::kZeros;
  bool align_corners_ = false;
  int axes_ = 0;
  int64_t size_[kMaxAxes] = {};
  int64_t batch_ = 0, channels_ = 0, in_plane_ = 0, out_plane_ = 0;
};

}  // namespace

void RegisterGridSampleKernels(OpRegistry& r) {
  r.Register("", "GridSample", {{16, 20, 22}, Inputs(2), Outputs(1)}, MakeKernel<GridSampleKernel>);
}

}  // namespace webnx
