// SPDX-License-Identifier: MIT
// The JavaScript string model (spec §12.1-5, 10, 14): UTF-16 code units, the JS `\s` set, ASCII `\w`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "compiler.h"

namespace cce::js {

using U16 = std::u16string;
using U16View = std::u16string_view;

namespace detail {
// The rare half of isSpace, out of line so that the ASCII test inlines into every scanner loop.
CCE_NOINLINE constexpr bool isSpaceFrom00A0(char16_t c) {
  return c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 ||
         c == 0x202F || c == 0x205F || c == 0x3000 || c == 0xFEFF;
}
}  // namespace detail

/// JS `\s` / `trim()` whitespace: U+0009-000D, 0020, 00A0, 1680, 2000-200A, 2028, 2029, 202F, 205F,
/// 3000, FEFF. (Not U+0085, not U+180E, not U+200B.)
constexpr bool isSpace(char16_t c) {
  if (c <= 0x20) return c == 0x20 || (c >= 0x09 && c <= 0x0D);
  return c >= 0xA0 && detail::isSpaceFrom00A0(c);
}

/// JS `\w` without the `u` flag: [A-Za-z0-9_].
constexpr bool isWord(char16_t c) {
  return (c >= u'a' && c <= u'z') || (c >= u'A' && c <= u'Z') || (c >= u'0' && c <= u'9') ||
         c == u'_';
}
constexpr bool isDigit(char16_t c) { return c >= u'0' && c <= u'9'; }
constexpr bool isUpper(char16_t c) { return c >= u'A' && c <= u'Z'; }
constexpr bool isLower(char16_t c) { return c >= u'a' && c <= u'z'; }
constexpr bool isAlpha(char16_t c) { return isUpper(c) || isLower(c); }
constexpr bool isAlnum(char16_t c) { return isAlpha(c) || isDigit(c); }

/// Line terminators for `.` and multiline `^`/`$`: \n, \r, U+2028, U+2029.
constexpr bool isLineTerminator(char16_t c) {
  return c == u'\n' || c == u'\r' || c == 0x2028 || c == 0x2029;
}

/// ASCII-only case folding, which is exact for every case-insensitive pattern compress uses (§12.4).
constexpr char16_t asciiLower(char16_t c) { return isUpper(c) ? char16_t(c + 32) : c; }
constexpr char16_t asciiUpper(char16_t c) { return isLower(c) ? char16_t(c - 32) : c; }

/// `\b` at position i of s: exactly one of s[i-1], s[i] is a word char (string edges count as
/// non-word).
inline bool isWordBoundary(U16View s, std::size_t i) {
  bool before = i > 0 && isWord(s[i - 1]);
  bool after = i < s.size() && isWord(s[i]);
  return before != after;
}

/// `String.prototype.trim`.
U16View trimView(U16View s);
inline U16 trim(U16View s) { return U16(trimView(s)); }

/// `s.split(sep)` for a one-unit separator (keeps empty strings, like JS).
std::vector<U16View> splitOn(U16View s, char16_t sep);

/// `s.split(/\s+/)` (JS semantics: a leading whitespace run produces an empty first item, a trailing
/// one an empty last item; "" gives [""]).
std::vector<U16View> splitOnSpaceRuns(U16View s);

/// True when `s` starts with the ASCII literal `prefix` compared case-insensitively (ASCII folding).
bool startsWithAsciiNoCase(U16View s, std::string_view prefix);
/// Exact comparison of a UTF-16 range with an ASCII literal.
bool equalsAscii(U16View s, std::string_view ascii);
bool startsWithAscii(U16View s, std::string_view ascii);

/// An ASCII literal as UTF-16 (for building output text).
U16 fromAscii(std::string_view ascii);

/// Appends the decimal digits of `n` (what `String(n)` writes for a whole number below 2^53, and
/// for any uint64 the digits of its exact value).
void appendDecimal(U16& out, std::uint64_t n);
/// The same digits as ASCII, for error messages and JSON pointers (std::to_string's formatter
/// would be a second one in the wasm module).
std::string decimalAscii(std::uint64_t n);

/// `String.prototype.toLowerCase` with full Unicode mappings, including SpecialCasing
/// (U+0130 → "i̇") and the final-sigma rule (spec §12.10). Works on code points; lone surrogates
/// pass through unchanged.
U16 toLowerCase(U16View s);

namespace detail {
/// FNV-1a over every code point's simple lower-case delta and Final_Sigma class, computed from the
/// unpacked tables, and the digest the generator computed from Node itself (the unit test).
std::uint32_t lowerCaseTableDigest();
std::uint32_t lowerCaseTableExpectedDigest();
}  // namespace detail

// ---- encodings -------------------------------------------------------------------------------

/// UTF-8 (and WTF-8: surrogate code points encoded in three bytes) to UTF-16. Invalid byte sequences
/// become U+FFFD, one per maximal invalid subpart, as TextDecoder does.
U16 fromUtf8(std::string_view bytes);

/// UTF-16 to UTF-8. Lone surrogates are written as their WTF-8 three-byte form, so the conversion
/// is lossless; the JSON writer never relies on this (it escapes them as \udXXX like JSON.stringify).
std::string toUtf8(U16View s);

}  // namespace cce::js
