// SPDX-License-Identifier: MIT
// Matchers for the word-shaped patterns shared by the summariser (§5.2) and entities (§7).
//
// Every `\b…\b` pattern here starts and ends with a word character, so under JS (ASCII) `\b` a
// match is always a whole maximal run of `[A-Za-z0-9_]`: these matchers test whole words. The
// number+unit, proper-noun and grep-reference patterns need real backtracking analysis; the
// comments in identifiers.cpp say why each scanner is equivalent to its regex.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "jscompat/string.h"

// The speed build (wasm SIMD through Emscripten's SSE2 header) and native x86-64 test eight code
// units per step in the finders below; the size build keeps four (64-bit lanes, no SIMD code).
#if defined(__SSE2__) && !defined(CCE_NO_SIMD)
#include <emmintrin.h>
#define CCE_MATCH_SSE2 1
#else
#define CCE_MATCH_SSE2 0
#endif

namespace cce::match {

// ---- character classes -------------------------------------------------------------------------

/// Class bits of an ASCII code unit. Every `\w` character has at least one of the first four, so a
/// non-zero `kWord` part means "word character"; the vowel bit (a e i o u y, either case) rides on
/// the letter bits and is what the vowelless pattern excludes.
namespace cls {
constexpr std::uint8_t kLower = 1;
constexpr std::uint8_t kUpper = 2;
constexpr std::uint8_t kDigit = 4;
constexpr std::uint8_t kUnderscore = 8;
constexpr std::uint8_t kWord = kLower | kUpper | kDigit | kUnderscore;
constexpr std::uint8_t kVowel = 16;
/// Not a word class: the summariser's sentence stops `[.!?\n]`, kept here so that its scan needs
/// one table look-up per code unit.
constexpr std::uint8_t kSentenceStop = 32;
}  // namespace cls

namespace detail {
struct ClassTable {
  std::uint8_t bits[128] = {};
  constexpr ClassTable() {
    for (int c = 0; c < 128; ++c) {
      char16_t u = static_cast<char16_t>(c);
      std::uint8_t b = 0;
      if (js::isLower(u)) b |= cls::kLower;
      if (js::isUpper(u)) b |= cls::kUpper;
      if (js::isDigit(u)) b |= cls::kDigit;
      if (u == u'_') b |= cls::kUnderscore;
      char16_t l = js::asciiLower(u);
      if (l == u'a' || l == u'e' || l == u'i' || l == u'o' || l == u'u' || l == u'y') {
        b |= cls::kVowel;
      }
      if (u == u'.' || u == u'!' || u == u'?' || u == u'\n') b |= cls::kSentenceStop;
      bits[c] = b;
    }
  }
};
inline constexpr ClassTable kClassTable{};
}  // namespace detail

/// The class bits of a code unit; 0 for everything outside ASCII `\w`.
constexpr std::uint8_t classOf(char16_t c) { return c < 128 ? detail::kClassTable.bits[c] : 0; }

/// A maximal run of ASCII `\w` (the only places a `\b[a-z…]…\b` pattern can match) with the class
/// bits of its first unit and the union of those of the others.
struct Word {
  std::size_t begin = 0;
  std::size_t end = 0;
  std::uint8_t first = 0;
  std::uint8_t rest = 0;
};

/// Where `WordScanner::next` stopped.
enum class Next { kWord, kStop, kEnd };

namespace detail {
// The scanner's classes: a word unit's class bits, or for any other unit kNonWord plus the
// sentence-stop bit, so that the word loop can or a unit in before testing it.
constexpr std::uint8_t kNonWord = 0x80;
struct ScanTable {
  std::uint8_t bits[128] = {};
  constexpr ScanTable() {
    for (int c = 0; c < 128; ++c) {
      const std::uint8_t k = kClassTable.bits[c];
      bits[c] = (k & cls::kWord) != 0 ? k : static_cast<std::uint8_t>(kNonWord | k);
    }
  }
};
inline constexpr ScanTable kScanTable{};
}  // namespace detail

/// Walks the words of a text for the scanners, which ask for the few words that can carry a signal
/// and let the others be skipped inside a small loop: one table look-up per code unit. Two facts
/// found up front remove the other per-unit tests. A text of ASCII only is read as it is; other
/// texts through a copy with every non-ASCII unit replaced by DEL (also a non-word unit that is no
/// stop), so no unit needs a range check before the look-up. And a word that starts before the
/// last non-word unit ends before it, so only the text's trailing word needs an end check.
class WordScanner {
 public:
  explicit WordScanner(std::u16string_view text);
  /// Over `asciiCopy`, which a caller made once for a text that holds many scanned pieces: `text`
  /// itself when it is ASCII, else a copy of the same length with every non-ASCII unit replaced by
  /// DEL (asciiCopyOf).
  struct PreparedAscii {};
  WordScanner(std::u16string_view asciiCopy, PreparedAscii);
  WordScanner(const WordScanner&) = delete;  // data_ may point into ascii_
  WordScanner& operator=(const WordScanner&) = delete;

