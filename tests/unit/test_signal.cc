// The signal ops: the transforms (kernels/signal_fft.h: radix-2 FFT and Bluestein against the
// direct sum, which is checked against the definition), DFT and STFT against hand-computed
// values and a naive DFT written here, the windows and MelWeightMatrix by hand, and the errors.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <vector>

#include "kernels/signal_fft.h"
#include "tests/unit/op_runner.h"

namespace webnx::testing {
namespace {

using signal::Complex;
using signal::ComplexDft;
constexpr double kPi = 3.14159265358979323846;

std::vector<float> Values(const Tensor& t) {
  return std::vector<float>(t.ptr<float>(), t.ptr<float>() + t.numel());
}

// The definition, summed in long double.
std::vector<std::complex<double>> NaiveDft(const std::vector<std::complex<double>>& x,
                                           bool inverse) {
  const size_t n = x.size();
  std::vector<std::complex<double>> y(n);
  for (size_t k = 0; k < n; ++k) {
    std::complex<long double> sum = 0;
    for (size_t j = 0; j < n; ++j) {
      const long double angle = (inverse ? 2 : -2) * kPi * static_cast<long double>(j * k % n) / n;
      sum += std::complex<long double>(x[j]) * std::polar<long double>(1, angle);
    }
    y[k] = std::complex<double>(sum);
  }
  return y;
}

std::vector<std::complex<double>> RandomSignal(size_t n, uint32_t seed) {
  const std::vector<float> v = RandomFloats(2 * n, seed);
  std::vector<std::complex<double>> x(n);
  for (size_t i = 0; i < n; ++i) x[i] = {v[2 * i], v[2 * i + 1]};
  return x;
}

// Runs a planned transform over x.
std::vector<std::complex<double>> Transform(const ComplexDft& dft,
                                            const std::vector<std::complex<double>>& x) {
  std::vector<Complex> data(x.size()), scratch(static_cast<size_t>(dft.scratch_size()) + 1);
  for (size_t i = 0; i < x.size(); ++i) data[i] = {x[i].real(), x[i].imag()};
  dft.Run(data.data(), scratch.data());
  std::vector<std::complex<double>> y(x.size());
  for (size_t i = 0; i < x.size(); ++i) y[i] = {data[i].re, data[i].im};
  return y;
}

TEST(ComplexDft, EveryMethodMatchesTheDefinition) {
  // Powers of two (radix-2), short odd lengths (direct) and long ones (Bluestein).
  for (int64_t n : {1, 2, 8, 64, 256, 3, 5, 63, 65, 100, 127, 300}) {
    for (bool inverse : {false, true}) {
      const auto x = RandomSignal(static_cast<size_t>(n), static_cast<uint32_t>(n));
      ComplexDft fast, direct;
      ASSERT_TRUE(fast.Plan(n, inverse).ok());
      ASSERT_TRUE(direct.Plan(n, inverse, ComplexDft::Method::kDirect).ok());
      const auto want = NaiveDft(x, inverse);
      const auto got_fast = Transform(fast, x);
      const auto got_direct = Transform(direct, x);
      for (size_t k = 0; k < x.size(); ++k) {
        EXPECT_NEAR(std::abs(got_direct[k] - want[k]), 0, 1e-9 * n) << "n " << n << " k " << k;
        EXPECT_NEAR(std::abs(got_fast[k] - got_direct[k]), 0, 1e-9 * n) << "n " << n << " k " << k;
      }
    }
  }
}

TEST(Dft, RealSignalByHand) {
  // [1, 2, 3, 4]: X = [10, -2 + 2i, -2, -2 - 2i].
  const Tensor x = MakeFloat({1, 4, 1}, {1, 2, 3, 4});
  EXPECT_EQ(Values(RunOk("DFT", 17, {x})), (std::vector<float>{10, 0, -2, 2, -2, 0, -2, -2}));
  const Tensor half = RunOk("DFT", 17, {x}, {{"onesided", IntAttr(1)}});
  EXPECT_EQ(half.shape, (Shape{1, 3, 2}));
  EXPECT_EQ(Values(half), (std::vector<float>{10, 0, -2, 2, -2, 0}));
}

TEST(Dft, InverseUndoesForwardAlongAnyAxis) {
  const Tensor x = RandomFloat({2, 3, 5, 2}, 7);
  for (int64_t axis : {0, 1, 2, -2, -3, -4}) {
    std::vector<Tensor> out;
    const Tensor axis_t = MakeInt64({}, {axis});
    ASSERT_TRUE(RunOp("DFT", 20, {{x}, {Tensor(), true, false}, {axis_t, true}}, {}, 1, &out).ok());
    std::vector<Tensor> back;
    ASSERT_TRUE(RunOp("DFT", 20, {{out[0]}, {Tensor(), true, false}, {axis_t, true}},
                      {{"inverse", IntAttr(1)}}, 1, &back)
                    .ok());
    const auto want = Values(x), got = Values(back[0]);
    for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5) << axis;
  }
}

TEST(Dft, LengthPadsOrTruncatesAndMatchesTheDefinition) {
  const Tensor x = RandomFloat({2, 6, 2}, 3);
  for (int64_t length : {3, 6, 9, 16}) {
    std::vector<Tensor> out;
    ASSERT_TRUE(RunOp("DFT", 17, {{x}, {MakeInt64({}, {length}), true}}, {}, 1, &out).ok());
    ASSERT_EQ(out[0].shape, (Shape{2, length, 2}));
    for (int64_t b = 0; b < 2; ++b) {
      std::vector<std::complex<double>> line(static_cast<size_t>(length));
      for (int64_t j = 0; j < std::min<int64_t>(length, 6); ++j)
        line[j] = {x.ptr<float>()[(b * 6 + j) * 2], x.ptr<float>()[(b * 6 + j) * 2 + 1]};
      const auto want = NaiveDft(line, false);
      for (int64_t k = 0; k < length; ++k) {
        const float* got = out[0].ptr<float>() + (b * length + k) * 2;
        EXPECT_NEAR(got[0], want[k].real(), 1e-5);
        EXPECT_NEAR(got[1], want[k].imag(), 1e-5);
      }
    }
  }
}

TEST(Dft, IrfftRestoresEvenAndOddLengthSignals) {
  for (int64_t n : {6, 7, 16}) {
    const Tensor x = RandomFloat({1, n, 1}, static_cast<uint32_t>(n));
    const Tensor spectrum = RunOk("DFT", 17, {x}, {{"onesided", IntAttr(1)}});
    ASSERT_EQ(spectrum.shape, (Shape{1, n / 2 + 1, 2}));
    std::vector<Tensor> back;
    // An odd length must be given; an even one is the default 2 * (bins - 1).
    std::vector<OpInput> inputs = {{spectrum}};
    if (n % 2) inputs.push_back({MakeInt64({}, {n}), true});
    ASSERT_TRUE(
        RunOp("DFT", 17, inputs, {{"onesided", IntAttr(1)}, {"inverse", IntAttr(1)}}, 1, &back)
            .ok());
    ASSERT_EQ(back[0].shape, (Shape{1, n, 1}));
    const auto want = Values(x), got = Values(back[0]);
    for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5) << n;
  }
}

