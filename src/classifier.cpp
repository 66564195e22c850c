// SPDX-License-Identifier: MIT
// Spec §3: classifyMessage / hasHardReason / isValidJson as linear scanners with JS regex results.
#include "classifier.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string_view>
#include <vector>

#include "compiler.h"
#include "jscompat/string.h"
#include "match/api_keys.h"
#include "match/identifiers.h"
#include "match/json_syntax.h"
#include "match/sql_keywords.h"

#if defined(__SSE2__) && !defined(CCE_NO_SIMD)
#include <emmintrin.h>
#define CCE_CLASSIFIER_SSE2 1
#else
#define CCE_CLASSIFIER_SSE2 0
#endif

namespace cce {
namespace {

using js::isDigit;
using js::isLineTerminator;
using js::isSpace;
using js::isWord;
using js::isWordBoundary;
using View = std::u16string_view;

constexpr bool isKeyChar(char16_t c) { return isWord(c) || c == u'-'; }  // [\w-]

bool hasAt(View text, std::size_t at, std::string_view ascii) {
  return at <= text.size() && js::startsWithAscii(text.substr(at), ascii);
}

// End of the line starting at `p`: the first line terminator at or after it, or the text end.
std::size_t lineEnd(View text, std::size_t p) {
  while (p < text.size() && !isLineTerminator(text[p])) ++p;
  return p;
}

// ---- structural detectors (§3.1) --------------------------------------------------------------

// /^ {0,3}```\w*\n[\s\S]*?\n\s*```/m. Only the first opening matters: a later opening starts its
// body later, so every closing it could use is also available to the first one.
bool hasCodeFence(View text) {
  const std::size_t n = text.size();
  std::size_t bodyBegin = n + 1;
  for (std::size_t p = 0; p < n;) {
    std::size_t q = p;
    while (q < n && q - p < 4 && text[q] == u' ') ++q;
    if (q - p <= 3 && hasAt(text, q, "```")) {
      std::size_t w = q + 3;
      while (w < n && isWord(text[w])) ++w;
      if (w < n && text[w] == u'\n') {
        bodyBegin = w + 1;
        break;
      }
    }
    p = lineEnd(text, p) + 1;
  }
  // Closing: a `\n` at or after bodyBegin, then only whitespace, then three backticks.
  bool newlineInRun = false;
  for (std::size_t t = bodyBegin; t < n; ++t) {
    char16_t c = text[t];
    if (c == u'`' && newlineInRun && hasAt(text, t, "```")) return true;
    if (c == u'\n') {
      newlineInRun = true;
    } else if (!isSpace(c)) {
      newlineInRun = false;
    }
  }
  return false;
}

// /^( {4}|\t).+\n( {4}|\t).+/m. `.+` stops at any line terminator, and the first line's must be
// `\n`, so CRLF text never matches.
bool hasIndentedCode(View text) {
  const std::size_t n = text.size();
  bool previousOk = false;  // the previous line qualified and ended in '\n'
  for (std::size_t p = 0; p <= n;) {
    std::size_t e = lineEnd(text, p);
    bool ok = (e - p >= 5 && hasAt(text, p, "    ")) || (e - p >= 2 && text[p] == u'\t');
    if (ok && previousOk) return true;
    previousOk = ok && e < n && text[e] == u'\n';
    if (e >= n) break;
    p = e + 1;
  }
  return false;
}

// The 25 symbols of unicode_math, sorted.
constexpr char16_t kMathSymbols[] = {
    0x00AC, 0x00B1, 0x00D7, 0x00F7, 0x2192, 0x2194, 0x2200, 0x2203, 0x2208,
    0x2209, 0x220F, 0x2211, 0x221A, 0x221E, 0x2227, 0x2228, 0x2229, 0x222A,
    0x222B, 0x2248, 0x2260, 0x2264, 0x2265, 0x2286, 0x2287,
};

bool isMathSymbol(char16_t c) {
  if (c < 0xAC || (c > 0xF7 && c < 0x2192) || c > 0x2287) return false;
  return std::binary_search(std::begin(kMathSymbols), std::end(kMathSymbols), c);
}

// /^\s*(\{\s*"|\[\s*[\[{"\d-])/ — no `m`: only at the very start.
bool hasJsonStructure(View text) {
  const std::size_t n = text.size();
  std::size_t i = 0;
  while (i < n && isSpace(text[i])) ++i;
  if (i >= n || (text[i] != u'{' && text[i] != u'[')) return false;
  const bool object = text[i] == u'{';
  ++i;
  while (i < n && isSpace(text[i])) ++i;
  if (i >= n) return false;
  char16_t c = text[i];
  if (object) return c == u'"';
  return c == u'[' || c == u'{' || c == u'"' || isDigit(c) || c == u'-';
}

// The tail `[\w-]+:\s+.+` of the second YAML line, anchored at k. `\s+` may give back units, so
// `.+` can start on any non-terminator inside the whitespace run (after its first unit) or on the
// first non-space after it.
bool yamlSecondLineAt(View text, std::size_t k) {
  const std::size_t n = text.size();
  std::size_t colon = k;
  while (colon < n && isKeyChar(text[colon])) ++colon;
  if (colon == k || colon >= n || text[colon] != u':') return false;
  std::size_t e = colon + 1;
  while (e < n && isSpace(text[e])) ++e;
  if (e < colon + 2) return false;
  if (e < n) return true;
  for (std::size_t x = colon + 2; x < e; ++x) {
    if (!isLineTerminator(text[x])) return true;
  }
  return false;
}

// /^[\w-]+:\s+.+\n[\w-]+:\s+.+/m at the line start p. The first `\s+.+\n` can end on a `\n` inside
// the whitespace run (when the unit before it is a non-terminator space other than the first) or
// on the first terminator after the run; only a `\n` directly before the next key helps, so the
// candidates are the run's last unit and that first terminator.
bool yamlAt(View text, std::size_t p) {
  const std::size_t n = text.size();
  std::size_t colon = p;
  while (colon < n && isKeyChar(text[colon])) ++colon;
  if (colon == p || colon >= n || text[colon] != u':') return false;
  std::size_t e = colon + 1;
  while (e < n && isSpace(text[e])) ++e;
  if (e < colon + 2) return false;
  if (e >= colon + 4 && text[e - 1] == u'\n' && !isLineTerminator(text[e - 2]) &&
      yamlSecondLineAt(text, e)) {
    return true;
  }
  if (e >= n) return false;
  std::size_t m = lineEnd(text, e);
  return m < n && text[m] == u'\n' && yamlSecondLineAt(text, m + 1);
}

bool hasYamlStructure(View text) {
  const std::size_t n = text.size();
  for (std::size_t p = 0; p < n;) {
    if (yamlAt(text, p)) return true;
    p = lineEnd(text, p) + 1;
  }
  return false;
}

// The detectors that look at single characters, gathered in one pass, plus cheap necessary
// conditions for the fence, indented-code and YAML detectors so their own scans run only when they
// could match. classifyMessage uses it, detector by detector; hasHardReason has its own fused
// pass below, which the tests hold to the same answers.
struct StructureScan {
  bool latexMath = false;
  bool unicodeMath = false;
  bool versePattern = false;
  bool lineLengthVariance = false;
  bool specialCharRatio = false;
  bool mayHaveFence = false;   // "```" occurs
  bool mayHaveIndent = false;  // a line after a '\n' starts with four spaces or a tab
  bool mayHaveYaml = false;    // two colons each end a `[\w-]+` run that starts a line
};

enum : std::uint8_t {
  kSpecial = 1,  // one of the 23 characters of high_special_char_ratio
  kNewline = 2,
  kVerseStop = 4,  // . ! ?
  kDollar = 8,
  kBacktick = 16,
  kColon = 32,
};

struct AsciiClasses {
  std::uint8_t bits[128] = {};
};

constexpr AsciiClasses makeAsciiClasses() {
  AsciiClasses t{};
  for (char c : std::string_view("{}[]<>|\\;:@#$%^&*()=+`~")) t.bits[int(c)] |= kSpecial;
  t.bits[int('\n')] |= kNewline;
  t.bits[int('.')] |= kVerseStop;
  t.bits[int('!')] |= kVerseStop;
  t.bits[int('?')] |= kVerseStop;
  t.bits[int('$')] |= kDollar;
  t.bits[int('`')] |= kBacktick;
  t.bits[int(':')] |= kColon;
  return t;
}
constexpr AsciiClasses kAscii = makeAsciiClasses();

constexpr std::size_t kNone = static_cast<std::size_t>(-1);

// The lengths of split('\n') in order; most messages have few lines, so they stay on the stack.
class LineLengths {
 public:
  void push(std::size_t length) {
    if (count_ < kInline) {
      inline_[count_] = length;
    } else {
      spill_.push_back(length);
    }
    ++count_;
  }
  std::size_t size() const { return count_; }
  template <typename F>
  void forEach(F f) const {
    for (std::size_t k = 0; k < count_ && k < kInline; ++k) f(inline_[k]);
    for (std::size_t length : spill_) f(length);
  }

