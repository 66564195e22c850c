// SPDX-License-Identifier: MIT
// Safe mode (issue 18, item 4): what omitted or cleared messages contained, in a few tokens.
//
// When the escalation ladder omits whole groups or clears a message, the model loses the artifact
// trail: what the user asked, the errors, the files, commands, identifiers, versions, quantities,
// URLs and hashes a later message may refer to. The ledger keeps the distinct ones after the stub
// or note, most valuable class first:
// `[cce:omitted 4 messages — 5120 chars | "Fix the upload retry", "TypeError: x is undefined",
//  src/app.ts, 9f3c2ab1d7e4, `npm test`, 512 MB, retryConfig]`.
// Every item is whole tokens of the source (a request or error line may end early, at a space,
// with "…"; a token is never cut). High-entropy tokens (hashes, UUIDs, hex dumps) are kept whole.
// Deterministic: a linear scan of the text, no randomness, no locale, no hashing.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "types.h"

namespace cce {

/// The ledger's budget.
constexpr std::size_t kLedgerItems = 12;
constexpr std::size_t kLedgerChars = 320;
constexpr std::size_t kLedgerRequests = 3;
constexpr std::size_t kLedgerErrors = 3;
/// A request or error line longer than this ends, at a space, with "…".
constexpr std::size_t kLedgerPhraseChars = 100;

/// What an artifact is; the order is the ledger's priority (a user's request is worth more than
/// a ninth identifier).
enum class ArtifactKind {
  Request,     ///< a user message's first sentence, in double quotes
  Error,       ///< an error line (`TypeError: …`, `error[E0308]: …`, `FAILED …`), in double quotes
  Reference,   ///< URL, path, file name, hash, UUID, hex-dump run
  Command,     ///< a shell command (`$ npm test`, a command line) or a `backtick span`
  Quantity,    ///< a version (v2.14.3) or a number with a unit (512 MB, 30s, 80%, $12.50)
  Identifier,  ///< snake_case, camelCase or dotted identifier
};

struct Artifact {
  U16 text;  ///< as it appears in the ledger (quotes and backticks included)
  ArtifactKind kind = ArtifactKind::Identifier;
};

/// One text a ledger reads; `user` marks a user message (its first sentence is a request).
struct LedgerSource {
  std::u16string_view text;
  bool user = false;
};

/// The artifacts of one source, in order of first appearance, without repeats; at most `limit`.
/// `steps`, when given, is increased by the units read (tests assert that the cost is linear).
std::vector<Artifact> artifactsOf(const LedgerSource& source, std::size_t limit,
                                  std::size_t* steps = nullptr);

/// Whether a whole token is high-entropy: 8+ hex digits with a digit and a letter (hashes,
/// UUIDs), 0x and 6+ hex digits, or a 20+ unit base64/key-like run with digits and both cases.
bool isHighEntropy(std::u16string_view token);

/// The high-entropy tokens of `text` and the runs of hex-dump lines (4+ hex groups), in order,
/// without repeats, each whole, while their lengths plus one separator each stay within
/// `maxUnits`. Used by the default-mode summariser so that hashes, UUIDs and hex dumps are kept
/// verbatim rather than summarised away.
std::vector<U16> highEntropyRuns(std::u16string_view text, std::size_t maxUnits);

namespace detail {
/// highEntropyRuns by reading every line and token (the size build's scan); the speed build goes
/// from digit to digit. Tests compare the two.
std::vector<U16> highEntropyRunsByLines(std::u16string_view text, std::size_t maxUnits);
}  // namespace detail

/// The ledger appended to a stub or note: " | " and the chosen artifacts of `sources` joined by
/// ", "; "" when there are none. Choice: by kind (ArtifactKind order), then by order of first
/// appearance across the sources; at most kLedgerRequests requests and kLedgerErrors error lines,
/// kLedgerItems items in all, and at most min(kLedgerChars, `maxChars`) units. A token already
/// inside a chosen request or error line is not repeated. Output order is the kind order, then
/// the order of appearance. Callers pass a bounded number of sources (ledgerOf in escalation.cpp),
/// each read once, so a stub's cost stays linear.
U16 ledger(const std::vector<LedgerSource>& sources, std::size_t maxChars = kLedgerChars);


}  // namespace cce
