// SPDX-License-Identifier: MIT
// Tests for the answer writers: the binary form says what the JSON form says, in its own layout.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include "answer_reader.h"
#include "answer_writer.h"
#include "json_io.h"
#include "jscompat/json_writer.h"

namespace cce {
namespace {

using json::Value;

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

  TEST_CASE("a string is tagged by whether it holds a lone surrogate") {
    struct Case {
      std::u16string text;
      AnswerTag tag;
    } cases[] = {
        {u"", AnswerTag::String},
        {u"plain", AnswerTag::String},
        {u"pair \xD83D\xDE00 ok", AnswerTag::String},
        {std::u16string(1, char16_t(0xD800)), AnswerTag::LoneString},          // high alone
        {std::u16string(1, char16_t(0xDC00)), AnswerTag::LoneString},          // low alone
        {u"x" + std::u16string(1, char16_t(0xDBFF)), AnswerTag::LoneString},   // high at the end
        {std::u16string{char16_t(0xDC00), char16_t(0xD800)}, AnswerTag::LoneString},  // reversed
        {std::u16string{char16_t(0xD800), char16_t(0xD800), char16_t(0xDC00)},
         AnswerTag::LoneString},  // a high before a pair
    };
    for (const Case& c : cases) {
      CAPTURE(c.text.size());
      CHECK(hasLoneSurrogate(c.text) == (c.tag == AnswerTag::LoneString));
      BytesAnswer w;
      w.string(c.text);
      const std::string bytes = w.take();
      CHECK(static_cast<AnswerTag>(wordAt(bytes, 0)) == c.tag);
      test::AnswerReader reader(bytes);
      Result<Value> v = reader.read();  // the reader also checks the tag against the units
      REQUIRE(v.ok());
      CHECK(v->string == c.text);  // lone surrogates survive: the units cross as they are
    }
  }

  TEST_CASE("strings are UTF-16 units zero-padded to a word, containers count their members") {
    BytesAnswer w;
    w.beginObject();
    w.key(u"abc");  // 3 units: 6 bytes + 2 of padding
    w.beginArray();
    w.index(7);
    w.string(u"xy");  // 2 units: no padding
    w.endArray();
    w.key(u"n");
    w.null();
    w.endObject();
    const std::string b = w.take();
    const std::uint32_t expected[] = {
        8, 2,                    // object of two members
        5, 3,                    // key "abc"
        0x620061, 0x63,          // 'a' 'b', 'c' + padding
        7, 2,                    // array of two values
        4, 7,                    // index 7
        5, 2, 0x790078,          // "xy"
        5, 1, 0x6E,              // key "n" + padding
        0,                       // null
    };
    REQUIRE(b.size() == sizeof expected);
    for (std::size_t i = 0; i < sizeof expected / 4; ++i) {
      CAPTURE(i);
      CHECK(wordAt(b, i * 4) == expected[i]);
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
      CHECK(static_cast<AnswerTag>(wordAt(b, 0)) == AnswerTag::Number);
      CHECK(decode(b).number == static_cast<double>(big));
    }
  }
}

}  // namespace cce