 private:
  static constexpr std::size_t kInline = 64;
  std::size_t inline_[kInline];
  std::vector<std::size_t> spill_;
  std::size_t count_ = 0;
};

// high_line_length_variance from the lengths of split('\n'): population coefficient of variation
// above 1.2, in the reference's order of double operations.
bool lineLengthVarianceAbove(const LineLengths& lineLengths, std::size_t n) {
  const std::size_t lines = lineLengths.size();
  if (lines <= 3) return false;
  const double k = static_cast<double>(lines);
  const double mean = static_cast<double>(n - (lines - 1)) / k;
  double sum = 0;
  lineLengths.forEach([&](std::size_t len) {
    const double d = static_cast<double>(len) - mean;
    sum += d * d;
  });
  return mean != 0 && std::sqrt(sum / k) / mean > 1.2;
}

bool specialRatioAbove(std::size_t special, std::size_t n) {
  return static_cast<double>(special) / static_cast<double>(std::max<std::size_t>(n, 1)) > 0.15;
}

StructureScan scanStructure(View text) {
  const std::size_t n = text.size();
  StructureScan out;
  std::size_t special = 0;
  // latex_math: /\$\$[\s\S]+?\$\$|\$[^$\n]+?\$/ — two `$$` with at least one unit between them
  // (only the first `$$` matters), or two consecutive `$` with no '\n' and at least one unit
  // between.
  std::size_t firstPair = kNone, lastDollar = kNone;
  // verse_pattern: /\n[A-Z][^.!?\n]*\n[A-Z][^.!?\n]*\n[A-Z][^.!?\n]*(\n|$)/ — three consecutive
  // '\n'-separated lines, never the text's first line, each starting A-Z and free of . ! ?
  bool inLaterLine = false, lineOk = false;
  int verseRun = 0;
  // high_line_length_variance works on split('\n').
  LineLengths lineLengths;
  std::size_t lineStart = 0;
  int yamlKeys = 0;
  auto endVerseLine = [&] {
    verseRun = lineOk ? verseRun + 1 : 0;
    if (verseRun >= 3) out.versePattern = true;
  };

  for (std::size_t i = 0; i < n; ++i) {
    const char16_t c = text[i];
    if (c >= 0x80) {
      if (isMathSymbol(c)) out.unicodeMath = true;
      continue;
    }
    const std::uint8_t bits = kAscii.bits[c];
    if (bits == 0) continue;
    if (bits & kSpecial) ++special;
    if (bits & kNewline) {
      lastDollar = kNone;
      if (inLaterLine) endVerseLine();
      inLaterLine = true;
      lineOk = i + 1 < n && js::isUpper(text[i + 1]);
      lineLengths.push(i - lineStart);
      lineStart = i + 1;
      if ((i + 1 < n && text[i + 1] == u'\t') || hasAt(text, i + 1, "    ")) {
        out.mayHaveIndent = true;
      }
    } else if (bits & kVerseStop) {
      lineOk = false;
    } else if (bits & kDollar) {
      if (lastDollar != kNone && i - lastDollar >= 2) out.latexMath = true;
      lastDollar = i;
      if (i + 1 < n && text[i + 1] == u'$') {
        if (firstPair == kNone) {
          firstPair = i;
        } else if (i >= firstPair + 3) {
          out.latexMath = true;
        }
      }
    } else if (bits & kBacktick) {
      if (hasAt(text, i, "```")) out.mayHaveFence = true;
    } else if (bits & kColon) {
      // Each key run is walked back once, by the colon that ends it.
      std::size_t p = i;
      while (p > 0 && isKeyChar(text[p - 1])) --p;
      if (p < i && (p == 0 || isLineTerminator(text[p - 1]))) out.mayHaveYaml = ++yamlKeys >= 2;
    }
  }
  if (inLaterLine) endVerseLine();
  lineLengths.push(n - lineStart);

  out.specialCharRatio = specialRatioAbove(special, n);

  out.lineLengthVariance = lineLengthVarianceAbove(lineLengths, n);
  return out;
}

// ---- hasHardReason: every hard detector in one pass -------------------------------------------
//
// compress() asks this of every message outside the recency window, and most of them must be
// proven clean, which means looking at every unit. One pass does it, split in two so that the
// common case stays cheap. HotScan walks words (maximal ASCII `\w` runs, whose ends come from
// SIMD letter masks) and the ASCII units between them, counts the special characters and tracks
// [A-Za-z0-9_.-] runs, without calling anything; it stops only where something else must look:
// a word that may be an SQL anchor (SqlKeywordScanner), an API-key run long enough to hold a key
// (ApiKeyRunScanner), a line terminator, '$', '`' or a non-ASCII unit (FusedColdState, the
// structural detectors). Anything decisive answers at once; what needs the whole text (the two
// ratios, the rare YAML and fence candidates, SQL counts that need the plain keywords too) is
// settled at the end.

enum : std::uint8_t {
  kSpecialUnit = 1,   // high_special_char_ratio; bit 0 so it can be added as is
  kWordUnit = 2,      // \w
  kKeyUnit = 4,       // [A-Za-z0-9_.-]: API-key runs go on through it
  kActionUnit = 8,    // \n \r $ `: handled by FusedColdState::onAction
  kKeyNameUnit = 16,  // [\w-]: a YAML key
};

struct UnitClasses {
  std::uint8_t bits[128] = {};
};

constexpr UnitClasses makeUnitClasses() {
  UnitClasses t{};
  for (int c = 0; c < 128; ++c) {
    if (kAscii.bits[c] & kSpecial) t.bits[c] |= kSpecialUnit;
    if (isWord(char16_t(c))) t.bits[c] |= kWordUnit | kKeyUnit | kKeyNameUnit;
  }
  t.bits[int('.')] |= kKeyUnit;
  t.bits[int('-')] |= kKeyUnit | kKeyNameUnit;
  for (char c : std::string_view("\n\r$`")) t.bits[int(c)] |= kActionUnit;
  return t;
}
constexpr UnitClasses kUnits = makeUnitClasses();

// Where runs of ASCII letters end, sixteen units at a time: bit kBitsPerUnit * k of
// nonLetters(p) is set when unit p[k] is not an ASCII letter. With SSE2 (every x86-64) that is a
// handful of instructions; elsewhere (WebAssembly without SIMD) lane-wise arithmetic on 64-bit
// words does it.
constexpr unsigned kWindow = 16;

#if CCE_CLASSIFIER_SSE2

constexpr unsigned kBitsPerUnit = 2;  // _mm_movemask_epi8 over 16-bit lanes

inline unsigned eightNonLetters(const char16_t* p) {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  // (v | 0x20) - 'a' <= 25 unsigned: the two cases of a letter, and nothing else.
  const __m128i offset = _mm_sub_epi16(_mm_or_si128(v, _mm_set1_epi16(0x20)), _mm_set1_epi16(0x61));
  const __m128i letters =
      _mm_cmpeq_epi16(_mm_subs_epu16(offset, _mm_set1_epi16(25)), _mm_setzero_si128());
  return ~static_cast<unsigned>(_mm_movemask_epi8(letters)) & 0xFFFFu;
}

inline unsigned nonLetters(const char16_t* p) {
  return eightNonLetters(p) | eightNonLetters(p + 8) << 16;
}

#else

constexpr unsigned kBitsPerUnit = 1;

// Four units as the 16-bit lanes of one word, unit 0 lowest (compilers make it one load).
inline std::uint64_t fourUnits(const char16_t* p) {
  return std::uint64_t{p[0]} | std::uint64_t{p[1]} << 16 | std::uint64_t{p[2]} << 32 |
         std::uint64_t{p[3]} << 48;
}

// The lanes that are not ASCII letters, as bits 0-3. The lane tests work on 15-bit values so that
// no addition carries into the next lane; one multiplication then moves the top bit of lane k to
// bit 48 + k, while every other product lands below bit 48 without carries, or above bit 63.
inline unsigned fourNonLetters(std::uint64_t x) {
  constexpr std::uint64_t kTop = 0x8000800080008000ULL;
  constexpr std::uint64_t kGather = (1ULL << 48) | (1ULL << 33) | (1ULL << 18) | (1ULL << 3);
  const std::uint64_t folded = x | 0x0020002000200020ULL;  // upper case onto lower case
  const std::uint64_t low = folded & ~kTop;
  const std::uint64_t atLeastA = low + 0x7F9F7F9F7F9F7F9FULL;  // top bit: lane >= 'a'
  const std::uint64_t aboveZ = low + 0x7F857F857F857F85ULL;    // top bit: lane > 'z'
  const std::uint64_t stops = ~(atLeastA & ~aboveZ & ~folded) & kTop;
  return static_cast<unsigned>(((stops >> 15) * kGather) >> 48);
}

inline unsigned nonLetters(const char16_t* p) {
  unsigned out = 0;
  for (unsigned k = 0; k < kWindow / 4; ++k) out |= fourNonLetters(fourUnits(p + 4 * k)) << (4 * k);
  return out;
}

#endif

// `( {4}|\t).+` for the line [p, e) (e: its terminator or the text end).
bool indentedLine(View text, std::size_t p, std::size_t e) {
  if (e - p >= 2 && text[p] == u'\t') return true;
  return e - p >= 5 && text[p] == u' ' && text[p + 1] == u' ' && text[p + 2] == u' ' &&
         text[p + 3] == u' ';
}

// The same for the line starting at p, whose end is not known yet: only its first units matter.
bool startsIndentedLine(View text, std::size_t p) {
  const std::size_t n = text.size();
  if (p + 1 < n && text[p] == u'\t') return !isLineTerminator(text[p + 1]);
  return p + 4 < n && text[p] == u' ' && text[p + 1] == u' ' && text[p + 2] == u' ' &&
         text[p + 3] == u' ' && !isLineTerminator(text[p + 4]);
}

// The rare work of the fused pass, kept out of its hot loop: the structural detectors, which act
// at line terminators, '$', '`' and non-ASCII units only, and the API-key runs. The logic is
// scanStructure's, rearranged so that nothing is needed at the other units: indented_code is
// decided at each '\n' (its two lines meet there), a verse line is searched for . ! ? from its
// end, and only when it starts with a capital (so every line is read at most once), and the YAML
// candidates are counted at line starts (a key run that ends in ':' there is exactly a colon
// whose key run starts a line). Anything decisive answers at once.
class FusedColdState {
 public:
  static constexpr std::size_t kMinKeyRun = match::ApiKeyRunScanner::kMinRunLength;

