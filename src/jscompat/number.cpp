// SPDX-License-Identifier: MIT
// JavaScript Number#toString, Math.round and base-36 integers (spec §12.8).
#include "jscompat/number.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "jscompat/shortest_digits.h"
#include "jscompat/string.h"

namespace cce::js {
namespace detail {
namespace {

constexpr int kMaxSignificantDigits = 17;  // always enough for a double to round-trip

// ---- the printf/strtod search: an independent oracle for the tests (never called by the engine,
// so the linker leaves musl's printf and software long double out of the wasm) ----

// Splits printf's "d.ddde±x" into digits without trailing zeros and the exponent of 0.ddd form.
void splitScientific(const char* s, std::string& digits, int& exponent) {
  digits.clear();
  const char* p = s;
  for (; *p != 'e' && *p != '\0'; ++p) {
    if (*p >= '0' && *p <= '9') digits.push_back(*p);
  }
  int e = (*p == 'e') ? std::atoi(p + 1) : 0;
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  exponent = e + 1;
}

bool roundTrips(unsigned long long mantissa, int decimalExponent, double x) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%llue%d", mantissa, decimalExponent);
  return std::strtod(buf, nullptr) == x;
}

// The shortest candidates with `precision` significant digits: the correctly rounded one, or, if
// that does not round-trip, its neighbour on the other side of x. Just above a power of two the
// round-trip interval is narrower below x than above it, so the far neighbour can round-trip
// when the nearest does not. The interval is contiguous around x, so if any decimal of this
// length round-trips, one of these two does: the test is exact, hence monotone in precision.
bool shortestAtPrecision(double x, int precision, std::string& digits, int& exponent) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*e", precision - 1, x);
  double rounded = std::strtod(buf, nullptr);
  if (rounded == x) {
    splitScientific(buf, digits, exponent);
    return true;
  }
  std::string d;
  int n;
  splitScientific(buf, d, n);
  d.resize(static_cast<std::size_t>(precision), '0');
  unsigned long long mantissa = std::strtoull(d.c_str(), nullptr, 10);
  int scale = n - precision;
  unsigned long long low = 1;  // 10^(precision - 1), the smallest mantissa of this length
  for (int k = 1; k < precision; ++k) low *= 10;
  unsigned long long other;
  if (rounded < x) {
    other = mantissa + 1;  // a carry to 10^precision is the next grid point too
  } else if (mantissa > low) {
    other = mantissa - 1;
  } else {
    other = low * 10 - 1;  // below 10^k the grid is ten times finer
    --scale;
  }
  if (!roundTrips(other, scale, x)) return false;
  std::snprintf(buf, sizeof buf, "%llu", other);
  digits = buf;
  exponent = scale + static_cast<int>(digits.size());
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  return true;
}

// ---- Grisu3 (Loitsch, "Printing floating-point numbers quickly and accurately", PLDI 2010) ----
// The algorithm V8 itself uses first for Number#toString: fast 64-bit arithmetic that yields the
// shortest, closest digits, or reports that it cannot be sure (about 0.2% of doubles), in which
// case the exact big-integer generation below decides, as V8's own bignum fallback does.

struct DiyFp {
  std::uint64_t f;
  int e;
};

struct CachedPower {
  std::uint64_t significand;
  int binaryExponent;
  int decimalExponent;
};

#include "jscompat/cached_powers.inc"

constexpr int kMinimalTargetExponent = -60;
constexpr int kMaximalTargetExponent = -32;

// The upper 64 bits of the 128-bit product, rounded; portable (no __int128).
DiyFp times(DiyFp x, DiyFp y) {
  constexpr std::uint64_t kMask32 = 0xFFFFFFFFu;
  std::uint64_t a = x.f >> 32, b = x.f & kMask32, c = y.f >> 32, d = y.f & kMask32;
  std::uint64_t ac = a * c, bc = b * c, ad = a * d, bd = b * d;
  std::uint64_t middle = (bd >> 32) + (ad & kMask32) + (bc & kMask32) + (1ULL << 31);
  return {ac + (ad >> 32) + (bc >> 32) + (middle >> 32), x.e + y.e + 64};
}

DiyFp normalize(DiyFp x) {
  while ((x.f & 0xFFC0000000000000ULL) == 0) {
    x.f <<= 10;
    x.e -= 10;
  }
  while ((x.f & 0x8000000000000000ULL) == 0) {
    x.f <<= 1;
    x.e -= 1;
  }
  return x;
}

// Moves the last digit down while that brings the digits closer to w (within the safe interval),
// then checks that the result is unambiguous given the error of the scaled values (one `unit`).
bool roundWeed(char* digits, int length, std::uint64_t distanceTooHighW,
               std::uint64_t unsafeInterval, std::uint64_t rest, std::uint64_t tenKappa,
               std::uint64_t unit) {
  std::uint64_t smallDistance = distanceTooHighW - unit;
  std::uint64_t bigDistance = distanceTooHighW + unit;
  while (rest < smallDistance && unsafeInterval - rest >= tenKappa &&
         (rest + tenKappa < smallDistance ||
          smallDistance - rest >= rest + tenKappa - smallDistance)) {
    digits[length - 1]--;
    rest += tenKappa;
  }
  if (rest < bigDistance && unsafeInterval - rest >= tenKappa &&
      (rest + tenKappa < bigDistance || bigDistance - rest > rest + tenKappa - bigDistance)) {
    return false;
  }
  return 2 * unit <= rest && rest <= unsafeInterval - 4 * unit;
}

// Digits of the scaled upper boundary, generated until they fall inside the unsafe interval.
bool digitGen(DiyFp low, DiyFp w, DiyFp high, char* digits, int* length, int* kappa) {
  std::uint64_t unit = 1;
  DiyFp tooLow = {low.f - unit, low.e};
  DiyFp tooHigh = {high.f + unit, high.e};
  std::uint64_t unsafeInterval = tooHigh.f - tooLow.f;
  const int shift = -w.e;
  const std::uint64_t one = 1ULL << shift;
  auto integrals = static_cast<std::uint32_t>(tooHigh.f >> shift);
  std::uint64_t fractionals = tooHigh.f & (one - 1);
  std::uint32_t divisor = 1;
  int divisorExponentPlusOne = 1;
  while (divisor <= integrals / 10) {
    divisor *= 10;
    ++divisorExponentPlusOne;
  }
  *kappa = divisorExponentPlusOne;
  *length = 0;
  while (*kappa > 0) {
    digits[(*length)++] = static_cast<char>('0' + integrals / divisor);
    integrals %= divisor;
    --*kappa;
    std::uint64_t rest = (static_cast<std::uint64_t>(integrals) << shift) + fractionals;
    if (rest < unsafeInterval) {
      return roundWeed(digits, *length, tooHigh.f - w.f, unsafeInterval, rest,
                       static_cast<std::uint64_t>(divisor) << shift, unit);
    }
    divisor /= 10;
  }
  for (;;) {
    fractionals *= 10;
    unit *= 10;
    unsafeInterval *= 10;
    digits[(*length)++] = static_cast<char>('0' + (fractionals >> shift));
    fractionals &= one - 1;
    --*kappa;
    if (fractionals < unsafeInterval) {
      return roundWeed(digits, *length, (tooHigh.f - w.f) * unit, unsafeInterval, fractionals, one,
                       unit);
    }
  }
}

// For finite x > 0. On success, digits and exponent as shortestDigits describes.
bool grisu3(double x, std::string& digits, int& exponent) {
  std::uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  const std::uint64_t fraction = bits & 0x000FFFFFFFFFFFFFULL;
  const int biased = static_cast<int>(bits >> 52) & 0x7FF;
  DiyFp v = biased == 0 ? DiyFp{fraction, -1074} : DiyFp{fraction | (1ULL << 52), biased - 1075};

  // The rounding interval's boundaries: halfway to the neighbouring doubles. Just above a power
  // of two the lower neighbour is twice as close.
  DiyFp plus = normalize({(v.f << 1) + 1, v.e - 1});
  bool lowerCloser = fraction == 0 && biased > 1;
  DiyFp minus = lowerCloser ? DiyFp{(v.f << 2) - 1, v.e - 2} : DiyFp{(v.f << 1) - 1, v.e - 1};
  minus.f <<= minus.e - plus.e;
  minus.e = plus.e;
  DiyFp w = normalize(v);

  // A cached 10^mk that brings w's binary exponent into [-60, -32].
  const int minExponent = kMinimalTargetExponent - (w.e + 64);
  const int maxExponent = kMaximalTargetExponent - (w.e + 64);
  constexpr int kCount = sizeof kCachedPowers / sizeof kCachedPowers[0];
  int index = 0;
  while (index < kCount && kCachedPowers[index].binaryExponent < minExponent) ++index;
  if (index == kCount || kCachedPowers[index].binaryExponent > maxExponent) return false;
  const CachedPower& power = kCachedPowers[index];
  DiyFp tenMk = {power.significand, power.binaryExponent};

  char buf[32];
  int length = 0, kappa = 0;
  if (!digitGen(times(minus, tenMk), times(w, tenMk), times(plus, tenMk), buf, &length, &kappa)) {
    return false;
  }
  while (length > 1 && buf[length - 1] == '0') {
    --length;
    ++kappa;
  }
  digits.assign(buf, static_cast<std::size_t>(length));
  // buf * 10^(kappa - mk) == 0.buf * 10^(length + kappa - mk)
  exponent = length + kappa - power.decimalExponent;
  return true;
}

// ---- exact fallback: shortest digits with big integers (Steele & White / Burger & Dybvig) ----
// Exact for every double and needs nothing from libc: the wasm build then carries no printf,
// strtod or software long double (about 11% of its code before). Only the rare doubles Grisu3
// cannot decide take this path, so simplicity beats speed here.

// An unsigned integer of up to kLimbs * 32 bits. The largest value here is about 2^3800: the
// decimal reader's scaled halfway point for kMaxDecimalDigits digits at the smallest exponent
// (the digit generator's largest is about 2^1130, the scaled numerator of the smallest subnormal).
class BigNum {
 public:
  static constexpr int kLimbs = 128;

