#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include "core/decimal_parse.h"

namespace webnx {
namespace {

uint64_t Bits(double d) {
  uint64_t b;
  std::memcpy(&b, &d, 8);
  return b;
}

double FromBits(uint64_t b) {
  double d;
  std::memcpy(&d, &b, 8);
  return d;
}

// 5^n in decimal digits: 5^n * 10^-n is 2^-n exactly.
std::string PowerOfFiveDigits(int n) {
  std::string digits = "1";  // least significant first
  for (int i = 0; i < n; ++i) {
    int carry = 0;
    for (char& c : digits) {
      const int v = (c - '0') * 5 + carry;
      c = static_cast<char>('0' + v % 10);
      carry = v / 10;
    }
    for (; carry != 0; carry /= 10) digits += static_cast<char>('0' + carry % 10);
  }
  return std::string(digits.rbegin(), digits.rend());
}

double Parse(const std::string& text, size_t* consumed = nullptr) {
  double d = -1.0;
  const char* end = ParseDecimal(text.c_str(), &d);
  if (consumed != nullptr) *consumed = static_cast<size_t>(end - text.c_str());
  return d;
}

TEST(DecimalParse, BoundariesRoundToNearestEven) {
  const double max = std::numeric_limits<double>::max();
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(Bits(Parse("1.7976931348623157e308")), Bits(max));
  // DBL_MAX + half an ulp ties to the even neighbour, which overflows.
  const std::string tie =
      "17976931348623158079372897140530341507993413271003782693617377898044"
      "49682927647509466490179775872070963302864166928879109465555478519404"
      "02630657488671505820681908902000708383676273854845817711531764475730"
      "27006985557136695962284291481986083493647529271907416844436551070434"
      "2711559699508093042880177904174497792";  // (2^54 - 1) * 2^970
  EXPECT_EQ(Parse(tie), inf);
  EXPECT_EQ(Bits(Parse("1.797693134862315807937289714053034150799e308")), Bits(max));
  EXPECT_EQ(Parse("1.797693134862315807937289714053034150800e308"), inf);
  EXPECT_EQ(Parse("2e308"), inf);
  EXPECT_EQ(Bits(Parse("4.9406564584124654e-324")), 1u);
  // Half the smallest subnormal ties to zero (even); a hair more rounds up.
  const std::string half_min = PowerOfFiveDigits(1075);  // * 10^-1075: 2^-1075 exactly
  EXPECT_EQ(Bits(Parse(half_min + "e-1075")), 0u);
  EXPECT_EQ(Bits(Parse(half_min + "1e-1076")), 1u);  // 10^-1076 above the tie
  EXPECT_EQ(Bits(Parse("2.4703282292062328e-324")), 1u);
  EXPECT_EQ(Bits(Parse("2.2250738585072011e-308")), 0x000fffffffffffffu);
  EXPECT_EQ(Bits(Parse("2.2250738585072014e-308")), 0x0010000000000000u);
  EXPECT_EQ(Parse("1e-400"), 0.0);
  // 2^53 + 1 ties to 2^53; + 3 to 2^53 + 4.
  EXPECT_EQ(Parse("9007199254740993"), 9007199254740992.0);
  EXPECT_EQ(Parse("9007199254740995"), 9007199254740996.0);
  EXPECT_EQ(Parse("9007199254740993.000000000000000000000000000001"), 9007199254740994.0);
  EXPECT_EQ(Parse("0.1"), 0.1);
  EXPECT_EQ(Parse("-0.0"), 0.0);
  EXPECT_TRUE(std::signbit(Parse("-0.0")));
}

TEST(DecimalParse, SyntaxAndWhereItStops) {
  size_t n = 0;
  EXPECT_EQ(Parse("12.5e-1xyz", &n), 1.25);
  EXPECT_EQ(n, 7u);
  EXPECT_EQ(Parse("1e", &n), 1.0);  // an exponent without digits is not read
  EXPECT_EQ(n, 1u);
  EXPECT_EQ(Parse("1e+", &n), 1.0);
  EXPECT_EQ(n, 1u);
  EXPECT_EQ(Parse(".5", &n), 0.5);
  EXPECT_EQ(n, 2u);
  EXPECT_EQ(Parse("5.", &n), 5.0);
  EXPECT_EQ(n, 2u);
  EXPECT_EQ(Parse(".", &n), 0.0);
  EXPECT_EQ(n, 0u);
  EXPECT_EQ(Parse("-", &n), 0.0);
  EXPECT_EQ(n, 0u);
  EXPECT_EQ(Parse(" 1", &n), 0.0);  // spaces are the caller's
  EXPECT_EQ(n, 0u);
  EXPECT_EQ(Parse("0x1p3", &n), 0.0);
  EXPECT_EQ(n, 1u);
  EXPECT_EQ(Parse("-Infinity", &n), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(n, 9u);
  EXPECT_EQ(Parse("INFx", &n), std::numeric_limits<double>::infinity());
  EXPECT_EQ(n, 3u);
  EXPECT_TRUE(std::isnan(Parse("nan", &n)));
  EXPECT_EQ(n, 3u);
  EXPECT_EQ(Parse("1e99999999999999999999"), std::numeric_limits<double>::infinity());
  EXPECT_EQ(Parse("1e-99999999999999999999"), 0.0);
  EXPECT_EQ(Parse(std::string(5000, '0') + "1.5"), 1.5);
  EXPECT_EQ(Parse("0." + std::string(5000, '0') + "15e5000"), 0.15);
}

// Digits past the 800 kept still decide a rounding that was a tie up to there.
TEST(DecimalParse, LongTextsRoundAsAWhole) {
  const std::string tie = "9007199254740993";
  EXPECT_EQ(Parse(tie + "." + std::string(1000, '0')), 9007199254740992.0);
  EXPECT_EQ(Parse(tie + "." + std::string(1000, '0') + "1"), 9007199254740994.0);
  EXPECT_EQ(Parse(tie + std::string(1000, '0') + "1e-1001"), 9007199254740994.0);
}

#ifndef __EMSCRIPTEN__
// The C library's strtod is the oracle here (glibc rounds correctly); the wasm builds route
// strtod to ParseDecimal, so this runs natively only.
void ExpectAsStrtod(const std::string& text) {
  char* end = nullptr;
  const double want = std::strtod(text.c_str(), &end);
  size_t consumed = 0;
  const double got = Parse(text, &consumed);
  ASSERT_EQ(Bits(got), Bits(want)) << text;
  ASSERT_EQ(consumed, static_cast<size_t>(end - text.c_str())) << text;
}

TEST(DecimalParse, RandomTextsMatchTheCLibrary) {
  std::mt19937_64 rng(20261128);
  for (int i = 0; i < 100000; ++i) {
    const int count = 1 + static_cast<int>(rng() % 30);
    const int point = static_cast<int>(rng() % (count + 2));
    std::string text = rng() % 2 ? "-" : "";
    for (int j = 0; j < count; ++j) {
      if (j == point) text += '.';
      text += static_cast<char>('0' + rng() % 10);
    }
    ExpectAsStrtod(text + "e" + std::to_string(static_cast<int>(rng() % 700) - 350));
  }
}

// Every double printed at 15 to 25 digits, and the exact midpoints between neighbours (held
// exactly by x87 long double), normal and subnormal: the ties and their near misses.
TEST(DecimalParse, PrintedDoublesAndMidpointsMatchTheCLibrary) {
  std::mt19937_64 rng(7);
  char text[1200];
  for (int i = 0; i < 40000; ++i) {
    const bool subnormal = i % 4 == 0;
    const double x = FromBits(subnormal ? rng() % (uint64_t{1} << 52) : rng() >> 1);
    if (!std::isfinite(x)) continue;
    for (const int digits : {15, 16, 17, 18, 25}) {
      std::snprintf(text, sizeof(text), "%.*g", digits, x);
      ExpectAsStrtod(text);
    }
    const double next = std::nextafter(x, std::numeric_limits<double>::infinity());
    if (!std::isfinite(next)) continue;
    const long double mid = (static_cast<long double>(x) + next) / 2;
    std::snprintf(text, sizeof(text), "%.800Lg", mid);
    ExpectAsStrtod(text);
    std::snprintf(text, sizeof(text), "%.30Lg", mid);
    ExpectAsStrtod(text);
  }
}
#endif

}  // namespace
}  // namespace webnx
