// SPDX-License-Identifier: MIT
// Spec §5: the deterministic extractive summariser.
//
// Units are sentences (`[^.!?\n]+[.!?]+`, trimmed) per paragraph (split on \n\n+); a paragraph
// without a sentence is one primary unit. Units are scored with integer weights, the best of each
// paragraph is primary, pools are packed greedily under `budget` (stable by score), and the
// selection is joined in document order with " ... ". The result never exceeds `budget` UTF-16 units.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace cce {

std::u16string summarize(std::u16string_view text, std::size_t budget);

/// The §5.2 score of one trimmed unit (exposed for table tests).
int scoreSentence(std::u16string_view sentence);

}  // namespace cce
