// SPDX-License-Identifier: MIT
// Spec §6: detection and summary of structured tool output (grep hits, logs, bullets, key: value).
#include "tool_output.h"

#include <algorithm>
#include <set>
#include <string_view>
#include <vector>

#include "jscompat/string.h"
#include "match/identifiers.h"

namespace cce {
namespace {

using View = std::u16string_view;

constexpr std::string_view kLineStatus[] = {"PASS", "FAIL", "ERROR", "WARNING",
                                            "WARN", "OK",   "SKIP"};
constexpr std::string_view kStatusWords[] = {"PASS",     "FAIL",   "ERROR", "WARNING",
                                             "WARN",     "Test",   "Tests", "Total",
                                             "Duration", "passed", "failed"};

std::vector<View> nonEmptyLines(View text) {
  std::vector<View> out;
  for (View line : js::splitOn(text, u'\n')) {
    if (!js::trimView(line).empty()) out.push_back(line);
  }
  return out;
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
  for (std::string_view status : kLineStatus) {
    if (js::startsWithAscii(line, status) && js::isWordBoundary(line, status.size())) return true;
  }
  return false;
}

bool isGrepHit(View line) {
  std::size_t captureEnd = 0, matchEnd = 0;
  return match::matchGrepRefAt(line, 0, &captureEnd, &matchEnd);
}

// `\b(PASS|…|failed)\b` with flag i: all alternatives are letters, so a whole word must equal one.
bool hasStatusWord(View line) {
  bool found = false;
  match::forEachWord(line, [&](std::size_t b, std::size_t e) {
    if (found || !js::isAlpha(line[b])) return;
    View word = line.substr(b, e - b);
    for (std::string_view status : kStatusWords) {
      if (word.size() == status.size() && js::startsWithAsciiNoCase(word, status)) found = true;
    }
  });
  return found;
}

std::u16string decimal(std::size_t n) {
  std::u16string digits;
  do {
    digits.push_back(static_cast<char16_t>(u'0' + n % 10));
    n /= 10;
  } while (n != 0);
  std::reverse(digits.begin(), digits.end());
  return digits;
}

// An insertion-ordered set of views (JS Set semantics); the std::set is only for lookups.
struct OrderedSet {
  std::vector<View> items;
  std::set<View> seen;
  void add(View item) {
    if (seen.insert(item).second) items.push_back(item);
  }
};

std::u16string capToBudget(std::u16string s, std::size_t budget) {
  if (s.size() <= budget) return s;
  // `slice(0, budget - 3)`: the engine's budgets are 200 or 400, but a negative end counts from
  // the back in JS.
  std::size_t keep = budget >= 3 ? budget - 3 : s.size() - std::min(s.size(), 3 - budget);
  s.resize(keep);
  s += u"...";
  return s;
}

}  // namespace

bool isStructuredOutput(View text) {
  std::vector<View> lines = nonEmptyLines(text);
  if (lines.size() < 6) return false;
  std::size_t newlines = static_cast<std::size_t>(std::count(text.begin(), text.end(), u'\n'));
  if (static_cast<double>(newlines) / static_cast<double>(text.size()) < 0.0125) return false;
  std::size_t structural = 0;
  for (View line : lines) {
    if (isGrepHit(line) || isIndentedBullet(line) || isKeyValue(line) || startsWithStatus(line)) {
      ++structural;
    }
  }
  return static_cast<double>(structural) / static_cast<double>(lines.size()) > 0.5;
}

std::u16string summarizeStructured(View text, std::size_t budget) {
  std::vector<View> lines = nonEmptyLines(text);
  OrderedSet pathSet;
  OrderedSet statusSet;
  for (View line : lines) {
    std::size_t captureEnd = 0, matchEnd = 0;
    if (match::matchGrepRefAt(line, 0, &captureEnd, &matchEnd)) {
      pathSet.add(line.substr(0, captureEnd));
    }
    // Only the first three distinct status lines are used, so stop testing once they are known.
    if (statusSet.items.size() < 3 && hasStatusWord(line)) statusSet.add(js::trimView(line));
  }
  const std::vector<View>& paths = pathSet.items;
  const std::vector<View>& statuses = statusSet.items;

  std::vector<std::u16string> parts;
  if (!paths.empty()) {
    std::u16string files = u"files: ";
    for (std::size_t i = 0; i < paths.size() && i < 3; ++i) {
      if (i > 0) files += u", ";
      files += paths[i];
    }
    if (paths.size() > 3) files += u" +" + decimal(paths.size() - 3) + u" more";
    parts.push_back(std::move(files));
  }
  for (std::size_t i = 0; i < statuses.size() && i < 3; ++i) parts.emplace_back(statuses[i]);

  std::u16string out;
  if (!parts.empty()) {
    for (std::size_t i = 0; i < parts.size(); ++i) {
      if (i > 0) out += u" | ";
      out += parts[i];
    }
    return capToBudget(std::move(out), budget);
  }
  for (std::size_t i = 0; i < lines.size() && i < 3; ++i) {
    if (i > 0) out += u" | ";
    out += js::trimView(lines[i]);
  }
  out += u" | ... | ";
  if (!lines.empty()) out += js::trimView(lines.back());
  out += u" (" + decimal(lines.size()) + u" lines)";
  return capToBudget(std::move(out), budget);
}

}  // namespace cce
