// The int8 depthwise kernels against a direct loop: the one on int16 pairs (kernels/simd/
// dwconv_i8.h) and the one on the relaxed dot (kernels/simd/dwconv_quads.h), the latter under
// both exact dot kinds (emulated natively). uint8 and int8 inputs and weights, zero points 0
// and not, kernels of odd and even heights and widths, strides, dilations and pads, odd planes.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "kernels/simd/dwconv_i8.h"
#include "kernels/simd/dwconv_quads.h"

namespace webnx::testing {
namespace {

int32_t ValueOf(uint8_t byte, DType dtype) {
  return dtype == DType::kInt8 ? static_cast<int8_t>(byte) : byte;
}

nn::WindowAxis Axis(int64_t in, int64_t kernel, int64_t stride, int64_t dilation, int64_t pad) {
  nn::WindowAxis a;
  a.in = in, a.kernel = kernel, a.stride = stride, a.dilation = dilation;
  a.pad_begin = a.pad_end = pad;
  a.out = (in + 2 * pad - a.dilated_kernel()) / stride + 1;
  return a;
}

std::vector<int32_t> DirectDepthwise(const nn::WindowAxis& h, const nn::WindowAxis& w,
                                     const std::vector<uint8_t>& x, DType x_type, int32_t zx,
                                     const std::vector<uint8_t>& k, DType w_type, int32_t zw) {
  std::vector<int32_t> out(h.out * w.out);
  for (int64_t oh = 0; oh < h.out; ++oh) {
    for (int64_t ow = 0; ow < w.out; ++ow) {
      int32_t sum = 0;
      for (int64_t kh = 0; kh < h.kernel; ++kh) {
        for (int64_t kw = 0; kw < w.kernel; ++kw) {
          const int64_t ih = h.start(oh) + kh * h.dilation, iw = w.start(ow) + kw * w.dilation;
          const bool inside = ih >= 0 && ih < h.in && iw >= 0 && iw < w.in;
          const int32_t xv = inside ? ValueOf(x[ih * w.in + iw], x_type) - zx : 0;
          sum += xv * (ValueOf(k[kh * w.kernel + kw], w_type) - zw);
        }
      }
      out[oh * w.out + ow] = sum;
    }
  }
  return out;
}

struct Case {
  int64_t rows, cols, kh, kw, stride, dilation, pad;
};

// The int16-pair kernel: phase planes, their rows paired, then the dot products.
TEST(DepthwiseI16, MatchesADirectLoop) {
  std::mt19937 rng(41);
  std::uniform_int_distribution<int> byte(0, 255);
  const Case cases[] = {{7, 9, 3, 3, 1, 1, 1},   {8, 13, 3, 3, 2, 1, 1},  {5, 5, 1, 1, 1, 1, 0},
                        {9, 17, 3, 2, 3, 1, 0},  {6, 11, 2, 4, 1, 2, 2},  {12, 7, 5, 3, 1, 1, 2},
                        {3, 30, 3, 3, 2, 2, 1},  {1, 1, 3, 3, 1, 1, 1},   {11, 21, 4, 4, 2, 1, 3},
                        {10, 40, 1, 7, 1, 1, 3}, {14, 9, 7, 1, 3, 2, 3},  {16, 33, 3, 3, 1, 2, 2},
                        {2, 18, 8, 8, 1, 1, 4},  {13, 19, 3, 3, 4, 2, 2}, {9, 12, 2, 3, 2, 1, 1}};
  for (const Case& c : cases) {
    const nn::WindowAxis h = Axis(c.rows, c.kh, c.stride, c.dilation, c.pad);
    const nn::WindowAxis w = Axis(c.cols, c.kw, c.stride, c.dilation, c.pad);
    const simd::DepthwiseI8Shape shape = simd::MakeDepthwiseI8Shape(h, w);
    for (DType x_type : {DType::kUint8, DType::kInt8}) {
      for (DType w_type : {DType::kUint8, DType::kInt8}) {
        std::vector<uint8_t> x(c.rows * c.cols), k(c.kh * c.kw);
        for (auto& v : x) v = static_cast<uint8_t>(byte(rng));
        for (auto& v : k) v = static_cast<uint8_t>(byte(rng));
        const int32_t zx = ValueOf(static_cast<uint8_t>(byte(rng)), x_type);
        const int32_t zw = ValueOf(static_cast<uint8_t>(byte(rng)), w_type);
        std::vector<int16_t> weights(k.size());
        for (size_t t = 0; t < k.size(); ++t) weights[t] = ValueOf(k[t], w_type) - zw;
        std::vector<int16_t> rows(shape.RowsScratch(), 777), pairs(shape.PairsSize(), 777);
        std::vector<int32_t> got(h.out * w.out, -1);
        simd::FillPairedPlanes(shape, x.data(), x_type, zx, rows.data(), pairs.data());
        simd::DepthwiseI16(shape, pairs.data(), weights.data(), got.data());
        ASSERT_EQ(got, DirectDepthwise(h, w, x, x_type, zx, k, w_type, zw))
            << "case " << (&c - cases);
      }
    }
  }
}

#ifndef __EMSCRIPTEN__
TEST(DepthwiseQuads, MatchesADirectLoopUnderEitherDotKind) {
  std::mt19937 rng(31);
  std::uniform_int_distribution<int> byte(0, 255);
  const Case cases[] = {{7, 9, 3, 3, 1, 1, 1},  {8, 13, 3, 3, 2, 1, 1}, {5, 5, 1, 1, 1, 1, 0},
                        {9, 17, 3, 2, 3, 1, 0}, {6, 11, 2, 4, 1, 2, 2}, {12, 7, 5, 3, 1, 1, 2},
                        {3, 30, 3, 3, 2, 2, 1}, {1, 1, 3, 3, 1, 1, 1}};
  for (simd::DotKind kind : {simd::DotKind::kUnsignedSecond, simd::DotKind::kSignedSecond}) {
    simd::EmulateDotForTesting(kind);
    for (const Case& c : cases) {
      const nn::WindowAxis h = Axis(c.rows, c.kh, c.stride, c.dilation, c.pad);
      const nn::WindowAxis w = Axis(c.cols, c.kw, c.stride, c.dilation, c.pad);
      ASSERT_TRUE(simd::DepthwiseQuadsFits(h, w));
      const simd::DepthwiseQuadsShape shape = simd::MakeDepthwiseQuadsShape(h, w);
      for (DType x_type : {DType::kUint8, DType::kInt8}) {
        for (DType w_type : {DType::kUint8, DType::kInt8}) {
          for (bool zero_w_point : {true, false}) {
            std::vector<uint8_t> x(c.rows * c.cols), k(c.kh * c.kw);
            for (auto& v : x) v = static_cast<uint8_t>(byte(rng));
            for (auto& v : k) v = static_cast<uint8_t>(byte(rng));
            const int32_t zx = ValueOf(static_cast<uint8_t>(byte(rng)), x_type);
            const int32_t zw = zero_w_point ? 0 : ValueOf(static_cast<uint8_t>(byte(rng)), w_type);
            std::vector<uint8_t> padded(shape.PlaneBytes());
            std::vector<int32_t> got(h.out * w.out, -1);
            simd::DepthwiseQuads(shape, x.data(), x_type, zx, k.data(), w_type, zw,
                                 kind == simd::DotKind::kUnsignedSecond, padded.data(), got.data());
            ASSERT_EQ(got, DirectDepthwise(h, w, x, x_type, zx, k, w_type, zw))
                << static_cast<int>(kind) << " case " << (&c - cases);
          }
        }
      }
    }
  }
  simd::EmulateDotForTesting(simd::DotKind::kUnsignedSecond);
}
#endif

}  // namespace
}  // namespace webnx::testing