  explicit FusedColdState(View text) : text_(text) { lineStartAt(0); }

  // The rare paths are CCE_NOINLINE: inlined into the hot loop (HotScan::next), their calls and
  // state take the loop's registers (measured: a third more instructions).

  // The unit at i is one of \n \r $ ` (true when a hard reason is now certain).
  CCE_NOINLINE bool onAction(std::size_t i);

  // The unit at i is not ASCII.
  CCE_NOINLINE bool onNonAscii(std::size_t i) {
    const char16_t c = text_[i];
    if (c == 0x2028 || c == 0x2029) lineStartAt(i + 1);
    return isMathSymbol(c);
  }

  // The [A-Za-z0-9_.-] run [begin, end) holds at least kMinKeyRun units; runs come in text order.
  CCE_NOINLINE bool keyRun(std::size_t begin, std::size_t end) {
    return keys_.run(text_, begin, end);
  }

  // After the last unit: `special` counts the high_special_char_ratio units.
  CCE_NOINLINE bool finish(std::size_t special);

  // Whether a "```" started before the unit the hot scan stopped at (every '`' is an action).
  bool sawTripleBacktick() const { return mayHaveFence_; }

 private:
  // A line of any kind (`^` under /m) starts at p.
  void lineStartAt(std::size_t p) {
    anyLineStart_ = p;
    const std::size_t n = text_.size();
    std::size_t k = p;
    while (k < n && text_[k] < 0x80 && (kUnits.bits[text_[k]] & kKeyNameUnit) != 0) ++k;
    if (k > p && k < n && text_[k] == u':') mayHaveYaml_ = ++yamlKeys_ >= 2;
  }

