// SPDX-License-Identifier: MIT
// Shortest round-trip decimal digits of a double (internal to number.cpp; exposed for its tests).
#pragma once

#include <string>

namespace cce::js::detail {

/// For a finite x > 0: the shortest digit string d1..dk (no trailing zeros) and the exponent n with
/// x == 0.d1..dk × 10^n after round-tripping, choosing the candidate closest to x, as the
/// ECMAScript Number::toString algorithm requires (Grisu3, falling back to shortestDigitsExact when
/// Grisu3 cannot decide, as V8 does with its bignum fallback).
void shortestDigits(double x, std::string& digits, int& exponent);

/// The same by exact big-integer digit generation alone (Steele & White): slower than Grisu3, but
/// right for every double and free of libc formatting. Exposed so tests check it on every value.
void shortestDigitsExact(double x, std::string& digits, int& exponent);

/// The same through an exact printf/strtod search: slow, an independent oracle for tests where
/// std::to_chars is missing (Emscripten's libc++ 13). The engine never calls it.
void shortestDigitsPrintf(double x, std::string& digits, int& exponent);

}  // namespace cce::js::detail
