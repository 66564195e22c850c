// SPDX-License-Identifier: MIT
// Spec §4.1: split text into trimmed prose segments and verbatim fenced code blocks.
#include "code_split.h"

#include <string_view>

#include "jscompat/string.h"
#include "match/identifiers.h"

namespace cce {
namespace {

using View = std::u16string_view;

constexpr std::size_t kNone = static_cast<std::size_t>(-1);

bool backticksAt(View s, std::size_t i) {
  return i + 3 <= s.size() && s[i] == u'`' && s[i + 1] == u'`' && s[i + 2] == u'`';
}

// The opening of `^ {0,3}```[^\n]*\n` at line start `i`: kNone when there is no ``` here, kNoEnd
// when there is but no `\n` follows; otherwise the index after that `\n`.
constexpr std::size_t kNoEnd = kNone - 1;
std::size_t openingAt(View s, std::size_t i) {
  std::size_t j = i;
  while (j < s.size() && j - i < 3 && s[j] == u' ') ++j;
  if (!backticksAt(s, j)) return kNone;
  std::size_t nl = match::findUnit(s, j + 3, u'\n');
  return nl == s.size() ? kNoEnd : nl + 1;
}

// The lazy `[\s\S]*?\n\s*```` from `from`: the first `\n` whose following whitespace run ends in
// three backticks. Every `\n` inside a run that fails shares its failing end, so the search jumps
// past the run; that keeps it linear. Returns the end of the closing backticks.
std::size_t closingFrom(View s, std::size_t from) {
  std::size_t i = from;
  while (true) {
    std::size_t nl = match::findUnit(s, i, u'\n');
    if (nl == s.size()) return kNone;
    std::size_t j = nl + 1;
    while (j < s.size() && js::isSpace(s[j])) ++j;
    if (backticksAt(s, j)) return j + 3;
    i = j;
  }
}

bool isLineStart(View s, std::size_t i) { return i == 0 || js::isLineTerminator(s[i - 1]); }

// The first line start at or after `from` where ``` follows at most three spaces, or kNone. Only
// backticks need a look: their line start is found by stepping back over those spaces. That
// yields the same line starts in the same order as trying every line start with openingAt.
std::size_t nextOpeningLine(View s, std::size_t from) {
  for (std::size_t p = match::findUnit(s, from, u'`'); p < s.size();
       p = match::findUnit(s, p + 1, u'`')) {
    std::size_t i = p;
    while (i > from && p - i < 3 && s[i - 1] == u' ') --i;
    if (isLineStart(s, i) && backticksAt(s, p)) return i;
  }
  return kNone;
}

// The walk of §4.1: `prose(segment)` for each untrimmed prose segment and `fence(code)` for each
// fenced block, in order.
template <class Prose, class Fence>
void walkCodeAndProse(View text, Prose&& prose, Fence&& fence) {
  std::size_t proseStart = 0;
  std::size_t i = 0;
  while ((i = nextOpeningLine(text, i)) != kNone) {
    const std::size_t bodyStart = openingAt(text, i);
    // A missing `\n` or closing fence after this opening is missing after every later one too.
    if (bodyStart == kNoEnd) break;
    std::size_t end = closingFrom(text, bodyStart);
    if (end == kNone) break;
    prose(text.substr(proseStart, i - proseStart));
    fence(text.substr(i, end - i));
    proseStart = end;
    i = end;
  }
  prose(text.substr(proseStart));
}

}  // namespace

CodeSplit splitCodeAndProse(View text) {
  CodeSplit out;
  walkCodeAndProse(
      text,
      [&out](View segment) {
        View t = js::trimView(segment);
        if (t.empty()) return;
        if (!out.prose.empty()) out.prose += u' ';
        out.prose += t;
        out.proseLength += t.size();
      },
      [&out](View code) { out.fences.emplace_back(code); });
  return out;
}

std::size_t codeSplitProseLength(View text) {
  std::size_t length = 0;
  walkCodeAndProse(
      text, [&length](View segment) { length += js::trimView(segment).size(); }, [](View) {});
  return length;
}

}  // namespace cce
