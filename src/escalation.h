// SPDX-License-Identifier: MIT
// Safe mode: the escalation ladder that makes a token budget converge (issue 6, item 4).
//
// When the recency search and forceConverge's truncation leave a budget result above the budget,
// the safe mode escalates deterministically, in this order, and stops as soon as the output fits:
//
//   1. Summarise inside the recency window, except the newest user turn: the search continues below
//      minRecencyWindow, down to the newest turn, and truncation follows it.
//   2. Shorten this run's summaries: re-summarise each (oldest first) with budget 200, then 100,
//      then 50 characters (at most 10, 5 and 0 entities), keeping its provenance.
//   3. Replace whole old atomic groups, oldest first, with omission stubs (see omissionStub).
//
// Messages with a preserved role and the newest user turn are never touched. The ladder is applied
// only when it reaches the budget; otherwise the search + truncation result stays as it was and
// `blocking` names the messages that no step may replace.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "types.h"

namespace cce {

struct PipelineMemo;

/// What one output entry stands for in the statistics (spec §1.5 plus the safe mode's counters).
enum class EntryKind { Preserved, Compressed, Deduped, FuzzyDeduped, Truncated };

/// Kinds of the entries of a pipeline run (before forceConverge, which marks its own truncations).
std::vector<EntryKind> entryKinds(const CompressResult& run);

/// Where the newest user turn starts: the index of the last message whose role is "user", or the
/// message count when there is none (an empty turn).
std::size_t newestTurnStart(const std::vector<Message>& messages);

/// The atomic groups, as [begin, end) ranges that partition the messages in order: a message with
/// tool_calls, the tool results that follow it, and the assistant message that follows those (a
/// follow-up without tool_calls); every other message is a group of its own.
std::vector<std::pair<std::size_t, std::size_t>> atomicGroups(const std::vector<Message>& messages);

/// A message that may carry a stub: no tool_calls and no `tool_call_id`, so the stub orphans
/// neither a call nor a result (a "tool" message without a call id answers no call).
bool canCarryStub(const Message& message);

/// The stub text: `[cce:omitted N messages — C chars]` (U+2014 with one space on each side; "1
/// message" in the singular; C = the replaced messages' total content length in UTF-16 units,
/// plain digits like the dedup references).
U16 omissionStub(std::size_t messages, std::size_t chars);

/// The messages the ladder may not replace and whether they alone fit the budget.
struct ProtectedMessages {
  std::size_t turnStart = 0;
  std::vector<std::size_t> indices;  // preserved roles and the newest user turn, in input order
  double tokens = 0;
  bool fits = false;
  bool pending = false;  // the token counter has not answered yet
};
ProtectedMessages findProtected(const std::vector<Message>& messages,
                                const CompressOptions& options);

/// The last ladder step that was applied.
enum class EscalationStep { None, WindowSummaries, ShorterSummaries, Omission };

/// Runs the ladder on a safe-mode budget result that does not fit after the search and
/// forceConverge (`kinds` describes its entries), when the protected messages alone fit. On
/// success `result` is the escalated plan (statistics and ratios recomputed) and the step that made
/// it fit is returned; otherwise `result` is left as it was, `result.budget->blocking` is filled,
/// and None is returned. A pending hook sets `result.pending`.
EscalationStep escalate(const std::vector<Message>& messages, const CompressOptions& options,
                        PipelineMemo& memo, const ProtectedMessages& protection,
                        CompressResult& result, std::vector<EntryKind>& kinds);

}  // namespace cce
