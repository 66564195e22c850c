// SPDX-License-Identifier: MIT
// Stand-ins for passthrough messages whose earlier `_cce_original` names this call's originals.
#include "earlier_provenance.h"

#include <map>

#include "provenance.h"

namespace cce {

void guardEarlierProvenance(const std::vector<Message>& messages, const CompressOptions& options,
                            CompressResult& result) {
  if (result.pending || result.verbatim.empty()) return;
  // The keys uncompress will find in the store: a map used as a set, the instantiation the
  // uncompress side of the module already has. (A breadth-first search over the links, linear in
  // every case, cost 0.35 KB more of the browser download than these passes.)
  std::map<U16, std::size_t> stored;
  for (const VerbatimEntry& entry : result.verbatim) stored[entry.key] = 1;
  // A pass makes a stand-in of every entry uncompress would read an old `_cce_original` from (no
  // fresh one) that names a stored key; the stand-in's own id is stored from then on, which can
  // expose more. Passes alternate direction, so a chain of such links in either order of the
  // output resolves in two passes; only links that zigzag through the output need more.
  const std::size_t n = result.messages.size();
  for (bool grew = true, forward = true; grew; forward = !forward) {
    grew = false;
    for (std::size_t step = 0; step < n; ++step) {
      OutputMessage& out = result.messages[forward ? step : n - 1 - step];
      const Message& source = messages[out.source];
      if (out.provenance || !source.cceIdsIsArray) continue;
      bool namesStored = false;
      for (const Scalar& id : source.cceIds) namesStored |= stored.find(id.text) != stored.end();
      if (!namesStored) continue;
      // Spec §1.6 for a group of one: its own id, its old summary id as the parent.
      Provenance& p = out.provenance.emplace();
      p.sources.push_back(out.source);
      p.summaryId = makeSummaryId({&source.id});
      if (source.cceSummaryId) p.parentIds.push_back(*source.cceSummaryId);
      p.version = options.sourceVersion;
      result.verbatim.push_back({source.idKey, out.source});
      stored[source.idKey] = 1;
      grew = true;
    }
  }
}

}  // namespace cce
