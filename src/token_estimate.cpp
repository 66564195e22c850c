// SPDX-License-Identifier: MIT
// Script-aware token estimate: a table-driven automaton over UTF-16 units (see the header).

#include "token_estimate.h"

#include "compiler.h"

#include <algorithm>

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "the pair scan reads two units as one word");

#if defined(__SSE2__) && !defined(CCE_NO_SIMD)
#include <emmintrin.h>
#define CCE_ESTIMATE_SSE2 1
#else
#define CCE_ESTIMATE_SSE2 0
#endif

namespace cce {
namespace detail {

// Fitted in two rounds by scripts/measure-token-estimate.mjs (docs/token-counts.md, "The costs").
// The script costs (kLatinExtended, kHan ... kOtherWords, kJoiners, kAstral) come from
// `--fit --fit-power 1.5`: each data set weighted equally and the samples of
// tests/data/token-estimate (which alone carry the CJK and other-script features) twice. A zero
// means the fit found the feature free given the others (o200k merges CJK punctuation into the
// next ideograph, "，是"; a word of another script costs no more than its letters). The others
// are refitted with those, kNewlineRuns (a run of line breaks is one o200k token) and kRandomChars
// (below) kept: `--fit --fit-pooled --fit-keep newlineRuns,<script features>`, every text the
// default mode bills (contents, tool names and arguments) of data/real, data/native and
// data/bench pooled, squared errors relative to max(tokens, 20), so that every token weighs about
// the same. The first round weighed one-line messages most, and long tool outputs and arguments,
// which decide whether a conversation fits its budget, were estimated 5-15 % low.
constexpr std::array<std::uint32_t, kFeatureCount> kTokenFeatureCostMilli = {
    975,   // kSpacedWords
    214,   // kAttachedWords
    829,   // kBareWords
    64,    // kSpacedWordTail
    150,   // kBareWordTail
    171,   // kCapsTail
    73,    // kGlued
    804,   // kLatinExtended
    1247,  // kDigitGroups
    949,   // kDigitsAfterBlank
    896,   // kPunctRuns
    51,    // kPunctChars
    783,   // kEscapes
    1000,  // kNewlineRuns
    0,     // kPunctNewlines
    804,   // kBlankRuns
    858,   // kHan
    801,   // kHiragana
    529,   // kKatakana
    638,   // kHangul
    278,   // kHangulWords
    0,     // kCjkPunct
    281,   // kCyrillic
    336,   // kOtherLetters
    417,   // kSparseLetters
    0,     // kOtherWords
    1149,  // kSymbols
    181,   // kSymbolRepeats
    1970,  // kJoiners
    1768,  // kAstral
    170,   // kRandomChars (below)
};

namespace {

// Letters past this length start to split: a spaced English word is one token up to ~8 letters,
// while a word glued to punctuation or a camelCase hump already splits after ~3.
constexpr std::uint32_t kSpacedTailFrom = 6;
constexpr std::uint32_t kBareTailFrom = 3;

enum Unit : std::uint8_t {
  kULower,    // ASCII a-z
  kUUpper,    // ASCII A-Z
  kULatin,    // other Latin letters and combining marks: part of a Latin word
  kUDigit,    // ASCII 0-9
  kUBlank,    // horizontal whitespace
  kUNewline,  // \n \r U+2028 U+2029
  kUPunct,
  kUCyrillic,
  kUOther,    // kOtherLetters
  kUSparse,   // kSparseLetters
  kUHan,
  kUHiragana,
  kUKatakana,
  kUHangul,
  kUCjkPunct,
  kUSymbol,
  kUJoiner,
  kUHigh,     // high surrogate
  kULow,      // low surrogate (only a lone one reaches the pass: pairs are taken together)
  kURepeat,   // a symbol equal to the unit before it (set by the pass, not by the table)
  kUEscape,   // backslash: punctuation, but the letter after it is an escape, not a word's start
  kUnitCount
};

struct Range {
  char16_t first;  // the range runs up to the next entry's first unit
  Unit unit;
};

// Non-ASCII BMP units by block. Coarse on purpose: what matters is how BPE vocabularies treat a
// block (merged like Latin words, one token per character or two like ideographs, or split into
// bytes like most symbols), not the exact Unicode general category.
constexpr Range kRanges[] = {
    {0x0080, kUSymbol},    // C1 controls
    {0x00A0, kUBlank},
    {0x00A1, kUPunct},     // Latin-1 punctuation and symbols
    {0x00C0, kULatin},
    {0x00D7, kUPunct},     // multiplication sign
    {0x00D8, kULatin},
    {0x00F7, kUPunct},     // division sign
    {0x00F8, kULatin},     // ... Latin Extended-A/B, IPA, modifiers, combining marks
    {0x0370, kUSparse},    // Greek
    {0x0400, kUCyrillic},
    {0x0530, kUSparse},    // Armenian, Hebrew
    {0x0600, kUOther},     // Arabic
    {0x0700, kUSparse},    // Syriac
    {0x0750, kUOther},     // Arabic Supplement
    {0x0780, kUSparse},    // Thaana, NKo, Samaritan, Mandaic
    {0x08A0, kUOther},     // Arabic Extended-A, Devanagari
    {0x0980, kUSparse},    // other Indic, Sinhala, Thai, Lao, Tibetan, Myanmar, Georgian
    {0x1100, kUHangul},    // Hangul Jamo
    {0x1200, kUSparse},    // Ethiopic, Cherokee, Canadian syllabics, Khmer, Mongolian, ...
    {0x1D00, kULatin},     // phonetic extensions, Latin Extended Additional
    {0x1F00, kUSparse},    // Greek Extended
    {0x2000, kUBlank},     // en quad ... hair space
    {0x200B, kUJoiner},    // zero-width space, ZWNJ, ZWJ, directional marks
    {0x2010, kUPunct},     // dashes, quotes, bullets, ellipsis
    {0x2028, kUNewline},   // line and paragraph separators
    {0x202A, kUJoiner},    // bidi embedding controls
    {0x202F, kUBlank},     // narrow no-break space
    {0x2030, kUPunct},
    {0x205F, kUBlank},     // medium mathematical space
    {0x2060, kUJoiner},    // word joiner, invisible operators
    {0x2070, kUSymbol},    // super/subscripts, currency
    {0x20D0, kUJoiner},    // combining marks for symbols (keycap U+20E3)
    {0x2100, kUSymbol},    // letterlike, arrows, math, technical, box, shapes, dingbats
    {0x2C00, kUSparse},    // Glagolitic, Latin Extended-C, Coptic, Tifinagh
    {0x2E00, kUPunct},     // Supplemental Punctuation
    {0x2E80, kUHan},       // CJK and Kangxi radicals
    {0x3000, kUBlank},     // ideographic space
    {0x3001, kUCjkPunct},
    {0x3040, kUHiragana},
    {0x30A0, kUKatakana},
    {0x3100, kUHan},       // Bopomofo
    {0x3130, kUHangul},    // compatibility jamo
    {0x3190, kUHan},       // Kanbun, Bopomofo Extended, CJK strokes
    {0x31F0, kUKatakana},  // Katakana Phonetic Extensions
    {0x3200, kUCjkPunct},  // enclosed CJK, compatibility units
    {0x3400, kUHan},       // Extension A
    {0x4DC0, kUSymbol},    // Yijing hexagrams
    {0x4E00, kUHan},       // Unified Ideographs, Yi
    {0xA4D0, kUSparse},    // Lisu, Vai, Cyrillic Extended-B, Bamum, ...
    {0xA960, kUHangul},    // Jamo Extended-A
    {0xA980, kUSparse},    // Javanese, Cham, Myanmar extensions, Meetei, ...
    {0xAC00, kUHangul},    // syllables, Jamo Extended-B
    {0xD800, kUHigh},
    {0xDC00, kULow},
    {0xE000, kUSymbol},    // private use
    {0xF900, kUHan},       // compatibility ideographs
    {0xFB00, kUSparse},    // Latin/Armenian ligatures, Hebrew presentation forms
    {0xFB50, kUOther},     // Arabic presentation forms A
    {0xFE00, kUJoiner},    // variation selectors
    {0xFE10, kUCjkPunct},  // vertical forms
    {0xFE20, kUJoiner},    // combining half marks
    {0xFE30, kUCjkPunct},  // CJK compatibility and small forms
    {0xFE70, kUOther},     // Arabic presentation forms B
    {0xFEFF, kUJoiner},    // byte order mark
    {0xFF00, kUCjkPunct},  // full-width ASCII, half-width CJK punctuation
    {0xFF65, kUKatakana},  // half-width katakana
    {0xFFA0, kUHangul},    // half-width hangul
    {0xFFE0, kUCjkPunct},  // full-width symbols
    {0xFFF0, kUSymbol},    // specials (U+FFFD)
};

// One byte per BMP unit, filled on first use: zero-initialised storage adds nothing to the wasm
// binary, and a lookup costs the same for every script.
const Unit* unitTable() {
  static Unit table[0x10000];
  static const bool ready = [] {
    for (int c = 0; c < 0x80; ++c) {
      // Controls (ANSI escapes in terminal output) are byte tokens that never merge with
      // punctuation.
      table[c] = c < 0x20 || c == 0x7F ? kUSymbol : kUPunct;
    }
    for (int c = 'a'; c <= 'z'; ++c) table[c] = kULower;
    for (int c = 'A'; c <= 'Z'; ++c) table[c] = kUUpper;
    for (int c = '0'; c <= '9'; ++c) table[c] = kUDigit;
    for (char16_t c : std::u16string_view(u"\t \v\f")) table[c] = kUBlank;
    table[u'\n'] = table[u'\r'] = kUNewline;
    table[u'\\'] = kUEscape;
    constexpr std::size_t kCount = sizeof kRanges / sizeof kRanges[0];
    for (std::size_t r = 0; r < kCount; ++r) {
      std::size_t end = r + 1 < kCount ? kRanges[r + 1].first : 0x10000;
      for (std::size_t c = kRanges[r].first; c < end; ++c) table[c] = kRanges[r].unit;
    }
    return true;
  }();
  (void)ready;
  return table;
}

constexpr bool isLetter(Unit u) { return u <= kULatin; }
constexpr bool isScriptLetter(Unit u) { return u == kUCyrillic || u == kUOther || u == kUSparse; }

// Everything the pass remembers about the text so far, in one byte: the kind of the previous
// unit plus the state of the run it belongs to (a Latin word piece's length up to the point where
// letters start costing extra, the position in a digit run, the blanks and line breaks of a
// whitespace run).
enum State : std::uint8_t {
  kSStart,   // nothing yet: like the start of a line, but not inside a whitespace run
  kSMisc,    // after an ideograph, kana, CJK punctuation, symbol, joiner or surrogate
  kSPunct,     // after one punctuation mark right after a non-blank: a word joins it (".get")
  kSPunctRun,  // after a longer run, or a mark after a blank: a word after it is its own piece
  kSEscape,    // after a backslash (inside or ending a punctuation run)
  kSHangul,
  kSScript,  // after a Cyrillic, other or sparse letter
  kSDigit,   // + position of the last digit in its run, mod 3 (3 states)
  kSSpace = kSDigit + 3,  // + 3 * (run has a line break) + min(blanks since it, 2) (6 states)
  kSLetter = kSSpace + 6,  // + 8 * (2 * last letter's unit + spaced piece) + min(len, tail+1) - 1
  kStateCount = kSLetter + 3 * 2 * 8
};

// After a punctuation mark (the three punctuation states are contiguous).
constexpr bool inPunct(std::uint8_t state) { return state >= kSPunct && state <= kSEscape; }

constexpr std::uint32_t kSpacedCap = kSpacedTailFrom + 1;
constexpr std::uint32_t kBareCap = kBareTailFrom + 1;
static_assert(kSpacedCap <= 8 && kBareCap <= 8, "a letter state keeps at most 8 lengths");

constexpr std::uint32_t bit(TokenFeature feature) { return 1u << feature; }
static_assert(kFeatureCount <= 32, "a step's features must fit in a 32-bit mask");

struct Step {
  std::uint8_t next;
  std::uint32_t features;  // each set bit counts its feature once
};

// The estimator's definition: what unit `u` adds after `state`. The pass tabulates it for
// estimateTokens and calls it directly for tokenFeatures, so both always agree.
constexpr Step step(std::uint8_t state, Unit u) {
  const bool inSpace = state >= kSSpace && state < kSLetter;
  const std::uint32_t lineBreak = inSpace ? (state - kSSpace) / 3 : 0;
  const std::uint32_t blanks = inSpace ? (state - kSSpace) % 3 : 0;
  const bool afterBlank = blanks > 0;
  const bool afterLetter = state >= kSLetter;
  const Unit lastLetter = afterLetter ? static_cast<Unit>((state - kSLetter) / 16) : kULower;
  std::uint32_t features = 0;
  std::uint32_t next = kSMisc;

  // A run of >= 2 blanks after the last line break is one token once something follows it.
  if (u != kUBlank && u != kUNewline && blanks >= 2) features |= bit(kBlankRuns);

  if (isLetter(u) && state == kSEscape) {
    // An escape ("\n", "\t", "\u" in JSON text): o200k makes the letter a token of its own (or
    // one with the backslash), and the word after it ("\nimport") is a new piece: from kSMisc the
    // next letter starts a bare word.
    features |= bit(kEscapes);
  } else if (isLetter(u)) {
    bool spaced = afterLetter && ((state - kSLetter) / 8) % 2 == 1;
    std::uint32_t len = afterLetter ? (state - kSLetter) % 8 + 1 : 0;
    if (!afterLetter) {
      // A word starts; o200k's pre-tokenizer glues one preceding blank or punctuation mark to it.
      spaced = afterBlank;
      features |= spaced ? bit(kSpacedWords) : state == kSPunct ? bit(kAttachedWords)
                                                               : bit(kBareWords);
      if (state >= kSDigit && state < kSSpace) features |= bit(kGlued);
      len = 0;
    } else if (u == kUUpper && lastLetter == kUUpper) {
      features |= bit(kCapsTail);  // "JSON" stays one piece
    } else if (u == kUUpper) {
      features |= bit(kBareWords);  // a lower -> upper change starts a piece: "retry|Config"
      spaced = false;
      len = 0;
    }
    if (u == kULatin) features |= bit(kLatinExtended);
    // Past the cap every letter costs extra: long or rare words split into several tokens.
    const std::uint32_t cap = spaced ? kSpacedCap : kBareCap;
    if (len + 1 >= cap) features |= bit(spaced ? kSpacedWordTail : kBareWordTail);
    len = len + 1 < cap ? len + 1 : cap;
    next = kSLetter + 8 * (2 * u + (spaced ? 1 : 0)) + len - 1;
  } else if (u == kUDigit) {
    // Numbers split into groups of up to three digits; a blank before one is a token of its own.
    const bool inDigits = state >= kSDigit && state < kSSpace;
    const std::uint32_t phase = inDigits ? (state - kSDigit + 1) % 3 : 0;
    if (phase == 0) features |= bit(kDigitGroups);
    if (afterLetter) features |= bit(kGlued);
    if (afterBlank) features |= bit(kDigitsAfterBlank);
    next = kSDigit + phase;
  } else if (u == kUNewline) {
    // Blanks before a line break belong to the newline token.
    // After punctuation they belong to its token (".\n\n", "{\n"): o200k's pre-tokenizer takes
    // the line breaks that follow a punctuation run into it.
    if (lineBreak == 0) features |= bit(inPunct(state) ? kPunctNewlines : kNewlineRuns);
    next = kSSpace + 3;
  } else if (u == kUBlank) {
    next = kSSpace + 3 * lineBreak + (blanks < 2 ? blanks + 1 : 2);
  } else if (u == kUPunct || u == kUEscape) {
    const bool inRun = inPunct(state);
    if (!inRun) features |= bit(kPunctRuns);
    features |= bit(kPunctChars);
    // o200k's pre-tokenizer joins a mark to the word after it only when no blank or other mark
    // comes before it: "(src" is one piece, " (src" and "](/en" are two (the word is then bare).
    next = u == kUEscape ? kSEscape : inRun || afterBlank ? kSPunctRun : kSPunct;
  } else if (u == kUHangul) {
    if (state != kSHangul) features |= bit(kHangulWords);
    features |= bit(kHangul);
    next = kSHangul;
  } else if (isScriptLetter(u)) {
    if (state != kSScript) features |= bit(kOtherWords);
    features |= bit(u == kUCyrillic ? kCyrillic : u == kUOther ? kOtherLetters : kSparseLetters);
    next = kSScript;
  } else {
    switch (u) {
      case kUHan: features |= bit(kHan); break;
      case kUHiragana: features |= bit(kHiragana); break;
      case kUKatakana: features |= bit(kKatakana); break;
      case kUCjkPunct: features |= bit(kCjkPunct); break;
      case kUSymbol: features |= bit(kSymbols); break;
      case kURepeat: features |= bit(kSymbolRepeats); break;
      case kUJoiner: features |= bit(kJoiners); break;
      case kULow: features |= bit(kAstral); break;  // lone
      default: break;  // a high surrogate: the pass counts the pair
    }
  }
  return {static_cast<std::uint8_t>(next), features};
}

constexpr std::uint32_t costOf(std::uint32_t features) {
  std::uint32_t milli = 0;
  for (int k = 0; k < kFeatureCount; ++k) {
    if (features & bit(static_cast<TokenFeature>(k))) milli += kTokenFeatureCostMilli[k];
  }
  return milli;
}

struct Transition {
  std::uint16_t milli;    // cost of the step's features
  std::uint16_t nextRow;  // next state * kUnitCount: the only dependency from unit to unit
};
static_assert(kStateCount * kUnitCount <= 0xFFFF, "rows must fit in 16 bits");

// step() for every state and unit, filled on first use (zero-initialised storage again).
const Transition* transitionTable() {
  static Transition table[kStateCount * kUnitCount];
  static const bool ready = [] {
    for (int s = 0; s < kStateCount; ++s) {
      for (int u = 0; u < kUnitCount; ++u) {
        Step st = step(static_cast<std::uint8_t>(s), static_cast<Unit>(u));
        std::uint32_t milli = costOf(st.features);
        table[s * kUnitCount + u] = {static_cast<std::uint16_t>(milli),
                                     static_cast<std::uint16_t>(st.next * kUnitCount)};
      }
    }
    return true;
  }();
  (void)ready;
  return table;
}

// The pass reports to a sink: FeatureSink counts features (for calibration), CostSink sums their
// costs (for the estimate).
struct FeatureSink {
  TokenFeatures f{};
  std::uint8_t state = kSStart;
  void advance(Unit u) {
    Step st = step(state, u);
    for (int k = 0; k < kFeatureCount; ++k) f[k] += (st.features >> k) & 1u;
    state = st.next;
  }
  void add(TokenFeature feature) { ++f[feature]; }
};

struct CostSink {
  const Transition* table = transitionTable();
  std::uint32_t row = kSStart * kUnitCount;
  std::uint64_t milli = 0;
  CCE_ALWAYS_INLINE void advance(Unit u) {
    const Transition t = table[row + u];
    milli += t.milli;
    row = t.nextRow;
  }
  void add(TokenFeature feature) { milli += kTokenFeatureCostMilli[feature]; }
};

// Where the seam replay sends the features of code points (both replays would add the same).
struct IgnoredFeatures {
  void add(TokenFeature) {}
};

// Reads a text's units in order: a surrogate pair is one unit (kUHigh) whose code point's feature
// goes to the sink separately, and a symbol equal to the unit before it becomes kURepeat.
class Reader {
 public:
  Reader(const char16_t* s, std::size_t begin, std::size_t end)
      : unitOf_(unitTable()), s_(s), i_(begin), end_(end),
        before_(begin > 0 ? s[begin - 1] : u'a') {}

