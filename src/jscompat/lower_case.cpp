// SPDX-License-Identifier: MIT
// String.prototype.toLowerCase over code points, from tables measured on the reference's Node.
#include <algorithm>
#include <cstdint>

#include "jscompat/string.h"

namespace cce::js {
namespace {

struct LowerRange {
  std::uint32_t first;
  std::uint32_t last;
  std::int32_t delta;
  std::uint8_t stride;
};

struct LowerSpecial {
  std::uint32_t codePoint;
  std::uint8_t length;
  char16_t units[3];
};

struct CodeRange {
  std::uint32_t first;
  std::uint32_t last;
};

#include "jscompat/lower_case_table.inc"

constexpr char32_t kCapitalSigma = 0x03A3;
constexpr char16_t kSmallSigma = 0x03C3;
constexpr char16_t kFinalSigma = 0x03C2;

template <typename Range, std::size_t N>
const Range* findRange(const Range (&table)[N], char32_t cp) {
  // The range with first <= cp <= last, if any (a stride-2 range still needs the parity check).
  const Range* it = std::upper_bound(table, table + N, cp,
                                     [](char32_t c, const Range& r) { return c < r.first; });
  if (it == table) return nullptr;
  --it;
  return cp <= it->last ? it : nullptr;
}

char32_t simpleLower(char32_t cp) {
  const LowerRange* r = findRange(kLowerRanges, cp);
  if (r == nullptr || (cp - r->first) % r->stride != 0) return cp;
  return static_cast<char32_t>(static_cast<std::int32_t>(cp) + r->delta);
}

const LowerSpecial* findSpecial(char32_t cp) {
  for (const LowerSpecial& special : kLowerSpecials) {
    if (special.codePoint == cp) return &special;
  }
  return nullptr;
}

bool isCaseIgnorable(char32_t cp) { return findRange(kCaseIgnorableRanges, cp) != nullptr; }
bool isCased(char32_t cp) { return findRange(kCasedRanges, cp) != nullptr; }

// Lone surrogates are their own code points, as in ICU's UTF-16 iteration.
char32_t codePointAt(U16View s, std::size_t i, std::size_t* width) {
  char16_t c = s[i];
  if (c >= 0xD800 && c <= 0xDBFF && i + 1 < s.size() && s[i + 1] >= 0xDC00 && s[i + 1] <= 0xDFFF) {
    *width = 2;
    return 0x10000 + ((char32_t(c) - 0xD800) << 10) + (char32_t(s[i + 1]) - 0xDC00);
  }
  *width = 1;
  return c;
}

char32_t codePointBefore(U16View s, std::size_t end, std::size_t* width) {
  char16_t c = s[end - 1];
  if (c >= 0xDC00 && c <= 0xDFFF && end >= 2 && s[end - 2] >= 0xD800 && s[end - 2] <= 0xDBFF) {
    *width = 2;
    return 0x10000 + ((char32_t(s[end - 2]) - 0xD800) << 10) + (char32_t(c) - 0xDC00);
  }
  *width = 1;
  return c;
}

// Unicode Final_Sigma, as ICU tests it: skipping case-ignorable code points, the nearest code
// point on the given side is cased. A walk stops at the first code point that is not
// case-ignorable, and a sigma is such a code point, so each ignorable run is walked at most twice
// (by the sigmas on either side of it): the whole conversion stays linear.
bool casedBefore(U16View s, std::size_t pos) {
  while (pos > 0) {
    std::size_t width;
    char32_t cp = codePointBefore(s, pos, &width);
    pos -= width;
    if (isCaseIgnorable(cp)) continue;
    return isCased(cp);
  }
  return false;
}

bool casedAfter(U16View s, std::size_t pos) {
  while (pos < s.size()) {
    std::size_t width;
    char32_t cp = codePointAt(s, pos, &width);
    pos += width;
    if (isCaseIgnorable(cp)) continue;
    return isCased(cp);
  }
  return false;
}

void appendCodePoint(char32_t cp, U16& out) {
  if (cp < 0x10000) {
    out.push_back(static_cast<char16_t>(cp));
  } else {
    cp -= 0x10000;
    out.push_back(static_cast<char16_t>(0xD800 + (cp >> 10)));
    out.push_back(static_cast<char16_t>(0xDC00 + (cp & 0x3FF)));
  }
}

}  // namespace

U16 toLowerCase(U16View s) {
  U16 out;
  out.reserve(s.size());
  std::size_t i = 0;
  while (i < s.size()) {
    char16_t c = s[i];
    if (c < 0x80) {
      out.push_back(asciiLower(c));
      ++i;
      continue;
    }
    std::size_t width;
    char32_t cp = codePointAt(s, i, &width);
    if (cp == kCapitalSigma) {
      bool isFinal = casedBefore(s, i) && !casedAfter(s, i + width);
      out.push_back(isFinal ? kFinalSigma : kSmallSigma);
    } else if (const LowerSpecial* special = findSpecial(cp)) {
      out.append(special->units, special->length);
    } else {
      appendCodePoint(simpleLower(cp), out);
    }
    i += width;
  }
  return out;
}

}  // namespace cce::js
