// SPDX-License-Identifier: MIT
// Conversion between provider message arrays (OpenAI, Anthropic) and conversation documents.
//
// Events: OpenAI messages give system (system/developer), user, reasoning (`reasoning_content` or
// a string `reasoning`), assistant, one toolRequest per `tool_calls` item and toolResponse (role
// tool). Anthropic messages give one event per content block: text (user or assistant by role),
// thinking and redacted_thinking (reasoning), tool_use (toolRequest), tool_result (toolResponse,
// ok = !is_error) and anything else (images, documents, server tools) as an opaque "other" event;
// a top-level `system` becomes a system event in turn 0. A new turn starts at a user event (or a
// user-role opaque part) that follows an assistant-side event or a tool response, so tool results
// never open a turn and leading system messages belong to turn 0.
//
// Round trip: everything the events do not carry is kept in the document's "source" member (the
// message with its payload keys set to null, and which keys were moved out) and in each event's
// "source" ({"message": index, "block": the item or block with its payload set to null}). The
// same-format conversion rebuilds each message from that record and from its surviving events, so
// toOpenAI(fromOpenAI(m)) and toAnthropic(fromAnthropic(m)) reproduce m exactly
// (JSON.stringify-equal), and a projection converts back into the caller's format with unchanged
// messages byte-identical. Events without a usable record (synthetic summary events, native
// events, events from the other provider) get a standard rendering; opaque "other" parts only
// survive in their own format. Messages whose events were all removed are dropped; a message that
// lost only some (omitted tool calls) drops those keys (an empty `tool_calls` is removed).
//
// Provider notes: reasoning without a signature cannot be sent to Anthropic and is dropped there;
// to OpenAI, reasoning goes into `reasoning_content`. Consecutive same-role messages are not
// merged (Anthropic merges consecutive user turns itself).
#pragma once

#include <string>

#include "compaction/model.h"
#include "json/value.h"
#include "status.h"

namespace cce::compaction {

/// OpenAI Chat Completions `messages` -> conversation document (with an empty compaction log).
Result<json::Value> fromOpenAI(const json::Value& messages, const std::string& path);

/// Anthropic Messages `messages` (+ the top-level `system`, may be null) -> conversation document.
Result<json::Value> fromAnthropic(const json::Value& messages, const json::Value* system,
                                  const std::string& path);

/// Events of a conversation or projected view -> OpenAI messages array. `source` is the
/// document's "source" member (nullptr when absent).
json::Value toOpenAI(const Conversation& conversation, const json::Value* source);

/// -> {"system"?: ..., "messages": [...]} in the Anthropic Messages format.
json::Value toAnthropic(const Conversation& conversation, const json::Value* source);

}  // namespace cce::compaction