  /// Advances to the next word for which `wanted(begin, first, rest, length)` holds (stored in
  /// `w`; position() is then its end) or, with `kStops`, to the next sentence stop (position() is
  /// then the stop).
  template <bool kStops, class Wanted>
  Next next(Wanted&& wanted, Word& w) {
    const std::uint8_t* const table = detail::kScanTable.bits;
    const char16_t* const base = data_;
    const char16_t* const safe = base + safeEnd_;
    const char16_t* p = base + pos_;
    if (pos_ > safeEnd_) return Next::kEnd;  // past the start of the trailing word
    while (p != safe) {
      const std::uint8_t first = table[*p];
      if (first & detail::kNonWord) {
        if (kStops && (first & cls::kSentenceStop)) {
          pos_ = static_cast<std::size_t>(p - base);
          return Next::kStop;
        }
        ++p;
        continue;
      }
      const char16_t* const b = p;
      std::uint8_t all = 0, k;
      do {
        k = table[*++p];
        all |= k;
      } while ((k & detail::kNonWord) == 0);
      const std::uint8_t rest = all & (cls::kWord | cls::kVowel);  // without the ending unit's
      if (wanted(static_cast<std::size_t>(b - base), first, rest,
                 static_cast<std::size_t>(p - b))) {
        w = {static_cast<std::size_t>(b - base), static_cast<std::size_t>(p - base), first, rest};
        pos_ = w.end;
        return Next::kWord;
      }
      // The unit that ended the word is a non-word unit; step over it unless it stops.
      if (!kStops || (k & cls::kSentenceStop) == 0) ++p;
    }
    pos_ = size_;
    if (safeEnd_ == size_) return Next::kEnd;
    const Word last = trailingWord();
    if (!wanted(last.begin, last.first, last.rest, last.end - last.begin)) return Next::kEnd;
    w = last;
    return Next::kWord;
  }

  std::size_t position() const { return pos_; }
  /// Resumes at `i`, which must follow a non-word unit (or be 0 or the end).
  void resumeAt(std::size_t i) { pos_ = i; }

 private:
  // The text's trailing word [safeEnd_, size), which needs the end check.
  Word trailingWord() const;

  const char16_t* data_ = nullptr;
  std::u16string ascii_;  // the DEL copy of a text with non-ASCII units
  std::size_t size_ = 0;
  std::size_t pos_ = 0;
  std::size_t safeEnd_ = 0;  // one past the last non-word unit
};

#if CCE_MATCH_SSE2
namespace detail {
// The first lane of the eight at `p` that `test` sets, or 8.
template <class Test>
inline std::size_t firstOfEight(const char16_t* p, Test test) {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const unsigned mask = static_cast<unsigned>(_mm_movemask_epi8(test(v)));
  return mask == 0 ? 8 : static_cast<std::size_t>(__builtin_ctz(mask)) / 2;
}
}  // namespace detail
#endif

/// Whether `text` is ASCII only (every unit below 128).
bool isAscii(std::u16string_view text);

/// `text` with every non-ASCII unit replaced by DEL, for WordScanner(…, PreparedAscii).
std::u16string asciiCopyOf(std::u16string_view text);

/// The first `unit` at or after `from` in `text`, or text.size(). Four code units are tested at a
/// time: after the xor a lane holding `unit` is zero, and `(v - 1) & ~v` keeps a lane's top bit for
/// some lane exactly when one is zero (a borrow only reaches lanes past a zero one).
inline std::size_t findUnit(std::u16string_view text, std::size_t from, char16_t unit) {
  constexpr std::uint64_t kOnes = 0x0001000100010001ull;
  constexpr std::uint64_t kTops = 0x8000800080008000ull;
  const std::uint64_t pattern = kOnes * unit;
  const std::size_t n = text.size();
  std::size_t i = from;
#if CCE_MATCH_SSE2
  const __m128i wanted = _mm_set1_epi16(static_cast<short>(unit));
  for (; i + 8 <= n; i += 8) {
    const std::size_t k = detail::firstOfEight(
        text.data() + i, [wanted](__m128i v) { return _mm_cmpeq_epi16(v, wanted); });
    if (k < 8) return i + k;
  }
#endif
  for (; i + 4 <= n; i += 4) {
    std::uint64_t v;
    std::memcpy(&v, text.data() + i, sizeof v);
    v ^= pattern;
    if (((v - kOnes) & ~v & kTops) != 0) break;
  }
  while (i < n && text[i] != unit) ++i;
  return i;
}

/// The first sentence terminator (`.`, `!` or `?`) at or after `from` in `text`, or text.size().
inline std::size_t findTerminator(std::u16string_view text, std::size_t from) {
  const std::size_t n = text.size();
  std::size_t i = from;
#if CCE_MATCH_SSE2
  for (; i + 8 <= n; i += 8) {
    const std::size_t k = detail::firstOfEight(text.data() + i, [](__m128i v) {
      return _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi16(v, _mm_set1_epi16(u'.')),
                                       _mm_cmpeq_epi16(v, _mm_set1_epi16(u'!'))),
                          _mm_cmpeq_epi16(v, _mm_set1_epi16(u'?')));
    });
    if (k < 8) return i + k;
  }
