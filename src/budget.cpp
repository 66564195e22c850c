// SPDX-License-Identifier: MIT
// Spec §9: token budgets — fast path, binary search over the recency window, forceConverge.
#include "budget.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "dedup.h"
#include "escalation.h"
#include "jscompat/number.h"
#include "jscompat/sort.h"
#include "jscompat/string.h"
#include "pipeline.h"
#include "pipeline_memo.h"
#include "provenance.h"
#include "spend.h"

namespace cce {

namespace {

constexpr std::size_t kTruncationPrefix = 512;

// The provenance of a message forceConverge truncates on its own behalf. The safe mode links an
// earlier round through parent_ids; the reference writes none.
Provenance ownProvenance(const std::vector<Message>& messages, const CompressOptions& options,
                         std::size_t index) {
  const Message& source = messages[index];
  Provenance p;
  p.sources = {index};
  p.summaryId = makeSummaryId({&source.id});
  if (options.compat != Compat::Cce10 && source.cceSummaryId) {
    p.parentIds.push_back(*source.cceSummaryId);
  }
  p.version = options.sourceVersion;
  return p;
}

// One search step: a full run at `window` with the budget fields attached.
CompressResult runAt(const std::vector<Message>& messages, const CompressOptions& options,
                     double window, PipelineMemo& memo) {
  CompressResult run = runPipeline(messages, options, window, &memo);
  if (run.pending) return run;
  bool pending = false;
  double tokens = countOutputTokens(messages, run, options, pending);
  if (pending) {
    run.pending = true;
    return run;
  }
  run.budget = BudgetOutcome{tokens <= *options.tokenBudget, tokens, window, {}};
  return run;
}

}  // namespace

bool convergesOnBudget(const CompressOptions& options) {
  if (options.forceConverge) return *options.forceConverge;
  return options.compat == Compat::Safe;
}

CompressResult searchRecencyWindow(const std::vector<Message>& messages,
                                   const CompressOptions& options, double lo, double hi,
                                   PipelineMemo& memo) {
  std::optional<CompressResult> last;
  while (lo < hi) {
    const double mid = std::ceil((lo + hi) / 2);
    CompressResult run = runAt(messages, options, mid, memo);
    if (run.pending) return run;
    if (run.budget->fits) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
    last = std::move(run);
  }
  return (last && last->budget->recencyWindow == lo) ? std::move(*last)
                                                     : runAt(messages, options, lo, memo);
}

CompressResult compressWithBudget(const std::vector<Message>& messages,
                                  const CompressOptions& options) {
  const double budget = *options.tokenBudget;
  const std::size_t n = messages.size();
  PipelineMemo memo(n);

  bool pending = false;
  const double total = memo.inputTokens(messages, options, pending);
  if (pending) {
    CompressResult waiting;
    waiting.pending = true;
    return waiting;
  }
  if (total <= budget) {
    CompressResult fast;
    fast.compression.originalVersion = options.sourceVersion;
    fast.compression.messagesPreserved = n;
    fast.messages.resize(n);
    for (std::size_t i = 0; i < n; ++i) fast.messages[i].source = i;
    fast.budget = BudgetOutcome{true, total, static_cast<double>(n), {}};
    fast.fastPath = true;
    return fast;
  }

  const bool converge = convergesOnBudget(options);
  const bool ladder = converge && options.compat == Compat::Safe;
  double lowest = options.minRecencyWindow;
  ProtectedMessages protection;
  if (ladder) {
    protection = findProtected(messages, options);
    if (protection.pending) {
      CompressResult waiting;
      waiting.pending = true;
      return waiting;
    }
    // The newest user turn stays verbatim whenever it can: the search starts at its size (its
    // tool loop, if it does not fit, is edited by the ladder's last steps). When the required
    // messages alone exceed the budget nothing can make it fit, and the reference's search
    // compresses as much as it can instead.
    if (protection.requiredFits) {
      lowest = std::max(lowest, static_cast<double>(n - protection.turnStart));
    }
  }

  CompressResult result =
      searchRecencyWindow(messages, options, lowest, static_cast<double>(n) - 1, memo);
  if (result.pending || !converge) return result;
  std::vector<EntryKind> kinds;
  if (ladder) kinds = entryKinds(result);
  if (!result.budget->fits) forceConverge(messages, options, result, ladder ? &kinds : nullptr);
  if (result.pending || !ladder) return result;
  if (!result.budget->fits) {
    // Whether or not it gets there, the smallest plan the ladder reaches is kept (a smaller budget
    // then never gives more tokens than a larger one).
    escalate(messages, options, memo, protection, result, kinds);
    if (result.pending) return result;
    if (!result.budget->fits && !protection.requiredFits) {
      result.budget->blocking = protection.required;
    }
  }
  revertCostlier(messages, options, result, kinds);
  if (!result.pending && result.budget->fits) spendRoom(messages, options, result, kinds);
  return result;
}

void forceConverge(const std::vector<Message>& messages, const CompressOptions& options,
                   CompressResult& result, std::vector<EntryKind>* kinds) {
  const double budget = *options.tokenBudget;
  std::vector<OutputMessage>& out = result.messages;
  const double cutoffValue =
      std::max(0.0, static_cast<double>(out.size()) - result.budget->recencyWindow);
  const std::size_t cutoff = static_cast<std::size_t>(std::ceil(cutoffValue));

  // A message without string content has none to truncate: the empty view, as an empty one.
  auto contentOf = [&](const OutputMessage& m) -> std::u16string_view {
    if (m.content) return *m.content;
    const Message& source = messages[m.source];
    return source.contentIsString ? source.content.view() : std::u16string_view();
  };

  std::vector<std::size_t> candidates;
  for (std::size_t i = 0; i < out.size() && i < cutoff; ++i) {
    const std::u16string_view content = contentOf(out[i]);
    if (isPreservedRole(messages[out[i].source].role, options.preserve)) continue;
    if (content.size() > kTruncationPrefix) candidates.push_back(i);
  }
  js::stableSort(candidates, [&](std::size_t a, std::size_t b) {
    return contentOf(out[a]).size() > contentOf(out[b]).size();
  });

  // The reference clones every message with `metadata: {}`, which breaks the round trip of
  // messages it never changed (spec §9.3); the safe mode only rebuilds what it truncates.
  const bool reference = options.compat == Compat::Cce10;
  if (reference) {
    for (OutputMessage& m : out) m.ensureMetadata = true;
  }

  double tokenCount = result.budget->tokenCount;
  bool pending = false;
  for (std::size_t i : candidates) {
    if (tokenCount <= budget) break;
    OutputMessage& m = out[i];
    const Message& source = messages[m.source];
    TokenCount before = countTokens(countedOutput(messages, m), options);

    const std::u16string_view full = contentOf(m);
    U16 tag = u"[truncated \u2014 ";
    js::appendDecimal(tag, full.size());
    tag += u" chars: ";
    tag.append(full, 0, kTruncationPrefix);
    tag += u"]";
    // Safe mode (issue 18): a truncation never makes a message longer, by length or by the
    // counter (a 521-character message would become 540 characters of marker and prefix).
    if (!reference) {
      if (tag.size() >= full.size()) continue;
      OutputMessage trial = m;
      trial.content = tag;
      if (!trial.provenance) trial.provenance = ownProvenance(messages, options, m.source);
      TokenCount trialCount = countTokens(countedOutput(messages, trial), options);
      if (before.pending || trialCount.pending) {
        pending = true;
      } else if (trialCount.value >= before.value) {
        continue;
      }
    }

    // The reference only swaps the content when the message already has a truthy _cce_original —
    // for an input that carried one from an earlier round, its text is then lost. The safe mode
    // keeps every input it truncates in verbatim (linking the earlier round through parent_ids);
    // a summary written by this run needs nothing, its originals are stored already.
    const bool keepsOriginal = reference ? (m.provenance.has_value() || source.hasCceOriginal)
                                         : m.provenance.has_value();
    if (!keepsOriginal) {
      result.verbatim.push_back({source.idKey, m.source, reference});
      m.provenance = ownProvenance(messages, options, m.source);
      if (!reference) {
        --result.compression.messagesPreserved;
        ++result.compression.messagesTruncated;
        if (kinds) (*kinds)[i] = EntryKind::Truncated;
      }
    }
    m.content = std::move(tag);
    TokenCount after = countTokens(countedOutput(messages, m), options);
    if (before.pending || after.pending) pending = true;
    tokenCount -= before.value - after.value;
  }
  if (pending) {
    result.pending = true;
    return;
  }
  result.budget->fits = tokenCount <= budget;
  result.budget->tokenCount = tokenCount;
  // The reference leaves the statistics of the search result in place (spec §9.3).
  if (!reference) computeRatios(messages, options, nullptr, result);
}

}  // namespace cce