  // verse_pattern: the '\n'-line [lineStart_, end) ends.
  bool endVerseLine(std::size_t end) {
    if (!inLaterLine_) return false;
    bool ok = lineStartsUpper_;
    for (std::size_t k = end; ok && k > lineStart_; --k) {
      const char16_t c = text_[k - 1];
      ok = c != u'.' && c != u'!' && c != u'?';
    }
    verseRun_ = ok ? verseRun_ + 1 : 0;
    return verseRun_ >= 3;
  }

  View text_;
  match::ApiKeyRunScanner keys_;
  std::size_t firstPair_ = kNone, lastDollar_ = kNone;  // latex_math
  bool inLaterLine_ = false, lineStartsUpper_ = false;  // verse_pattern
  int verseRun_ = 0;
  LineLengths lineLengths_;       // high_line_length_variance
  std::size_t lineStart_ = 0;     // after the last '\n'
  std::size_t anyLineStart_ = 0;  // after the last line terminator of any kind
  int yamlKeys_ = 0;
  bool mayHaveYaml_ = false, mayHaveFence_ = false;
};

bool FusedColdState::onAction(std::size_t i) {
  const std::size_t n = text_.size();
  switch (text_[i]) {
    case u'\n':
      lastDollar_ = kNone;
      if (endVerseLine(i)) return true;
      inLaterLine_ = true;
      lineStartsUpper_ = i + 1 < n && js::isUpper(text_[i + 1]);
      lineLengths_.push(i - lineStart_);
      lineStart_ = i + 1;
      // indented_code: this '\n' joins two qualifying lines.
      if (startsIndentedLine(text_, i + 1) && indentedLine(text_, anyLineStart_, i)) return true;
      lineStartAt(i + 1);
      return false;
    case u'\r':
      lineStartAt(i + 1);
      return false;
    case u'$':
      if (lastDollar_ != kNone && i - lastDollar_ >= 2) return true;
      lastDollar_ = i;
      if (i + 1 < n && text_[i + 1] == u'$') {
        if (firstPair_ == kNone) {
          firstPair_ = i;
        } else if (i >= firstPair_ + 3) {
          return true;
        }
      }
      return false;
    case u'`':
      if (hasAt(text_, i, "```")) mayHaveFence_ = true;
      return false;
    default:
      return false;
  }
}

bool FusedColdState::finish(std::size_t special) {
  const std::size_t n = text_.size();
  if (endVerseLine(n)) return true;
  lineLengths_.push(n - lineStart_);
  if (specialRatioAbove(special, n) || lineLengthVarianceAbove(lineLengths_, n)) return true;
  return (mayHaveYaml_ && hasYamlStructure(text_)) || (mayHaveFence_ && hasCodeFence(text_));
}

// The hot loop of the fused pass: words and the ASCII units between them, with no calls, so that
// its state stays in registers. It stops at every unit it cannot settle alone and says why; the
// caller deals with it and resumes.
class HotScan {
 public:
  enum class Stop {
    kEnd,
    kNonAscii,  // at(): a unit >= 0x80, not yet looked at
    kKeyRun,    // [keyRunStart(), at()) is a key run long enough to check, at() not yet looked at
    kAction,    // at(): a unit in kActionUnit, counted; resume after it
    kWord,      // [wordStart(), at()) may be an SQL anchor; resume at at()
  };

  explicit HotScan(View text) : text_(text) {}

  CCE_NOINLINE Stop next();

  std::size_t at() const { return i_; }
  std::size_t wordStart() const { return word_; }
  std::size_t keyRunStart() const { return keyRunStart_; }
  std::size_t special() const { return special_; }
  // The key run ending at at() is settled (and the unit there too if `skip`: else the loop sees
  // it again, with an empty run before it).
  void endKeyRun(bool skip) {
    keyRunStart_ = i_ + skip;
    i_ += skip;
  }
  void skip() { ++i_; }

