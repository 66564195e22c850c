// SPDX-License-Identifier: MIT
// Spec §9: token budgets. Fast path, binary search over the recency window, forceConverge.
//
// The search keeps the largest recency window in [minRecencyWindow, n-1] whose output fits, reusing
// the last run when it was at the final window. forceConverge then truncates the longest messages
// outside the window (> 512 units) to a 512-unit prefix until the budget is met. In the safe mode
// forceConverge is on by default, the search never goes below the newest user turn when the
// protected messages fit, and the escalation ladder (escalation.h) follows the truncation.
#pragma once

#include <vector>

#include "escalation.h"
#include "types.h"

namespace cce {

struct PipelineMemo;

/// Precondition: options.tokenBudget is set.
CompressResult compressWithBudget(const std::vector<Message>& messages,
                                  const CompressOptions& options);

/// Whether a budget run goes on after its search: the explicit forceConverge option, else true in
/// the safe mode and false in compat mode.
bool convergesOnBudget(const CompressOptions& options);

/// Spec §9.2 over [lo, hi]: the run at the largest window that fits, else the run at lo, with the
/// budget fields attached. Each run shares `memo`.
CompressResult searchRecencyWindow(const std::vector<Message>& messages,
                                   const CompressOptions& options, double lo, double hi,
                                   PipelineMemo& memo);

/// Spec §9.3, applied to a budget result that does not fit. Exposed for tests. With `kinds`, the
/// entries it truncates on their own behalf (not a summary's) become EntryKind::Truncated.
void forceConverge(const std::vector<Message>& messages, const CompressOptions& options,
                   CompressResult& result, std::vector<EntryKind>* kinds = nullptr);

}  // namespace cce
