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
//   3. Clear old tool results (issue 18): every tool result but the newest kKeptToolResults becomes
//      `[cce:cleared — N chars]`, oldest first, like Anthropic's `clear_tool_uses` edit.
//   4. Replace whole old atomic groups, oldest first, with omission stubs (see omissionStub).
//   5. Inside the newest turn's agent loop: clear intermediate assistant text, oldest first.
//   6. Cut oversized contents (the newest tool results included) to their head and tail, largest
//      first, around a note of what was left out.
//   7. Clear whatever is left, oldest first: the note where it is shorter, else an empty content.
//   8. Fold what still costs tokens, oldest first, into the provenance of a kept neighbour: plain
//      messages (no tool calls or results, not required) leave the output and uncompress restores
//      them from the neighbour's `_cce_original`.
//
// Steps 1-4 never touch a message with a preserved role or the newest user turn; steps 5-7 edit the
// turn's tool loop in place, one message at a time (a call and its result stay paired), and never
// the preserved messages nor the newest user message (the *required* messages). A step never makes
// a message cost more tokens than it did. The ladder is applied only when it reaches the budget;
// otherwise the search + truncation result stays as it was and `blocking` names the messages that
// no step could reduce.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "types.h"

namespace cce {

struct PipelineMemo;

/// What one output entry stands for in the statistics (spec §1.5 plus the safe mode's counters).
enum class EntryKind { Preserved, Compressed, Deduped, FuzzyDeduped, Truncated, Omitted };

/// Kinds of the entries of a pipeline run (before forceConverge, which marks its own truncations).
std::vector<EntryKind> entryKinds(const CompressResult& run);

/// Takes `messages` messages of an entry of this kind out of the statistics (an entry that leaves
/// the output or goes back to its original).
void uncount(EntryKind kind, std::size_t messages, CompressionStats& stats);

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

/// The stub with the ledger of what it replaces before its `]` (ledger.h; issue 18, item 4).
U16 omissionStub(std::size_t messages, std::size_t chars, const U16& ledger);

/// How many of the newest tool results step 3 keeps verbatim.
constexpr std::size_t kKeptToolResults = 3;

/// The messages the ladder may not replace and whether they alone fit the budget.
struct ProtectedMessages {
  std::size_t turnStart = 0;
  std::vector<std::size_t> indices;  // preserved roles and the newest user turn, in input order
  double tokens = 0;
  bool fits = false;
  /// What no step edits: preserved roles and the newest user message (not the rest of its turn).
  /// A budget is feasible exactly when these fit.
  std::vector<std::size_t> required;
  double requiredTokens = 0;
  bool requiredFits = false;
  bool pending = false;  // the token counter has not answered yet
};
ProtectedMessages findProtected(const std::vector<Message>& messages,
                                const CompressOptions& options);

/// The last ladder step that was applied.
enum class EscalationStep {
  None,
  WindowSummaries,
  ShorterSummaries,
  ClearedToolResults,
  Omission,
  ClearedLoopText,
  Cut,
  ClearedAll,
  Folded
};

/// Runs the ladder on a safe-mode budget result that does not fit after the search and
/// forceConverge (`kinds` describes its entries). `result` becomes the escalated plan (statistics
/// and ratios recomputed; `kinds` stays parallel to its entries) and the last step it took is
/// returned. A plan that still does not fit is kept as the ladder left it, the smallest it could
/// reach, with `result.budget->blocking` naming what no step could reduce. A pending hook sets
/// `result.pending`.
EscalationStep escalate(const std::vector<Message>& messages, const CompressOptions& options,
                        PipelineMemo& memo, const ProtectedMessages& protection,
                        CompressResult& result, std::vector<EntryKind>& kinds);

}  // namespace cce
