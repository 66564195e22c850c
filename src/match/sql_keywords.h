// SPDX-License-Identifier: MIT
// The SQL keyword scan of spec §3.2 (`sql_content`): global, case-insensitive `\b(KEYWORD)\b`.
//
// Every alternative is letters (and `\s+` between two words), so under ASCII `\b` a keyword match
// is always a whole maximal `\w` run (plus, for two-word keywords, a whitespace run and a second
// whole run). No single-word keyword is also the first word of a two-word keyword, so at any word
// at most one alternative can match and the alternation order only shows in what a two-word match
// consumes
// ("LEFT JOIN" is one match; its "JOIN" is never counted on its own).
#pragma once

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

}  // namespace cce::match
