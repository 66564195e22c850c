// SPDX-License-Identifier: MIT
// String.prototype.toLowerCase over code points, from tables measured on the reference's Node.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "jscompat/string.h"

namespace cce::js {
namespace {

struct LowerRange {
  std::uint32_t first;
  std::uint32_t last;
  std::int32_t delta;
  std::uint32_t stride;
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

// The packed tables (LEB128 varints, scripts/gen-lower-case.mjs), read in order.
class PackedReader {
 public:
  explicit PackedReader(const unsigned char* bytes) : at_(bytes) {}
  std::uint32_t next() {
    std::uint32_t value = 0;
    for (int shift = 0;; shift += 7) {
      const unsigned char b = *at_++;
      value |= static_cast<std::uint32_t>(b & 0x7F) << shift;
      if ((b & 0x80) == 0) return value;
    }
  }

 private:
  const unsigned char* at_;
};

template <std::size_t N>
std::vector<CodeRange> unpackCodeRanges(const unsigned char (&packed)[N], std::size_t count) {
  std::vector<CodeRange> ranges(count);
  PackedReader in(packed);
  std::uint32_t next = 0;
  for (CodeRange& r : ranges) {
    r.first = next + in.next();
    r.last = r.first + in.next();
    next = r.last + 1;
  }
  return ranges;
}

const std::vector<LowerRange>& lowerRanges() {
  static const std::vector<LowerRange> ranges = [] {
    std::vector<LowerRange> out(kLowerRangesCount);
    PackedReader in(kLowerRangesPacked);
    std::uint32_t next = 0;
    for (LowerRange& r : out) {
      r.first = next + in.next();
      const std::uint32_t spanAndStride = in.next();
      r.last = r.first + (spanAndStride >> 1);
      r.stride = (spanAndStride & 1) + 1;
      const std::uint32_t zigzag = in.next();
      r.delta = (zigzag & 1) != 0 ? -static_cast<std::int32_t>((zigzag + 1) >> 1)
                                  : static_cast<std::int32_t>(zigzag >> 1);
      next = r.last + 1;
    }
    return out;
  }();
  return ranges;
}

const std::vector<CodeRange>& caseIgnorableRanges() {
  static const std::vector<CodeRange> ranges =
      unpackCodeRanges(kCaseIgnorableRangesPacked, kCaseIgnorableRangesCount);
  return ranges;
}

const std::vector<CodeRange>& casedRanges() {
  static const std::vector<CodeRange> ranges =
      unpackCodeRanges(kCasedRangesPacked, kCasedRangesCount);
  return ranges;
}

template <typename Range>
const Range* findRange(const std::vector<Range>& table, char32_t cp) {
  // The range with first <= cp <= last, if any (a stride-2 range still needs the parity check).
  auto it = std::upper_bound(table.begin(), table.end(), cp,
                             [](char32_t c, const Range& r) { return c < r.first; });
  if (it == table.begin()) return nullptr;
  --it;
  return cp <= it->last ? &*it : nullptr;
}

char32_t simpleLower(char32_t cp) {
  const LowerRange* r = findRange(lowerRanges(), cp);
  if (r == nullptr || (cp - r->first) % r->stride != 0) return cp;
  return static_cast<char32_t>(static_cast<std::int32_t>(cp) + r->delta);
}

const LowerSpecial* findSpecial(char32_t cp) {
  for (const LowerSpecial& special : kLowerSpecials) {
    if (special.codePoint == cp) return &special;
  }
  return nullptr;
}

bool isCaseIgnorable(char32_t cp) { return findRange(caseIgnorableRanges(), cp) != nullptr; }
bool isCased(char32_t cp) { return findRange(casedRanges(), cp) != nullptr; }

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

namespace detail {

std::uint32_t lowerCaseTableDigest() {
  std::uint32_t digest = 0x811C9DC5;
  auto mix = [&digest](std::uint32_t byte) { digest = (digest ^ byte) * 0x01000193u; };
  for (char32_t cp = 0; cp <= 0x10FFFF; ++cp) {
    if (cp >= 0xD800 && cp <= 0xDFFF) continue;
    const std::uint32_t delta = static_cast<std::uint32_t>(simpleLower(cp) - cp);
    for (int k = 0; k < 4; ++k) mix((delta >> (8 * k)) & 0xFF);
    mix(isCaseIgnorable(cp) ? 1 : isCased(cp) ? 2 : 0);
  }
  return digest;
}

std::uint32_t lowerCaseTableExpectedDigest() { return kLowerCaseDigest; }

}  // namespace detail

}  // namespace cce::js
