// SPDX-License-Identifier: MIT
// Tests for the answer writers: the binary form says what the JSON form says, in its own layout.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "answer_reader.h"
#include "answer_writer.h"
#include "cli/conformance.h"
#include "json_io.h"
#include "jscompat/json_writer.h"
#include "jscompat/string.h"

namespace cce {
namespace {

using json::Value;

// The single-quoted strings of the TypeScript array that follows `opening` in js/src/`file`.
std::vector<std::string> jsList(const char* file, const char* opening) {
  std::string source;
  REQUIRE(cli::readFile(std::string(CCE_SOURCE_DIR) + "/js/src/" + file, source));
  const std::size_t start = source.find(opening);
  REQUIRE(start != std::string::npos);
  const std::size_t end = source.find(']', start);
  std::vector<std::string> items;
  for (std::size_t at = source.find('\'', start); at < end; at = source.find('\'', at + 1)) {
    const std::size_t close = source.find('\'', at + 1);
    items.push_back(source.substr(at + 1, close - at - 1));
    at = close;
  }
  return items;
}

// The same sequence of writes through both writers.
template <class W>
std::string writeSample() {
  W w;
  w.beginObject();
  w.key(u"ok");
  w.boolean(true);
  w.key(u"plan");
  w.beginObject();
  w.key(u"messages");
  w.beginArray();
  w.index(0);
  w.beginObject();
  w.key(u"s");
  w.index(1);
  w.key(u"c");
  w.string(u"quote \" backslash \\ newline \n tab \t \u00e9 \U0001F600 \x01");
  w.endObject();
  w.beginArray();
  w.endArray();
  w.beginObject();
  w.endObject();
  w.endArray();
  w.key(u"ratio");
  w.number(1.0 / 3.0);
  w.key(u"tiny");
  w.number(5e-324);
  w.key(u"big");
  w.number(1e21);
  w.key(u"negativeZero");
  w.number(-0.0);
  w.key(u"error");
  w.utf8("caf\xc3\xa9 /messages/3");
  w.key(u"nothing");
  w.null();
  w.key(u"no");
  w.boolean(false);
  w.endObject();
  w.endObject();
  return w.take();
}

Value decode(const std::string& bytes) {
  Result<Value> v = test::AnswerReader(bytes).read();
  REQUIRE_MESSAGE(v.ok(), (v.ok() ? "" : v.error().message));
  return v.value();
}

std::uint32_t wordAt(const std::string& bytes, std::size_t at) {
  std::uint32_t w = 0;
  std::memcpy(&w, bytes.data() + at, 4);
  return w;
}

}  // namespace

TEST_SUITE("answer_writer") {
  TEST_CASE("the binary answer decodes to the JSON answer, number texts included") {
    const std::string json = writeSample<JsonAnswer>();
    const std::string bytes = writeSample<BytesAnswer>();
    CHECK(parseJson(json).ok());
    CHECK(js::toJson(decode(bytes)) == json);
    CHECK(bytes.size() % 4 == 0);
  }

  TEST_CASE("the pool is flagged when it holds a lone surrogate, and units cross as they are") {
    const std::u16string high(1, char16_t(0xD800)), low(1, char16_t(0xDC00));
    struct Case {
      std::vector<std::u16string> strings;
      bool lone;
    } cases[] = {
        {{}, false},
        {{u""}, false},
        {{u"plain", u"pair \xD83D\xDE00 ok"}, false},
        {{high}, true},
        {{low}, true},
        {{u"x" + std::u16string(1, char16_t(0xDBFF))}, true},     // a high at the end
        {{low + high}, true},                                      // reversed
        {{high + high + low}, true},                               // a high before a pair
        // Each string alone is not well-formed, but the pool is: a UTF-16 decoder keeps both units
        // of the pair, and the slices split them again.
        {{u"ends high " + high, low + u" starts low"}, false},
    };
    for (const Case& c : cases) {
      CAPTURE(c.strings.size());
      BytesAnswer w;
      w.beginArray();
      for (const std::u16string& s : c.strings) w.string(s);
      w.endArray();
      const std::string bytes = w.take();
      test::AnswerReader reader(bytes);
      Result<Value> v = reader.read();  // the reader also checks the flag against the pool
      REQUIRE_MESSAGE(v.ok(), (v.ok() ? "" : v.error().message));
      CHECK(((reader.flags() & kAnswerPoolHasLoneSurrogate) != 0) == c.lone);
      REQUIRE(v->items.size() == c.strings.size());
      for (std::size_t i = 0; i < c.strings.size(); ++i) CHECK(v->items[i].string == c.strings[i]);
    }
    CHECK_FALSE(hasLoneSurrogate(u"pair \xD83D\xDE00"));
    CHECK(hasLoneSurrogate(high));
  }

  TEST_CASE("hasLoneSurrogate agrees with a unit-by-unit reading wherever the surrogates sit") {
    // The scan skips four units at a time: put a lone high, a lone low, a pair and a reversed pair
    // at every offset of a 13-unit text, so each lands on every lane and across block edges.
    auto reference = [](std::u16string_view s) {
      for (std::size_t i = 0; i < s.size(); ++i) {
        const char16_t c = s[i];
        if (c >= 0xD800 && c <= 0xDBFF && i + 1 < s.size() && s[i + 1] >= 0xDC00 &&
            s[i + 1] <= 0xDFFF) {
          ++i;
        } else if (c >= 0xD800 && c <= 0xDFFF) {
          return true;
        }
      }
      return false;
    };
    const std::u16string inserts[] = {std::u16string{char16_t(0xD83D)},
                                      std::u16string{char16_t(0xDE00)},
                                      std::u16string{char16_t(0xD83D), char16_t(0xDE00)},
                                      std::u16string{char16_t(0xDE00), char16_t(0xD83D)},
                                      std::u16string{char16_t(0xD7FF), char16_t(0xE000)}};
    int lone = 0;
    for (const std::u16string& insert : inserts) {
      for (std::size_t at = 0; at <= 13; ++at) {
        std::u16string text(13, u'a');
        text.insert(at, insert);
        CAPTURE(at);
        CHECK(hasLoneSurrogate(text) == reference(text));
        lone += reference(text) ? 1 : 0;
      }
    }
    CHECK(lone == 3 * 14);  // the lone high, the lone low and the reversed pair, at every offset
  }

  TEST_CASE("strings are slices of a padded UTF-16 pool, keys indices of the vocabulary") {
    BytesAnswer w;
    w.beginObject();
    w.key(AnswerKey::messages);
    w.beginArray();
    w.index(7);
    w.string(u"abc");
    w.endArray();
    w.key(u"not a known key");
    w.string(u"");
    w.endObject();
    const std::string b = w.take();
    const std::u16string pool = u"abcnot a known key";  // 18 units: 36 bytes, no padding
    const std::uint32_t tree[] = {
        8, 2,                                                 // object of two members
        9, static_cast<std::uint32_t>(AnswerKey::messages),   // key: vocabulary index
        7, 2,                                                 // array of two values
        4, 7,                                                 // index 7
        5, 0, 3,                                              // "abc": pool offset 0, 3 units
        5, 3, 15,                                             // an unknown key: a pool string
        5, 18, 0,                                             // ""
    };
    REQUIRE(b.size() == 8 + pool.size() * 2 + sizeof tree);
    CHECK(wordAt(b, 0) == pool.size());
    CHECK(wordAt(b, 4) == 0);
    CHECK(std::memcmp(b.data() + 8, pool.data(), pool.size() * 2) == 0);
    for (std::size_t i = 0; i < sizeof tree / 4; ++i) {
      CAPTURE(i);
      CHECK(wordAt(b, 8 + pool.size() * 2 + i * 4) == tree[i]);
    }

    BytesAnswer odd;  // a pool of an odd number of units takes two bytes of zero padding
    odd.string(u"x");
    const std::string o = odd.take();
    CHECK(o.size() == 8 + 4 + 12);
    CHECK(o[10] == 0);
    CHECK(o[11] == 0);
  }

  TEST_CASE("the key vocabulary is the one js/src/transport.ts decodes with") {
    const std::vector<std::string> jsKeys = jsList("transport.ts", "ANSWER_KEYS = [");
    const std::vector<std::u16string_view>& names = answerKeyNames();
    REQUIRE(jsKeys.size() == names.size());
    for (std::size_t i = 0; i < names.size(); ++i) {
      CAPTURE(i);
      CHECK(js::fromUtf8(jsKeys[i]) == names[i]);
    }
  }

  TEST_CASE("the error vocabulary is the one js/src/errors.ts exports as ERROR_CODES") {
    // The wasm module does not carry the list: the JS layer types every code it can receive.
    const std::vector<std::string> jsCodes = jsList("errors.ts", "ERROR_CODES = [");
    const std::vector<ErrorCode> codes = allErrorCodes();
    REQUIRE(jsCodes.size() == codes.size());
    for (std::size_t i = 0; i < codes.size(); ++i) {
      CAPTURE(i);
      CHECK(jsCodes[i] == errorCodeName(codes[i]));
    }
  }

  TEST_CASE("values follow JSON: non-finite numbers are null, nesting and order are kept") {
    Value v = Value::object();
    v.set(u"inf", Value::fromNumber(std::numeric_limits<double>::infinity()));
    v.set(u"nan", Value::fromNumber(std::nan("")));
    v.set(u"list", Value::array());
    v.members.back().value.items.push_back(Value::fromString(u"a"));
    v.members.back().value.items.push_back(Value::fromNumber(2.5));
    v.set(u"2", Value::fromBool(true));  // JSON.stringify puts integer-like keys first
    JsonAnswer json;
    json.value(v);
    BytesAnswer bytes;
    bytes.value(v);
    const std::string text = json.take();
    CHECK(text == R"({"2":true,"inf":null,"nan":null,"list":["a",2.5]})");
    // The binary form keeps insertion order; JS enumerates integer-like keys first on its own,
    // so the object the host builds prints the same.
    CHECK(js::toJson(decode(bytes.take())) == text);
  }

  TEST_CASE("an index past 32 bits crosses as a number") {
    const std::uint64_t big = std::uint64_t{1} << 33;
    if constexpr (sizeof(std::size_t) > 4) {  // the native tests; wasm32 has no such index
      BytesAnswer w;
      w.index(static_cast<std::size_t>(big));
      const std::string b = w.take();
      CHECK(static_cast<AnswerTag>(wordAt(b, 8)) == AnswerTag::Number);  // after the empty pool
      CHECK(decode(b).number == static_cast<double>(big));
    }
  }
}

}  // namespace cce
