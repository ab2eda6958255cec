// What the signal kernels share (signal_dft.cc, signal_stft.cc, signal_windows.cc): reading
// their plan-time scalar inputs, and complex discrete Fourier transforms of one length,
// planned once, with every table built then, and run without allocating. A
// power-of-two length runs a radix-2 FFT; another length up to kDirectMax a direct sum over a
// twiddle table; a longer one Bluestein's chirp-z transform over a power-of-two FFT. Double
// precision throughout: each output is a sum of n terms that ends up in a float32.
#pragma once

#include <cstdint>

#include "core/kernel.h"
#include "core/status.h"
#include "core/tensor.h"

namespace webnx::signal {

// A scalar int32/int64 input whose value sets an output shape (a length, an axis): an error
// naming it unless it is known when planned and holds one value.
Status ReadPlanTimeScalar(const PlanContext& ctx, int i, const char* name, int64_t* value);
// The same for a length, which must also be positive.
Status ReadPlanTimeLength(const PlanContext& ctx, int i, const char* name, int64_t* value);

struct Complex {
  double re = 0, im = 0;
};

// Storage for `count` complex values, as a tensor so running out of memory is a Status.
Status AllocateComplex(int64_t count, Tensor* out);
inline Complex* ComplexData(Tensor& t) {
  return static_cast<Complex*>(t.data);
}
inline const Complex* ComplexData(const Tensor& t) {
  return static_cast<const Complex*>(t.data);
}

// The radix-2 transform of a power-of-two length, in place, unscaled: y[k] = sum_j x[j] *
// e^(-+2 pi i jk / n), the + sign when inverse.
class Radix2Fft {
 public:
  Status Plan(int64_t n);
  void Run(Complex* data, bool inverse) const;

 private:
  int64_t n_ = 0;
  Tensor twiddles_;  // e^(-2 pi i k / n) for k < n / 2
};

class ComplexDft {
 public:
  enum class Method { kAuto, kDirect };  // kDirect: the direct sum whatever the length
  // Non-power-of-two lengths up to this are summed directly (Bluestein's three FFTs of twice
  // the length cost more below it).
  static constexpr int64_t kDirectMax = 64;
  // Lengths past this are refused (Bluestein's j^2 and the tables must stay in range).
  static constexpr int64_t kMaxLength = int64_t{1} << 28;

  // Plans transforms of length n (1 <= n <= kMaxLength), forward or inverse (unscaled).
  // OutOfMemory when the tables cannot be allocated.
  Status Plan(int64_t n, bool inverse, Method method = Method::kAuto);
  int64_t length() const { return n_; }
  // Complex values of scratch one Run needs.
  int64_t scratch_size() const { return scratch_; }
  // Transforms n values in place: y[k] = sum_j x[j] * e^(-+2 pi i jk / n).
  void Run(Complex* data, Complex* scratch) const;

 private:
  enum class Kind { kRadix2, kDirect, kBluestein };
  void RunDirect(Complex* data, Complex* scratch) const;
  void RunBluestein(Complex* data, Complex* scratch) const;

  Kind kind_ = Kind::kDirect;
  int64_t n_ = 0;
  int64_t scratch_ = 0;
  bool inverse_ = false;
  Radix2Fft fft_;    // of length n (radix-2) or of Bluestein's padded length
  Tensor twiddles_;  // direct: e^(-+2 pi i k / n); Bluestein: its chirp e^(-+pi i k^2 / n)
  Tensor kernel_;    // Bluestein: the FFT of the conjugated chirp, padded
};

}  // namespace webnx::signal
