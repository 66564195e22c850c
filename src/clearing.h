// SPDX-License-Identifier: MIT
// Safe mode (issue 18): the texts that stand in for cleared or cut message contents.
//
// When a token budget cannot be met by summaries and omission stubs, the escalation ladder edits
// single messages in place — tool results first, as Anthropic's `clear_tool_uses` edit does, then
// other text — so that a tool call and its result stay paired. The originals go to `verbatim`, so
// `uncompress` restores them; these are only the replacement texts.
#pragma once

#include <cstddef>

#include "types.h"

namespace cce {

/// `[cce:cleared — N chars]` (U+2014 with one space on each side; N = the cleared content's length
/// in UTF-16 units, plain digits like the omission stubs), with `ledger` (ledger.h) before the `]`.
U16 clearedNote(std::size_t chars, const U16& ledger = U16());

/// The first and last parts of `text`, at most `keep` UTF-16 units in all (two thirds from the
/// head, one third from the tail, each ending at a line end when one is within a quarter of its
/// size; neither splits a surrogate pair), around `\n[cce:cut N chars]\n` where N is the number of
/// units left out. Returns `text` itself when `keep` leaves nothing out.
U16 headAndTail(std::u16string_view text, std::size_t keep);

/// The length headAndTail's note adds around the kept parts for a cut of `cut` units.
std::size_t cutNoteLength(std::size_t cut);

}  // namespace cce
