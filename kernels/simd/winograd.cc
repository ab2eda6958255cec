#include "kernels/simd/winograd.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "kernels/simd/vec.h"

namespace webnx::simd {
namespace {

constexpr int kT = kWinogradTilesPerBlock;

// Strides of the scratch: 16 packed right-hand matrices V (Cin x tiles), then 16 products M
// (Cout x tiles, kT floats per row).
size_t VStride(const WinogradShape& s) {
  return PackedRhsSize(s.in_channels, kT);
}
size_t MStride(const WinogradShape& s) {
  return static_cast<size_t>(s.out_channels) * kT;
}

// B^T d B for one 4x4 patch, B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1]. Works on floats
// or on f32x4 lanes holding four tiles.
template <typename T, typename AddFn, typename SubFn>
inline void InputTransform(const T (&d)[4][4], T (&v)[16], AddFn add, SubFn sub) {
  T t[4][4];
  for (int q = 0; q < 4; ++q) {
    t[0][q] = sub(d[0][q], d[2][q]);
    t[1][q] = add(d[1][q], d[2][q]);
    t[2][q] = sub(d[2][q], d[1][q]);
    t[3][q] = sub(d[1][q], d[3][q]);
  }
  for (int r = 0; r < 4; ++r) {
    v[r * 4 + 0] = sub(t[r][0], t[r][2]);
    v[r * 4 + 1] = add(t[r][1], t[r][2]);
    v[r * 4 + 2] = sub(t[r][2], t[r][1]);
    v[r * 4 + 3] = sub(t[r][1], t[r][3]);
  }
}

// A^T m A for one tile's 16 products, A^T = [1 1 1 0; 0 1 -1 -1]: the 2x2 outputs.
template <typename T, typename AddFn, typename SubFn>
inline void OutputTransform(const T (&m)[16], T (&y)[2][2], AddFn add, SubFn sub) {
  T r0[4], r1[4];
  for (int q = 0; q < 4; ++q) {
    r0[q] = add(add(m[q], m[4 + q]), m[8 + q]);
    r1[q] = sub(sub(m[4 + q], m[8 + q]), m[12 + q]);
  }
  y[0][0] = add(add(r0[0], r0[1]), r0[2]);
  y[0][1] = sub(sub(r0[1], r0[2]), r0[3]);
  y[1][0] = add(add(r1[0], r1[1]), r1[2]);
  y[1][1] = sub(sub(r1[1], r1[2]), r1[3]);
}

const auto kAddF = [](float a, float b) { return a + b; };
const auto kSubF = [](float a, float b) { return a - b; };
const auto kAddV = [](f32x4 a, f32x4 b) { return Add(a, b); };
const auto kSubV = [](f32x4 a, f32x4 b) { return Sub(a, b); };

struct TileGrid {
  int tiles_w;
  int Row(int tile) const { return tile / tiles_w; }
  int Col(int tile) const { return tile % tiles_w; }
};

// Transformed patches of tiles [first, first + count) into the 16 packed V matrices: element
// (channel c, tile t) of each sits at panel t / 8, row c, lane t % 8.
void TransformInputs(const WinogradShape& s, const float* x, int first, int count, float* v) {
  const TileGrid grid{(s.out_w + 1) / 2};
  const size_t v_stride = VStride(s);
  const size_t plane = static_cast<size_t>(s.in_h) * s.in_w;
  const int cin = s.in_channels;
  int t = 0;
  while (t < count) {
    const int tile = first + t;
    const int iy0 = grid.Row(tile) * 2 - s.pad_top, ix0 = grid.Col(tile) * 2 - s.pad_left;
    // Four tiles of one row at lanes 0-3 or 4-7 of a panel, their patches inside the image:
    // one vector per transformed value (the patches' columns are 10 consecutive floats).
    const bool four = t % 4 == 0 && t + 4 <= count && grid.Col(tile) + 3 < grid.tiles_w &&
                      iy0 >= 0 && iy0 + 4 <= s.in_h && ix0 >= 0 && ix0 + 10 <= s.in_w;
    float* dst = v + static_cast<size_t>(t / kGemmNr) * kGemmNr * cin + t % kGemmNr;
    if (four) {
      const float* origin = x + static_cast<size_t>(iy0) * s.in_w + ix0;
      for (int c = 0; c < cin; ++c, origin += plane) {
        f32x4 d[4][4];
        for (int r = 0; r < 4; ++r) {
          const float* row = origin + static_cast<size_t>(r) * s.in_w;
          const f32x4 a = Load(row), b = Load(row + 4), e = Load(row + 6);
          // Column q of the four patches: row[2k + q] for tiles k = 0..3.
          d[r][0] = Evens(a, b);
          d[r][1] = Odds(a, b);
          d[r][2] = Evens(Load(row + 2), e);
          d[r][3] = Odds(Load(row + 2), e);
        }
        f32x4 vt[16];
        InputTransform(d, vt, kAddV, kSubV);
        float* out = dst + static_cast<size_t>(c) * kGemmNr;
        for (int xi = 0; xi < 16; ++xi) Store(out + xi * v_stride, vt[xi]);
      }
      t += 4;
      continue;
    }
    for (int c = 0; c < cin; ++c) {
      const float* xc = x + c * plane;
      float d[4][4];
      for (int r = 0; r < 4; ++r)
        for (int q = 0; q < 4; ++q) {
          const int iy = iy0 + r, ix = ix0 + q;
          d[r][q] = iy >= 0 && iy < s.in_h && ix >= 0 && ix < s.in_w ? xc[iy * s.in_w + ix] : 0.f;
        }
      float vt[16];
      InputTransform(d, vt, kAddF, kSubF);
      float* out = dst + static_cast<size_t>(c) * kGemmNr;
      for (int xi = 0; xi < 16; ++xi) out[xi * v_stride] = vt[xi];
    }
    ++t;
  }
}

inline float Finish(float v, int co, int oy, int ox, const WinogradShape& s,
                    const GemmEpilogue& ep) {
  if (ep.bias) v += ep.bias[co];
  if (ep.addend) v += ep.addend[(static_cast<size_t>(co) * s.out_h + oy) * s.out_w + ox];
  return std::min(std::max(v, ep.min), ep.max);
}

// Outputs of tiles [first, first + count), channels [row0, row_end), from the 16 products.
void TransformOutputs(const WinogradShape& s, const float* m, int first, int count, int row0,
                      int row_end, const GemmEpilogue& ep, float* y) {
  const TileGrid grid{(s.out_w + 1) / 2};
  const size_t m_stride = MStride(s);
  const f32x4 lo = Splat(ep.min), hi = Splat(ep.max);
  for (int co = row0; co < row_end; ++co) {
    const float* mc = m + static_cast<size_t>(co) * kT;
    float* yc = y + static_cast<size_t>(co) * s.out_h * s.out_w;
    const float* ac = ep.addend ? ep.addend + static_cast<size_t>(co) * s.out_h * s.out_w : nullptr;
    const f32x4 bias = Splat(ep.bias ? ep.bias[co] : 0.f);
    int t = 0;
    while (t < count) {
      const int tile = first + t;
      const int oy = grid.Row(tile) * 2, ox = grid.Col(tile) * 2;
      // Four tiles of one row whose 8 x 2 outputs all exist: vectors over the tiles.
      if (t + 4 <= count && grid.Col(tile) + 3 < grid.tiles_w && oy + 2 <= s.out_h &&
          ox + 8 <= s.out_w) {
        f32x4 mv[16];
        for (int xi = 0; xi < 16; ++xi) mv[xi] = Load(mc + xi * m_stride + t);
        f32x4 yv[2][2];
        OutputTransform(mv, yv, kAddV, kSubV);
        for (int r = 0; r < 2; ++r) {
          const size_t at = static_cast<size_t>(oy + r) * s.out_w + ox;
          // Tile k's outputs are columns 2k and 2k + 1: interleave the two vectors.
          f32x4 lo4 = Add(wasm_i32x4_shuffle(yv[r][0], yv[r][1], 0, 4, 1, 5), bias);
          f32x4 hi4 = Add(wasm_i32x4_shuffle(yv[r][0], yv[r][1], 2, 6, 3, 7), bias);
          if (ac) {
            lo4 = Add(lo4, Load(ac + at));
            hi4 = Add(hi4, Load(ac + at + 4));
          }
          Store(yc + at, Clamp(lo4, lo, hi));
          Store(yc + at + 4, Clamp(hi4, lo, hi));
        }
        t += 4;
        continue;
      }
      float mt[16];
      for (int xi = 0; xi < 16; ++xi) mt[xi] = mc[xi * m_stride + t];
      float yt[2][2];
      OutputTransform(mt, yt, kAddF, kSubF);
      for (int r = 0; r < 2 && oy + r < s.out_h; ++r)
        for (int q = 0; q < 2 && ox + q < s.out_w; ++q)
          yc[(oy + r) * s.out_w + ox + q] = Finish(yt[r][q], co, oy + r, ox + q, s, ep);
      ++t;
    }
  }
}

// One panel: four output channels, one per lane, from `lanes` rows of W (Cin * 9 floats apart)
// into `panel`: matrix xi at xi * matrix, input channel ci at 4 * ci (PackLhs's layout). A
// call per panel rather than one loop over the layer: V8 swaps in optimised code only between
// calls, and packing a ResNet's weights in the first plan ran 70 ms unoptimised.
WEBNX_PLAN_TIME WEBNX_SEPARATE_FUNCTION void PackWeightPanel(const WinogradShape& s,
                                                             const float* rows, int lanes,
                                                             size_t matrix, float* panel) {
  const int cin = s.in_channels;
  const f32x4 half = Splat(0.5f);
  for (int ci = 0; ci < cin; ++ci) {
    alignas(16) float taps[9][4];
    for (int lane = 0; lane < 4; ++lane) {
      if (lane >= lanes) {  // channels past Cout
        for (int t = 0; t < 9; ++t) taps[t][lane] = 0.f;
        continue;
      }
      const float* g = rows + static_cast<size_t>(lane) * cin * 9 + static_cast<size_t>(ci) * 9;
      for (int t = 0; t < 9; ++t) taps[t][lane] = g[t];
    }
    // U = G g G^T, G = [1 0 0; 1/2 1/2 1/2; 1/2 -1/2 1/2; 0 0 1].
    f32x4 gg[4][3];
    for (int q = 0; q < 3; ++q) {
      const f32x4 a = Load(taps[q]), b = Load(taps[3 + q]), c = Load(taps[6 + q]);
      gg[0][q] = a;
      gg[1][q] = Mul(half, Add(Add(a, b), c));
      gg[2][q] = Mul(half, Add(Sub(a, b), c));
      gg[3][q] = c;
    }
    float* dst = panel + static_cast<size_t>(ci) * 4;
    for (int r = 0; r < 4; ++r) {
      const f32x4 row[4] = {gg[r][0], Mul(half, Add(Add(gg[r][0], gg[r][1]), gg[r][2])),
                            Mul(half, Add(Sub(gg[r][0], gg[r][1]), gg[r][2])), gg[r][2]};
      for (int q = 0; q < 4; ++q) Store(dst + (r * 4 + q) * matrix, row[q]);
    }
  }
}

}  // namespace

int WinogradTiles(const WinogradShape& s) {
  return ((s.out_h + 1) / 2) * ((s.out_w + 1) / 2);
}

int WinogradGroups(const WinogradShape& s) {
  const int panels = (s.out_channels + 3) / 4;
  return (panels + kWinogradGroupPanels - 1) / kWinogradGroupPanels;
}

size_t WinogradGroupFloats(const WinogradShape& s) {
  return static_cast<size_t>(16 * 4 * kWinogradGroupPanels) * s.in_channels;
}

size_t WinogradWeightFloats(const WinogradShape& s) {
  return static_cast<size_t>(16) * PackedLhsSize(s.out_channels, s.in_channels);
}

WEBNX_PLAN_TIME void WinogradPackWeights(const WinogradShape& s, const float* w, float* head,
                                         int head_groups, float* tail) {
  const size_t row_floats = static_cast<size_t>(s.in_channels) * 9;
  const size_t panel_matrix = static_cast<size_t>(4) * s.in_channels;  // one panel's, one xi's
  std::vector<float> copied;
  const auto pack_group = [&](int g, float* group) {
    const int first = g * kWinogradGroupPanels * 4;  // output channel
    const int rows = std::min(kWinogradGroupPanels * 4, s.out_channels - first);
    const int panels = (rows + 3) / 4;
    const float* from = w + first * row_floats;
    const auto at = [](const void* f) { return reinterpret_cast<uintptr_t>(f); };
    if (at(group) < at(from + rows * row_floats) &&
        at(from) < at(group + panels * 16 * panel_matrix)) {
      copied.assign(from, from + rows * row_floats);  // the group lands on its own rows
      from = copied.data();
    }
    for (int p = 0; p < panels; ++p) {
      PackWeightPanel(s, from + 4 * p * row_floats, std::min(4, rows - 4 * p),
                      panels * panel_matrix, group + p * panel_matrix);
    }
  };
  const size_t group_floats = WinogradGroupFloats(s);
  for (int g = head_groups; g < WinogradGroups(s); ++g)
    pack_group(g, tail + (g - head_groups) * group_floats);
  for (int g = head_groups - 1; g >= 0; --g) pack_group(g, head + g * group_floats);
}

size_t WinogradScratchFloats(const WinogradShape& s) {
  return 16 * (VStride(s) + MStride(s));
}

void WinogradBlock(const WinogradShape& s, const float* x, const WinogradWeights& weights,
                   int first, int count, int row0, int rows, const GemmEpilogue& epilogue, float* y,
                   float* scratch) {
  float* v = scratch;
  float* m = scratch + 16 * VStride(s);
  TransformInputs(s, x, first, count, v);
  const GemmEpilogue none;
  const size_t group_floats = WinogradGroupFloats(s);
  const int group_rows = 4 * kWinogradGroupPanels;
  for (int xi = 0; xi < 16; ++xi) {
    // The channels' rows group by group: in each, matrix xi is a run of packed panels.
    for (int r = row0, end = row0 + rows; r < end;) {
      const int g = r / group_rows;
      const int group_end = std::min((g + 1) * group_rows, s.out_channels);
      const int group_panels = (group_end - g * group_rows + 3) / 4;
      const float* group = g < weights.head_groups
                               ? weights.head + g * group_floats
                               : weights.tail + (g - weights.head_groups) * group_floats;
      const float* a = group + (static_cast<size_t>(xi) * group_panels * 4 + (r - g * group_rows)) *
                                   s.in_channels;
      const int part_end = std::min(end, group_end);
      GemmPacked(part_end - r, count, s.in_channels, a, v + xi * VStride(s),
                 m + xi * MStride(s) + static_cast<size_t>(r) * kT, kT, none);
      r = part_end;
    }
  }
  TransformOutputs(s, m, first, count, row0, row0 + rows, epilogue, y);
}

}  // namespace webnx::simd