  explicit BigNum(std::uint64_t value = 0) {
    limbs_[0] = static_cast<std::uint32_t>(value);
    limbs_[1] = static_cast<std::uint32_t>(value >> 32);
    used_ = limbs_[1] != 0 ? 2 : limbs_[0] != 0 ? 1 : 0;
  }

  void multiplySmall(std::uint32_t factor) {
    std::uint64_t carry = 0;
    for (int i = 0; i < used_; ++i) {
      std::uint64_t product = static_cast<std::uint64_t>(limbs_[i]) * factor + carry;
      limbs_[i] = static_cast<std::uint32_t>(product);
      carry = product >> 32;
    }
    if (carry != 0) limbs_[used_++] = static_cast<std::uint32_t>(carry);
  }

  void addSmall(std::uint32_t value) {
    std::uint64_t carry = value;
    for (int i = 0; i < used_ && carry != 0; ++i) {
      carry += limbs_[i];
      limbs_[i] = static_cast<std::uint32_t>(carry);
      carry >>= 32;
    }
    if (carry != 0) limbs_[used_++] = static_cast<std::uint32_t>(carry);
  }

  void multiplyPow10(int exponent) {
    for (; exponent >= 9; exponent -= 9) multiplySmall(1000000000u);
    std::uint32_t rest = 1;
    for (; exponent > 0; --exponent) rest *= 10;
    if (rest != 1) multiplySmall(rest);
  }

