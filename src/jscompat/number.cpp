// SPDX-License-Identifier: MIT
// JavaScript Number#toString, Math.round and base-36 integers (spec §12.8).
#include "jscompat/number.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "jscompat/shortest_digits.h"

namespace cce::js {
namespace detail {
namespace {

constexpr int kMaxSignificantDigits = 17;  // always enough for a double to round-trip

// Parses "d.ddde±x" (the shape printf %e and to_chars scientific both produce) into digits without
// trailing zeros and the exponent of the 0.ddd form.
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

}  // namespace

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

void shortestDigits(double x, std::string& digits, int& exponent) {
#if defined(__cpp_lib_to_chars) && __cpp_lib_to_chars >= 201611L
  char buf[64];
  std::to_chars_result r = std::to_chars(buf, buf + sizeof buf - 1, x, std::chars_format::scientific);
  *r.ptr = '\0';
  splitScientific(buf, digits, exponent);
#else
  shortestDigitsPrintf(x, digits, exponent);
#endif
}

}  // namespace detail

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
    out += std::to_string(e < 0 ? -e : e);
  }
  return out;
}

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
