// SPDX-License-Identifier: MIT
// Spec §5: the deterministic extractive summariser.
//
// Units are sentences (`[^.!?\n]+[.!?]+`, trimmed) per paragraph (split on \n\n+); a paragraph
// without a sentence is one primary unit. Units are scored with integer weights, the best of each
// paragraph is primary, pools are packed greedily under `budget` (stable by score), and the
// selection is joined in document order with " ... ". The result never exceeds `budget` UTF-16 units.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace cce {

/// The reference behaviour (cce-1.0, byte-identical to the TypeScript library).
std::u16string summarize(std::u16string_view text, std::size_t budget);

/// Opt-in unit rules for the engine's own (non-reference) modes. The default value is the
/// reference behaviour.
struct SummarizeRules {
  /// Sentences end only where a sentence plausibly ends, so that dotted identifiers
  /// (`retryConfig.maxAttempts`), file names (`client.ts`), versions (`v1.2.3`), decimals
  /// (`3.14`), URLs and e-mail addresses stay inside their sentence:
  /// - a run of `.`/`!`/`?` ends a sentence only when the end of the paragraph or whitespace
  ///   follows it, possibly after closing quotes and brackets (`" ' ) ] }` and U+2019, U+201D,
  ///   U+00BB), which stay with the sentence; line breaks inside a paragraph are whitespace;
  /// - a single `.` after one of these whole words (case as written) never ends a sentence:
  ///   `Dr Mr Mrs Ms Prof St Fig vs approx`; after `e.g`, `i.e` or `etc` it does not when the
  ///   next word starts with a lower-case letter; after `No` it does not when a digit follows;
  /// - the text after a paragraph's last sentence end is kept as a final unit (the reference
  ///   drops it), so a paragraph without a sentence end is one unit, as in the reference.
  /// Units are scored with scoreSentence and selected exactly as in the reference.
  bool keepIdentifiersWhole = false;
  /// High-entropy tokens (hashes, UUIDs, 0x addresses, key-like runs) and hex-dump runs stay
  /// verbatim (issue 18 item 4): when the selected units leave some out, up to half the budget is
  /// kept for them and the missing ones follow the selection, after " ... ", in order, joined by
  /// spaces (ledger.h, highEntropyRuns). The result still never exceeds `budget`. Applies with
  /// keepIdentifiersWhole (the default mode sets both; one unit scan keeps the module small).
  bool keepHighEntropy = false;
};

std::u16string summarize(std::u16string_view text, std::size_t budget,
                         const SummarizeRules& rules);

/// The §5.2 score of one trimmed unit (exposed for table tests).
int scoreSentence(std::u16string_view sentence);

namespace detail {
/// summarize without its one shortcut: under keepIdentifiersWhole, summarize leaves the units of a
/// paragraph unscored when every one is longer than the budget (packing can take none of them)
/// and scores them only if the fallback needs them. Tests compare the two.
std::u16string summarizeScoringEveryUnit(std::u16string_view text, std::size_t budget,
                                         const SummarizeRules& rules);
/// summarize with the greedy packing written plainly (both pools stably sorted by score, the
/// selection in a vector of its own, then sorted into document order): summarize's packing sorts
/// small pools in place, keeps the selection in the pool and stops when nothing more can fit.
/// Tests compare the two.
std::u16string summarizeSelectingBySorts(std::u16string_view text, std::size_t budget,
                                         const SummarizeRules& rules);
}  // namespace detail

}  // namespace cce
