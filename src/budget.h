// SPDX-License-Identifier: MIT
// Spec §9: token budgets. Fast path, binary search over the recency window, forceConverge.
//
// The search keeps the largest recency window in [minRecencyWindow, n-1] whose output fits, reusing
// the last run when it was at the final window. forceConverge then truncates the longest messages
// outside the window (> 512 units) to a 512-unit prefix until the budget is met.
#pragma once

#include <vector>

#include "types.h"

namespace cce {

/// Precondition: options.tokenBudget is set.
CompressResult compressWithBudget(const std::vector<Message>& messages,
                                  const CompressOptions& options);

/// Spec §9.3, applied to a budget result that does not fit. Exposed for tests.
void forceConverge(const std::vector<Message>& messages, const CompressOptions& options,
                   CompressResult& result);

}  // namespace cce
