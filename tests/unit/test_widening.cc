// The narrow dtypes computed widened (kernels/widening.h): the narrow type's own results
// (wrapping integers, float16 rounded once), constants widened at plan time, outputs that do not
// follow input 0 left alone, and errors that name the model's dtype.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "core/float16.h"
#include "tests/unit/op_runner.h"

namespace webnx::testing {
namespace {

template <typename T>
Tensor Make(DType dtype, const Shape& shape, const std::vector<T>& values) {
  Tensor t;
  EXPECT_TRUE(Tensor::Allocate(dtype, shape, &t).ok());
  if (!values.empty()) std::memcpy(t.data, values.data(), values.size() * sizeof(T));
  return t;
}

template <typename T>
std::vector<T> Values(const Tensor& t) {
  return std::vector<T>(t.ptr<T>(), t.ptr<T>() + t.numel());
}

Tensor Eval(const std::string& op, std::vector<OpInput> inputs,
            const std::map<std::string, Attribute>& attrs = {}, int opset = 18) {
  std::vector<Tensor> out;
  Status s = RunOp(op, opset, inputs, attrs, 1, &out);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return s.ok() ? out[0] : Tensor();
}

TEST(Widening, IntegersWrapAsTheirOwnType) {
  const Tensor a = Make<int8_t>(DType::kInt8, {4}, {127, -128, 100, -7});
  const Tensor b = Make<int8_t>(DType::kInt8, {4}, {1, -1, 100, 2});
  EXPECT_EQ(Values<int8_t>(Eval("Add", {{a}, {b}})), (std::vector<int8_t>{-128, 127, -56, -5}));
  EXPECT_EQ(Values<int8_t>(Eval("Mul", {{a}, {b}})), (std::vector<int8_t>{127, -128, 16, -14}));
  EXPECT_EQ(Values<int8_t>(Eval("Div", {{a}, {b}})), (std::vector<int8_t>{127, -128, 1, -3}));
  const Tensor u = Make<uint16_t>(DType::kUint16, {3}, {65535, 0, 40000});
  const Tensor v = Make<uint16_t>(DType::kUint16, {3}, {1, 1, 40000});
  EXPECT_EQ(Values<uint16_t>(Eval("Add", {{u}, {v}})), (std::vector<uint16_t>{0, 1, 14464}));
  EXPECT_EQ(Values<uint16_t>(Eval("Sub", {{v}, {u}})), (std::vector<uint16_t>{2, 1, 0}));
  EXPECT_EQ(Values<uint16_t>(Eval("Mul", {{u}, {v}})), (std::vector<uint16_t>{65535, 0, 4096}));
}

// uint32 computes in int64, so values past INT32_MAX keep their order.
TEST(Widening, Uint32ComparesAndReducesPastInt32) {
  const Tensor a = Make<uint32_t>(DType::kUint32, {2, 2}, {4000000000u, 1, 3000000000u, 7});
  const Tensor b = Make<uint32_t>(DType::kUint32, {1}, {2});
  const Tensor less = Eval("Less", {{a}, {b}});
  EXPECT_EQ(less.dtype, DType::kBool);
  EXPECT_EQ((std::vector<bool>(less.ptr<bool>(), less.ptr<bool>() + 4)),
            (std::vector<bool>{false, true, false, false}));
  const Tensor axes = MakeInt64({1}, {1});
  EXPECT_EQ(Values<uint32_t>(Eval("ReduceMax", {{a}, {axes, true}})),
            (std::vector<uint32_t>{4000000000u, 3000000000u}));
  EXPECT_EQ(Values<uint32_t>(Eval("ReduceSum", {{a}, {axes, true}})),
            (std::vector<uint32_t>{4000000001u, 3000000007u}));
  EXPECT_EQ(Values<uint32_t>(Eval("Max", {{a}, {b}})),
            (std::vector<uint32_t>{4000000000u, 2, 3000000000u, 7}));
}

TEST(Widening, Float16RoundsOncePerOp) {
  auto half = [](float f) { return FloatToHalf(f); };
  // 1 + 2^-11 is halfway between 1 and the next half: ties to even gives 1; 2048 + 1 likewise.
  const Tensor a = Make<uint16_t>(DType::kFloat16, {3}, {half(1.f), half(2048.f), half(60000.f)});
  const Tensor b =
      Make<uint16_t>(DType::kFloat16, {3}, {half(0.00048828125f), half(1.f), half(60000.f)});
  const Tensor sum = Eval("Add", {{a}, {b}});
  EXPECT_EQ(sum.dtype, DType::kFloat16);
  EXPECT_EQ(Values<uint16_t>(sum), (std::vector<uint16_t>{0x3c00, half(2048.f), 0x7c00}));
  const Tensor r = Eval("Relu", {{Make<uint16_t>(DType::kFloat16, {2}, {0xbc00, 0x4200})}});
  EXPECT_EQ(Values<uint16_t>(r), (std::vector<uint16_t>{0x0000, 0x4200}));
}

TEST(Widening, ConstantsAreWidenedOnceAndBroadcast) {
  const Tensor x = Make<uint8_t>(DType::kUint8, {2, 3}, {1, 2, 3, 250, 251, 252});
  const Tensor c = Make<uint8_t>(DType::kUint8, {3}, {10, 20, 30});
  EXPECT_EQ(Values<uint8_t>(Eval("Add", {{x}, {c, true}})),
            (std::vector<uint8_t>{11, 22, 33, 4, 15, 26}));
  const Tensor lo = Make<uint8_t>(DType::kUint8, {}, {2});
  const Tensor hi = Make<uint8_t>(DType::kUint8, {}, {251});
  EXPECT_EQ(Values<uint8_t>(Eval("Clip", {{x}, {lo, true}, {hi, true}}, {}, 13)),
            (std::vector<uint8_t>{2, 2, 3, 250, 251, 251}));
}

// Pow's exponent may be narrow while its base is not: the output keeps the base's dtype.
TEST(Widening, OutputsFollowInputZero) {
  const Tensor base = MakeFloat({3}, {2.f, 3.f, -1.f});
  const Tensor exponent = Make<int8_t>(DType::kInt8, {3}, {3, 2, 5});
  const Tensor y = Eval("Pow", {{base}, {exponent}}, {}, 15);
  EXPECT_EQ(y.dtype, DType::kFloat32);
  EXPECT_EQ(Values<float>(y), (std::vector<float>{8.f, 9.f, -1.f}));
}

// uint64 computes in int64: its bits as they are where two's complement gives the same bits,
// biased by 2^63 where order matters; values past INT64_MAX are the cases that tell.
TEST(Widening, Uint64PastInt64Max) {
  const uint64_t big = 0xfffffffffffffff0u;  // -16 as int64
  const uint64_t mid = uint64_t{1} << 63;    // INT64_MIN as int64
  const Tensor a = Make<uint64_t>(DType::kUint64, {4}, {big, mid, 5, 0});
  const Tensor b = Make<uint64_t>(DType::kUint64, {4}, {32, 1, mid, big});
  EXPECT_EQ(Values<uint64_t>(Eval("Add", {{a}, {b}})),
            (std::vector<uint64_t>{16, mid + 1, mid + 5, big}));
  EXPECT_EQ(Values<uint64_t>(Eval("Sub", {{a}, {b}})),
            (std::vector<uint64_t>{big - 32, mid - 1, 5 - mid, 16}));
  EXPECT_EQ(Values<uint64_t>(Eval("Mul", {{a}, {b}})),
            (std::vector<uint64_t>{big * 32, mid, 5 * mid, 0}));
  EXPECT_EQ(Values<uint64_t>(Eval("BitwiseXor", {{a}, {b}})),
            (std::vector<uint64_t>{big ^ 32, mid ^ 1, 5 ^ mid, big}));
  const Tensor less = Eval("Less", {{a}, {b}});
  EXPECT_EQ((std::vector<bool>(less.ptr<bool>(), less.ptr<bool>() + 4)),
            (std::vector<bool>{false, false, true, true}));
  const Tensor ge = Eval("GreaterOrEqual", {{a}, {b, true}});
  EXPECT_EQ((std::vector<bool>(ge.ptr<bool>(), ge.ptr<bool>() + 4)),
            (std::vector<bool>{true, true, false, false}));
  EXPECT_EQ(Values<uint64_t>(Eval("Max", {{a}, {b}})), (std::vector<uint64_t>{big, mid, mid, big}));
  EXPECT_EQ(Values<uint64_t>(Eval("Min", {{a}, {b}})), (std::vector<uint64_t>{32, 1, 5, 0}));
  const Tensor lo = Make<uint64_t>(DType::kUint64, {}, {3});
  const Tensor hi = Make<uint64_t>(DType::kUint64, {}, {mid});
  EXPECT_EQ(Values<uint64_t>(Eval("Clip", {{a}, {lo, true}, {hi, true}}, {}, 13)),
            (std::vector<uint64_t>{mid, mid, 5, 3}));
}

// Division and remainder have no int64 form for uint64: they run a loop of their own.
TEST(Widening, Uint64DividesPastInt64Max) {
  const uint64_t big = 0xfffffffffffffff0u;
  const uint64_t mid = uint64_t{1} << 63;
  const Tensor a = Make<uint64_t>(DType::kUint64, {5}, {big, mid, 5, big, 7});
  const Tensor b = Make<uint64_t>(DType::kUint64, {5}, {3, mid - 1, big, 0, 2});
  EXPECT_EQ(Values<uint64_t>(Eval("Div", {{a}, {b}})),
            (std::vector<uint64_t>{big / 3, 1, 0, 0, 3}));
  for (int64_t fmod : {0, 1}) {
    EXPECT_EQ(Values<uint64_t>(Eval("Mod", {{a}, {b}}, {{"fmod", IntAttr(fmod)}}, 13)),
              (std::vector<uint64_t>{big % 3, 1, 5, 0, 1}));
  }
}

// b^e by squaring over all 64 bits of e, wrapping as int64 does.
int64_t PowByBits(int64_t base, uint64_t e) {
  uint64_t result = 1;
  uint64_t b = static_cast<uint64_t>(base);
  for (; e; e >>= 1, b *= b) {
    if (e & 1) result *= b;
  }
  return static_cast<int64_t>(result);
}

// A uint64 exponent past 2^63 gives the powers it names, for integer and float bases.
TEST(Widening, PowTakesUint64ExponentsPastInt64Max) {
  const std::vector<uint64_t> exps = {0xfffffffffffffff1u, (uint64_t{1} << 63) + 6,
                                      (uint64_t{1} << 62) + 3, 5};
  const Tensor e = Make<uint64_t>(DType::kUint64, {4}, exps);
  const Tensor base = Make<int64_t>(DType::kInt64, {4}, {3, -7, 2, -3});
  std::vector<int64_t> expected;
  for (int i = 0; i < 4; ++i) expected.push_back(PowByBits(base.ptr<int64_t>()[i], exps[i]));
  EXPECT_EQ(Values<int64_t>(Eval("Pow", {{base}, {e}}, {}, 15)), expected);
  const Tensor floats = MakeFloat({4}, {-1.f, 0.5f, -2.f, -2.f});
  EXPECT_EQ(Values<float>(Eval("Pow", {{floats}, {e}}, {}, 15)),
            (std::vector<float>{1.f, 0.f, INFINITY, -32.f}));
}

// int8 and uint8 max pooling computes in float32, where every such value is exact.
TEST(Widening, MaxPoolOfSmallIntegers) {
  const Tensor x = Make<int8_t>(DType::kInt8, {1, 1, 2, 3}, {-128, -5, 127, -1, -100, 3});
  const std::map<std::string, Attribute> attrs = {{"kernel_shape", IntsAttr({2, 2})}};
  const Tensor y = Eval("MaxPool", {{x}}, attrs, 12);
  EXPECT_EQ(y.dtype, DType::kInt8);
  EXPECT_EQ(Values<int8_t>(y), (std::vector<int8_t>{-1, 127}));
  const Tensor u = Make<uint8_t>(DType::kUint8, {1, 1, 1, 3}, {255, 0, 254});
  const Tensor z = Eval("MaxPool", {{u}}, {{"kernel_shape", IntsAttr({1, 2})}}, 12);
  EXPECT_EQ(Values<uint8_t>(z), (std::vector<uint8_t>{255, 254}));
}

TEST(Widening, AnOpThatDoesNotComputeTheTypeNamesIt) {
  std::vector<Tensor> out;
  Status s = RunOp("Exp", 13, {{Make<int8_t>(DType::kInt8, {1}, {1})}}, {}, 1, &out);
  EXPECT_EQ(s.code(), ErrorCode::kUnsupportedDtype);
  EXPECT_NE(s.message().find("does not compute in int8"), std::string::npos) << s.message();
  // MaxPool widens 8-bit integers to float32 (exact); uint64 has no such form (nor does the
  // spec allow it there).
  s = RunOp("MaxPool", 12, {{Make<uint64_t>(DType::kUint64, {1, 1, 1, 2}, {1, 2})}},
            {{"kernel_shape", IntsAttr({1, 2})}}, 1, &out);
  EXPECT_EQ(s.code(), ErrorCode::kUnsupportedDtype);
  EXPECT_NE(s.message().find("uint64"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace webnx::testing
