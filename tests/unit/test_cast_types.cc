// Cast between every numeric dtype, and float16 rounding against an independent reference.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "core/float16.h"
#include "tests/unit/op_runner.h"

namespace webnx::testing {
namespace {

template <typename T>
Tensor Make(DType dtype, const std::vector<T>& values) {
  Tensor t;
  EXPECT_TRUE(Tensor::Allocate(dtype, {static_cast<int64_t>(values.size())}, &t).ok());
  if (!values.empty()) std::memcpy(t.data, values.data(), values.size() * sizeof(T));
  return t;
}

template <typename T>
std::vector<T> Values(const Tensor& t) {
  return std::vector<T>(t.ptr<T>(), t.ptr<T>() + t.numel());
}

Tensor CastTo(const Tensor& x, DType to) {
  std::vector<Tensor> y;
  Status s = RunOp("Cast", 21, {OpInput{x}}, {{"to", IntAttr(static_cast<int64_t>(to))}}, 1, &y);
  EXPECT_TRUE(s.ok()) << s.ToString();
  if (!s.ok()) return Tensor();
  EXPECT_EQ(y[0].dtype, to);
  return y[0];
}

// The value of a half, computed from its fields with ldexp (not the code under test).
double HalfValue(uint16_t h) {
  const int exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  const double v = exp == 0 ? std::ldexp(mant, -24) : std::ldexp(1024 + mant, exp - 25);
  return (h & 0x8000) ? -v : v;
}

// Every finite half survives float and back; the float halfway between two neighbours rounds
// to the one with an even mantissa, and the floats just either side of it to the nearer one.
TEST(Float16, RoundsToNearestEvenAtEveryMidpoint) {
  int failures = 0;
  for (uint32_t h = 0; h < 0x7c00; ++h) {
    for (uint16_t sign : {uint16_t{0}, uint16_t{0x8000}}) {
      const uint16_t a = static_cast<uint16_t>(h | sign);
      const float fa = static_cast<float>(HalfValue(a));
      if (FloatToHalf(fa) != a && failures++ < 10) ADD_FAILURE() << std::hex << a;
      const uint16_t b = static_cast<uint16_t>(a + 1);  // next magnitude (0x7c00 = infinity)
      const double fb = (b & 0x7fff) == 0x7c00 ? std::ldexp(sign ? -1.0 : 1.0, 16) : HalfValue(b);
      const float mid = static_cast<float>((fa + fb) / 2);  // exact: 11 bits need no rounding
      const uint16_t even = (a & 1) ? b : a;
      if (FloatToHalf(mid) != even && failures++ < 10) ADD_FAILURE() << "mid " << std::hex << a;
      const float above = std::nextafter(mid, static_cast<float>(fb));
      const float below = std::nextafter(mid, fa);
      if ((FloatToHalf(above) != b || FloatToHalf(below) != a) && failures++ < 10)
        ADD_FAILURE() << "near mid " << std::hex << a;
    }
  }
  EXPECT_EQ(failures, 0);
  EXPECT_EQ(FloatToHalf(1e6f), 0x7c00);
  EXPECT_EQ(FloatToHalf(-std::numeric_limits<float>::infinity()), 0xfc00);
  EXPECT_EQ(FloatToHalf(1e-10f), 0x0000);
  EXPECT_EQ(FloatToHalf(-1e-10f), 0x8000);
  const uint16_t nan = FloatToHalf(std::numeric_limits<float>::quiet_NaN());
  EXPECT_TRUE((nan & 0x7c00) == 0x7c00 && (nan & 0x3ff) != 0);
}

TEST(Cast, FloatsToFloat16AndBack) {
  const Tensor f = Make<float>(DType::kFloat32, {1.f, -2.5f, 65504.f, 70000.f, 1e-8f, 0.1f});
  const Tensor h = CastTo(f, DType::kFloat16);
  EXPECT_EQ(Values<uint16_t>(h),
            (std::vector<uint16_t>{0x3c00, 0xc100, 0x7bff, 0x7c00, 0x0000, 0x2e66}));
  const Tensor back = CastTo(h, DType::kFloat32);
  EXPECT_EQ(Values<float>(back)[5], 0.0999755859375f);
  // float64 goes through float32 first, as onnxruntime does.
  const Tensor d = Make<double>(DType::kFloat64, {0.1, 1e300, -0.5});
  EXPECT_EQ(Values<uint16_t>(CastTo(d, DType::kFloat16)),
            (std::vector<uint16_t>{0x2e66, 0x7c00, 0xb800}));
  EXPECT_EQ(Values<double>(CastTo(h, DType::kFloat64))[1], -2.5);
}

TEST(Cast, IntegersNarrowByWrapping) {
  const Tensor i = Make<int64_t>(DType::kInt64, {-1, 256, 300, -129, int64_t{1} << 40});
  EXPECT_EQ(Values<uint8_t>(CastTo(i, DType::kUint8)), (std::vector<uint8_t>{255, 0, 44, 127, 0}));
  EXPECT_EQ(Values<int8_t>(CastTo(i, DType::kInt8)), (std::vector<int8_t>{-1, 0, 44, 127, 0}));
  EXPECT_EQ(Values<uint16_t>(CastTo(i, DType::kUint16)),
            (std::vector<uint16_t>{65535, 256, 300, 65407, 0}));
  EXPECT_EQ(Values<uint32_t>(CastTo(i, DType::kUint32)),
            (std::vector<uint32_t>{UINT32_MAX, 256, 300, 4294967167u, 0}));
  EXPECT_EQ(Values<uint64_t>(CastTo(i, DType::kUint64))[0], UINT64_MAX);
  const Tensor u = Make<uint64_t>(DType::kUint64, {UINT64_MAX, 5});
  EXPECT_EQ(Values<int64_t>(CastTo(u, DType::kInt64)), (std::vector<int64_t>{-1, 5}));
  EXPECT_EQ(Values<double>(CastTo(u, DType::kFloat64))[0], 18446744073709551615.0);
  const Tensor s8 = Make<int8_t>(DType::kInt8, {-128, 127});
  EXPECT_EQ(Values<int32_t>(CastTo(s8, DType::kInt32)), (std::vector<int32_t>{-128, 127}));
  EXPECT_EQ(Values<uint16_t>(CastTo(s8, DType::kUint16)), (std::vector<uint16_t>{65408, 127}));
  const Tensor u8 = Make<uint8_t>(DType::kUint8, {0, 200, 255});
  EXPECT_EQ(Values<float>(CastTo(u8, DType::kFloat32)), (std::vector<float>{0, 200, 255}));
  EXPECT_EQ(Values<int8_t>(CastTo(u8, DType::kInt8)), (std::vector<int8_t>{0, -56, -1}));
}

TEST(Cast, FloatsToIntegersTruncateAndSaturate) {
  const Tensor f = Make<float>(DType::kFloat32, {2.9f, -2.9f, 300.f, -1.f, NAN, 1e30f});
  EXPECT_EQ(Values<uint8_t>(CastTo(f, DType::kUint8)),
            (std::vector<uint8_t>{2, 0, 255, 0, 0, 255}));
  EXPECT_EQ(Values<int8_t>(CastTo(f, DType::kInt8)), (std::vector<int8_t>{2, -2, 127, -1, 0, 127}));
  EXPECT_EQ(Values<uint64_t>(CastTo(f, DType::kUint64))[5], UINT64_MAX);
  const Tensor h = Make<uint16_t>(DType::kFloat16, {0x4170, 0xfc00});  // 2.71875, -inf
  EXPECT_EQ(Values<int16_t>(CastTo(h, DType::kInt16)), (std::vector<int16_t>{2, -32768}));
}

TEST(Cast, BoolIsNonZeroEverywhere) {
  const Tensor h = Make<uint16_t>(DType::kFloat16, {0x0000, 0x8000, 0x0001, 0x7e00});
  const Tensor b = CastTo(h, DType::kBool);
  EXPECT_EQ((std::vector<bool>(b.ptr<bool>(), b.ptr<bool>() + 4)),
            (std::vector<bool>{false, false, true, true}));
  const Tensor u = Make<uint64_t>(DType::kUint64, {0, uint64_t{1} << 63});
  const Tensor ub = CastTo(u, DType::kBool);
  EXPECT_EQ(ub.ptr<bool>()[0], false);
  EXPECT_EQ(ub.ptr<bool>()[1], true);
  EXPECT_EQ(Values<uint16_t>(CastTo(b, DType::kFloat16)),
            (std::vector<uint16_t>{0, 0, 0x3c00, 0x3c00}));
}

// Every pair of dtypes casts, and a chunk boundary (512 elements) changes nothing.
TEST(Cast, EveryPairOverSeveralChunks) {
  const DType all[] = {DType::kFloat32, DType::kUint8,   DType::kInt8,   DType::kUint16,
                       DType::kInt16,   DType::kInt32,   DType::kInt64,  DType::kBool,
                       DType::kFloat16, DType::kFloat64, DType::kUint32, DType::kUint64};
  std::vector<float> small(1300);
  for (size_t i = 0; i < small.size(); ++i) small[i] = static_cast<float>(i % 100);
  const Tensor base = Make<float>(DType::kFloat32, small);
  for (DType from : all) {
    const Tensor x = CastTo(base, from);
    for (DType to : all) {
      const Tensor back = CastTo(CastTo(x, to), DType::kFloat32);
      const float* v = back.ptr<float>();
      for (size_t i = 0; i < small.size(); ++i) {
        const float want =
            (from == DType::kBool || to == DType::kBool) ? (small[i] != 0) : small[i];
        ASSERT_EQ(v[i], want) << DTypeName(from) << " -> " << DTypeName(to) << " at " << i;
      }
    }
  }
}

}  // namespace
}  // namespace webnx::testing