  void shiftLeft(int bits) {
    if (used_ == 0 || bits == 0) return;
    const int words = bits / 32, shift = bits % 32;
    if (shift != 0) {
      std::uint32_t carry = 0;
      for (int i = 0; i < used_; ++i) {
        std::uint32_t next = limbs_[i] >> (32 - shift);
        limbs_[i] = (limbs_[i] << shift) | carry;
        carry = next;
      }
      if (carry != 0) limbs_[used_++] = carry;
    }
    if (words != 0) {
      for (int i = used_ - 1; i >= 0; --i) limbs_[i + words] = limbs_[i];
      for (int i = 0; i < words; ++i) limbs_[i] = 0;
      used_ += words;
    }
  }

  // this -= other; requires this >= other.
  void subtract(const BigNum& other) {
    std::int64_t borrow = 0;
    for (int i = 0; i < used_; ++i) {
      std::int64_t difference = static_cast<std::int64_t>(limbs_[i]) - borrow -
                                (i < other.used_ ? static_cast<std::int64_t>(other.limbs_[i]) : 0);
      borrow = difference < 0 ? 1 : 0;
      limbs_[i] = static_cast<std::uint32_t>(difference + (borrow << 32));
    }
    while (used_ > 0 && limbs_[used_ - 1] == 0) --used_;
  }

