// SPDX-License-Identifier: MIT
// Spec §2: one compression run at a fixed recency window. Composes the stages; no stage logic here.
//
// classify (§2.1) -> dedup annotations (§8) -> emission loop (§2.2): preserved messages pass through,
// dedup replacements, code-split (§4.2), and same-role runs of compressible messages summarised as
// one group (§2.3) with the size guard. Stats follow §1.5.
#pragma once

#include <vector>

#include "dedup.h"
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
MessageClass classifyContent(const U16& content);

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
/// counts fuzzy dedups, truncations and omissions as changes).
void computeRatios(const std::vector<Message>& messages, const CompressOptions& options,
                   PipelineMemo* memo, CompressResult& result);

/// The token counter's view of one output message.
CountedMessage countedOutput(const std::vector<Message>& messages, const OutputMessage& out);

/// The counter applied to one (possibly rebuilt) message.
TokenCount countTokens(const CountedMessage& message, const CompressOptions& options);

/// Σ counter(input message), left to right.
double countInputTokens(const std::vector<Message>& messages, const CompressOptions& options,
                        bool& pending);

/// Σ counter(output message) in array order (spec §9.2 `tokens`).
double countOutputTokens(const std::vector<Message>& messages, const CompressResult& result,
                         const CompressOptions& options, bool& pending);

}  // namespace cce