TEST(Dft, ThreadsGiveTheSameResult) {
  const Tensor x = RandomFloat({3, 100, 4, 1}, 11);
  std::vector<Tensor> one, two;
  ASSERT_TRUE(RunOp("DFT", 17, {{x}}, {}, 1, &one, 1).ok());
  ASSERT_TRUE(RunOp("DFT", 17, {{x}}, {}, 1, &two, 2).ok());
  EXPECT_EQ(Values(one[0]), Values(two[0]));
}

TEST(Dft, Errors) {
  const Tensor x = MakeFloat({1, 4, 1}, {1, 2, 3, 4});
  std::vector<Tensor> out;
  auto code = [&](const std::vector<OpInput>& in, const std::map<std::string, Attribute>& attrs,
                  int opset = 17) { return RunOp("DFT", opset, in, attrs, 1, &out).code(); };
  EXPECT_EQ(code({{x}, {MakeInt64({}, {4})}}, {}), ErrorCode::kMalformedModel);  // not constant
  EXPECT_EQ(code({{x}, {MakeInt64({}, {0}), true}}, {}), ErrorCode::kMalformedModel);
  EXPECT_EQ(code({{x}}, {{"axis", IntAttr(-1)}}), ErrorCode::kMalformedModel);
  EXPECT_EQ(code({{x}}, {{"axis", IntAttr(2)}}), ErrorCode::kMalformedModel);
  EXPECT_EQ(code({{x}}, {{"onesided", IntAttr(1)}, {"inverse", IntAttr(1)}}),
            ErrorCode::kMalformedModel);  // IRFFT of a real input
  EXPECT_EQ(code({{MakeFloat({4, 3}, std::vector<float>(12))}}, {}), ErrorCode::kShapeMismatch);
  EXPECT_EQ(code({{x}, {Tensor(), true, false}, {MakeInt64({}, {1})}}, {}, 20),
            ErrorCode::kMalformedModel);  // axis not constant
}

