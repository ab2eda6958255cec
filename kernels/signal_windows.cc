// The signal generators (17): HannWindow, HammingWindow and BlackmanWindow, cosine sums
// a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N) with N the size (periodic) or the size - 1
// (symmetric); and MelWeightMatrix, the triangular filterbank that maps one-sided DFT bins to
// mel bands. Their sizes are inputs that set the output shape, so they must be known when
// planned. The outputs are float32 or, per output_datatype, int32/int64 (cast toward zero).
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/dtype_dispatch.h"
#include "kernels/indexing_common.h"
#include "kernels/nn_common.h"
#include "kernels/registrations.h"
#include "kernels/signal_fft.h"

namespace webnx {
namespace {

constexpr double kPi = 3.14159265358979323846;

// The output_datatype attribute as a webnx dtype (float32, int32 or int64).
Status ReadOutputDType(PlanContext& ctx, DType* dtype) {
  const int64_t code = ctx.attrs().Int("output_datatype", 1);
  WEBNX_RETURN_IF_ERROR(ctx.attrs().status());
  switch (static_cast<DType>(code)) {
    case DType::kFloat32:
    case DType::kInt32:
    case DType::kInt64:
      *dtype = static_cast<DType>(code);
      return Status::Ok();
    default:
      return ctx.Error(ErrorCode::kUnsupportedDtype,
                       "output_datatype " + std::to_string(code) +
                           " is not one webnx computes in (1 float32, 6 int32, 7 int64)");
  }
}

// Writes v as element i of a float32/int32/int64 output; integers take it toward zero,
// saturated, NaN as 0.
void StoreAs(Tensor& out, int64_t i, double v) {
  DispatchDType(out.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, float>) {
      out.ptr<float>()[i] = static_cast<float>(v);
    } else if constexpr (!std::is_same_v<T, bool>) {
      using Limits = std::numeric_limits<T>;
      T value = 0;
      if (v <= static_cast<double>(Limits::lowest())) {
        value = Limits::lowest();
      } else if (v >= static_cast<double>(Limits::max())) {
        value = Limits::max();
      } else if (!std::isnan(v)) {
        value = static_cast<T>(v);
      }
      out.ptr<T>()[i] = value;
    }
  });
}

struct CosineSum {
  double a0, a1, a2;
};

class WindowKernel final : public Kernel {
 public:
  explicit WindowKernel(CosineSum terms) : terms_(terms) {}

  void DeclarePlanTimeInputs(FormContext& ctx, std::vector<int>* inputs) const override {
    *inputs = {0};
  }

  Status Plan(PlanContext& ctx) override {
    DType dtype = DType::kFloat32;
    WEBNX_RETURN_IF_ERROR(ReadOutputDType(ctx, &dtype));
    periodic_ = ctx.attrs().Int("periodic", 1) != 0;
    WEBNX_RETURN_IF_ERROR(ctx.attrs().status());
    WEBNX_RETURN_IF_ERROR(signal::ReadPlanTimeLength(ctx, 0, "size", &size_));
    WEBNX_RETURN_IF_ERROR(nn::CheckNumel(ctx, {size_}, "output"));
    ctx.SetOutput(0, dtype, {size_});
    return Status::Ok();
  }

  // A symmetric window of size 1 divides by N = 0: NaN, as the spec's function body gives.
  Status Run(RunContext& ctx) override {
    Tensor& out = ctx.output(0);
    const double n_total = static_cast<double>(periodic_ ? size_ : size_ - 1);
    for (int64_t n = 0; n < size_; ++n) {
      const double angle = 2 * kPi * static_cast<double>(n) / n_total;
      StoreAs(out, n, terms_.a0 - terms_.a1 * std::cos(angle) + terms_.a2 * std::cos(2 * angle));
    }
    return Status::Ok();
  }

 private:
  CosineSum terms_;
  bool periodic_ = true;
  int64_t size_ = 0;
};

Kernel* MakeHann() {
  return new WindowKernel(CosineSum{0.5, 0.5, 0});
}
Kernel* MakeHamming() {
  return new WindowKernel(CosineSum{25.0 / 46.0, 21.0 / 46.0, 0});
}
Kernel* MakeBlackman() {
  return new WindowKernel(CosineSum{0.42, 0.5, 0.08});
}

// Bins [0, dft_length / 2] by mel bands: band i is a triangle rising from edge i to a peak of 1
// at edge i + 1 and falling to edge i + 2, the num_mel_bins + 2 edges spaced evenly in mel
// between the lower and upper frequencies (mel(f) = 2595 log10(1 + f / 700)) and mapped to DFT
// bins. The edges follow the ONNX reference: the mel range is split in num_mel_bins + 2 steps,
// computed in float32 up to the step, then in double; bin = floor((dft_length + 1) f / rate).
class MelWeightMatrixKernel final : public Kernel {
 public:
  void DeclarePlanTimeInputs(FormContext& ctx, std::vector<int>* inputs) const override {
    *inputs = {0, 1};
  }

