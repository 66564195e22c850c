// SPDX-License-Identifier: MIT
// The default mode's guard for messages that arrive already carrying `metadata._cce_original`:
// a summary from an earlier round, a message whose provenance an app copied, or one naming ids
// that exist nowhere.
//
// uncompress cannot tell who wrote a `_cce_original`: it expands every message whose ids it finds
// in the store. A message the engine passes through unchanged keeps its old `_cce_original`, so if
// one of the ids it names is also a key this call puts into `verbatim` (an original that sits in
// the same input and was compressed now), uncompress would replace the message by that original.
// Such a message is emitted instead as a stand-in: the same message with a fresh `_cce_original`
// naming only itself (the old summary id kept in `parent_ids`), and its original goes into
// `verbatim`. Its own id then becomes a key too, which may expose further messages: the guard
// follows those links until none is left. Compat mode keeps the reference's behaviour.
//
// Cost: one pass over the output (a map look-up per named id) when nothing needs a stand-in, as in
// every output of the engine's own rounds; links in output order or against it take two passes;
// only links that zigzag through the output (no round of the engine writes them) take one pass
// per turn.
#pragma once

#include <vector>

#include "types.h"

namespace cce {

/// Rewrites in place the passthrough entries of `result` whose source's `_cce_original.ids` name a
/// key of `result.verbatim` (directly or through another stand-in). Nothing changes when the
/// result is pending or `verbatim` is empty (the budget's fast path). Content, statistics and
/// token counts are unchanged: a stand-in has its source's content.
void guardEarlierProvenance(const std::vector<Message>& messages, const CompressOptions& options,
                            CompressResult& result);

}  // namespace cce