  bool done() const { return i_ >= end_; }
  std::size_t position() const { return i_; }

  // Once per UTF-16 unit: always inlined into the pass (see compiler.h), its rare surrogate path
  // never. The code point's feature goes to `extra` (a sink's add).
  template <class Extra>
  CCE_ALWAYS_INLINE Unit read(Extra& extra) {
    const char16_t c = s_[i_++];
    Unit u = unitOf_[c];
    u = static_cast<Unit>(u + (kURepeat - kUSymbol) * (u == kUSymbol && c == before_));
    before_ = c;
    if (u == kUHigh) extra.add(readPairEnd(c));  // rare, so the branch is predicted
    return u;
  }

 private:
  // After a high surrogate `c`: takes its low surrogate, if one follows, and names the feature of
  // the code point (a lone high surrogate counts as astral too).
  CCE_NOINLINE TokenFeature readPairEnd(char16_t c) {
    if (i_ >= end_ || unitOf_[s_[i_]] != kULow) return kAstral;
    char32_t cp = 0x10000 + ((static_cast<char32_t>(c) - 0xD800) << 10) +
                  (static_cast<char32_t>(s_[i_]) - 0xDC00);
    before_ = s_[i_++];
    if (cp >= 0x20000 && cp < 0x40000) return kHan;  // Extension B and later
    // Tags (subdivision flags) and the variation selectors supplement.
    if (cp >= 0xE0000 && cp < 0xE1000) return kJoiners;
    return kAstral;
  }

