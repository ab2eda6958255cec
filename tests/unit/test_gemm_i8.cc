// The int8 SIMD GEMM (kernels/simd/gemm_i8.h) against its scalar reference and a direct loop
// over the 8-bit operands, on odd shapes; its requantization against quant::Saturate; and the
// integer convolutions and products built on it against direct loops (constant and per-run
// operands, groups, strides, dilations, pads, batch broadcast, 1 and 2 threads).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "kernels/quant_params.h"
#include "kernels/simd/dot_i8.h"
#include "kernels/simd/dwconv_i8.h"
#include "kernels/simd/gemm_i8.h"
#include "kernels/simd/gemm_i8_quads.h"
#include "kernels/simd/quantize_u8.h"
#include "tests/unit/op_runner.h"

namespace webnx::testing {
namespace {

std::vector<uint8_t> RandomBytes(std::mt19937& rng, size_t n) {
  std::uniform_int_distribution<int> byte(0, 255);
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = static_cast<uint8_t>(byte(rng));
  return v;
}

int32_t Value(const uint8_t* p, DType dtype) {
  return dtype == DType::kInt8 ? static_cast<int8_t>(*p) : *p;
}

std::vector<int32_t> ZeroPointValues(std::mt19937& rng, DType dtype, size_t n) {
  std::vector<int32_t> zp(n);
  for (auto& z : zp) z = Value(RandomBytes(rng, 1).data(), dtype);
  return zp;
}

// The direct loop over 8-bit operands minus their zero points (rows m x k, columns k x n).
std::vector<int32_t> DirectProduct(const std::vector<uint8_t>& a, DType a_type,
                                   const std::vector<int32_t>& a_zp, const std::vector<uint8_t>& b,
                                   DType b_type, const std::vector<int32_t>& b_zp, int64_t m,
                                   int64_t k, int64_t n) {
  std::vector<int32_t> direct(m * n);
  for (int64_t r = 0; r < m; ++r) {
    for (int64_t c = 0; c < n; ++c) {
      int32_t sum = 0;
      for (int64_t i = 0; i < k; ++i) {
        sum += (Value(&a[r * k + i], a_type) - a_zp[r]) * (Value(&b[i * n + c], b_type) - b_zp[c]);
      }
      direct[r * n + c] = sum;
    }
  }
  return direct;
}

TEST(GemmI8, MatchesReferenceAndDirectLoopOnOddShapes) {
  std::mt19937 rng(7);
  for (DType a_type : {DType::kUint8, DType::kInt8}) {
    for (DType b_type : {DType::kUint8, DType::kInt8}) {
      for (int64_t m : {1, 3, 4, 5, 9}) {
        for (int64_t k : {1, 2, 7, 16, 37, 1100}) {
          for (int64_t n : {1, 7, 8, 9, 19}) {
            const auto a = RandomBytes(rng, m * k), b = RandomBytes(rng, k * n);
            const auto a_zp = ZeroPointValues(rng, a_type, m),
                       b_zp = ZeroPointValues(rng, b_type, n);
            const int64_t kp = simd::PairedDepth(k);
            std::vector<int16_t> rows((m + simd::kRowsOverread) * kp),
                panels(simd::PanelsSize(k, n));
            simd::PackRowsI16(a.data(), a_type, m, k, k, {a_zp.data(), 0}, rows.data());
            simd::PackPanelsI16(b.data(), b_type, k, n, n, {b_zp.data(), 0}, panels.data());
            std::vector<int32_t> got(m * n, -1), reference(m * n, -2);
            const int64_t count = simd::ColumnPanels(n);
            simd::GemmI16(m, kp, rows.data(), panels.data(), 0, count, n, got.data(), n);
            simd::GemmI16Reference(m, kp, rows.data(), panels.data(), 0, count, n, reference.data(),
                                   n);
            ASSERT_EQ(got, reference) << m << "x" << k << "x" << n;
            ASSERT_EQ(got, DirectProduct(a, a_type, a_zp, b, b_type, b_zp, m, k, n))
                << m << "x" << k << "x" << n;
          }
        }
      }
    }
  }
}

#ifndef __EMSCRIPTEN__  // the relaxed dot emulated: natively only
// Restores the emulated dot gtest runs everything else with.
struct EmulatedDotScope {
  explicit EmulatedDotScope(simd::DotKind kind) { simd::EmulateDotForTesting(kind); }
  ~EmulatedDotScope() { simd::EmulateDotForTesting(simd::DotKind::kUnsignedSecond); }
};

TEST(GemmI8, ProbeTellsTheEnginesDotKind) {
  for (simd::DotKind kind :
       {simd::DotKind::kUnsignedSecond, simd::DotKind::kSignedSecond, simd::DotKind::kNone}) {
    EmulatedDotScope scope(kind);
    EXPECT_EQ(simd::EngineDot(), kind);
    EXPECT_EQ(simd::FastestForm(),
              kind == simd::DotKind::kNone ? simd::I8Form::kPairs : simd::I8Form::kQuads);
  }
}

// Both packed forms, under both exact dot kinds, against the direct loop: odd shapes, depths
// past the quads' depth block, zero points per row and column or one for all (an activation's:
// the quads' correction then takes each row's term once), a subset of the panels.
TEST(GemmI8, BothFormsMatchTheDirectLoopUnderEitherDotKind) {
  std::mt19937 rng(19);
  for (simd::DotKind kind : {simd::DotKind::kUnsignedSecond, simd::DotKind::kSignedSecond}) {
    EmulatedDotScope scope(kind);
    for (simd::I8Form form : {simd::I8Form::kPairs, simd::I8Form::kQuads}) {
      for (DType a_type : {DType::kUint8, DType::kInt8}) {
        for (DType b_type : {DType::kUint8, DType::kInt8}) {
          for (int64_t m : {1, 2, 4, 5, 11}) {
            for (int64_t k : {1, 3, 4, 5, 17, 33, 1027, 2050}) {
              for (int64_t n : {1, 8, 13, 24}) {
                const auto a = RandomBytes(rng, m * k), b = RandomBytes(rng, k * n);
                auto a_zp = ZeroPointValues(rng, a_type, m), b_zp = ZeroPointValues(rng, b_type, n);
                const int shared = static_cast<int>(rng() % 4);  // bit 0: a's, bit 1: b's
                if (shared & 1) std::fill(a_zp.begin(), a_zp.end(), a_zp[0]);
                if (shared & 2) std::fill(b_zp.begin(), b_zp.end(), b_zp[0]);
                std::vector<uint8_t> rows(simd::RowsBytes(form, m, k)),
                    panels(simd::PanelsBytes(form, k, n));
                simd::PackRows(form, a.data(), a_type, m, k, k, {a_zp.data(), 0}, rows.data());
                simd::PackPanels(form, b.data(), b_type, k, n, n, {b_zp.data(), 0}, panels.data());
                // Panels from 1 on, then panel 0: a thread's share of the columns at a time.
                const int64_t count = simd::ColumnPanels(n);
                std::vector<int32_t> got(m * n, -1);
                simd::Gemm(form, m, k, rows.data(), panels.data(), 1, count, n, got.data(), n);
                simd::Gemm(form, m, k, rows.data(), panels.data(), 0, 1, n, got.data(), n);
                ASSERT_EQ(got, DirectProduct(a, a_type, a_zp, b, b_type, b_zp, m, k, n))
                    << static_cast<int>(kind) << " " << static_cast<int>(form) << " " << m << "x"
                    << k << "x" << n;
              }
            }
          }
        }
      }
    }
  }
}

// The relaxed product with RequantizeRowsToU8 done in its tiles gives the bytes of the product's
// sums requantized after it: both dot kinds, row counts around the tile's 4, depths around the
// quad and up to one pass, narrow last panels, a subset of the panels, with and without biases,
// clamps that cut the range or not. Bytes outside the written rows and columns stay as they were.
TEST(GemmI8, RequantizedInTilesIsRequantizedAfter) {
  std::mt19937 rng(23);
  std::uniform_real_distribution<float> unit(0.f, 1.f);
  for (simd::DotKind kind : {simd::DotKind::kUnsignedSecond, simd::DotKind::kSignedSecond}) {
    EmulatedDotScope scope(kind);
    for (int64_t m : {1, 3, 4, 9}) {
      for (int64_t k : {1, 5, 16, 27, 1024}) {
        for (int64_t n : {5, 16, 37}) {
          const auto a = RandomBytes(rng, m * k), b = RandomBytes(rng, k * n);
          const auto a_zp = ZeroPointValues(rng, DType::kInt8, m);
          const std::vector<int32_t> b_zp(n, 37);
          const simd::I8Form form = simd::I8Form::kQuads;
          std::vector<uint8_t> rows(simd::RowsBytes(form, m, k)),
              panels(simd::PanelsBytes(form, k, n));
          simd::PackRows(form, a.data(), DType::kInt8, m, k, k, {a_zp.data(), 0}, rows.data());
          simd::PackPanels(form, b.data(), DType::kUint8, k, n, n, {b_zp.data(), 0}, panels.data());
          std::vector<float> scales(m), biases(m);
          for (int64_t r = 0; r < m; ++r)
            scales[r] = 1e-4f + 1e-3f * unit(rng), biases[r] = unit(rng) - 0.5f;
          const float scale = 0.02f + 0.05f * unit(rng);
          const int32_t zero_point = static_cast<int32_t>(rng() % 256);
          for (bool with_bias : {false, true}) {
            for (float clamp_hi : {std::numeric_limits<float>::infinity(), 0.7f}) {
              float lo, hi;
              simd::QuotientBounds(0.f, clamp_hi, scale, zero_point, &lo, &hi);
              // After the product: sums, then the output stage on panels [1, count).
              const int64_t count = simd::ColumnPanels(n), first = simd::kI8PanelCols;
              std::vector<int32_t> sums(m * n, 0);
              simd::Gemm(form, m, k, rows.data(), panels.data(), 1, count, n, sums.data(), n);
              std::vector<uint8_t> want(m * n, 99), got(m * n, 99);
              const simd::RequantizeRows after{sums.data() + first,
                                               n,
                                               scales.data(),
                                               with_bias ? biases.data() : nullptr,
                                               want.data() + first,
                                               n,
                                               m,
                                               n - first};
              if (n > first) simd::RequantizeRowsToU8(after, scale, lo, hi, zero_point);
              const simd::QuadsRequantize in_tiles{
                  scales.data(), with_bias ? biases.data() : nullptr, got.data(), n, scale, lo, hi,
                  zero_point};
              simd::GemmQuadsRequantized(m, k, rows.data(), panels.data(), 1, count, n, in_tiles);
              ASSERT_EQ(got, want) << static_cast<int>(kind) << " " << m << "x" << k << "x" << n
                                   << " bias " << with_bias << " clamp " << clamp_hi;
            }
          }
        }
      }
    }
  }
}
#endif

TEST(GemmI8, RequantizeRowMatchesSaturate) {
  std::mt19937 rng(11);
  std::uniform_int_distribution<int32_t> sums(-3000000, 3000000);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  for (DType dtype : {DType::kUint8, DType::kInt8}) {
    for (int64_t n : {1, 15, 16, 17, 40}) {
      std::vector<int32_t> acc(n);
      std::vector<float> mult(n);
      for (int64_t i = 0; i < n; ++i) {
        acc[i] = i % 7 == 3 ? std::numeric_limits<int32_t>::max() : sums(rng);
        mult[i] = i % 5 == 1 ? 0.5f : 1e-4f * (1 + i);  // 0.5: ties to even
        if (i == 13) mult[i] = nan;
        if (i == 14) mult[i] = inf;
        if (i % 5 == 1) acc[i] = 2 * i + 1;
      }
      const int32_t zp = dtype == DType::kInt8 ? -3 : 131, bias = 5;
      int32_t lo = 0, hi = 0;
      quant::QuantRange(dtype, &lo, &hi);
      std::vector<uint8_t> got(n);
      simd::RequantizeRow(acc.data(), n, bias, mult.data(), false, zp, dtype, got.data());
      for (int64_t i = 0; i < n; ++i) {
        const float v = static_cast<float>(static_cast<int32_t>(static_cast<uint32_t>(acc[i]) +
                                                                static_cast<uint32_t>(bias))) *
                        mult[i];
        EXPECT_EQ(static_cast<uint8_t>(quant::Saturate(v, zp, lo, hi)), got[i]) << i;
      }
    }
  }
}

TEST(GemmI8, DynamicQuantizationMatchesItsFormula) {
  std::mt19937 rng(13);
  std::normal_distribution<float> normal(0.f, 3.f);
  for (int64_t n : {1, 5, 16, 37}) {
    std::vector<float> x(n);
    for (auto& v : x) v = normal(rng);
    x[n / 2] = 2.5f;  // a tie once scaled by 1
    if (n > 5) x[3] = std::numeric_limits<float>::quiet_NaN();
    float lo = 0.f, hi = 0.f;
    for (float v : x) lo = std::min(lo, v), hi = std::max(hi, v);
    float scale = 0.f;
    int32_t zp = 0;
    quant::DynamicParams(x.data(), n, &scale, &zp);
    EXPECT_EQ(scale, hi == lo ? 1.f : (hi - lo) / 255.f);
    EXPECT_EQ(zp, quant::Saturate(0.f - lo / scale, 0, 0, 255));
    for (float s : {scale, 1.f}) {
      std::vector<uint8_t> q(n);
      simd::QuantizeU8(x.data(), n, s, zp, q.data());
      for (int64_t i = 0; i < n; ++i) EXPECT_EQ(q[i], quant::Saturate(x[i] / s, zp, 0, 255)) << i;
    }
  }
}

// QuantizeU8's SIMD rounding (clamp, then the 1.5 * 2^23 sum) against the scalar Saturate on
// the values where it could go wrong: ties, both sides of every bound, -0, denormals, huge
// values, infinities and NaN, each zero point's range.
TEST(GemmI8, QuantizeU8RoundsAndSaturatesAsTheScalarFormula) {
  std::vector<float> x;
  for (int k = -300; k <= 300; ++k) {
    for (float d : {-0.5f, -0.49999997f, 0.f, 0.49999997f, 0.5f, 0.50000006f})
      x.push_back(static_cast<float>(k) + d);
  }
  const float inf = std::numeric_limits<float>::infinity();
  for (float v : {-0.f, 1e-40f, -1e-40f, 3e38f, -3e38f, 8388607.5f, 4194304.5f, -4194304.5f, inf,
                  -inf, std::numeric_limits<float>::quiet_NaN()})
    x.push_back(v);
  while (x.size() % 16 != 0) x.push_back(0.25f);
  for (int32_t zp : {0, 1, 128, 254, 255}) {
    for (float scale : {1.f, 0.5f, 3.f}) {
      std::vector<uint8_t> q(x.size());
      simd::QuantizeU8(x.data(), static_cast<int64_t>(x.size()), scale, zp, q.data());
      for (size_t i = 0; i < x.size(); ++i)
        ASSERT_EQ(q[i], quant::Saturate(x[i] / scale, zp, 0, 255)) << x[i] << " zp " << zp;
    }
  }
  // Random scales, values whose quotients lie within units in the last place of halves.
  std::mt19937 rng(41);
  std::uniform_real_distribution<float> unit(0.f, 1.f);
  for (int trial = 0; trial < 200; ++trial) {
    const float scale = std::pow(10.f, -3.f + 3.f * unit(rng));
    std::vector<float> near_halves(64);
    for (size_t i = 0; i < near_halves.size(); ++i) {
      const float half = std::floor(unit(rng) * 300.f) - 150.f + 0.5f;
      near_halves[i] = std::nextafter(half * scale, i % 2 ? INFINITY : -INFINITY);
      for (size_t step = 0; step < i % 4; ++step)
        near_halves[i] = std::nextafter(near_halves[i], i % 3 ? INFINITY : -INFINITY);
    }
    for (bool is_signed : {false, true}) {
      const int32_t zp = is_signed ? -3 : 128;
      std::vector<uint8_t> q(near_halves.size());
      simd::QuantizeBytes(near_halves.data(), 64, scale, zp, is_signed, q.data());
      for (size_t i = 0; i < q.size(); ++i) {
        const int32_t got = is_signed ? static_cast<int8_t>(q[i]) : q[i];
        ASSERT_EQ(got, quant::Saturate(near_halves[i] / scale, zp, is_signed ? -128 : 0,
                                       is_signed ? 127 : 255))
            << "scale " << scale << " x " << near_halves[i];
      }
    }
  }
  // The same to int8 (QuantizeLinear's SIMD runs), the tail past the last 16 values included.
  x.resize(x.size() - 5);
  for (int32_t zp : {-128, -1, 0, 77, 127}) {
    std::vector<uint8_t> q(x.size());
    simd::QuantizeBytes(x.data(), static_cast<int64_t>(x.size()), 0.5f, zp, true, q.data());
    for (size_t i = 0; i < x.size(); ++i) {
      ASSERT_EQ(static_cast<int8_t>(q[i]), quant::Saturate(x[i] / 0.5f, zp, -128, 127))
          << x[i] << " zp " << zp;
    }
  }
}

// The 8-bit handoff between QDQ products: bitwise DequantizeRow then QuantizeU8, over lengths
// around its SIMD width, with and without a bias and a clamp, NaN, -0 and ties.
TEST(GemmI8, DequantizeRowToU8IsDequantizeThenQuantize) {
  std::mt19937 rng(17);
  std::uniform_int_distribution<int32_t> sums(-600, 600);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // (dequantizing scale, quantizing scale): 0.25 and 0.5 make every odd sum a tie and cross
  // both saturation bounds; the other pair is a layer's.
  const std::pair<float, float> scales[] = {{0.25f, 0.5f}, {3.1e-4f, 0.0125f}};
  for (int64_t n : {1, 3, 4, 15, 17, 256, 701}) {
    std::vector<int32_t> acc(n);
    for (auto& a : acc) a = sums(rng);
    for (auto [dequantize_scale, quantize_scale] : scales) {
      for (const float* bias : {static_cast<const float*>(nullptr), &scales[1].first, &nan}) {
        for (bool clamp : {false, true}) {
          const simd::DequantizeArgs args{&dequantize_scale, true,  bias,  true,
                                          nullptr,           clamp, -20.f, 60.f};
          std::vector<float> row(n);
          std::vector<uint8_t> want(n), got(n);
          simd::DequantizeRow(acc.data(), n, args, row.data());
          simd::QuantizeU8(row.data(), n, quantize_scale, 37, want.data());
          simd::DequantizeRowToU8(acc.data(), n, args, quantize_scale, 37, got.data());
          EXPECT_EQ(want, got) << "n " << n << ", clamp " << clamp;
        }
      }
    }
  }
}

// The int8 depthwise conv's paired phase planes, element by element, on rows wide enough for
// the vector paths (stride 2 splits each 16 input bytes between the two phases): strides 1 to
// 3, dilations 1 and 2 (pairs start every row, every other row, or as their gcd says), pads 0
// to 3, both signednesses.
TEST(GemmI8, PairedPlanesHoldEachInputColumn) {
  std::mt19937 rng(37);
  for (int64_t stride : {1, 2, 3}) {
    for (int64_t dilation : {1, 2}) {
      for (int64_t pad : {0, 1, 2, 3}) {
        for (int64_t w_in : {16, 33, 40, 57}) {
          nn::WindowAxis h, w;
          h.in = 7, h.kernel = 3, h.stride = stride, h.dilation = dilation;
          h.pad_begin = h.pad_end = pad;
          h.out = (h.in + 2 * pad - h.dilated_kernel()) / stride + 1;
          w = h, w.in = w_in;
          w.out = (w.in + 2 * pad - w.dilated_kernel()) / stride + 1;
          const simd::DepthwiseI8Shape shape = simd::MakeDepthwiseI8Shape(h, w);
          const std::vector<uint8_t> x = RandomBytes(rng, h.in * w.in);
          auto value = [&](DType dtype, int64_t padded_row, int64_t p, int64_t j) {
            const int64_t ih = padded_row - pad, iw = j * stride + p - pad;
            if (ih < 0 || ih >= h.in || iw < 0 || iw >= w.in) return 0;
            const uint8_t b = x[ih * w.in + iw];
            return (dtype == DType::kInt8 ? static_cast<int8_t>(b) : b) - 5;
          };
          for (DType dtype : {DType::kUint8, DType::kInt8}) {
            std::vector<int16_t> rows(shape.RowsScratch(), 777), pairs(shape.PairsSize(), 777);
            simd::FillPairedPlanes(shape, x.data(), dtype, 5, rows.data(), pairs.data());
            for (int64_t p = 0; p < stride; ++p) {
              for (int64_t i = 0; i < shape.pair_rows; ++i) {
                for (int64_t j = 0; j < shape.phase_cols; ++j) {
                  const int16_t* at =
                      &pairs[((p * shape.pair_rows + i) * shape.phase_cols + j) * 2];
                  const int64_t r = i * shape.pair_step;
                  ASSERT_EQ(at[0], value(dtype, r, p, j))
                      << "stride " << stride << " dilation " << dilation << " pad " << pad << " w "
                      << w_in << " phase " << p << " pair " << i << " col " << j;
                  ASSERT_EQ(at[1], value(dtype, r + dilation, p, j)) << "second, pair " << i;
                }
              }
            }
          }
        }
      }
    }
  }
}

// DequantizeBytes against DequantizeLinear's scalar arithmetic, both signednesses, odd lengths.
TEST(GemmI8, DequantizeBytesIsDequantizeLinear) {
  std::mt19937 rng(31);
  for (int64_t n : {1, 15, 16, 17, 100, 333}) {
    const std::vector<uint8_t> x = RandomBytes(rng, n);
    for (bool is_signed : {false, true}) {
      for (int32_t zero_point : {0, 3, is_signed ? -128 : 255}) {
        std::vector<float> got(n);
        simd::DequantizeBytes(x.data(), n, is_signed, zero_point, 0.037f, got.data());
        for (int64_t i = 0; i < n; ++i) {
          const int32_t v = is_signed ? static_cast<int8_t>(x[i]) : x[i];
          EXPECT_EQ(got[i], static_cast<float>(v - zero_point) * 0.037f) << i;
        }
      }
    }
  }
}

// RequantizeRowsToU8 (one clamp of the quotient) gives DequantizeRowToU8's bytes: ties at every
// odd sum, random layer-like scales over the whole range, quotients within units in the last
// place of halves, clamps that meet the uint8 range, lie inside it or miss it on either side.
TEST(GemmI8, RequantizeRowsToU8IsDequantizeRowToU8) {
  std::mt19937 rng(29);
  std::uniform_int_distribution<int32_t> sums(-40000, 40000);
  std::uniform_real_distribution<float> unit(0.f, 1.f);
  const float inf = std::numeric_limits<float>::infinity();
  const std::pair<float, float> clamps[] = {{-inf, inf}, {0.f, 6.f},     {-20.f, 60.f},
                                            {3.f, 3.f},  {500.f, 900.f}, {-900.f, -500.f}};
  for (int trial = 0; trial < 400; ++trial) {
    // Trial 0: ties (every odd sum is a half). Even trials: a layer's scales, 1e-5 to 1e-2 per
    // unit of a sum and 1e-3 to 1e-1 per quantum. Odd ones: sums 3e-7 to 3e-6 quanta apart
    // around halves, where the product and the quotient can round apart.
    const bool near_halves = trial % 2 == 1;
    const float scale = trial == 0 ? 2.f : std::pow(10.f, -3.f + 2.f * unit(rng));
    const float dequantize_scale = trial == 0    ? 1.f
                                   : near_halves ? scale * std::pow(10.f, -6.5f + unit(rng))
                                                 : std::pow(10.f, -5.f + 3.f * unit(rng));
    const float bias = trial % 3 == 0 ? -0.f : (unit(rng) - 0.5f) * 4.f;
    const int32_t zero_point = (trial * 37) % 256;
    const int64_t n = 1 + trial % 67;
    std::vector<int32_t> acc(n);
    for (int64_t i = 0; i < n; ++i) {
      const double half = std::floor(unit(rng) * 255.f) - zero_point + 0.5;
      const double sum = (half * scale - bias) / dequantize_scale;
      acc[i] = near_halves
                   ? static_cast<int32_t>(std::llround(sum)) + static_cast<int32_t>(i % 7) - 3
                   : sums(rng);
    }
    for (auto [lo, hi] : clamps) {
      const bool clamp = std::isfinite(lo);
      float q_lo = 0.f, q_hi = 0.f;
      simd::QuotientBounds(lo, hi, scale, zero_point, &q_lo, &q_hi);
      // Two rows in one call, strided, the second with a scale and a bias of its own.
      const float row_scales[2] = {dequantize_scale, dequantize_scale * 1.5f};
      const float row_biases[2] = {bias, bias + 0.25f};
      std::vector<int32_t> rows_acc(2 * (n + 5));
      std::copy(acc.begin(), acc.end(), rows_acc.begin());
      std::copy(acc.begin(), acc.end(), rows_acc.begin() + n + 5);
      std::vector<uint8_t> got(2 * (n + 3));
      const simd::RequantizeRows rows{rows_acc.data(), n + 5, row_scales, row_biases,
                                      got.data(),      n + 3, 2,          n};
      simd::RequantizeRowsToU8(rows, scale, q_lo, q_hi, zero_point);
      for (int r = 0; r < 2; ++r) {
        const simd::DequantizeArgs args{
            &row_scales[r], true, &row_biases[r], true, nullptr, clamp, lo, hi};
        std::vector<uint8_t> want(n);
        simd::DequantizeRowToU8(acc.data(), n, args, scale, zero_point, want.data());
        ASSERT_EQ(want,
                  std::vector<uint8_t>(got.begin() + r * (n + 3), got.begin() + r * (n + 3) + n))
            << "trial " << trial << ", row " << r << ", clamp [" << lo << ", " << hi << "]";
      }
    }
  }
}

// A direct ConvInteger (2-D, NCHW) over widened operands.
std::vector<int32_t> DirectConv(const std::vector<uint8_t>& x, DType x_type, int32_t xz,
                                const std::vector<uint8_t>& w, DType w_type,
                                const std::vector<int32_t>& wz, const Shape& xs, const Shape& ws,
                                int64_t group, int64_t stride, int64_t pad, int64_t dil,
                                Shape* ys) {
  const int64_t n = xs[0], c = xs[1], h = xs[2], wd = xs[3], m = ws[0], kh = ws[2], kw = ws[3];
  const int64_t oh = (h + 2 * pad - (kh - 1) * dil - 1) / stride + 1;
  const int64_t ow = (wd + 2 * pad - (kw - 1) * dil - 1) / stride + 1;
  *ys = {n, m, oh, ow};
  std::vector<int32_t> y(n * m * oh * ow, 0);
  const int64_t cg = c / group, mg = m / group;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t o = 0; o < m; ++o)
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j) {
          int32_t sum = 0;
          for (int64_t ci = 0; ci < cg; ++ci)
            for (int64_t u = 0; u < kh; ++u)
              for (int64_t v = 0; v < kw; ++v) {
                const int64_t ih = i * stride - pad + u * dil, iw = j * stride - pad + v * dil;
                if (ih < 0 || ih >= h || iw < 0 || iw >= wd) continue;
                const int64_t ch = (o / mg) * cg + ci;
                sum += (Value(&x[((b * c + ch) * h + ih) * wd + iw], x_type) - xz) *
                       (Value(&w[((o * cg + ci) * kh + u) * kw + v], w_type) - wz[o]);
              }
          y[((b * m + o) * oh + i) * ow + j] = sum;
        }
  return y;
}

