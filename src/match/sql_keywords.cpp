// SPDX-License-Identifier: MIT
// SQL keyword scanner (spec §3.2): whole-word, ASCII case-insensitive, two-word keywords over
// `\s+`.
#include "match/sql_keywords.h"

#include <cstddef>
#include <cstdint>

#include "jscompat/string.h"

namespace cce::match {
namespace {

enum class Anchor : std::uint8_t { kNone, kWeak, kStrong };

struct Keyword {
  std::string_view first;
  std::string_view second;  // empty for one-word keywords
  Anchor anchor;
};

// The alternation of the reference pattern, in its order (which only matters for two-word keywords,
// see the header).
constexpr Keyword kKeywords[] = {
    {"SELECT", "", Anchor::kNone},
    {"FROM", "", Anchor::kNone},
    {"WHERE", "", Anchor::kWeak},
    {"JOIN", "", Anchor::kWeak},
    {"INSERT", "", Anchor::kNone},
    {"INTO", "", Anchor::kNone},
    {"UPDATE", "", Anchor::kNone},
    {"SET", "", Anchor::kNone},
    {"DELETE", "", Anchor::kNone},
    {"CREATE", "", Anchor::kNone},
    {"ALTER", "", Anchor::kNone},
    {"DROP", "", Anchor::kNone},
    {"TRUNCATE", "", Anchor::kStrong},
    {"MERGE", "", Anchor::kWeak},
    {"GRANT", "", Anchor::kWeak},
    {"REVOKE", "", Anchor::kWeak},
    {"HAVING", "", Anchor::kWeak},
    {"UNION", "", Anchor::kWeak},
    {"GROUP", "BY", Anchor::kStrong},
    {"ORDER", "BY", Anchor::kStrong},
    {"DISTINCT", "", Anchor::kWeak},
    {"LIMIT", "", Anchor::kNone},
    {"OFFSET", "", Anchor::kWeak},
    {"VALUES", "", Anchor::kWeak},
    {"PRIMARY", "KEY", Anchor::kStrong},
    {"FOREIGN", "KEY", Anchor::kStrong},
    {"NOT", "NULL", Anchor::kStrong},
    {"VARCHAR", "", Anchor::kStrong},
    {"INTEGER", "", Anchor::kStrong},
    {"BOOLEAN", "", Anchor::kStrong},
    {"CONSTRAINT", "", Anchor::kStrong},
    {"CASCADE", "", Anchor::kStrong},
    {"FETCH", "", Anchor::kNone},
    {"CURSOR", "", Anchor::kWeak},
    {"DECLARE", "", Anchor::kWeak},
    {"PROCEDURE", "", Anchor::kWeak},
    {"TRIGGER", "", Anchor::kWeak},
    {"SCHEMA", "", Anchor::kNone},
    {"VIEW", "", Anchor::kNone},
    {"RETURNING", "", Anchor::kStrong},
    {"ON", "CONFLICT", Anchor::kStrong},
    {"UPSERT", "", Anchor::kStrong},
    {"WITH", "RECURSIVE", Anchor::kStrong},
    {"INNER", "JOIN", Anchor::kStrong},
    {"LEFT", "JOIN", Anchor::kStrong},
    {"RIGHT", "JOIN", Anchor::kStrong},
    {"CROSS", "JOIN", Anchor::kStrong},
    {"FULL", "JOIN", Anchor::kStrong},
    {"NATURAL", "JOIN", Anchor::kStrong},
};
constexpr std::size_t kKeywordCount = sizeof(kKeywords) / sizeof(kKeywords[0]);
static_assert(kKeywordCount == 49 && kKeywordCount <= 64, "the distinct set is a 64-bit mask");

// The keywords whose first word has a given first letter and length: at most two (UPDATE and
// UPSERT share both), so a candidate word is compared with those alone.
constexpr std::uint8_t kNoEntry = 0xFF;

struct ByLeadAndLength {
  std::uint8_t index[26][16][2] = {};
};

constexpr ByLeadAndLength makeByLeadAndLength() {
  ByLeadAndLength t{};
  for (auto& letter : t.index) {
    for (auto& slot : letter) slot[0] = slot[1] = kNoEntry;
  }
  for (std::size_t k = 0; k < kKeywordCount; ++k) {
    const std::string_view w = kKeywords[k].first;
    std::uint8_t* slot = t.index[w[0] - 'A'][w.size()];
    slot[slot[0] == kNoEntry ? 0 : 1] = static_cast<std::uint8_t>(k);
  }
  return t;
}
constexpr ByLeadAndLength kByLeadAndLength = makeByLeadAndLength();

constexpr bool atMostTwoPerLeadAndLength() {
  for (std::size_t a = 0; a < kKeywordCount; ++a) {
    int same = 0;
    for (std::size_t b = 0; b < kKeywordCount; ++b) {
      same += kKeywords[a].first[0] == kKeywords[b].first[0] &&
              kKeywords[a].first.size() == kKeywords[b].first.size();
    }
    if (same > 2) return false;
  }
  return true;
}
static_assert(atMostTwoPerLeadAndLength(), "two slots per first letter and length");

// Anchors: the keywords that can settle hasSqlContent alone (see the header).
constexpr bool isAnchor(const Keyword& kw) {
  return kw.anchor != Anchor::kNone || !kw.second.empty();
}

constexpr bool plainKeywordsAreSingleWords() {
  for (const Keyword& kw : kKeywords) {
    if (isAnchor(kw)) continue;
    for (const Keyword& other : kKeywords) {
      if (!other.second.empty() && other.second == kw.first) return false;
    }
  }
  return true;
}
static_assert(plainKeywordsAreSingleWords(), "a plain keyword may be skipped without harm");

constexpr detail::SqlPrefilter makePrefilter() {
  detail::SqlPrefilter t{};
  for (std::size_t k = 0; k < kKeywordCount; ++k) {
    if (!isAnchor(kKeywords[k])) continue;
    const std::string_view w = kKeywords[k].first;
    const auto bit = static_cast<std::uint16_t>(1u << w.size());
    t.firstLast[((w[0] & 31) << 5) | (w.back() & 31)] |= bit;
    t.firstSecond[((w[0] & 31) << 5) | (w[1] & 31)] |= bit;
    t.firstPenultimate[((w[0] & 31) << 5) | (w[w.size() - 2] & 31)] |= bit;
  }
  return t;
}

constexpr std::uint64_t maskOf(Anchor anchor) {
  std::uint64_t mask = 0;
  for (std::size_t k = 0; k < kKeywordCount; ++k) {
    if (kKeywords[k].anchor == anchor) mask |= std::uint64_t{1} << k;
  }
  return mask;
}
constexpr std::uint64_t kStrongMask = maskOf(Anchor::kStrong);
constexpr std::uint64_t kWeakMask = maskOf(Anchor::kWeak);

// `\w` by table: this scan visits every unit of every text that reaches the classifier.
struct WordTable {
  bool word[128] = {};
};
constexpr WordTable makeWordTable() {
  WordTable t{};
  for (int c = 0; c < 128; ++c) t.word[c] = js::isWord(char16_t(c));
  return t;
}
constexpr WordTable kWordTable = makeWordTable();
constexpr bool isWordUnit(char16_t c) { return c < 128 && kWordTable.word[c]; }

// True when text[begin, begin + upper.size()) is `upper` under ASCII case folding: `| 0x20` maps
// only the two cases of a letter onto its lower case.
bool equalsUpperAt(std::u16string_view text, std::size_t begin, std::string_view upper) {
  for (std::size_t i = 0; i < upper.size(); ++i) {
    if ((text[begin + i] | 0x20) != (upper[i] | 0x20)) return false;
  }
  return true;
}

constexpr int kNoKeyword = -1;

// The keyword matched at the whole word text[begin, end), or kNoKeyword. For a two-word keyword,
// [*secondBegin, *secondEnd) is the second word it consumed.
int keywordAt(std::u16string_view text, std::size_t begin, std::size_t end,
              std::size_t* secondBegin, std::size_t* secondEnd) {
  const std::size_t length = end - begin;
  const unsigned letter = static_cast<unsigned>(text[begin] | 0x20) - u'a';
  if (letter >= 26 || length >= 16) return kNoKeyword;
  for (const std::uint8_t k : kByLeadAndLength.index[letter][length]) {
    if (k == kNoEntry) break;
    const Keyword& kw = kKeywords[k];
    if (!equalsUpperAt(text, begin, kw.first)) continue;
    if (kw.second.empty()) return k;
    const std::size_t n = text.size();
    std::size_t s = end;
    while (s < n && js::isSpace(text[s])) ++s;
    std::size_t e = s;
    while (e < n && isWordUnit(text[e])) ++e;
    if (s == end || e - s != kw.second.size() || !equalsUpperAt(text, s, kw.second)) {
      return kNoKeyword;
    }
    *secondBegin = s;
    *secondEnd = e;
    return k;
  }
  return kNoKeyword;
}

// Calls `onMatch(keywordIndex)` for each global match in order; stops when it returns true.
template <typename OnMatch>
void scanKeywords(std::u16string_view text, OnMatch onMatch) {
  const std::size_t n = text.size();
  std::size_t i = 0;
  while (i < n) {
    if (!isWordUnit(text[i])) {
      ++i;
      continue;
    }
    // A whole word [i, j): `\b` holds at both ends, and nowhere inside.
    std::size_t j = i + 1;
    while (j < n && isWordUnit(text[j])) ++j;
    std::size_t secondBegin = j, secondEnd = j;
    const int k = keywordAt(text, i, j, &secondBegin, &secondEnd);
    if (k != kNoKeyword && onMatch(static_cast<std::size_t>(k))) return;
    i = secondEnd;
  }
}

std::string normalised(const Keyword& kw) {
  std::string out(kw.first);
  if (!kw.second.empty()) {
    out += ' ';
    out += kw.second;
  }
  return out;
}

int popCount(std::uint64_t v) {
  int count = 0;
  for (; v != 0; v &= v - 1) ++count;
  return count;
}

bool isSqlSet(std::uint64_t seen) {
  return (seen & kStrongMask) != 0 || ((seen & kWeakMask) != 0 && popCount(seen) >= 3);
}

}  // namespace

namespace detail {
const SqlPrefilter kSqlPrefilter = makePrefilter();
}  // namespace detail

bool hasSqlContent(std::u16string_view text) {
  std::uint64_t seen = 0;
  bool found = false;
  scanKeywords(text, [&](std::size_t k) {
    seen |= std::uint64_t{1} << k;
    found = isSqlSet(seen);
    return found;
  });
  return found;
}

std::vector<std::string> sqlKeywords(std::u16string_view text) {
  std::vector<std::string> out;
  std::uint64_t seen = 0;
  scanKeywords(text, [&](std::size_t k) {
    std::uint64_t bit = std::uint64_t{1} << k;
    if ((seen & bit) == 0) out.push_back(normalised(kKeywords[k]));
    seen |= bit;
    return false;
  });
  return out;
}

bool SqlKeywordScanner::anchor(std::u16string_view text, std::size_t begin, std::size_t end) {
  if (begin == consumed_) return false;
  std::size_t secondBegin = end, secondEnd = end;
  const int k = keywordAt(text, begin, end, &secondBegin, &secondEnd);
  if (k == kNoKeyword) return false;
  if (secondBegin != end) consumed_ = secondBegin;
  seen_ |= std::uint64_t{1} << k;
  return isSqlSet(seen_);
}

bool SqlKeywordScanner::finish(std::u16string_view text) const {
  return (seen_ & kWeakMask) != 0 && hasSqlContent(text);
}

}  // namespace cce::match