#endif
  while (i < n && text[i] != u'.' && text[i] != u'!' && text[i] != u'?') ++i;
  return i;
}

/// The first ASCII digit at or after `from` in `text` (or, with `orNewline`, the first digit or
/// \n), or text.size().
template <bool orNewline = false>
inline std::size_t findDigit(std::u16string_view text, std::size_t from) {
  const std::size_t n = text.size();
  std::size_t i = from;
#if CCE_MATCH_SSE2
  for (; i + 8 <= n; i += 8) {
    const std::size_t k = detail::firstOfEight(text.data() + i, [](__m128i v) {
      // v - '0' <= 9, unsigned: a digit (units below '0' wrap around to large values).
      const __m128i offset = _mm_sub_epi16(v, _mm_set1_epi16(u'0'));
      const __m128i digit =
          _mm_cmpeq_epi16(_mm_subs_epu16(offset, _mm_set1_epi16(9)), _mm_setzero_si128());
      return orNewline ? _mm_or_si128(digit, _mm_cmpeq_epi16(v, _mm_set1_epi16(u'\n'))) : digit;
    });
    if (k < 8) return i + k;
  }
#endif
  while (i < n && !js::isDigit(text[i]) && !(orNewline && text[i] == u'\n')) ++i;
  return i;
}

/// The first ASCII upper-case letter at or after `from` in `text`, or text.size(). Four code units
/// at a time: in each 16-bit lane, with the top bit cleared, adding 0x7FBF sets the top bit exactly
/// for values >= 0x41 and adding 0x7FA5 for values >= 0x5B; a lane whose own top bit is set is no
/// letter. The speed build tests eight units a step first (entities walk whole texts with it once
/// their later kinds are full).
inline std::size_t findUpper(std::u16string_view text, std::size_t from) {
  constexpr std::uint64_t kOnes = 0x0001000100010001ull;
  constexpr std::uint64_t kTops = 0x8000800080008000ull;
  constexpr std::uint64_t kLow = 0x7FFF7FFF7FFF7FFFull;
  const std::size_t n = text.size();
  std::size_t i = from;
#if CCE_MATCH_SSE2
  for (; i + 8 <= n; i += 8) {
    const std::size_t k = detail::firstOfEight(text.data() + i, [](__m128i v) {
      // v - 'A' <= 25, unsigned: an upper-case letter (units below 'A' wrap around).
      const __m128i offset = _mm_sub_epi16(v, _mm_set1_epi16(u'A'));
      return _mm_cmpeq_epi16(_mm_subs_epu16(offset, _mm_set1_epi16(25)), _mm_setzero_si128());
    });
    if (k < 8) return i + k;
  }
#endif
  for (; i + 4 <= n; i += 4) {
    std::uint64_t v;
    std::memcpy(&v, text.data() + i, sizeof v);
    const std::uint64_t low = v & kLow;
    const std::uint64_t atLeastA = low + kOnes * 0x7FBF;
    const std::uint64_t pastZ = low + kOnes * 0x7FA5;
    if ((atLeastA & ~pastZ & ~v & kTops) != 0) break;
  }
  while (i < n && !js::isUpper(text[i])) ++i;
  return i;
}

// ---- whole-word shapes -------------------------------------------------------------------------

/// `[a-z]+([A-Z][a-z]+)+` over a whole word.
bool isCamelCase(std::u16string_view word);
/// `[A-Z][a-z]+([A-Z][a-z]+)+` over a whole word.
bool isPascalCase(std::u16string_view word);
/// `[a-z]+(_[a-z]+)+` over a whole word.
bool isSnakeCase(std::u16string_view word);

/// Bits of `wordShapes`.
namespace shape {
constexpr unsigned kPascal = 1;
constexpr unsigned kCamel = 2;
constexpr unsigned kSnake = 4;
constexpr unsigned kVowelless = 8;
}  // namespace shape