  // The sign of (a + b) - c.
  static int compareSum(const BigNum& a, const BigNum& b, const BigNum& c) {
    BigNum sum = a;
    std::uint64_t carry = 0;
    const int n = a.used_ > b.used_ ? a.used_ : b.used_;
    for (int i = 0; i < n; ++i) {
      carry += static_cast<std::uint64_t>(i < a.used_ ? a.limbs_[i] : 0) +
               (i < b.used_ ? b.limbs_[i] : 0);
      sum.limbs_[i] = static_cast<std::uint32_t>(carry);
      carry >>= 32;
    }
    sum.used_ = n;
    if (carry != 0) sum.limbs_[sum.used_++] = static_cast<std::uint32_t>(carry);
    return compare(sum, c);
  }

  static int compare(const BigNum& a, const BigNum& b) {
    if (a.used_ != b.used_) return a.used_ < b.used_ ? -1 : 1;
    for (int i = a.used_ - 1; i >= 0; --i) {
      if (a.limbs_[i] != b.limbs_[i]) return a.limbs_[i] < b.limbs_[i] ? -1 : 1;
    }
    return 0;
  }

 private:
  std::uint32_t limbs_[kLimbs] = {};
  int used_ = 0;
};

// The sign of digits x 10^exponent minus the point halfway between the finite x >= 0 and the
// next double up, exactly.
int compareWithUpperHalfway(std::string_view digits, int exponent, double x) {
  std::uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  const int biased = static_cast<int>(bits >> 52);
  const std::uint64_t m =
      biased == 0 ? bits : (bits & 0x000FFFFFFFFFFFFFULL) | (1ULL << 52);
  const int k = biased == 0 ? -1074 : biased - 1075;  // x = m * 2^k, halfway (2m + 1) * 2^(k-1)
  BigNum value(0), halfway(2 * m + 1);
  for (char c : digits) {
    value.multiplySmall(10);
    value.addSmall(static_cast<std::uint32_t>(c - '0'));
  }
  if (exponent >= 0) {
    value.multiplyPow10(exponent);
  } else {
    halfway.multiplyPow10(-exponent);
  }
  if (k >= 1) {
    halfway.shiftLeft(k - 1);
  } else {
    value.shiftLeft(1 - k);
  }
  return BigNum::compare(value, halfway);
}

double nextUp(double x) {
  std::uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  ++bits;
  std::memcpy(&x, &bits, sizeof bits);
  return x;
}

double nextDown(double x) {
  std::uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  --bits;
  std::memcpy(&x, &bits, sizeof bits);
  return x;
}

bool evenSignificand(double x) {
  std::uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return (bits & 1) == 0;
}

}  // namespace



void shortestDigitsExact(double x, std::string& digits, int& exponent) {
  std::uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  const std::uint64_t fraction = bits & 0x000FFFFFFFFFFFFFULL;
  const int biased = static_cast<int>(bits >> 52) & 0x7FF;
  const std::uint64_t f = biased == 0 ? fraction : fraction | (1ULL << 52);
  const int e = biased == 0 ? -1074 : biased - 1075;
  // A decimal exactly halfway to a neighbour reads back as x when x's significand is even
  // (round-half-even), so the interval's ends count then.
  const bool inclusive = (f & 1) == 0;
  const bool lowerCloser = fraction == 0 && biased > 1;

  // x = r / s; the interval of decimals that read back as x is (x - mMinus / s, x + mPlus / s).
  BigNum r(f), s(1), mPlus(1), mMinus(1);
  const int extra = lowerCloser ? 2 : 1;  // the lower gap is half as wide just above 2^k
  r.shiftLeft(extra);
  if (e >= 0) {
    r.shiftLeft(e);
    s.shiftLeft(extra);
    mPlus.shiftLeft(e + extra - 1);
    mMinus.shiftLeft(e);
  } else {
    s.shiftLeft(extra - e);
    mPlus.shiftLeft(extra - 1);
  }

  // k with 10^(k-1) <= high < 10^k (<= when the interval is open): first an estimate from the
  // binary exponent, then exact corrections.
  int highestBit = e;
  for (std::uint64_t g = f; g > 1; g >>= 1) ++highestBit;
  int k = static_cast<int>(std::ceil(highestBit * 0.30102999566398114));
  if (k >= 0) {
    s.multiplyPow10(k);
  } else {
    r.multiplyPow10(-k);
    mPlus.multiplyPow10(-k);
    mMinus.multiplyPow10(-k);
  }
  auto tooHigh = [&](int sign) { return inclusive ? sign >= 0 : sign > 0; };
  while (tooHigh(BigNum::compareSum(r, mPlus, s))) {
    s.multiplySmall(10);
    ++k;
  }
  for (;;) {
    BigNum r10 = r, m10 = mPlus;
    r10.multiplySmall(10);
    m10.multiplySmall(10);
    if (tooHigh(BigNum::compareSum(r10, m10, s))) break;
    r = r10;
    mPlus = m10;
    mMinus.multiplySmall(10);
    --k;
  }

  digits.clear();
  for (;;) {
    r.multiplySmall(10);
    mPlus.multiplySmall(10);
    mMinus.multiplySmall(10);
    int digit = 0;
    while (BigNum::compare(r, s) >= 0) {
      r.subtract(s);
      ++digit;
    }
    const int low = BigNum::compare(r, mMinus);
    const bool canStopLow = inclusive ? low <= 0 : low < 0;
    const bool canStopHigh = tooHigh(BigNum::compareSum(r, mPlus, s));
    if (!canStopLow && !canStopHigh) {
      digits.push_back(static_cast<char>('0' + digit));
      continue;
    }
    bool up = canStopHigh;
    if (canStopLow && canStopHigh) {
      // Both neighbours read back as x: the closer one, the even one on a tie.
      const int half = BigNum::compareSum(r, r, s);
      up = half > 0 || (half == 0 && digit % 2 == 1);
    }
    digits.push_back(static_cast<char>('0' + digit + (up ? 1 : 0)));
    break;
  }
  // Rounding up cannot produce a ten here (the loop would have stopped a digit earlier), but
  // carry anyway rather than rely on it.
  for (std::size_t i = digits.size(); i-- > 1 && digits[i] > '9';) {
    digits[i] = '0';
    ++digits[i - 1];
  }
  if (digits[0] > '9') {
    digits[0] = '1';
    ++k;
  }
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  exponent = k;
}

