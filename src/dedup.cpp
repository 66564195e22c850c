// SPDX-License-Identifier: MIT
// Spec §8: exact and fuzzy duplicate detection, and the reference formats for replaced messages.
#include "dedup.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "jscompat/number.h"
#include "jscompat/sort.h"
#include "jscompat/string.h"
#include "string_index.h"

namespace cce {
namespace {

constexpr std::size_t kMinDedupLength = 200;
constexpr std::size_t kFingerprintLines = 5;
constexpr std::size_t kMinFingerprintOverlap = 3;
constexpr std::size_t kMinNormalizedLines = 2;
constexpr double kMinLengthRatio = 0.7;

// The wasm size build interns every eligible content for exact dedup, without the length filter
// of findExactDuplicates.
#ifdef CCE_NO_DEDUP_LENGTH_FILTER
constexpr bool kDedupLengthFilter = false;
#else
constexpr bool kDedupLengthFilter = true;
#endif

// The wasm size build leaves the Unicode case tables out (2.4 KB gzip): its host lower-cases.
#ifdef CCE_NO_CASE_TABLES
constexpr bool kCaseTablesBuiltIn = false;
#else
constexpr bool kCaseTablesBuiltIn = true;
#endif

bool isEligible(const Message& m, const std::vector<U16>& preserveRoles) {
  if (isPreservedRole(m.role, preserveRoles)) return false;
  if (m.hasToolCalls) return false;
  if (!m.contentIsString) return false;
  if (startsWithCompressionMarker(m.content)) return false;
  return m.content.size() >= kMinDedupLength;
}

// Spec §8.1/§8.2 keep rule; `members` holds message indices in ascending order.
std::size_t chooseKeep(const std::vector<std::size_t>& members, std::size_t dedupStart) {
  if (dedupStart > 0) {
    for (std::size_t idx : members) {
      if (idx >= dedupStart) return idx;
    }
  }
  return members.back();
}

// A message's normalised lines as a multiset: (interned line id, count), sorted by id, so that the
// Jaccard of two messages is one linear merge.
struct LineBag {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> counts;
  std::uint32_t total = 0;  // number of normalised lines, with repetition
};

// Spec §8.2's overlap of two fingerprints: Σ over lines of the product of their multiplicities,
// which is the number of equal (entry of a, entry of b) pairs.
std::size_t overlap(const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b) {
  std::size_t sum = 0;
  for (std::uint32_t x : a) {
    for (std::uint32_t y : b) sum += x == y;
  }
  return sum;
}

// Σ min(countA, countB) over the common lines; Σ max is then totalA + totalB − Σ min.
double jaccard(const LineBag& a, const LineBag& b) {
  std::uint64_t inter = 0;
  auto ia = a.counts.begin(), ib = b.counts.begin();
  while (ia != a.counts.end() && ib != b.counts.end()) {
    if (ia->first < ib->first) {
      ++ia;
    } else if (ib->first < ia->first) {
      ++ib;
    } else {
      inter += std::min(ia->second, ib->second);
      ++ia;
      ++ib;
    }
  }
  std::uint64_t uni = std::uint64_t(a.total) + b.total - inter;
  if (uni == 0) return 1;
  return static_cast<double>(inter) / static_cast<double>(uni);
}

struct UnionFind {
  std::vector<std::size_t> parent;
  explicit UnionFind(std::size_t n) : parent(n) {
    for (std::size_t i = 0; i < n; ++i) parent[i] = i;
  }
  std::size_t find(std::size_t x) {
    while (parent[x] != x) {
      parent[x] = parent[parent[x]];
      x = parent[x];
    }
    return x;
  }
  // The smaller root wins, so the final forest does not depend on the order of unions.
  void unite(std::size_t a, std::size_t b) {
    a = find(a);
    b = find(b);
    if (a == b) return;
    if (b < a) std::swap(a, b);
    parent[b] = a;
  }
};

}  // namespace

bool startsWithCompressionMarker(std::u16string_view content) {
  return js::startsWithAscii(content, "[summary:") || js::startsWithAscii(content, "[summary#") ||
         js::startsWithAscii(content, "[truncated");
}

bool isPreservedRole(const Scalar& role, const std::vector<U16>& preserveRoles) {
  if (!role.isString() || role.text.empty()) return false;
  return std::find(preserveRoles.begin(), preserveRoles.end(), role.text) != preserveRoles.end();
}

ExactDuplicateGroups findExactDuplicates(const std::vector<Message>& messages,
                                         const std::vector<U16>& preserveRoles) {
  ExactDuplicateGroups groups;  // in order of first appearance
  auto contentOfGroup = [&](std::uint32_t g) {
    return std::u16string_view(messages[groups[g].front()].content);
  };
  StringIndex groupOf(contentOfGroup);
  auto add = [&](std::size_t i) {
    const std::uint32_t g = groupOf.intern(messages[i].content);
    if (g == groups.size()) groups.emplace_back();
    groups[g].push_back(i);
  };
  if (!kDedupLengthFilter) {
    for (std::size_t i = 0; i < messages.size(); ++i) {
      if (isEligible(messages[i], preserveRoles)) add(i);
    }
  } else {
    // Equal contents have equal lengths, and many eligible lengths occur once (1,068 of the scale
    // session's 2,420 contents): only contents whose length another eligible one shares are
    // hashed and interned, which spares reading the others' units. The groups this leaves out
    // would have one member each, and the others keep their order of first appearance.
    std::vector<std::size_t> eligible;
    for (std::size_t i = 0; i < messages.size(); ++i) {
      if (isEligible(messages[i], preserveRoles)) eligible.push_back(i);
    }
    std::vector<std::size_t> byLength = eligible;
    js::stableSort(byLength, [&messages](std::size_t a, std::size_t b) {
      return messages[a].content.size() < messages[b].content.size();
    });
    std::vector<char> shared(messages.size(), 0);
    for (std::size_t k = 1; k < byLength.size(); ++k) {
      if (messages[byLength[k - 1]].content.size() == messages[byLength[k]].content.size()) {
        shared[byLength[k - 1]] = shared[byLength[k]] = 1;
      }
    }
    for (std::size_t i : eligible) {
      if (shared[i]) add(i);
    }
  }
  groups.erase(std::remove_if(groups.begin(), groups.end(),
                              [](const std::vector<std::size_t>& g) { return g.size() < 2; }),
               groups.end());
  return groups;
}

DedupAnnotations annotateExactDuplicates(const std::vector<Message>& messages,
                                         const ExactDuplicateGroups& groups,
                                         std::size_t dedupStart) {
  DedupAnnotations annotations(messages.size());
  for (const std::vector<std::size_t>& members : groups) {
    std::size_t keep = chooseKeep(members, dedupStart);
    for (std::size_t idx : members) {
      if (idx == keep) continue;
      annotations[idx] = DedupAnnotation{keep, messages[keep].content.size(), std::nullopt};
    }
  }
  return annotations;
}

DedupAnnotations analyzeDuplicates(const std::vector<Message>& messages, std::size_t dedupStart,
                                   const std::vector<U16>& preserveRoles) {
  return annotateExactDuplicates(messages, findExactDuplicates(messages, preserveRoles),
                                 dedupStart);
}

void analyzeFuzzyDuplicates(const std::vector<Message>& messages, std::size_t dedupStart,
                            const std::vector<U16>& preserveRoles, double threshold,
                            DedupAnnotations& annotations, std::size_t candidatesPerLine,
                            FuzzyDedupWork* work) {
  if (annotations.size() < messages.size()) annotations.resize(messages.size());

  // Interning turns every normalised line into a small integer, so the candidate phase never
  // touches text again.
  U16 lineText;                           // the distinct lines, back to back
  std::vector<std::size_t> lineStart{0};  // line id -> its start in lineText, then the end
  auto lineAt = [&](std::uint32_t id) {
    return std::u16string_view(lineText).substr(lineStart[id], lineStart[id + 1] - lineStart[id]);
  };
  StringIndex lineIds(lineAt);
  std::vector<std::size_t> eligible;               // position -> message index
  std::vector<LineBag> bags;                       // per position
  std::vector<std::vector<std::uint32_t>> prints;  // per position: first 5 line ids
  std::vector<std::uint32_t> ids;
  for (std::size_t i = 0; i < messages.size(); ++i) {
    const Message& m = messages[i];
    if (annotations[i] || !isEligible(m, preserveRoles)) continue;
    ids.clear();
    // The host's lower-casing of the whole text when it sent one (Message::lowered), else each
    // line's own. A build without case tables relies on the host for every candidate.
    if (!kCaseTablesBuiltIn && !m.lowered) continue;
    const bool lowerEachLine = !m.lowered;
    U16 lower;
    const js::U16View text = m.lowered ? js::U16View(*m.lowered) : m.content.view();
    for (js::U16View line : js::splitOn(text, u'\n')) {
      js::U16View trimmed = js::trimView(line);
      if (trimmed.empty()) continue;
      js::U16View key = trimmed;
      if (kCaseTablesBuiltIn && lowerEachLine) {
        lower = js::toLowerCase(trimmed);
        key = lower;
      }
      const std::uint32_t id = lineIds.intern(key);
      if (id + 1 == lineStart.size()) {
        lineText += key;
        lineStart.push_back(lineText.size());
      }
      ids.push_back(id);
    }
    if (ids.size() < kMinNormalizedLines) continue;
    eligible.push_back(i);
    prints.emplace_back(ids.begin(), ids.begin() + std::min(ids.size(), kFingerprintLines));
    js::stableSort(ids, [](std::uint32_t a, std::uint32_t b) { return a < b; });
    LineBag bag;
    bag.total = static_cast<std::uint32_t>(ids.size());
    for (std::uint32_t id : ids) {
      if (!bag.counts.empty() && bag.counts.back().first == id) {
        ++bag.counts.back().second;
      } else {
        bag.counts.emplace_back(id, 1);
      }
    }
    bags.push_back(std::move(bag));
  }
  const std::size_t count = eligible.size();
  if (count < 2) return;

  // line id -> positions, one entry per occurrence in that position's fingerprint; positions are
  // appended in increasing order, so each list is sorted.
  std::vector<std::vector<std::size_t>> postings(lineIds.size());
  for (std::size_t p = 0; p < count; ++p) {
    for (std::uint32_t id : prints[p]) postings[id].push_back(p);
  }

  UnionFind uf(count);
  std::vector<std::size_t> metBy(count, count);  // the position that last met each position
  std::vector<std::size_t> met;
  for (std::size_t a = 0; a < count; ++a) {
    met.clear();
    for (std::uint32_t id : prints[a]) {
      const std::vector<std::size_t>& list = postings[id];
      auto it = std::upper_bound(list.begin(), list.end(), a);
      const std::size_t after = static_cast<std::size_t>(list.end() - it);
      const auto end = it + static_cast<std::ptrdiff_t>(std::min(after, candidatesPerLine));
      for (; it != end; ++it) {
        if (metBy[*it] != a) {
          metBy[*it] = a;
          met.push_back(*it);
        }
      }
    }
    if (work) work->pairsVisited += met.size();
    for (std::size_t b : met) {
      // Counted over all five lines, whichever list met b.
      if (overlap(prints[a], prints[b]) < kMinFingerprintOverlap) continue;
      double lenA = static_cast<double>(messages[eligible[a]].content.size());
      double lenB = static_cast<double>(messages[eligible[b]].content.size());
      if (std::min(lenA, lenB) / std::max(lenA, lenB) < kMinLengthRatio) continue;
      if (uf.find(a) == uf.find(b)) continue;  // already one group: a match would change nothing
      if (work) ++work->similarities;
      if (jaccard(bags[a], bags[b]) >= threshold) uf.unite(a, b);
    }
  }

  // Group positions by root; iterating positions in order keeps every group sorted by message
  // index.
  std::vector<std::vector<std::size_t>> groupOfRoot(count);
  for (std::size_t p = 0; p < count; ++p) groupOfRoot[uf.find(p)].push_back(p);
  std::vector<std::size_t> memberIndices;
  for (const std::vector<std::size_t>& group : groupOfRoot) {
    if (group.size() < 2) continue;
    memberIndices.clear();
    for (std::size_t p : group) memberIndices.push_back(eligible[p]);
    std::size_t keepIndex = chooseKeep(memberIndices, dedupStart);
    std::size_t keepPos = group[std::find(memberIndices.begin(), memberIndices.end(), keepIndex) -
                                memberIndices.begin()];
    for (std::size_t p : group) {
      if (p == keepPos) continue;
      // A matched pair's stored similarity is this same exact quotient (Jaccard is symmetric and
      // built from integer sums), so computing it here covers matched and transitive members alike.
      std::size_t index = eligible[p];
      annotations[index] = DedupAnnotation{keepIndex, messages[index].content.size(),
                                           jaccard(bags[p], bags[keepPos])};
    }
  }
}

std::u16string formatDuplicateRef(const DedupAnnotation& annotation,
                                  const std::u16string& keepIdKey) {
  U16 out;
  if (annotation.similarity) {
    out = js::fromAscii("[cce:near-dup of ");
  } else {
    out = js::fromAscii("[cce:dup of ");
  }
  out += keepIdKey;
  out += u" \u2014 ";
  js::appendDecimal(out, annotation.contentLength);
  out += js::fromAscii(" chars");
  if (annotation.similarity) {
    out += js::fromAscii(", ~");
    // Similarity lies in [0, 1], so the rounded percentage is an integer from 0 to 100.
    double percent = js::mathRound(*annotation.similarity * 100);
    js::appendDecimal(out, static_cast<std::size_t>(percent));
    out += js::fromAscii("% match");
  }
  out += u']';
  return out;
}

}  // namespace cce
