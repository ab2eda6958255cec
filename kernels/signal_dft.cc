// DFT (17, 20): the discrete Fourier transform along one axis of a real ([..., 1]) or complex
// ([..., 2]) signal, forward or inverse (scaled by 1/n), full or one-sided: a forward one-sided
// transform keeps bins [0, n/2] of a real signal; an inverse one-sided one (IRFFT) reads those
// bins of a Hermitian spectrum and returns the real signal. dft_length pads with zeros or
// truncates; it and the axis (an attribute in 17, an input in 20) set the output shape, so both
// must be known when planned. Transforms: kernels/signal_fft.h.
#include <cstdint>
#include <string>

#include "kernels/nn_common.h"
#include "kernels/registrations.h"
#include "kernels/signal_fft.h"

namespace webnx {
namespace {

using signal::Complex;

class DftKernel final : public Kernel {
 public:
  void DeclarePlanTimeInputs(FormContext& ctx, std::vector<int>* inputs) const override {
    *inputs = {1, 2};
  }

  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(0, {DType::kFloat32}));
    Attrs& attrs = ctx.attrs();
    inverse_ = attrs.Int("inverse", 0) != 0;
    const bool onesided = attrs.Int("onesided", 0) != 0;
    int64_t axis = ctx.since_version() >= 20 ? -2 : attrs.Int("axis", 1);
    WEBNX_RETURN_IF_ERROR(attrs.status());
    const Shape& x = ctx.shape(0);
    const int64_t rank = static_cast<int64_t>(x.size());
    if (rank < 2 || (x.back() != 1 && x.back() != 2)) {
      return ctx.Error(
          ErrorCode::kShapeMismatch,
          "the input must be [..., 1] (real) or [..., 2] (complex), got " + ShapeToString(x));
    }
    complex_input_ = x.back() == 2;
    if (onesided && inverse_ && !complex_input_) {
      return ctx.Error(ErrorCode::kMalformedModel,
                       "an inverse one-sided DFT (IRFFT) needs a complex input [..., 2]");
    }
    if (onesided && !inverse_ && complex_input_) {
      return ctx.Error(ErrorCode::kMalformedModel,
                       "a forward one-sided DFT (RFFT) needs a real input [..., 1]");
    }
    if (ctx.since_version() >= 20 && ctx.has_input(2))
      WEBNX_RETURN_IF_ERROR(signal::ReadPlanTimeScalar(ctx, 2, "axis", &axis));
    // The last dim holds the real and imaginary parts: never the transformed axis.
    if (axis < -rank || axis == -1 || axis >= rank - 1) {
      return ctx.Error(ErrorCode::kMalformedModel,
                       "axis " + std::to_string(axis) + " is outside [-" + std::to_string(rank) +
                           ", -2] and [0, " + std::to_string(rank - 2) + "] for an input of rank " +
                           std::to_string(rank));
    }
    if (axis < 0) axis += rank;
    irfft_ = onesided && inverse_;
    in_length_ = x[axis];
    n_ = irfft_ ? 2 * (in_length_ - 1) : in_length_;
    if (ctx.has_input(1))
      WEBNX_RETURN_IF_ERROR(signal::ReadPlanTimeScalar(ctx, 1, "dft_length", &n_));
    if (n_ < 1 || n_ > signal::ComplexDft::kMaxLength) {
      return ctx.Error(ErrorCode::kMalformedModel,
                       "the DFT length " + std::to_string(n_) + " is outside [1, " +
                           std::to_string(signal::ComplexDft::kMaxLength) + "]");
    }
    out_length_ = onesided && !inverse_ ? n_ / 2 + 1 : n_;
    Shape out = x;
    out[axis] = out_length_;
    out.back() = irfft_ ? 1 : 2;
    WEBNX_RETURN_IF_ERROR(nn::CheckNumel(ctx, out, "output"));
    outer_ = nn::DimProduct(x, 0, axis);
    inner_ = nn::DimProduct(x, axis + 1, x.size() - 1);
    ctx.SetOutput(0, DType::kFloat32, out);
    return PlanTransform(ctx);
  }

  Status Run(RunContext& ctx) override {
    const float* x = ctx.input(0).ptr<float>();
    float* y = ctx.output(0).ptr<float>();
    ctx.ParallelFor(outer_ * inner_, [&](int64_t line, int slot) {
      Complex* values = signal::ComplexData(scratch_) + slot * per_thread_;
      const int64_t o = line / inner_, i = line % inner_;
      Load(x + (o * in_length_ * inner_ + i) * (complex_input_ ? 2 : 1), values);
      dft_.Run(values, values + n_);
      Store(values, y + (o * out_length_ * inner_ + i) * (irfft_ ? 1 : 2));
    });
    return Status::Ok();
  }

 private:
  Status PlanTransform(PlanContext& ctx) {
    if (outer_ * inner_ == 0) return Status::Ok();
    Status s = dft_.Plan(n_, inverse_);
    per_thread_ = n_ + dft_.scratch_size();
    if (s.ok()) s = signal::AllocateComplex(per_thread_ * ctx.threads(), &scratch_);
    return s.ok() ? s : ctx.Error(s.code(), "DFT tables and scratch: " + s.message());
  }

  // One line of the input (elements inner_ apart) into n values: zero-padded or truncated, or
  // for IRFFT the Hermitian spectrum the one-sided bins stand for.
  void Load(const float* x, Complex* values) const {
    const int64_t step = inner_ * (complex_input_ ? 2 : 1);
    auto at = [&](int64_t j) -> Complex {
      if (j >= in_length_) return Complex{};
      const float* p = x + j * step;
      return {p[0], complex_input_ ? p[1] : 0.0};
    };
    for (int64_t k = 0; k < n_; ++k) {
      if (!irfft_ || k <= n_ / 2) {
        values[k] = at(k);
      } else {
        const Complex mirror = at(n_ - k);
        values[k] = {mirror.re, -mirror.im};
      }
    }
  }

  void Store(const Complex* values, float* y) const {
    const double scale = inverse_ ? 1.0 / static_cast<double>(n_) : 1.0;
    const int64_t step = inner_ * (irfft_ ? 1 : 2);
    for (int64_t k = 0; k < out_length_; ++k) {
      float* p = y + k * step;
      p[0] = static_cast<float>(values[k].re * scale);
      if (!irfft_) p[1] = static_cast<float>(values[k].im * scale);
    }
  }

  bool inverse_ = false, irfft_ = false, complex_input_ = false;
  int64_t n_ = 0, in_length_ = 0, out_length_ = 0, outer_ = 0, inner_ = 0;
  int64_t per_thread_ = 0;  // complex values of scratch per thread: a line, then the DFT's own
  signal::ComplexDft dft_;
  Tensor scratch_;
};

}  // namespace

void RegisterSignalDftKernels(OpRegistry& r) {
  r.Register("", "DFT", {{{17}, Inputs(1, 2), Outputs(1)}, {{20}, Inputs(1, 3), Outputs(1)}},
             MakeKernel<DftKernel>);
}

}  // namespace webnx
