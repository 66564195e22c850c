// SPDX-License-Identifier: MIT
// Spec §2: one run at a fixed recency window. Only composition here; each rule lives in its stage.
#include "pipeline.h"

#include <algorithm>
#include <cmath>

#include "classifier.h"
#include "code_split.h"
#include "dedup.h"
#include "entities.h"
#include "pipeline_memo.h"
#include "provenance.h"
#include "summarizer.h"
#include "token_estimate.h"
#include "tool_output.h"

namespace cce {

namespace {

using View = std::u16string_view;

// Index comparisons against `max(0, n - rw)`: with a fractional window the first index at or past
// the start is its ceiling.
std::size_t firstIndexAtOrAfter(double start) {
  return start <= 0 ? 0 : static_cast<std::size_t>(std::ceil(start));
}

// Summaries for one request: the host's summarizer when there is one (spec §10.1), else the
// deterministic one. `pending` is raised when the host has no answer yet.
U16 summarizeRequest(View text, std::size_t budget, const CompressOptions& options,
                     bool& pending) {
  if (options.summarizer) {
    SummaryAnswer answer = options.summarizer(U16(text));
    if (answer.kind == SummaryAnswer::Kind::Pending) {
      pending = true;
    } else if (answer.kind == SummaryAnswer::Kind::Accepted && !answer.text.empty() &&
               answer.text.size() < text.size()) {
      return answer.text;
    }
  }
  return summarize(text, budget, summarizeRules(options));
}

// The reference merges consecutive tool results and keeps only the first tool_call_id, orphaning
// the other calls (spec §14); the safe mode summarises each answer to a tool call on its own.
bool mergeable(const Message& m, const CompressOptions& options) {
  if (options.compat == Compat::Cce10) return true;
  // A message with content parts keeps its own parts: merging would have to drop or move them.
  return !m.hasToolCallId && !(m.role.isString() && m.role.text == u"tool") && !m.multimodal;
}

std::vector<U16> parentIdsOf(const std::vector<Message>& messages, std::size_t begin,
                             std::size_t end) {
  std::vector<U16> parents;
  for (std::size_t i = begin; i < end; ++i) {
    if (messages[i].cceSummaryId) parents.push_back(*messages[i].cceSummaryId);
  }
  return parents;
}

std::vector<const Scalar*> idsOf(const std::vector<Message>& messages, std::size_t begin,
                                 std::size_t end) {
  std::vector<const Scalar*> ids;
  ids.reserve(end - begin);
  for (std::size_t i = begin; i < end; ++i) ids.push_back(&messages[i].id);
  return ids;
}

Provenance provenanceFor(const std::vector<Message>& messages, std::size_t begin, std::size_t end,
                         const U16& summaryId, double version) {
  Provenance p;
  for (std::size_t i = begin; i < end; ++i) p.sources.push_back(i);
  p.summaryId = summaryId;
  p.parentIds = parentIdsOf(messages, begin, end);
  p.version = version;
  return p;
}

// Spec §2.3 for the group [begin, end).
GroupOutcome summarizeGroup(const std::vector<Message>& messages, std::size_t begin,
                            std::size_t end, const CompressOptions& options, bool& pending) {
  std::size_t sourceLength = 0, joined = end - begin - 1;
  for (std::size_t i = begin; i < end; ++i) {
    sourceLength += messages[i].length();
    joined += messages[i].content.size();
  }
  // A group of one message reads its content where it is; only a merged group joins a copy.
  U16 merged;
  View all = messages[begin].content;
  if (end - begin > 1) {
    merged.reserve(joined);  // one allocation, no copies as it grows
    for (std::size_t i = begin; i < end; ++i) {
      if (i > begin) merged.push_back(u' ');
      merged += messages[i].content;
    }
    all = merged;
  }
  const std::size_t budget = all.size() < 600 ? 200 : 400;
  // Structured tool output never goes to the host's summarizer (spec §6.2).
  U16 text = isStructuredOutput(all) ? summarizeStructured(all, budget)
                                     : summarizeRequest(all, budget, options, pending);

  GroupOutcome outcome;
  outcome.summaryId = makeSummaryId(idsOf(messages, begin, end));
  const U16* embedded = options.embedSummaryId ? &outcome.summaryId : nullptr;
  const std::size_t count = end - begin;
  // The size guard (§2.3): the summary with its entities if it is shorter than the sources, else
  // without them; reverted if even that is not shorter. Both lengths are known before a summary is
  // built, so it is built once, and the entities are not looked for when they cannot be kept.
#ifdef CCE_NO_SIZED_SUMMARIES
  // (The size-built module builds the summary to measure it, wasm/CMakeLists.txt.)
  outcome.content = formatSummary(text, count, extractEntities(all), embedded);
  if (outcome.content.size() >= sourceLength) {
    outcome.content = formatSummary(text, count, {}, embedded);
    if (outcome.content.size() >= sourceLength) outcome.reverted = true;
  }
#else
  std::vector<U16> entities;
  if (formatSummaryLength(text.size(), count, entities, embedded) < sourceLength) {
    entities = extractEntities(all);
    if (formatSummaryLength(text.size(), count, entities, embedded) >= sourceLength) {
      entities.clear();
    }
  }
  outcome.content = formatSummary(text, count, entities, embedded);
  outcome.reverted = outcome.content.size() >= sourceLength;
#endif
  return outcome;
}

// Spec §4.2 for message i.
GroupOutcome summarizeCodeSplit(const std::vector<Message>& messages, std::size_t i,
                                const CompressOptions& options, bool& pending) {
  const Message& m = messages[i];
  CodeSplit split = splitCodeAndProse(m.content);
  const std::size_t budget = split.prose.size() < 600 ? 200 : 400;
  U16 text = summarizeRequest(split.prose, budget, options, pending);

  GroupOutcome outcome;
  outcome.summaryId = makeSummaryId({&m.id});
  outcome.content =
      formatSummary(text, 0, {}, options.embedSummaryId ? &outcome.summaryId : nullptr);
  outcome.content += u"\n\n";
  for (std::size_t f = 0; f < split.fences.size(); ++f) {
    if (f > 0) outcome.content += u"\n\n";
    outcome.content += split.fences[f];
  }
  outcome.reverted = outcome.content.size() >= m.content.size();
  return outcome;
}

// The outcome of summarising messages [begin, end): a code-split message (end = begin + 1) or a
// group. Deterministic outcomes do not depend on the recency window, so a budget search may reuse
// them; a host summarizer must be asked again on every run, as the reference does.
const GroupOutcome& summarized(const std::vector<Message>& messages, std::size_t begin,
                               std::size_t end, bool codeSplit, const CompressOptions& options,
                               PipelineMemo* memo, GroupOutcome& scratch, bool& pending) {
  auto compute = [&] {
    return codeSplit ? summarizeCodeSplit(messages, begin, options, pending)
                     : summarizeGroup(messages, begin, end, options, pending);
  };
  if (!memo || options.summarizer) {
    scratch = compute();
    return scratch;
  }
  auto key = std::make_pair(begin, end);
  auto it = memo->groups.find(key);
  if (it == memo->groups.end()) {
    GroupOutcome outcome = compute();
#ifndef CCE_NO_REMEMBERED_ESTIMATES
    // Every run of a budget search counts this summary's tokens: estimated once here.
    if (!outcome.reverted && !options.tokenCounter &&
        tokenEstimateOf(options) == TokenEstimate::Script) {
      outcome.scriptTokens = estimateTokens(outcome.content);
    }
#endif
    it = memo->groups.emplace(key, std::move(outcome)).first;
  }
  return it->second;
}

// A memoised summary's estimate goes with its text into the run's output.
void rememberEstimate(OutputMessage& out, const GroupOutcome& outcome) {
#ifdef CCE_NO_REMEMBERED_ESTIMATES
  (void)out;
  (void)outcome;
#else
  out.content.scriptTokens() = outcome.scriptTokens;
#endif
}

}  // namespace

SummarizeRules summarizeRules(const CompressOptions& options) {
  SummarizeRules rules;
  // The reference splits sentences at every `.`, cutting `retryConfig.maxAttempts`, `client.ts`
  // or `v1.2.3` apart (issue 6 item 3); the safe mode keeps them whole.
  rules.keepIdentifiersWhole = options.compat == Compat::Safe;
  // Hashes, UUIDs and hex dumps are what a summary cannot paraphrase (issue 18 item 4).
  rules.keepHighEntropy = options.compat == Compat::Safe;
  return rules;
}

CountedMessage countedOutput(const std::vector<Message>& messages, const OutputMessage& out) {
  CountedMessage counted;
  counted.source = &messages[out.source];
  counted.sourceIndex = out.source;
  counted.content = out.content ? &*out.content : nullptr;
#ifndef CCE_NO_REMEMBERED_ESTIMATES
  counted.contentScriptTokens = out.content ? &out.content.scriptTokens() : nullptr;
#endif
  counted.hasNewOriginal = out.provenance.has_value();
  counted.provenance = out.provenance ? &*out.provenance : nullptr;
  counted.ensureMetadata = out.ensureMetadata;
  return counted;
}

TokenEstimate tokenEstimateOf(const CompressOptions& options) {
  if (options.tokenEstimate) return *options.tokenEstimate;
  return options.compat == Compat::Safe ? TokenEstimate::Script : TokenEstimate::Chars;
}

double estimateTextTokens(std::u16string_view text, const CompressOptions& options) {
  return tokenEstimateOf(options) == TokenEstimate::Script ? estimateTokens(text)
                                                           : defaultTokenCount(text.size());
}

std::optional<std::vector<Message>> textViewsOfParts(const std::vector<Message>& messages,
                                                     const CompressOptions& options) {
  if (options.compat != Compat::Safe) return std::nullopt;
  auto isArray = [](const Message& m) { return m.contentKind == Message::ContentKind::Array; };
  if (std::none_of(messages.begin(), messages.end(), isArray)) return std::nullopt;
  std::vector<Message> views = messages;
  for (Message& m : views) {
    if (!isArray(m)) continue;
    m.multimodal = true;
    m.contentIsString = true;
    U16 text;
    bool first = true;
    for (const ContentPart& part : m.parts) {
      if (part.kind != ContentPart::Kind::Text) continue;
      if (!first) text.push_back(u'\n');
      text += part.text;
      first = false;
    }
    m.content = std::move(text);
  }
  return views;
}

double nonTextTokens(const Message& message, const CompressOptions& options) {
  if (!message.multimodal) return 0;
  const bool script = tokenEstimateOf(options) == TokenEstimate::Script;
  double images = 0, others = 0;
  for (const ContentPart& part : message.parts) {
    if (part.kind == ContentPart::Kind::Image) {
      images += part.imageTokens >= 0 ? part.imageTokens : options.imageTokens;
    } else if (part.kind == ContentPart::Kind::Other && !script) {
      others += defaultTokenCount(part.text.size());
    }
  }
  if (script) {
    if (!message.otherPartsScriptTokens) {
      double total = 0;
      for (const ContentPart& part : message.parts) {
        if (part.kind == ContentPart::Kind::Other) total += estimateTokens(part.text);
      }
      message.otherPartsScriptTokens = total;
    }
    others = *message.otherPartsScriptTokens;
  }
  return images + others;
}

bool countsBilledTokens(const CompressOptions& options) {
  // A tokenCounter counts what it counts, and cce-1.0 and "chars" keep the reference's counts.
  return options.compat == Compat::Safe && !options.tokenCounter &&
         tokenEstimateOf(options) == TokenEstimate::Script;
}

double toolCallTokens(std::u16string_view name, std::u16string_view arguments) {
  return kToolCallOverheadTokens + estimateTokens(name) + estimateTokens(arguments);
}

double estimateMessageTokens(const CountedMessage& message, const CompressOptions& options) {
  const Message& source = *message.source;
  // A replaced text goes back into the parts (the first text part), the other parts stay; so do
  // the tool calls, and the message is billed its overhead whatever its content.
  const double parts = nonTextTokens(source, options) +
                       (countsBilledTokens(options)
                            ? kMessageOverheadTokens + source.toolCallTokens : 0);
  if (message.content) {
#ifndef CCE_NO_REMEMBERED_ESTIMATES
    if (message.contentScriptTokens && tokenEstimateOf(options) == TokenEstimate::Script) {
      std::optional<double>& remembered = *message.contentScriptTokens;
      if (!remembered) remembered = estimateTokens(*message.content);
      return *remembered + parts;
    }
#endif
    return estimateTextTokens(*message.content, options) + parts;
  }
  if (tokenEstimateOf(options) == TokenEstimate::Chars) {
    return defaultTokenCount(source.length()) + parts;
  }
  if (!source.scriptTokens) {
    source.scriptTokens = source.contentIsString ? estimateTokens(source.content) : 0;
  }
  return *source.scriptTokens + parts;
}

TokenCount countTokens(const CountedMessage& message, const CompressOptions& options) {
  if (options.tokenCounter) {
    if (!message.source->multimodal) return options.tokenCounter(message);
    // Text parts by the caller's counter, which sees them as a string content (a counter written
    // for string contents keeps working); images and other parts by the built-in estimate.
    CountedMessage text = message;
    text.textView = true;
    TokenCount count = options.tokenCounter(text);
    count.value += nonTextTokens(*message.source, options);
    return count;
  }
  return TokenCount{estimateMessageTokens(message, options), false};
}

double countOutputTokens(const std::vector<Message>& messages, const CompressResult& result,
                         const CompressOptions& options, bool& pending) {
  double total = 0;
  for (const OutputMessage& out : result.messages) {
    TokenCount c = countTokens(countedOutput(messages, out), options);
    if (c.pending) pending = true;
    total += c.value;
  }
  return total;
}

std::vector<MessageClass> classifyMessages(const std::vector<Message>& messages,
                                           const CompressOptions& options, double recencyWindow,
                                           const DedupAnnotations& annotations,
                                           PipelineMemo* memo) {
  const std::size_t n = messages.size();
  const double rw = recencyWindow;
  const std::size_t recentFrom = firstIndexAtOrAfter(static_cast<double>(n) - rw);
  std::vector<MessageClass> classes(n, MessageClass::Preserved);
  for (std::size_t i = 0; i < n; ++i) {
    const Message& m = messages[i];
    if (isPreservedRole(m.role, options.preserve)) continue;
    if (rw > 0 && i >= recentFrom) continue;
    if (m.hasToolCalls) continue;
    if (m.length() < 120) continue;
    if (startsWithCompressionMarker(m.content)) continue;
    if (annotations[i]) {
      classes[i] = MessageClass::Dedup;
      continue;
    }
    classes[i] = memo ? memo->contentClass(i, m.content) : classifyContent(m.content);
  }
  return classes;
}

MessageClass classifyContent(View content) {
  // Rules 7-10 of §2.1: they depend on the content alone. A fence decides before hard reasons,
  // but one pass answers both.
  if (content.empty()) return MessageClass::Compressible;
  const FenceAndHardReason scan = scanFenceOrHardReason(content);
  if (scan.tripleBacktick) {
#ifdef CCE_NO_PROSE_LENGTH_WALK
    // (The size-built module splits the message to measure its prose: wasm/CMakeLists.txt.)
    const std::size_t proseLength = splitCodeAndProse(content).proseLength;
#else
    const std::size_t proseLength = codeSplitProseLength(content);
#endif
    return proseLength >= 80 ? MessageClass::CodeSplit : MessageClass::Preserved;
  }
  if (scan.hardReason) return MessageClass::Preserved;
  if (isValidJson(content)) return MessageClass::Preserved;
  return MessageClass::Compressible;
}

DedupAnnotations analyzeAllDuplicates(const std::vector<Message>& messages,
                                      const CompressOptions& options, double recencyWindow,
                                      PipelineMemo* memo) {
  const std::size_t n = messages.size();
  const double window = recencyWindow > 0 ? recencyWindow : 0;
  const std::size_t dedupStart = firstIndexAtOrAfter(static_cast<double>(n) - window);
  DedupAnnotations annotations(n);
  if (options.dedup) {
    annotations = memo ? annotateExactDuplicates(messages, memo->exactGroups(messages, options),
                                                 dedupStart)
                       : analyzeDuplicates(messages, dedupStart, options.preserve);
  }
  if (options.fuzzyDedup) {
    // Compat mode compares every candidate pair as the reference does (spec §8.2); the default
    // mode bounds the pairs each message meets, so n near-duplicates cost linear time.
    analyzeFuzzyDuplicates(messages, dedupStart, options.preserve, options.fuzzyThreshold,
                           annotations,
                           options.compat == Compat::Cce10 ? kAllFuzzyCandidates
                                                           : kFuzzyCandidatesPerLine);
  }
  // A message with content parts is never replaced by a reference (its non-text parts would be
  // lost), nor the target of one (the reference would point at text mixed with images).
  for (std::size_t i = 0; i < n; ++i) {
    if (annotations[i] &&
        (messages[i].multimodal || messages[annotations[i]->duplicateOfIndex].multimodal)) {
      annotations[i].reset();
    }
  }
  return annotations;
}

std::vector<MessageClass> classifyMessages(const std::vector<Message>& messages,
                                           const CompressOptions& options, double recencyWindow) {
  DedupAnnotations annotations = analyzeAllDuplicates(messages, options, recencyWindow, nullptr);
  return classifyMessages(messages, options, recencyWindow, annotations, nullptr);
}

CompressResult runPipeline(const std::vector<Message>& messages, const CompressOptions& options,
                           double recencyWindow) {
  return runPipeline(messages, options, recencyWindow, nullptr);
}

CompressResult runPipeline(const std::vector<Message>& messages, const CompressOptions& options,
                           double recencyWindow, PipelineMemo* memo) {
  CompressResult result;
  CompressionStats& stats = result.compression;
  stats.originalVersion = options.sourceVersion;
  const std::size_t n = messages.size();
  if (n == 0) return result;

  DedupAnnotations annotations = analyzeAllDuplicates(messages, options, recencyWindow, memo);
  std::vector<MessageClass> classes =
      classifyMessages(messages, options, recencyWindow, annotations, memo);

  bool pending = false;
  result.messages.reserve(n);
  auto keep = [&](std::size_t i) {
    OutputMessage out;
    out.source = i;
    result.messages.push_back(std::move(out));
    ++stats.messagesPreserved;
  };
  auto replace = [&](std::size_t begin, std::size_t end, U16 content, const U16& summaryId) {
    OutputMessage out;
    out.source = begin;
    out.content = std::move(content);
    out.provenance = provenanceFor(messages, begin, end, summaryId, options.sourceVersion);
    result.messages.push_back(std::move(out));
    for (std::size_t i = begin; i < end; ++i) result.verbatim.push_back({messages[i].idKey, i});
  };

  GroupOutcome scratch;
  std::size_t i = 0;
  while (i < n) {
    const Message& m = messages[i];
    switch (classes[i]) {
      case MessageClass::Preserved:
        keep(i);
        ++i;
        break;
      case MessageClass::Dedup: {
        const DedupAnnotation& a = *annotations[i];
        U16 ref = formatDuplicateRef(a, messages[a.duplicateOfIndex].idKey);
        replace(i, i + 1, std::move(ref), makeSummaryId({&m.id}));
        if (a.similarity) {
          ++stats.messagesFuzzyDeduped;
        } else {
          ++stats.messagesDeduped;
        }
        ++i;
        break;
      }
      case MessageClass::CodeSplit: {
        const GroupOutcome& outcome =
            summarized(messages, i, i + 1, true, options, memo, scratch, pending);
        if (outcome.reverted) {
          keep(i);
        } else {
          replace(i, i + 1, outcome.content, outcome.summaryId);
          rememberEstimate(result.messages.back(), outcome);
          ++stats.messagesCompressed;
        }
        ++i;
        break;
      }
      case MessageClass::Compressible: {
        std::size_t end = i + 1;
        while (end < n && classes[end] == MessageClass::Compressible &&
               messages[end].role.strictEquals(m.role) && mergeable(m, options) &&
               mergeable(messages[end], options)) {
          ++end;
        }
        // Code-split outcomes are keyed (i, i+1) too, but a message is either code-split or
        // compressible for every window, so the keys never collide.
        const GroupOutcome& outcome =
            summarized(messages, i, end, false, options, memo, scratch, pending);
        if (outcome.reverted) {
          for (std::size_t k = i; k < end; ++k) keep(k);
        } else {
          replace(i, end, outcome.content, outcome.summaryId);
          rememberEstimate(result.messages.back(), outcome);
          stats.messagesCompressed += end - i;
        }
        i = end;
        break;
      }
    }
  }

  if (pending) {
    result.pending = true;
    return result;
  }

  computeRatios(messages, options, memo, result, &annotations);
  return result;
}

#ifndef CCE_NO_REMEMBERED_ESTIMATES
namespace {

// An exact duplicate holds its kept message's content, so it has its script estimate too: dedup
// has already found them (the scale session repeats 165 contents, 0.78 M of its 5.5 M units).
// Hashing every content again to find them was tried and cost what it saved (docs/speed.md).
void shareEstimatesOfExactDuplicates(const std::vector<Message>& messages,
                                     const DedupAnnotations& duplicates) {
  for (std::size_t i = 0; i < messages.size() && i < duplicates.size(); ++i) {
    const std::optional<DedupAnnotation>& a = duplicates[i];
    const Message& m = messages[i];
    if (!a || a->similarity || m.scriptTokens || !m.contentIsString) continue;
    const Message& kept = messages[a->duplicateOfIndex];
    if (!kept.contentIsString) continue;
    if (!kept.scriptTokens) kept.scriptTokens = estimateTokens(kept.content);
    m.scriptTokens = kept.scriptTokens;
  }
}

}  // namespace
#endif

void computeRatios(const std::vector<Message>& messages, const CompressOptions& options,
                   PipelineMemo* memo, CompressResult& result,
                   const DedupAnnotations* duplicates) {
  CompressionStats& stats = result.compression;
  // Spec §1.5: the reference reports 1 unless something was summarised or exactly deduplicated,
  // even when fuzzy dedup shortened the output; the safe mode reports what happened.
  std::size_t changed = stats.messagesCompressed + stats.messagesDeduped;
  if (options.compat == Compat::Safe) {
    changed += stats.messagesFuzzyDeduped + stats.messagesTruncated + stats.messagesOmitted;
  }
  if (changed == 0) {
    stats.ratio = stats.tokenRatio = 1;
    return;
  }
  double inputChars = 0, outputChars = 0;
  for (const Message& message : messages) inputChars += static_cast<double>(message.length());
  for (const OutputMessage& out : result.messages) {
    outputChars += static_cast<double>(out.content ? out.content->size()
                                                   : messages[out.source].length());
  }
#ifdef CCE_NO_REMEMBERED_ESTIMATES
  (void)duplicates;  // the size build reads every message
#else
  if (duplicates && !options.tokenCounter && tokenEstimateOf(options) == TokenEstimate::Script) {
    shareEstimatesOfExactDuplicates(messages, *duplicates);
  }
#endif
  bool pending = false;
  double inputTokens = memo ? memo->inputTokens(messages, options, pending)
                            : countInputTokens(messages, options, pending);
  double outputTokens = countOutputTokens(messages, result, options, pending);
  if (pending) {
    result.pending = true;
    return;
  }
  stats.ratio = outputChars > 0 ? inputChars / outputChars : 1;
  stats.tokenRatio = outputTokens > 0 ? inputTokens / outputTokens : 1;
}

double countInputTokens(const std::vector<Message>& messages, const CompressOptions& options,
                        bool& pending) {
  double total = 0;
  for (std::size_t i = 0; i < messages.size(); ++i) {
    CountedMessage counted;
    counted.source = &messages[i];
    counted.sourceIndex = i;
    TokenCount c = countTokens(counted, options);
    if (c.pending) pending = true;
    total += c.value;
  }
  return total;
}

}  // namespace cce