Tensor Bytes(DType dtype, const Shape& shape, const std::vector<uint8_t>& values) {
  Tensor t;
  EXPECT_TRUE(Tensor::Allocate(dtype, shape, &t).ok());
  std::memcpy(t.data, values.data(), values.size());
  return t;
}

TEST(GemmI8, ConvIntegerMatchesDirectConvolution) {
  std::mt19937 rng(3);
  struct Case {
    Shape x, w;
    int64_t group, stride, pad, dil;
  };
  const Case cases[] = {{{1, 3, 7, 9}, {5, 3, 3, 3}, 1, 1, 1, 1},
                        {{2, 4, 6, 5}, {6, 2, 2, 3}, 2, 2, 0, 1},
                        {{1, 6, 9, 8}, {6, 1, 3, 3}, 6, 1, 1, 2},
                        {{1, 5, 4, 4}, {3, 5, 1, 1}, 1, 1, 0, 1},
                        {{2, 4, 9, 10}, {4, 1, 3, 3}, 4, 2, 1, 1},
                        {{1, 3, 11, 13}, {3, 1, 5, 5}, 3, 2, 2, 1},
                        {{1, 2, 5, 21}, {2, 1, 3, 3}, 2, 3, 0, 2},
                        // Stride 2 over rows of 16 outputs or more (im2col's vector gather), up to
                        // the plane's last byte.
                        {{1, 3, 9, 45}, {4, 3, 3, 3}, 1, 2, 1, 1},
                        {{1, 2, 6, 40}, {3, 2, 3, 3}, 1, 2, 0, 1},
                        {{1, 1, 5, 67}, {2, 1, 1, 4}, 1, 2, 0, 2}};
  for (const Case& c : cases) {
    for (bool constant_w : {true, false}) {
      for (int threads : {1, 2}) {
        const DType x_type = DType::kUint8, w_type = constant_w ? DType::kInt8 : DType::kUint8;
        const auto x = RandomBytes(rng, c.x[0] * c.x[1] * c.x[2] * c.x[3]);
        const auto w = RandomBytes(rng, c.w[0] * c.w[1] * c.w[2] * c.w[3]);
        const auto wz = ZeroPointValues(rng, w_type, c.w[0]);
        std::vector<uint8_t> wz_bytes(wz.begin(), wz.end());
        const int32_t xz = 77;
        Shape ys;
        const auto want = DirectConv(x, x_type, xz, w, w_type, wz, c.x, c.w, c.group, c.stride,
                                     c.pad, c.dil, &ys);
        std::vector<Tensor> out;
        const std::map<std::string, Attribute> attrs = {
            {"group", IntAttr(c.group)},
            {"strides", IntsAttr({c.stride, c.stride})},
            {"pads", IntsAttr({c.pad, c.pad, c.pad, c.pad})},
            {"dilations", IntsAttr({c.dil, c.dil})}};
        const Status s = RunOp("ConvInteger", 10,
                               {{Bytes(x_type, c.x, x)},
                                {Bytes(w_type, c.w, w), constant_w},
                                {Bytes(x_type, {}, {static_cast<uint8_t>(xz)}), true},
                                {Bytes(w_type, {c.w[0]}, wz_bytes), constant_w}},
                               attrs, 1, &out, threads);
        ASSERT_TRUE(s.ok()) << s.ToString();
        ASSERT_EQ(out[0].shape, ys);
        EXPECT_EQ(std::vector<int32_t>(out[0].ptr<int32_t>(), out[0].ptr<int32_t>() + want.size()),
                  want);
      }
    }
  }
}

