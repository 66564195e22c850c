// SPDX-License-Identifier: MIT
// The context manager core: a conversation history, checkpoints over it, and the view to send.
//
// Everything is a pure function of (State, operation input, host answers): no clock, no global
// state. The JSON face (context_json.h) documents the wire format; this header documents the rules.
//
// Budget. system = config.systemPromptTokens when given, else the tokens of the leading system
// messages. available = contextWindow - system - promptBudget - safetyMargin. The conversation is
// everything the view sends after the system prompt (summary messages + raw messages);
// thresholdTokens = floor(threshold * available + 1e-9) and compression is due when the
// conversation's tokens are strictly greater. Example: window 6963, system 500, prompt 1000,
// margin 1000 -> available 4463, 0.75 * 4463 = 3347.25 -> threshold 3347, due from 3348 tokens.
// (The 1e-9 only protects products such as 0.29 * 100 = 28.999999999999996 from losing a token.)
//
// Tokens. Every history message is counted once when added: cce::defaultTokenCount over its string
// content, or the host's counter (config.tokenCounter) through the pending protocol. A summary
// message is counted in a canonical form {"role":"system","content":text}, so its count does not
// depend on the role the view gives it.
//
// Boundaries. sysEnd = number of leading system messages (never compressed). The head is the first
// keepFirst conversation messages, its end moved back to a group start. The kept tail starts at
// n - keepLast moved back to a group start, and never after the start of the last group (it may
// still grow). When even that view would exceed `available`, compress keeps fewer recent groups
// (never the last one). A checkpoint always covers [start, end) with both ends at group starts,
// so no atomic group (tool_groups.h) is ever split.
//
// Levels (by the tokens T of the range summarised):
//   compact   T <  2000   budget = min(T, max(32, min(0.10 T, 0.04 available)))
//   moderate  T <  8000   budget = min(T, max(32, min(0.15 T, 0.07 available)))
//   detailed  T >= 8000   budget = min(T, max(32, min(0.20 T, 0.10 available)))
// The deterministic summary (a stats line naming each tool with its argument names, the artifacts
// line of summary_ledger.h in up to 0.8 of the rest, without the items of the summaries before
// it, then cce::summarize over the range's transcript) never exceeds floor(3.5 * budget)
// UTF-16 units, i.e. `budget` default tokens. A lower level never has a
// larger budget for the same T.
//
// Compress creates one checkpoint over the earliest uncovered range before the cut (normally the
// range since the last checkpoint; a range uncovered by undo first). With summaryInputTokens set,
// the newest groups are trimmed from that range until it fits the summarizer's input, so the
// checkpoint (and covered_until) never claims more than was summarised; the rest stays visible for
// the next compress. Then aging: while more than maxCheckpoints are active, the two oldest adjacent
// ones (never the one just created) are merged into one compact checkpoint with a new id (the
// originals move to the archive); every other checkpoint created ageAfter or more
// compressions ago and above compact is re-summarised one level lower. A new or aged checkpoint is
// summarised from the raw original messages of its range. A merged checkpoint's deterministic
// summary is made from the summaries it merges (mergedSummary below): its stats line counts the
// whole range (RangeStats add up, so they are not re-read from the history) and its body is the
// summariser run over the two bodies. Its cost is bounded by the two summaries, not by the range,
// which for the oldest merged checkpoint is the start of the history: without this rule every
// compress past maxCheckpoints re-read the history. A host summarizer (config.summarizer) is still
// given the raw range of a merge (bounded by summaryInputTokens when set).
//
// View: the system block, then the history in order where each active checkpoint is replaced by
// its own summary message {"id","role","content","metadata":{"covered_until": end,
// "checkpoints":[id]}}, so a compress that adds a checkpoint leaves the older summary messages
// byte-identical (a provider's prompt cache keeps them; docs/cache-cost.md). The first message of
// a run of adjacent summaries keeps user/assistant alternation at the joint: "user" when the
// message after the run is an assistant message and the one before it is not a user message,
// "assistant" between two user-side messages, else "system"; the others are "system" (OpenAI
// accepts it anywhere; Anthropic adapters lift system messages into the system prompt or join
// them with their neighbour). Tool results count as user-side. Raw messages are
// the history's own objects: defects of the source itself (tool results without a call, repeated
// roles) pass through; validation reports only problems the view would add ("structure").
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "context/tool_groups.h"
#include "json/value.h"
#include "status.h"