  const Unit* unitOf_;
  const char16_t* s_;
  std::size_t i_;
  std::size_t end_;
  char16_t before_;  // the unit before i_ (any non-symbol at the start of the text)
};

template <class Sink>
void scan(const char16_t* s, std::size_t begin, std::size_t end, Sink& sink) {
  Reader reader(s, begin, end);
  while (!reader.done()) sink.advance(reader.read(sink));
}

// ---- random-looking runs ------------------------------------------------------------------------
// The automaton prices a run of base64 characters like identifiers, about 0.51 tokens a unit;
// o200k_base spends 0.68 on random base64 (measured over 8 to 4,096 random bytes: 0.170 more a
// unit), because its merges are words and random letters hardly merge. A run is random-looking
// when its letters are not words: both cases well mixed and digits among them (base64 data,
// encrypted content, keys); hex, camelCase identifiers and prose fail the mix test.
//
// kRandomChars counts, for each maximal run of base64 units (A-Z a-z 0-9 + / _ - =), the length of
// its longest prefix of at least 16 units that holds a digit and whose letters are each at least
// 30 % upper- and lower-case (for a random run, the whole run). A prefix, not the whole run, so that
// appending a unit never lowers the count; runs end at any other unit, so a text split at a blank
// counts the same in its parts.
constexpr std::uint32_t kRandomRunMinLength = 16;
constexpr std::uint32_t kRandomRunCaseShareTenths = 3;

// A run's counts packed in one word: length in bits 0-15, upper-case letters in 16-31, lower-case
// in 32-47, digits in 48-63. A run is cut (and starts again) at 65,535 units.
constexpr std::uint64_t kRunLength = 1;
constexpr std::uint64_t kRunUpper = std::uint64_t{1} << 16;
constexpr std::uint64_t kRunLower = std::uint64_t{1} << 32;
constexpr std::uint64_t kRunDigit = std::uint64_t{1} << 48;
constexpr std::uint64_t kRunFieldMax = 0xFFFF;

// What each ASCII unit adds to its run, and the mask that keeps the run (0 for the units that end
// one), by the unit's kind: a table of 128 bytes rather than of 128 words keeps the wasm small. The
// mask is a table rather than a test of `add` so that compilers cannot turn it into a branch,
// which prose mispredicts at every word's end.
struct RunIncrements {
  std::uint8_t kind[128];  // 0 ends a run, then lower, upper, digit, base64 punctuation
  std::uint64_t add[5];
  std::uint64_t keep[5];
};
constexpr RunIncrements runIncrements() {
  RunIncrements t{};
  for (int c = 'a'; c <= 'z'; ++c) t.kind[c] = 1;
  for (int c = 'A'; c <= 'Z'; ++c) t.kind[c] = 2;
  for (int c = '0'; c <= '9'; ++c) t.kind[c] = 3;
  for (char c : {'+', '/', '_', '-', '='}) t.kind[static_cast<int>(c)] = 4;
  t.add[1] = kRunLength + kRunLower;
  t.add[2] = kRunLength + kRunUpper;
  t.add[3] = kRunLength + kRunDigit;
  t.add[4] = kRunLength;
  for (int k = 1; k < 5; ++k) t.keep[k] = ~std::uint64_t{0};
  return t;
}
constexpr RunIncrements kRunIncrements = runIncrements();
constexpr std::uint64_t runAdd(std::size_t ascii) {
  return kRunIncrements.add[kRunIncrements.kind[ascii]];
}
constexpr std::uint64_t runKeep(std::size_t ascii) {
  return kRunIncrements.keep[kRunIncrements.kind[ascii]];
}

bool looksRandom(std::uint64_t run) {
  const std::uint64_t upper = (run / kRunUpper) & kRunFieldMax;
  const std::uint64_t lower = (run / kRunLower) & kRunFieldMax;
  const std::uint64_t letters = upper + lower;
  return (run & kRunFieldMax) >= kRandomRunMinLength && run >= kRunDigit &&
         10 * upper >= kRandomRunCaseShareTenths * letters &&
         10 * lower >= kRandomRunCaseShareTenths * letters;
}

// kRandomChars of the run [begin, end) (at least kRandomRunMinLength units) whose counts are `run`.
CCE_NOINLINE std::uint64_t randomUnitsOfRun(const char16_t* s, std::size_t begin,
                                            std::size_t end, std::uint64_t run) {
  if (looksRandom(run)) return end - begin;  // a random run: its longest prefix is itself
  std::uint64_t prefix = 0;
  std::uint64_t longest = 0;
  for (std::size_t i = begin; i < end; ++i) {
    prefix += runAdd(s[i]);
    if (looksRandom(prefix)) longest = i + 1 - begin;
  }
  return longest;
}

// The runs of a text read unit by unit: `take` the units in order, then `finish` at the end.
struct RandomRuns {
  std::uint64_t run = 0;  // packed counts of the open run, which ends before the next unit
  std::uint64_t total = 0;

