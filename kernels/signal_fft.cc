#include "kernels/signal_fft.h"

#include <cmath>
#include <string>
#include <utility>

#include "kernels/indexing_common.h"

namespace webnx::signal {
namespace {

constexpr double kPi = 3.14159265358979323846;

inline Complex Mul(Complex a, Complex b) {
  return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}
inline Complex Conj(Complex a) {
  return {a.re, -a.im};
}
// e^(i angle)
inline Complex Polar(double angle) {
  return {std::cos(angle), std::sin(angle)};
}

bool IsPowerOfTwo(int64_t n) {
  return n > 0 && (n & (n - 1)) == 0;
}

}  // namespace

Status ReadPlanTimeScalar(const PlanContext& ctx, int i, const char* name, int64_t* value) {
  WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(i, {DType::kInt32, DType::kInt64}));
  const Tensor* t = ctx.constant(i);
  const std::string input = std::string("input '") + name + "'";
  if (!t) return ctx.Error(ErrorCode::kMalformedModel, input + " must be known when planned");
  if (t->numel() != 1 || t->rank() > 1) {
    return ctx.Error(ErrorCode::kMalformedModel,
                     input + " must be a scalar, got shape " + ShapeToString(t->shape));
  }
  *value = indexing::IndexAt(*t, 0);
  return Status::Ok();
}

Status ReadPlanTimeLength(const PlanContext& ctx, int i, const char* name, int64_t* value) {
  WEBNX_RETURN_IF_ERROR(ReadPlanTimeScalar(ctx, i, name, value));
  if (*value >= 1) return Status::Ok();
  return ctx.Error(
      ErrorCode::kMalformedModel,
      std::string("input '") + name + "' must be positive, got " + std::to_string(*value));
}

Status AllocateComplex(int64_t count, Tensor* out) {
  // Four float32 slots hold one complex double (16 bytes); the storage is 64-byte aligned.
  return Tensor::AllocateUninitialized(DType::kFloat32, {count * 4}, out);
}

Status Radix2Fft::Plan(int64_t n) {
  n_ = n;
  WEBNX_RETURN_IF_ERROR(AllocateComplex(n / 2, &twiddles_));
  Complex* w = ComplexData(twiddles_);
  for (int64_t k = 0; k < n / 2; ++k) w[k] = Polar(-2 * kPi * static_cast<double>(k) / n);
  return Status::Ok();
}

void Radix2Fft::Run(Complex* data, bool inverse) const {
  const int64_t n = n_;
  // Bit-reversed order, the reversed index kept incrementally.
  for (int64_t i = 1, j = 0; i < n; ++i) {
    int64_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(data[i], data[j]);
  }
  const Complex* w = ComplexData(twiddles_);
  for (int64_t len = 2; len <= n; len <<= 1) {
    const int64_t half = len / 2, step = n / len;
    for (int64_t start = 0; start < n; start += len) {
      for (int64_t j = 0; j < half; ++j) {
        const Complex t = inverse ? Conj(w[j * step]) : w[j * step];
        Complex& top = data[start + j];
        Complex& bottom = data[start + j + half];
        const Complex v = Mul(bottom, t);
        bottom = {top.re - v.re, top.im - v.im};
        top = {top.re + v.re, top.im + v.im};
      }
    }
  }
}

Status ComplexDft::Plan(int64_t n, bool inverse, Method method) {
  n_ = n;
  inverse_ = inverse;
  const double sign = inverse ? 1 : -1;
  if (method == Method::kAuto && IsPowerOfTwo(n)) {
    kind_ = Kind::kRadix2;
    scratch_ = 0;
    return fft_.Plan(n);
  }
  if (method == Method::kDirect || n <= kDirectMax) {
    kind_ = Kind::kDirect;
    scratch_ = n;
    WEBNX_RETURN_IF_ERROR(AllocateComplex(n, &twiddles_));
    Complex* w = ComplexData(twiddles_);
    for (int64_t k = 0; k < n; ++k) w[k] = Polar(sign * 2 * kPi * static_cast<double>(k) / n);
    return Status::Ok();
  }
  // Bluestein: jk = (j^2 + k^2 - (k - j)^2) / 2 turns the transform into a circular
  // convolution of the chirped input with the conjugated chirp, done by FFTs of a power-of-two
  // length m >= 2n - 1.
  kind_ = Kind::kBluestein;
  int64_t m = 1;
  while (m < 2 * n - 1) m <<= 1;
  scratch_ = m;
  WEBNX_RETURN_IF_ERROR(fft_.Plan(m));
  WEBNX_RETURN_IF_ERROR(AllocateComplex(n, &twiddles_));
  WEBNX_RETURN_IF_ERROR(AllocateComplex(m, &kernel_));
  Complex* chirp = ComplexData(twiddles_);
  for (int64_t j = 0; j < n; ++j) {
    const int64_t j2 = (j * j) % (2 * n);  // e^(pi i j^2 / n) has period 2n in j^2
    chirp[j] = Polar(sign * kPi * static_cast<double>(j2) / n);
  }
  Complex* b = ComplexData(kernel_);
  for (int64_t j = 0; j < m; ++j) b[j] = Complex{};
  b[0] = Conj(chirp[0]);
  for (int64_t j = 1; j < n; ++j) b[j] = b[m - j] = Conj(chirp[j]);
  fft_.Run(b, false);
  return Status::Ok();
}

void ComplexDft::Run(Complex* data, Complex* scratch) const {
  switch (kind_) {
    case Kind::kRadix2:
      fft_.Run(data, inverse_);
      return;
    case Kind::kDirect:
      RunDirect(data, scratch);
      return;
    case Kind::kBluestein:
      RunBluestein(data, scratch);
      return;
  }
}

void ComplexDft::RunDirect(Complex* data, Complex* scratch) const {
  const int64_t n = n_;
  const Complex* w = ComplexData(twiddles_);
  for (int64_t k = 0; k < n; ++k) {
    Complex sum;
    int64_t at = 0;  // (j * k) mod n
    for (int64_t j = 0; j < n; ++j) {
      const Complex term = Mul(data[j], w[at]);
      sum.re += term.re;
      sum.im += term.im;
      at += k;
      if (at >= n) at -= n;
    }
    scratch[k] = sum;
  }
  for (int64_t k = 0; k < n; ++k) data[k] = scratch[k];
}

void ComplexDft::RunBluestein(Complex* data, Complex* scratch) const {
  const int64_t n = n_, m = scratch_;
  const Complex* chirp = ComplexData(twiddles_);
  const Complex* b = ComplexData(kernel_);
  for (int64_t j = 0; j < n; ++j) scratch[j] = Mul(data[j], chirp[j]);
  for (int64_t j = n; j < m; ++j) scratch[j] = Complex{};
  fft_.Run(scratch, false);
  for (int64_t j = 0; j < m; ++j) scratch[j] = Mul(scratch[j], b[j]);
  fft_.Run(scratch, true);
  const double scale = 1.0 / static_cast<double>(m);
  for (int64_t k = 0; k < n; ++k) {
    const Complex y = Mul(scratch[k], chirp[k]);
    data[k] = {y.re * scale, y.im * scale};
  }
}

}  // namespace webnx::signal
