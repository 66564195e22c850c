// SPDX-License-Identifier: MIT
// Spec §5: the deterministic extractive summariser (units, integer scores, greedy packing).
#include "summarizer.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <string_view>
#include <vector>

#include "jscompat/string.h"
#include "match/identifiers.h"

namespace cce {
namespace {

using View = std::u16string_view;

constexpr std::string_view kEmphasis[] = {
    "importantly", "note that", "however",   "critical",      "crucial",      "essential",
    "significant", "notably",   "key point", "in particular", "specifically", "must",
    "require",     "requires",  "required",  "never",         "always",
};

constexpr std::string_view kFiller[] = {
    "great",      "sure",      "ok",          "okay",        "thanks",     "thank you",
    "got it",     "right",     "yes",         "no",          "alright",    "absolutely",
    "exactly",    "indeed",    "cool",        "nice",        "perfect",    "wonderful",
    "awesome",    "fantastic", "sounds good", "makes sense", "i see",      "i understand",
    "understood", "noted",     "certainly",   "of course",   "no problem", "no worries",
    "will do",    "let me",    "i'll",        "i can",       "i would",    "well",
    "so",         "now",
};

constexpr std::string_view kStatus[] = {"PASS", "FAIL", "ERROR", "WARNING", "WARN"};

bool matchesNoCaseAt(View s, std::size_t pos, std::string_view literal) {
  return s.size() - pos >= literal.size() && js::startsWithAsciiNoCase(s.substr(pos), literal);
}

// `\b(…)\b` (flag i) tried at a word start: every alternative starts and ends with a letter, so a
// match starts at a word start and ends at a boundary; alternatives sharing a prefix
// ("require"/"requires") are all tried.
// Which emphasis alternatives start with each letter: the check runs at every word start.
using LetterMasks = std::array<std::uint32_t, 26>;
constexpr LetterMasks emphasisByFirstLetter() {
  LetterMasks masks{};
  for (std::size_t k = 0; k < std::size(kEmphasis); ++k) {
    masks[static_cast<std::size_t>(kEmphasis[k][0] - 'a')] |= std::uint32_t{1} << k;
  }
  return masks;
}
constexpr LetterMasks kEmphasisByFirstLetter = emphasisByFirstLetter();

bool emphasisAt(View s, std::size_t i) {
  char16_t first = js::asciiLower(s[i]);
  if (!js::isLower(first)) return false;
  std::uint32_t mask = kEmphasisByFirstLetter[first - u'a'];
  for (std::size_t k = 0; mask != 0; ++k, mask >>= 1) {
    if ((mask & 1) == 0) continue;
    std::string_view phrase = kEmphasis[k];
    if (matchesNoCaseAt(s, i, phrase) && js::isWordBoundary(s, i + phrase.size())) return true;
  }
  return false;
}

using LetterMasks64 = std::array<std::uint64_t, 26>;
constexpr LetterMasks64 fillerByFirstLetter() {
  LetterMasks64 masks{};
  for (std::size_t k = 0; k < std::size(kFiller); ++k) {
    masks[static_cast<std::size_t>(kFiller[k][0] - 'a')] |= std::uint64_t{1} << k;
  }
  return masks;
}
constexpr LetterMasks64 kFillerByFirstLetter = fillerByFirstLetter();

bool isFiller(View s) {
  if (s.empty()) return false;
  char16_t first = js::asciiLower(s[0]);
  if (!js::isLower(first)) return false;
  std::uint64_t mask = kFillerByFirstLetter[first - u'a'];
  for (std::size_t k = 0; mask != 0; ++k, mask >>= 1) {
    if ((mask & 1) == 0) continue;
    std::string_view phrase = kFiller[k];
    if (s.size() <= phrase.size() || !matchesNoCaseAt(s, 0, phrase)) continue;
    char16_t next = s[phrase.size()];
    if (next == u',' || next == u'.' || next == u'!' || next == u'?' || js::isSpace(next)) {
      return true;
    }
  }
  return false;
}

bool isStatusWord(View w) {
  for (std::string_view status : kStatus) {
    if (js::equalsAscii(w, status)) return true;
  }
  return false;
}

struct Unit {
  View text;
  int score = 0;
  std::size_t index = 0;
  bool primary = false;
};

bool isTerminator(char16_t c) { return c == u'.' || c == u'!' || c == u'?'; }

// Global matches of `[^.!?\n]+[.!?]+`, trimmed. The leading class stops only at a terminator or
// \n; a run that ends at \n (or the end) cannot match from any of its positions, so it is skipped
// whole, which keeps the scan linear.
void appendSentences(View para, std::vector<View>& out) {
  const std::size_t n = para.size();
  std::size_t i = 0;
  while (i < n) {
    if (isTerminator(para[i]) || para[i] == u'\n') {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < n && !isTerminator(para[j]) && para[j] != u'\n') ++j;
    if (j == n || para[j] == u'\n') {
      i = j;
      continue;
    }
    std::size_t k = j;
    while (k < n && isTerminator(para[k])) ++k;
    out.push_back(js::trimView(para.substr(i, k - i)));
    i = k;
  }
}

// `text.split(/\n\n+/)`, keeping only the paragraphs whose trim is non-empty.
std::vector<View> paragraphs(View text) {
  std::vector<View> out;
  std::size_t start = 0, i = 0;
  const std::size_t n = text.size();
  auto push = [&](std::size_t end) {
    View p = text.substr(start, end - start);
    if (!js::trimView(p).empty()) out.push_back(p);
  };
  while (i < n) {
    if (text[i] == u'\n' && i + 1 < n && text[i + 1] == u'\n') {
      std::size_t runEnd = i;
      while (runEnd < n && text[runEnd] == u'\n') ++runEnd;
      push(i);
      start = runEnd;
      i = runEnd;
    } else {
      ++i;
    }
  }
  push(n);
  return out;
}

// `s.slice(0, end)` with JS semantics for a negative end.
View sliceTo(View s, long long end) {
  long long len = static_cast<long long>(s.size());
  if (end < 0) end = std::max(0LL, len + end);
  return s.substr(0, static_cast<std::size_t>(std::min(end, len)));
}

}  // namespace

// One pass over the words: every `\b…\b` signal matches whole words, emphasis and number+unit
// matches start at a word start, and a number+unit match resumes the scan at its end.
int scoreSentence(View s) {
  int score = 0;
  bool emphasis = false;
  std::size_t numberEnd = 0;
  match::forEachWord(s, [&](std::size_t b, std::size_t e) {
    View word = s.substr(b, e - b);
    char16_t c = word[0];
    if (js::isLower(c)) {
      if (match::isCamelCase(word) || match::isSnakeCase(word)) score += 3;
    } else if (js::isUpper(c)) {
      if (match::isPascalCase(word)) score += 3;
      if (isStatusWord(word)) score += 3;
    } else if (js::isDigit(c) && b >= numberEnd) {
      std::size_t end = match::matchNumberWithUnitAt(s, b, match::UnitSet::kScore);
      if (end != 0) {
        score += 2;
        numberEnd = end;
      }
    }
    if (js::isAlpha(c) && match::isVowelless(word)) score += 2;
    if (!emphasis && js::isAlpha(c)) emphasis = emphasisAt(s, b);
  });
  if (emphasis) score += 4;
  score += 2 * static_cast<int>(match::countGrepRefs(s));
  if (s.size() >= 40 && s.size() <= 120) score += 2;
  if (isFiller(s)) score -= 10;
  return score;
}

std::u16string summarize(View text, std::size_t budget) {
  const long long cap = static_cast<long long>(budget);
  std::vector<Unit> units;
  std::vector<View> sentences;
  for (View para : paragraphs(text)) {
    sentences.clear();
    appendSentences(para, sentences);
    if (sentences.empty()) {
      View whole = js::trimView(para);
      units.push_back({whole, scoreSentence(whole), units.size(), true});
      continue;
    }
    std::size_t first = units.size();
    std::size_t best = first;
    for (View s : sentences) {
      units.push_back({s, scoreSentence(s), units.size(), false});
      if (units.back().score > units[best].score) best = units.size() - 1;
    }
    units[best].primary = true;
  }
  if (units.empty()) return std::u16string(js::trimView(sliceTo(text, cap)));

  std::vector<const Unit*> pool;
  pool.reserve(units.size());
  for (bool primary : {true, false}) {
    std::size_t from = pool.size();
    for (const Unit& u : units) {
      if (u.primary == primary && u.score >= 0) pool.push_back(&u);
    }
    std::stable_sort(pool.begin() + static_cast<std::ptrdiff_t>(from), pool.end(),
                     [](const Unit* a, const Unit* b) { return a->score > b->score; });
  }

  std::vector<const Unit*> selected;
  long long used = 0;
  for (const Unit* u : pool) {
    long long sep = selected.empty() ? 0 : 5;
    if (used + sep + static_cast<long long>(u->text.size()) > cap) continue;
    // The budget bounds the selection to a few dozen units, so a scan is cheap; repeated
    // sentences make many candidates equal, hence memcmp rather than a per-unit loop.
    bool seen = std::any_of(selected.begin(), selected.end(), [u](const Unit* s) {
      return s->text.size() == u->text.size() &&
             std::memcmp(s->text.data(), u->text.data(), u->text.size() * sizeof(char16_t)) == 0;
    });
    if (seen) continue;
    selected.push_back(u);
    used += sep + static_cast<long long>(u->text.size());
  }

  if (selected.empty()) {
    const Unit* best = &units[0];
    for (const Unit& u : units) {
      if (u.score > best->score) best = &u;
    }
    View t = js::trimView(sliceTo(best->text, cap));
    if (static_cast<long long>(t.size()) <= cap - 3) return std::u16string(t);
    std::u16string out(sliceTo(t, cap - 3));
    out += u"...";
    return out;
  }

  std::sort(selected.begin(), selected.end(),
            [](const Unit* a, const Unit* b) { return a->index < b->index; });
  std::u16string out;
  out.reserve(static_cast<std::size_t>(used));
  for (std::size_t i = 0; i < selected.size(); ++i) {
    if (i > 0) out += u" ... ";
    out += selected[i]->text;
  }
  return out;
}

}  // namespace cce