TEST(Stft, FramesMatchAWindowedNaiveDft) {
  const Tensor x = RandomFloat({2, 11, 1}, 5);
  const Tensor window = MakeFloat({4}, {0.5f, 1, 1, 0.25f});
  std::vector<Tensor> out;
  ASSERT_TRUE(RunOp("STFT", 17, {{x}, {MakeInt64({}, {3}), true}, {window}}, {}, 1, &out).ok());
  ASSERT_EQ(out[0].shape, (Shape{2, 3, 3, 2}));  // frames (11 - 4) / 3 + 1; bins 4 / 2 + 1
  for (int64_t b = 0; b < 2; ++b) {
    for (int64_t f = 0; f < 3; ++f) {
      std::vector<std::complex<double>> frame(4);
      for (int64_t j = 0; j < 4; ++j)
        frame[j] = x.ptr<float>()[b * 11 + f * 3 + j] * window.ptr<float>()[j];
      const auto want = NaiveDft(frame, false);
      for (int64_t k = 0; k < 3; ++k) {
        const float* got = out[0].ptr<float>() + ((b * 3 + f) * 3 + k) * 2;
        EXPECT_NEAR(got[0], want[k].real(), 1e-6);
        EXPECT_NEAR(got[1], want[k].imag(), 1e-6);
      }
    }
  }
}

TEST(Stft, FrameLengthWithoutWindowAndTwoSided) {
  // Frames [1, 2, 3] and [3, 4, 5] of a complex signal with zero imaginary parts.
  const Tensor x = MakeFloat({1, 5, 2}, {1, 0, 2, 0, 3, 0, 4, 0, 5, 0});
  std::vector<Tensor> out;
  ASSERT_TRUE(
      RunOp("STFT", 17,
            {{x}, {MakeInt64({}, {2}), true}, {Tensor(), true, false}, {MakeInt64({}, {3}), true}},
            {{"onesided", IntAttr(0)}}, 1, &out)
          .ok());
  ASSERT_EQ(out[0].shape, (Shape{1, 2, 3, 2}));
  const float r = static_cast<float>(std::sqrt(3.0) / 2);
  const std::vector<float> want = {6, 0, -1.5f, r, -1.5f, -r, 12, 0, -1.5f, r, -1.5f, -r};
  const auto got = Values(out[0]);
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5) << i;
}

TEST(Stft, Errors) {
  const Tensor x = RandomFloat({1, 8, 1}, 1);
  const Tensor step = MakeInt64({}, {2});
  std::vector<Tensor> out;
  auto code = [&](const std::vector<OpInput>& in) {
    return RunOp("STFT", 17, in, {}, 1, &out).code();
  };
  EXPECT_EQ(code({{x}, {step}, {MakeFloat({4}, {1, 1, 1, 1})}}), ErrorCode::kMalformedModel);
  EXPECT_EQ(code({{x}, {step, true}, {MakeFloat({4}, {1, 1, 1, 1})}, {MakeInt64({}, {5}), true}}),
            ErrorCode::kShapeMismatch);  // window and frame_length disagree
  EXPECT_EQ(code({{x}, {step, true}, {Tensor(), true, false}, {MakeInt64({}, {9}), true}}),
            ErrorCode::kShapeMismatch);  // longer than the signal
  EXPECT_EQ(code({{x}, {MakeInt64({}, {0}), true}}), ErrorCode::kMalformedModel);
  EXPECT_EQ(code({{RandomFloat({1, 8, 2}, 1)}, {step, true}}), ErrorCode::kMalformedModel);
}

