// SPDX-License-Identifier: MIT
// Shortest round-trip decimal digits of a double (internal to number.cpp; exposed for its tests).
#pragma once

#include <string>

namespace cce::js::detail {

/// For a finite x > 0: the shortest digit string d1..dk (no trailing zeros) and the exponent n with
/// x == 0.d1..dk × 10^n after round-tripping, choosing the candidate closest to x, as the
/// ECMAScript Number::toString algorithm requires (Grisu3, falling back to the search below when
/// Grisu3 cannot decide, as V8 does with its bignum fallback).
void shortestDigits(double x, std::string& digits, int& exponent);

/// The same through an exact printf/strtod search only: slow, but needs nothing beyond C. Exposed
/// so tests can check it on its own against std::to_chars (which Emscripten's libc++ 13 lacks).
void shortestDigitsPrintf(double x, std::string& digits, int& exponent);

}  // namespace cce::js::detail
