// SPDX-License-Identifier: MIT
// Spec §5: the deterministic extractive summariser (units, integer scores, greedy packing).
#include "summarizer.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <string_view>
#include <vector>

#include "compiler.h"
#include "jscompat/sort.h"
#include "ledger.h"
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

// Case-insensitive comparison of `s` at `pos` with a lower-case ASCII literal (§12.4: folding ASCII
// letters is exact for these patterns).
bool matchesNoCaseAt(View s, std::size_t pos, std::string_view literal) {
  if (s.size() - pos < literal.size()) return false;
  for (std::size_t k = 0; k < literal.size(); ++k) {
    if (js::asciiLower(s[pos + k]) != static_cast<char16_t>(literal[k])) return false;
  }
  return true;
}

// `\b(…)\b` (flag i) tried at a word start: every alternative starts and ends with a letter, so a
// match starts at a word start and ends at a boundary; alternatives sharing a prefix
// ("require"/"requires") are all tried. The boundary also means the alternative's first word
// ("note" of "note that") is the whole word there, so only alternatives whose first word has the
// word's length, first and second letter are compared; the check runs at many words.
struct EmphasisIndex {
  struct Entry {
    std::uint8_t length = 0;  // of the first word
    char second = 0;          // its second letter
    std::uint8_t phrase = 0;  // index into kEmphasis
  };
  // Bit L of lengths[c]: an alternative starting with the ASCII letter c (either case) has a first
  // word of L letters.
  std::uint32_t lengths[128] = {};
  std::uint8_t count[26] = {};
  Entry entries[26][3] = {};
  constexpr EmphasisIndex() {
    for (std::size_t k = 0; k < std::size(kEmphasis); ++k) {
      std::string_view phrase = kEmphasis[k];
      std::size_t len = phrase.find(' ');
      if (len == std::string_view::npos) len = phrase.size();
      const std::size_t letter = static_cast<std::size_t>(phrase[0] - 'a');
      const auto lower = static_cast<std::size_t>(phrase[0]);
      lengths[lower] |= std::uint32_t{1} << len;
      lengths[lower - 32] |= std::uint32_t{1} << len;
      // More than three alternatives per letter: not a constant expression.
      entries[letter][count[letter]++] = {static_cast<std::uint8_t>(len), phrase[1],
                                          static_cast<std::uint8_t>(k)};
    }
  }
};
constexpr EmphasisIndex kEmphasisIndex{};

// The comparisons of emphasisAt, for the few words whose first letter and length fit. Or-ing 0x20
// lower-cases a letter and maps no other word character to one.
CCE_NOINLINE bool emphasisMatchAt(View s, std::size_t b, std::size_t length) {
  const std::size_t letter = static_cast<std::size_t>((s[b] | 0x20) - u'a');
  const char16_t second = static_cast<char16_t>(s[b + 1] | 0x20);  // every first word has two
  for (std::size_t j = 0; j < kEmphasisIndex.count[letter]; ++j) {
    const EmphasisIndex::Entry& entry = kEmphasisIndex.entries[letter][j];
    if (entry.length != length || static_cast<char16_t>(entry.second) != second) continue;
    std::string_view phrase = kEmphasis[entry.phrase];
    if (matchesNoCaseAt(s, b, phrase) && js::isWordBoundary(s, b + phrase.size())) return true;
  }
  return false;
}

