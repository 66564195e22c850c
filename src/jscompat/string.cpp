// SPDX-License-Identifier: MIT
// JavaScript string semantics over UTF-16 code units (spec §12); toLowerCase is in lower_case.cpp.
#include "jscompat/string.h"

namespace cce::js {

U16View trimView(U16View s) {
  std::size_t b = 0, e = s.size();
  while (b < e && isSpace(s[b])) ++b;
  while (e > b && isSpace(s[e - 1])) --e;
  return s.substr(b, e - b);
}

std::vector<U16View> splitOn(U16View s, char16_t sep) {
  std::vector<U16View> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == sep) {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  out.push_back(s.substr(start));
  return out;
}

std::vector<U16View> splitOnSpaceRuns(U16View s) {
  std::vector<U16View> out;
  std::size_t start = 0, i = 0;
  while (i < s.size()) {
    if (isSpace(s[i])) {
      std::size_t runEnd = i;
      while (runEnd < s.size() && isSpace(s[runEnd])) ++runEnd;
      out.push_back(s.substr(start, i - start));
      start = runEnd;
      i = runEnd;
    } else {
      ++i;
    }
  }
  out.push_back(s.substr(start));
  return out;
}

bool startsWithAsciiNoCase(U16View s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    if (asciiLower(s[i]) != asciiLower(char16_t(static_cast<unsigned char>(prefix[i]))))
      return false;
  }
  return true;
}

bool equalsAscii(U16View s, std::string_view ascii) {
  return s.size() == ascii.size() && startsWithAscii(s, ascii);
}

bool startsWithAscii(U16View s, std::string_view ascii) {
  if (s.size() < ascii.size()) return false;
  for (std::size_t i = 0; i < ascii.size(); ++i) {
    if (s[i] != char16_t(static_cast<unsigned char>(ascii[i]))) return false;
  }
  return true;
}

U16 fromAscii(std::string_view ascii) {
  U16 out;
  out.reserve(ascii.size());
  for (char c : ascii) out.push_back(char16_t(static_cast<unsigned char>(c)));
  return out;
}

namespace {

// Writes the digits of n at the end of `digits` (20 fit any uint64); returns where they start.
template <typename Char>
std::size_t writeDecimal(std::uint64_t n, Char (&digits)[20]) {
  std::size_t at = 20;
  do {
    digits[--at] = static_cast<Char>('0' + n % 10);
    n /= 10;
  } while (n != 0);
  return at;
}

}  // namespace

void appendDecimal(U16& out, std::uint64_t n) {
  char16_t digits[20];
  const std::size_t at = writeDecimal(n, digits);
  out.append(digits + at, 20 - at);
}

std::string decimalAscii(std::uint64_t n) {
  char digits[20];
  const std::size_t at = writeDecimal(n, digits);
  return std::string(digits + at, 20 - at);
}

}  // namespace cce::js
