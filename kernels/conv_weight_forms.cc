#include "kernels/conv_weight_forms.h"

#include <algorithm>
#include <climits>
#include <string>

#include "kernels/conv_few_outputs.h"
#include "kernels/simd/gemm.h"
#include "kernels/simd/winograd.h"

namespace webnx {
namespace conv_forms {

ConstantForm PackedLhs(int64_t groups, int64_t group_out, int k) {
  const size_t per_group = simd::PackedLhsSize(static_cast<int>(group_out), k);
  ConstantForm form;
  form.input = 1;
  form.kind = kPackedLhs;
  form.floats = per_group * groups;
  form.derive = [=](const float* from, float* to) {
    for (int64_t g = 0; g < groups; ++g) {
      if (from == to) {  // over W itself: per_group is group_out * k
        simd::PackLhsInPlace(to + g * per_group, static_cast<int>(group_out), k);
      } else {
        simd::PackLhs(from + g * group_out * k, static_cast<int>(group_out), k, k,
                      to + g * per_group);
      }
    }
  };
  return form;
}

ConstantForm Winograd(int in_channels, int out_channels) {
  // The transform depends on the channels only.
  const simd::WinogradShape shape{in_channels, out_channels, 0, 0, 0, 0, 0, 0};
  ConstantForm form;
  form.input = 1;
  form.kind = kWinogradWeights;
  form.floats = simd::WinogradWeightFloats(shape);
  form.granule = simd::WinogradGroupFloats(shape);
  form.derive_split = [shape](const float* from, float* head, size_t head_groups, float* tail) {
    simd::WinogradPackWeights(shape, from, head, static_cast<int>(head_groups), tail);
  };
  return form;
}

bool TakesWinograd(int64_t kernel_h, int64_t kernel_w, bool unit_strides, bool unit_dilations,
                   int64_t groups, int64_t group_in, int64_t group_out, int64_t pad_top,
                   int64_t pad_left) {
  return kernel_h == 3 && kernel_w == 3 && unit_strides && unit_dilations && groups == 1 &&
         group_in >= 16 && group_out >= 16 && pad_top <= 2 && pad_left <= 2;
}

namespace {

bool AllOnes(const std::vector<int64_t>& v) {
  return std::all_of(v.begin(), v.end(), [](int64_t x) { return x == 1; });
}

// Padding before the two axes, when the attributes fix it: explicit pads, VALID, or SAME with
// stride 1 and no dilation (a kernel of k taps is padded k - 1 in all, (k - 1) / 2 before
// either way for odd k). False when it depends on the input's size.
bool StaticPadsBefore(Attrs& attrs, int64_t kernel_h, int64_t kernel_w, bool unit_steps,
                      int64_t* top, int64_t* left) {
  const std::string auto_pad = attrs.String("auto_pad", "NOTSET");
  if (auto_pad == "NOTSET") {
    const std::vector<int64_t> pads = attrs.Ints("pads", {0, 0, 0, 0});
    if (pads.size() != 4) return false;
    *top = pads[0];
    *left = pads[1];
    return true;
  }
  if (auto_pad == "VALID") {
    *top = *left = 0;
    return true;
  }
  if (!unit_steps || kernel_h % 2 == 0 || kernel_w % 2 == 0) return false;
  *top = (kernel_h - 1) / 2;
  *left = (kernel_w - 1) / 2;
  return true;
}

}  // namespace

void Declare(FormContext& ctx, std::vector<ConstantForm>* forms) {
  const Tensor* w = ctx.constant(1);
  if (!w || w->dtype != DType::kFloat32 || (w->shape.size() != 4 && w->shape.size() != 5)) return;
  Attrs& attrs = ctx.attrs();
  const int64_t groups = attrs.Int("group", 1);
  const int64_t out_channels = w->shape[0], group_in = w->shape[1];
  if (w->shape.size() == 5) {  // 3-D: the packed GEMM only
    const int64_t taps = w->shape[2] * w->shape[3] * w->shape[4];
    if (groups < 1 || out_channels < 1 || out_channels % groups != 0 || group_in < 2) return;
    if (taps < 1 || taps >= INT32_MAX / group_in) return;
    forms->push_back(PackedLhs(groups, out_channels / groups, static_cast<int>(group_in * taps)));
    return;
  }
  const int64_t kernel_h = w->shape[2], kernel_w = w->shape[3];
  if (groups < 1 || out_channels < 1 || out_channels % groups != 0 || group_in < 2) return;
  if (kernel_h < 1 || kernel_w < 1 || group_in * kernel_h * kernel_w >= INT32_MAX) return;
  const bool unit_strides = AllOnes(attrs.Ints("strides", {1, 1}));
  const bool unit_dilations = AllOnes(attrs.Ints("dilations", {1, 1}));
  int64_t top = 0, left = 0;
  const bool pads_known =
      StaticPadsBefore(attrs, kernel_h, kernel_w, unit_strides && unit_dilations, &top, &left);
  if (!attrs.status().ok()) return;  // Plan reports the attribute
  const int64_t group_out = out_channels / groups;
  if (conv::FewOutputs::TakesWeights(groups, out_channels, unit_strides, kernel_h * kernel_w))
    return;  // it reads W as given
  if (pads_known && TakesWinograd(kernel_h, kernel_w, unit_strides, unit_dilations, groups,
                                  group_in, group_out, top, left)) {
    forms->push_back(Winograd(static_cast<int>(group_in), static_cast<int>(group_out)));
    return;
  }
  const int k = static_cast<int>(group_in * kernel_h * kernel_w);
  forms->push_back(PackedLhs(groups, group_out, k));
}

}  // namespace conv_forms
}  // namespace webnx
