// SPDX-License-Identifier: MIT
// Tests for JSON parsing (src/json_io.cpp -> json::Value) and the json::Value helpers.
#include "json_io.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>
#include <string>

#include "jscompat/json_writer.h"
#include "jscompat/number.h"
#include "json/value.h"

#ifndef CCE_TESTDATA_DIR
#define CCE_TESTDATA_DIR "build/testdata"
#endif

namespace {

using cce::ErrorCode;
using cce::json::Value;

std::string readFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// JSON.stringify(JSON.parse(text)), through this port.
std::string roundTrip(const std::string& text) {
  cce::Result<Value> parsed = cce::parseJson(text);
  if (!parsed) return "error: " + parsed.error().message;
  return cce::js::toJson(parsed.value());
}

}  // namespace

TEST_SUITE("json_io") {
  TEST_CASE("parse then write equals JSON.stringify(JSON.parse(text))") {
    struct Case {
      const char* name;
      std::string text;
      std::string expected;  // JSON.stringify(JSON.parse(text)) in Node 20.20.2
    };
    const Case cases[] = {
        {"lone high escape", R"("\ud83d")", R"("\ud83d")"},
        {"lone low escape", R"("\ude00")", R"("\ude00")"},
        {"upper-case lone high escape", R"("\uD800x")", R"("\ud800x")"},
        {"escaped pair", R"("\ud83d\ude00")", "\"\xF0\x9F\x98\x80\""},
        {"lone high before a pair", R"("\ud83d\ud83d\ude00")", "\"\\ud83d\xF0\x9F\x98\x80\""},
        {"lone high before a non-surrogate escape", R"("\ud800\u0041")", R"("\ud800A")"},
        {"lone high before an escaped backslash", R"("\ud800\\")", R"("\ud800\\")"},
        {"lone high at the end of a key", R"({"k\udbff":1})", R"({"k\udbff":1})"},
        {"lone high at the end of the text", R"(["\ud800"])", R"(["\ud800"])"},
        {"reversed escaped pair", R"("\ude00\ud83d")", R"("\ude00\ud83d")"},
        {"escaped backslash then u", R"("\\ud800")", R"("\\ud800")"},
        {"all simple escapes", R"("\"\\\/\b\f\n\r\t")", R"("\"\\/\b\f\n\r\t")"},
        {"unicode escapes of ASCII and controls", R"("\u0041\u001F\u0000\u00e9\u2028")",
         "\"A\\u001f\\u0000\xC3\xA9\xE2\x80\xA8\""},
        {"raw non-ASCII", "\"\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\"",
         "\"\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\""},
        {"invalid UTF-8 becomes U+FFFD as TextDecoder makes it", "\"a\xFF\xE2\x82\"",
         "\"a\xEF\xBF\xBD\xEF\xBF\xBD\""},
        {"duplicate keys: first position, last value", R"({"a":1,"b":2,"a":3})",
         R"({"a":3,"b":2})"},
        {"duplicate keys in a large object",
         R"({"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k1":"one","k9":9,)"
         R"("k1":"uno","k0":null})",
         R"({"k0":null,"k1":"uno","k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9})"},
        {"duplicate keys nested", R"({"o":{"x":1,"x":[1,{"y":1,"y":2}]},"o":{"z":0,"z":1}})",
         R"({"o":{"z":1}})"},
        {"integer-like keys", R"({"b":1,"10":2,"2":3,"01":4,"4294967295":5,"4294967294":6})",
         R"({"2":3,"10":2,"4294967294":6,"b":1,"01":4,"4294967295":5})"},
        {"numbers",
         R"([1.0,1e21,1e-7,-0,-0.0,0.30000000000000004,1E2,1e+2,12345678901234567890,)"
         R"(-9223372036854775808,4294967296,2.5e-324,1e-400,123.456e-2])",
         R"([1,1e+21,1e-7,0,0,0.30000000000000004,100,100,12345678901234567000,)"
         R"(-9223372036854776000,4294967296,5e-324,0,1.23456])"},
        {"literals and whitespace", " \t\n\r[ true , false , null , { } , [ ] ] ",
         R"([true,false,null,{},[]])"},
        {"empty string and empty key", R"({"":""})", R"({"":""})"},
    };
    for (const Case& c : cases) {
      CAPTURE(c.name);
      CHECK(roundTrip(c.text) == c.expected);
    }
  }

  TEST_CASE("reads each decimal as the nearest double, ties to even, as JSON.parse does") {
    // Expected: String(JSON.parse(text)) in Node 20. Halfway points are written out exactly,
    // so the big-integer comparison (js::decimalToDouble) decides them.
    const std::string oneHalfUlp = "1.00000000000000011102230246251565404236316680908203125";
    const std::string halfSmallest = "2.4703282292062327208828439643411068618252990130716238221279284125033775363510437593264991818081799618989828234772285886546332835517796989819938739800539093906315035659515570226392290858392449105184435931802849936536152500319370457678249219365623669863658480757001585769269903706311928279558551332927834338409351978015531246597263579574622766465272827220056374006485499977096599470454020828166226237857393450736339007967761930577506740176324673600968951340535537458516661134223766678604162159680461914467291840300530057530849048765391711386591646239524912623653881879636239373280423891018672348497668235089863388587925628302755995657524455507255189313690836254779186948667994968324049705821028513185451396213837722826145437693412532098591327667236328125e-324";
    struct Case {
      std::string text;
      const char* expected;
    };
    const Case cases[] = {
        {"1.7976931348623157e308", "1.7976931348623157e+308"},
        {"1.7976931348623158e308", "1.7976931348623157e+308"},
        {"179769313486231580793728971405303415079934132710037826936173778980444968292764750946649017977587207096330286416692887910946555547851940402630657488671505820681908902000708383676273854845817711531764475730270069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904174497791", "1.7976931348623157e+308"},
        {"4.9406564584124654e-324", "5e-324"},
        {"2.4703282292062328e-324", "5e-324"},
        {"2.4703282292062327e-324", "0"},
        {halfSmallest, "0"},  // exactly half the smallest subnormal: to even (0)
        {halfSmallest.substr(0, halfSmallest.size() - 5) + "1e-324", "5e-324"},
        {"0.1000000000000000055511151231257827021181583404541015625", "0.1"},
        {oneHalfUlp, "1"},  // halfway between 1 and the next double: to even (1)
        {oneHalfUlp + "000001", "1.0000000000000002"},
        {oneHalfUlp + std::string(800, '0') + "1", "1.0000000000000002"},  // past the kept digits
        {oneHalfUlp + std::string(800, '0'), "1"},
        {"9007199254740993", "9007199254740992"},
        {"9007199254740993.0000000001", "9007199254740994"},
        {"1e23", "1e+23"},
        {"8.98846567431158e307", "8.98846567431158e+307"},
        {"123456789012345678901234567890e-10", "12345678901234567000"},
        {"0.000000000000000000000000000000000000000000001e45", "1"},
        {"2.2250738585072011e-308", "2.225073858507201e-308"},
        {"2.2250738585072012e-308", "2.2250738585072014e-308"},
        {"1e-0000000000000000000000000000001", "0.1"},
        {"100000000000000000000000000000000000000000000000000000e-54", "0.1"},
        {"-0.0e99999999999", "0"},
        {"1e-99999999999", "0"},
    };
    for (const Case& c : cases) {
      CAPTURE(c.text);
      cce::Result<Value> parsed = cce::parseJson("[" + c.text + "]");
      REQUIRE(parsed.ok());
      CHECK(cce::js::numberToString(parsed->items[0].number) == c.expected);
    }
    // Exactly halfway between the largest double and 2^1024 rounds to even: past the largest.
    cce::Result<Value> tooBig = cce::parseJson("179769313486231580793728971405303415079934132710037826936173778980444968292764750946649017977587207096330286416692887910946555547851940402630657488671505820681908902000708383676273854845817711531764475730270069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904174497792");
    REQUIRE_FALSE(tooBig.ok());
    CHECK(tooBig.error().message.find("number out of range") != std::string::npos);
  }

  TEST_CASE("rejects text JSON.parse rejects, with the byte offset in the message") {
    struct Case {
      const char* name;
      std::string text;
      ErrorCode code;
      const char* messagePart;
    };
    const Case cases[] = {
        {"empty text", "", ErrorCode::InvalidJson, "offset 0"},
        {"trailing comma in array", "[1,]", ErrorCode::InvalidJson, "offset 3"},
        {"trailing comma in object", R"({"a":1,})", ErrorCode::InvalidJson, "offset"},
        {"missing comma", "[1 2]", ErrorCode::InvalidJson, "offset"},
        {"unterminated string", R"("abc)", ErrorCode::InvalidJson, "offset"},
        {"raw control character in a string", "\"a\x01b\"", ErrorCode::InvalidJson, "offset"},
        {"leading zero", "01", ErrorCode::InvalidJson, "offset"},
        {"two roots", "[] []", ErrorCode::InvalidJson, "offset"},
        {"bad escape", R"("\x")", ErrorCode::InvalidJson, "offset"},
        {"short unicode escape", R"("\ud800\u00")", ErrorCode::InvalidJson, "offset"},
        {"NaN literal", "NaN", ErrorCode::InvalidJson, "offset"},
        {"embedded NUL after the value", std::string("{}\0[]", 5), ErrorCode::InvalidJson,
         "offset 2"},
        {"number overflowing to Infinity", "1e400", ErrorCode::InvalidJson, "number out of range"},
        {"number overflowing to Infinity in an array", "[1.8e308]", ErrorCode::InvalidJson,
         "number out of range"},
        {"offsets count the original escape text", R"(["\ud800",])", ErrorCode::InvalidJson,
         "offset 10"},
    };
    for (const Case& c : cases) {
      CAPTURE(c.name);
      cce::Result<Value> parsed = cce::parseJson(c.text);
      REQUIRE_FALSE(parsed.ok());
      CHECK(parsed.error().code == c.code);
      CAPTURE(parsed.error().message);
      CHECK(parsed.error().message.find(c.messagePart) != std::string::npos);
    }
  }

  TEST_CASE("accepts nesting up to the depth limit and rejects deeper without crashing") {
    struct Case {
      const char* name;
      std::size_t depth;
      bool objects;
      bool accepted;
    };
    const Case cases[] = {
        {"500 arrays", 500, false, true},        {"512 arrays", 512, false, true},
        {"512 objects", 512, true, true},        {"513 arrays", 513, false, false},
        {"600 objects", 600, true, false},       {"100000 arrays", 100000, false, false},
        {"100000 objects", 100000, true, false},
    };
    for (const Case& c : cases) {
      CAPTURE(c.name);
      std::string text;
      for (std::size_t i = 0; i < c.depth; ++i) text += c.objects ? "{\"a\":" : "[";
      text += "1";
      for (std::size_t i = 0; i < c.depth; ++i) text += c.objects ? "}" : "]";
      cce::Result<Value> parsed = cce::parseJson(text);
      CHECK(parsed.ok() == c.accepted);
      if (c.accepted) {
        CHECK(cce::js::toJson(parsed.value()) == text);
      } else {
        CHECK(parsed.error().code == ErrorCode::InputTooLarge);
        CHECK(parsed.error().message.find("512") != std::string::npos);
      }
    }
  }

  TEST_CASE("parses every shortest number string back to the same double") {
    std::uint64_t state = 0x2545F4914F6CDD1Dull;
    int failures = 0;
    for (int i = 0; i < 20000; ++i) {
      state ^= state << 13;
      state ^= state >> 7;
      state ^= state << 17;
      double x;
      std::memcpy(&x, &state, sizeof x);
      if (!std::isfinite(x)) continue;
      std::string text = "[" + cce::js::numberToString(x) + "]";
      cce::Result<Value> parsed = cce::parseJson(text);
      bool same = parsed.ok() && parsed->items.size() == 1 &&
                  (parsed->items[0].number == x || (x == 0 && parsed->items[0].number == 0));
      if (!same && ++failures <= 5) {
        CAPTURE(text);
        CHECK(same);
      }
    }
    CHECK(failures == 0);
  }

  TEST_CASE("every corpus case file re-serialises to its own bytes") {
    // The case files are JSON.stringify output (checked in Node), lone-surrogate escapes
    // included, so parse + write must reproduce each byte for byte.
    const std::filesystem::path dir =
        std::filesystem::path(CCE_TESTDATA_DIR) / "conformance/public/cases";
    REQUIRE(std::filesystem::is_directory(dir));
    int files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (entry.path().extension() != ".json") continue;
      ++files;
      std::string text = readFile(entry.path());
      CAPTURE(entry.path().filename().string());
      CHECK(roundTrip(text) == text);
    }
    CHECK(files == 495);
  }

  TEST_CASE("the 6 MB scale conversation re-serialises to its own bytes") {
    std::string text = readFile(std::filesystem::path(CCE_TESTDATA_DIR) /
                                "conformance/scale/scale-conversation.json");
    REQUIRE(text.size() == 6344200);
    CHECK(roundTrip(text) == text);
  }
}

