// SPDX-License-Identifier: MIT
// JavaScript Number semantics (spec §12.8): Number#toString, reading a decimal, Math.round,
// base-36 integers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace cce::js {

/// `String(x)` for a JS number: shortest round-trip digits, fixed notation for 1e-7 <= |x| < 1e21,
/// exponent notation otherwise ("1e+21", "1.5e-7"), "NaN", "Infinity", "-Infinity", "0" for -0.
std::string numberToString(double x);

/// Significant decimal digits this reader keeps exactly; see decimalToDouble.
constexpr std::size_t kMaxDecimalDigits = 780;

/// The double nearest to digits x 10^exponent (ties to even), as JSON.parse and Number() read a
/// decimal: `digits` are '0'-'9' without leading zeros (empty for zero), any number of them.
/// HUGE_VAL when it rounds past the largest double. Exact big-integer comparison after an
/// estimate, so it needs neither strtod nor a table of powers.
double decimalToDouble(std::string_view digits, int exponent);

/// `Math.round(x)`: rounds half toward +Infinity.
double mathRound(double x);

/// `n.toString(36)` for an unsigned 32-bit integer (lowercase, no padding).
std::string toBase36(std::uint32_t n);

}  // namespace cce::js
