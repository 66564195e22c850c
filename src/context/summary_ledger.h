// SPDX-License-Identifier: MIT
// What a checkpoint's deterministic summary keeps verbatim (issue 20, item 4): the artifacts of
// its range (a user's requests, error lines, paths, URLs, hashes, commands, versions, quantities,
// identifiers: ledger.h's rules), newest message first, on one line after the stats line:
//   12 messages (4 user, 4 assistant, 4 tool); tools used: Read, Edit.
//   Artifacts: src/app.ts, retryConfig, "TypeError: x is undefined", `npm test`, 512 MB
//   <the summariser's sentences>
// A model that continues after a compaction mostly reuses what the last turns before it named
// (the file it was editing, the function, the error): the summariser's sentences keep the gist
// and drop most of those strings, so the replays of scripts/bench-cost.mjs lost about one in
// twelve of the strings the next call used. Newest first, because the strings named last are
// the ones the next call uses most.
//
// A merged checkpoint has no raw range: its line is made from the lines of the summaries it
// merges, the newer one's items first.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "json/value.h"
#include "types.h"

namespace cce::context {

using json::Value;

/// The line's prefix; a deterministic summary's body starts with it when the range had artifacts.
inline constexpr std::u16string_view kArtifactsPrefix = u"Artifacts: ";

/// The distinct artifacts of history[start, end): the newest message's first (each message's in
/// order of appearance), while their units plus a separator each stay within `maxUnits`.
/// `steps`, when given, is increased by the units read.
/// Items in `known` (the lines of the summaries before the range, which the view still sends;
/// repeats allowed) are left out: the units go to items the view does not hold yet.
std::vector<U16> rangeArtifacts(const std::vector<Value>& messages, std::size_t start,
                                std::size_t end, std::size_t maxUnits, std::size_t* steps = nullptr,
                                const std::vector<U16>* known = nullptr);

/// The items of the artifacts line `body` starts with (none when it has no such line).
std::vector<U16> artifactItems(std::u16string_view body);

/// The distinct items of the artifacts lines of `bodies` (oldest first, as merged): the newest
/// body's first, within `maxUnits` as above.
std::vector<U16> mergedArtifacts(const std::vector<std::u16string_view>& bodies,
                                 std::size_t maxUnits);

/// The names of a tool call's arguments (the keys of its `function.arguments` object, when that
/// parses as one, then of the objects inside it), distinct, each at most kArgumentNameUnits long.
std::vector<U16> callArgumentNames(const Value& call);
inline constexpr std::size_t kArgumentNameUnits = 40;

/// `body` without its leading artifacts line.
std::u16string_view withoutArtifacts(std::u16string_view body);

/// "Artifacts: a, b, c" with the leading items whose line stays within `maxUnits` (an item that
/// does not fit is skipped, a shorter one after it may still fit); empty when none fits.
U16 artifactsLine(const std::vector<U16>& items, std::size_t maxUnits);

}  // namespace cce::context