std::vector<float> Window(const char* op, int64_t size, int64_t periodic) {
  std::vector<Tensor> out;
  EXPECT_TRUE(
      RunOp(op, 17, {{MakeInt64({}, {size}), true}}, {{"periodic", IntAttr(periodic)}}, 1, &out)
          .ok());
  return out.empty() ? std::vector<float>{} : Values(out[0]);
}

void ExpectNear(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-6) << i;
}

TEST(Windows, ByHand) {
  ExpectNear(Window("HannWindow", 4, 1), {0, 0.5f, 1, 0.5f});
  ExpectNear(Window("HannWindow", 5, 0), {0, 0.5f, 1, 0.5f, 0});
  const float h0 = 4.f / 46, h1 = 25.f / 46;
  ExpectNear(Window("HammingWindow", 4, 1), {h0, h1, 1, h1});
  ExpectNear(Window("BlackmanWindow", 3, 0), {0, 1, 0});
  ExpectNear(Window("BlackmanWindow", 4, 1), {0, 0.34f, 1, 0.34f});
}

TEST(Windows, IntegerOutputAndErrors) {
  std::vector<Tensor> out;
  ASSERT_TRUE(RunOp("HannWindow", 17, {{MakeInt64({}, {4}), true}},
                    {{"output_datatype", IntAttr(7)}}, 1, &out)
                  .ok());
  EXPECT_EQ(std::vector<int64_t>(out[0].ptr<int64_t>(), out[0].ptr<int64_t>() + 4),
            (std::vector<int64_t>{0, 0, 1, 0}));
  EXPECT_EQ(RunOp("HannWindow", 17, {{MakeInt64({}, {4})}}, {}, 1, &out).code(),
            ErrorCode::kMalformedModel);  // size not known when planned
  EXPECT_EQ(RunOp("HannWindow", 17, {{MakeInt64({}, {0}), true}}, {}, 1, &out).code(),
            ErrorCode::kMalformedModel);
  EXPECT_EQ(RunOp("HannWindow", 17, {{MakeInt64({}, {4}), true}},
                  {{"output_datatype", IntAttr(11)}}, 1, &out)
                .code(),
            ErrorCode::kUnsupportedDtype);
}

TEST(MelWeightMatrix, ByHand) {
  // 3 bands over 0-4000 Hz of a 16-point DFT at 8 kHz: edges at bins 0, 0, 1, 3, 5.
  std::vector<Tensor> out;
  ASSERT_TRUE(RunOp("MelWeightMatrix", 17,
                    {{MakeInt64({}, {3}), true},
                     {MakeInt64({}, {16}), true},
                     {MakeInt64({}, {8000})},
                     {MakeFloat({}, {0})},
                     {MakeFloat({}, {4000})}},
                    {}, 1, &out)
                  .ok());
  ASSERT_EQ(out[0].shape, (Shape{9, 3}));
  std::vector<float> want(27, 0);
  want[0 * 3 + 0] = 1;
  want[1 * 3 + 1] = 1;
  want[2 * 3 + 1] = 0.5f;
  want[2 * 3 + 2] = 0.5f;
  want[3 * 3 + 2] = 1;
  want[4 * 3 + 2] = 0.5f;
  EXPECT_EQ(Values(out[0]), want);
  // An upper edge past the Nyquist frequency puts a band edge outside the bins.
  EXPECT_EQ(RunOp("MelWeightMatrix", 17,
                  {{MakeInt64({}, {3}), true},
                   {MakeInt64({}, {16}), true},
                   {MakeInt64({}, {8000})},
                   {MakeFloat({}, {0})},
                   {MakeFloat({}, {40000})}},
                  {}, 1, &out)
                .code(),
            ErrorCode::kInvalidInput);
}

}  // namespace
}  // namespace webnx::testing
