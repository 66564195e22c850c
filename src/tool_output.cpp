// SPDX-License-Identifier: MIT
// Spec §6: detection and summary of structured tool output (grep hits, logs, bullets, key: value).
#include "tool_output.h"

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <vector>

#include "compiler.h"
#include "jscompat/string.h"
#include "match/identifiers.h"
#include "string_index.h"

namespace cce {
namespace {

using View = std::u16string_view;

constexpr std::string_view kLineStatus[] = {"PASS", "FAIL", "ERROR", "WARNING",
                                            "WARN", "OK",   "SKIP"};
constexpr std::string_view kStatusWords[] = {"PASS",     "FAIL",   "ERROR", "WARNING",
                                             "WARN",     "Test",   "Tests", "Total",
                                             "Duration", "passed", "failed"};

// A plain loop the compiler vectorises; a 16-bit count per chunk keeps the vector lanes narrow.
std::size_t countNewlines(View text) {
  std::size_t count = 0;
  for (std::size_t from = 0; from < text.size(); from += 0xFFFF) {
    const View chunk = text.substr(from, 0xFFFF);
    std::uint16_t chunkCount = 0;
    for (char16_t c : chunk) chunkCount = static_cast<std::uint16_t>(chunkCount + (c == u'\n'));
    count += chunkCount;
  }
  return count;
}

bool isBlank(View line) {
  for (char16_t c : line) {
    if (!js::isSpace(c)) return false;
  }
  return true;
}

// Calls `f(line)` for each line of `text.split('\n')` whose trim is non-empty (kept untrimmed), in
// order.
template <class F>
void forEachNonEmptyLine(View text, F&& f) {
  const std::size_t n = text.size();
  for (std::size_t start = 0; start <= n;) {
    const std::size_t end = match::findUnit(text, start, u'\n');
    View line = text.substr(start, end - start);
    if (!isBlank(line)) f(line);
    start = end + 1;
  }
}

// (b) `^[ \t]+[-•*]`
bool isIndentedBullet(View line) {
  std::size_t i = 0;
  while (i < line.size() && (line[i] == u' ' || line[i] == u'\t')) ++i;
  if (i == 0 || i == line.size()) return false;
  char16_t c = line[i];
  return c == u'-' || c == 0x2022 || c == u'*';
}

// (c) `^[ \t]*\w[\w ./-]*:\s`. Neither the indent nor the name class contains what must follow it
// (`\w`, `:`), so the greedy runs never give anything back.
bool isKeyValue(View line) {
  const std::size_t n = line.size();
  std::size_t i = 0;
  while (i < n && (line[i] == u' ' || line[i] == u'\t')) ++i;
  if (i == n || !js::isWord(line[i])) return false;
  ++i;
  while (i < n && (js::isWord(line[i]) || line[i] == u' ' || line[i] == u'.' || line[i] == u'/' ||
                   line[i] == u'-')) {
    ++i;
  }
  return i + 1 < n && line[i] == u':' && js::isSpace(line[i + 1]);
}

// (d) `^(PASS|FAIL|ERROR|WARNING|WARN|OK|SKIP)\b`, case-sensitive.
bool startsWithStatus(View line) {
  if (line.empty() || !js::isUpper(line[0])) return false;
  for (std::string_view status : kLineStatus) {
    if (js::startsWithAscii(line, status) && js::isWordBoundary(line, status.size())) return true;
  }
  return false;
}

bool isGrepHit(View line) {
  std::size_t captureEnd = 0, matchEnd = 0;
  return match::matchGrepRefAt(line, 0, &captureEnd, &matchEnd);
}

// Whether `word` equals the ASCII `literal` up to ASCII case (§12.4: exact for these patterns).
bool equalsNoCase(View word, std::string_view literal) {
  if (word.size() != literal.size()) return false;
  for (std::size_t k = 0; k < word.size(); ++k) {
    if (js::asciiLower(word[k]) != static_cast<char16_t>(js::asciiLower(literal[k]))) return false;
  }
  return true;
}

// Bit L: a status word starts with the L-th letter (either case).
constexpr std::uint32_t statusLetters() {
  std::uint32_t bits = 0;
  for (std::string_view status : kStatusWords) bits |= 1u << (js::asciiLower(status[0]) - 'a');
  return bits;
}
constexpr std::uint32_t kStatusLetters = statusLetters();

// `\b(PASS|…|failed)\b` with flag i: all alternatives are letters, so a whole word must equal one;
// they have 4 to 8 letters and six first letters, which rejects most words inside the word scan.
bool hasStatusWord(View line) {
  auto candidate = [line](std::size_t b, std::uint8_t first, std::uint8_t rest,
                          std::size_t length) {
    using namespace match::cls;
    return length >= 4 && length <= 8 && (first & (kLower | kUpper)) != 0 &&
           (rest & (kDigit | kUnderscore)) == 0 &&
           ((kStatusLetters >> (js::asciiLower(line[b]) - u'a')) & 1u) != 0;
  };
  match::WordScanner words(line);
  match::Word w;
  while (words.next<false>(candidate, w) == match::Next::kWord) {
    View word = line.substr(w.begin, w.end - w.begin);
    for (std::string_view status : kStatusWords) {
      if (equalsNoCase(word, status)) return true;
    }
  }
  return false;
}

std::u16string capToBudget(std::u16string s, std::size_t budget) {
  if (s.size() <= budget) return s;
  // `slice(0, budget - 3)`: the engine's budgets are 200 or 400, but a negative end counts from
  // the back in JS.
  std::size_t keep = budget >= 3 ? budget - 3 : s.size() - std::min(s.size(), 3 - budget);
  s.resize(keep);
  s += u"...";
  return s;
}

// The summary as capToBudget will cut it, built in one allocation for the engine's budgets (it
// used to grow piece by piece, five allocations for a typical 300-unit summary). With a budget of
// 3 or more only the first budget + 1 units can matter: the text is either at most the budget, or
// more and cut to budget - 3 units, so the pieces past that are not copied.
#ifndef CCE_NO_SIZED_SUMMARIES
class CappedText {
 public:
  explicit CappedText(std::size_t budget)
      : budget_(budget), limit_(budget >= 3 ? budget + 1 : std::u16string::npos) {
    constexpr std::size_t kLargestReserve = 4096;  // the engine's budgets are 200 and 400
    text_.reserve(std::min(limit_, kLargestReserve));
  }
  bool empty() const { return text_.empty(); }
  CappedText& operator+=(View piece) {
    append(piece);
    return *this;
  }
  CCE_NOINLINE void append(View piece) {  // one copy for the dozen callers
    if (text_.size() < limit_) text_.append(piece.substr(0, limit_ - text_.size()));
  }
  void appendDecimal(std::size_t n) {
    if (text_.size() >= limit_) return;
    js::appendDecimal(text_, n);
    if (text_.size() > limit_) text_.resize(limit_);
  }
  std::u16string take() { return capToBudget(std::move(text_), budget_); }

