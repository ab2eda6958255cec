#include "kernels/simd/gemm.h"

#include <algorithm>
#include <limits>

#include "kernels/simd/gemm_row.h"
#include "kernels/simd/vec.h"

namespace webnx::simd {
namespace {

inline float ClampScalar(float v, float lo, float hi) {
  return std::min(std::max(v, lo), hi);
}

// One tile of kGemmMr rows and 4 * kVecs columns: at most 8 accumulators, 2 B vectors and 1
// splat live (V8 slows down past ~10 live vectors). A is packed; B's rows are ldb floats
// apart (kGemmNr when packed). Stores `rows` x `cols` of it. Written with constant indices
// only: a dynamically indexed accumulator makes LLVM keep them all in memory.
template <int kVecs>
struct TileSums {
  f32x4 acc[kGemmMr][kVecs];
};

// rows x cols of a matrix (ld floats per row) into a zeroed kGemmMr-row tile `width` floats
// wide: a partial tile's addend or starting sums.
WEBNX_SEPARATE_FUNCTION void CopyPartialTile(const float* from, int ld, int rows, int cols,
                                             float* tile, int width) {
  std::fill(tile, tile + kGemmMr * width, 0.f);
  for (int r = 0; r < rows; ++r)
    for (int j = 0; j < cols; ++j) tile[r * width + j] = from[r * ld + j];
}

// The sums a tile starts from: the bias of each of its `rows` rows (rows past them come from A's
// zero padding: they take no bias and are never stored), or, in a deep GEMM's later pass
// (DepthPass), the rows x cols sums the pass before left at `sums` (ldc floats per row).
template <int kVecs>
inline TileSums<kVecs> StartingSums(int rows, int cols, const float* bias, const float* sums,
                                    int ldc) {
  TileSums<kVecs> t;
  if (!sums) {
    for (int r = 0; r < kGemmMr; ++r) {
      const f32x4 init = Splat(bias && r < rows ? bias[r] : 0.f);
      for (int v = 0; v < kVecs; ++v) t.acc[r][v] = init;
    }
    return t;
  }
  const bool whole = rows == kGemmMr && cols == 4 * kVecs;
  alignas(16) float part[kGemmMr][4 * kVecs];
  if (!whole) CopyPartialTile(sums, ldc, rows, cols, part[0], 4 * kVecs);
  const float* from = whole ? sums : part[0];
  const int stride = whole ? ldc : 4 * kVecs;
  for (int r = 0; r < kGemmMr; ++r)
    for (int v = 0; v < kVecs; ++v) t.acc[r][v] = Load(from + r * stride + 4 * v);
  return t;
}

// t + A's panel times B's k x (4 * kVecs) block.
// Only the first kRows rows are computed (the others are left as they start): a single row of A
// (a classifier's batch of one) then costs a quarter of a whole tile, each of its sums the same
// chain of multiply-adds.
template <int kVecs, int kRows = kGemmMr>
inline TileSums<kVecs> MultiplyTile(int k, const float* pa, const float* pb, int ldb,
                                    TileSums<kVecs> t) {
  for (const float* end = pb + static_cast<size_t>(k) * ldb; pb != end; pb += ldb, pa += 4) {
    f32x4 b[kVecs];
    for (int v = 0; v < kVecs; ++v) b[v] = Load(pb + 4 * v);
    for (int r = 0; r < kRows; ++r) {
      const f32x4 a = LoadSplat(pa + r);
      for (int v = 0; v < kVecs; ++v) t.acc[r][v] = MulAdd(t.acc[r][v], a, b[v]);
    }
  }
  return t;
}

// `resume`: start from the sums at c (a deep GEMM's later pass) rather than the bias.
template <int kVecs, bool kClamp, int kRows = kGemmMr>
inline void Tile(int k, const float* pa, const float* pb, int ldb, float* c, int ldc, int rows,
                 int cols, const float* bias, bool resume, const float* addend, f32x4 lo,
                 f32x4 hi) {
  TileSums<kVecs> t = MultiplyTile<kVecs, kRows>(
      k, pa, pb, ldb, StartingSums<kVecs>(rows, cols, bias, resume ? c : nullptr, ldc));
  auto& acc = t.acc;
  const bool whole = rows == kGemmMr && cols == 4 * kVecs;
  if (addend && whole) {
    for (int r = 0; r < kGemmMr; ++r)
      for (int v = 0; v < kVecs; ++v) acc[r][v] = Add(acc[r][v], Load(addend + r * ldc + 4 * v));
  } else if (addend) {
    alignas(16) float part[kGemmMr][4 * kVecs];
    CopyPartialTile(addend, ldc, rows, cols, part[0], 4 * kVecs);
    for (int r = 0; r < kGemmMr; ++r)
      for (int v = 0; v < kVecs; ++v) acc[r][v] = Add(acc[r][v], Load(part[r] + 4 * v));
  }
  for (int r = 0; r < kGemmMr; ++r)
    for (int v = 0; v < kVecs; ++v)
      if (kClamp) acc[r][v] = Clamp(acc[r][v], lo, hi);
  if (whole) {
    for (int r = 0; r < kGemmMr; ++r)
      for (int v = 0; v < kVecs; ++v) Store(c + r * ldc + 4 * v, acc[r][v]);
    return;
  }
  alignas(16) float tile[kGemmMr][4 * kVecs];
  for (int r = 0; r < kGemmMr; ++r)
    for (int v = 0; v < kVecs; ++v) Store(tile[r] + 4 * v, acc[r][v]);
  for (int r = 0; r < rows; ++r)
    for (int j = 0; j < cols; ++j) c[r * ldc + j] = tile[r][j];
}

// A partial tile: fewer than kGemmMr rows or kGemmNr columns (the half-width tile when at most 4
// columns are left; 7x7 planes leave 1 of 49). Kept out of the driver, which then inlines only
// the whole tile.
template <bool kClamp>
WEBNX_SEPARATE_FUNCTION void PartialTile(int k, const float* pa, const float* pb, int ldb, float* c,
                                         int ldc, int rows, int cols, const float* bias,
                                         bool resume, const float* addend, f32x4 lo, f32x4 hi) {
  if (rows == 1 && cols > 4) {
    Tile<2, kClamp, 1>(k, pa, pb, ldb, c, ldc, rows, cols, bias, resume, addend, lo, hi);
  } else if (cols > 4) {
    Tile<2, kClamp>(k, pa, pb, ldb, c, ldc, rows, cols, bias, resume, addend, lo, hi);
  } else {
    Tile<1, kClamp>(k, pa, pb, ldb, c, ldc, rows, cols, bias, resume, addend, lo, hi);
  }
}

// A single column of B against A's panel: its four rows as one vector, B's values splatted, 4
// operations per k where a 4x4 tile takes 13 (7x7, 13x13, 27x27 and 55x55 planes leave one
// column past the 8-column panels). Every output is the same chain of multiply-adds as in
// MultiplyTile, so the results are bitwise the same; lane r is row r. It starts from the bias, or
// from the column's sums at `sums` (ldc floats per row) as StartingSums does.
inline f32x4 ColumnSums(int k, const float* pa, const float* pb, int ldb, int rows,
                        const float* bias, const float* sums, int ldc) {
  alignas(16) float lanes[kGemmMr] = {};
  for (int r = 0; r < rows; ++r) lanes[r] = sums ? sums[r * ldc] : bias ? bias[r] : 0.f;
  f32x4 acc = Load(lanes);
  for (const float* end = pb + static_cast<size_t>(k) * ldb; pb != end; pb += ldb, pa += 4) {
    acc = MulAdd(acc, Load(pa), LoadSplat(pb));
  }
  return acc;
}

// Tile's epilogue for that column.
template <bool kClamp>
WEBNX_SEPARATE_FUNCTION void ColumnTile(int k, const float* pa, const float* pb, int ldb, float* c,
                                        int ldc, int rows, const float* bias, bool resume,
                                        const float* addend, f32x4 lo, f32x4 hi) {
  f32x4 acc = ColumnSums(k, pa, pb, ldb, rows, bias, resume ? c : nullptr, ldc);
  alignas(16) float lanes[kGemmMr];
  if (addend) {
    for (int r = 0; r < kGemmMr; ++r) lanes[r] = r < rows ? addend[r * ldc] : 0.f;
    acc = Add(acc, Load(lanes));
  }
  if (kClamp) acc = Clamp(acc, lo, hi);
  Store(lanes, acc);
  for (int r = 0; r < rows; ++r) c[r * ldc] = lanes[r];
}

bool NeedsClamp(const GemmEpilogue& ep) {
  return ep.min > -std::numeric_limits<float>::infinity() ||
         ep.max < std::numeric_limits<float>::infinity();
}

// The part [begin, begin + depth) of the k-deep sums one pass over C adds. A GEMM deeper than
// kPassesFrom runs in passes of about kPassDepth (RunInPasses): B's block then needs L2 only for
// a pass's rows, so its columns can be many (GemmColumnBlock) and A, megabytes at that depth,
// streams from memory once rather than once per block (docs/performance.md). Passes cost a
// little when A is in cache, so shallower GEMMs run in one. A later pass resumes from the sums the
// one before stored in C, so every output is still one chain of multiply-adds, bitwise that of a
// single pass.
struct DepthPass {
  int begin;
  int depth;
  bool resume;
};

constexpr int kPassDepth = 512;
constexpr int kPassesFrom = 2048;

// Row panels of A against B's 8-column panels over one pass's depth: the panel at column j < full
// starts at b + j * column_step with rows ldb floats apart (packed: column_step k, ldb 8; in
// place: column_step 1); columns [full, n) come from `tail`, one zero-padded packed panel.
template <bool kClamp>
void GemmImpl(int m, int n, int k, const float* packed_a, const float* b, size_t column_step,
              int ldb, int full, const float* tail, float* c, int ldc, const GemmEpilogue& ep,
              const DepthPass& pass) {
  const f32x4 lo = Splat(ep.min);
  const f32x4 hi = Splat(ep.max);
  const int depth = pass.depth;
  const bool resume = pass.resume;
  b += static_cast<size_t>(pass.begin) * ldb;
  tail += static_cast<size_t>(pass.begin) * kGemmNr;
  for (int i = 0; i < m; i += kGemmMr) {
    const int rows = std::min(kGemmMr, m - i);
    const float* pa = packed_a + static_cast<size_t>(i) * k + kGemmMr * pass.begin;
    const float* bias = ep.bias ? ep.bias + i : nullptr;
    float* ci = c + static_cast<size_t>(i) * ldc;
    const float* ai = ep.addend ? ep.addend + static_cast<size_t>(i) * ldc : nullptr;
    int j = 0;
    if (rows == 1 && !resume) {
      j = GemmRowBlocks<kClamp>(depth, pa, b, column_step, ldb, full, ci, bias, ai, lo, hi);
    }
    for (; j < full; j += kGemmNr) {
      const float* bj = b + j * column_step;
      const float* aij = ai ? ai + j : nullptr;
      if (rows == kGemmMr) {
        Tile<2, kClamp>(depth, pa, bj, ldb, ci + j, ldc, kGemmMr, kGemmNr, bias, resume, aij, lo,
                        hi);
      } else {
        PartialTile<kClamp>(depth, pa, bj, ldb, ci + j, ldc, rows, kGemmNr, bias, resume, aij, lo,
                            hi);
      }
    }
    if (full + 1 == n) {
      ColumnTile<kClamp>(depth, pa, tail, kGemmNr, ci + full, ldc, rows, bias, resume,
                         ai ? ai + full : nullptr, lo, hi);
    } else if (full < n) {
      PartialTile<kClamp>(depth, pa, tail, kGemmNr, ci + full, ldc, rows, n - full, bias, resume,
                          ai ? ai + full : nullptr, lo, hi);
    }
    if (ep.activation.kind != ActivationKind::kNone) {
      for (int r = 0; r < rows; ++r)
        ApplyActivation(ep.activation, ci + static_cast<size_t>(r) * ldc, n);
    }
  }
}

// Pixel (y, x)'s four channels, if the image keeps that pixel.
inline void StorePixel(const InterleavedImage& out, int y, int x, f32x4 px) {
  if (y < out.rows && x < out.cols)
    Store(out.origin + y * out.row_stride + 4 * static_cast<size_t>(x), px);
}

// Stores `count` columns of a 4 x 8 tile as interleaved pixels from image pixel (y, x) on.
inline void StoreInterleaved(TileSums<2>& t, int count, int y, int x, f32x4 lo, f32x4 hi,
                             const InterleavedImage& out) {
  f32x4 px[8];
  for (int v = 0; v < 2; ++v) {
    for (int r = 0; r < kGemmMr; ++r) px[4 * v + r] = Clamp(t.acc[r][v], lo, hi);
    Transpose4x4(px[4 * v], px[4 * v + 1], px[4 * v + 2], px[4 * v + 3]);
  }
  if (count == kGemmNr && x + kGemmNr <= out.cols && y < out.rows) {
    float* dst = out.origin + y * out.row_stride + 4 * static_cast<size_t>(x);
    for (int q = 0; q < kGemmNr; ++q) Store(dst + 4 * q, px[q]);
    return;
  }
  for (int q = 0; q < count; ++q, ++x) {  // a panel crossing image rows, or the tail
    if (x == out.width) {
      x = 0;
      ++y;
    }
    StorePixel(out, y, x, px[q]);
  }
}

}  // namespace

void GemmPanelInterleaved(int n, int k, const float* packed_panel, int rows, const float* b,
                          int ldb, const float* bias, float lo, float hi,
                          const InterleavedImage& out, const float* tail_panel) {
  const f32x4 vlo = Splat(lo), vhi = Splat(hi);
  const int full = n / kGemmNr * kGemmNr;
  int y = 0, x = 0;  // the image pixel of column j
  for (int j = 0; j < full; j += kGemmNr) {
    TileSums<2> t = MultiplyTile<2>(k, packed_panel, b + j, ldb,
                                    StartingSums<2>(rows, kGemmNr, bias, nullptr, 0));
    StoreInterleaved(t, kGemmNr, y, x, vlo, vhi, out);
    x += kGemmNr;
    while (x >= out.width) {
      x -= out.width;
      ++y;
    }
  }
  if (full + 1 == n) {  // the column's four rows are the pixel's four channels
    StorePixel(
        out, y, x,
        Clamp(ColumnSums(k, packed_panel, tail_panel, kGemmNr, rows, bias, nullptr, 0), vlo, vhi));
  } else if (full < n) {
    TileSums<2> t = MultiplyTile<2>(k, packed_panel, tail_panel, kGemmNr,
                                    StartingSums<2>(rows, kGemmNr, bias, nullptr, 0));
    StoreInterleaved(t, n - full, y, x, vlo, vhi, out);
  }
}

namespace {

// GemmImpl over the whole depth, or pass by pass (DepthPass) when A has whole panels and k is
// over kPassesFrom: every pass but the last stores bare sums (the bias is where the first
// starts from), the last applies the epilogue.
void RunInPasses(int m, int n, int k, const float* packed_a, const float* b, size_t column_step,
                 int ldb, int full, const float* tail, float* c, int ldc, const GemmEpilogue& ep) {
  const int passes = m >= kGemmMr && k > kPassesFrom ? (k + kPassDepth - 1) / kPassDepth : 1;
  GemmEpilogue sums;  // what a pass before the last applies
  sums.bias = ep.bias;
  for (int p = 0; p < passes; ++p) {
    const int begin = static_cast<int>(static_cast<int64_t>(k) * p / passes);
    const int end = static_cast<int>(static_cast<int64_t>(k) * (p + 1) / passes);
    const DepthPass pass{begin, end - begin, p > 0};
    const GemmEpilogue& applied = p + 1 == passes ? ep : sums;
    if (NeedsClamp(applied)) {
      GemmImpl<true>(m, n, k, packed_a, b, column_step, ldb, full, tail, c, ldc, applied, pass);
    } else {
      GemmImpl<false>(m, n, k, packed_a, b, column_step, ldb, full, tail, c, ldc, applied, pass);
    }
  }
}

}  // namespace

int GemmColumnBlock(int k) {
  // About 128 KiB of packed B per block and pass: L2-resident while every row panel of A passes
  // over it.
  const int pass_depth = k > kPassesFrom ? kPassDepth : k;
  const int cols = (32768 / std::max(pass_depth, 1)) / kGemmNr * kGemmNr;
  return std::max(kGemmNr, std::min(cols, 1024));
}

void GemmPacked(int m, int n, int k, const float* packed_a, const float* packed_b, float* c,
                int ldc, const GemmEpilogue& ep) {
  const int full = n / kGemmNr * kGemmNr;
  const float* tail = packed_b + static_cast<size_t>(full) * k;
  RunInPasses(m, n, k, packed_a, packed_b, k, kGemmNr, full, tail, c, ldc, ep);
}

void GemmUnpackedRhs(int m, int n, int k, const float* packed_a, const float* b, int ldb, float* c,
                     int ldc, const GemmEpilogue& ep, float* tail_panel) {
  const int full = n / kGemmNr * kGemmNr;
  if (full < n) PackRhs(b + full, k, n - full, ldb, tail_panel);
  RunInPasses(m, n, k, packed_a, b, 1, ldb, full, tail_panel, c, ldc, ep);
}

namespace {

// y[j + r] = clamp(bias + dot(x, w_{j+r})) for kRows weight rows at once: each load of x serves
// them all, and kRows streams of weights are in flight (the classifier's weights come from
// DRAM: 8 rows were 10% faster than 4 with them out of cache). Each variant is a function of its
// own: the zoo's classifiers (1000 and 1024 outputs) only run the 8-row one, and V8 recompiles
// just that (all three inlined into GemmTransposedRhs took it 20-70 ms).
template <int kRows>
WEBNX_SEPARATE_FUNCTION void DotRows(int k, const float* xi, const float* w, int ldw, int j,
                                     float* yi, const GemmEpilogue& ep) {
  const int k4 = k & ~3;
  const float* wr[kRows];
  for (int r = 0; r < kRows; ++r) wr[r] = w + static_cast<size_t>(j + r) * ldw;
  f32x4 acc[kRows];
  for (int r = 0; r < kRows; ++r) acc[r] = Splat(0.f);
  for (int kk = 0; kk < k4; kk += 4) {
    const f32x4 xv = Load(xi + kk);
    for (int r = 0; r < kRows; ++r) acc[r] = MulAdd(acc[r], xv, Load(wr[r] + kk));
  }
  for (int r = 0; r < kRows; ++r) {
    float s = HorizontalSum(acc[r]);
    WEBNX_PLAIN_LOOP
    for (int kk = k4; kk < k; ++kk) s += xi[kk] * wr[r][kk];
    yi[j + r] = ClampScalar((ep.bias ? ep.bias[j + r] : 0.f) + s, ep.min, ep.max);
  }
}

}  // namespace

void GemmTransposedRhs(int m, int n, int k, const float* x, int ldx, const float* w, int ldw,
                       float* y, int ldy, const GemmEpilogue& ep) {
  for (int i = 0; i < m; ++i) {
    const float* xi = x + static_cast<size_t>(i) * ldx;
    float* yi = y + static_cast<size_t>(i) * ldy;
    int j = 0;
    for (; j + 8 <= n; j += 8) DotRows<8>(k, xi, w, ldw, j, yi, ep);
    for (; j + 4 <= n; j += 4) DotRows<4>(k, xi, w, ldw, j, yi, ep);
    for (; j < n; ++j) DotRows<1>(k, xi, w, ldw, j, yi, ep);
  }
}

}  // namespace webnx::simd