void shortestDigitsPrintf(double x, std::string& digits, int& exponent) {
  // Binary search for the least precision that round-trips (17 always does).
  int low = 1, high = kMaxSignificantDigits;
  while (low < high) {
    int mid = (low + high) / 2;
    if (shortestAtPrecision(x, mid, digits, exponent)) {
      high = mid;
    } else {
      low = mid + 1;
    }
  }
  shortestAtPrecision(x, low, digits, exponent);
}

// The session modules compile this file with CCE_NO_GRISU3 (wasm/CMakeLists.txt): they format
// few numbers that are not integers, and the exact generation alone gives the same digits (the
// native tests check shortestDigitsExact on every value they check) in 1 KB gzip less code.
#ifdef CCE_NO_GRISU3
constexpr bool kGrisu3 = false;
#else
constexpr bool kGrisu3 = true;
#endif

void shortestDigits(double x, std::string& digits, int& exponent) {
  // The same code natively and in wasm (whose libc++ 13 has no floating-point std::to_chars), so
  // native tests cover what the wasm build computes.
  if (!kGrisu3 || !grisu3(x, digits, exponent)) shortestDigitsExact(x, digits, exponent);
}

}  // namespace detail

#ifdef CCE_HOST_NUMBERS
// The session modules' host is a JavaScript engine, and these two functions reproduce its own
// Number() and String(): there they ask it (wasm/host_imports.js), which leaves the big-number
// arithmetic and the digit generation below out of each module (docs/boundary.md, "Numbers by the
// host"). The rest of this file stays the native tests' reference for both.
extern "C" double cce_host_decimal_to_double(const char* digits, std::size_t length, int exponent);
extern "C" std::size_t cce_host_number_to_string(double x, char* out);

double decimalToDouble(std::string_view digits, int exponent) {
  return cce_host_decimal_to_double(digits.data(), digits.size(), exponent);
}

