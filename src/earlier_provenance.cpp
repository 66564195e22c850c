// SPDX-License-Identifier: MIT
// Stand-ins for passthrough messages whose earlier `_cce_original` names this call's originals.
#include "earlier_provenance.h"

#include <cstdint>
#include <string_view>

#include "provenance.h"
#include "string_index.h"

namespace cce {

void guardEarlierProvenance(const std::vector<Message>& messages, const CompressOptions& options,
                            CompressResult& result) {
  if (result.pending || result.verbatim.empty()) return;

  // Output positions uncompress would read an old `_cce_original` from: entries without a fresh
  // one whose source carries a non-empty ids array (uncompress's own test, spec §11).
  std::vector<std::size_t> carriers;
  for (std::size_t k = 0; k < result.messages.size(); ++k) {
    const OutputMessage& out = result.messages[k];
    const Message& source = messages[out.source];
    if (!out.provenance && source.cceIdsIsArray && !source.cceIds.empty()) carriers.push_back(k);
  }
  if (carriers.empty()) return;

  // Every key involved gets a dense number before `verbatim` grows (the index keeps pointers into
  // it): this call's keys, the carriers' own ids, and the ids they name (uncompress looks an id up
  // by its string form).
  std::vector<const U16*> keys;
  StringIndex numberOf([&keys](std::uint32_t i) { return std::u16string_view(*keys[i]); });
  auto number = [&](const U16& key) {
    const std::uint32_t n = numberOf.intern(key);
    if (n == keys.size()) keys.push_back(&key);
    return n;
  };
  std::vector<std::uint32_t> stored;
  for (const VerbatimEntry& entry : result.verbatim) stored.push_back(number(entry.key));
  std::vector<std::uint32_t> ownNumber;
  std::vector<std::pair<std::uint32_t, std::size_t>> naming;  // (named key, carrier)
  for (std::size_t c = 0; c < carriers.size(); ++c) {
    const Message& source = messages[result.messages[carriers[c]].source];
    ownNumber.push_back(number(source.idKey));
    for (const Scalar& id : source.cceIds) naming.emplace_back(number(id.text), c);
  }
  // key -> the carriers naming it, as one flat list in key order (a counting sort).
  std::vector<std::size_t> firstNaming(keys.size() + 1, 0);
  for (const auto& [key, c] : naming) ++firstNaming[key + 1];
  for (std::size_t i = 1; i < firstNaming.size(); ++i) firstNaming[i] += firstNaming[i - 1];
  std::vector<std::size_t> namers(naming.size());
  {
    std::vector<std::size_t> fill(firstNaming.begin(), firstNaming.end() - 1);
    for (const auto& [key, c] : naming) namers[fill[key]++] = c;
  }

  // Breadth-first from this call's keys: a carrier naming a stored key becomes a stand-in, and
  // its own id is stored from then on.
  std::vector<char> isStored(keys.size(), 0);
  std::vector<char> guarded(carriers.size(), 0);
  std::vector<std::uint32_t> queue;
  for (std::uint32_t key : stored) {
    if (!isStored[key]) queue.push_back(key);
    isStored[key] = 1;
  }
  std::vector<std::size_t> standIns;
  for (std::size_t next = 0; next < queue.size(); ++next) {
    const std::uint32_t key = queue[next];
    for (std::size_t i = firstNaming[key]; i < firstNaming[key + 1]; ++i) {
      const std::size_t c = namers[i];
      if (guarded[c]) continue;
      guarded[c] = 1;
      standIns.push_back(c);
      if (!isStored[ownNumber[c]]) {
        isStored[ownNumber[c]] = 1;
        queue.push_back(ownNumber[c]);
      }
    }
  }

  // Applied in output order, so `verbatim` lists the stand-ins as the output does.
  std::vector<char> standsIn(result.messages.size(), 0);
  for (std::size_t c : standIns) standsIn[carriers[c]] = 1;
  for (std::size_t k = 0; k < result.messages.size(); ++k) {
    if (!standsIn[k]) continue;
    OutputMessage& out = result.messages[k];
    const Message& source = messages[out.source];
    Provenance p;
    p.sources.push_back(out.source);
    p.summaryId = makeSummaryId({&source.id});
    if (source.cceSummaryId) p.parentIds.push_back(*source.cceSummaryId);
    p.version = options.sourceVersion;
    out.provenance = std::move(p);
    result.verbatim.push_back({source.idKey, out.source});
  }
}

}  // namespace cce
