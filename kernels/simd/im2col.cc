#include "kernels/simd/im2col.h"

#include <cstddef>

#include "kernels/simd/gemm.h"
#include "kernels/simd/vec.h"

namespace webnx::simd {
namespace {

// Where the 8 output positions of one panel read their first tap, and how much of the panel
// the fast paths may handle.
struct PanelOrigin {
  int y[kGemmNr], x[kGemmNr];  // top-left input coordinate (may lie in the padding)
  bool valid[kGemmNr];         // position exists (the last panel may be short)
  bool all_inside = false;     // every tap of every position lies inside the image
  bool one_row = false;        // ... and the 8 positions are consecutive in one output row
};

PanelOrigin OriginOf(const Conv2DGeometry& g, int first, int count) {
  PanelOrigin o;
  const int span_y = (g.kernel_h - 1) * g.dilation_h, span_x = (g.kernel_w - 1) * g.dilation_w;
  o.all_inside = true;
  // Once per panel: unrolled, its divisions were half of Im2ColPanels' code.
  WEBNX_PLAIN_LOOP
  for (int t = 0; t < kGemmNr; ++t) {
    const int q = first + t;
    o.valid[t] = t < count;
    o.y[t] = o.valid[t] ? (q / g.out_w) * g.stride_h - g.pad_top : 0;
    o.x[t] = o.valid[t] ? (q % g.out_w) * g.stride_w - g.pad_left : 0;
    o.all_inside = o.all_inside && o.valid[t] && o.y[t] >= 0 && o.y[t] + span_y < g.in_h &&
                   o.x[t] >= 0 && o.x[t] + span_x < g.in_w;
  }
  // One row: the loads of the vector path (8 floats, or 16 for stride 2) stay inside it.
  const int loaded = g.stride_w == 1 ? kGemmNr : 2 * kGemmNr;
  o.one_row = o.all_inside && (g.stride_w == 1 || g.stride_w == 2) && o.y[0] == o.y[7] &&
              o.x[0] + span_x + loaded <= g.in_w;
  return o;
}

// The three kinds of panel each have a function: most convs fill all three, and V8 recompiles
// three small functions sooner than one that holds them all (1,600 instructions, mostly the
// border path's unrolled bounds checks).

// Interior panels: each (channel, tap) row of the panel is one or two vector loads.
WEBNX_SEPARATE_FUNCTION void InteriorPanel(const Conv2DGeometry& g, const float* x,
                                           const PanelOrigin& o, float* packed) {
  const int plane = g.in_h * g.in_w;
  const float* origin = x + static_cast<size_t>(o.y[0]) * g.in_w + o.x[0];
  for (int c = 0; c < g.channels; ++c, origin += plane) {
    for (int ky = 0; ky < g.kernel_h; ++ky) {
      const float* row = origin + static_cast<size_t>(ky) * g.dilation_h * g.in_w;
      for (int kx = 0; kx < g.kernel_w; ++kx, packed += kGemmNr) {
        const float* src = row + kx * g.dilation_w;
        if (g.stride_w == 1) {
          Store(packed, Load(src));
          Store(packed + 4, Load(src + 4));
        } else {
          Store(packed, Evens(Load(src), Load(src + 4)));
          Store(packed + 4, Evens(Load(src + 8), Load(src + 12)));
        }
      }
    }
  }
}

// Inside but across rows: a gather with no bounds checks.
WEBNX_SEPARATE_FUNCTION void GatherPanel(const Conv2DGeometry& g, const float* x,
                                         const PanelOrigin& o, float* packed) {
  const int plane = g.in_h * g.in_w;
  int offset[kGemmNr];
  for (int t = 0; t < kGemmNr; ++t) offset[t] = o.y[t] * g.in_w + o.x[t];
  for (int c = 0; c < g.channels; ++c) {
    const float* xc = x + static_cast<size_t>(c) * plane;
    for (int ky = 0; ky < g.kernel_h; ++ky) {
      for (int kx = 0; kx < g.kernel_w; ++kx, packed += kGemmNr) {
        const float* src = xc + ky * g.dilation_h * g.in_w + kx * g.dilation_w;
        for (int t = 0; t < kGemmNr; ++t) packed[t] = src[offset[t]];
      }
    }
  }
}

// Panels that touch the padding (or end short): every tap checked.
WEBNX_SEPARATE_FUNCTION void BorderPanel(const Conv2DGeometry& g, const float* x,
                                         const PanelOrigin& o, float* packed) {
  const int plane = g.in_h * g.in_w;
  for (int c = 0; c < g.channels; ++c) {
    const float* xc = x + static_cast<size_t>(c) * plane;
    for (int ky = 0; ky < g.kernel_h; ++ky) {
      for (int kx = 0; kx < g.kernel_w; ++kx, packed += kGemmNr) {
        for (int t = 0; t < kGemmNr; ++t) {
          const int iy = o.y[t] + ky * g.dilation_h;
          const int ix = o.x[t] + kx * g.dilation_w;
          const bool inside = o.valid[t] && iy >= 0 && iy < g.in_h && ix >= 0 && ix < g.in_w;
          packed[t] = inside ? xc[iy * g.in_w + ix] : 0.f;
        }
      }
    }
  }
}

}  // namespace

void Im2ColPanels(const Conv2DGeometry& g, const float* x, int first, int count, float* packed) {
  const size_t panel_floats = static_cast<size_t>(g.channels) * g.kernel_h * g.kernel_w * kGemmNr;
  for (int j = 0; j < count; j += kGemmNr, packed += panel_floats) {
    const PanelOrigin o = OriginOf(g, first + j, count - j);
    if (o.one_row) {
      InteriorPanel(g, x, o, packed);
    } else if (o.all_inside) {
      GatherPanel(g, x, o, packed);
    } else {
      BorderPanel(g, x, o, packed);
    }
  }
}

// Each (channel, kd) is one plane of x, or a plane of padding: its rows of a panel are that
// plane's 2-D rows.
void Im2ColPanels3D(const Conv2DGeometry& g, const DepthWindow& depth, int out_d, const float* x,
                    int first, int count, float* packed) {
  Conv2DGeometry plane_geometry = g;
  plane_geometry.channels = 1;
  const size_t plane = static_cast<size_t>(g.in_h) * g.in_w;
  const size_t plane_rows = static_cast<size_t>(g.kernel_h) * g.kernel_w * kGemmNr;
  for (int j = 0; j < count; j += kGemmNr) {
    const PanelOrigin o = OriginOf(plane_geometry, first + j, count - j);
    for (int c = 0; c < g.channels; ++c) {
      const float* xc = x + static_cast<size_t>(c) * depth.in * plane;
      for (int kd = 0; kd < depth.kernel; ++kd, packed += plane_rows) {
        const int id = out_d * depth.stride - depth.pad_begin + kd * depth.dilation;
        if (id < 0 || id >= depth.in) {
          for (size_t i = 0; i < plane_rows; ++i) packed[i] = 0.f;
        } else if (o.one_row) {
          InteriorPanel(plane_geometry, xc + id * plane, o, packed);
        } else if (o.all_inside) {
          GatherPanel(plane_geometry, xc + id * plane, o, packed);
        } else {
          BorderPanel(plane_geometry, xc + id * plane, o, packed);
        }
      }
    }
  }
}

}  // namespace webnx::simd
