// SPDX-License-Identifier: MIT
// Safe mode (issue 18, item 4): what omitted or cleared messages contained, in a few tokens.
//
// When the escalation ladder omits whole groups or clears a message, the model loses the artifact
// trail: the files it read, the identifiers, versions, URLs and hashes a later message may refer
// to. The ledger keeps the distinct ones, in order of first appearance, after the stub or note:
// `[cce:omitted 4 messages — 5120 chars | src/app.ts, retryConfig, 2.14.3, 9f3c2ab1d7e4]`.
// High-entropy tokens (hashes, UUIDs) are kept whole, never summarised. Deterministic: a scan of
// the text, no randomness, no locale.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "types.h"

namespace cce {

/// The artifacts of `text`, in order of first appearance, without repeats: file paths and names
/// with an extension, URLs, versions (1.2, v2.14.3), hashes and UUIDs (8+ hex digits with a
/// digit and a letter), snake_case, camelCase and dotted identifiers. At most `limit` of them.
std::vector<U16> artifacts(std::u16string_view text, std::size_t limit);

/// The ledger appended to a stub or note: " | " and the artifacts of `texts` (in order) joined by
/// ", ", at most kLedgerItems of them and kLedgerChars units; "" when there are none. Callers pass
/// a bounded number of texts (ledgerTexts in escalation.cpp), so a stub's cost stays linear.
U16 ledger(const std::vector<std::u16string_view>& texts);

constexpr std::size_t kLedgerItems = 8;
constexpr std::size_t kLedgerChars = 200;

}  // namespace cce
