// SPDX-License-Identifier: MIT
// Safe mode (issue 18, item 3): a budget result that fits with room left gives the room back to
// the newest content.
//
// The search keeps the largest recency window that fits and the escalation ladder stops at the
// first step that fits, so a result can end well under its budget (every reply summarised while a
// third of the budget is unused). This pass walks the output from the newest entry to the oldest
// and puts back, verbatim, every single message that was summarised, truncated, cleared, cut or
// stubbed on its own, as long as the total still fits; then the newest message still replaced on
// its own gets as much of its original as the room holds (its head and tail around a cut note).
// Summaries of several messages stay.
#pragma once

#include <vector>

#include "escalation.h"
#include "types.h"

namespace cce {

/// Precondition: a safe-mode budget result that fits, `kinds` parallel to its entries. Restores
/// entries newest first while the total stays within the budget; statistics, ratios, the token
/// count and `verbatim` follow. A pending counter sets `result.pending`.
void spendRoom(const std::vector<Message>& messages, const CompressOptions& options,
               CompressResult& result, std::vector<EntryKind>& kinds);

/// Issue 18, item 2: a summary is shorter than its message by length (the pipeline's size guard),
/// which a token counter may still price higher. Every message replaced on its own that costs more
/// than its original goes back to the original (which only lowers the total). `kinds` parallel to
/// the entries; a pending counter sets `result.pending`.
void revertCostlier(const std::vector<Message>& messages, const CompressOptions& options,
                    CompressResult& result, std::vector<EntryKind>& kinds);

}  // namespace cce
