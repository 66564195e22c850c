// SPDX-License-Identifier: MIT
// SQL keyword scanner (spec §3.2): whole-word, ASCII case-insensitive, two-word keywords over
// `\s+`.
#include "match/sql_keywords.h"

#include <array>
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

constexpr std::size_t kMaxWordLength = 10;  // "CONSTRAINT"
constexpr std::size_t kBucketSize = 6;

// Keywords grouped by their first letter, so a prose word costs one table lookup in most cases.
struct Buckets {
  std::array<std::array<std::uint8_t, kBucketSize>, 26> index{};
  std::array<std::uint8_t, 26> count{};
  std::array<std::uint16_t, 26> lengths{};  // bit L: some first word of this letter has length L
};

constexpr Buckets makeBuckets() {
  Buckets b{};
  for (std::size_t k = 0; k < kKeywordCount; ++k) {
    std::size_t letter = static_cast<std::size_t>(kKeywords[k].first[0] - 'A');
    b.index[letter][b.count[letter]++] = static_cast<std::uint8_t>(k);
    b.lengths[letter] |= static_cast<std::uint16_t>(1u << kKeywords[k].first.size());
  }
  return b;
}
constexpr Buckets kBuckets = makeBuckets();

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

// True when text[begin, end) is exactly `upper` under ASCII case folding.
bool equalsUpper(std::u16string_view text, std::size_t begin, std::size_t end,
                 std::string_view upper) {
  if (end - begin != upper.size()) return false;
  for (std::size_t i = 0; i < upper.size(); ++i) {
    if (js::asciiUpper(text[begin + i]) != char16_t(upper[i])) return false;
  }
  return true;
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
    std::size_t next = j;
    char16_t lead = js::asciiUpper(text[i]);
    const std::size_t length = j - i;
    if (length <= kMaxWordLength && lead >= u'A' && lead <= u'Z' &&
        (kBuckets.lengths[lead - u'A'] & (1u << length)) != 0) {
      std::size_t letter = static_cast<std::size_t>(lead - u'A');
      for (std::size_t b = 0; b < kBuckets.count[letter]; ++b) {
        std::size_t k = kBuckets.index[letter][b];
        const Keyword& kw = kKeywords[k];
        if (!equalsUpper(text, i, j, kw.first)) continue;
        if (!kw.second.empty()) {
          std::size_t s = j;
          while (s < n && js::isSpace(text[s])) ++s;
          std::size_t e = s;
          while (e < n && isWordUnit(text[e])) ++e;
          if (s == j || !equalsUpper(text, s, e, kw.second)) break;
          next = e;
        }
        if (onMatch(k)) return;
        break;
      }
    }
    i = next;
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

}  // namespace

bool hasSqlContent(std::u16string_view text) {
  std::uint64_t seen = 0;
  bool found = false;
  scanKeywords(text, [&](std::size_t k) {
    seen |= std::uint64_t{1} << k;
    found = (seen & kStrongMask) != 0 || ((seen & kWeakMask) != 0 && popCount(seen) >= 3);
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

}  // namespace cce::match
