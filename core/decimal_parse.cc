#include "core/decimal_parse.h"

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace webnx {
namespace {

// Significant digits kept exactly; past them only "was any of the rest non-zero" is kept, as
// one more digit 1. A halfway point between two doubles has at most 767 significant digits, so
// the nudged value rounds as the whole text would.
constexpr int kMaxDigits = 800;

struct Decimal {
  uint8_t digits[kMaxDigits + 1];  // no leading zeros; value = digits * 10^exponent
  int count = 0;
  int64_t exponent = 0;
};

bool IsDigit(char c) {
  return c >= '0' && c <= '9';
}

void AddDigit(char c, bool fraction, Decimal* d, bool* cut_nonzero) {
  if (d->count == 0 && c == '0') {
    if (fraction) --d->exponent;  // a leading zero after the point
  } else if (d->count < kMaxDigits) {
    d->digits[d->count++] = static_cast<uint8_t>(c - '0');
    if (fraction) --d->exponent;
  } else {
    *cut_nonzero |= c != '0';
    if (!fraction) ++d->exponent;
  }
}

// Digits, an optional point and more digits, an optional exponent. nullptr when no digit.
const char* ScanDecimal(const char* p, Decimal* d) {
  bool any_digit = false;
  bool cut_nonzero = false;
  for (; IsDigit(*p); ++p, any_digit = true) AddDigit(*p, false, d, &cut_nonzero);
  if (*p == '.') {
    for (++p; IsDigit(*p); ++p, any_digit = true) AddDigit(*p, true, d, &cut_nonzero);
  }
  if (!any_digit) return nullptr;
  if (*p == 'e' || *p == 'E') {
    const char* q = p + 1;
    const bool minus = *q == '-';
    if (*q == '+' || *q == '-') ++q;
    if (IsDigit(*q)) {
      int64_t e = 0;
      for (; IsDigit(*q); ++q) e = e < 100000000 ? e * 10 + (*q - '0') : e;
      d->exponent += minus ? -e : e;
      p = q;
    }
  }
  if (cut_nonzero) {
    d->digits[d->count++] = 1;
    --d->exponent;
  } else {
    while (d->count > 0 && d->digits[d->count - 1] == 0) {
      --d->count;
      ++d->exponent;
    }
  }
  return p;
}

// Unsigned integers of up to kLimbs 32-bit limbs, least significant first: enough for the
// largest side of a comparison below (~3,800 bits).
class BigUint {
 public:
  explicit BigUint(uint64_t v) {
    for (; v != 0; v >>= 32) limbs_[size_++] = static_cast<uint32_t>(v);
  }

  void MulAdd(uint32_t mul, uint32_t add) {
    uint64_t carry = add;
    for (int i = 0; i < size_; ++i) {
      const uint64_t t = static_cast<uint64_t>(limbs_[i]) * mul + carry;
      limbs_[i] = static_cast<uint32_t>(t);
      carry = t >> 32;
    }
    if (carry != 0 && size_ < kLimbs) limbs_[size_++] = static_cast<uint32_t>(carry);
  }

  void MulPow5(int64_t n) {
    static const uint32_t kPow5[14] = {1,       5,        25,        125,       625,
                                       3125,    15625,    78125,     390625,    1953125,
                                       9765625, 48828125, 244140625, 1220703125};
    for (; n >= 13; n -= 13) MulAdd(kPow5[13], 0);
    if (n > 0) MulAdd(kPow5[n], 0);
  }

  void ShiftLeft(int64_t bits) {
    if (size_ == 0 || bits <= 0) return;
    const int words = static_cast<int>(bits / 32);
    const int rest = static_cast<int>(bits % 32);
    if (size_ + words + 1 > kLimbs) return;  // cannot happen for the values compared here
    limbs_[size_ + words] = 0;
    for (int i = size_ - 1; i >= 0; --i) {
      const uint64_t wide = static_cast<uint64_t>(limbs_[i]) << rest;
      limbs_[i + words + 1] |= static_cast<uint32_t>(wide >> 32);
      limbs_[i + words] = static_cast<uint32_t>(wide);
    }
    std::memset(limbs_, 0, sizeof(uint32_t) * words);
    size_ += words + 1;
    while (size_ > 0 && limbs_[size_ - 1] == 0) --size_;
  }

  friend int Compare(const BigUint& a, const BigUint& b) {
    if (a.size_ != b.size_) return a.size_ < b.size_ ? -1 : 1;
    for (int i = a.size_ - 1; i >= 0; --i) {
      if (a.limbs_[i] != b.limbs_[i]) return a.limbs_[i] < b.limbs_[i] ? -1 : 1;
    }
    return 0;
  }

 private:
  static constexpr int kLimbs = 160;
  uint32_t limbs_[kLimbs];
  int size_ = 0;
};

// A positive double as m * 2^k: 2^52 <= m < 2^53 with -1074 <= k <= 971, or m < 2^52 and
// k = -1074 (subnormals and zero).
struct Binary {
  uint64_t m;
  int k;
};

constexpr uint64_t kHidden = uint64_t{1} << 52;
constexpr int kMinK = -1074;
constexpr int kMaxK = 971;

Binary ToBinary(double z) {
  if (z > std::numeric_limits<double>::max()) return {2 * kHidden - 1, kMaxK};
  uint64_t bits;
  std::memcpy(&bits, &z, 8);
  const int biased = static_cast<int>(bits >> 52);
  const uint64_t fraction = bits & (kHidden - 1);
  if (biased == 0) return {fraction, kMinK};
  return {fraction | kHidden, biased - 1075};
}

double ToDouble(Binary b) {
  if (b.k > kMaxK) return std::numeric_limits<double>::infinity();
  const uint64_t bits =
      b.m < kHidden ? b.m : (static_cast<uint64_t>(b.k + 1075) << 52) | (b.m - kHidden);
  double z;
  std::memcpy(&z, &bits, 8);
  return z;
}

Binary Up(Binary b) {
  if (++b.m == 2 * kHidden) return {kHidden, b.k + 1};
  return b;
}

Binary Down(Binary b) {
  if (b.m == kHidden && b.k > kMinK) return {2 * kHidden - 1, b.k - 1};
  return {b.m - 1, b.k};
}

// The decimal as an integer times a power of two: digits * 5^e * 2^e for e >= 0; digits alone
// for e < 0, the 10^-e going to the other side of each comparison. Made once per parse.
struct ExactValue {
  BigUint integer{0};
  int64_t twos = 0;
  int64_t rhs_fives = 0;  // 5^-e multiplies the midpoint instead

  explicit ExactValue(const Decimal& d) {
    for (int i = 0; i < d.count; ++i) integer.MulAdd(10, d.digits[i]);
    if (d.exponent >= 0) {
      integer.MulPow5(d.exponent);
      twos = d.exponent;
    } else {
      rhs_fives = -d.exponent;
    }
  }
};

// The sign of value - mid * 2^mid_k, exactly.
int CompareExact(const ExactValue& value, uint64_t mid, int mid_k) {
  BigUint lhs = value.integer;
  BigUint rhs(mid);
  rhs.MulPow5(value.rhs_fives);
  const int64_t rhs_twos = mid_k + value.rhs_fives;
  const int64_t common = value.twos < rhs_twos ? value.twos : rhs_twos;
  lhs.ShiftLeft(value.twos - common);
  rhs.ShiftLeft(rhs_twos - common);
  return Compare(lhs, rhs);
}

// x * 10^e, a few units in the last place off: powers by squaring, in the direction that keeps
// every partial product between x and the result (no early overflow or underflow).
double ScaleByPow10(double x, int64_t e) {
  static const double kPowers[9] = {1e1, 1e2, 1e4, 1e8, 1e16, 1e32, 1e64, 1e128, 1e256};
  const bool divide = e < 0;
  if (divide) e = -e;
  for (int i = 0; i < 9 && e != 0; ++i, e >>= 1) {
    if (e & 1) x = divide ? x / kPowers[i] : x * kPowers[i];
  }
  return x;
}

// The nearest double to a value within a few ulps of `approx`, ties to even.
double Refine(const Decimal& d, double approx) {
  const ExactValue value(d);
  Binary b = ToBinary(approx);
  for (int step = 0; step < 256; ++step) {
    const int up = CompareExact(value, 2 * b.m + 1, b.k - 1);  // against the midpoint above
    if (up > 0 || (up == 0 && (b.m & 1))) {
      b = Up(b);
      if (b.k > kMaxK) break;
      if (up == 0) break;
      continue;
    }
    if (b.m == 0 || up == 0) break;
    const bool narrow_below = b.m == kHidden && b.k > kMinK;  // the gap below is half as wide
    const int down = narrow_below ? CompareExact(value, 4 * b.m - 1, b.k - 2)
                                  : CompareExact(value, 2 * b.m - 1, b.k - 1);
    if (down > 0 || (down == 0 && !(b.m & 1))) break;
    b = Down(b);
    if (down == 0) break;
  }
  return ToDouble(b);
}

double ToNearestDouble(const Decimal& d) {
  if (d.count == 0) return 0.0;
  const int64_t magnitude = d.count + d.exponent;  // value < 10^magnitude
  if (magnitude > 310) return std::numeric_limits<double>::infinity();
  if (magnitude < -324) return 0.0;
  const int leading = d.count < 19 ? d.count : 19;
  uint64_t w = 0;
  for (int i = 0; i < leading; ++i) w = w * 10 + d.digits[i];
  const int64_t rest = d.exponent + (d.count - leading);
  // Exact operands, one rounding: the product or quotient is the nearest double.
  if (d.count == leading && w <= (uint64_t{1} << 53) && rest >= -22 && rest <= 22) {
    const double scaled = ScaleByPow10(1.0, rest < 0 ? -rest : rest);
    return rest < 0 ? static_cast<double>(w) / scaled : static_cast<double>(w) * scaled;
  }
  return Refine(d, ScaleByPow10(static_cast<double>(w), rest));
}

bool MatchWord(const char* p, const char* lower_word) {
  for (; *lower_word != '\0'; ++p, ++lower_word) {
    if ((*p | 0x20) != *lower_word) return false;
  }
  return true;
}

}  // namespace

const char* ParseDecimal(const char* text, double* out) {
  const char* p = text;
  const bool negative = *p == '-';
  if (*p == '-' || *p == '+') ++p;
  double magnitude;
  if (MatchWord(p, "inf")) {
    p += MatchWord(p, "infinity") ? 8 : 3;
    magnitude = std::numeric_limits<double>::infinity();
  } else if (MatchWord(p, "nan")) {
    p += 3;
    magnitude = std::numeric_limits<double>::quiet_NaN();
  } else {
    Decimal d;
    const char* end = ScanDecimal(p, &d);
    if (end == nullptr) {
      *out = 0.0;
      return text;
    }
    p = end;
    magnitude = ToNearestDouble(d);
  }
  *out = negative ? -magnitude : magnitude;
  return p;
}

}  // namespace webnx

#ifdef __EMSCRIPTEN__
// strtod for the whole module (CMakeLists.txt links with --wrap=strtod): spaces skipped, ERANGE
// when the result overflows or underflows to zero, as the C library's.
extern "C" double __wrap_strtod(const char* text, char** end) {
  const char* p = text;
  while (*p == ' ' || (*p >= '\t' && *p <= '\r')) ++p;
  double value;
  const char* stop = webnx::ParseDecimal(p, &value);
  if (end != nullptr) *end = const_cast<char*>(stop == p ? text : stop);
  if (stop != p && (value == 0.0 || value == std::numeric_limits<double>::infinity() ||
                    value == -std::numeric_limits<double>::infinity())) {
    // Overflow or underflow, unless the text wrote a zero or an infinity itself.
    bool written_zero_or_inf = true;
    for (const char* q = p; q < stop; ++q) {
      if (*q >= '1' && *q <= '9') written_zero_or_inf = false;
      if (*q == 'e' || *q == 'E') break;
    }
    if (!written_zero_or_inf) errno = ERANGE;
  }
  return value;
}
#endif