 private:
  View text_;
  std::size_t i_ = 0;
  std::size_t word_ = 0;
  std::size_t keyRunStart_ = 0;  // the current [A-Za-z0-9_.-] run starts here
  std::size_t special_ = 0;      // high_special_char_ratio units so far
};

HotScan::Stop HotScan::next() {
  constexpr std::size_t kMinKeyRun = FusedColdState::kMinKeyRun;
  const char16_t* const s = text_.data();
  const std::size_t n = text_.size();
  std::size_t i = i_, keyRunStart = keyRunStart_, special = special_;
  // A window of kWindow units: bit kBitsPerUnit * k of `stops` is set when unit base + k is not
  // an ASCII letter. Words are short, so one window often serves several of them.
  std::size_t base = i - kWindow;
  unsigned stops = 0;
  Stop why = Stop::kEnd;
  while (i < n) {
    char16_t c = s[i];
    if (c >= 0x80) {
      why = Stop::kNonAscii;
      break;
    }
    std::uint8_t bits = kUnits.bits[c];
    if (bits & kWordUnit) {
      // Words, and the single spaces between them when a letter follows: the most common units
      // by far, so they skip the general path below.
      bool stopped = false;
      std::size_t start = i;
      for (;;) {
        // The end of the word: runs of letters (from the window) joined by digits and '_'.
        i = start + 1;
        for (;;) {
          const std::size_t offset = i - base;
          const unsigned rest = offset < kWindow ? stops >> (kBitsPerUnit * offset) : 0;
          if (rest != 0) {
            i += static_cast<std::size_t>(__builtin_ctz(rest)) / kBitsPerUnit;
          } else {
            if (offset < kWindow) i = base + kWindow;
            for (;;) {
              if (i + kWindow > n) {
                while (i < n && js::isAlpha(s[i])) ++i;
                break;
              }
              base = i;
              stops = nonLetters(s + i);
              if (stops != 0) {
                i += static_cast<std::size_t>(__builtin_ctz(stops)) / kBitsPerUnit;
                break;
              }
              i += kWindow;
            }
          }
          if (i >= n) break;
          c = s[i];
          if (c == u' ' || c >= 0x80) break;
          bits = kUnits.bits[c];
          if ((bits & kWordUnit) == 0) break;
          ++i;
        }
        if (match::SqlKeywordScanner::mayBeAnchor(text_, start, i)) {
          word_ = start;
          why = Stop::kWord;
          stopped = true;
          break;
        }
        if (c != u' ' || i >= n) break;  // (c is stale at the end of the text)
        // A space: it only ends the API-key run.
        if (i - keyRunStart >= kMinKeyRun) {
          why = Stop::kKeyRun;
          stopped = true;
          break;
        }
        keyRunStart = ++i;
        // Another word right after it? (The window says, when it covers i.)
        const std::size_t offset = i - base;
        if (offset < kWindow) {
          if ((stops >> (kBitsPerUnit * offset)) & 1) break;
        } else if (i >= n || !js::isAlpha(s[i])) {
          break;
        }
        start = i;
      }
      if (stopped) break;
      if (i >= n || c == u' ' || c >= 0x80) continue;
    }
    // An ASCII unit outside words, described by c and bits.
    if ((bits & kKeyUnit) == 0) {
      if (i - keyRunStart >= kMinKeyRun) {
        why = Stop::kKeyRun;
        break;
      }
      keyRunStart = i + 1;
    }
    special += bits & kSpecialUnit;
    if (bits & kActionUnit) {
      why = Stop::kAction;
      break;
    }
    ++i;
  }
  i_ = i;
  keyRunStart_ = keyRunStart;
  special_ = special;
  return why;
}

// The fused pass. It also answers whether the text holds "```" (`fence`), which the pipeline
// asks first: every '`' is an action, so the pass knows for the part it read, and only a pass
// that stops early at a hard reason leaves the rest to search.
bool scanForHardReason(View text, bool& fence) {
  HotScan hot(text);
  match::SqlKeywordScanner sql;
  FusedColdState cold(text);
  constexpr std::size_t kMinKeyRun = FusedColdState::kMinKeyRun;
  auto stopEarly = [&] {
    fence = cold.sawTripleBacktick() || text.find(u"```", hot.at()) != View::npos;
    return true;
  };
  for (;;) {
    switch (hot.next()) {
      case HotScan::Stop::kEnd: {
        fence = cold.sawTripleBacktick();
        const std::size_t n = text.size();
        if (n - hot.keyRunStart() >= kMinKeyRun && cold.keyRun(hot.keyRunStart(), n)) return true;
        return cold.finish(hot.special()) || sql.finish(text);
      }
      case HotScan::Stop::kNonAscii: {
        const std::size_t i = hot.at();
        if (cold.onNonAscii(i)) return stopEarly();
        if (i - hot.keyRunStart() >= kMinKeyRun && cold.keyRun(hot.keyRunStart(), i)) {
          return stopEarly();
        }
        hot.endKeyRun(/*skip=*/true);
        break;
      }
      case HotScan::Stop::kKeyRun:
        if (cold.keyRun(hot.keyRunStart(), hot.at())) return stopEarly();
        hot.endKeyRun(/*skip=*/false);
        break;
      case HotScan::Stop::kAction:
        if (cold.onAction(hot.at())) return stopEarly();
        hot.skip();
        break;
      case HotScan::Stop::kWord:
        if (sql.anchor(text, hot.wordStart(), hot.at())) return stopEarly();
        break;
    }
  }
}

#if CCE_CLASSIFIER_SSE2

// The fused pass of the SSE2 (and wasm SIMD) builds: sixteen units a step, no branch per word.
// HotScan's walk pays a hard-to-predict branch at every word end (space or punctuation, window
// refill or not); in V8 that walk ran at twice its native time. Here each block of sixteen units
// becomes five lane masks (word units, key units, special units, and the units FusedColdState
// must see: line terminators, '$', '`' and non-ASCII), and only the set bits cost scalar work: the
// special units are counted by popcount, key runs are checked where one ends, and each word is
// put to mayBeAnchor by its start and end bits. Every kind of event reaches its scanner in text
// order (the scanners' states are separate, and any one of them saying yes is the answer), so
// the result is the walk's: tests/classifier_test.cpp compares the two over generated texts.

// Bit k of each mask is unit k of the block, for each class.
template <typename Bits>
struct Masks {
  Bits word;     // \w
  Bits key;      // [A-Za-z0-9_.-]
  Bits special;  // the 23 characters of high_special_char_ratio
  Bits cold;     // \n \r $ ` and every unit >= 0x80
};
using BlockMasks = Masks<unsigned>;

// Unsigned byte range test: lo <= b <= lo + span as a lane mask.
inline __m128i byteRange(__m128i b, char lo, char span) {
  const __m128i x = _mm_sub_epi8(b, _mm_set1_epi8(lo));
  return _mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8(span)), x);
}

inline BlockMasks sixteenUnitMasks(const char16_t* p) {
  const __m128i ceiling = _mm_set1_epi16(0x80);
  const __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i hi = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 8));
  // min(unit, 0x80) as bytes: ASCII stays itself, everything else becomes 0x80.
  const __m128i b = _mm_packus_epi16(_mm_sub_epi16(lo, _mm_subs_epu16(lo, ceiling)),
                                     _mm_sub_epi16(hi, _mm_subs_epu16(hi, ceiling)));
  const __m128i folded = _mm_or_si128(b, _mm_set1_epi8(0x20));  // upper case onto lower case
  const __m128i letter = byteRange(folded, 'a', 25);
  const __m128i word = _mm_or_si128(_mm_or_si128(letter, byteRange(b, '0', 9)),
                                    _mm_cmpeq_epi8(b, _mm_set1_epi8('_')));
  const __m128i key = _mm_or_si128(word, byteRange(b, '-', 1));  // '-' and '.'
  // # $ % & ( ) * + | : ; < = > | @ ` (one under the fold) | [ \ ] ^ { | } ~ (likewise)
  const __m128i special = _mm_or_si128(
      _mm_or_si128(_mm_andnot_si128(_mm_cmpeq_epi8(b, _mm_set1_epi8('\'')), byteRange(b, '#', 8)),
                   byteRange(b, ':', 4)),
      _mm_or_si128(_mm_cmpeq_epi8(folded, _mm_set1_epi8('`')), byteRange(folded, '{', 3)));
  const __m128i action =
      _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(b, _mm_set1_epi8('\n')),
                                _mm_cmpeq_epi8(b, _mm_set1_epi8('\r'))),
                   _mm_or_si128(_mm_cmpeq_epi8(b, _mm_set1_epi8('$')),
                                _mm_cmpeq_epi8(b, _mm_set1_epi8('`'))));
  return {static_cast<unsigned>(_mm_movemask_epi8(word)),
          static_cast<unsigned>(_mm_movemask_epi8(key)),
          static_cast<unsigned>(_mm_movemask_epi8(special)),
          static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(action, b)))};
}