namespace cce::context {

using U16 = std::u16string;

enum class Level { Compact = 1, Moderate = 2, Detailed = 3 };
const char* levelName(Level level);
std::optional<Level> levelFromName(std::u16string_view name);

constexpr double kModerateFromTokens = 2000;
constexpr double kDetailedFromTokens = 8000;
constexpr double kMinSummaryTokens = 32;

Level levelForInput(double originalTokens);
/// Summary budget in tokens for a range of `originalTokens` at `level` (see the table above).
double summaryBudget(Level level, double originalTokens, double available);
/// floor(threshold * available + 1e-9).
double thresholdTokens(double threshold, double available);

struct Config {
  double contextWindow = 0;
  std::optional<double> systemPromptTokens;
  double promptBudget = 0;
  double safetyMargin = 0;
  double threshold = 0.75;
  std::size_t keepLast = 5;
  std::size_t keepFirst = 0;
  std::optional<double> summaryInputTokens;  // the summarizer's input window, in tokens
  std::size_t maxCheckpoints = 4;
  std::size_t ageAfter = 2;
  bool tokenCounter = false;  // counts come from the host
  bool summarizer = false;    // summaries come from the host (deterministic fallback)
  /// Without a host counter: the script-aware estimate (token_estimate.h, the compress default
  /// mode's) or the reference's ceil(length / 3.5) ("tokenEstimate": "script" | "chars").
  bool scriptEstimate = true;
};

/// Argument names kept per tool in RangeStats::toolKeys.
constexpr std::size_t kToolKeysInStats = 8;

/// What the stats line of a deterministic summary says about a history range. Ranges add up
/// (counts sum, tool names keep their first appearance), so a merged range's stats come from its
/// parts' without reading the messages again.
struct RangeStats {
  std::size_t messages = 0, users = 0, assistants = 0, tools = 0, others = 0;
  std::vector<U16> toolNames;  // distinct, in order of first appearance
  /// The argument names each tool was called with (toolKeys[k] for toolNames[k]; distinct, in
  /// order of first appearance, at most kToolKeysInStats).
  std::vector<std::vector<U16>> toolKeys;
  static RangeStats of(const std::vector<Value>& messages, std::size_t start, std::size_t end);
  void append(const RangeStats& later);
};

struct Checkpoint {
  U16 id;
  Value createdAt;  // the operation's `now`, verbatim
  U16 summary;
  std::vector<Value> originalMessageIds;  // each message's `id` (null when it has none)
  std::size_t start = 0;                  // messageRange: [start, end) history indices
  std::size_t end = 0;
  double originalTokens = 0;
  double compressedTokens = 0;
  double compressionRatio = 1;  // originalTokens / compressedTokens
  Level level = Level::Compact;
  double compressionNumber = 0;
  bool hostSummary = false;  // "summarizer": "host" | "deterministic"
  std::vector<U16> mergedFrom;
  U16 status;      // archive only: "merged" | "undone"
  U16 replacedBy;  // archive only, for "merged"
  /// RangeStats of [start, end), once computed (derived from the history; not serialised, so a
  /// loaded checkpoint computes them from its messages when a merge first needs them).
  std::optional<RangeStats> stats;
};

/// What changes when checkpoints change (small; copied for an operation, then committed).
struct Ledger {
  std::vector<Checkpoint> checkpoints;  // active, ordered by start, non-overlapping
  std::vector<Checkpoint> archive;      // merged or undone, in the order they left
  std::vector<Value> events;            // the session log
  double compressions = 0;
  double nextId = 1;
  /// Host counts of the current summary messages, {count key: tokens}. Each key is held as the
  /// bytes of its UTF-8 form, one unit each (the form the state's "summaryTokens" is written in);
  /// in no order (written sorted by key). An object rather than a std::map: no tree code in the
  /// module for a table of a few keys.
  Value summaryTokens = Value::object();
};

/// Facts derived from the history that every operation needs (group starts, token prefix sums),
/// kept with the state and extended when messages are appended, so an operation on a state that
/// lives between calls (context_json's handles) does not rebuild them over the whole history.
/// Derived from `messages` and `tokens` only; operations bring it up to date on use (a history
/// that shrank is re-indexed from the start), so code that fills a State by hand needs no care.
struct HistoryIndex {
  std::size_t count = 0;             // messages indexed so far
  std::size_t sysEnd = 0;            // leading system messages among them
  std::vector<std::size_t> starts;   // groupStarts(messages, sysEnd)
  std::vector<double> prefix{0.0};   // prefix[i] = tokens[0] + ... + tokens[i - 1], in order
  std::vector<Turn> turns;           // turnOf(messages[i]): the view's checks read these
  // The tokens of the last raw tail the view summed, tokens[tailFrom] + ... in order, up to
  // tailTo: the next call extends it instead of summing again (same order, same double).
  std::size_t tailFrom = 0, tailTo = 0;
  double tailSum = 0;
  bool tailValid = false;
  std::size_t work = 0;  // messages scanned or summed so far (tests check it grows per message)
  /// Brings the index up to `messages` / `tokens` (appended messages only cost their own group).
  void update(const std::vector<Value>& messages, const std::vector<double>& tokens);
  /// tokens[from, to) summed in index order, extending the cached tail when it can.
  double tailTokens(const std::vector<double>& tokens, std::size_t from, std::size_t to);
};

/// A summary message of the view: the text of one checkpoint, its built-in count
/// and its host count key. The last projection's runs are kept with the state and reused while a
/// run's checkpoints are the same (`identity`: ids, ranges, levels, summary lengths), so usage()
/// and view() do not rebuild and count the summaries on every call.
struct SummaryRun {
  U16 identity;
  U16 content;
  double tokens = 0;     // the built-in count (config.tokenCounter false)
  std::string countKey;  // countKey of its canonical message (config.tokenCounter true)
  std::uint64_t hash = 0;  // FNV-1a of identity and content (ViewResult::summaryKey)
};
struct SummaryMemo {
  std::vector<std::unique_ptr<SummaryRun>> runs;  // a run stays put while it is kept
  std::size_t built = 0;  // runs built so far (tests check it does not grow per call)
  SummaryMemo() = default;
  SummaryMemo(SummaryMemo&&) = default;
  SummaryMemo& operator=(SummaryMemo&&) = default;
  // A copied state starts with no runs (they are a cache).
  SummaryMemo(const SummaryMemo& other) : built(other.built) {}
  SummaryMemo& operator=(const SummaryMemo& other) {
    runs.clear();
    built = other.built;
    return *this;
  }
};

struct State {
  Config config;
  std::vector<Value> messages;  // the full history, exactly as added
  std::vector<double> tokens;   // one count per message
  Ledger ledger;
  mutable HistoryIndex index;   // a cache over messages / tokens (see HistoryIndex)
  /// UTF-16 units handed to the deterministic summariser so far (tests check that a compress
  /// reads a bounded amount, whatever the history's length; not serialised).
  mutable std::size_t summarised = 0;
  mutable SummaryMemo summaryRuns;  // a cache (see SummaryRun)
};

// ---- the host's part: answers so far, and what is still needed --------------------------------

struct CountRequest {
  std::string key;
  Value message;
};
struct SummaryRequest {
  std::string key;
  U16 text;
  double budget = 0;
  Level level = Level::Compact;
  std::size_t start = 0, end = 0;
};
struct Host {
  /// The host's answers, the request's "host" objects (context_json checks them): {key: count}
  /// and {key: summary}, where a summary that is not a string failed (deterministic fallback).
  /// Null when not given. They point into the request, which outlives the operation. Counts
  /// (one per message added) are found by halving `countsByKey`, the indices of their members
  /// in key order; the few summaries in order. (No std::map: no tree code in the module.)
  const Value* counts = nullptr;
  std::vector<std::size_t> countsByKey;
  const Value* summaries = nullptr;
  std::vector<CountRequest> pendingCounts;
  std::vector<SummaryRequest> pendingSummaries;
  bool pending() const { return !pendingCounts.empty() || !pendingSummaries.empty(); }
};
/// The key under which the host answers a count: "c" + FNV-1a-64 (hex) of the message's JSON.
std::string countKey(const Value& message);
/// The built-in count of one message under `config` (used when config.tokenCounter is false).
double defaultCount(const Config& config, const Value& message);

// ---- results ----------------------------------------------------------------------------------

struct Usage {
  double system = 0, checkpoints = 0, recent = 0, conversation = 0, total = 0;
  double available = 0, threshold = 0, percent = 0;
  std::size_t messages = 0, activeCheckpoints = 0;
  bool overThreshold = false, canCompress = false, shouldCompress = false;
};

/// A coded message: a validation reason ("overAvailable", "structure"...) or the progress of a
/// compress stage (identify, prepare, summarize, createCheckpoint, updateContext, validate; with
/// its percent). One type for both, so the module compiles one vector of them (its push_back,
/// growth and destruction) instead of two.
struct Note {
  const char* code;  // a literal
  std::string message;
  double percent = 0;  // progress only
};
using Reason = Note;
using ProgressEvent = Note;
struct Validation {
  bool fits = false;            // conversation <= available
  bool underThreshold = false;  // conversation <= threshold
  double tokens = 0;
  double available = 0;
  std::vector<Reason> reasons;
};

struct ViewResult {
  std::vector<Value> messages;  // copies (view(..., true) only)
  std::vector<long> sources;    // history index of each message, -1 for a summary message
  std::vector<Value> summaries;  // the summary messages, in order
  /// Names `summaries` (their text, ids, ranges and roles): equal keys, equal summary messages,
  /// so a caller that kept them need not receive them again.
  std::string summaryKey;
  Usage usage;
  Validation validation;
};

struct CompressOutcome {
  bool compressed = false;
  std::optional<Checkpoint> checkpoint;
  std::vector<U16> aged, merged;  // ids re-summarised lower / ids of new merged checkpoints
  std::vector<ProgressEvent> progress;
  Validation validation;
  Usage usage;
  bool again = false;  // still over the threshold and another compress can summarise more
};

struct UndoOutcome {
  Checkpoint checkpoint;
  Usage usage;
};

// ---- operations (on pending answers the state is left unchanged) -----------------------------

/// Checks a configuration (InvalidInput, or BudgetTooSmall when nothing is available).
Result<bool> checkConfig(const Config& config);
/// Checks the invariants of a loaded state (counts, ranges at group starts, order, ids).
Result<bool> checkState(const State& state);

Result<bool> addMessages(State& state, std::vector<Value> messages, Host& host);
Usage usage(const State& state, Host& host);
/// The view; `copyMessages` false leaves `messages` empty (a caller that holds the history
/// builds it from `sources` and `summaries`, as context_json's held states do).
/// `knownSummaryKey` (the summaryKey of an earlier view) leaves `summaries` empty when they are
/// still the same.
ViewResult view(const State& state, Host& host, bool copyMessages = true,
                std::string_view knownSummaryKey = {});
CompressOutcome compress(State& state, const Value& now, Host& host);
Result<UndoOutcome> undo(State& state, std::u16string_view id, const Value& now, Host& host);

/// The transcript of history[start, end) as summarizers read it (also the host's `text`).
U16 renderTranscript(const std::vector<Value>& messages, std::size_t start, std::size_t end);
/// The deterministic summary of history[start, end) in at most floor(3.5 * budget) units.
/// Artifacts in `known` (knownArtifacts: those of the summaries before the range) are left out.
U16 deterministicSummary(const std::vector<Value>& messages, std::size_t start, std::size_t end,
                         double budget, const std::vector<U16>& known = {});
/// The deterministic summary of a merged range in at most floor(3.5 * budget) units: the stats
/// line of `stats` (the whole range), the artifacts line made from the bodies' lines (the newer
/// body's items first), then the summariser over `bodies` (the merged summaries' bodies without
/// their artifacts lines, in order, one paragraph each).
U16 mergedSummary(const RangeStats& stats, const std::vector<std::u16string_view>& bodies,
                  double budget);
/// A summary without its stats line: a deterministic summary's text after its first line, a
/// host summary whole.
std::u16string_view summaryBody(const Checkpoint& cp);

}  // namespace cce::context
