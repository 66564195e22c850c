// SPDX-License-Identifier: MIT
// Spec §2: one compression run at a fixed recency window. Composes the stages; no stage logic here.
//
// classify (§2.1) -> dedup annotations (§8) -> emission loop (§2.2): preserved messages pass through,
// dedup replacements, code-split (§4.2), and same-role runs of compressible messages summarised as
// one group (§2.3) with the size guard. Stats follow §1.5.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "dedup.h"
#include "summarizer.h"
#include "types.h"

namespace cce {

struct PipelineMemo;

/// Why a message is emitted the way it is (spec §2.1); exposed for tests and the demo.
enum class MessageClass { Preserved, Dedup, CodeSplit, Compressible };

/// Classification of every message at recency window `recencyWindow` (dedup annotations included).
std::vector<MessageClass> classifyMessages(const std::vector<Message>& messages,
                                           const CompressOptions& options, double recencyWindow);
std::vector<MessageClass> classifyMessages(const std::vector<Message>& messages,
                                           const CompressOptions& options, double recencyWindow,
                                           const DedupAnnotations& annotations,
                                           PipelineMemo* memo);

/// Rules 7-10 of §2.1 (code-split, hard reasons, JSON), which depend on the content alone.
MessageClass classifyContent(std::u16string_view content);

/// Exact and (when enabled) fuzzy annotations at this recency window (spec §2 steps 2-4). With a
/// memo, exact duplicate groups are found once per message list.
DedupAnnotations analyzeAllDuplicates(const std::vector<Message>& messages,
                                      const CompressOptions& options, double recencyWindow,
                                      PipelineMemo* memo);

/// One run of the core pipeline with `recencyWindow` overriding options.recencyWindow.
/// Summaries come from options.summarizer when set (async mode), else the deterministic summariser.
/// Token statistics use options.tokenCounter (or the default counter). `memo` (optional) shares
/// window-independent work between runs over the same messages and options.
CompressResult runPipeline(const std::vector<Message>& messages, const CompressOptions& options,
                           double recencyWindow);
CompressResult runPipeline(const std::vector<Message>& messages, const CompressOptions& options,
                           double recencyWindow, PipelineMemo* memo);

/// Fills compression.ratio / token_ratio from the result's messages (spec §1.5; the safe mode also
/// counts fuzzy dedups, truncations and omissions as changes). `duplicates` (optional): the run's
/// dedup annotations, whose exact duplicates share their kept message's script estimate.
void computeRatios(const std::vector<Message>& messages, const CompressOptions& options,
                   PipelineMemo* memo, CompressResult& result,
                   const DedupAnnotations* duplicates = nullptr);

/// The deterministic summariser's rules in this mode (the reference's under compat).
SummarizeRules summarizeRules(const CompressOptions& options);

/// The token counter's view of one output message.
CountedMessage countedOutput(const std::vector<Message>& messages, const OutputMessage& out);

/// The estimate used without a tokenCounter: options.tokenEstimate, else Script in the safe mode
/// and Chars (the reference's ceil(len / 3.5)) in compat mode.
TokenEstimate tokenEstimateOf(const CompressOptions& options);

/// That estimate of a text. Every built-in count (budget decisions, stats, the escalation ladder's
/// sizing) goes through it.
double estimateTextTokens(std::u16string_view text, const CompressOptions& options);

/// Safe mode (issue 6 item 5): when some message has an array `content`, a copy of the views in
/// which each such message is `multimodal`, with its text parts joined by "\n" as its (string)
/// content; nullopt when there is none or in compat mode (where array content counts as "").
/// compress() runs on that copy: such messages are classified and summarised by their text, never
/// merged or deduplicated, and a replaced text goes back into their first text part.
std::optional<std::vector<Message>> textViewsOfParts(const std::vector<Message>& messages,
                                                     const CompressOptions& options);

/// The built-in estimate of a multimodal message's non-text parts: per image its pixel-size price
/// when the host read one (ContentPart::imageTokens), else options.imageTokens; the text estimate of JSON.stringify(part) for every other part. 0 for other messages.
double nonTextTokens(const Message& message, const CompressOptions& options);

/// Tokens a provider bills per message beyond its text (role and separators: OpenAI documents 3,
/// plus one for the name or id fields most messages carry), and per tool call beyond the estimates
/// of its name and arguments. js/src/token-counter.ts holds the same constants.
constexpr double kMessageOverheadTokens = 4;
constexpr double kToolCallOverheadTokens = 3;

/// Whether the built-in count is the billing estimate: the default mode's script estimate with no
/// tokenCounter. Then a message also costs messageOverheadTokens.
bool countsBilledTokens(const CompressOptions& options);

/// The billing estimate of one tool call from its `function.name` and `function.arguments` texts
/// (docs/token-counts.md says which texts): kToolCallOverheadTokens plus their script estimates.
/// The request readers sum it into Message::toolCallTokens.
double toolCallTokens(std::u16string_view name, std::u16string_view arguments);

/// That estimate of one (possibly rebuilt) message, whatever options.tokenCounter is (plus
/// nonTextTokens of its source, and when countsBilledTokens kMessageOverheadTokens and the
/// source's toolCallTokens: a rebuilt message keeps its source's tool calls). An unchanged
/// message's script estimate is computed once (Message::scriptTokens), so repeated counts of the
/// same input, as in a budget search, stay cheap.
double estimateMessageTokens(const CountedMessage& message, const CompressOptions& options);

/// The counter applied to one (possibly rebuilt) message: options.tokenCounter, else
/// estimateMessageTokens.
TokenCount countTokens(const CountedMessage& message, const CompressOptions& options);

/// Σ counter(input message), left to right.
double countInputTokens(const std::vector<Message>& messages, const CompressOptions& options,
                        bool& pending);

/// Σ counter(output message) in array order (spec §9.2 `tokens`).
double countOutputTokens(const std::vector<Message>& messages, const CompressResult& result,
                         const CompressOptions& options, bool& pending);

}  // namespace cce
