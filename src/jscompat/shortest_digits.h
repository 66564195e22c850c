// SPDX-License-Identifier: MIT
// Shortest round-trip decimal digits of a double (internal to number.cpp; exposed for its tests).
#pragma once

#include <string>

namespace cce::js::detail {

/// For a finite x > 0: the shortest digit string d1..dk (no trailing zeros) and the exponent n with
/// x == 0.d1..dk × 10^n after round-tripping, choosing the candidate closest to x, as the
/// ECMAScript Number::toString algorithm requires. Uses std::to_chars where the library has it.
void shortestDigits(double x, std::string& digits, int& exponent);

/// The same through printf/strtod only: what the wasm build uses, since Emscripten's libc++ 13 has
/// no floating-point std::to_chars. Exposed so native tests can check it against to_chars.
void shortestDigitsPrintf(double x, std::string& digits, int& exponent);

}  // namespace cce::js::detail
