// SPDX-License-Identifier: MIT
// The compaction event model: a validated index over a conversation document and its overlays.
//
// A conversation document is JSON (the shapes are documented in compaction_json.h). Reading it
// never copies events: an EventRef points into the document, which must outlive the
// Conversation. Compaction events are read into plain structs with their ranges checked against
// the conversation, so the projection can trust them.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "json/value.h"
#include "status.h"
#include "types.h"

namespace cce::compaction {

enum class EventType { User, Assistant, Reasoning, ToolRequest, ToolResponse, System, Other };

/// The wire name of an event type ("user", "toolRequest", ...).
const char16_t* eventTypeName(EventType type);

/// One conversation event, pointing into the document it was read from.
struct EventRef {
  EventType type = EventType::Other;
  std::size_t turn = 0;
  std::size_t indexInTurn = 0;
  const json::Value* object = nullptr;
};

/// A point in time in milliseconds since the Unix epoch (UTC); `known` is false when absent.
struct Instant {
  bool known = false;
  double ms = 0;
};

enum class ToolCallMode { None, Strip, Omit };

/// `toolCalls` of a compaction. A Strip policy has an opinion on both sides of every tool call in
/// its range: a false flag means "keep", which can undo an older compaction's stripping.
struct ToolCallPolicy {
  ToolCallMode mode = ToolCallMode::None;
  bool request = false;
  bool response = false;
};

enum class HintSide { Unset, Keep, Strip };

/// A per-tool hint: overrides a Strip policy's flag for one tool (never an Omit policy).
struct ToolHint {
  std::u16string tool;
  HintSide request = HintSide::Unset;
  HintSide response = HintSide::Unset;
};

struct Compaction {
  std::size_t fromTurn = 0;
  std::size_t toTurn = 0;
  std::optional<std::size_t> atTurn;  // the last turn when the compaction was created
  Instant timestamp;
  bool hasSummary = false;
  std::u16string summary;
  bool stripReasoning = false;
  ToolCallPolicy toolCalls;
  std::vector<ToolHint> hints;  // sorted by tool name, unique

  bool covers(std::size_t turn) const { return fromTurn <= turn && turn <= toTurn; }
  const ToolHint* hintFor(std::u16string_view tool) const;
};

struct Conversation {
  std::vector<EventRef> events;         // stream order
  std::vector<std::size_t> turnBegin;   // turn t holds events [turnBegin[t], turnBegin[t + 1])
  std::vector<Instant> turnStart;       // see readConversation
  Instant latest;                       // the latest timestamp of any turn or event
  std::vector<Compaction> compactions;  // log (append) order
  std::vector<const json::Value*> compactionObjects;

  std::size_t turnCount() const { return turnBegin.empty() ? 0 : turnBegin.size() - 1; }
};

/// Reads and validates a conversation document `{"turns": [...], "compactions"?: [...]}`.
/// `path` is the JSON pointer of the document inside the request, used in error paths.
/// A turn's start is its own `timestamp`, else its first event's, else the previous turn's.
Result<Conversation> readConversation(const json::Value& document, const std::string& path);

/// Reads one stored compaction event; its range must lie inside `turnCount` turns.
Result<Compaction> readCompaction(const json::Value& object, std::size_t turnCount,
                                  const std::string& path);

/// Policy readers shared with compaction requests. `path` names the value itself.
Result<ToolCallPolicy> readToolCallPolicy(const json::Value& value, const std::string& path);
Result<std::vector<ToolHint>> readToolHints(const json::Value& value, const std::string& path);
Result<Instant> readTimestamp(const json::Value& value, const std::string& path);

/// RFC 3339 date-time ("2025-07-17T10:00:00Z", "...10:00:00.250+02:00") to epoch milliseconds.
std::optional<double> parseRfc3339(std::u16string_view text);

/// "90s", "5m", "5h", "2d", "1w" and sums such as "1h30m" to milliseconds.
std::optional<double> parseDuration(std::u16string_view text);

/// Indices of `compactions` from oldest to newest: by timestamp, then log position. A compaction
/// without a timestamp is treated as no older than the one before it in the log.
std::vector<std::size_t> recencyOrder(const std::vector<Compaction>& compactions);

/// The text of a `content` value: a string, or the text parts of an array (strings, or objects
/// with a string "text"), joined with "\n". Other values have no text.
std::u16string contentText(const json::Value* content);
std::size_t contentLength(const json::Value* content);

/// UTF-16 length of JSON.stringify(value), without building it.
std::size_t jsonLength(const json::Value& value);

/// Tokens of an event by the script-aware estimate (token_estimate.h, the default mode's): its
/// content's text, or for a tool request its name plus its arguments (a string as is, anything
/// else as its JSON), estimated separately.
double eventTokens(EventType type, const json::Value& event);

/// Tokens of a tool request's name and (compacted) arguments, as eventTokens counts them.
double toolRequestTokens(std::u16string_view name, const json::Value* arguments);

/// A member of `object` if it is a string, else nullptr.
const std::u16string* stringMember(const json::Value& object, std::u16string_view key);

}  // namespace cce::compaction
