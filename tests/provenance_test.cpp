// SPDX-License-Identifier: MIT
// Summary ids and the summary wrapper: the spec's verified vectors (§1.6, §2.4).
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "jscompat/number.h"
#include "jscompat/string.h"
#include "provenance.h"

namespace {

cce::Scalar str(const char16_t* s) { return {cce::Scalar::Kind::String, s}; }

}  // namespace

TEST_SUITE("provenance") {
  TEST_CASE("summary ids match the reference's verified vectors") {
    struct Case {
      std::vector<const char16_t*> ids;
      const char16_t* expected;
    };
    const Case cases[] = {
        {{u"1"}, u"cce_sum_3t1y"},
        {{u"a"}, u"cce_sum_3t3a"},
        {{u"test-id"}, u"cce_sum_1o8pggv"},
        {{u"a", u"b"}, u"cce_sum_377088"},
        {{u"b", u"a"}, u"cce_sum_377088"},
        {{u"10", u"9"}, u"cce_sum_yjb8fz"},
        {{u"9", u"10"}, u"cce_sum_yjb8fz"},
        {{u"\u00e9"}, u"cce_sum_3t72"},
        {{u"\U0001F600"}, u"cce_sum_4lyxu"},
        {{u"msg_1", u"msg_2", u"msg_3"}, u"cce_sum_13gb2wd"},
        {{u""}, u"cce_sum_45h"},
    };
    for (const Case& c : cases) {
      std::vector<cce::Scalar> scalars;
      for (const char16_t* id : c.ids) scalars.push_back(str(id));
      std::vector<const cce::Scalar*> refs;
      for (const cce::Scalar& s : scalars) refs.push_back(&s);
      CAPTURE(cce::js::toUtf8(c.expected));
      CHECK(cce::makeSummaryId(refs) == c.expected);
    }
  }

  TEST_CASE("a single numeric id hashes nothing, like the reference") {
    cce::Scalar number{cce::Scalar::Kind::Number, u"42"};
    CHECK(cce::makeSummaryId({&number}) == u"cce_sum_45h");
  }

  TEST_CASE("several ids sort by UTF-16 code units, not code points") {
    // U+FF5E sorts after U+1F600's high surrogate (0xD83D) by code unit, before it by code point.
    cce::Scalar astral = str(u"\U0001F600"), wide = str(u"\uFF5E");
    CHECK(cce::makeSummaryId({&astral, &wide}) == cce::makeSummaryId({&wide, &astral}));
    const std::u16string key = std::u16string(u"\U0001F600") + u'\0' + u"\uFF5E";
    CHECK(cce::makeSummaryId({&wide, &astral}) ==
          u"cce_sum_" + cce::js::fromAscii(cce::js::toBase36(cce::djb2(key))));
  }

  TEST_CASE("the wrapper carries merge count, entities and the embedded id") {
    const std::u16string sid = u"cce_sum_377088";
    CHECK(cce::formatSummary(u"text", 1, {}, nullptr) == u"[summary: text]");
    CHECK(cce::formatSummary(u"text", 2, {}, nullptr) == u"[summary: text (2 messages merged)]");
    CHECK(cce::formatSummary(u"t", 3, {u"Redis", u"3 retries"}, &sid) ==
          u"[summary#cce_sum_377088: t (3 messages merged) | entities: Redis, 3 retries]");
    CHECK(cce::formatSummary(u"a ] b", 0, {}, nullptr) == u"[summary: a ] b]");
  }

  TEST_CASE("summary ids hash the sorted ids joined by U+0000, however many there are") {
    // makeSummaryId hashes the pieces in place; the key built whole must give the same id.
    const std::u16string pool[] = {u"", u"a", u"msg_1", u"msg_10", u"msg_2", u"\u00e9t\u00e9",
                                   u"\U0001F600", u"\uFF5E", u"id with spaces", u"9", u"10",
                                   std::u16string(300, u'z')};
    unsigned state = 11;
    std::size_t checked = 0;
    for (int round = 0; round < 2000; ++round) {
      std::vector<cce::Scalar> scalars;
      const unsigned count = 1 + (state = state * 1103515245u + 12345u) % 6;
      for (unsigned k = 0; k < count; ++k) {
        state = state * 1103515245u + 12345u;
        scalars.push_back(str(pool[(state >> 8) % (sizeof pool / sizeof pool[0])].c_str()));
      }
      std::vector<const cce::Scalar*> refs;
      std::vector<std::u16string> sorted;
      for (const cce::Scalar& s : scalars) {
        refs.push_back(&s);
        sorted.push_back(s.text);
      }
      std::sort(sorted.begin(), sorted.end());
      std::u16string key;
      for (std::size_t i = 0; i < sorted.size(); ++i) {
        if (i > 0) key += u'\0';
        key += sorted[i];
      }
      CHECK(cce::makeSummaryId(refs) ==
            u"cce_sum_" + cce::js::fromAscii(cce::js::toBase36(cce::djb2(key))));
      ++checked;
    }
    CHECK(checked == 2000);
  }

  TEST_CASE("formatSummaryLength is the length of the wrapper formatSummary builds") {
    // The pipeline's size guard decides with it whether entities can be kept, before building.
    const std::u16string sid = u"cce_sum_377088";
    const std::vector<std::vector<std::u16string>> entityLists = {
        {}, {u"Redis"}, {u"Redis", u"3 retries", u"getUserProfile"}, {u""}, {u"", u""}};
    std::size_t checked = 0;
    for (const std::u16string& text : {std::u16string(), std::u16string(u"t"),
                                       std::u16string(400, u'x')}) {
      for (std::size_t merged : {0, 1, 2, 9, 10, 99, 100, 12345}) {
        for (const auto& entities : entityLists) {
          for (const std::u16string* embedded : {static_cast<const std::u16string*>(nullptr), &sid}) {
            CAPTURE(merged);
            CAPTURE(entities.size());
            CHECK(cce::formatSummaryLength(text.size(), merged, entities, embedded) ==
                  cce::formatSummary(text, merged, entities, embedded).size());
            ++checked;
          }
        }
      }
    }
    CHECK(checked == 240);
  }
}
