// SPDX-License-Identifier: MIT
// Value bytes (src/value_bytes.h): what the session modules read instead of a JSON text. A value
// written the way js/src/value-bytes.ts writes it reads back as the JSON reader reads its text,
// and the context and compaction engines answer a request read either way alike.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "compaction/compaction_json.h"
#include "context/context_json.h"
#include "jscompat/json_writer.h"
#include "json_io.h"
#include "value_bytes.h"

namespace cce {
namespace {

using json::Value;

// The JS layer's writer, over a json::Value (js/src/value-bytes.ts writes the same words).
struct Writer {
  std::string out;

  void word(std::uint32_t w) { out.append(reinterpret_cast<const char*>(&w), 4); }
  void string(const std::u16string& s) {
    word(static_cast<std::uint32_t>(s.size()));
    out.append(reinterpret_cast<const char*>(s.data()), s.size() * 2);
    if (s.size() % 2) out.append(2, '\0');
  }
  void value(const Value& v) {
    switch (v.kind) {
      case json::Kind::Null:
        word(0);
        return;
      case json::Kind::Bool:
        word(v.boolean ? 2 : 1);
        return;
      case json::Kind::Number:
        word(3);
        out.append(reinterpret_cast<const char*>(&v.number), 8);
        return;
      case json::Kind::String:
        word(4);
        string(v.string);
        return;
      case json::Kind::Array:
        word(5);
        word(static_cast<std::uint32_t>(v.items.size()));
        for (const Value& item : v.items) value(item);
        return;
      case json::Kind::Object:
        word(6);
        word(static_cast<std::uint32_t>(v.members.size()));
        for (const json::Member& m : v.members) {
          string(m.key);
          value(m.value);
        }
        return;
    }
  }
};

std::string bytesOf(const Value& v) {
  Writer w;
  w.word(kValueBytesMagic);
  w.value(v);
  return w.out;
}

Value parsed(const std::string& text) {
  Result<Value> v = parseJson(text);
  REQUIRE(v.ok());
  return v.value();
}

TEST_CASE("value bytes read back as the JSON text they were written from") {
  const char* texts[] = {
      "null", "true", "false", "0", "-0.5", "1e21", "5e-324", "1.7976931348623157e308", "\"\"",
      "\"odd\"", "\"even\"", "\"\\ud83d lone and pair \\ud83d\\ude00\"", "[]", "{}",
      R"({"role":"user","content":[{"type":"text","text":"h\u00e9"},{"type":"image_url","image_url":{"url":"data:x"}}]})",
      R"({"b":1,"a":[1,[2,[3,{"c":null}]]],"2":"integer-like","":""})",
  };
  for (const char* text : texts) {
    CAPTURE(text);
    const Value v = parsed(text);
    Result<Value> read = readValueBytes(bytesOf(v));
    REQUIRE(read.ok());
    CHECK(js::toJson(read.value()) == js::toJson(v));
  }
}

TEST_CASE("nesting is limited as in a JSON text") {
  auto nested = [](std::size_t depth) {
    Writer w;
    w.word(kValueBytesMagic);
    for (std::size_t i = 0; i < depth; ++i) {
      w.word(5);
      w.word(1);
    }
    w.word(0);
    return w.out;
  };
  CHECK(readValueBytes(nested(kMaxJsonDepth)).ok());
  CHECK(parseJson(std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']')).ok());
  Result<Value> deep = readValueBytes(nested(kMaxJsonDepth + 1));
  REQUIRE_FALSE(deep.ok());
  CHECK(deep.error().code == ErrorCode::InputTooLarge);
  CHECK(deep.error().message == "JSON nesting is deeper than the limit of 512 levels");
  CHECK_FALSE(
      parseJson(std::string(kMaxJsonDepth + 1, '[') + std::string(kMaxJsonDepth + 1, ']')).ok());
}

TEST_CASE("bytes that are not value bytes are refused without reading past them") {
  const std::string good = bytesOf(parsed(R"({"k":["v",1.5,true,null]})"));
  // Every proper prefix is short somewhere.
  for (std::size_t n = 0; n < good.size(); ++n) {
    CAPTURE(n);
    Result<Value> read = readValueBytes(good.substr(0, n));
    REQUIRE_FALSE(read.ok());
    CHECK(read.error().code == ErrorCode::InvalidInput);
    CHECK(read.error().message == "malformed value bytes");
  }
  std::string trailing = good + std::string(4, '\0');
  CHECK_FALSE(readValueBytes(trailing).ok());
  std::string magic = good;
  magic[3] = '2';
  CHECK_FALSE(readValueBytes(magic).ok());

  Writer unknown;
  unknown.word(kValueBytesMagic);
  unknown.word(7);
  CHECK_FALSE(readValueBytes(unknown.out).ok());

  // A count that the bytes cannot hold, and a string longer than they are.
  Writer huge;
  huge.word(kValueBytesMagic);
  huge.word(5);
  huge.word(0xFFFFFFFFu);
  CHECK_FALSE(readValueBytes(huge.out).ok());
  Writer longString;
  longString.word(kValueBytesMagic);
  longString.word(4);
  longString.word(0x7FFFFFFFu);
  longString.word(0);
  CHECK_FALSE(readValueBytes(longString.out).ok());

  // JSON has no NaN or Infinity, so neither do value bytes.
  for (double x : {std::numeric_limits<double>::quiet_NaN(), HUGE_VAL, -HUGE_VAL}) {
    Value v = Value::fromNumber(x);
    CHECK_FALSE(readValueBytes(bytesOf(v)).ok());
  }
}

TEST_CASE("the engines answer a request read from value bytes as the same request in JSON") {
  const char* contextRequests[] = {
      R"({"op":"create","config":{"contextWindow":8000,"keepLast":2}})",
      R"({"op":"create","config":{"contextWindow":-1}})",
      R"({"op":"check","messages":[{"role":"tool","tool_call_id":"x","content":"r"},{"role":"user","content":"u"}]})",
      R"({"op":"recover","messages":[{"role":"user","content":"u","metadata":{"covered_until":3}}],"keepLast":1})",
      R"({"op":"nope"})",
      R"([1])",
  };
  for (const char* text : contextRequests) {
    CAPTURE(text);
    CHECK(contextRequest(parsed(text), {nullptr, nullptr}) ==
          contextJson(text, {nullptr, nullptr}));
  }
  const char* compactionRequests[] = {
      R"({"op":"check","conversation":{"events":[]}})",
      R"({"op":"project"})",
      R"({"op":"other"})",
  };
  for (const char* text : compactionRequests) {
    CAPTURE(text);
    CHECK(compactionRequest(parsed(text)) == compactionJson(text));
  }
}

TEST_CASE("a JSON text in a string value reads as the JSON reader reads it") {
  Result<Value> args = parseJsonText(u"{\"path\":\"src/a.ts\",\"n\":[1,2]}");
  REQUIRE(args.ok());
  CHECK(js::toJson(args.value()) == R"({"path":"src/a.ts","n":[1,2]})");
  CHECK_FALSE(parseJsonText(u"{\"path\":").ok());
  CHECK_FALSE(parseJsonText(u"1e999").ok());  // refused, where JSON.parse reads Infinity
}

}  // namespace
}  // namespace cce
