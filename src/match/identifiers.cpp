// SPDX-License-Identifier: MIT
// Word-shaped pattern matchers shared by the summariser and entity extraction (spec §5.2, §7).
#include "match/identifiers.h"

#include <cstdint>
#include <cstring>
#include <iterator>
#include <string_view>

#include "jscompat/string.h"

namespace cce::match {
namespace {

using js::isDigit;
using js::isLower;
using js::isSpace;
using js::isUpper;
using js::isWord;

struct Unit {
  std::string_view literal;
  bool optionalS;  // `literal` followed by `s?`
};

// `seconds?` is the literal "second" plus an optional "s"; the unit order is the pattern's.
constexpr Unit kScoreUnits[] = {
    {"second", true},  {"ms", false},     {"MB", false},    {"GB", false},    {"TB", false},
    {"KB", false},     {"retrie", true},  {"worker", true}, {"thread", true}, {"node", true},
    {"replica", true}, {"request", true}, {"%", false},
};

constexpr Unit kEntityUnits[] = {
    {"second", true},   {"retrie", true},   {"attempt", true}, {"MB", false},     {"GB", false},
    {"TB", false},      {"KB", false},      {"ms", false},     {"minute", true},  {"hour", true},
    {"day", true},      {"byte", true},     {"worker", true},  {"thread", true},  {"node", true},
    {"replica", true},  {"instance", true}, {"user", true},    {"request", true}, {"error", true},
    {"percent", false}, {"%", false},
};

// ASCII case-insensitive comparison of `literal` with the text at `pos` (§12.4: the unit literals
// are ASCII, so folding ASCII letters is exact).
bool startsWithNoCaseAt(std::u16string_view text, std::size_t pos, std::string_view literal) {
  if (text.size() - pos < literal.size()) return false;
  for (std::size_t k = 0; k < literal.size(); ++k) {
    if (js::asciiLower(text[pos + k]) != static_cast<char16_t>(js::asciiLower(literal[k]))) {
      return false;
    }
  }
  return true;
}

// The units that can begin with each ASCII code unit (case-folded), in pattern order: most numbers
// are followed by something else, and the rest compare with one to three literals.
template <std::size_t N>
struct UnitsByStart {
  static constexpr std::size_t kMaxPerStart = 4;
  std::uint8_t count[128] = {};
  std::uint8_t unit[128][kMaxPerStart] = {};
  constexpr explicit UnitsByStart(const Unit (&units)[N]) {
    for (std::size_t k = 0; k < N; ++k) {
      const char c = units[k].literal[0];
      add(static_cast<unsigned char>(c), k);
      if (c >= 'a' && c <= 'z') add(static_cast<unsigned char>(c - 32), k);
      if (c >= 'A' && c <= 'Z') add(static_cast<unsigned char>(c + 32), k);
    }
  }
  constexpr void add(unsigned char c, std::size_t k) {
    unit[c][count[c]++] = static_cast<std::uint8_t>(k);  // overflow: not a constant expression
  }
};
constexpr UnitsByStart<std::size(kScoreUnits)> kScoreUnitsByStart{kScoreUnits};
constexpr UnitsByStart<std::size(kEntityUnits)> kEntityUnitsByStart{kEntityUnits};

// `\b\d+(\.\d+)?\s*(UNITS)\b` tried at `start` (a digit preceded by a non-word char or the start).
// Backtracking never helps: a shorter `\d+` or `\s*`, or skipping a present fraction, leaves a
// digit, a dot or a space where a unit has to start, and no unit starts with one. Among the units
// at most one can be followed by `\b`, so the first that fits is the match. Returns the end, or 0.
template <std::size_t N>
std::size_t matchNumberUnitAt(std::u16string_view text, std::size_t start, const Unit (&units)[N],
                              const UnitsByStart<N>& byStart, Fraction fraction) {
  const std::size_t n = text.size();
  std::size_t j = start;
  while (j < n && isDigit(text[j])) ++j;
  if (fraction == Fraction::kAllowed && j + 1 < n && text[j] == u'.' && isDigit(text[j + 1])) {
    j += 1;
    while (j < n && isDigit(text[j])) ++j;
  }
  while (j < n && isSpace(text[j])) ++j;
  if (j == n || text[j] >= 128) return 0;
  const char16_t c = text[j];
  for (std::size_t u = 0; u < byStart.count[c]; ++u) {
    const Unit& unit = units[byStart.unit[c][u]];
    if (!startsWithNoCaseAt(text, j, unit.literal)) continue;
    std::size_t e = j + unit.literal.size();
    if (unit.optionalS && e < n && (text[e] == u's' || text[e] == u'S') &&
        js::isWordBoundary(text, e + 1)) {
      return e + 1;
    }
    if (js::isWordBoundary(text, e)) return e;
  }
  return 0;
}

// The groups of `(L[a-z]+)*` over w[from..] for a lead set L (an upper-case letter, or `_`): every
// unit is a lower-case letter or a lead directly followed by one. Returns the number of leads, or
// -1 when the rest of the word does not have that shape.
template <class IsLead>
long leadGroups(std::u16string_view w, std::size_t from, IsLead isLead) {
  long leads = 0;
  const std::size_t n = w.size();
  for (std::size_t i = from; i < n; ++i) {
    if (isLower(w[i])) continue;
    if (!isLead(w[i]) || i + 1 == n || !isLower(w[i + 1])) return -1;
    ++leads;
    ++i;
  }
  return leads;
}

bool isUnderscore(char16_t c) { return c == u'_'; }

}  // namespace

// `[a-z]+` takes the lower-case run up to the first lead, so each shape is a first unit and then
// lead groups.
bool isCamelCase(std::u16string_view w) {
  return !w.empty() && isLower(w[0]) && leadGroups(w, 1, isUpper) >= 1;
}

bool isPascalCase(std::u16string_view w) {
  return !w.empty() && isUpper(w[0]) && leadGroups(w, 0, isUpper) >= 2;
}

bool isSnakeCase(std::u16string_view w) {
  return !w.empty() && isLower(w[0]) && leadGroups(w, 1, isUnderscore) >= 1;
}

std::size_t matchNumberWithUnitAt(std::u16string_view text, std::size_t start, UnitSet units,
                                  Fraction fraction) {
  return units == UnitSet::kScore
             ? matchNumberUnitAt(text, start, kScoreUnits, kScoreUnitsByStart, fraction)
             : matchNumberUnitAt(text, start, kEntityUnits, kEntityUnitsByStart, fraction);
}

// `\b[A-Z][a-z]+(\s+[A-Z][a-z]+)*\b`: the `*` takes every `\s+[A-Z][a-z]+` it can. If the final
// `\b` then fails (the last word runs into an upper-case letter, a digit or `_`), backtracking
// inside that last item cannot help, but dropping it can: the end before it is followed by
// whitespace, so `\b` holds there. With no item to drop the attempt fails.
bool matchProperNounAt(std::u16string_view text, std::size_t start, PhraseSpan* phrase) {
  const std::size_t n = text.size();
  std::size_t firstEnd = start + 2;
  while (firstEnd < n && isLower(text[firstEnd])) ++firstEnd;
  std::size_t cur = firstEnd;
  std::size_t prev = firstEnd;
  for (;;) {
    std::size_t k = cur;
    while (k < n && isSpace(text[k])) ++k;
    if (k == cur || !(k + 1 < n && isUpper(text[k]) && isLower(text[k + 1]))) break;
    std::size_t w = k + 2;
    while (w < n && isLower(text[w])) ++w;
    prev = cur;
    cur = w;
  }
  std::size_t end = 0;
  if (js::isWordBoundary(text, cur)) {
    end = cur;
  } else if (cur != firstEnd) {
    end = prev;
  } else {
    return false;
  }
  *phrase = {start, end, firstEnd};
  return true;
}

// `\S+` is greedy and backtracks from the right, so the match uses the last dot of the
// non-whitespace run (after its first character) that is followed by `\w+:\d+:`. Everything the
// tail matches is non-whitespace too, so the whole match stays inside that run.
bool matchGrepRefAt(std::u16string_view text, std::size_t start, std::size_t* captureEnd,
                    std::size_t* matchEnd) {
  const std::size_t n = text.size();
  if (start >= n || isSpace(text[start])) return false;
  bool found = false;
  std::size_t i = start + 1;
  while (i < n && !isSpace(text[i])) {
    if (text[i] != u'.') {
      ++i;
      continue;
    }
    std::size_t w = i + 1;
    while (w < n && isWord(text[w])) ++w;
    std::size_t next = w;  // no dot can occur before here, so resume the dot search from it
    if (w > i + 1 && w < n && text[w] == u':') {
      std::size_t d = w + 1;
      while (d < n && isDigit(text[d])) ++d;
      if (d > w + 1 && d < n && text[d] == u':') {
        found = true;
        *captureEnd = w;
        *matchEnd = d + 1;
      }
      next = d;
    }
    i = next;
  }
  return found;
}

// A match needs `:\d+:` inside its non-whitespace run, so only runs with a `:` are looked at: each
// is found from its first `:` (the default mode scores every sentence this way, and most have
// none), and tried only when its rest holds a `:\d+:`.
std::size_t countGrepRefs(std::u16string_view text) {
  std::size_t count = 0;
  const std::size_t n = text.size();
  std::size_t from = 0;
  for (;;) {
    const std::size_t colon = findUnit(text, from, u':');
    if (colon == n) return count;
    // The run's rest, watching for `:\d+:` (`key:`, `12:30` and URLs have none).
    bool numbered = false;
    bool afterColon = true;  // the units read since the last `:` are all digits
    std::size_t digits = 0, end = colon + 1;
    for (; end < n && !isSpace(text[end]); ++end) {
      if (text[end] == u':') {
        numbered = numbered || (afterColon && digits > 0);
        afterColon = true;
        digits = 0;
      } else if (afterColon && isDigit(text[end])) {
        ++digits;
      } else {
        afterColon = false;
      }
    }
    if (numbered) {
      std::size_t start = colon;
      while (start > 0 && !isSpace(text[start - 1])) --start;
      std::size_t captureEnd = 0, matchEnd = 0;
      if (matchGrepRefAt(text, start, &captureEnd, &matchEnd)) ++count;
    }
    from = end;
  }
}

bool isAscii(std::u16string_view text) {
  // Eight units per step with SSE2 (the speed build's wasm SIMD), else four (the size build has no
  // vectoriser to do it for us; native compilers vectorise the loops).
  const std::size_t n = text.size();
  std::uint64_t wide = 0;
  std::size_t i = 0;
#if CCE_MATCH_SSE2
  __m128i any = _mm_setzero_si128();
  for (; i + 8 <= n; i += 8) {
    any = _mm_or_si128(any, _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + i)));
  }
  const __m128i high = _mm_and_si128(any, _mm_set1_epi16(static_cast<short>(0xFF80)));
  if (_mm_movemask_epi8(_mm_cmpeq_epi16(high, _mm_setzero_si128())) != 0xFFFF) return false;
