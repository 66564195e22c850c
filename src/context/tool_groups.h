// SPDX-License-Identifier: MIT
// Message-list utilities of the context manager: atomic tool-call groups, fold/unfold, recovery.
//
// Atomic group (the unit nothing may split): an assistant message whose `tool_calls` is a non-empty
// array, the run of `tool` messages after it, and the assistant follow-up when the next message is
// an assistant message *without* tool_calls. An assistant message with tool_calls after the results
// starts the next group, so an agent loop a(calls) t a(calls) t a is the two groups [a t] [a t a];
// cutting between them leaves both halves valid for OpenAI and Anthropic. A run of `tool` messages
// that follows anything else (sources without structured calls, e.g. console output after an
// assistant edit) belongs to the group of the message before it, so no group starts with a tool
// message unless the conversation does. Every other message is a group of its own.
//
// Folded form (for UIs in the Open WebUI style): a chain a(calls) t.. [a(calls) t..].. [a] becomes
// one assistant message whose content is the pieces joined with "\n": each assistant text, and per
// tool result one block
//   <details type="tool_calls" done="true" id="ID" name="NAME" arguments="ARGS">
//   <summary>Tool Executed</summary>
//   RESULT
//   </details>
// (done="false" and no RESULT line for a call without a result). Attribute values and RESULT are
// HTML-escaped (& < > "), so "</details>" never occurs inside a block. The folded message carries
// `metadata.cce_fold = {"messages": [each original with string content replaced by null],
// "parts": [[offset, length] | null, ...], "length": n}` so unfolding restores the originals byte
// for byte; without that metadata (or after the text was edited) unfolding parses the blocks and
// rebuilds canonical OpenAI messages (blocks with no text between them become one assistant
// message). Progress (covered_until) is never recovered from a folded list: recoverProgress
// refuses one.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "json/value.h"
#include "status.h"

namespace cce::context {

using json::Value;

/// `message.role` when it is a string, else empty.
std::u16string_view roleOf(const Value& message);
/// `tool_calls` is an array with at least one element.
bool hasToolCalls(const Value& message);
/// The string `field` ("name", "arguments") of a tool call's "function" object, or nullptr.
const std::u16string* callFunctionString(const Value& call, std::u16string_view field);
/// Number of leading `system` messages (the system prompt block, never compressed).
std::size_t leadingSystemCount(const std::vector<Value>& messages);

/// For every index i >= from, the index where the atomic group containing i starts; indices below
/// `from` map to themselves. A group start never changes when messages are appended later.
std::vector<std::size_t> groupStarts(const std::vector<Value>& messages, std::size_t from);
/// groupStarts computed again only from `resume` (a group start of `starts` for the messages it
/// covered) on: `starts` is resized to the history and its entries from `resume` on rewritten.
void extendGroupStarts(const std::vector<Value>& messages, std::size_t from, std::size_t resume,
                       std::vector<std::size_t>& starts);

/// Folds every native tool-call chain into one assistant message (see the header comment).
std::vector<Value> foldToolChains(const std::vector<Value>& messages);
/// The inverse of foldToolChains; messages that are not folded pass through unchanged.
std::vector<Value> unfoldToolChains(const std::vector<Value>& messages);
/// True for a message that foldToolChains produced (metadata or a details block in its text).
bool isFolded(const Value& message);

/// HTML escaping of & < > " and its inverse (exposed for tests).
std::u16string escapeHtml(std::u16string_view text);
std::u16string unescapeHtml(std::u16string_view text);

/// Progress recovered from a visible list that may contain a summary message (one whose
/// `metadata.covered_until` is a non-negative integer): the last such message is used.
///   originalCount = coveredUntil + (messages after the summary)
///   target        = max(coveredUntil, originalCount - keepLast)
/// alignedTarget moves `target` back to the start of its atomic group in the visible list, never
/// below coveredUntil. Without a summary, coveredUntil = 0 and originalCount = the list length.
struct RecoveredProgress {
  bool found = false;
  std::size_t summaryIndex = 0;  // position of the summary message in the visible list
  double coveredUntil = 0;
  double originalCount = 0;
  double target = 0;
  double alignedTarget = 0;
};
/// Refuses (InvalidInput) a folded list: its positions are not the original history's.
Result<RecoveredProgress> recoverProgress(const std::vector<Value>& visible, double keepLast);

/// One API-validity problem of a message list.
struct StructureIssue {
  enum class Kind {
    OrphanToolResult,   // a tool message not answering a call of the assistant message before it
    MissingToolResult,  // a call id with no tool message in the run that follows its message
    RoleRepeat,         // user after user, or assistant after assistant (system messages ignored)
    FirstNotUser,       // the first non-system message is not a user message
  };
  Kind kind;
  std::size_t index;  // the message where the problem shows (the second one of a repeat)
};
const char* structureIssueName(StructureIssue::Kind kind);

/// What the structure checks read of a message besides tool call ids: its role, and whether it is
/// an assistant message with tool calls.
struct Turn {
  enum class Role : unsigned char { System, User, Assistant, Tool, Other };
  Role role = Role::Other;
  bool calls = false;
};
Turn turnOf(const Value& message);

/// The checks of OpenAI (tool pairing) and Anthropic (alternation, user first). A tool result
/// followed by a user message is accepted (adapters merge the two user-side turns).
std::vector<StructureIssue> checkStructure(const std::vector<Value>& messages);
/// The same over messages named by pointer, with their turns known (the context view's list,
/// whose history messages have theirs in the history index).
std::vector<StructureIssue> checkStructure(const std::vector<const Value*>& messages,
                                           const std::vector<Turn>& turns);

}  // namespace cce::context