// Whether "```" starts at or after `from`. libc++'s find for a three-unit needle is a unit-by-unit
// loop; in wasm it took a fifth of this pass, since every text with a hard reason (and every JSON
// start) asks it for the rest of the text. Here the '`' are found eight lanes at a time.
bool hasTripleBacktick(View text, std::size_t from) {
  for (std::size_t i = match::findUnit(text, from, u'`'); i < text.size();
       i = match::findUnit(text, i + 1, u'`')) {
    if (hasAt(text, i, "```")) return true;
  }
  return false;
}

// A block is four such steps: one pass of the scalar work below (and one hard-to-predict exit from
// each of its bit loops) per 64 units instead of per 16 (wasm harness: 11.0 -> 9.3 ms).
constexpr std::size_t kBlock = 64;

inline Masks<std::uint64_t> blockMasks(const char16_t* p) {
  Masks<std::uint64_t> out{0, 0, 0, 0};
  // Not unrolled (wasm harness 9.3 -> 6.2 ms, 230 B gzip less): four copies need more v128
  // constants and temporaries at once than V8 has xmm registers.
#if defined(__clang__)
#pragma clang loop unroll(disable)
#endif
  for (unsigned k = 0; k < 4; ++k) {
    const BlockMasks m = sixteenUnitMasks(p + 16 * k);
    out.word |= std::uint64_t{m.word} << (16 * k);
    out.key |= std::uint64_t{m.key} << (16 * k);
    out.special |= std::uint64_t{m.special} << (16 * k);
    out.cold |= std::uint64_t{m.cold} << (16 * k);
  }
  return out;
}

// With `stopAtFence`, the pass ends at the first "```": what the pipeline asks then no longer
// depends on hard reasons (a fence decides first), and the fence is often near the start of a long
// code block (the scale session: 193 K of the 270 K units of its 174 texts with one lie after it).
// The result's hard reason is then only what was seen before the fence.
bool scanForHardReasonByBlocks(View text, bool& fence, bool stopAtFence) {
  constexpr std::size_t kMinKeyRun = FusedColdState::kMinKeyRun;
  const std::size_t n = text.size();
  const char16_t* const s = text.data();
  match::SqlKeywordScanner sql;
  FusedColdState cold(text);
  std::size_t special = 0;
  std::size_t keyRunStart = 0;
  std::size_t wordStart = kNone;  // a word that runs on past the last block
  std::uint64_t previousWord = 0;  // 1 when the unit before the block is \w
  std::size_t base = 0;
  // Every '`' before `base` has reached FusedColdState.
  auto stopEarly = [&] {
    fence = cold.sawTripleBacktick() || hasTripleBacktick(text, base);
    return true;
  };
  // The last block reads a copy padded with spaces (no class, and the end of any run), so the
  // runs and the word that reach the text's end end at n there.
  char16_t tail[kBlock];
  for (;; base += kBlock) {
    const bool last = base + kBlock > n;
    const char16_t* p = s + base;
    if (last) {
      std::fill(std::begin(tail), std::end(tail), u' ');
      std::copy(s + base, s + n, tail);
      p = tail;
    }
    const Masks<std::uint64_t> m = blockMasks(p);
    special += static_cast<std::size_t>(__builtin_popcountll(m.special));
    for (std::uint64_t pending = m.cold; pending != 0; pending &= pending - 1) {
      const std::size_t i = base + static_cast<std::size_t>(__builtin_ctzll(pending));
      if (s[i] >= 0x80 ? cold.onNonAscii(i) : cold.onAction(i)) return stopEarly();
    }
    if (stopAtFence && cold.sawTripleBacktick()) {
      fence = true;
      return false;
    }
    const std::uint64_t notKey = ~m.key;
    if (notKey != 0) {
      const unsigned first = static_cast<unsigned>(__builtin_ctzll(notKey));
      const unsigned last = 63 - static_cast<unsigned>(__builtin_clzll(notKey));
      const std::size_t end = base + first;
      if (end - keyRunStart >= kMinKeyRun && cold.keyRun(keyRunStart, end)) return stopEarly();
      keyRunStart = base + last + 1;
      // A run between two non-key units of the block: rare, so found first by the bits where
      // kMinKeyRun key units in a row start (runs of 2, 4, 8, 16, then 20).
      std::uint64_t long20 = m.key & (m.key >> 1);
      long20 &= long20 >> 2;
      long20 &= long20 >> 4;
      long20 &= long20 >> 8;
      long20 &= long20 >> 4;
      static_assert(kMinKeyRun == 20, "the shifts above find runs of 20");
      if ((long20 >> first) != 0 && first < last) {
        std::uint64_t rest = notKey & (notKey - 1);  // the non-key units after `first`
        for (unsigned from = first + 1; rest != 0; rest &= rest - 1) {
          const unsigned to = static_cast<unsigned>(__builtin_ctzll(rest));
          if (to - from >= kMinKeyRun && cold.keyRun(base + from, base + to)) return stopEarly();
          from = to + 1;
        }
      }
    }
    // Word starts: \w after a non-\w unit; word ends: a non-\w unit after a \w one.
    const std::uint64_t shifted = (m.word << 1) | previousWord;
    std::uint64_t starts = m.word & ~shifted;
    std::uint64_t ends = ~m.word & shifted;
    previousWord = m.word >> 63;
    if (wordStart != kNone && ends != 0) {
      const std::size_t end = base + static_cast<std::size_t>(__builtin_ctzll(ends));
      ends &= ends - 1;
      if (match::SqlKeywordScanner::mayBeAnchor(text, wordStart, end) &&
          sql.anchor(text, wordStart, end)) {
        return stopEarly();
      }
      wordStart = kNone;
    }
    for (; starts != 0; starts &= starts - 1) {
      const std::size_t start = base + static_cast<std::size_t>(__builtin_ctzll(starts));
      if (ends == 0) {
        wordStart = start;
        break;
      }
      const std::size_t end = base + static_cast<std::size_t>(__builtin_ctzll(ends));
      ends &= ends - 1;
      if (match::SqlKeywordScanner::mayBeAnchor(text, start, end) &&
          sql.anchor(text, start, end)) {
        return stopEarly();
      }
    }
    if (last) break;
  }
  fence = cold.sawTripleBacktick();
  return cold.finish(special) || sql.finish(text);
}

#endif

// ---- soft patterns (§3.4) ---------------------------------------------------------------------

// /https?:\/\/\S+/
bool hasUrl(View text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != u'h' || !hasAt(text, i, "http")) continue;
    std::size_t j = i + 4;
    if (j < text.size() && text[j] == u's') ++j;
    if (hasAt(text, j, "://") && j + 3 < text.size() && !isSpace(text[j + 3])) return true;
  }
  return false;
}

