#include "kernels/conv_few_outputs.h"

#include <algorithm>
#include <climits>

#include "kernels/epilogue_function.h"
#include "kernels/simd/gemm.h"

namespace webnx::conv {

bool FewOutputs::Takes(const ConvShape& s) {
  const nn::WindowAxis& ad = s.axes[0];
  const nn::WindowAxis& ah = s.axes[1];
  const nn::WindowAxis& aw = s.axes[2];
  const bool two_d = ad.kernel == 1 && ad.out == 1 && ad.in == 1;
  return two_d &&
         TakesWeights(s.groups, s.out_channels, ah.stride == 1 && aw.stride == 1, s.kernel_size) &&
         s.in_channels * s.in_plane < INT_MAX && s.in_channels * s.kernel_size < INT_MAX;
}

bool FewOutputs::TakesWeights(int64_t groups, int64_t out_channels, bool unit_strides,
                              int64_t taps) {
  return groups == 1 && out_channels < simd::kGemmMr && unit_strides && taps > 1;
}

Status FewOutputs::Plan(const PlanContext& ctx) {
  const nn::WindowAxis& ah = s_.axes[1];
  const nn::WindowAxis& aw = s_.axes[2];
  rows_.in_channels = static_cast<int>(s_.in_channels);
  rows_.in_h = static_cast<int>(ah.in);
  rows_.in_w = static_cast<int>(aw.in);
  rows_.out_h = static_cast<int>(ah.out);
  rows_.out_w = static_cast<int>(aw.out);
  rows_.kernel_h = static_cast<int>(ah.kernel);
  rows_.kernel_w = static_cast<int>(aw.kernel);
  rows_.pad_top = static_cast<int>(ah.pad_begin);
  rows_.pad_left = static_cast<int>(aw.pad_begin);
  rows_.dilation_h = static_cast<int>(ah.dilation);
  rows_.dilation_w = static_cast<int>(aw.dilation);
  // Runs of rows of about 4K outputs, at least four tasks per thread.
  const int64_t planes = s_.batch * s_.out_channels;
  const int64_t balanced = (planes * ah.out + 4 * ctx.threads() - 1) / (4 * ctx.threads());
  rows_per_task_ =
      std::max<int64_t>(1, std::min({balanced, ah.out, 4096 / std::max<int64_t>(aw.out, 1)}));
  return Status::Ok();
}

// Tasks are runs of rows of one output plane; every output is computed the same way whichever
// thread takes it.
void FewOutputs::Run(const RunContext& ctx, const RunArgs& args) {
  const Epilogue& ep = s_.epilogue;
  const int64_t out_h = rows_.out_h, out_w = rows_.out_w;
  const int64_t tasks_per_plane = (out_h + rows_per_task_ - 1) / rows_per_task_;
  const int64_t image_floats = s_.in_channels * s_.in_plane;
  const int64_t weight_floats = s_.in_channels * s_.kernel_size;
  ctx.ParallelFor(s_.batch * s_.out_channels * tasks_per_plane, [&](int64_t task, int) {
    const int64_t plane = task / tasks_per_plane;  // image * out_channels + channel
    const int64_t image = plane / s_.out_channels, channel = plane % s_.out_channels;
    const int64_t first = task % tasks_per_plane * rows_per_task_;
    const int64_t end = std::min(out_h, first + rows_per_task_);
    const float* x = args.x + image * image_floats;
    const float* w = weights_ + channel * weight_floats;
    const float bias = args.bias ? args.bias[channel] : 0.f;
    for (int64_t y = first; y < end; ++y) {
      const int64_t at = plane * s_.out_plane + y * out_w;
      simd::ConvRow(rows_, x, w, bias, static_cast<int>(y),
                    args.addend ? args.addend + at : nullptr, ep.clamp_lo, ep.clamp_hi,
                    args.y + at);
      if (ep.HasFunction()) simd::ApplyActivation(ActivationOf(ep.function), args.y + at, out_w);
    }
  });
}

}  // namespace webnx::conv
