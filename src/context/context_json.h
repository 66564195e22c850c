// SPDX-License-Identifier: MIT
// contextJson: the context manager as pure functions over a serialised state.
//
// Every call is `state + operation -> new state + result`; nothing is kept between calls, so a JS
// `ContextManager` could hold the state object, send it with each operation and keep what comes
// back (toJSON() is the state itself, fromJSON() any state a previous call returned). Rules
// (budget, boundaries, levels, aging, summary roles) are documented in context.h. Such a call
// parses and writes the whole state, history included, so its cost grows with the session.
//
// Held states. "open" keeps a state in the module and returns a handle; an operation that names
// {"handle": h} instead of carrying "state" reads and updates that state in place (the history
// index of context.h makes add + usage cost the new message). Its answer has no "state": "add"
// returns "tokens" (the counts of the added messages, appended to state.tokens) and "compress" /
// "undo" return "ledger" = {"checkpoints": [active], "archive": [appended], "events":
// [appended], "compressions", "nextId", "summaryTokens"}, so a caller keeps its own copy of the
// state equal to the engine's by appending its messages and applying these. Failing and pending
// answers leave a held state unchanged, as they leave a sent one. "view" of a held state answers
// {"sources": [history index, -1 for a summary message, or [first, last] for the consecutive
// history indices first..last], "summaries": [the summary messages],
// "summaryKey", "validation", "usage"}: the caller builds the messages from its copy of the
// history. A request with "summariesKnown": the summaryKey of an earlier answer gets no
// "summaries" when they are still the same (equal keys, equal summary messages), so a view
// between two compressions sends the indices, not the summaries' text again.
//   op "open"   {"state": STATE, "echo"?: bool}   -> {"handle", "usage", "state" (echo: the
//                                                    state as the engine writes it)}
//   op "save"   {"handle"}                        -> {"state"}
//   op "close"  {"handle"}                        -> {"open": states still held} (no error for
//                                                    an unknown handle: closing is idempotent)
//
// Request: {"op": OP, "state": STATE | "handle": h, ...operation fields..., "host": HOST}
//
//   op "create"          {"config": CONFIG}                        -> {"state", "usage"}
//   op "add"             {"state", "messages": [m, ...]} or {"state", "message": m}
//                                                                  -> {"state", "usage"}
//   op "usage"           {"state"}                                 -> {"usage"}
//   op "shouldCompress"  {"state"}                                 -> {"shouldCompress", "usage"}
//   op "compress"        {"state", "now": any}                     -> {"state", "compressed",
//                          "checkpoint": CHECKPOINT | null, "aged": [id], "merged": [id],
//                          "progress": [PROGRESS], "validation": VALIDATION, "usage", "again"}
//   op "view"            {"state"}                                 -> {"messages", "validation",
//                                                                      "usage"}
//   op "undo"            {"state", "checkpoint": id, "now": any}   -> {"state", "checkpoint",
//                                                                      "usage"}
//   op "fold" / "unfold" {"messages": [...]}                       -> {"messages"}
//   op "recover"         {"messages": [...], "keepLast": 5}        -> {"found", "summaryIndex",
//                          "coveredUntil", "originalCount", "target", "alignedTarget"}
//   op "check"           {"messages": [...]}                       -> {"issues": [ISSUE]}
//   (ISSUE = {"kind": "orphanToolResult"|"missingToolResult"|"roleRepeat"|"firstNotUser", "index"})
//
// `now` is stored verbatim as createdAt / the event time (the core never reads a clock; null when
// absent). `again` is true when the view is still over the threshold (or does not fit) and another
// compress can summarise more (e.g. after trimming for the summarizer's input window).
//
// CONFIG: {"contextWindow": n, "systemPromptTokens"?: n, "promptBudget": 0, "safetyMargin": 0,
//          "threshold": 0.75, "keepLast": 5, "keepFirst": 0, "summaryInputTokens"?: n,
//          "maxCheckpoints": 4, "ageAfter": 2, "tokenCounter": false, "summarizer": false}
// USAGE:  {"system", "checkpoints", "recent", "conversation", "total", "available", "threshold",
//          "percent", "messages", "activeCheckpoints", "overThreshold", "canCompress",
//          "shouldCompress"}   (conversation = checkpoints + recent; total = system + conversation;
//          percent = conversation / available, one decimal; shouldCompress = overThreshold &&
//          canCompress, so a host loop `while (shouldCompress) compress()` always ends)
// CHECKPOINT: {"id", "createdAt", "summary", "originalMessageIds", "messageRange": {"start","end"}
//          (history indices, end exclusive), "originalTokens", "compressedTokens",
//          "compressionRatio" (original / compressed), "level": "compact"|"moderate"|"detailed",
//          "compressionNumber", "summarizer": "deterministic"|"host", "mergedFrom"?: [id],
//          "status"?: "merged"|"undone", "replacedBy"?: id}     (status/replacedBy: archive only)
// PROGRESS: {"stage": "identify"|"prepare"|"summarize"|"createCheckpoint"|"updateContext"|
//          "validate", "percent": 10|25|60|75|90|100, "message"}
// VALIDATION: {"fits", "underThreshold", "tokens", "available",
//          "reasons": [{"code", "message"}]}; codes: overAvailable, lastGroupTooLarge,
//          recentTooLarge, summariesTooLarge, headTooLarge, compressAgain, overThreshold,
//          nothingToCompress, summaryInputTooSmall, summaryInputTrimmed, structure (a view
//          problem the history does not have; never expected)
// STATE:  {"format": "cce-context/1", "config", "messages": [history as added], "tokens": [n],
//          "checkpoints": [active CHECKPOINT], "archive": [CHECKPOINT], "events": [EVENT],
//          "compressions", "nextId", "summaryTokens": {key: n}}
// EVENT:  {"type": "create"|"merge"|"age"|"undo", "checkpoint": id, "at": now, ...}
//
// Pending protocol (config.tokenCounter / config.summarizer): when the host must count or
// summarise, the answer is
//   {"ok":true,"pending":{"counts":[{"key","message"}],
//                         "summaries":[{"key","text","budget","level","messageRange"}],
//                         "progress":[PROGRESS so far]}}
// The host counts each message / summarises each text (budget in tokens; messageRange indexes the
// state's history, for hosts that prefer to summarise the message objects), then repeats the same
// request with HOST = {"counts": {key: n}, "summaries": {key: "text" | null}} (answers accumulate
// across rounds; null: the summarizer failed, use the deterministic summary). A host summary is
// accepted when it is a non-empty string shorter than `text`. The state is unchanged until the call
// that needs nothing more; at most two rounds per compress (summaries, then counts).
//
// Envelope and errors as cce::compressJson: {"ok":true,"output":{...}} |
// {"ok":false,"error":{"code","message","path"}} with cce::ErrorCode names (BudgetTooSmall when
// the configuration leaves no tokens for the conversation).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "context/context.h"
#include "json/value.h"
#include "status.h"

namespace cce {

std::string contextJson(std::string_view request);

/// The ops "fold" and "unfold" as functions, so that a build can leave them out.
struct ToolChainOps {
  std::vector<json::Value> (*fold)(const std::vector<json::Value>&);
  std::vector<json::Value> (*unfold)(const std::vector<json::Value>&);
};
/// contextJson with `ops` for "fold" and "unfold" (an op whose function is null is unknown).
/// The wasm session modules pass none: their JS layer folds and unfolds itself
/// (js/src/tool-chains.ts), and the two were 3.9 KB gzip of each (wasm/session_bindings.cpp).
std::string contextJson(std::string_view request, ToolChainOps ops);
/// contextJson for a request already read (the wasm modules read theirs from value bytes,
/// value_bytes.h, and so carry no JSON reader).
std::string contextRequest(json::Value&& request, ToolChainOps ops);

namespace context {

/// STATE <-> json (the wire form above). Parsing checks every invariant (checkState).
json::Value stateToJson(const State& state);
Result<State> stateFromJson(json::Value&& value);
json::Value checkpointToJson(const Checkpoint& cp);
json::Value usageToJson(const Usage& usage);
Result<Config> configFromJson(const json::Value* value);

}  // namespace context
}  // namespace cce