  CCE_ALWAYS_INLINE void take(const char16_t* s, std::size_t i) {
    const char16_t c = s[i];
    const std::size_t ascii = c < 128 ? c : 0;  // NUL ends a run like any non-ASCII unit
    const std::uint64_t keep = runKeep(ascii);
    // Runs shorter than 16 (words, numbers: nearly all of them) never get here: predicted.
    if ((run & kRunFieldMax) >= kRandomRunMinLength &&
        (keep == 0 || (run & kRunFieldMax) == kRunFieldMax)) {
      total += randomUnitsOfRun(s, i - (run & kRunFieldMax), i, run);
      run = 0;
    }
    run = (run & keep) + runAdd(ascii);
  }
  void finish(const char16_t* s, std::size_t end) {
    const std::size_t length = run & kRunFieldMax;
    if (length >= kRandomRunMinLength) total += randomUnitsOfRun(s, end - length, end, run);
    run = 0;
  }
};

// kRandomChars of [begin, end), read serially.
std::uint64_t randomRunUnits(const char16_t* s, std::size_t begin, std::size_t end) {
  RandomRuns runs;
  for (std::size_t i = begin; i < end; ++i) runs.take(s, i);
  runs.finish(s, end);
  return runs.total;
}

// ---- the speed build's random-looking runs: only the long ones are read -------------------------
// randomRunUnits over a whole text, looking sixteen units at a time for the only runs that can
// count, those of at least kRandomRunMinLength (16) base64 units: with the length of the run
// that ends a block carried into the next, a long run shows where a block's leading run brings it
// to 16; it is then read whole, serially. The automaton's loop used to count the runs as it went:
// in V8 their 64-bit counts and table loads took the loop's registers (the scale session's default
// call ran 9 % faster without them; docs/speed.md).
static_assert(kRandomRunMinLength == 16, "a block of 16 units holds a run's whole minimum");

bool isBase64Unit(char16_t c) { return c < 128 && kRunIncrements.kind[c] != 0; }

// Bit k set when unit p[k] is base64, for k < 16.
#if CCE_ESTIMATE_SSE2
inline unsigned base64Mask(const char16_t* p) {
  const __m128i low = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i high = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 8));
  // To bytes: units 0x100-0x7FFF saturate to 0xFF and those from 0x8000 (negative) to 0, neither
  // of them base64, like every unit from 0x80.
  const __m128i b = _mm_packus_epi16(low, high);
  // Zero for a letter (either case) resp. a digit: the wrapped distance from 'a' resp. '0' minus
  // the range's width, saturated.
  const __m128i letter = _mm_subs_epu8(
      _mm_sub_epi8(_mm_or_si128(b, _mm_set1_epi8(0x20)), _mm_set1_epi8('a')), _mm_set1_epi8(25));
  const __m128i digit = _mm_subs_epu8(_mm_sub_epi8(b, _mm_set1_epi8('0')), _mm_set1_epi8(9));
  __m128i yes = _mm_cmpeq_epi8(_mm_min_epu8(letter, digit), _mm_setzero_si128());
  for (char c : {'+', '/', '_', '-', '='}) {
    yes = _mm_or_si128(yes, _mm_cmpeq_epi8(b, _mm_set1_epi8(c)));
  }
  return static_cast<unsigned>(_mm_movemask_epi8(yes));
}
#else
inline unsigned base64Mask(const char16_t* p) {
  unsigned mask = 0;
  for (unsigned k = 0; k < 16; ++k) mask |= static_cast<unsigned>(isBase64Unit(p[k])) << k;
  return mask;
}
#endif

// Whether [p, end) holds an ASCII digit. A run without one counts nothing (looksRandom), and
// nearly every long run of a chat is such a name: "refreshAccessToken", "src/server/routes" (the
// scale session: 12,073 of its 12,155 runs of 16 or more, 215 K units that randomRunUnits read
// twice, unit by unit, for nothing).
bool hasAsciiDigit(const char16_t* p, const char16_t* end) {
  for (; p < end; ++p) {
    if (static_cast<unsigned>(*p - u'0') < 10u) return true;
  }
  return false;
}

std::uint64_t randomUnitsOfLongRuns(const char16_t* s, std::size_t n) {
  std::uint64_t total = 0;
  std::size_t i = 0;
  std::size_t carry = 0;  // the units [i - carry, i) are base64, the one before them is not
  while (i + 16 <= n) {
    const unsigned mask = base64Mask(s + i);
    const std::size_t lead = static_cast<std::size_t>(__builtin_ctz(~mask));  // at most 16
    if (carry + lead >= kRandomRunMinLength) {
      std::size_t end = i + lead;
      while (end < n && isBase64Unit(s[end])) ++end;
      if (hasAsciiDigit(s + i - carry, s + end)) total += randomRunUnits(s, i - carry, end);
      if (end >= n) return total;
      i = end + 1;  // s[end] is not base64
      carry = 0;
      continue;
    }
    // mask has a zero bit here (else lead is 16): the run at the block's end is shorter.
    carry = static_cast<std::size_t>(__builtin_clz(~(mask << 16)));
    i += 16;
  }
  // Fewer than 16 units are left: only the run through i can still be long.
  std::size_t end = i;
  while (end < n && isBase64Unit(s[end])) ++end;
  const std::size_t begin = i - carry;
  if (end - begin >= kRandomRunMinLength && hasAsciiDigit(s + begin, s + end)) {
    total += randomRunUnits(s, begin, end);
  }
  return total;
}

// The size-built module (wasm/CMakeLists.txt) scans serially through the general step: the
// speed build's scan below holds the automaton twice more (the ASCII table's filling and the
// interleaved loop: 0.56 KB gzip of cce.wasm for the interleaving alone).
#ifdef CCE_NO_INTERLEAVED_ESTIMATE
constexpr bool kInterleavedScan = false;
#else
constexpr bool kInterleavedScan = true;
#endif

// ---- the speed build's scan: plain ASCII units two at a time -----------------------------------
// Nearly every unit of a chat is ASCII, and no ASCII unit but a control is a symbol (the only unit
// whose meaning depends on the unit before it) or a surrogate. The other ASCII units ("plain")
// fall into seven of the automaton's unit kinds, eight with the punctuation of base64 (which the
// loop once counted for random-looking runs; now randomUnitsOfLongRuns does), so two of them make
// one of 64 pairs: one load of a table indexed by state and pair takes both steps, which halves
// the chain of dependent loads the pass is made of and skips the repeat and surrogate tests. Any
// other unit takes the general step.

// The kind of each ASCII unit in the pair table: 0-7 for plain units, kNotPlain for the others.
constexpr std::uint8_t kNotPlain = 64;
constexpr std::uint32_t kPairRow = 72;     // a state's row: pairs at 8 * first + second (< 64) ...
constexpr std::uint32_t kSingleSlot = 64;  // ... and single units at 64 + kind

constexpr std::uint8_t plainKind(Unit u) {
  switch (u) {
    case kULower: return 0;
    case kUUpper: return 1;
    case kUDigit: return 2;
    case kUBlank: return 3;
    case kUNewline: return 4;
    case kUPunct: return 5;
    case kUEscape: return 7;
    default: return kNotPlain;
  }
}
constexpr std::uint8_t kBase64Punct = 6;  // + / _ - =: punctuation to the automaton
constexpr std::uint32_t kPlainKinds = 8;
constexpr Unit kPlainUnits[kPlainKinds] = {kULower,   kUUpper, kUDigit, kUBlank,
                                           kUNewline, kUPunct, kUPunct, kUEscape};

struct PairTransition {
  std::uint16_t milli;    // the cost of both steps (or of the single one)
  std::uint16_t nextRow;  // next state * kPairRow
};
static_assert(kStateCount * kPairRow <= 0xFFFF, "pair rows must fit in 16 bits");

struct PairTables {
  std::uint8_t kind[128];
  // 8 * kind of the first + kind of the second unit, for every pair of ASCII units (128 * first +
  // second), or kNotPlain: one load names the pair, where the two kinds took two loads and a test.
  std::uint8_t pairIndex[128 * 128];
  PairTransition pairs[kStateCount * kPairRow];
};

// Filled on first use (zero-initialised storage again).
const PairTables& pairTables() {
  static PairTables tables;
  static const bool ready = [] {
    const Unit* const unitOf = unitTable();
    for (char16_t c = 0; c < 128; ++c) {
      // Controls are symbols (see unitTable): they may repeat, so they take the general step.
      tables.kind[c] = unitOf[c] == kUSymbol ? kNotPlain : plainKind(unitOf[c]);
    }
    for (char c : {'+', '/', '_', '-', '='}) tables.kind[static_cast<int>(c)] = kBase64Punct;
    for (int c1 = 0; c1 < 128; ++c1) {
      for (int c2 = 0; c2 < 128; ++c2) {
        const std::uint32_t k1 = tables.kind[c1], k2 = tables.kind[c2];
        tables.pairIndex[128 * c1 + c2] =
            static_cast<std::uint8_t>((k1 | k2) & kNotPlain ? kNotPlain : 8 * k1 + k2);
      }
    }
    for (int s = 0; s < kStateCount; ++s) {
      PairTransition* const row = tables.pairs + s * kPairRow;
      for (std::uint32_t k1 = 0; k1 < kPlainKinds; ++k1) {
        const Step first = step(static_cast<std::uint8_t>(s), kPlainUnits[k1]);
        row[kSingleSlot + k1] = {static_cast<std::uint16_t>(costOf(first.features)),
                                 static_cast<std::uint16_t>(first.next * kPairRow)};
        for (std::uint32_t k2 = 0; k2 < kPlainKinds; ++k2) {
          const Step second = step(first.next, kPlainUnits[k2]);
          row[8 * k1 + k2] = {
              static_cast<std::uint16_t>(costOf(first.features) + costOf(second.features)),
              static_cast<std::uint16_t>(second.next * kPairRow)};
        }
      }
    }
    return true;
  }();
  (void)ready;
  return tables;
}

struct GeneralStep {
  std::size_t i;      // past the unit (and the low surrogate of a pair with it)
  std::uint32_t row;  // next state * kPairRow
  std::uint32_t milli;
};

// The unit at `i` of [i, end) after the state of `row` (state * kPairRow), read as Reader reads.
CCE_NOINLINE GeneralStep generalStep(const char16_t* s, std::size_t i, std::size_t end,
                                     std::uint32_t row) {
  Reader reader(s, i, end);
  CostSink sink;
  sink.row = (row / kPairRow) * kUnitCount;
  sink.advance(reader.read(sink));
  return {reader.position(), (sink.row / kUnitCount) * kPairRow,
          static_cast<std::uint32_t>(sink.milli)};
}

// A pass over [p, end) of the text `s` that starts in a state of the automaton and reads units as
// Reader does. It holds pointers rather than indices: in V8 every register counts (the loop runs
// two of these), and an index needs the text's start beside it at every load.
struct FastScan {
  const char16_t* s;
  const char16_t* p;
  const char16_t* end;
  std::uint32_t row;  // state * kPairRow
  std::uint64_t milli = 0;