TEST(GemmI8, MatMulIntegerBroadcastsBatches) {
  std::mt19937 rng(5);
  const Shape a_shape = {2, 1, 3, 7}, b_shape = {3, 7, 10};
  for (bool constant_b : {true, false}) {
    const auto a = RandomBytes(rng, 2 * 3 * 7), b = RandomBytes(rng, 3 * 7 * 10);
    const auto bz = ZeroPointValues(rng, DType::kInt8, 10);
    std::vector<uint8_t> bz_bytes(bz.begin(), bz.end());
    std::vector<Tensor> out;
    const Status s = RunOp("MatMulInteger", 10,
                           {{Bytes(DType::kUint8, a_shape, a)},
                            {Bytes(DType::kInt8, b_shape, b), constant_b},
                            {Bytes(DType::kUint8, {3}, {1, 200, 3})},
                            {Bytes(DType::kInt8, {10}, bz_bytes), constant_b}},
                           {}, 1, &out, 2);
    ASSERT_TRUE(s.ok()) << s.ToString();
    ASSERT_EQ(out[0].shape, (Shape{2, 3, 3, 10}));
    const int32_t az[] = {1, 200, 3};
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < 3; ++j)
        for (int64_t r = 0; r < 3; ++r)
          for (int64_t c = 0; c < 10; ++c) {
            int32_t sum = 0;
            for (int64_t k = 0; k < 7; ++k) {
              sum += (a[(i * 3 + r) * 7 + k] - az[r]) *
                     (Value(&b[(j * 7 + k) * 10 + c], DType::kInt8) - bz[c]);
            }
            ASSERT_EQ(out[0].ptr<int32_t>()[((i * 3 + j) * 3 + r) * 10 + c], sum);
          }
  }
}

}  // namespace
}  // namespace webnx::testing
