// SPDX-License-Identifier: MIT
// Safe mode (issue 18, item 3): spend the room a fitting budget result leaves on the newest content.
#include "spend.h"

#include "clearing.h"
#include "pipeline.h"

namespace cce {

namespace {

// The statistics of an entry of this kind standing for one message, taken back to its original.
void forget(EntryKind kind, CompressionStats& stats) {
  if (kind == EntryKind::Preserved) return;
  uncount(kind, 1, stats);
  ++stats.messagesPreserved;
}

// Puts entry k back to its source message and forgets its verbatim entry later (`restored`).
void restore(CompressResult& result, std::vector<EntryKind>& kinds, std::size_t k,
             std::vector<char>& restored) {
  OutputMessage& out = result.messages[k];
  forget(kinds[k], result.compression);
  kinds[k] = EntryKind::Preserved;
  restored[out.source] = true;
  out.content.reset();
  out.provenance.reset();
}

void dropRestored(CompressResult& result, const std::vector<char>& restored) {
  std::vector<VerbatimEntry> kept;
  kept.reserve(result.verbatim.size());
  for (VerbatimEntry& entry : result.verbatim) {
    if (!restored[entry.source]) kept.push_back(std::move(entry));
  }
  result.verbatim = std::move(kept);
}

// An entry that stands for its own source message alone, replaced.
bool replacedAlone(const OutputMessage& out, EntryKind kind) {
  return out.content && out.provenance && kind != EntryKind::Preserved &&
         out.provenance->sources.size() == 1 && out.provenance->sources.front() == out.source;
}

// Partial restores try at most this many cuts (each may need a host count round trip).
constexpr int kCutTries = 3;
// Contents shorter than this are restored whole or not at all.
constexpr std::size_t kCutAbove = 600;

// Fills the room left with the head and tail of the newest message that is still replaced on its
// own: the largest cut of its original (headAndTail) that fits. Returns the tokens added.
double spendOnCut(const std::vector<Message>& messages, const CompressOptions& options,
                  CompressResult& result, std::vector<EntryKind>& kinds, double total,
                  bool& pending) {
  const double budget = *options.tokenBudget;
  for (std::size_t k = result.messages.size(); k-- > 0;) {
    OutputMessage& out = result.messages[k];
    if (!replacedAlone(out, kinds[k])) continue;
    // forceConverge's truncation already shows the head of its original (and its marker is
    // pinned by the reference's format); summaries, stubs, cleared notes and cuts show less.
    if (out.content->compare(0, 11, u"[truncated ") == 0) return 0;
    const Message& source = messages[out.source];
    if (!source.contentIsString || source.multimodal || source.content.size() <= kCutAbove) {
      return 0;  // the newest such message cannot be cut: nothing older is newer content
    }
    const TokenCount now = countTokens(countedOutput(messages, out), options);
    CountedMessage original;
    original.source = &source;
    original.sourceIndex = out.source;
    const TokenCount whole = countTokens(original, options);
    if (now.pending || whole.pending) {
      pending = true;
      return 0;
    }
    if (whole.value <= 0) return 0;
    double share = (now.value + budget - total) / whole.value;
    for (int attempt = 0; attempt < kCutTries && share > 0; ++attempt, share *= 0.9) {
      const std::size_t length = source.content.size();
      const std::size_t scaled = static_cast<std::size_t>(static_cast<double>(length) * share);
      const std::size_t note = cutNoteLength(length);
      if (scaled <= note + 100) return 0;
      OutputMessage trial = out;
      trial.content = headAndTail(source.content, scaled - note);
      if (trial.content->size() >= length) continue;  // whole: it did not fit
      const TokenCount cut = countTokens(countedOutput(messages, trial), options);
      if (cut.pending) {
        pending = true;
        return 0;
      }
      if (cut.value <= now.value) return 0;  // no more of the original than what is there
      if (total - now.value + cut.value > budget) continue;
      forget(kinds[k], result.compression);
      --result.compression.messagesPreserved;
      ++result.compression.messagesTruncated;
      kinds[k] = EntryKind::Truncated;
      out.content = std::move(trial.content);
      return cut.value - now.value;
    }
    return 0;
  }
  return 0;
}

}  // namespace

void revertCostlier(const std::vector<Message>& messages, const CompressOptions& options,
                    CompressResult& result, std::vector<EntryKind>& kinds) {
  if (kinds.size() != result.messages.size()) return;
  const double budget = *options.tokenBudget;
  std::vector<char> restored(messages.size(), false);
  std::vector<char> unmerge(result.messages.size(), false);
  bool any = false;
  bool merged = false;
  for (std::size_t k = 0; k < result.messages.size(); ++k) {
    const OutputMessage& out = result.messages[k];
    const bool alone = replacedAlone(out, kinds[k]);
    // A summary of several messages (the pipeline's size guard compares lengths) that the counter
    // prices above its messages together goes back to them.
    const bool several = !alone && kinds[k] == EntryKind::Compressed && out.content &&
                         out.provenance && out.provenance->sources.size() > 1;
    if (!alone && !several) continue;
    const TokenCount now = countTokens(countedOutput(messages, out), options);
    double whole = 0;
    bool pending = now.pending;
    for (std::size_t i : alone ? std::vector<std::size_t>{out.source} : out.provenance->sources) {
      CountedMessage original;
      original.source = &messages[i];
      original.sourceIndex = i;
      const TokenCount count = countTokens(original, options);
      pending = pending || count.pending;
      whole += count.value;
    }
    if (pending) {
      result.pending = true;
      return;
    }
    if (whole >= now.value) continue;  // (a revert only ever lowers the total)
    any = true;
    if (alone) {
      restore(result, kinds, k, restored);
      continue;
    }
    unmerge[k] = true;
    merged = true;
  }
  if (!any) return;
  if (merged) {
    std::vector<OutputMessage> out;
    std::vector<EntryKind> outKinds;
    for (std::size_t k = 0; k < result.messages.size(); ++k) {
      if (!unmerge[k]) {
        out.push_back(std::move(result.messages[k]));
        outKinds.push_back(kinds[k]);
        continue;
      }
      for (std::size_t i : result.messages[k].provenance->sources) {
        OutputMessage original;
        original.source = i;
        out.push_back(std::move(original));
        outKinds.push_back(EntryKind::Preserved);
        restored[i] = true;
        --result.compression.messagesCompressed;
        ++result.compression.messagesPreserved;
      }
    }
    result.messages = std::move(out);
    kinds = std::move(outKinds);
  }
  dropRestored(result, restored);
  bool pending = false;
  result.budget->tokenCount = countOutputTokens(messages, result, options, pending);
  if (pending) {
    result.pending = true;
    return;
  }
  result.budget->fits = result.budget->tokenCount <= budget;
  computeRatios(messages, options, nullptr, result);
}

void spendRoom(const std::vector<Message>& messages, const CompressOptions& options,
               CompressResult& result, std::vector<EntryKind>& kinds) {
  const double budget = *options.tokenBudget;
  double total = result.budget->tokenCount;
  if (total >= budget || kinds.size() != result.messages.size()) return;
  std::vector<char> restored(messages.size(), false);
  bool any = false;
  for (std::size_t k = result.messages.size(); k-- > 0 && total < budget;) {
    const OutputMessage& out = result.messages[k];
    if (!replacedAlone(out, kinds[k])) continue;
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
    restore(result, kinds, k, restored);
    any = true;
  }
  bool pending = false;
  if (total < budget) {
    const double added = spendOnCut(messages, options, result, kinds, total, pending);
    if (pending) {
      result.pending = true;
      return;
    }
    if (added > 0) {
      total += added;
      any = true;
    }
  }
  if (!any) return;
  dropRestored(result, restored);
  result.budget->tokenCount = countOutputTokens(messages, result, options, pending);
  if (pending) {
    result.pending = true;
    return;
  }
  result.budget->fits = result.budget->tokenCount <= budget;
  computeRatios(messages, options, nullptr, result);
}

}  // namespace cce
