// SPDX-License-Identifier: MIT
// The projection: a pure, deterministic view of a conversation under its compaction overlays.
//
// Rules (RFD 064 as issue 8 states it):
//  * Per turn and content type, the newest compaction (recencyOrder) covering the turn with a
//    policy for that type wins. Types: summary (every event), reasoning, tool calls.
//  * A summary covering a turn beats every per-type policy, whatever its age. A summarized range
//    becomes one synthetic user/assistant pair ("[Summary of previous conversation]", then the
//    summary) placed at the first turn the summary owns; system events of the range are kept and
//    placed before the pair (instructions are never summarized away).
//  * Reasoning "strip" removes the reasoning event. Tool "strip" replaces a response's content with
//    "[compacted] {tool}: success|error" (the tool name comes from the response, else from the
//    request with its id, else "tool") and a request's arguments with compacted arguments: an
//    object keeps its keys and every value becomes "[compacted]" (so the model still sees which
//    arguments were passed, and Anthropic's `input` stays an object); JSON text encoding an object
//    (OpenAI's `arguments`) is compacted the same way and stays text; anything else becomes
//    "[compacted]". Name, id and the ok flag are kept. Per-tool hints override the strip flags of
//    the winning policy (both ways) for their tool. "omit" removes the event.
//  * A request and its response(s) (same id) stay together: if one side is omitted or summarized
//    away, the other goes too, so no provider ever sees an orphaned tool call or result.
//  * Changed and synthetic events carry "compactedBy": the log index of the compaction that made
//    them. Unchanged events are copied as they are, so an overlay-free projection reproduces the
//    events exactly and removing a compaction restores the previous view.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "compaction/model.h"
#include "json/value.h"

namespace cce::compaction {

inline constexpr char16_t kSummaryRequestText[] = u"[Summary of previous conversation]";
inline constexpr char16_t kCompactedMarker[] = u"[compacted]";

struct Projection {
  /// `[{"turn": t, "events": [...]}, ...]`; a summary turn also has
  /// `"summaryOf": {"fromTurn": a, "toTurn": b}`. Empty when not built.
  json::Value turns;
  /// Σ eventTokens over the projected events: the script-aware estimate, as compress's default
  /// mode and the context manager count (CJK text is not under-counted 2-3x).
  double tokens = 0;
  std::size_t events = 0;
};

/// Projects `conversation` under `compactions` (normally conversation.compactions; a dry run adds
/// one). With `buildView` false only the counts are computed.
Projection project(const Conversation& conversation, const std::vector<Compaction>& compactions,
                   bool buildView = true);

/// The compacted form of tool-call arguments (see the rules above).
json::Value compactArguments(const json::Value& arguments);

/// id -> name of the first tool request with that id, sorted by id (for toolNameOf).
std::vector<std::pair<std::u16string, std::u16string>> requestNames(const Conversation& c);

/// The name a tool response is reported under: its own "name", else the name of the request with
/// its id, else "tool".
std::u16string toolNameOf(const json::Value& response,
                          const std::vector<std::pair<std::u16string, std::u16string>>& names);

}  // namespace cce::compaction