// Whether an emphasis alternative matches at the word of `length` units at `b` in `s` (a word
// that starts with an ASCII letter). The sentence scans ask this of most words, and the first
// letter and length reject almost all of them: that test is inlined into the scans.
// (Forced for the filtered scans of the speed build only: the size build scans without the filter
// and would carry three copies of the test.)
#ifdef CCE_NO_SENTENCE_WORD_FILTER
inline bool emphasisAt(View s, std::size_t b, std::size_t length) {
#else
CCE_ALWAYS_INLINE bool emphasisAt(View s, std::size_t b, std::size_t length) {
#endif
  if (length >= 32 || ((kEmphasisIndex.lengths[s[b]] >> length) & 1u) == 0) return false;
  return emphasisMatchAt(s, b, length);
}

// The phrases of a list grouped by first letter, so a test at one position only compares the few
// that can match there.
template <std::size_t N, std::size_t kMaxPerLetter>
struct ByFirstLetter {
  std::uint8_t count[26] = {};
  std::uint8_t phrase[26][kMaxPerLetter] = {};
  constexpr explicit ByFirstLetter(const std::string_view (&phrases)[N]) {
    for (std::size_t k = 0; k < N; ++k) {
      std::size_t letter = static_cast<std::size_t>(phrases[k][0] - 'a');
      phrase[letter][count[letter]++] = static_cast<std::uint8_t>(k);  // overflow: not constexpr
    }
  }
};

constexpr ByFirstLetter<std::size(kFiller), 6> kFillerByLetter{kFiller};

// Bit of a phrase's second character among its first letter's phrases: a letter, space or `'`.
constexpr int secondCharBit(char16_t c) {
  return js::isLower(c) ? c - u'a' : c == u' ' ? 26 : c == u'\'' ? 27 : -1;
}
struct FillerSeconds {
  std::uint32_t bits[26] = {};
  constexpr FillerSeconds() {
    for (std::string_view phrase : kFiller) {
      bits[phrase[0] - 'a'] |= std::uint32_t{1} << secondCharBit(static_cast<char16_t>(phrase[1]));
    }
  }
};
constexpr FillerSeconds kFillerSeconds{};

// The sentence's first two characters reject almost every sentence before any comparison.
bool isFiller(View s) {
  if (s.size() < 3) return false;  // every phrase has two characters, and one must follow
  const char16_t first = js::asciiLower(s[0]);
  if (!js::isLower(first)) return false;
  const std::size_t letter = static_cast<std::size_t>(first - u'a');
  const int second = secondCharBit(js::asciiLower(s[1]));
  if (second < 0 || ((kFillerSeconds.bits[letter] >> second) & 1u) == 0) return false;
  for (std::size_t j = 0; j < kFillerByLetter.count[letter]; ++j) {
    std::string_view phrase = kFiller[kFillerByLetter.phrase[letter][j]];
    if (s.size() <= phrase.size() || !matchesNoCaseAt(s, 0, phrase)) continue;
    char16_t next = s[phrase.size()];
    if (next == u',' || next == u'.' || next == u'!' || next == u'?' || js::isSpace(next)) {
      return true;
    }
  }
  return false;
}

// `\b(PASS|FAIL|ERROR|WARNING|WARN)\b`, case-sensitive, over a whole word of upper-case letters.
bool isStatusWord(View w) {
  if (w.size() < 4 || w.size() > 7) return false;
  for (std::string_view status : kStatus) {
    if (js::equalsAscii(w, status)) return true;
  }
  return false;
}

// The word-level signals of one unit (§5.2), accumulated word by word.
struct Signals {
  int score = 0;              // identifiers, status words, vowelless words, numbers with units
  bool emphasis = false;      // +4 once, added at the end
  std::size_t numberEnd = 0;  // a number+unit match resumes the global scan at its end
};

// Adds the signals of the word `w` of `text`. Every `\b…\b` signal matches whole words, and
// emphasis and number+unit matches start at a word start.
void scoreWord(View text, const match::Word& w, match::Fraction fraction, Signals& sig) {
  const std::uint8_t first = w.first, rest = w.rest;
  if (first & match::cls::kDigit) {
    if (w.begin < sig.numberEnd || !match::mayStartNumberWithUnit(text, w, fraction)) return;
    std::size_t end = match::matchNumberWithUnitAt(text, w.begin, match::UnitSet::kScore, fraction);
    if (end != 0) {
      sig.score += 2;
      sig.numberEnd = end;
    }
    return;
  }
  if ((first & (match::cls::kLower | match::cls::kUpper)) == 0) return;  // `_…`: no signal
  View word = text.substr(w.begin, w.end - w.begin);
  unsigned shapes = match::wordShapes(word, first, rest);
  if (shapes & (match::shape::kPascal | match::shape::kCamel | match::shape::kSnake)) {
    sig.score += 3;
  }
  if (shapes & match::shape::kVowelless) sig.score += 2;
  if ((first & match::cls::kUpper) &&
      (rest & (match::cls::kLower | match::cls::kDigit | match::cls::kUnderscore)) == 0 &&
      isStatusWord(word)) {
    sig.score += 3;
  }
  if (!sig.emphasis) sig.emphasis = emphasisAt(text, w.begin, w.end - w.begin);
}

// The unit-level signals on top of the word signals.
int unitScore(View unit, const Signals& sig, std::size_t grepRefs) {
  int score = sig.score;
  if (sig.emphasis) score += 4;
  score += 2 * static_cast<int>(grepRefs);
  if (unit.size() >= 40 && unit.size() <= 120) score += 2;
  if (isFiller(unit)) score -= 10;
  return score;
}

struct Unit {
  View text;
  int score = 0;
  std::size_t index = 0;
  bool primary = false;
  // False for a unit whose score was left for the fallback (appendParagraphUnits): it is longer
  // than the budget, as is every unit of its paragraph, so packing never takes it and no other
  // unit's primary flag depends on it.
  bool scored = true;
};

bool isTerminator(char16_t c) { return c == u'.' || c == u'!' || c == u'?'; }

// What a word's classes (first unit, union of the others) tell about its §5.2 signals, so that
// the word scan skips most words without leaving its loop. Digits start numbers; `_…` words, and
// letters followed by a digit (or an upper-case letter followed by `_`), fit no shape, status or
// emphasis word. Words of letters only are identifier or status candidates with an upper-case
// letter after the first and vowelless candidates without a vowel; any other word of letters can
// only be emphasis.
enum Verdict : std::uint8_t { kNoSignal, kMaySignal, kVowellessOrEmphasis, kEmphasisOnly };
constexpr Verdict verdictFor(std::uint8_t first, std::uint8_t rest) {
  using namespace match::cls;
  if (first & kDigit) return kMaySignal;
  if ((first & (kLower | kUpper)) == 0 || (rest & kDigit)) return kNoSignal;
  if (rest & kUnderscore) return (first & kLower) ? kMaySignal : kNoSignal;
  if (rest & kUpper) return kMaySignal;
  if (((first | rest) & kVowel) == 0) return kVowellessOrEmphasis;
  return kEmphasisOnly;
}
// Indexed by first | rest << 5 (word units have only the five class bits).
struct VerdictTable {
  Verdict verdict[1024] = {};
  constexpr VerdictTable() {
    for (unsigned i = 0; i < 1024; ++i) {
      verdict[i] = verdictFor(static_cast<std::uint8_t>(i & 31), static_cast<std::uint8_t>(i >> 5));
    }
  }
};
constexpr VerdictTable kVerdicts{};

// Whether the word of `length` units at `b` needs scoreWord: a possible signal, or (while the unit
// has no emphasis yet) an emphasis match, which is tested right here. Most words are lower-case
// letters with a vowel, which can only be emphasis; they are decided first.
inline bool mayScore(View text, std::size_t b, std::uint8_t first, std::uint8_t rest,
                     std::size_t length, bool emphasisPending) {
  using namespace match::cls;
  const std::uint8_t all = first | rest;
  if ((all & (kUpper | kDigit | kUnderscore | kVowel)) == kVowel) {
    return emphasisPending && emphasisAt(text, b, length);
  }
  switch (kVerdicts.verdict[first | rest << 5]) {
    case kNoSignal:
      return false;
    case kMaySignal:
      return true;
    case kVowellessOrEmphasis:
      if (length >= 3) return true;
      break;
    case kEmphasisOnly:
      break;
  }
  return emphasisPending && emphasisAt(text, b, length);
}

// Marks the best unit of the paragraph [paraStart, end) primary, or adds the whole trimmed
// paragraph as its only (primary) unit when it has no sentence (§5.1.3). Blank paragraphs, which
// `split(/\n\n+/)` followed by the trim filter drops, have no sentence and add nothing.
void closeParagraph(View text, std::size_t paraStart, std::size_t end, std::size_t firstUnit,
                    std::vector<Unit>& units) {
  if (units.size() == firstUnit) {
    View whole = js::trimView(text.substr(paraStart, end - paraStart));
    if (!whole.empty()) units.push_back({whole, scoreSentence(whole), units.size(), true});
    return;
  }
  std::size_t best = firstUnit;
  for (std::size_t u = firstUnit + 1; u < units.size(); ++u) {
    if (units[u].score > units[best].score) best = u;
  }
  units[best].primary = true;
}

// Units and scores of §5.1-5.2 in one pass over the text. Paragraphs are the pieces between runs
// of two or more \n; sentences are the global matches of `[^.!?\n]+[.!?]+`, trimmed. Neither part
// of that pattern contains \n, so matching per paragraph equals matching the whole text, and a
// candidate run that ends at \n (or the end) cannot match from any of its positions: it is dropped
// whole, which keeps the scan linear.
//
// Words are scored while the run is read, and the run's signals are kept when a terminator ends it.
// This equals scoring the trimmed sentence: trimming removes only whitespace, and the signals that
// look past a word stay inside the run (emphasis phrases and units are letters and spaces; the
// `(\.\d+)?` of a number would need the dot that ends the run, hence Fraction::kStopsAtDot, and a
// `\s*` that crosses \n belongs to a run that is dropped anyway). A sentence holds no grep
// reference: its only dots are the trailing terminators, and `\.\w+` needs a word char after one.
void collectUnits(View text, std::vector<Unit>& units) {
  const std::size_t n = text.size();
  units.reserve(n / 64 + 8);
  std::size_t paraStart = 0, paraFirstUnit = 0, runStart = 0;
  Signals sig;
  match::WordScanner words(text);
  match::Word w;
  for (;;) {
    const bool pending = !sig.emphasis;
    auto wanted = [text, pending](std::size_t b, std::uint8_t first, std::uint8_t rest,
                                  std::size_t len) {
      return mayScore(text, b, first, rest, len, pending);
    };
    const match::Next next = words.next<true>(wanted, w);
    if (next == match::Next::kWord) {
      scoreWord(text, w, match::Fraction::kStopsAtDot, sig);
      continue;
    }
    if (next == match::Next::kEnd) break;
    const std::size_t i = words.position();
    std::size_t e = i + 1;
    if (text[i] == u'\n') {
      while (e < n && text[e] == u'\n') ++e;
      if (e - i >= 2) {
        closeParagraph(text, paraStart, i, paraFirstUnit, units);
        paraStart = e;
        paraFirstUnit = units.size();
      }
    } else {
      while (e < n && isTerminator(text[e])) ++e;
      if (i > runStart) {
        // The match ends with terminators, so trimming only removes leading whitespace.
        std::size_t b = runStart;
        while (js::isSpace(text[b])) ++b;
        View sentence = text.substr(b, e - b);
        units.push_back({sentence, unitScore(sentence, sig, 0), units.size(), false});
      }
    }
    sig = Signals{};
    runStart = e;
    words.resumeAt(e);
  }
  closeParagraph(text, paraStart, n, paraFirstUnit, units);
}

// ---- keepIdentifiersWhole ----------------------------------------------------------------------

// Closing quotes and brackets that may sit between a sentence's terminators and the whitespace
// after it.
bool isCloser(char16_t c) {
  return c == u'"' || c == u'\'' || c == u')' || c == u']' || c == u'}' || c == 0x2019 ||
         c == 0x201D || c == 0x00BB;
}

// Abbreviations after which a single `.` does not end a sentence (see SummarizeRules).
constexpr std::string_view kAlwaysAbbreviations[] = {"Dr", "Mr",  "Mrs", "Ms",    "Prof",
                                                     "St", "Fig", "vs",  "approx"};
constexpr std::string_view kMidSentenceAbbreviations[] = {"e.g", "i.e", "etc"};
constexpr std::size_t kLongestAbbreviation = 6;

// Whether the `.` at `dot` (a run of one terminator, followed by whitespace or the end after
// `next`, which skips closers) closes an abbreviation rather than a sentence. The abbreviation is
// the whole run of letters and dots before the `.`.
bool isAbbreviationDot(View para, std::size_t dot, std::size_t next) {
  std::size_t b = dot;
  while (b > 0 && dot - b <= kLongestAbbreviation &&
         (js::isAlpha(para[b - 1]) || para[b - 1] == u'.')) {
    --b;
  }
  if (b == dot || dot - b > kLongestAbbreviation) return false;
  if (b > 0 && (js::isWord(para[b - 1]) || para[b - 1] == u'.')) return false;
  const View word = para.substr(b, dot - b);
  for (std::string_view abbreviation : kAlwaysAbbreviations) {
    if (js::equalsAscii(word, abbreviation)) return true;
  }
  std::size_t q = next;
  while (q < para.size() && js::isSpace(para[q])) ++q;
  const char16_t following = q < para.size() ? para[q] : u'\0';
  for (std::string_view abbreviation : kMidSentenceAbbreviations) {
    if (js::equalsAscii(word, abbreviation)) return js::isLower(following);
  }
  return js::equalsAscii(word, "No") && js::isDigit(following);
}

int scoreUnit(View s, match::WordScanner& words);

// The size-built module (wasm/CMakeLists.txt) checks and copies each unit for its word scan: the
// shared copy cost 0.26 KB gzip of cce.wasm.
#ifdef CCE_NO_SHARED_ASCII_COPY
constexpr bool kSharedAsciiCopy = false;
#else
constexpr bool kSharedAsciiCopy = true;
#endif

// The word-scan copy (match::asciiCopyOf) of the text whose units `units` holds, and what the
// summary's units are measured against.
struct UnitSource {
  View text;
  View ascii;  // the text itself when it is ASCII
  // Units longer than this in a paragraph of such units can never be packed (selectUnits' caps are
  // at most the summary's budget), so their scores wait for the fallback, the only reader.
  std::size_t deferAbove = SIZE_MAX;
};

int scoreUnitOf(const UnitSource& source, View unit) {
  if (!kSharedAsciiCopy) return scoreSentence(unit);
  match::WordScanner words(
      source.ascii.substr(static_cast<std::size_t>(unit.data() - source.text.data()), unit.size()),
      match::WordScanner::PreparedAscii{});
  return scoreUnit(unit, words);
}

// The units of one paragraph under keepIdentifiersWhole, scored, best one primary; a paragraph
// whose every unit is longer than `source.deferAbove` is left unscored (Unit::scored), which is
// about a seventh of the default mode's scoring on long conversations (logs and code without a
// sentence end).
void appendParagraphUnits(const UnitSource& source, View para, std::vector<Unit>& units) {
  const std::size_t firstUnit = units.size();
  const std::size_t n = para.size();
  bool allLong = true;
  auto addUnit = [&](std::size_t from, std::size_t to) {
    View unit = js::trimView(para.substr(from, to - from));
    if (unit.empty()) return;
    allLong = allLong && unit.size() > source.deferAbove;
    units.push_back({unit, 0, units.size(), false, false});
  };
  std::size_t unitStart = 0;
  for (std::size_t i = match::findTerminator(para, 0); i < n;
       i = match::findTerminator(para, i)) {
    std::size_t k = i + 1;
    while (k < n && isTerminator(para[k])) ++k;
    std::size_t next = k;
    while (next < n && isCloser(para[next])) ++next;
    const bool ends = (next == n || js::isSpace(para[next])) &&
                      !(k == i + 1 && para[i] == u'.' && isAbbreviationDot(para, i, next));
    if (ends) {
      addUnit(unitStart, next);
      unitStart = next;
    }
    i = next;
  }
  addUnit(unitStart, n);
  if (units.size() == firstUnit || allLong) return;
  for (std::size_t u = firstUnit; u < units.size(); ++u) {
    units[u].score = scoreUnitOf(source, units[u].text);
    units[u].scored = true;
  }
  std::size_t best = firstUnit;
  for (std::size_t u = firstUnit + 1; u < units.size(); ++u) {
    if (units[u].score > units[best].score) best = u;
  }
  units[best].primary = true;
}

// Paragraphs as in the reference (`split(/\n\n+/)`, blank ones dropped), units per paragraph.
void collectUnitsKeepingIdentifiers(const UnitSource& source, std::vector<Unit>& units) {
  const View text = source.text;
  const std::size_t n = text.size();
  units.reserve(n / 64 + 8);
  std::size_t paraStart = 0;
  for (std::size_t i = match::findUnit(text, 0, u'\n');; i = match::findUnit(text, i + 1, u'\n')) {
    if (i < n && !(i + 1 < n && text[i + 1] == u'\n')) continue;
    appendParagraphUnits(source, text.substr(paraStart, i - paraStart), units);
    while (i < n && text[i] == u'\n') ++i;
    paraStart = i;
    if (i == n) break;
  }
}

// `s.slice(0, end)` with JS semantics for a negative end.
View sliceTo(View s, long long end) {
  long long len = static_cast<long long>(s.size());
  if (end < 0) end = std::max(0LL, len + end);
  return s.substr(0, static_cast<std::size_t>(std::min(end, len)));
}

// Appends the units of one pool (primary or not, score >= 0) to `pool`, by score descending and in
// document order among equal scores (a stable sort). Scores are small integers, so a counting sort
// does it in linear time; an unusually wide range falls back to a comparison sort.
void appendByScoreCounting(const std::vector<Unit>& units, bool primary,
                           std::vector<const Unit*>& pool) {
  const std::size_t from = pool.size();
  int maxScore = 0;
  for (const Unit& u : units) {
    if (u.primary == primary && u.score >= 0 && u.scored) {
      pool.push_back(&u);
      maxScore = std::max(maxScore, u.score);
    }
  }
  const auto begin = pool.begin() + static_cast<std::ptrdiff_t>(from);
  constexpr int kCountingRange = 256;
  if (maxScore >= kCountingRange) {
    // Both of this file's sorts pass function pointers (`+[]`), so they share one compiled sort.
    js::stableSort(pool.data() + from, pool.data() + pool.size(),
                   +[](const Unit* a, const Unit* b) { return a->score > b->score; });
    return;
  }
  std::size_t starts[kCountingRange + 1];  // starts[k]: first slot of score maxScore - k
  std::fill(starts, starts + maxScore + 2, std::size_t{0});
  for (auto it = begin; it != pool.end(); ++it) ++starts[maxScore - (*it)->score + 1];
  for (int k = 1; k <= maxScore; ++k) starts[k] += starts[k - 1];
  std::vector<const Unit*> sorted(static_cast<std::size_t>(pool.end() - begin));
  for (auto it = begin; it != pool.end(); ++it) sorted[starts[maxScore - (*it)->score]++] = *it;
  std::copy(sorted.begin(), sorted.end(), begin);
}

// The fallback of §5.3 when no unit fits: the best unit, cut to the budget. It scores the units
// whose scores were deferred (`source`; none in the reference rules).
std::u16string bestUnitCut(std::vector<Unit>& units, long long cap, const UnitSource* source) {
  for (Unit& u : units) {
    if (u.scored) continue;
    u.score = scoreUnitOf(*source, u.text);
    u.scored = true;
  }
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

// §5.3: pools, greedy packing, fallback and the document-order join, as first written: both pools
// counting-sorted, the selection in a vector of its own, then sorted into document order. The
// speed build and native ones pack in place (selectUnits below), which tests hold to this
// (detail::summarizeSelectingBySorts).
std::u16string selectUnitsBySorts(View text, std::size_t budget, std::vector<Unit>& units,
                                  const UnitSource* source) {
  const long long cap = static_cast<long long>(budget);
  if (units.empty()) return std::u16string(js::trimView(sliceTo(text, cap)));

  std::vector<const Unit*> pool;
  pool.reserve(units.size());
  for (bool primary : {true, false}) appendByScoreCounting(units, primary, pool);

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
  if (selected.empty()) return bestUnitCut(units, cap, source);

  js::stableSort(selected, +[](const Unit* a, const Unit* b) { return a->index < b->index; });
  std::u16string out;
  out.reserve(static_cast<std::size_t>(used));
  for (std::size_t i = 0; i < selected.size(); ++i) {
    if (i > 0) out += u" ... ";
    out += selected[i]->text;
  }
  return out;
}

#ifdef CCE_NO_IN_PLACE_PACKING
// The size-built module (wasm/CMakeLists.txt) packs with the sorts: packing in place costs bytes.
std::u16string selectUnits(View text, std::size_t budget, std::vector<Unit>& units,
                           const UnitSource* source) {
  return selectUnitsBySorts(text, budget, units, source);
}
#else
// appendByScoreCounting for the usual pool of a dozen units or fewer: insertion-sorted in place,
// without the counts and the second vector.
void appendByScore(const std::vector<Unit>& units, bool primary, std::vector<const Unit*>& pool) {
  const std::size_t from = pool.size();
  for (const Unit& u : units) {
    if (u.primary == primary && u.score >= 0 && u.scored) pool.push_back(&u);
  }
  constexpr std::size_t kInsertionLimit = 32;
  if (pool.size() - from > kInsertionLimit) {
    pool.resize(from);
    appendByScoreCounting(units, primary, pool);
    return;
  }
  const auto begin = pool.begin() + static_cast<std::ptrdiff_t>(from);
  for (auto it = begin + 1; it < pool.end(); ++it) {
    const Unit* u = *it;
    auto at = it;
    for (; at != begin && (*(at - 1))->score < u->score; --at) *at = *(at - 1);
    *at = u;
  }
}

// selectUnitsBySorts with fewer allocations (the wasm profile of the scale session's default call
// had selectUnits at 2.4 % of compress: its vectors grow in the size-class allocator): the
// selection is kept in the front of the pool it is taken from (each taken unit was read before
// its slot is written), and the scan stops when not even a one-unit sentence would fit beside it.
std::u16string selectUnits(View text, std::size_t budget, std::vector<Unit>& units,
                           const UnitSource* source) {
  const long long cap = static_cast<long long>(budget);
  if (units.empty()) return std::u16string(js::trimView(sliceTo(text, cap)));

  std::vector<const Unit*> pool;
  pool.reserve(units.size());
  for (bool primary : {true, false}) appendByScore(units, primary, pool);

  std::size_t taken = 0;
  long long used = 0;
  for (std::size_t k = 0; k < pool.size(); ++k) {
    const Unit* u = pool[k];
    const long long sep = taken == 0 ? 0 : 5;
    if (used + sep + static_cast<long long>(u->text.size()) > cap) continue;
    bool seen = std::any_of(pool.begin(), pool.begin() + static_cast<std::ptrdiff_t>(taken),
                            [u](const Unit* s) {
                              return s->text.size() == u->text.size() &&
                                     std::memcmp(s->text.data(), u->text.data(),
                                                 u->text.size() * sizeof(char16_t)) == 0;
                            });
    if (seen) continue;
    pool[taken++] = u;
    used += sep + static_cast<long long>(u->text.size());
    if (used + 6 > cap) break;  // a unit has at least one unit, after a 5-unit separator
  }
  if (taken == 0) return bestUnitCut(units, cap, source);

  // Document order (indices are distinct): a selection is a few units, insertion-sorted in place.
  pool.resize(taken);
  if (taken <= 16) {
    for (std::size_t i = 1; i < taken; ++i) {
      const Unit* u = pool[i];
      std::size_t at = i;
      for (; at > 0 && pool[at - 1]->index > u->index; --at) pool[at] = pool[at - 1];
      pool[at] = u;
    }
  } else {
    js::stableSort(pool, +[](const Unit* a, const Unit* b) { return a->index < b->index; });
  }
  std::u16string out;
  out.reserve(static_cast<std::size_t>(used));
  for (std::size_t i = 0; i < taken; ++i) {
    if (i > 0) out += u" ... ";
    out += pool[i]->text;
  }
  return out;
}

#endif

}  // namespace

// The size-built module (wasm/CMakeLists.txt) hands every word of a sentence to scoreWord: the
// filter below, a second copy of the word scan, cost 0.14 KB gzip of cce.wasm.
#ifdef CCE_NO_SENTENCE_WORD_FILTER
constexpr bool kFilteredSentenceWords = false;
#else
constexpr bool kFilteredSentenceWords = true;
#endif

int scoreSentence(View s) {
  match::WordScanner words(s);
  return scoreUnit(s, words);
}

namespace {

// scoreSentence over `words`, a scanner of `s`.
int scoreUnit(View s, match::WordScanner& words) {
  Signals sig;
  match::Word w;
  if (kFilteredSentenceWords) {
    // Only words that can add a signal reach scoreWord, as in collectUnits: the default mode
    // scores every sentence this way, and most words (lower case, with a vowel) can add none.
    for (;;) {
      const bool pending = !sig.emphasis;
      auto wanted = [s, pending](std::size_t b, std::uint8_t first, std::uint8_t rest,
                                 std::size_t len) {
        return mayScore(s, b, first, rest, len, pending);
      };
      if (words.next<false>(wanted, w) != match::Next::kWord) break;
      scoreWord(s, w, match::Fraction::kAllowed, sig);
    }
  } else {
    auto all = [](std::size_t, std::uint8_t, std::uint8_t, std::size_t) { return true; };
    while (words.next<false>(all, w) == match::Next::kWord) {
      scoreWord(s, w, match::Fraction::kAllowed, sig);
    }
  }
  return unitScore(s, sig, match::countGrepRefs(s));
}

}  // namespace

namespace {

template <bool kBySorts>
std::u16string summarizeReference(View text, std::size_t budget) {
  std::vector<Unit> units;
  collectUnits(text, units);
  return kBySorts ? selectUnitsBySorts(text, budget, units, nullptr)
                  : selectUnits(text, budget, units, nullptr);
}

}  // namespace

std::u16string summarize(View text, std::size_t budget) {
  return summarizeReference<false>(text, budget);
}

namespace {

template <bool kBySorts = false>
std::u16string summarizeKeepingIdentifiers(View text, std::size_t budget,
                                           const SummarizeRules& rules, bool deferLongUnits) {
  auto select = kBySorts ? selectUnitsBySorts : selectUnits;
  // The word scans of every unit read one copy (a copy only when the text is not ASCII).
  UnitSource source{text, text};
  std::u16string copy;
  if (kSharedAsciiCopy && !match::isAscii(text)) {
    copy = match::asciiCopyOf(text);
    source.ascii = copy;
  }
  if (deferLongUnits) source.deferAbove = budget;
  std::vector<Unit> units;
  collectUnitsKeepingIdentifiers(source, units);
  std::u16string out = select(text, budget, units, &source);
  if (!rules.keepHighEntropy) return out;
  const std::vector<U16> keep = highEntropyRuns(text, budget / 2);
  auto missing = [&out](const U16& run) { return out.find(run) == std::u16string::npos; };
  if (std::none_of(keep.begin(), keep.end(), missing)) return out;
  // Room for every run (each with one separator, plus " ... " before them), then the selection in
  // what is left, then the runs it did not already contain.
  std::size_t reserve = 4;
  for (const U16& run : keep) reserve += run.size() + 1;
  out = select(text, budget - reserve, units, &source);
  bool first = true;
  for (const U16& run : keep) {
    if (!missing(run)) continue;
    if (first) {
      if (!out.empty()) out += u" ... ";
      first = false;
    } else {
      out += u' ';
    }
    out += run;
  }
  return out;
}

}  // namespace

std::u16string summarize(View text, std::size_t budget, const SummarizeRules& rules) {
  if (!rules.keepIdentifiersWhole) return summarize(text, budget);
  return summarizeKeepingIdentifiers(text, budget, rules, true);
}

namespace detail {
std::u16string summarizeScoringEveryUnit(View text, std::size_t budget,
                                         const SummarizeRules& rules) {
  if (!rules.keepIdentifiersWhole) return summarize(text, budget);
  return summarizeKeepingIdentifiers(text, budget, rules, false);
}

std::u16string summarizeSelectingBySorts(View text, std::size_t budget,
                                         const SummarizeRules& rules) {
  if (!rules.keepIdentifiersWhole) return summarizeReference<true>(text, budget);
  return summarizeKeepingIdentifiers<true>(text, budget, rules, true);
}
}  // namespace detail

}  // namespace cce