  bool done() const { return p >= end; }

  // One unit by the general step. Out of line, and by value: a scan whose fields escaped through
  // `this` would keep its state in memory, and every step would wait for a store to reach a load.
  void general() {
    const GeneralStep g = generalStep(s, static_cast<std::size_t>(p - s),
                                      static_cast<std::size_t>(end - s), row);
    p = s + g.i;
    row = g.row;
    milli += g.milli;
  }

  // Two plain units, or one unit when only one is left or the next two are not both plain.
  // `kTwoLeft`: the caller knows that at least two units are left.
  template <bool kTwoLeft = false>
  CCE_ALWAYS_INLINE void advance(const PairTables& t) {
    if (kTwoLeft || p + 1 < end) {
      std::uint32_t w;  // both units in one load (little-endian: the first in the low half)
      __builtin_memcpy(&w, p, 4);
      if ((w & 0xFF80FF80u) == 0) {  // both ASCII
        const std::uint32_t pair = t.pairIndex[((w & 0x7F) << 7) | (w >> 16)];
        if (pair < 64) {
          const PairTransition pt = t.pairs[row + pair];
          milli += pt.milli;
          row = pt.nextRow;
          p += 2;
          return;
        }
      }
    }
    const char16_t c1 = p[0];
    if (c1 < 128 && t.kind[c1] != kNotPlain) {
      const PairTransition pt = t.pairs[row + kSingleSlot + t.kind[c1]];
      milli += pt.milli;
      row = pt.nextRow;
      ++p;
      return;
    }
    general();
  }
};

// The automaton is one chain of dependent table loads, so its speed is the load latency. Two
// halves of a long text run interleaved, the second from kSStart; then the second half's start is
// replayed from the first half's real end state, alongside the guessed start, until the two states
// meet (usually at the next blank or punctuation mark): from there on every step is the same, so
// adding the replay's difference gives exactly the serial sum.
std::uint64_t fastCostInTwoHalves(const char16_t* s, std::size_t n) {
  const Unit* const unitOf = unitTable();
  const PairTables& tables = pairTables();
  std::size_t half = n / 2;
  if (unitOf[s[half - 1]] == kUHigh && unitOf[s[half]] == kULow) ++half;  // keep a pair whole
  FastScan a{s, s, s + half, kSStart * kPairRow, 0};
  FastScan b{s, s + half, s + n, kSStart * kPairRow, 0};
  // A step takes at most two units of each half, so while both have `left` units left, left / 2
  // steps need no test of their ends: the inner loop counts down instead of comparing two
  // positions with two ends, registers that V8 spilled (docs/speed.md, session 14).
  for (;;) {
    const std::size_t left = static_cast<std::size_t>(
        std::min(a.end - a.p, b.end - b.p));
    if (left < 2) break;
    for (std::size_t k = left / 2; k != 0; --k) {
      a.advance<true>(tables);
      b.advance<true>(tables);
    }
  }
  while (!a.done()) a.advance(tables);
  while (!b.done()) b.advance(tables);
  CostSink real;
  real.row = (a.row / kPairRow) * kUnitCount;
  CostSink guess;
  Reader seam(s, half, n);
  IgnoredFeatures same;  // a code point's feature is the same in both replays: only states differ
  while (real.row != guess.row && !seam.done()) {
    Unit u = seam.read(same);
    real.advance(u);
    guess.advance(u);
  }
  return a.milli + b.milli + real.milli - guess.milli +
         kTokenFeatureCostMilli[kRandomChars] * randomUnitsOfLongRuns(s, n);
}

std::uint64_t fastCost(const char16_t* s, std::size_t n) {
  if (n >= 256) return fastCostInTwoHalves(s, n);
  const PairTables& tables = pairTables();
  FastScan scan{s, s, s + n, kSStart * kPairRow, 0};
  while (!scan.done()) scan.advance(tables);
  return scan.milli + kTokenFeatureCostMilli[kRandomChars] * randomUnitsOfLongRuns(s, n);
}

}  // namespace