TEST_SUITE("json_value") {
  TEST_CASE("find returns members of objects only") {
    Value o = Value::object();
    o.members.push_back({u"a", Value::fromNumber(1)});
    REQUIRE(o.find(u"a") != nullptr);
    CHECK(o.find(u"a")->number == 1);
    CHECK(o.find(u"b") == nullptr);
    const Value& constObject = o;
    CHECK(constObject.find(u"a") == o.find(u"a"));
    Value a = Value::array();
    CHECK(a.find(u"a") == nullptr);
  }

  TEST_CASE("set overwrites in place and appends new keys, as JavaScript assignment") {
    Value o = Value::object();
    o.set(u"b", Value::fromNumber(1));
    o.set(u"a", Value::fromNumber(2));
    o.set(u"b", Value::fromString(u"x"));
    REQUIRE(o.members.size() == 2);
    CHECK(o.members[0].key == u"b");
    CHECK(o.members[0].value.string == u"x");
    CHECK(o.members[1].key == u"a");
    CHECK(cce::js::toJson(o) == R"({"b":"x","a":2})");
  }

  TEST_CASE("truthy follows JavaScript truthiness") {
    struct Case {
      const char* name;
      Value value;
      bool expected;
    };
    const Case cases[] = {
        {"null", Value::null(), false},
        {"false", Value::fromBool(false), false},
        {"true", Value::fromBool(true), true},
        {"0", Value::fromNumber(0), false},
        {"-0", Value::fromNumber(-0.0), false},
        {"NaN", Value::fromNumber(std::numeric_limits<double>::quiet_NaN()), false},
        {"-1", Value::fromNumber(-1), true},
        {"empty string", Value::fromString(u""), false},
        {"\"0\"", Value::fromString(u"0"), true},
        {"empty array", Value::array(), true},
        {"empty object", Value::object(), true},
    };
    for (const Case& c : cases) {
      CAPTURE(c.name);
      CHECK(c.value.truthy() == c.expected);
    }
  }
}
