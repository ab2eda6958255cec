#include "kernels/conv_transpose_phase_layout.h"

#include <climits>
#include <numeric>
#include <string>

#include "kernels/nn_common.h"
#include "kernels/simd/gemm.h"

namespace webnx::conv_transpose {
namespace {

// A phase's depth and a group's packed rows stay this far inside the GEMM's int indices.
constexpr int64_t kMaxDepth = int64_t{1} << 28;

bool MakeAxis(int64_t kernel, int64_t stride, int64_t dilation, PhaseAxis* a) {
  if (kernel < 1 || stride < 1 || dilation < 1 || stride > kMaxPhases) return false;
  a->kernel = kernel;
  a->stride = stride;
  a->dilation = dilation;
  const int64_t g = std::gcd(stride, dilation);
  a->tap_step = stride / g;
  a->sub_dilation = dilation / g;
  a->last_tap.assign(stride, -1);
  a->taps.assign(stride, 0);
  for (int64_t k = 0; k < kernel; ++k) {
    const int64_t rho = (k % stride) * (dilation % stride) % stride;  // k * dilation, mod stride
    a->last_tap[rho] = k;
    ++a->taps[rho];
  }
  return true;
}

std::string IntsName(const std::vector<int64_t>& v) {
  std::string s;
  for (int64_t x : v) s += (s.empty() ? "" : "x") + std::to_string(x);
  return s;
}

// Writes group g's packed weights of phase p from W (`w`, row-major [C][group_out][taps]).
void PackPhase(const PhaseLayout& l, int64_t g, int64_t p, const float* w, float* to) {
  const PhaseAxis &az = l.axes[0], &ay = l.axes[1], &ax = l.axes[2];
  const int64_t rz = p / (ay.stride * ax.stride), ry = p / ax.stride % ay.stride,
                rx = p % ax.stride;
  const int64_t nz = az.taps[rz], ny = ay.taps[ry], nx = ax.taps[rx];
  const int64_t taps = az.kernel * ay.kernel * ax.kernel, depth = l.depth[p];
  const int64_t panels = (l.group_out + simd::kGemmMr - 1) / simd::kGemmMr;
  float* packed = to + l.Offset(g, p);
  for (int64_t panel = 0; panel < panels; ++panel) {
    int64_t kk = 0;
    for (int64_t c = 0; c < l.group_in; ++c) {
      const float* w_c = w + (g * l.group_in + c) * l.group_out * taps;
      for (int64_t jz = 0; jz < nz; ++jz) {
        const int64_t kz = az.last_tap[rz] - jz * az.tap_step;
        for (int64_t jy = 0; jy < ny; ++jy) {
          const int64_t ky = ay.last_tap[ry] - jy * ay.tap_step;
          for (int64_t jx = 0; jx < nx; ++jx, ++kk) {
            const int64_t kx = ax.last_tap[rx] - jx * ax.tap_step;
            const int64_t tap = (kz * ay.kernel + ky) * ax.kernel + kx;
            float* dst = packed + (panel * depth + kk) * simd::kGemmMr;
            for (int64_t r = 0; r < simd::kGemmMr; ++r) {
              const int64_t m = panel * simd::kGemmMr + r;
              dst[r] = m < l.group_out ? w_c[m * taps + tap] : 0.f;
            }
          }
        }
      }
    }
  }
}

}  // namespace

bool MakePhaseLayout(const Shape& w, int64_t groups, const std::vector<int64_t>& strides,
                     const std::vector<int64_t>& dilations, PhaseLayout* layout) {
  PhaseLayout& l = *layout;
  l = PhaseLayout();
  const size_t rank = w.size() < 2 ? 0 : w.size() - 2;
  if (rank < 1 || rank > kMaxPhaseRank || strides.size() != rank || dilations.size() != rank ||
      groups < 1 || w[0] < groups || w[0] % groups != 0 || w[1] < 1) {
    return false;
  }
  l.groups = groups;
  l.group_in = w[0] / groups;
  l.group_out = w[1];
  l.axes.assign(kMaxPhaseRank, PhaseAxis());
  const size_t front = kMaxPhaseRank - rank;
  for (size_t a = 0; a < kMaxPhaseRank; ++a) {
    const bool unit = a < front;
    if (!MakeAxis(unit ? 1 : w[a - front + 2], unit ? 1 : strides[a - front],
                  unit ? 1 : dilations[a - front], &l.axes[a])) {
      return false;
    }
    l.phases *= l.axes[a].stride;
    if (l.phases > kMaxPhases) return false;
  }
  int64_t taps = 0;
  if (!ShapeNumel(Shape(w.begin() + 2, w.end()), &taps) || taps >= kMaxDepth / l.group_in ||
      l.group_out >= kMaxDepth) {
    return false;
  }
  l.depth.assign(l.phases, 0);
  l.offset.assign(l.phases, 0);
  size_t floats = 0;
  for (int64_t p = 0; p < l.phases; ++p) {
    const int64_t rz = p / (l.axes[1].stride * l.axes[2].stride);
    const int64_t ry = p / l.axes[2].stride % l.axes[1].stride, rx = p % l.axes[2].stride;
    l.depth[p] = l.group_in * l.axes[0].taps[rz] * l.axes[1].taps[ry] * l.axes[2].taps[rx];
    l.offset[p] = floats;
    floats += simd::PackedLhsSize(static_cast<int>(l.group_out), static_cast<int>(l.depth[p]));
  }
  l.group_floats = floats;
  // Every tap is in one phase: a group's packed weights are its W, rows rounded up to 4.
  l.total_floats = floats * groups;
  return true;
}

bool PhaseLayoutOf(FormContext& ctx, const Shape& w, PhaseLayout* layout) {
  if (w.size() < 3) return false;
  const std::vector<int64_t> ones(w.size() - 2, 1);
  Attrs& attrs = ctx.attrs();
  const int64_t groups = attrs.Int("group", 1);
  const std::vector<int64_t> strides = attrs.Ints("strides", ones);
  const std::vector<int64_t> dilations = attrs.Ints("dilations", ones);
  if (!attrs.status().ok()) return false;
  return MakePhaseLayout(w, groups, strides, dilations, layout);
}

ConstantForm PhaseWeightsForm(const PhaseLayout& layout) {
  std::vector<int64_t> strides, dilations;
  for (const PhaseAxis& a : layout.axes) {
    strides.push_back(a.stride);
    dilations.push_back(a.dilation);
  }
  ConstantForm form;
  form.input = 1;
  // Which taps make a phase depends on the strides and dilations, the packing on the groups.
  form.kind = "conv-transpose-phases/" + std::to_string(layout.groups) + "/" + IntsName(strides) +
              "/" + IntsName(dilations);
  form.floats = layout.total_floats;
  form.derive = [layout](const float* from, float* to) {
    std::vector<float> copy;
    if (from == to) {  // over W itself (group_out a multiple of 4): read a copy
      const size_t numel = static_cast<size_t>(layout.groups * layout.group_in) * layout.group_out *
                           layout.axes[0].kernel * layout.axes[1].kernel * layout.axes[2].kernel;
      copy.assign(from, from + numel);
      from = copy.data();
    }
    for (int64_t g = 0; g < layout.groups; ++g)
      for (int64_t p = 0; p < layout.phases; ++p) PackPhase(layout, g, p, from, to);
  };
  return form;
}

}  // namespace webnx::conv_transpose
