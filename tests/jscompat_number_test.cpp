// SPDX-License-Identifier: MIT
// Tests for JavaScript number semantics: Number#toString, Math.round, toString(36).
#include <doctest/doctest.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

#include "jscompat/number.h"
#include "jscompat/shortest_digits.h"

namespace {

double fromBits(std::uint64_t bits) {
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

std::uint64_t toBits(double d) {
  std::uint64_t bits;
  std::memcpy(&bits, &d, sizeof bits);
  return bits;
}

// splitmix64, as in the Node script that produced the expected hashes.
struct SplitMix {
  std::uint64_t state = 0x9E3779B97F4A7C15ull;
  std::uint64_t next() {
    state += 0x9E3779B97F4A7C15ull;
    std::uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
};

// FNV-1a over the bytes of each string, each followed by '\n'.
struct Fnv {
  std::uint32_t h = 0x811C9DC5u;
  void feed(const std::string& s) {
    for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
    h = (h ^ '\n') * 16777619u;
  }
};

// The four families of doubles the Node script stringified; `visit` sees them in its order.
template <typename Visit>
void forEachFamilyValue(int family, Visit visit) {
  SplitMix rng;
  // The generator state runs on across families, as in the script.
  for (int f = 0; f <= family; ++f) {
    if (f == 0) {
      for (int n = 0; n < 30000;) {
        std::uint64_t b = rng.next();
        if (((b >> 52) & 0x7FF) == 0x7FF) continue;  // NaN and Infinity patterns
        if (f == family) visit(fromBits(b));
        ++n;
      }
    } else if (f == 1) {
      for (int i = 0; i < 30000; ++i) {
        std::uint64_t b = rng.next();
        std::uint64_t e = 1023 - 27 + b % 100;
        std::uint64_t bits = (b & 0x800FFFFFFFFFFFFFull) | (e << 52);
        if (f == family) visit(fromBits(bits));
      }
    } else if (f == 2) {
      if (f != family) continue;
      for (int e = -1074; e <= 1023; ++e) {
        double x = std::ldexp(1.0, e);
        std::uint64_t b = toBits(x);
        visit(x);
        if (b > 0) visit(fromBits(b - 1));
        visit(fromBits(b + 1));
      }
    } else {
      for (int i = 0; i < 30000; ++i) {
        long long k = static_cast<long long>(rng.next() % 100000);
        int m = static_cast<int>(rng.next() % 50) - 25;
        char buf[32];
        std::snprintf(buf, sizeof buf, "%llde%d", k, m);
        if (f == family) visit(std::strtod(buf, nullptr));
      }
    }
  }
}

struct Family {
  const char* name;
  std::uint32_t nodeHash;  // FNV-1a of String(x) for each value, from Node 20.20.2
};
constexpr Family kFamilies[] = {
    {"random bit patterns", 0x3E064226u},
    {"exponents around the fixed-notation range", 0x9B694E5Eu},
    {"powers of two and their neighbours", 0xE5D3BF88u},
    {"short decimals k * 10^m", 0x42EED18Au},
};

}  // namespace

TEST_SUITE("jscompat_number") {
  TEST_CASE("numberToString formats like JavaScript String(x)") {
    struct Case {
      const char* name;
      double value;
      const char* expected;  // String(x) in Node 20.20.2
    };
    const Case cases[] = {
        {"0", 0, "0"},
        {"-0", -0.0, "0"},
        {"1", 1, "1"},
        {"-1", -1, "-1"},
        {"4.375", 4.375, "4.375"},
        {"100", 100, "100"},
        {"1e21", 1e21, "1e+21"},
        {"-1e21", -1e21, "-1e+21"},
        {"1e-7", 1e-7, "1e-7"},
        {"1.5e-7", 1.5e-7, "1.5e-7"},
        {"0.000001", 0.000001, "0.000001"},
        {"0.0000015", 0.0000015, "0.0000015"},
        {"123456789012345680000", 123456789012345680000.0, "123456789012345680000"},
        {"1e20", 1e20, "100000000000000000000"},
        {"9007199254740992", 9007199254740992.0, "9007199254740992"},
        {"9007199254740993", 9007199254740993.0, "9007199254740992"},
        {"18014398509481984", 18014398509481984.0, "18014398509481984"},
        {"5e-324", 5e-324, "5e-324"},
        {"-5e-324", -5e-324, "-5e-324"},
        {"2.2250738585072014e-308", 2.2250738585072014e-308, "2.2250738585072014e-308"},
        {"1.7976931348623157e308", 1.7976931348623157e308, "1.7976931348623157e+308"},
        {"0.1", 0.1, "0.1"},
        {"0.2", 0.2, "0.2"},
        {"0.1 + 0.2", 0.1 + 0.2, "0.30000000000000004"},
        {"6.896551724137931", 6.896551724137931, "6.896551724137931"},
        {"0.7", 0.7, "0.7"},
        {"1/3", 1.0 / 3, "0.3333333333333333"},
        {"2/3", 2.0 / 3, "0.6666666666666666"},
        {"100/7", 100.0 / 7, "14.285714285714286"},
        {"1e100", 1e100, "1e+100"},
        {"123e-20", 123e-20, "1.23e-18"},
        {"0.001", 0.001, "0.001"},
        {"1.0000000000000002", 1.0000000000000002, "1.0000000000000002"},
        {"4294967295", 4294967295.0, "4294967295"},
        {"4294967296", 4294967296.0, "4294967296"},
        {"1e15", 1e15, "1000000000000000"},
        {"1e16", 1e16, "10000000000000000"},
        {"1e17", 1e17, "100000000000000000"},
        {"123456.789", 123456.789, "123456.789"},
        {"-123456.789", -123456.789, "-123456.789"},
        {"9.999999999999999e20", 9.999999999999999e20, "999999999999999900000"},
        {"2**-1022", std::ldexp(1.0, -1022), "2.2250738585072014e-308"},
        {"2**-1074*3", std::ldexp(3.0, -1074), "1.5e-323"},
        {"2**1023", std::ldexp(1.0, 1023), "8.98846567431158e+307"},
        {"2**64", std::ldexp(1.0, 64), "18446744073709552000"},
        {"2**70", std::ldexp(1.0, 70), "1.1805916207174113e+21"},
        {"NaN", std::numeric_limits<double>::quiet_NaN(), "NaN"},
        {"Infinity", std::numeric_limits<double>::infinity(), "Infinity"},
        {"-Infinity", -std::numeric_limits<double>::infinity(), "-Infinity"},
    };
    for (const Case& c : cases) {
      CAPTURE(c.name);
      CHECK(cce::js::numberToString(c.value) == c.expected);
    }
  }

  TEST_CASE("numberToString matches Node over about a hundred thousand doubles") {
    for (int family = 0; family < 4; ++family) {
      CAPTURE(kFamilies[family].name);
      Fnv fnv;
      forEachFamilyValue(family, [&fnv](double x) { fnv.feed(cce::js::numberToString(x)); });
      CHECK(fnv.h == kFamilies[family].nodeHash);
    }
  }

  TEST_CASE("Grisu3 with its fallback, the big-integer and the printf searches agree") {
#if defined(__cpp_lib_to_chars) && __cpp_lib_to_chars >= 201611L
    // std::to_chars (libstdc++) is the independent oracle here; the wasm build, whose libc++ 13
    // has no floating-point to_chars, checks the searches against the printf one instead. The
    // printf search is slow, so it is sampled outside the powers of two, where the round-trip
    // interval is lopsided and every value is checked.
    auto oracle = [](double x, std::string& digits, int& exponent) {
      char buf[64];
      std::to_chars_result r =
          std::to_chars(buf, buf + sizeof buf - 1, x, std::chars_format::scientific);
      *r.ptr = '\0';
      // "d.ddde±x" -> digits without trailing zeros, exponent of the 0.ddd form
      digits.clear();
      const char* p = buf;
      for (; *p != 'e'; ++p) {
        if (*p != '.') digits.push_back(*p);
      }
      while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
      exponent = std::atoi(p + 1) + 1;
    };
    constexpr bool kSlowOracle = false;
#else
    auto oracle = cce::js::detail::shortestDigitsPrintf;
    constexpr bool kSlowOracle = true;  // so only the sampled values are checked
#endif
    struct Digits {
      std::string digits;
      int exponent = 0;
      bool operator==(const Digits& o) const {
        return digits == o.digits && exponent == o.exponent;
      }
    };
    for (int family = 0; family < 4; ++family) {
      CAPTURE(kFamilies[family].name);
      const int printfStride = family == 2 ? 1 : 8;
      int seen = 0, mismatches = 0;
      forEachFamilyValue(family, [&](double x) {
        x = std::fabs(x);
        if (x == 0) return;
        if (kSlowOracle && seen % printfStride != 0) {
          ++seen;
          return;
        }
        Digits expected, fast, exact, slow;
        oracle(x, expected.digits, expected.exponent);
        cce::js::detail::shortestDigits(x, fast.digits, fast.exponent);
        cce::js::detail::shortestDigitsExact(x, exact.digits, exact.exponent);
        if (seen++ % printfStride == 0) {
          cce::js::detail::shortestDigitsPrintf(x, slow.digits, slow.exponent);
        } else {
          slow = expected;
        }
        bool same = fast == expected && exact == expected && slow == expected;
        if (!same && ++mismatches <= 5) {
          CAPTURE(x);
          CAPTURE(expected.digits);
          CAPTURE(expected.exponent);
          CHECK(fast.digits == expected.digits);
          CHECK(fast.exponent == expected.exponent);
          CHECK(exact.digits == expected.digits);
          CHECK(exact.exponent == expected.exponent);
          CHECK(slow.digits == expected.digits);
          CHECK(slow.exponent == expected.exponent);
        }
      });
      CHECK(mismatches == 0);
    }
  }

  TEST_CASE("the big-integer search handles the extremes and ties of the double range") {
    struct Case {
      const char* name;
      double value;
      const char* digits;  // String(x) in Node 20.20.2, as 0.digits * 10^exponent
      int exponent;
    };
    const Case cases[] = {
        {"smallest subnormal", 5e-324, "5", -323},
        {"largest subnormal", 2.225073858507201e-308, "2225073858507201", -307},
        {"smallest normal", 2.2250738585072014e-308, "22250738585072014", -307},
        {"largest double", 1.7976931348623157e308, "17976931348623157", 309},
        {"2**-1074*3", std::ldexp(3.0, -1074), "15", -322},
        {"2**1023", std::ldexp(1.0, 1023), "898846567431158", 308},
        {"1", 1.0, "1", 1},
        {"0.1", 0.1, "1", 0},
        {"1e23 (between two doubles)", 1e23, "1", 24},
        {"9007199254740993", 9007199254740993.0, "9007199254740992", 16},
        {"5e-7", 5e-7, "5", -6},
        {"2**64", std::ldexp(1.0, 64), "18446744073709552", 20},
    };
    for (const Case& c : cases) {
      CAPTURE(c.name);
      std::string digits;
      int exponent = 0;
      cce::js::detail::shortestDigitsExact(c.value, digits, exponent);
      CHECK(digits == c.digits);
      CHECK(exponent == c.exponent);
    }
  }

  TEST_CASE("mathRound rounds half toward +Infinity and keeps negative zero") {
    struct Case {
      double value;
      double expected;  // Math.round(x) in Node 20.20.2
      bool negativeZero;
    };
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    const Case cases[] = {
        {0.5, 1, false},
        {-0.5, 0, true},
        {2.5, 3, false},
        {-2.5, -2, false},
        {0.49999999999999994, 0, false},
        {-0.49999999999999994, 0, true},
        {1.5, 2, false},
        {-1.5, -1, false},
        {4503599627370495.5, 4503599627370496.0, false},
        {-4503599627370495.5, -4503599627370495.0, false},
        {inf, inf, false},
        {-inf, -inf, false},
        {-0.0, 0, true},
        {0.1, 0, false},
        {-0.1, 0, true},
        {1e300, 1e300, false},
        {12.5, 13, false},
        {-12.5, -12, false},
        {0.5000000000000001, 1, false},
        {9007199254740991.0, 9007199254740991.0, false},
    };
    for (const Case& c : cases) {
      CAPTURE(c.value);
      double r = cce::js::mathRound(c.value);
      CHECK(r == c.expected);
      CHECK(std::signbit(r) == (c.negativeZero || c.expected < 0));
    }
    CHECK(std::isnan(cce::js::mathRound(nan)));
  }

  TEST_CASE("toBase36 matches Number#toString(36)") {
    struct Case {
      std::uint32_t value;
      const char* expected;  // n.toString(36) in Node 20.20.2
    };
    const Case cases[] = {
        {0, "0"},
        {1, "1"},
        {35, "z"},
        {36, "10"},
        {1295, "zz"},
        {1296, "100"},
        {46655, "zzz"},
        {2147483647, "zik0zj"},
        {4294967295u, "1z141z3"},
        {123456789, "21i3v9"},
    };
    for (const Case& c : cases) {
      CAPTURE(c.value);
      CHECK(cce::js::toBase36(c.value) == c.expected);
    }
  }
}
