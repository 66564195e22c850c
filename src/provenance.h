// SPDX-License-Identifier: MIT
// Spec §1.6: summary ids (djb2 over UTF-16 code units, base 36) and the summary wrapper format (§2.4).
#pragma once

#include <string>
#include <vector>

#include "types.h"

namespace cce {

/// "cce_sum_" + base36(djb2(key)); key = the single id as is (a non-string id hashes nothing), or the
/// ids' string forms sorted by UTF-16 code units and joined with U+0000.
U16 makeSummaryId(const std::vector<const Scalar*>& ids);

/// djb2 with unsigned 32-bit wrap-around over UTF-16 code units (h = h*33 + c).
std::uint32_t djb2(const U16& key);

/// `[summary: TEXT MERGE ENTITIES]` or `[summary#SID: ...]` (§2.4). `mergedCount` >= 2 adds
/// " (N messages merged)"; non-empty `entities` add " | entities: a, b".
U16 formatSummary(const U16& text, std::size_t mergedCount, const std::vector<U16>& entities,
                  const U16* embeddedSummaryId);

/// The length formatSummary's result would have for a text of `textLength` units, without
/// building it.
std::size_t formatSummaryLength(std::size_t textLength, std::size_t mergedCount,
                                const std::vector<U16>& entities, const U16* embeddedSummaryId);

}  // namespace cce