std::string numberToString(double x) {
  char text[32];  // String(x) of a double is at most 25 characters ("-1.2345678901234567e-308")
  return std::string(text, cce_host_number_to_string(x, text));
}
#else
double decimalToDouble(std::string_view digits, int exponent) {
  // Digits past kMaxDecimalDigits only tell whether the rest is zero: a double or a halfway
  // point between two has at most 767 significant digits, so a nonzero tail read as one 1 digit
  // after them leaves every comparison below as it was.
  std::string kept;
  if (digits.size() > kMaxDecimalDigits) {
    kept.assign(digits.substr(0, kMaxDecimalDigits));
    exponent += static_cast<int>(digits.size() - kMaxDecimalDigits);
    if (digits.find_first_not_of('0', kMaxDecimalDigits) != std::string_view::npos) {
      kept.push_back('1');
      --exponent;
    }
    digits = kept;
  }
  const int n = static_cast<int>(digits.size());
  if (n == 0) return 0;
  if (n + exponent > 309) return HUGE_VAL;  // at least 10^309
  if (n + exponent <= -324) return 0;       // below 10^-324, under half the smallest subnormal
  // An estimate from the leading 19 digits (exact below 2^53 and 10^22: then it is the answer).
  const int lead = n < 19 ? n : 19;
  std::uint64_t significand = 0;
  for (int i = 0; i < lead; ++i) significand = significand * 10 + static_cast<unsigned>(digits[i] - '0');
  double x = static_cast<double>(significand);
  int scale = exponent + (n - lead);
  if (n <= 15 && scale >= -22 && scale <= 22) {
    double power = 1;
    for (int i = 0; i < (scale < 0 ? -scale : scale); ++i) power *= 10;
    return scale < 0 ? x / power : x * power;
  }
  for (; scale >= 22; scale -= 22) x *= 1e22;
  for (; scale <= -22; scale += 22) x /= 1e22;
  for (; scale > 0; --scale) x *= 10;
  for (; scale < 0; ++scale) x /= 10;
  if (x > 1.7976931348623157e308) x = 1.7976931348623157e308;
  // Each scaling step rounded once, so the estimate is a few units in the last place off: walk
  // to the double whose rounding interval holds the decimal (ties to the even significand).
  for (;;) {
    const int above = detail::compareWithUpperHalfway(digits, exponent, x);
    if (above > 0 || (above == 0 && !detail::evenSignificand(x))) {
      if (x == 1.7976931348623157e308) return HUGE_VAL;
      x = detail::nextUp(x);
      continue;
    }
    if (x == 0) return x;
    const double below = detail::nextDown(x);
    const int under = detail::compareWithUpperHalfway(digits, exponent, below);
    if (under < 0 || (under == 0 && detail::evenSignificand(below))) {
      x = below;
      continue;
    }
    return x;
  }
}

std::string numberToString(double x) {
  if (std::isnan(x)) return "NaN";
  if (x == 0) return "0";  // both zeros
  std::string out;
  if (x < 0) {
    out.push_back('-');
    x = -x;
  }
  if (std::isinf(x)) return out + "Infinity";

  // Integers below 2^53 are exact, and their shortest digits are their own digits.
  if (x < 9007199254740992.0 && x == std::floor(x)) {
    char buf[24];
    std::to_chars_result r =
        std::to_chars(buf, buf + sizeof buf, static_cast<unsigned long long>(x));
    out.append(buf, r.ptr);
    return out;
  }

  std::string digits;
  int n;
  detail::shortestDigits(x, digits, n);
  const int k = static_cast<int>(digits.size());
  if (k <= n && n <= 21) {
    out += digits;
    out.append(static_cast<std::size_t>(n - k), '0');
  } else if (0 < n && n <= 21) {
    out.append(digits, 0, static_cast<std::size_t>(n));
    out.push_back('.');
    out.append(digits, static_cast<std::size_t>(n), std::string::npos);
  } else if (-6 < n && n <= 0) {
    out += "0.";
    out.append(static_cast<std::size_t>(-n), '0');
    out += digits;
  } else {
    out.push_back(digits[0]);
    if (k > 1) {
      out.push_back('.');
      out.append(digits, 1, std::string::npos);
    }
    int e = n - 1;
    out.push_back('e');
    out.push_back(e < 0 ? '-' : '+');
    out += js::decimalAscii(e < 0 ? -e : e);
  }
  return out;
}
#endif  // CCE_HOST_NUMBERS

double mathRound(double x) {
  // ECMAScript Math.round: integral values (and NaN, ±Infinity) unchanged, otherwise the closest
  // integer with ties toward +Infinity, keeping the sign of negative inputs that round to zero.
  // x - floor(x) is exact, so there is no floor(x + 0.5) error at 0.49999999999999994.
  if (!std::isfinite(x) || x == std::floor(x)) return x;
  double down = std::floor(x);
  double r = (x - down >= 0.5) ? down + 1 : down;
  if (r == 0 && x < 0) return -0.0;
  return r;
}

std::string toBase36(std::uint32_t n) {
  char buf[8];
  char* p = buf + sizeof buf;
  do {
    *--p = "0123456789abcdefghijklmnopqrstuvwxyz"[n % 36];
    n /= 36;
  } while (n != 0);
  return std::string(p, buf + sizeof buf);
}

}  // namespace cce::js
