// SPDX-License-Identifier: MIT
// The public C++ API of cce: compress and uncompress over JSON, and the structured core calls.
#pragma once

#include <string>
#include <string_view>

#include "status.h"
#include "types.h"

namespace cce {

/// Library version (semver of the package).
const char* version();

/// Structured core call: one compress() over message views (spec §1.3 dispatch: budget or core).
/// Hooks in `options` supply summaries and token counts; the result is a plan (see types.h).
CompressResult compress(const std::vector<Message>& messages, const CompressOptions& options);

/// `compress` over JSON. Request: {"messages": [...], "options": {...}}. Returns an envelope that is
/// always valid JSON: {"ok":true,"output":<CompressResult>} or
/// {"ok":false,"error":{"code","message","path"}}. Never throws.
std::string compressJson(std::string_view request);

/// `uncompress` over JSON. Request: {"messages": [...], "store": {...}, "options": {"recursive"}}.
std::string uncompressJson(std::string_view request);

/// `compress` over a binary request (docs/boundary.md "Bytes requests"; the wasm boundary): the
/// messages and options in `request`, the host's answers so far in `host` (empty: none). Answers
/// the envelope compressJson gives in plan form, written as a binary answer (answer_writer.h,
/// docs/boundary.md "Bytes answers"). Never throws.
std::string compressBytes(std::string_view request, std::string_view host);

/// `uncompress` over a binary request: the messages in `request`, the store entries the host has
/// looked up so far in `store`. Answers in plan form (a binary answer, as compressBytes), asking
/// for missing ids as pending work.
std::string uncompressBytes(std::string_view request, std::string_view store);

/// ["InvalidJson", ...]: the error vocabulary, for drift tests against the TS layer.
std::string errorCodesJson();

}  // namespace cce