 private:
  std::size_t budget_;
  std::size_t limit_;
  std::u16string text_;
};

void appendDecimal(CappedText& text, std::size_t n) { text.appendDecimal(n); }
std::u16string finish(CappedText&& text, std::size_t) { return text.take(); }
using SummaryText = CappedText;
#else
// The size-built module (wasm/CMakeLists.txt) lets the summary grow and cuts it at the end.
void appendDecimal(std::u16string& text, std::size_t n) { js::appendDecimal(text, n); }
std::u16string finish(std::u16string&& text, std::size_t budget) {
  return capToBudget(std::move(text), budget);
}
struct SummaryText : std::u16string {
  explicit SummaryText(std::size_t) {}
};
#endif

// The tests that read a unit or two go first: a grep hit and a key read the line's first run.
bool isStructuredLine(View line) {
  return isIndentedBullet(line) || startsWithStatus(line) || isGrepHit(line) || isKeyValue(line);
}

}  // namespace

// The three conditions are independent, so the cheap ones go first: the newline count bounds the
// number of lines, and the line walk stops as soon as the remaining lines cannot change the answer.
// `structural / nonEmpty > 0.5` is `2 * structural > nonEmpty` (exact for integer counts).
bool isStructuredOutput(View text) {
  const std::size_t newlines = countNewlines(text);
  const std::size_t lines = newlines + 1;
  if (lines < 6) return false;
  if (static_cast<double>(newlines) / static_cast<double>(text.size()) < 0.0125) return false;
  std::size_t seen = 0, nonEmpty = 0, structural = 0;
  bool decided = false, result = false;
  const std::size_t n = text.size();
  for (std::size_t start = 0; start <= n && !decided;) {
    const std::size_t end = match::findUnit(text, start, u'\n');
    View line = text.substr(start, end - start);
    ++seen;
    if (!isBlank(line)) {
      ++nonEmpty;
      if (isStructuredLine(line)) ++structural;
    }
    // With every remaining line non-empty and plain, or non-empty and structural:
    const std::size_t remaining = lines - seen;
    if (nonEmpty >= 6 && 2 * structural > nonEmpty + remaining) {
      decided = result = true;
    } else if (nonEmpty + remaining < 6 || 2 * (structural + remaining) <= nonEmpty + remaining) {
      decided = true;
    }
    start = end + 1;
  }
  return result;
}

std::u16string summarizeStructured(View text, std::size_t budget) {
  // The distinct paths in order of first appearance (JS Set semantics). Grep output repeats a few
  // paths on every line, so they are interned (the hits of one file come together: the last path
  // is checked first).
  std::vector<View> paths;
  auto pathAt = [&paths](std::uint32_t i) { return paths[i]; };
  StringIndex pathIds(pathAt);
  std::vector<View> statuses;  // distinct, at most three
  View head[3];                // the first three non-empty lines, for the fallback
  View last;                   // and the last one
  std::size_t lineCount = 0;
  forEachNonEmptyLine(text, [&](View line) {
    if (lineCount < 3) head[lineCount] = line;
    ++lineCount;
    last = line;
    std::size_t captureEnd = 0, matchEnd = 0;
    if (match::matchGrepRefAt(line, 0, &captureEnd, &matchEnd)) {
      const View path = line.substr(0, captureEnd);
      if ((paths.empty() || path != paths.back()) && pathIds.intern(path) == paths.size()) {
        paths.push_back(path);
      }
    }
    // Only the first three distinct status lines are used, so stop testing once they are known.
    if (statuses.size() < 3 && hasStatusWord(line)) {
      View status = js::trimView(line);
      if (std::find(statuses.begin(), statuses.end(), status) == statuses.end()) {
        statuses.push_back(status);
      }
    }
  });

  SummaryText out(budget);
  const std::size_t pathCount = paths.size();
  if (pathCount > 0 || !statuses.empty()) {
    if (pathCount > 0) {
      out += u"files: ";
      for (std::size_t i = 0; i < pathCount && i < 3; ++i) {
        if (i > 0) out += u", ";
        out += paths[i];
      }
      if (pathCount > 3) {
        out += u" +";
        appendDecimal(out, pathCount - 3);
        out += u" more";
      }
    }
    for (View status : statuses) {
      if (!out.empty()) out += u" | ";
      out += status;
    }
    return finish(std::move(out), budget);
  }
  for (std::size_t i = 0; i < lineCount && i < 3; ++i) {
    if (i > 0) out += u" | ";
    out += js::trimView(head[i]);
  }
  out += u" | ... | ";
  if (lineCount > 0) out += js::trimView(last);
  out += u" (";
  appendDecimal(out, lineCount);
  out += u" lines)";
  return finish(std::move(out), budget);
}

}  // namespace cce
