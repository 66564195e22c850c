// SPDX-License-Identifier: MIT
// Creating a compaction event: profiles, range bounds, summary auto-extension and generation.
//
// Everything a compaction depends on is resolved when it is created and stored in the event:
// bounds become absolute turn indices, a summary becomes its text (eager), policies are stored as
// given. The projection then needs nothing but the stored events (see projection.h).
//
// Bounds (`from`, `to`; both inclusive, 0-based turns):
//   5           absolute turn index
//   -3          3 turns before the last turn (RFD 064: "..-3" keeps the last 3 turns)
//   "last"      from: the turn after the most recent compaction's range, or 0 when there is none
//               (so repeated compactions continue where the last one stopped; RFD 064 says "the
//               turn of the most recent compaction event", which would skip its kept turns);
//               to: the most recent compaction's toTurn
//   "5h"        durations ("90s", "5m", "5h", "2d", "1w", "1h30m"), cut off at now - duration:
//               from = the first turn that started at or after the cutoff, to = the last turn that
//               started at or before it. "now" is the request's timestamp, else the latest
//               timestamp in the conversation. A turn starts at its own timestamp, else its first
//               event's, else when the turn before it started.
//   {"keepLast": N|"5h"}   (to only) keep the last N turns / the turns of the last 5h
//   {"keepFirst": N|"5h"}  (from only) keep the first N turns / the turns of the first 5h
// A missing `from` is keepFirst (default 0); a missing `to` is keepLast (default: the profile's,
// else 0). An explicit bound overrides the keep option on its side. After resolution `from` is
// clamped to 0 and `to` to the last turn; an empty range is an error.
//
// Profiles (RFD 064 defaults): default = reasoning strip + toolCalls strip, keepLast 3;
// light = reasoning strip, keepLast 5; heavy = summary, keepLast 3. A request without a profile
// and without any policy uses `default`; explicit policies override the profile's (null turns one
// off); a request with policies but no profile uses only those, with keepLast 0. The RFD's rule
// default keep_first = 1 is not adopted (issue 8 defines profiles as policies plus keepLast).
// Per-tool hints are stored in the compaction that uses them (the RFD keeps them in workspace tool
// configuration), so the projection stays a function of the stored events alone.
//
// Summaries: a new summary range that partially overlaps an existing summary (they intersect and
// neither contains the other) is extended to cover it, repeatedly, until no partial overlap
// remains. The summary is then made from the raw events of the extended range (never from a
// projected view): the user summarizer's answer when it is a non-empty string strictly shorter
// than the input (the engine's §10.1 rule), else cce::summarize with the engine's budget rule
// (200 UTF-16 units below 600 units of input, else 400).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "compaction/model.h"
#include "json/value.h"
#include "status.h"
#include "types.h"

namespace cce::compaction {

struct Profile {
  const char16_t* name;
  bool stripReasoning;
  const char16_t* toolCalls;  // nullptr: none
  bool summary;
  long long keepLast;
};

/// The built-in profile called `name`, or nullptr.
const Profile* findProfile(std::u16string_view name);

struct Bound {
  enum class Kind { Index, FromEnd, Last, Duration, KeepLast, KeepFirst };
  Kind kind = Kind::Index;
  long long count = 0;  // Index, FromEnd (negative), KeepLast/KeepFirst as a turn count
  bool isDuration = false;
  double ms = 0;  // Duration, and KeepLast/KeepFirst as a duration
};

/// Reads a bound; `side` is "from" or "to" (keepFirst/keepLast objects belong to one side).
Result<Bound> readBound(const json::Value& value, std::string_view side, const std::string& path);

enum class Setting { Unset, Off, On };

/// The compaction part of a compact/dryRun request (fields in compaction_json.h).
struct CompactRequest {
  std::optional<std::u16string> profile;
  std::optional<Bound> from;
  std::optional<Bound> to;
  std::optional<Bound> keepFirst;
  std::optional<Bound> keepLast;
  std::optional<json::Value> timestamp;  // as given, validated
  Instant at;
  Setting reasoning = Setting::Unset;
  Setting toolCalls = Setting::Unset;
  json::Value toolCallsValue;
  Setting tools = Setting::Unset;
  json::Value toolsValue;
  enum class Summary { Unset, Off, Generate, Given };
  Summary summary = Summary::Unset;
  std::u16string summaryText;
};

Result<CompactRequest> readCompactRequest(const json::Value& request);

/// [fromTurn, toTurn] of a request over `conversation`, before summary extension; nullopt when
/// the bounds leave no turn (a conversation no longer than what the bounds keep): nothing to
/// compact, which is not an error. A turn index past the conversation's end, or an absolute
/// `from` after an absolute `to`, is an error.
Result<std::optional<std::pair<std::size_t, std::size_t>>> resolveRange(
    const Conversation& conversation, const CompactRequest& request, long long defaultKeepLast);

/// Extends [from, to] until it partially overlaps no summary in `compactions`.
std::pair<std::size_t, std::size_t> extendOverSummaries(const std::vector<Compaction>& compactions,
                                                        std::size_t from, std::size_t to);

struct SummaryInput {
  std::u16string text;
  std::size_t budget = 200;
};

/// The raw events of turns [from, to] as summarizer input: one paragraph per event ("User: ...",
/// "Assistant: ...", "Reasoning: ...", "Tool call NAME: ARGS", "Tool result NAME (success|error):
/// ..."), joined with blank lines; system and other events are not summarized.
SummaryInput summaryInput(const Conversation& conversation, std::size_t from, std::size_t to);

/// cce::summarize over the input with its budget ("(nothing to summarize)" for an empty result).
std::u16string deterministicSummary(const SummaryInput& input);

struct CompactOutcome {
  bool empty = false;    // the bounds leave no turn: no compaction (everything else unset)
  bool pending = false;  // the summarizer answered Pending: `pendingSummary` is the request
  SummaryInput pendingSummary;
  json::Value compaction;  // the event to append to conversation.compactions
  Compaction parsed;
  std::size_t requestedFrom = 0;
  std::size_t requestedTo = 0;
  bool extended = false;
};

/// Builds the compaction event `request` asks for over `conversation` (nothing is modified).
/// `summarizer` may be empty (deterministic summaries only).
Result<CompactOutcome> createCompaction(const Conversation& conversation,
                                        const CompactRequest& request,
                                        const SummarizeFn& summarizer);

}  // namespace cce::compaction
