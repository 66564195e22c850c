// SPDX-License-Identifier: MIT
// The SQL keyword scan of spec §3.2 (`sql_content`): global, case-insensitive `\b(KEYWORD)\b`.
//
// Every alternative is letters (and `\s+` between two words), so under ASCII `\b` a keyword match
// is always a whole maximal `\w` run (plus, for two-word keywords, a whitespace run and a second
// whole run). No single-word keyword is also the first word of a two-word keyword, so at any word
// at most one alternative can match and the alternation order only shows in what a two-word match
// consumes ("LEFT JOIN" is one match; its "JOIN" is never counted on its own).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cce::match {

/// Spec §3.2: true when the distinct keyword set contains a strong anchor, or has at least three
/// members one of which is a weak anchor. Stops scanning as soon as the answer is known.
bool hasSqlContent(std::u16string_view text);

/// The distinct normalised keywords (ASCII upper case, one space between words) in the order they
/// were first matched. For tests and debugging; `hasSqlContent` does not build it.
std::vector<std::string> sqlKeywords(std::u16string_view text);

namespace detail {
// A prefilter over the anchor keywords (see SqlKeywordScanner). Bit L of firstLast[32 * (a & 31) +
// (z & 31)] is set when the first word of one has length L, starts with the letter a and ends
// with z; likewise firstSecond with its second letter and firstPenultimate with its last letter
// but one. `& 31` folds ASCII case; digits and `_` alias letters, which only costs a wasted exact
// comparison.
struct SqlPrefilter {
  std::uint16_t firstLast[32 * 32] = {};
  std::uint16_t firstSecond[32 * 32] = {};
  std::uint16_t firstPenultimate[32 * 32] = {};
};
extern const SqlPrefilter kSqlPrefilter;
}  // namespace detail

/// `hasSqlContent` for a caller that already walks the text word by word (maximal ASCII `\w`
/// runs), in two steps. Only the anchor keywords can settle the answer on their own: the strong
/// and weak anchors, and the first words of two-word keywords (which may make strong ones). The
/// other keywords (SELECT, FROM, SET, ...) only count towards three distinct ones once a weak
/// anchor is there; none of them is part of a two-word keyword, so leaving them out changes no
/// anchor match. So: feed the scanner every word that passes mayBeAnchor, in text order; at the
/// end, finish() settles the rest with a full scan, and only if a weak anchor was seen.
class SqlKeywordScanner {
 public:
  /// The word text[begin, end), which passed mayBeAnchor. True once the text is known to be SQL
  /// content; it stays true.
  bool anchor(std::u16string_view text, std::size_t begin, std::size_t end);

  /// After the last word, when anchor() never said true: the answer.
  bool finish(std::u16string_view text) const;

  /// False for almost every word that is not the first word of an anchor (and never for one that
  /// is): the first and last letters with the length, then the second and the last but one, by
  /// table. Anchors have 2 to 10 letters, so a one-unit word fails the first test (its first unit
  /// is its last) before the others read around it.
  static bool mayBeAnchor(std::u16string_view text, std::size_t begin, std::size_t end) {
    const auto& f = detail::kSqlPrefilter;
    const unsigned shift = (end - begin) & 15;
    const unsigned first = (text[begin] & 31u) << 5;
    return ((f.firstLast[first | (text[end - 1] & 31u)] >> shift) & 1u) != 0 &&
           ((f.firstSecond[first | (text[begin + 1] & 31u)] >> shift) & 1u) != 0 &&
           ((f.firstPenultimate[first | (text[end - 2] & 31u)] >> shift) & 1u) != 0;
  }

 private:
  std::uint64_t seen_ = 0;                               // bit k: keyword k matched
  std::size_t consumed_ = static_cast<std::size_t>(-1);  // start of a matched second word
};

}  // namespace cce::match
