// SPDX-License-Identifier: MIT
// Word-shaped pattern matchers shared by the summariser and entity extraction (spec §5.2, §7).
#include "match/identifiers.h"

#include <cstdint>
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

bool startsWithNoCaseAt(std::u16string_view text, std::size_t pos, std::string_view literal) {
  if (text.size() - pos < literal.size()) return false;
  return js::startsWithAsciiNoCase(text.substr(pos), literal);
}

// `\b\d+(\.\d+)?\s*(UNITS)\b` tried at `start` (a digit preceded by a non-word char or the start).
// Backtracking never helps: a shorter `\d+` or `\s*`, or skipping a present fraction, leaves a
// digit, a dot or a space where a unit has to start, and no unit starts with one. Among the units
// at most one can be followed by `\b`, so the first that fits is the match. Returns the end, or 0.
template <std::size_t N>
std::size_t matchNumberUnitAt(std::u16string_view text, std::size_t start, const Unit (&units)[N]) {
  const std::size_t n = text.size();
  std::size_t j = start;
  while (j < n && isDigit(text[j])) ++j;
  if (j + 1 < n && text[j] == u'.' && isDigit(text[j + 1])) {
    j += 1;
    while (j < n && isDigit(text[j])) ++j;
  }
  while (j < n && isSpace(text[j])) ++j;
  for (const Unit& unit : units) {
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

template <std::size_t N>
std::vector<Span> findNumbers(std::u16string_view text, const Unit (&units)[N]) {
  std::vector<Span> out;
  std::size_t i = 0;
  while (i < text.size()) {
    if (isDigit(text[i]) && (i == 0 || !isWord(text[i - 1]))) {
      std::size_t end = matchNumberUnitAt(text, i, units);
      if (end != 0) {
        out.push_back({i, end});
        i = end;
        continue;
      }
    }
    ++i;
  }
  return out;
}

// Bit k set for the k-th lower-case letter of `[bcdfghjklmnpqrstvwxz]` (no a e i o u y).
constexpr std::uint32_t kConsonants =
    ((1u << 26) - 1) & ~((1u << ('a' - 'a')) | (1u << ('e' - 'a')) | (1u << ('i' - 'a')) |
                         (1u << ('o' - 'a')) | (1u << ('u' - 'a')) | (1u << ('y' - 'a')));

bool isConsonant(char16_t c) {
  c = js::asciiLower(c);
  return js::isLower(c) && ((kConsonants >> (c - u'a')) & 1u) != 0;
}

// Consumes `[A-Z][a-z]+` groups from `i`; returns how many were consumed and moves `i` past them.
std::size_t capitalisedGroups(std::u16string_view w, std::size_t& i) {
  std::size_t groups = 0;
  while (i + 1 < w.size() && isUpper(w[i]) && isLower(w[i + 1])) {
    i += 2;
    while (i < w.size() && isLower(w[i])) ++i;
    ++groups;
  }
  return groups;
}

}  // namespace

bool isCamelCase(std::u16string_view w) {
  std::size_t i = 0;
  while (i < w.size() && isLower(w[i])) ++i;
  if (i == 0) return false;
  return capitalisedGroups(w, i) >= 1 && i == w.size();
}

bool isPascalCase(std::u16string_view w) {
  std::size_t i = 0;
  return capitalisedGroups(w, i) >= 2 && i == w.size();
}

bool isSnakeCase(std::u16string_view w) {
  std::size_t i = 0;
  while (i < w.size() && isLower(w[i])) ++i;
  if (i == 0) return false;
  std::size_t groups = 0;
  while (i + 1 < w.size() && w[i] == u'_' && isLower(w[i + 1])) {
    i += 2;
    while (i < w.size() && isLower(w[i])) ++i;
    ++groups;
  }
  return groups >= 1 && i == w.size();
}

bool isVowelless(std::u16string_view w) {
  if (w.size() < 3) return false;
  for (char16_t c : w) {
    if (!isConsonant(c)) return false;
  }
  return true;
}

std::vector<Span> findNumbersWithUnit(std::u16string_view text, UnitSet units) {
  return units == UnitSet::kScore ? findNumbers(text, kScoreUnits)
                                  : findNumbers(text, kEntityUnits);
}

std::size_t matchNumberWithUnitAt(std::u16string_view text, std::size_t start, UnitSet units) {
  return units == UnitSet::kScore ? matchNumberUnitAt(text, start, kScoreUnits)
                                  : matchNumberUnitAt(text, start, kEntityUnits);
}

// `\b[A-Z][a-z]+(\s+[A-Z][a-z]+)*\b`: the `*` takes every `\s+[A-Z][a-z]+` it can. If the final
// `\b` then fails (the last word runs into an upper-case letter, a digit or `_`), backtracking
// inside that last item cannot help, but dropping it can: the end before it is followed by
// whitespace, so `\b` holds there. With no item to drop the attempt fails.
std::vector<PhraseSpan> findProperNounPhrases(std::u16string_view text) {
  std::vector<PhraseSpan> out;
  const std::size_t n = text.size();
  std::size_t i = 0;
  while (i < n) {
    if (!(isUpper(text[i]) && (i == 0 || !isWord(text[i - 1])) && i + 1 < n &&
          isLower(text[i + 1]))) {
      ++i;
      continue;
    }
    std::size_t firstEnd = i + 2;
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
    }
    if (end == 0) {
      ++i;
      continue;
    }
    out.push_back({i, end, firstEnd});
    i = end;
  }
  return out;
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

std::size_t countGrepRefs(std::u16string_view text) {
  if (text.find(u':') == std::u16string_view::npos) return 0;  // the common case, cheaply
  std::size_t count = 0;
  std::size_t i = 0;
  const std::size_t n = text.size();
  while (i < n) {
    if (isSpace(text[i])) {
      ++i;
      continue;
    }
    std::size_t captureEnd = 0, matchEnd = 0;
    if (matchGrepRefAt(text, i, &captureEnd, &matchEnd)) ++count;
    while (i < n && !isSpace(text[i])) ++i;
  }
  return count;
}

}  // namespace cce::match
