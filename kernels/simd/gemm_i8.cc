#include "kernels/simd/gemm_i8.h"

#include <algorithm>
#include <cstring>

#include "kernels/quant_params.h"
#include "kernels/simd/i32_row_store.h"
#include "kernels/simd/quantize_u8.h"

namespace webnx::simd {
namespace {

// 8-bit data of either signedness through one code path: a byte b read as unsigned is
// (b ^ flip) - flip as int8 with flip = 0x80, and as uint8 with flip = 0; minus a zero point z
// that is (b ^ flip) - (flip + z): one xor and one subtract per eight values.
inline int FlipFor(DType dtype) {
  return dtype == DType::kInt8 ? 0x80 : 0;
}
inline v128_t LoadLess(const uint8_t* p, v128_t flip, v128_t offset) {
  return wasm_i16x8_sub(wasm_v128_xor(wasm_u16x8_load8x8(p), flip), offset);
}
inline int16_t Less(uint8_t b, int flip, int32_t offset) {
  return static_cast<int16_t>((b ^ flip) - offset);
}

// One panel's pair of rows (k, k + 1) from rows r0 and r1, `cols` columns; a missing row (r1
// null, K odd) or column is 0.
void PackPair(const uint8_t* r0, const uint8_t* r1, const int32_t* zp, int cols, int flip,
              int16_t* out) {
  WEBNX_PLAIN_LOOP
  for (int c = 0; c < kI8PanelCols; ++c) {
    out[2 * c] = c < cols ? Less(r0[c], flip, flip + zp[c]) : 0;
    out[2 * c + 1] = c < cols && r1 ? Less(r1[c], flip, flip + zp[c]) : 0;
  }
}

constexpr int kTileRows = 4;
constexpr int64_t kDepthBlock = 512;  // k values per pass: a tile's rows then hold 4 KB

// kRows rows of the rows operand (`row_stride` apart) against one panel over kc k values: two
// dot products per row and k pair. Rows from `valid` on are not stored.
template <int kRows>
void Tile(int64_t kc, const int16_t* rows, int64_t row_stride, const int16_t* panel, int32_t* out,
          int64_t ldo, int cols, int valid, bool accumulate) {
  v128_t acc[kRows][2];
  for (int r = 0; r < kRows; ++r) acc[r][0] = acc[r][1] = wasm_i32x4_splat(0);
  const int stride = static_cast<int>(row_stride);
  auto step = [&](int p) {  // one pair of k values
    const v128_t b0 = wasm_v128_load(panel + p * 16);
    const v128_t b1 = wasm_v128_load(panel + p * 16 + 8);
    for (int r = 0; r < kRows; ++r) {
      const v128_t a = wasm_v128_load32_splat(rows + r * stride + 2 * p);
      acc[r][0] = wasm_i32x4_add(acc[r][0], wasm_i32x4_dot_i16x8(a, b0));
      acc[r][1] = wasm_i32x4_add(acc[r][1], wasm_i32x4_dot_i16x8(a, b1));
    }
  };
  const int pairs = static_cast<int>(kc / 2);  // kc <= kDepthBlock: an int counter
  for (int p = 0; p < pairs; ++p) step(p);
  for (int r = 0; r < valid; ++r) StoreRow(out + r * ldo, acc[r][0], acc[r][1], cols, accumulate);
}

// One block of rows and depth [k0, k0 + kc) against panels [begin, end): the rows' block stays
// in L1 while the panels stream past it. A single row (a classifier's, batch 1) takes a tile of
// its own: in one of 4 rows, 3 of every 4 dot products would be dropped.
WEBNX_SEPARATE_FUNCTION void RowBlock(int64_t kp, int64_t k0, int64_t kc, const int16_t* rows,
                                      int64_t row_stride, int valid, const int16_t* panels,
                                      int64_t begin, int64_t end, int64_t n_total, int32_t* out,
                                      int64_t ldo) {
  for (int64_t panel = begin; panel < end; ++panel) {
    const int64_t n0 = panel * kI8PanelCols;
    const int cols = static_cast<int>(std::min<int64_t>(kI8PanelCols, n_total - n0));
    const int16_t* panel_block = panels + panel * kp * kI8PanelCols + k0 * kI8PanelCols;
    if (valid == 1) {
      Tile<1>(kc, rows, row_stride, panel_block, out + n0, ldo, cols, 1, k0 > 0);
    } else {
      Tile<kTileRows>(kc, rows, row_stride, panel_block, out + n0, ldo, cols, valid, k0 > 0);
    }
  }
}

}  // namespace

void PackRowsI16(const void* src, DType dtype, int64_t rows, int64_t k, int64_t stride,
                 ZeroPoints zero_points, int16_t* dst) {
  const int flip = FlipFor(dtype);
  const v128_t flip_v = wasm_i16x8_splat(static_cast<int16_t>(flip));
  const int64_t kp = PairedDepth(k);
  for (int64_t r = 0; r < rows; ++r) {
    const uint8_t* row = static_cast<const uint8_t*>(src) + r * stride;
    int16_t* out = dst + r * kp;
    const int32_t offset = flip + zero_points.at(r);
    const v128_t offset_v = wasm_i16x8_splat(static_cast<int16_t>(offset));
    int64_t i = 0;
    WEBNX_NO_UNROLL
    for (; i + 8 <= k; i += 8) wasm_v128_store(out + i, LoadLess(row + i, flip_v, offset_v));
    WEBNX_PLAIN_LOOP
    for (; i < k; ++i) out[i] = Less(row[i], flip, offset);
    if (kp != k) out[k] = 0;
  }
}

void PackPanelsI16(const void* src_data, DType dtype, int64_t k, int64_t n, int64_t stride,
                   ZeroPoints zero_points, int16_t* dst) {
  const auto* src = static_cast<const uint8_t*>(src_data);
  const int flip = FlipFor(dtype);
  const v128_t flip_v = wasm_i16x8_splat(static_cast<int16_t>(flip));
  const int64_t kp = PairedDepth(k);
  for (int64_t panel = 0; panel < ColumnPanels(n); ++panel) {
    int16_t* out = dst + panel * kp * kI8PanelCols;
    const int64_t n0 = panel * kI8PanelCols;
    const int cols = static_cast<int>(std::min<int64_t>(kI8PanelCols, n - n0));
    int32_t zp[kI8PanelCols];
    WEBNX_PLAIN_LOOP
    for (int c = 0; c < kI8PanelCols; ++c) zp[c] = c < cols ? zero_points.at(n0 + c) : 0;
    const v128_t offset_v =
        wasm_i16x8_add(wasm_i16x8_narrow_i32x4(wasm_v128_load(zp), wasm_v128_load(zp + 4)), flip_v);
    int64_t i = 0;
    if (cols == kI8PanelCols) {
      // Rows k and k + 1 interleaved: the dot instruction's pairs, eight columns.
      WEBNX_NO_UNROLL
      for (; i + 2 <= k; i += 2, out += 2 * kI8PanelCols) {
        const v128_t a = LoadLess(src + i * stride + n0, flip_v, offset_v);
        const v128_t b = LoadLess(src + (i + 1) * stride + n0, flip_v, offset_v);
        wasm_v128_store(out, wasm_i16x8_shuffle(a, b, 0, 8, 1, 9, 2, 10, 3, 11));
        wasm_v128_store(out + 8, wasm_i16x8_shuffle(a, b, 4, 12, 5, 13, 6, 14, 7, 15));
      }
    }
    WEBNX_PLAIN_LOOP
    for (; i < k; i += 2, out += 2 * kI8PanelCols) {
      const uint8_t* r0 = src + i * stride + n0;
      PackPair(r0, i + 1 < k ? r0 + stride : nullptr, zp, cols, flip, out);
    }
  }
}

void GemmI16(int64_t rows_count, int64_t kp, const int16_t* rows, const int16_t* panels,
             int64_t panel_begin, int64_t panel_end, int64_t n_total, int32_t* out, int64_t ldo) {
  for (int64_t k0 = 0; k0 < kp; k0 += kDepthBlock) {
    const int64_t kc = std::min(kDepthBlock, kp - k0);
    for (int64_t r = 0; r < rows_count; r += kTileRows) {
      const int valid = static_cast<int>(std::min<int64_t>(kTileRows, rows_count - r));
      RowBlock(kp, k0, kc, rows + r * kp + k0, kp, valid, panels, panel_begin, panel_end, n_total,
               out + r * ldo, ldo);
    }
  }
}

void GemmI16Reference(int64_t rows_count, int64_t kp, const int16_t* rows, const int16_t* panels,
                      int64_t panel_begin, int64_t panel_end, int64_t n_total, int32_t* out,
                      int64_t ldo) {
  for (int64_t panel = panel_begin; panel < panel_end; ++panel) {
    const int16_t* b = panels + panel * kp * kI8PanelCols;
    for (int64_t c = 0; c < kI8PanelCols && panel * kI8PanelCols + c < n_total; ++c) {
      for (int64_t r = 0; r < rows_count; ++r) {
        uint32_t sum = 0;  // wraps as int32 accumulators do, without overflow
        for (int64_t i = 0; i < kp; ++i) {
          const int32_t product = rows[r * kp + i] * b[(i / 2) * 16 + c * 2 + i % 2];
          sum += static_cast<uint32_t>(product);
        }
        out[r * ldo + panel * kI8PanelCols + c] = static_cast<int32_t>(sum);
      }
    }
  }
}

void RequantizeRow(const int32_t* acc, int64_t n, int32_t bias, const float* multiplier,
                   bool one_multiplier, int32_t zero_point, DType dtype, void* y) {
  const bool is_signed = dtype == DType::kInt8;
  const float lo = (is_signed ? -128.0f : 0.0f) - static_cast<float>(zero_point);
  const float hi = (is_signed ? 127.0f : 255.0f) - static_cast<float>(zero_point);
  const v128_t lo_v = wasm_f32x4_splat(lo), hi_v = wasm_f32x4_splat(hi);
  const v128_t bias_v = wasm_i32x4_splat(bias), zp_v = wasm_i32x4_splat(zero_point);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    v128_t q[4];
    for (int j = 0; j < 4; ++j) {
      const v128_t mult =
          one_multiplier ? wasm_f32x4_splat(multiplier[0]) : wasm_v128_load(multiplier + i + 4 * j);
      const v128_t sums = wasm_i32x4_add(wasm_v128_load(acc + i + 4 * j), bias_v);
      q[j] = RoundSaturate(wasm_f32x4_mul(wasm_f32x4_convert_i32x4(sums), mult), lo_v, hi_v, zp_v);
    }
    StoreBytes(q, is_signed, static_cast<uint8_t*>(y) + i);
  }
  const int32_t q_lo = is_signed ? -128 : 0, q_hi = is_signed ? 127 : 255;
  WEBNX_PLAIN_LOOP
  for (; i < n; ++i) {  // the scalar reference's arithmetic, which the vectors reproduce
    const float v = static_cast<float>(static_cast<int32_t>(static_cast<uint32_t>(acc[i]) +
                                                            static_cast<uint32_t>(bias))) *
                    multiplier[one_multiplier ? 0 : i];
    static_cast<uint8_t*>(y)[i] = static_cast<uint8_t>(quant::Saturate(v, zero_point, q_lo, q_hi));
  }
}