// /[\w.+-]+@[\w-]+\.[a-z]{2,}/i: `[\w-]+` cannot give back units, the dot must follow the run.
bool hasEmail(View text) {
  const std::size_t n = text.size();
  for (std::size_t a = 1; a < n; ++a) {
    if (text[a] != u'@') continue;
    char16_t before = text[a - 1];
    if (!(isWord(before) || before == u'.' || before == u'+' || before == u'-')) continue;
    std::size_t d = a + 1;
    while (d < n && isKeyChar(text[d])) ++d;
    if (d > a + 1 && d + 2 < n && text[d] == u'.' && js::isAlpha(text[d + 1]) &&
        js::isAlpha(text[d + 2])) {
      return true;
    }
  }
  return false;
}

bool isPhoneSeparator(char16_t c) { return c == u'-' || c == u'.' || isSpace(c); }

// /\b\d{3}[-.\s]?\d{3}[-.\s]?\d{4}\b/ at a word start: try the four separator choices.
bool phoneAt(View text, std::size_t i) {
  const std::size_t n = text.size();
  auto digitsAt = [&](std::size_t at, std::size_t count) {
    if (at + count > n) return false;
    for (std::size_t k = 0; k < count; ++k) {
      if (!isDigit(text[at + k])) return false;
    }
    return true;
  };
  if (!digitsAt(i, 3)) return false;
  for (int first = 1; first >= 0; --first) {
    std::size_t j = i + 3;
    if (first) {
      if (j >= n || !isPhoneSeparator(text[j])) continue;
      ++j;
    }
    if (!digitsAt(j, 3)) continue;
    for (int second = 1; second >= 0; --second) {
      std::size_t k = j + 3;
      if (second) {
        if (k >= n || !isPhoneSeparator(text[k])) continue;
        ++k;
      }
      if (digitsAt(k, 4) && isWordBoundary(text, k + 4)) return true;
    }
  }
  return false;
}

bool atWordStart(View text, std::size_t i) { return i == 0 || !isWord(text[i - 1]); }

bool hasPhone(View text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (isDigit(text[i]) && atWordStart(text, i) && phoneAt(text, i)) return true;
  }
  return false;
}

std::size_t digitRunEnd(View text, std::size_t i) {
  while (i < text.size() && isDigit(text[i])) ++i;
  return i;
}

// /\b(v\d+\.\d+(\.\d+)?|version\s+\d+)\b/i. Digit runs cannot give back units. The optional
// group never decides: it can only start on a '.', and a '.' after `\d+\.\d+` is already a
// boundary.
bool hasVersionNumber(View text) {
  const std::size_t n = text.size();
  for (std::size_t i = 0; i < n; ++i) {
    char16_t c = js::asciiLower(text[i]);
    if (c != u'v' || !atWordStart(text, i)) continue;
    std::size_t a = digitRunEnd(text, i + 1);
    if (a > i + 1 && a < n && text[a] == u'.') {
      std::size_t b = digitRunEnd(text, a + 1);
      if (b > a + 1 && isWordBoundary(text, b)) return true;
    }
    if (js::startsWithAsciiNoCase(text.substr(i), "version")) {
      std::size_t s = i + 7;
      while (s < n && isSpace(text[s])) ++s;
      std::size_t d = digitRunEnd(text, s);
      if (s > i + 7 && d > s && isWordBoundary(text, d)) return true;
    }
  }
  return false;
}

bool isHexDigit(char16_t c) {
  char16_t l = js::asciiLower(c);
  return isDigit(c) || (l >= u'a' && l <= u'f');
}

// /[a-f0-9]{40,64}/i — no boundaries, so any run of 40 hex digits.
bool hasHashOrSha(View text) {
  std::size_t run = 0;
  for (char16_t c : text) {
    run = isHexDigit(c) ? run + 1 : 0;
    if (run >= 40) return true;
  }
  return false;
}

bool isPathChar(char16_t c) { return isWord(c) || c == u'.' || c == u'-'; }

// /(?:\/[\w.-]+){2,}/: a '/', a non-empty run, a '/', one more path unit.
bool hasFilePath(View text) {
  const std::size_t n = text.size();
  for (std::size_t a = 0; a < n; ++a) {
    if (text[a] != u'/') continue;
    std::size_t b = a + 1;
    while (b < n && isPathChar(text[b])) ++b;
    if (b > a + 1 && b + 1 < n && text[b] == u'/' && isPathChar(text[b + 1])) return true;
  }
  return false;
}

// /\b\d+(\.\d+){1,5}\b/: with two or more groups available, stopping after the first leaves a '.'
// (a boundary), so it is enough that `\d+\.\d+` is followed by a non-word unit.
bool hasIpOrSemver(View text) {
  const std::size_t n = text.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (!isDigit(text[i]) || !atWordStart(text, i)) continue;
    std::size_t a = digitRunEnd(text, i);
    if (a < n && text[a] == u'.') {
      std::size_t b = digitRunEnd(text, a + 1);
      if (b > a + 1 && isWordBoundary(text, b)) return true;
    }
    i = a - 1;
  }
  return false;
}

// /"[^"]{3,}"\s*[,:]/: each quote opens at most one candidate, closed by the next quote.
bool hasQuotedKey(View text) {
  const std::size_t n = text.size();
  std::size_t a = 0;
  while (a < n && text[a] != u'"') ++a;
  while (a < n) {
    std::size_t b = a + 1;
    while (b < n && text[b] != u'"') ++b;
    if (b >= n) return false;
    if (b - a - 1 >= 3) {
      std::size_t k = b + 1;
      while (k < n && isSpace(text[k])) ++k;
      if (k < n && (text[k] == u',' || text[k] == u':')) return true;
    }
    a = b;
  }
  return false;
}

// /\b(shall|may not|notwithstanding|whereas|hereby)\b/i over whole words.
bool hasLegalTerm(View text) {
  const std::size_t n = text.size();
  auto wordIs = [&](std::size_t b, std::size_t e, std::string_view w) {
    return e - b == w.size() && js::startsWithAsciiNoCase(text.substr(b), w);
  };
  std::size_t i = 0;
  while (i < n) {
    if (!isWord(text[i])) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < n && isWord(text[j])) ++j;
    if (wordIs(i, j, "shall") || wordIs(i, j, "notwithstanding") || wordIs(i, j, "whereas") ||
        wordIs(i, j, "hereby")) {
      return true;
    }
    if (wordIs(i, j, "may") && j < n && text[j] == u' ') {
      std::size_t k = j + 1;
      while (k < n && isWord(text[k])) ++k;
      if (wordIs(j + 1, k, "not")) return true;
    }
    i = j;
  }
  return false;
}

