// SPDX-License-Identifier: MIT
// Script-aware token estimate for the safe default mode (issue 6 item 7); compat keeps len/3.5.
//
// The reference counts ceil(len / 3.5) UTF-16 units, which under-counts Chinese, Japanese and
// Korean by 2-3x (BPE vocabularies spend 0.5-1 token per ideograph, kana or hangul syllable) and
// mis-counts code, numbers, emoji and other scripts. This estimate splits the text roughly the way
// o200k's pre-tokenizer does (letter words and camelCase humps, digit groups, punctuation runs,
// whitespace runs) and counts script classes; the estimate is ceil(sum of count * cost) with costs
// fitted to o200k_base (scripts/measure-token-estimate.mjs reports the error, per data set, for
// o200k_base and cl100k_base). The pass is a table-driven automaton over UTF-16 units: linear,
// about 1.5 ns per unit natively, integer arithmetic only, so native and wasm agree exactly. The
// same loop (a second pass in the size build) prices random-looking base64 runs, which BPE
// vocabularies split into far more pieces than the words and identifiers the automaton's costs
// were fitted to; it about doubles the pass's time (1.1 -> 2.0 ns per unit on data/real).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace cce {

/// Estimated token count of `text`: a whole number, 0 for the empty string and at least 1 for any
/// other. Never decreases when a code point is appended; splitting a text at a single space
/// between two non-blank units gives parts whose estimates add up to the whole's or one more.
double estimateTokens(std::u16string_view text);

namespace detail {

/// What the pass counts: each unit adds at most one to each feature, and every cost is
/// non-negative.
enum TokenFeature : int {
  kSpacedWords,       // Latin words right after a blank (" word": usually one token)
  kAttachedWords,     // Latin words right after one mark that follows a non-blank (".get", "(src")
  kBareWords,         // other Latin words: line starts, camelCase humps, after digits, escapes,
                      // blank + mark (" (src") or a run of marks ("](/en")
  kSpacedWordTail,    // letters past the length at which spaced words start to split
  kBareWordTail,      // same for attached and bare words (identifiers, hashes split sooner)
  kCapsTail,          // upper-case letters after the first in a word piece ("JSON", "YBGl")
  kGlued,             // letter/digit changes without a separator (hashes, ids: "a3f9c2e")
  kLatinExtended,     // accented Latin letters inside words
  kDigitGroups,       // digit runs cost ceil(len / 3): both tokenizers split numbers that way
  kDigitsAfterBlank,  // a blank before a number is a token of its own
  kPunctRuns,         // runs of ASCII and general punctuation
  kPunctChars,        // characters in those runs
  kEscapes,           // a letter right after a backslash ("\n" in JSON text, "C:\Users")
  kNewlineRuns,       // whitespace runs containing a line break
  kPunctNewlines,     // such runs right after punctuation, which o200k's pre-tokenizer joins to it
  kBlankRuns,         // runs of >= 2 blanks (indentation, alignment) not ending at a line break
  kHan,               // CJK ideographs (and radicals, bopomofo, Yi)
  kHiragana,          // hiragana (particles and endings: little merging)
  kKatakana,          // katakana (loanwords: merged like words)
  kHangul,            // hangul syllables and jamo
  kHangulWords,       // runs of hangul
  kCjkPunct,          // CJK and full-width punctuation and symbols
  kCyrillic,          // Cyrillic letters (merged almost as well as Latin ones)
  kOtherLetters,      // other alphabets o200k merges well: Arabic, Devanagari
  kSparseLetters,     // alphabets with fewer merges: Greek, Hebrew, Armenian, Thai, other Indic
  kOtherWords,        // runs of Cyrillic, other or sparse letters
  kSymbols,           // BMP symbols and controls: arrows, math, box drawing, dingbats, ESC
  kSymbolRepeats,     // a symbol equal to the one before it (rules like "─────" merge)
  kJoiners,           // variation selectors, ZWJ, bidi controls, keycap marks, tags
  kAstral,            // supplementary-plane code points other than ideographs: mostly emoji
  kRandomChars,       // units of random-looking base64 runs (data, encrypted content, keys)
  kFeatureCount
};

using TokenFeatures = std::array<std::uint64_t, kFeatureCount>;

/// The counts behind estimateTokens (the calibration script fits the costs to them).
TokenFeatures tokenFeatures(std::u16string_view text);

/// The sum of the feature costs of `text`, in thousandths of a token, by the estimate's own pass
/// (estimateTokens rounds it up); tests hold it equal to the costs of tokenFeatures.
std::uint64_t costMilli(std::u16string_view text);

/// kRandomChars of `text` as the speed build's estimate finds it, reading only the base64 runs long
/// enough to count; tests hold it equal to tokenFeatures(text)[kRandomChars].
std::uint64_t randomCharsOfLongRuns(std::u16string_view text);

/// Cost of one unit of each feature, in thousandths of a token.
extern const std::array<std::uint32_t, kFeatureCount> kTokenFeatureCostMilli;

/// Stable name of a feature for the calibration script ("spacedWords", ...).
const char* tokenFeatureName(int feature);

}  // namespace detail
}  // namespace cce