std::uint64_t costMilli(std::u16string_view text) {
  if (kInterleavedScan) return fastCost(text.data(), text.size());  // random runs included
  CostSink sink;
  scan(text.data(), 0, text.size(), sink);
  return sink.milli +
         kTokenFeatureCostMilli[kRandomChars] * randomRunUnits(text.data(), 0, text.size());
}

std::uint64_t randomCharsOfLongRuns(std::u16string_view text) {
  return randomUnitsOfLongRuns(text.data(), text.size());
}

TokenFeatures tokenFeatures(std::u16string_view text) {
  FeatureSink sink;
  scan(text.data(), 0, text.size(), sink);
  sink.f[kRandomChars] = randomRunUnits(text.data(), 0, text.size());
  return sink.f;
}

const char* tokenFeatureName(int feature) {
  static constexpr const char* kNames[kFeatureCount] = {
      "spacedWords",   "attachedWords", "bareWords",     "spacedWordTail", "bareWordTail",
      "capsTail",      "glued",         "latinExtended", "digitGroups",    "digitsAfterBlank",
      "punctRuns",     "punctChars",    "escapes",       "newlineRuns",    "punctNewlines",
      "blankRuns",     "han",           "hiragana",      "katakana",       "hangul",
      "hangulWords",   "cjkPunct",      "cyrillic",      "otherLetters",   "sparseLetters",
      "otherWords",    "symbols",       "symbolRepeats", "joiners",        "astral",
      "randomChars"};
  return feature >= 0 && feature < kFeatureCount ? kNames[feature] : "";
}

}  // namespace detail

double estimateTokens(std::u16string_view text) {
  if (text.empty()) return 0;
  const std::uint64_t milli = detail::costMilli(text);
  // Any non-empty text is at least one token (a lone blank has no feature of its own).
  return milli == 0 ? 1.0 : static_cast<double>((milli + 999) / 1000);
}

}  // namespace cce
