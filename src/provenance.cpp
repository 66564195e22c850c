// SPDX-License-Identifier: MIT
// Summary ids and the summary wrapper (spec §1.6, §2.4).
#include "provenance.h"

#include <algorithm>

#include "compiler.h"
#include "jscompat/number.h"
#include "jscompat/sort.h"
#include "jscompat/string.h"

namespace cce {

std::uint32_t djb2(const U16& key) {
  std::uint32_t h = 5381;
  for (char16_t c : key) h = h * 33u + static_cast<std::uint32_t>(c);
  return h;
}

namespace {
// A group's ids in the order its key joins them. JS default sort compares String(id) by UTF-16
// code units: u16string's operator< does exactly that. Stable, like V8's TimSort, although equal
// strings make the order irrelevant here.
std::vector<const U16*> idTextsInKeyOrder(const std::vector<const Scalar*>& ids) {
  std::vector<const U16*> sorted;
  sorted.reserve(ids.size());
  for (const Scalar* id : ids) sorted.push_back(&id->text);
  js::stableSort(sorted, [](const U16* a, const U16* b) { return *a < *b; });
  return sorted;
}
}  // namespace

#ifdef CCE_NO_SIZED_SUMMARIES
// The size-built module (wasm/CMakeLists.txt) hashes a copy of the key.
U16 makeSummaryId(const std::vector<const Scalar*>& ids) {
  U16 key;
  if (ids.size() == 1) {
    // The reference hashes the single id as is: a non-string id has no `.length`, so nothing is
    // hashed and the id is cce_sum_45h (spec §1.6 quirk).
    if (ids[0]->isString()) key = ids[0]->text;
  } else {
    const std::vector<const U16*> sorted = idTextsInKeyOrder(ids);
    for (std::size_t i = 0; i < sorted.size(); ++i) {
      if (i > 0) key.push_back(u'\0');
      key += *sorted[i];
    }
  }
  return u"cce_sum_" + js::fromAscii(js::toBase36(djb2(key)));
}
#else
// djb2 runs over the key's pieces where they are (the key is never joined into a copy), and the
// id is built in one allocation: a summary id per summarised group.
U16 makeSummaryId(const std::vector<const Scalar*>& ids) {
  std::uint32_t h = 5381;
  auto feed = [&h](const U16& piece) {
    for (char16_t c : piece) h = h * 33u + static_cast<std::uint32_t>(c);
  };
  if (ids.size() == 1) {
    // The reference hashes the single id as is: a non-string id has no `.length`, so nothing is
    // hashed and the id is cce_sum_45h (spec §1.6 quirk).
    if (ids[0]->isString()) feed(ids[0]->text);
  } else {
    const std::vector<const U16*> sorted = idTextsInKeyOrder(ids);
    for (std::size_t i = 0; i < sorted.size(); ++i) {
      if (i > 0) h *= 33u;  // the U+0000 between two ids
      feed(*sorted[i]);
    }
  }
  const std::string digits = js::toBase36(h);  // at most 7: no allocation
  U16 id;
  id.reserve(8 + digits.size());
  id += u"cce_sum_";
  for (char d : digits) id.push_back(static_cast<char16_t>(d));
  return id;
}
#endif

namespace {
// The frame's literals, whose lengths formatSummaryLength adds up.
constexpr std::u16string_view kOpenEmbedded = u"[summary#";
constexpr std::u16string_view kEmbeddedColon = u": ";
constexpr std::u16string_view kOpen = u"[summary: ";
constexpr std::u16string_view kMergedOpen = u" (";
constexpr std::u16string_view kMergedClose = u" messages merged)";
constexpr std::u16string_view kEntities = u" | entities: ";
constexpr std::u16string_view kEntitySeparator = u", ";
constexpr std::u16string_view kClose = u"]";

std::size_t decimalLength(std::size_t n) {
  std::size_t digits = 1;
  for (; n >= 10; n /= 10) ++digits;
  return digits;
}
}  // namespace

CCE_NOINLINE std::size_t formatSummaryLength(std::size_t textLength, std::size_t mergedCount,
                                const std::vector<U16>& entities, const U16* embeddedSummaryId) {
  std::size_t length = textLength + kClose.size();
  length += embeddedSummaryId
                ? kOpenEmbedded.size() + embeddedSummaryId->size() + kEmbeddedColon.size()
                : kOpen.size();
  if (mergedCount >= 2) {
    length += kMergedOpen.size() + decimalLength(mergedCount) + kMergedClose.size();
  }
  if (!entities.empty()) {
    length += kEntities.size() + kEntitySeparator.size() * (entities.size() - 1);
    for (const U16& entity : entities) length += entity.size();
  }
  return length;
}

#ifdef CCE_NO_SIZED_SUMMARIES
// The size-built module (wasm/CMakeLists.txt) lets the wrapper grow as it is built.
U16 formatSummary(const U16& text, std::size_t mergedCount, const std::vector<U16>& entities,
                  const U16* embeddedSummaryId) {
  U16 out;
  out.reserve(text.size() + 64);
  if (embeddedSummaryId) {
    out += u"[summary#";
    out += *embeddedSummaryId;
    out += u": ";
  } else {
    out += u"[summary: ";
  }
  out += text;
  if (mergedCount >= 2) {
    out += u" (";
    js::appendDecimal(out, mergedCount);
    out += u" messages merged)";
  }
  if (!entities.empty()) {
    out += u" | entities: ";
    for (std::size_t i = 0; i < entities.size(); ++i) {
      if (i > 0) out += u", ";
      out += entities[i];
    }
  }
  out += u"]";
  return out;
}
#else
U16 formatSummary(const U16& text, std::size_t mergedCount, const std::vector<U16>& entities,
                  const U16* embeddedSummaryId) {
  // Sized once and filled in place: the summary and its entities used to outgrow a guess.
  U16 out(formatSummaryLength(text.size(), mergedCount, entities, embeddedSummaryId), u'\0');
  char16_t* at = out.data();
  auto put = [&at](std::u16string_view piece) {
    at = std::copy(piece.begin(), piece.end(), at);
  };
  if (embeddedSummaryId) {
    put(kOpenEmbedded);
    put(*embeddedSummaryId);
    put(kEmbeddedColon);
  } else {
    put(kOpen);
  }
  put(text);
  if (mergedCount >= 2) {
    put(kMergedOpen);
    U16 digits;  // a group's few digits fit the string's own buffer: no allocation
    js::appendDecimal(digits, mergedCount);
    put(digits);
    put(kMergedClose);
  }
  if (!entities.empty()) {
    put(kEntities);
    for (std::size_t i = 0; i < entities.size(); ++i) {
      if (i > 0) put(kEntitySeparator);
      put(entities[i]);
    }
  }
  put(kClose);
  return out;
}
#endif

}  // namespace cce
