// SPDX-License-Identifier: MIT
// Work a token-budget search can share between its runs at different recency windows.
//
// Everything memoised here is independent of the window: the content-only classification rules
// (§2.1 rules 7-10), exact duplicate groups, deterministic group and code-split outcomes keyed by the group's index range
// (a group's messages and text are fixed by its range), and the token count of the input. Outcomes
// that involve the host's summarizer are never memoised: the reference asks it again on every run.
#pragma once

#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "dedup.h"
#include "pipeline.h"
#include "types.h"

namespace cce {

/// What summarising one group (or one code-split message) produced (spec §2.3 / §4.2).
struct GroupOutcome {
  bool reverted = false;  // the size guard kept the originals
  U16 content;
  U16 summaryId;
#ifndef CCE_NO_REMEMBERED_ESTIMATES
  std::optional<double> scriptTokens;  // memoised outcomes: the script estimate of `content`
#endif
};

struct PipelineMemo {
  explicit PipelineMemo(std::size_t n) : contentClasses(n) {}

  MessageClass contentClass(std::size_t i, std::u16string_view content) {
    if (!contentClasses[i]) contentClasses[i] = classifyContent(content);
    return *contentClasses[i];
  }

  double inputTokens(const std::vector<Message>& messages, const CompressOptions& options,
                     bool& pending) {
    if (inputTokenTotal) return *inputTokenTotal;
    bool missing = false;
    double total = countInputTokens(messages, options, missing);
    if (missing) {
      pending = true;
    } else {
      inputTokenTotal = total;
    }
    return total;
  }

  const ExactDuplicateGroups& exactGroups(const std::vector<Message>& messages,
                                          const CompressOptions& options) {
    if (!exactDuplicateGroups) exactDuplicateGroups = findExactDuplicates(messages, options.preserve);
    return *exactDuplicateGroups;
  }

  std::vector<std::optional<MessageClass>> contentClasses;
  std::optional<ExactDuplicateGroups> exactDuplicateGroups;
  std::map<std::pair<std::size_t, std::size_t>, GroupOutcome> groups;
  std::optional<double> inputTokenTotal;
};

}  // namespace cce
