// The choice of a conv's strategy (kernels/conv_strategy.h), made once per plan.
#include "kernels/conv_strategy.h"

#include <algorithm>
#include <climits>

namespace webnx::conv {
namespace {

bool Pointwise(const ConvShape& s) {
  return std::all_of(s.axes.begin(), s.axes.end(), [](const nn::WindowAxis& a) {
    return a.kernel == 1 && a.stride == 1 && a.pad_begin == 0 && a.pad_end == 0;
  });
}

Path PathOf(const ConvShape& s) {
  if (s.group_in == 0) return Path::kBiasOnly;  // no input channels: the output is the bias
  if (s.group_in == 1) return Path::kDirect;
  return Pointwise(s) ? Path::kPointwise : Path::kIm2Col;
}

}  // namespace

// The scalar reference, unless W is constant: then the SIMD paths, which pack each group's
// weights as the GEMM's left matrix (2-D and 3-D), transform them for Winograd or keep them for
// the depthwise kernel (2-D).
Status ChooseStrategy(PlanContext& ctx, ConvShape& s, Strategy* strategy) {
  s.bias.clear();
  const Path path = PathOf(s);
  // Planned whatever runs: the im2col column buffer's size checks and allocation come first.
  Reference& reference = strategy->emplace<Reference>(s, path);
  WEBNX_RETURN_IF_ERROR(reference.Plan(ctx));
  if (path == Path::kBiasOnly) return Status::Ok();
  // W replaced by its declared form (conv_forms::Declare): its values are gone.
  const bool replaced = ctx.is_constant(1) && !ctx.constant(1);
  const bool two_d = s.axes[0].kernel == 1 && s.axes[0].out == 1 && s.axes[0].in == 1;
  const bool fits_int = reference.col_rows() < INT32_MAX && s.out_plane < INT32_MAX &&
                        s.group_in * s.kernel_size < INT32_MAX;
  if (!ctx.is_constant(1) || !fits_int) {
    if (!replaced) return Status::Ok();
    return ctx.Error(ErrorCode::kOutOfMemory,
                     "an output plane this big needs the scalar conv, and W was packed for "
                     "the SIMD convs when the model loaded");
  }
  *strategy = std::monostate();  // the SIMD paths build their column panels themselves
  if (const Tensor* b = s.has_bias ? ctx.constant(2) : nullptr) {
    s.bias.assign(b->ptr<float>(), b->ptr<float>() + s.out_channels);
  }
  if (path == Path::kDirect && two_d && s.group_out == 1) {
    if (replaced) return ctx.Error(ErrorCode::kInternal, "a depthwise W was replaced at load");
    return strategy->emplace<Depthwise>(s, ctx.constant(1)->ptr<float>()).Plan(ctx);
  }
  // The other single-input-channel convs (a mono signal's or a grey image's first conv, a
  // channel multiplier, 1-D and 3-D depthwise): per group a GEMM of depth kernel_size.
  if (FewOutputs::Takes(s) && !replaced) {
    return strategy->emplace<FewOutputs>(s, ctx.constant(1)->ptr<float>()).Plan(ctx);
  }
  if (path == Path::kIm2Col && two_d && Winograd::Takes(s)) {
    Winograd& winograd = strategy->emplace<Winograd>(s);
    if (winograd.ReadWeights(ctx)) return winograd.Plan(ctx);
  }
  return strategy->emplace<PackedGemm>(s, Pointwise(s)).Plan(ctx);
}

}  // namespace webnx::conv