void DequantizeRow(const int32_t* acc, int64_t n, const DequantizeArgs& args, float* y) {
  // The arguments in locals: read through `args` the loop would reload them after every store.
  const f32x4 lo = Splat(args.lo), hi = Splat(args.hi);
  const float* scales = args.scale;
  const float* biases = args.bias;
  const float* addend = args.addend;
  const bool one_scale = args.one_scale, one_bias = args.one_bias, clamp = args.clamp;
  // No bias adds -0, which changes no value (not even -0): no loop of its own.
  const f32x4 scale_all = Splat(scales[0]), bias_all = Splat(biases ? biases[0] : -0.f);
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const f32x4 scale = one_scale ? scale_all : Load(scales + i);
    const f32x4 bias = one_bias || !biases ? bias_all : Load(biases + i);
    Store(y + i, DequantizeFour(wasm_v128_load(acc + i), scale, &bias,
                                addend ? addend + i : nullptr, clamp, lo, hi));
  }
  WEBNX_PLAIN_LOOP
  for (; i < n; ++i) {  // the same operations on one value
    float v = static_cast<float>(acc[i]) * scales[one_scale ? 0 : i];
    v += biases ? biases[one_bias ? 0 : i] : -0.f;
    if (addend) v += addend[i];
    if (clamp) {  // as Clamp: PMax(lo, v), then PMin(hi, ·); NaN gives lo
      v = args.lo < v ? v : args.lo;
      v = v < args.hi ? v : args.hi;
    }
    y[i] = v;
  }
}

}  // namespace webnx::simd