#endif
  for (; i + 4 <= n; i += 4) {
    std::uint64_t four;
    std::memcpy(&four, text.data() + i, sizeof four);
    wide |= four;
  }
  char16_t all = 0;
  for (; i < n; ++i) all |= text[i];
  return all < 128 && (wide & 0xFF80FF80FF80FF80ull) == 0;
}

std::u16string asciiCopyOf(std::u16string_view text) {
  std::u16string copy(text);
  for (char16_t& c : copy) c = c < 128 ? c : char16_t{0x7F};
  return copy;
}

WordScanner::WordScanner(std::u16string_view text) : size_(text.size()) {
  if (isAscii(text)) {
    data_ = text.data();
  } else {
    ascii_ = asciiCopyOf(text);
    data_ = ascii_.data();
  }
  safeEnd_ = size_;
  while (safeEnd_ > 0 && (detail::kScanTable.bits[data_[safeEnd_ - 1]] & detail::kNonWord) == 0) {
    --safeEnd_;
  }
}

WordScanner::WordScanner(std::u16string_view asciiCopy, PreparedAscii)
    : data_(asciiCopy.data()), size_(asciiCopy.size()) {
  safeEnd_ = size_;
  while (safeEnd_ > 0 && (detail::kScanTable.bits[data_[safeEnd_ - 1]] & detail::kNonWord) == 0) {
    --safeEnd_;
  }
}

Word WordScanner::trailingWord() const {
  Word w{safeEnd_, size_, classOf(data_[safeEnd_]), 0};
  for (std::size_t i = safeEnd_ + 1; i < size_; ++i) w.rest |= classOf(data_[i]);
  return w;
}

}  // namespace cce::match