// /["\u201c][^\u201c\u201d]{10,}["\u201d]|"[^"]{10,}"/. For the first alternative the text falls
// into stretches between curly quotes; the earliest opener of a stretch is the best one, and it may
// close on any later straight quote of the stretch or on a closing curly quote that ends it.
bool hasDirectQuote(View text) {
  const std::size_t n = text.size();
  constexpr char16_t kOpen = 0x201C, kClose = 0x201D;
  std::size_t previousStraight = n;  // second alternative: the previous '"'
  std::size_t opener = n;            // first alternative: earliest opener of the current stretch
  for (std::size_t i = 0; i < n; ++i) {
    char16_t c = text[i];
    if (c == u'"') {
      if (previousStraight != n && i - previousStraight > 10) return true;
      previousStraight = i;
      if (opener != n && i >= opener + 11) return true;
      if (opener == n) opener = i;
    } else if (c == kOpen || c == kClose) {
      if (c == kClose && opener != n && i >= opener + 11) return true;
      opener = c == kOpen ? i : n;
    }
  }
  return false;
}

// µ under non-unicode `i`: U+00B5, U+03BC and U+039C all canonicalise to U+039C.
bool isMicro(char16_t c) { return c == 0xB5 || c == 0x3BC || c == 0x39C; }

// /\b\d+\.?\d*\s*(km|m|kg|s|°C|°F|Hz|MHz|GHz|ms|µs|ns|MB|GB|TB)\b/i. No unit starts with a digit,
// '.' or a space, so the number and the spaces are taken whole; every unit ends in a letter, so
// `\b` after it needs a non-word unit next.
bool numericUnitAt(View text, std::size_t i) {
  const std::size_t n = text.size();
  std::size_t j = digitRunEnd(text, i);
  if (j < n && text[j] == u'.') j = digitRunEnd(text, j + 1);
  while (j < n && isSpace(text[j])) ++j;
  static constexpr std::string_view kUnits[] = {"km",  "m",  "kg", "s",  "Hz", "MHz",
                                                "GHz", "ms", "ns", "MB", "GB", "TB"};
  for (std::string_view unit : kUnits) {
    if (js::startsWithAsciiNoCase(text.substr(j), unit) && isWordBoundary(text, j + unit.size())) {
      return true;
    }
  }
  if (j + 1 < n) {
    char16_t u = js::asciiLower(text[j + 1]);
    bool degree = text[j] == 0xB0 && (u == u'c' || u == u'f');
    bool micro = isMicro(text[j]) && u == u's';
    if ((degree || micro) && isWordBoundary(text, j + 2)) return true;
  }
  return false;
}

bool hasNumericWithUnits(View text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (isDigit(text[i]) && atWordStart(text, i) && numericUnitAt(text, i)) return true;
  }
  return false;
}

// `split(/\s+/).length`: one more than the number of whitespace runs.
std::size_t spaceSplitCount(View text) {
  std::size_t count = 1;
  bool inRun = false;
  for (char16_t c : text) {
    bool space = isSpace(c);
    if (space && !inRun) ++count;
    inRun = space;
  }
  return count;
}

struct Detector {
  const char* reason;
  bool (*test)(View);
};

constexpr Detector kSoft[] = {
    {"url", hasUrl},
    {"email", hasEmail},
    {"phone", hasPhone},
    {"version_number", hasVersionNumber},
    {"hash_or_sha", hasHashOrSha},
    {"file_path", hasFilePath},
    {"ip_or_semver", hasIpOrSemver},
    {"quoted_key", hasQuotedKey},
    {"legal_term", hasLegalTerm},
    {"direct_quote", hasDirectQuote},
    {"numeric_with_units", hasNumericWithUnits},
};

}  // namespace

Classification classifyMessage(std::u16string_view content) {
  Classification out;
  const StructureScan scan = scanStructure(content);
  auto add = [&](bool present, const char* reason) {
    if (present) out.reasons.emplace_back(reason);
  };
  // The reference's push order: structural detectors, SQL, API key, then the soft patterns.
  add(scan.mayHaveFence && hasCodeFence(content), "code_fence");
  add(scan.mayHaveIndent && hasIndentedCode(content), "indented_code");
  add(scan.latexMath, "latex_math");
  add(scan.unicodeMath, "unicode_math");
  add(hasJsonStructure(content), "json_structure");
  add(scan.mayHaveYaml && hasYamlStructure(content), "yaml_structure");
  add(scan.versePattern, "verse_pattern");
  add(scan.lineLengthVariance, "high_line_length_variance");
  add(scan.specialCharRatio, "high_special_char_ratio");
  add(match::hasSqlContent(content), "sql_content");
  add(match::hasApiKey(content), "api_key");
  for (const Detector& d : kSoft) add(d.test(content), d.reason);

  if (!out.reasons.empty()) {
    out.decision = Tier::T0;
    out.confidence = std::min(0.95, 0.7 + 0.05 * static_cast<double>(out.reasons.size()));
  } else {
    out.decision = spaceSplitCount(content) < 20 ? Tier::T2 : Tier::T3;
    out.confidence = 0.65;
  }
  return out;
}

bool hasHardReason(std::u16string_view content) {
  return scanFenceAndHardReason(content).hardReason;
}

namespace detail {
FenceAndHardReason scanFenceAndHardReasonByWords(std::u16string_view content) {
  if (hasJsonStructure(content)) return {content.find(u"```") != View::npos, true};
  FenceAndHardReason out;
  out.hardReason = scanForHardReason(content, out.tripleBacktick);
  return out;
}
}  // namespace detail

namespace {
// One fused pass; classifyMessage keeps the detector-by-detector form it must agree with. The
// block scan may stop at the first fence (the word walk of the other builds always reads on).
FenceAndHardReason scanFenceAndHardReasonUpTo(std::u16string_view content, bool stopAtFence) {
#if CCE_CLASSIFIER_SSE2
  if (hasJsonStructure(content)) return {hasTripleBacktick(content, 0), true};
  FenceAndHardReason out;
  out.hardReason = scanForHardReasonByBlocks(content, out.tripleBacktick, stopAtFence);
  return out;
#else
  (void)stopAtFence;
  return detail::scanFenceAndHardReasonByWords(content);
#endif
}
}  // namespace

FenceAndHardReason scanFenceAndHardReason(std::u16string_view content) {
  return scanFenceAndHardReasonUpTo(content, false);
}

FenceAndHardReason scanFenceOrHardReason(std::u16string_view content) {
  return scanFenceAndHardReasonUpTo(content, true);
}

bool isValidJson(std::u16string_view text) {
  View t = js::trimView(text);
  if (t.empty() || (t[0] != u'{' && t[0] != u'[')) return false;
  return match::isJsonText(t);
}

}  // namespace cce
