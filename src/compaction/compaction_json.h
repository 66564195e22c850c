// SPDX-License-Identifier: MIT
// The JSON entry point of non-destructive compaction (issue 8, after JP's RFD 064).
//
// One stateless call, JSON in and JSON out, in the envelope of cce::compressJson
// (docs/boundary.md): {"ok":true,"output":{...}}, {"ok":true,"pending":{...}} or
// {"ok":false,"error":{"code","message","path"}} with cce::ErrorCode names. Never throws.
//
// ---- Conversation document --------------------------------------------------------------------
//
//   {"turns": [{"timestamp"?: TS, "events": [EVENT, ...]}, ...],
//    "compactions"?: [COMPACTION, ...],    the append-only overlay log, oldest first
//    "source"?: {...}}                     written by fromOpenAI/fromAnthropic (JS); kept as is
//
//   EVENT = {"type": "user"|"assistant"|"system", "content": string | [part, ...]}
//         | {"type": "reasoning", "content"?: string, "signature"?: string}
//         | {"type": "toolRequest", "id"?: string, "name": string, "arguments"?: any}
//         | {"type": "toolResponse", "id"?: string, "ok"?: bool (default true),
//            "content"?: string | [part, ...], "name"?: string}
//         | {"type": "other", "role"?: string}   opaque provider parts (images, documents)
//     plus "timestamp"?: TS and any other members, which are carried through untouched.
//     Parts are strings or objects; their text is their "text" member.
//   TS = milliseconds since the epoch | RFC 3339 date-time with offset ("2025-07-17T10:00:00Z").
//
//   COMPACTION = {"timestamp"?: TS, "fromTurn": a, "toTurn": b,        inclusive turn indices
//                 "summary"?: {"summary": text},
//                 "reasoning"?: "strip",
//                 "toolCalls"?: "strip" | "strip-responses" | "strip-requests" | "omit"
//                             | {"policy"?: "strip"|"omit", "request"?: bool, "response"?: bool},
//                 "tools"?: {"<tool name>": {"request"?: "keep"|"strip",
//                                            "response"?: "keep"|"strip"}},
//                 "profile"?: name, "requested"?: {"fromTurn", "toTurn"}}   (informational)
//   An absent or null policy means "no opinion". Compaction events are not conversation events:
//   turn indices never count them. Projection rules: projection.h; creation rules: compact.h.
//
// ---- Operations ---------------------------------------------------------------------------------
//
//   {"op": "project", "conversation": C}
//     -> {"view": VIEW, "tokens": n}
//     VIEW = {"turns": [{"turn": t, "summaryOf"?: {"fromTurn","toTurn"}, "events": [...]}, ...],
//             "source"?: ...}
//       a conversation-shaped document. The provider formats (fromOpenAI, toAnthropic, a view in
//       "openai" or "anthropic" format...) are done by the JS layer on these documents
//       (js/src/compaction-providers.ts), as it does compress's provider formats.
//     tokens = Σ cce::estimateTokens over the projected events' text (a tool request counts
//     its name and arguments; "other" events count 0): the default mode's script estimate.
//
//   {"op": "compact", "conversation": C,
//    "profile"?: "default" | "light" | "heavy",
//    "from"?: BOUND, "to"?: BOUND, "keepFirst"?: N | "5h", "keepLast"?: N | "5h",
//    "timestamp"?: TS,                       stored; also "now" for duration bounds
//    "reasoning"?: "strip" | null, "toolCalls"?: POLICY | null, "tools"?: HINTS | null,
//    "summary"?: true | {} | {"summary": text} | null,
//    "host"?: {"summarizer": true, "summaries": [text | null]}}
//     -> {"compaction": COMPACTION, "index": i, "extended": bool}
//     Append output.compaction to conversation.compactions (it lands at `index`); nothing else
//     changes. BOUND = integer | negative integer | "last" | duration | {"keepLast"|"keepFirst": N}
//     (compact.h). With host.summarizer a generated summary is asked of the host first:
//     {"ok":true,"pending":{"summaries":[{"text": T, "budget": B}]}}; call summarizer(T), append
//     the result (null when it failed) to host.summaries and call again with the same request.
//
//   {"op": "dryRun", ...same as compact...}
//     -> {"compaction": ..., "index": i, "extended": bool, "view": VIEW,
//         "tokens": {"raw": n, "before": n, "after": n}}
//     Nothing is appended; raw = no overlays, before = current overlays, after = with this one.
//
//   {"op": "undo", "conversation": C, "index"?: i (default -1, negative from the end),
//    "all"?: true}
//     -> {"compactions": [...the log without it...], "removed": [COMPACTION, ...]}
//     Replace conversation.compactions with output.compactions: the view is then exactly what it
//     was before the removed compaction was appended.
//
//   {"op": "check", "conversation": C or VIEW}              -> {}
//     Only reads and validates the document (errors as for project): the JS layer's toOpenAI and
//     toAnthropic convert the events of a checked document.
#pragma once

#include <string>
#include <string_view>

#include "json/value.h"

namespace cce {

/// Runs one compaction operation (shapes above). Always returns a valid JSON envelope.
std::string compactionJson(std::string_view request);
/// The same for a request already read (the wasm modules read theirs from value bytes,
/// value_bytes.h, and so carry no JSON reader).
std::string compactionRequest(json::Value&& request);

}  // namespace cce
