// SPDX-License-Identifier: MIT
// Matchers for the word-shaped patterns shared by the summariser (§5.2) and entities (§7).
//
// Every `\b…\b` pattern here starts and ends with a word character, so under JS (ASCII) `\b` a
// match is always a whole maximal run of `[A-Za-z0-9_]`: these matchers test whole words. The
// number+unit, proper-noun and grep-reference patterns need real backtracking analysis; the
// comments in identifiers.cpp say why each scanner is equivalent to its regex.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "jscompat/string.h"

namespace cce::match {

struct Span {
  std::size_t begin = 0;
  std::size_t end = 0;
};

namespace detail {
// `\w` membership for ASCII as a table: the word scan is the innermost loop of scoring.
struct WordTable {
  bool word[128] = {};
  constexpr WordTable() {
    for (int c = 0; c < 128; ++c) word[c] = js::isWord(static_cast<char16_t>(c));
  }
};
inline constexpr WordTable kWordTable{};
constexpr bool isWordFast(char16_t c) { return c < 128 && kWordTable.word[c]; }
}  // namespace detail

/// Calls `f(begin, end)` for each maximal run of ASCII `\w` (the only places a `\b[a-z…]…\b`
/// pattern can match), in order. A template so the per-sentence scorer allocates nothing.
template <class F>
void forEachWord(std::u16string_view text, F&& f) {
  const std::size_t n = text.size();
  std::size_t i = 0;
  while (i < n) {
    if (!detail::isWordFast(text[i])) {
      ++i;
      continue;
    }
    std::size_t b = i++;
    while (i < n && detail::isWordFast(text[i])) ++i;
    f(b, i);
  }
}

/// `[a-z]+([A-Z][a-z]+)+` over a whole word.
bool isCamelCase(std::u16string_view word);
/// `[A-Z][a-z]+([A-Z][a-z]+)+` over a whole word.
bool isPascalCase(std::u16string_view word);
/// `[a-z]+(_[a-z]+)+` over a whole word.
bool isSnakeCase(std::u16string_view word);
/// `[bcdfghjklmnpqrstvwxz]{3,}` (case-insensitive) over a whole word.
bool isVowelless(std::u16string_view word);

/// The two unit alternations of `\b\d+(\.\d+)?\s*(UNITS)\b` (flag i).
enum class UnitSet {
  kScore,  // §5.2: seconds?|ms|MB|GB|TB|KB|retries?|workers?|threads?|nodes?|replicas?|requests?|%
  kEntity,  // §7.6: the longer list, adding attempts, minutes, hours, days, bytes, instances, ...
};

/// All global (non-overlapping, left-to-right) matches of the number+unit pattern.
std::vector<Span> findNumbersWithUnit(std::u16string_view text, UnitSet units);

/// One attempt of the number+unit pattern at `start`, which must be a digit that begins a `\w`
/// run (every match starts at such a position). Returns the match end, or 0 when it fails.
std::size_t matchNumberWithUnitAt(std::u16string_view text, std::size_t start, UnitSet units);

/// A proper-noun phrase match of `\b[A-Z][a-z]+(\s+[A-Z][a-z]+)*\b`; `firstWordEnd` ends the
/// first `[A-Z][a-z]+` (the phrase's first item of `split(/\s+/)`).
struct PhraseSpan {
  std::size_t begin = 0;
  std::size_t end = 0;
  std::size_t firstWordEnd = 0;
};
std::vector<PhraseSpan> findProperNounPhrases(std::u16string_view text);

/// Tries `\S+\.\w+:\d+:` anchored at `start`. On success returns true and sets `captureEnd` to the
/// end of `\S+\.\w+` (the greedy capture of §6.2: the last dot that completes the pattern wins)
/// and `matchEnd` to the end of the whole match.
bool matchGrepRefAt(std::u16string_view text, std::size_t start, std::size_t* captureEnd,
                    std::size_t* matchEnd);

/// Number of global matches of `\S+\.\w+:\d+:` (at most one per run of non-whitespace).
std::size_t countGrepRefs(std::u16string_view text);

}  // namespace cce::match
