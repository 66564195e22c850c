// SPDX-License-Identifier: MIT
// Safe mode (issue 18, item 3): spend the room a fitting budget result leaves on the newest content.
#include "spend.h"

#include "pipeline.h"

namespace cce {

namespace {

// The statistics of an entry of this kind standing for one message, taken back.
void forget(EntryKind kind, CompressionStats& stats) {
  switch (kind) {
    case EntryKind::Preserved:
      return;
    case EntryKind::Compressed:
      --stats.messagesCompressed;
      break;
    case EntryKind::Deduped:
      --stats.messagesDeduped;
      break;
    case EntryKind::FuzzyDeduped:
      --stats.messagesFuzzyDeduped;
      break;
    case EntryKind::Truncated:
      --stats.messagesTruncated;
      break;
    case EntryKind::Omitted:
      --stats.messagesOmitted;
      break;
  }
  ++stats.messagesPreserved;
}

}  // namespace

void spendRoom(const std::vector<Message>& messages, const CompressOptions& options,
               CompressResult& result, std::vector<EntryKind>& kinds) {
  const double budget = *options.tokenBudget;
  double total = result.budget->tokenCount;
  if (total >= budget || kinds.size() != result.messages.size()) return;
  std::vector<char> restored(messages.size(), false);
  bool any = false;
  for (std::size_t k = result.messages.size(); k-- > 0 && total < budget;) {
    OutputMessage& out = result.messages[k];
    if (!out.content || !out.provenance || kinds[k] == EntryKind::Preserved) continue;
    const std::vector<std::size_t>& sources = out.provenance->sources;
    if (sources.size() != 1 || sources.front() != out.source) continue;
    const TokenCount now = countTokens(countedOutput(messages, out), options);
    CountedMessage original;
    original.source = &messages[out.source];
    original.sourceIndex = out.source;
    const TokenCount whole = countTokens(original, options);
    if (now.pending || whole.pending) {
      result.pending = true;
      return;
    }
    if (total - now.value + whole.value > budget) continue;
    total += whole.value - now.value;
    forget(kinds[k], result.compression);
    kinds[k] = EntryKind::Preserved;
    restored[out.source] = true;
    out.content.reset();
    out.provenance.reset();
    any = true;
  }
  if (!any) return;
  std::vector<VerbatimEntry> kept;
  kept.reserve(result.verbatim.size());
  for (VerbatimEntry& entry : result.verbatim) {
    if (!restored[entry.source]) kept.push_back(std::move(entry));
  }
  result.verbatim = std::move(kept);
  bool pending = false;
  result.budget->tokenCount = countOutputTokens(messages, result, options, pending);
  if (pending) {
    result.pending = true;
    return;
  }
  result.budget->fits = result.budget->tokenCount <= budget;
  computeRatios(messages, options, nullptr, result);
}

}  // namespace cce