  Status Plan(PlanContext& ctx) override {
    node_ = ctx.node().Describe();
    DType dtype = DType::kFloat32;
    WEBNX_RETURN_IF_ERROR(ReadOutputDType(ctx, &dtype));
    WEBNX_RETURN_IF_ERROR(signal::ReadPlanTimeLength(ctx, 0, "num_mel_bins", &mel_bins_));
    WEBNX_RETURN_IF_ERROR(signal::ReadPlanTimeLength(ctx, 1, "dft_length", &dft_length_));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(2, {DType::kInt32, DType::kInt64}));
    for (int i = 2; i < 5; ++i) {
      if (i > 2) WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(i, {DType::kFloat32}));
      int64_t numel = 0;
      if (!ShapeNumel(ctx.shape(i), &numel) || numel != 1 || ctx.shape(i).size() > 1) {
        return ctx.Error(ErrorCode::kShapeMismatch, "input " + std::to_string(i) +
                                                        " must be a scalar, got shape " +
                                                        ShapeToString(ctx.shape(i)));
      }
    }
    spectrum_bins_ = dft_length_ / 2 + 1;
    const Shape out = {spectrum_bins_, mel_bins_};
    WEBNX_RETURN_IF_ERROR(nn::CheckNumel(ctx, out, "output"));
    ctx.SetOutput(0, dtype, out);
    edges_.resize(static_cast<size_t>(mel_bins_ + 2));
    return Status::Ok();
  }

  Status Run(RunContext& ctx) override {
    const int64_t rate = indexing::IndexAt(ctx.input(2), 0);
    const float lower = ctx.input(3).ptr<float>()[0];
    const float upper = ctx.input(4).ptr<float>()[0];
    if (rate < 1) {
      return Status(ErrorCode::kInvalidInput,
                    node_ + ": sample_rate must be positive, got " + std::to_string(rate));
    }
    const float low_mel = 2595.f * std::log10(1.f + lower / 700.f);
    const float high_mel = 2595.f * std::log10(1.f + upper / 700.f);
    const float step = (high_mel - low_mel) / static_cast<float>(mel_bins_ + 2);
    for (int64_t i = 0; i < mel_bins_ + 2; ++i) {
      const double mel = static_cast<double>(i) * step + low_mel;
      const double hz = 700 * (std::pow(10.0, mel / 2595) - 1);
      const double bin = std::floor(static_cast<double>(dft_length_ + 1) * hz / rate);
      if (!(bin >= 0 && bin < static_cast<double>(spectrum_bins_))) {
        return Status(ErrorCode::kInvalidInput, node_ + ": band edge " + std::to_string(i) +
                                                    " falls outside the " +
                                                    std::to_string(spectrum_bins_) + " DFT bins");
      }
      edges_[i] = static_cast<int64_t>(bin);
    }
    Tensor& out = ctx.output(0);
    for (int64_t i = 0; i < out.numel(); ++i) StoreAs(out, i, 0);
    for (int64_t band = 0; band < mel_bins_; ++band) {
      const int64_t left = edges_[band], center = edges_[band + 1], right = edges_[band + 2];
      auto set = [&](int64_t bin, double v) { StoreAs(out, bin * mel_bins_ + band, v); };
      if (center == left) set(center, 1);
      for (int64_t j = left; j <= center && center != left; ++j)
        set(j, static_cast<double>(j - left) / static_cast<double>(center - left));
      for (int64_t j = center; j < right; ++j)
        set(j, static_cast<double>(right - j) / static_cast<double>(right - center));
    }
    return Status::Ok();
  }

 private:
  std::string node_;  // for errors found when run
  int64_t mel_bins_ = 0, dft_length_ = 0, spectrum_bins_ = 0;
  std::vector<int64_t> edges_;  // the band edges as DFT bins, sized when planned
};

}  // namespace

void RegisterSignalWindowKernels(OpRegistry& r) {
  r.Register("", "HannWindow", {{17}, Inputs(1), Outputs(1)}, MakeHann);
  r.Register("", "HammingWindow", {{17}, Inputs(1), Outputs(1)}, MakeHamming);
  r.Register("", "BlackmanWindow", {{17}, Inputs(1), Outputs(1)}, MakeBlackman);
  r.Register("", "MelWeightMatrix", {{17}, Inputs(5), Outputs(1)},
             MakeKernel<MelWeightMatrixKernel>);
}

}  // namespace webnx