/// The shapes a whole word can have, given the class bits of its first unit and the union of the
/// others (from WordScanner). The bits reject almost every word without looking at it again:
/// camel/Pascal need an upper-case letter after the first, snake an underscore, and none of them a
/// digit. The vowelless bit is exact (all letters, no vowel, three or more); a camel, Pascal or
/// snake bit still needs hasShape.
inline unsigned shapeCandidates(std::uint8_t first, std::uint8_t rest, std::size_t length) {
  using namespace cls;
  unsigned shapes = 0;
  const std::uint8_t others = rest & (kUpper | kDigit | kUnderscore);
  if (first & kLower) {
    if (others == kUpper) {
      shapes |= shape::kCamel;
    } else if (others == kUnderscore) {
      shapes |= shape::kSnake;
    }
  } else if ((first & kUpper) && others == kUpper && (rest & kLower)) {
    shapes |= shape::kPascal;
  }
  if (((first | rest) & (kDigit | kUnderscore | kVowel)) == 0 && length >= 3) {
    shapes |= shape::kVowelless;
  }
  return shapes;
}

/// Whether `word` has the one shape `candidate` (a bit of shapeCandidates).
inline bool hasShape(std::u16string_view word, unsigned candidate) {
  switch (candidate) {
    case shape::kPascal:
      return isPascalCase(word);
    case shape::kCamel:
      return isCamelCase(word);
    case shape::kSnake:
      return isSnakeCase(word);
    default:
      return candidate == shape::kVowelless;
  }
}

/// Which of the four shapes a whole word has (at most one identifier shape, plus vowelless).
inline unsigned wordShapes(std::u16string_view word, std::uint8_t first, std::uint8_t rest) {
  const unsigned candidates = shapeCandidates(first, rest, word.size());
  const unsigned identifier = candidates & ~shape::kVowelless;
  if (identifier != 0 && !hasShape(word, identifier)) return candidates & shape::kVowelless;
  return candidates;
}

// ---- numbers with units ------------------------------------------------------------------------

/// The two unit alternations of `\b\d+(\.\d+)?\s*(UNITS)\b` (flag i).
enum class UnitSet {
  kScore,  // §5.2: seconds?|ms|MB|GB|TB|KB|retries?|workers?|threads?|nodes?|replicas?|requests?|%
  kEntity,  // §7.6: the longer list, adding attempts, minutes, hours, days, bytes, instances, ...
};

/// Whether the optional `(\.\d+)` may be taken. A scanner that walks a whole text but scores
/// units that end at the first dot (the summariser's sentences) must not let a match run past it.
enum class Fraction { kAllowed, kStopsAtDot };

/// A cheap necessary condition for a number+unit match at the digit-led word `w`: a unit follows
/// the digits inside the word, or the word is all digits and a dot (when fractions are allowed), a
/// space or `%` follows it (every unit but `%` starts with a letter).
inline bool mayStartNumberWithUnit(std::u16string_view text, const Word& w, Fraction fraction) {
  if ((w.rest & (cls::kLower | cls::kUpper | cls::kUnderscore)) != 0) return true;
  if (w.end == text.size()) return false;
  const char16_t next = text[w.end];
  return next == u'%' || js::isSpace(next) || (next == u'.' && fraction == Fraction::kAllowed);
}

/// One attempt of the number+unit pattern at `start`, which must be a digit that begins a `\w`
/// run (every match starts at such a position). Returns the match end, or 0 when it fails.
std::size_t matchNumberWithUnitAt(std::u16string_view text, std::size_t start, UnitSet units,
                                  Fraction fraction = Fraction::kAllowed);

// ---- proper nouns and grep references ----------------------------------------------------------

/// A proper-noun phrase match of `\b[A-Z][a-z]+(\s+[A-Z][a-z]+)*\b`; `firstWordEnd` ends the
/// first `[A-Z][a-z]+` (the phrase's first item of `split(/\s+/)`).
struct PhraseSpan {
  std::size_t begin = 0;
  std::size_t end = 0;
  std::size_t firstWordEnd = 0;
};

/// One attempt of the proper-noun pattern at `start`, which must begin a `\w` run with
/// `[A-Z][a-z]` (every match starts at such a position). False when the attempt fails.
bool matchProperNounAt(std::u16string_view text, std::size_t start, PhraseSpan* phrase);

/// Tries `\S+\.\w+:\d+:` anchored at `start`. On success returns true and sets `captureEnd` to the
/// end of `\S+\.\w+` (the greedy capture of §6.2: the last dot that completes the pattern wins)
/// and `matchEnd` to the end of the whole match.
bool matchGrepRefAt(std::u16string_view text, std::size_t start, std::size_t* captureEnd,
                    std::size_t* matchEnd);

/// Number of global matches of `\S+\.\w+:\d+:` (at most one per run of non-whitespace).
std::size_t countGrepRefs(std::u16string_view text);

}  // namespace cce::match
