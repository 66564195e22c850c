// SPDX-License-Identifier: MIT
// Spec §3: the classifier. compress() only asks "is any hard reason present" and "is this valid JSON".
//
// Hard reasons preserve a message verbatim (rule 8 of §2.1); soft reasons and tiers are computed for
// fidelity of the debug API only and never change what compress() does. Every detector is a
// hand-written scanner over UTF-16 code units with JavaScript regex semantics (non-unicode `\s`,
// ASCII `\w`/`\b`, ASCII case folding): no std::regex (spec §12.6). All detectors run in time linear
// in the text length (the JS patterns' worst-case backtracking is not reproduced, only their
// results).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace cce {

enum class Tier { T0, T2, T3 };

struct Classification {
  Tier decision = Tier::T3;
  double confidence = 0.65;
  std::vector<std::string> reasons;  // in the reference's order: structural, SQL, API key, soft
};

/// The full classifier (`classifyMessage`), hard and soft reasons.
Classification classifyMessage(std::u16string_view content);

/// True when any hard reason applies (code_fence, indented_code, json_structure, yaml_structure,
/// high_special_char_ratio, high_line_length_variance, api_key, latex_math, unicode_math,
/// sql_content, verse_pattern). Stops at the first one found.
bool hasHardReason(std::u16string_view content);

/// What the pipeline asks first about a content (§2.1 rules 7-8), from one pass where possible:
/// whether it holds "```", and hasHardReason(content).
struct FenceAndHardReason {
  bool tripleBacktick = false;
  bool hardReason = false;
};
FenceAndHardReason scanFenceAndHardReason(std::u16string_view content);

/// The same, except that when the content holds "```" (tripleBacktick), hardReason may miss what
/// follows it: the pipeline's question (a fence decides before hard reasons), answered without
/// reading past the fence where the build can stop there.
FenceAndHardReason scanFenceOrHardReason(std::u16string_view content);

namespace detail {
/// scanFenceAndHardReason as the word-by-word walk that builds without SSE2 (and wasm SIMD) use;
/// the SIMD builds scan sixteen-unit blocks instead. For the tests that hold the two together.
FenceAndHardReason scanFenceAndHardReasonByWords(std::u16string_view content);
}  // namespace detail

/// Spec §3.7 `isValidJson`: trimmed text starts with `{` or `[` and is one complete JSON text.
bool isValidJson(std::u16string_view text);

}  // namespace cce
