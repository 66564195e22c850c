// SPDX-License-Identifier: MIT
// Spec §8: exact and fuzzy duplicate detection, and the reference formats for replaced messages.
//
// Eligibility: role not preserved, no non-empty tool_calls, string content of >= 200 units that does
// not start with a compression marker. Exact groups keep the first member at or after `dedupStart`
// (when dedupStart > 0), else the last. Fuzzy dedup compares normalised lines (trimmed, full-Unicode
// lower-cased, non-empty) by multiset Jaccard among candidate pairs that share >= 3 fingerprint lines
// and whose lengths are within 0.7; matches are grouped by union-find. The default mode bounds the
// candidates each message meets (kFuzzyCandidatesPerLine); compat mode compares them all.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "types.h"

namespace cce {

struct DedupAnnotation {
  std::size_t duplicateOfIndex = 0;
  std::size_t contentLength = 0;     // exact: the keep target's length; fuzzy: the member's own
  std::optional<double> similarity;  // set for fuzzy annotations only
};

using DedupAnnotations = std::vector<std::optional<DedupAnnotation>>;  // one slot per message

/// Groups (>= 2 members, indices ascending) of eligible messages with identical content, in order of
/// first appearance. Independent of the recency window, so a budget search computes it once.
using ExactDuplicateGroups = std::vector<std::vector<std::size_t>>;
ExactDuplicateGroups findExactDuplicates(const std::vector<Message>& messages,
                                         const std::vector<U16>& preserveRoles);

/// Spec §8.1 keep rule over precomputed groups.
DedupAnnotations annotateExactDuplicates(const std::vector<Message>& messages,
                                         const ExactDuplicateGroups& groups,
                                         std::size_t dedupStart);

/// Spec §8.1 (findExactDuplicates + annotateExactDuplicates). `preserveRoles` is options.preserve.
DedupAnnotations analyzeDuplicates(const std::vector<Message>& messages, std::size_t dedupStart,
                                   const std::vector<U16>& preserveRoles);

/// What a fuzzy pass did, for tests that check how it grows with the input.
struct FuzzyDedupWork {
  std::size_t pairsVisited = 0;  // candidate pairs reached through a shared fingerprint line
  std::size_t similarities = 0;  // Jaccard similarities computed
};

/// No bound: every pair sharing a fingerprint line is visited, as spec §8.2 counts them.
constexpr std::size_t kAllFuzzyCandidates = static_cast<std::size_t>(-1);
/// The default mode's bound: from each message, at most this many later messages per fingerprint
/// line (the nearest ones in message order).
constexpr std::size_t kFuzzyCandidatesPerLine = 128;

/// Spec §8.2: adds fuzzy annotations to `annotations` for messages it does not already annotate.
///
/// `candidatesPerLine` bounds the work. Spec §8.2 compares every pair of messages that share three
/// fingerprint lines: n messages with the same first lines (tool outputs under one header) cost
/// n² / 2 similarities. With a bound, a message meets at most that many later messages through
/// each of its fingerprint lines; the overlap of every pair met is still counted over all five
/// lines, so a pair that shares a line few messages have is always compared. What a bound can
/// miss is a match between two messages whose shared fingerprint lines all recur in more than
/// `candidatesPerLine` messages between them, none of which matches either: such pairs stay
/// apart. Pairs already in one group are never compared again (exact: groups are connected
/// components). `work`, when given, counts the pass's work.
void analyzeFuzzyDuplicates(const std::vector<Message>& messages, std::size_t dedupStart,
                            const std::vector<U16>& preserveRoles, double threshold,
                            DedupAnnotations& annotations,
                            std::size_t candidatesPerLine = kAllFuzzyCandidates,
                            FuzzyDedupWork* work = nullptr);

/// Spec §8.3: `[cce:dup of <keepId> — <len> chars]` or `[cce:near-dup of <keepId> — <len> chars,
/// ~<pct>% match]`.
std::u16string formatDuplicateRef(const DedupAnnotation& annotation, const std::u16string& keepIdKey);

/// Shared by dedup eligibility and classification rule 5: content starts with `[summary:`,
/// `[summary#` or `[truncated`.
bool startsWithCompressionMarker(std::u16string_view content);

/// `roles.has(role)`: role is a non-empty string listed in `preserveRoles`.
bool isPreservedRole(const Scalar& role, const std::vector<U16>& preserveRoles);

}  // namespace cce
