// STFT (17): the short-time Fourier transform of real ([batch, length, 1]) or complex
// ([batch, length, 2]) signals: frames of frame_length samples every frame_step samples, each
// multiplied by the window (rectangular when there is none) and transformed, one-sided (bins
// [0, frame_length / 2] of a real signal) by default. frame_step and frame_length set the output
// shape, so both must be known when planned. Transforms: kernels/signal_fft.h.
#include <algorithm>
#include <cstdint>
#include <string>

#include "kernels/nn_common.h"
#include "kernels/registrations.h"
#include "kernels/signal_fft.h"

namespace webnx {
namespace {

using signal::Complex;

constexpr int kFrameStep = 1, kWindow = 2, kFrameLength = 3;

class StftKernel final : public Kernel {
 public:
  void DeclarePlanTimeInputs(FormContext& ctx, std::vector<int>* inputs) const override {
    *inputs = {kFrameStep, kFrameLength};
  }

  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(0, {DType::kFloat32}));
    const bool onesided = ctx.attrs().Int("onesided", 1) != 0;
    WEBNX_RETURN_IF_ERROR(ctx.attrs().status());
    const Shape& x = ctx.shape(0);
    if (x.size() != 3 || (x[2] != 1 && x[2] != 2)) {
      return ctx.Error(ErrorCode::kShapeMismatch,
                       "the signal must be [batch, length, 1] (real) or [batch, length, 2] "
                       "(complex), got " +
                           ShapeToString(x));
    }
    complex_input_ = x[2] == 2;
    if (onesided && complex_input_) {
      return ctx.Error(ErrorCode::kMalformedModel,
                       "a one-sided STFT needs a real signal [batch, length, 1]");
    }
    batch_ = x[0];
    signal_length_ = x[1];
    WEBNX_RETURN_IF_ERROR(signal::ReadPlanTimeLength(ctx, kFrameStep, "frame_step", &frame_step_));
    WEBNX_RETURN_IF_ERROR(ReadFrameLength(ctx));
    const int64_t longest = std::min(signal_length_, signal::ComplexDft::kMaxLength);
    if (frame_length_ > longest) {
      return ctx.Error(ErrorCode::kShapeMismatch, "frame_length " + std::to_string(frame_length_) +
                                                      " is past " + std::to_string(longest) +
                                                      " (the signal's length or the DFT's limit)");
    }
    frames_ = (signal_length_ - frame_length_) / frame_step_ + 1;
    bins_ = onesided ? frame_length_ / 2 + 1 : frame_length_;
    const Shape out = {batch_, frames_, bins_, 2};
    WEBNX_RETURN_IF_ERROR(nn::CheckNumel(ctx, out, "output"));
    ctx.SetOutput(0, DType::kFloat32, out);
    if (batch_ * frames_ == 0) return Status::Ok();
    Status s = dft_.Plan(frame_length_, false);
    per_thread_ = frame_length_ + dft_.scratch_size();
    if (s.ok()) s = signal::AllocateComplex(per_thread_ * ctx.threads(), &scratch_);
    return s.ok() ? s : ctx.Error(s.code(), "STFT tables and scratch: " + s.message());
  }

  Status Run(RunContext& ctx) override {
    const float* x = ctx.input(0).ptr<float>();
    const float* window = windowed_ ? ctx.input(kWindow).ptr<float>() : nullptr;
    float* y = ctx.output(0).ptr<float>();
    const int64_t channels = complex_input_ ? 2 : 1;
    ctx.ParallelFor(batch_ * frames_, [&](int64_t frame, int slot) {
      Complex* values = signal::ComplexData(scratch_) + slot * per_thread_;
      const int64_t b = frame / frames_, f = frame % frames_;
      const float* in = x + (b * signal_length_ + f * frame_step_) * channels;
      for (int64_t j = 0; j < frame_length_; ++j) {
        const double w = window ? window[j] : 1.0;
        values[j] = {in[j * channels] * w, complex_input_ ? in[j * 2 + 1] * w : 0.0};
      }
      dft_.Run(values, values + frame_length_);
      float* out = y + frame * bins_ * 2;
      for (int64_t k = 0; k < bins_; ++k) {
        out[2 * k] = static_cast<float>(values[k].re);
        out[2 * k + 1] = static_cast<float>(values[k].im);
      }
    });
    return Status::Ok();
  }

 private:
  // frame_length from its input, else the window's length, else the whole signal's; both given,
  // they must agree.
  Status ReadFrameLength(PlanContext& ctx) {
    windowed_ = ctx.has_input(kWindow);
    if (windowed_) {
      WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(kWindow, {DType::kFloat32}));
      if (ctx.shape(kWindow).size() != 1) {
        return ctx.Error(ErrorCode::kShapeMismatch,
                         "the window must be 1-D, got " + ShapeToString(ctx.shape(kWindow)));
      }
    }
    if (ctx.has_input(kFrameLength)) {
      WEBNX_RETURN_IF_ERROR(
          signal::ReadPlanTimeLength(ctx, kFrameLength, "frame_length", &frame_length_));
      if (windowed_ && ctx.shape(kWindow)[0] != frame_length_) {
        return ctx.Error(ErrorCode::kShapeMismatch,
                         "the window has " + std::to_string(ctx.shape(kWindow)[0]) +
                             " values but frame_length is " + std::to_string(frame_length_));
      }
    } else {
      frame_length_ = windowed_ ? ctx.shape(kWindow)[0] : signal_length_;
    }
    if (frame_length_ < 1) {
      return ctx.Error(ErrorCode::kShapeMismatch, "the frame length must be positive");
    }
    return Status::Ok();
  }

  bool complex_input_ = false, windowed_ = false;
  int64_t batch_ = 0, signal_length_ = 0, frame_step_ = 0, frame_length_ = 0;
  int64_t frames_ = 0, bins_ = 0;
  int64_t per_thread_ = 0;  // complex values of scratch per thread: a frame, then the DFT's own
  signal::ComplexDft dft_;
  Tensor scratch_;
};

}  // namespace

void RegisterSignalStftKernels(OpRegistry& r) {
  r.Register("", "STFT", {{17}, Inputs(2, 4), Outputs(1)}, MakeKernel<StftKernel>);
}

}  // namespace webnx
