// SPDX-License-Identifier: MIT
// The API-key detector of spec §3.3 (`api_key`): ten provider patterns, then one generic token.
//
// Each pattern is a run of `[A-Za-z0-9_-]`-style characters behind a literal prefix, followed by
// `\b`. The scanners reason about maximal runs instead of backtracking: a greedy run followed by
// `\b` matches iff some admissible run length ends on a word boundary, and the greedy choice is the
// longest such length. Every scanner is linear: a candidate nested inside the run of an earlier,
// failed candidate of the same pattern can only see a subset of its run ends, so it is skipped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace cce::match {

/// Which rule of §3.3 found a key. The provider patterns are tried in this order.
enum class ApiKeyKind {
  kNone,
  kOpenAi,        // 1. (?<![A-Za-z0-9-])sk-[A-Za-z0-9_-]{20,}
  kAwsAccessKey,  // 2. \bAKIA[A-Z0-9]{16}\b
  kGitHubToken,   // 3. \bgh[posrt]_[A-Za-z0-9]{36,}\b
  kGitHubPat,     // 4. \bgithub_pat_[A-Za-z0-9_]{36,}\b
  kStripe,        // 5. \b[sr]k_(live|test)_[A-Za-z0-9]{24,}\b
  kSlack,         // 6. \bxox[bpra]-[A-Za-z0-9-]{20,}\b
  kSendGrid,      // 7. \bSG\.[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}\b
  kGitLab,        // 8. \bglpat-[A-Za-z0-9_-]{20,}\b
  kNpm,           // 9. \bnpm_[A-Za-z0-9]{36,}\b
  kGoogle,        // 10. \bAIza[A-Za-z0-9_-]{35}\b
  kGeneric,       // the generic token fallback, when its first match survives the rejection rule
};

/// The first rule of §3.3 that finds a key in `text`, or kNone.
ApiKeyKind findApiKey(std::u16string_view text);

/// True when any rule of §3.3 finds a key (`findApiKey(text) != kNone`, but stops at the first
/// provider match found).
bool hasApiKey(std::u16string_view text);

namespace detail {
struct ApiKeyScanState {
  std::uint32_t providers = 0;  // bit k: the provider pattern of ApiKeyKind k matched
  std::uint8_t generic = 0;     // the generic token: 0 undecided, 1 rejected, 2 accepted
  // Ends of the runs of failed candidates whose nested candidates must fail too (see above).
  std::size_t skipOpenAi = 0, skipSlack = 0, skipGitLab = 0;
};
}  // namespace detail

/// `hasApiKey` for a caller that already walks the text: every key lies inside one maximal
/// `[A-Za-z0-9_.-]` run of at least kMinRunLength units, so feed it exactly those runs, in text
/// order.
class ApiKeyRunScanner {
 public:
  static constexpr std::size_t kMinRunLength = 20;  // AKIA + 16; every other key is longer

  /// The run text[begin, end). True once the text is known to contain a key; it stays true.
  bool run(std::u16string_view text, std::size_t begin, std::size_t end);

 private:
  detail::ApiKeyScanState state_;
};

}  // namespace cce::match
