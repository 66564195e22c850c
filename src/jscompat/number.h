// SPDX-License-Identifier: MIT
// JavaScript Number semantics (spec §12.8): Number#toString, Math.round, base-36 integers.
#pragma once

#include <cstdint>
#include <string>

namespace cce::js {

/// `String(x)` for a JS number: shortest round-trip digits, fixed notation for 1e-7 <= |x| < 1e21,
/// exponent notation otherwise ("1e+21", "1.5e-7"), "NaN", "Infinity", "-Infinity", "0" for -0.
std::string numberToString(double x);

/// `Math.round(x)`: rounds half toward +Infinity.
double mathRound(double x);

/// `n.toString(36)` for an unsigned 32-bit integer (lowercase, no padding).
std::string toBase36(std::uint32_t n);

}  // namespace cce::js
