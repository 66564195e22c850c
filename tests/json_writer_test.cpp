// SPDX-License-Identifier: MIT
// Tests for the byte-exact JSON.stringify writer.
#include "jscompat/json_writer.h"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "json/value.h"

namespace {

using cce::json::Value;

Value object(std::initializer_list<std::pair<const char16_t*, Value>> members) {
  Value v = Value::object();
  for (const auto& m : members) v.members.push_back(cce::json::Member{m.first, m.second});
  return v;
}

Value array(std::initializer_list<Value> items) {
  Value v = Value::array();
  v.items.assign(items.begin(), items.end());
  return v;
}

Value num(double d) { return Value::fromNumber(d); }

}  // namespace

TEST_SUITE("json_writer") {
  TEST_CASE("escapes strings exactly as JSON.stringify") {
    struct Case {
      const char* name;
      std::u16string input;
      std::string expected;  // JSON.stringify(s) in Node 20.20.2, as UTF-8 bytes
    };
    std::u16string controls;
    for (char16_t c = 0; c < 0x20; ++c) controls.push_back(c);
    const Case cases[] = {
        {"control characters", controls,
         R"("\u0000\u0001\u0002\u0003\u0004\u0005\u0006\u0007\b\t\n\u000b\f\r\u000e\u000f)"
         R"(\u0010\u0011\u0012\u0013\u0014\u0015\u0016\u0017\u0018\u0019\u001a\u001b\u001c\u001d)"
         R"(\u001e\u001f")"},
        {"quote, backslash, slash", u"\"\\/", R"("\"\\/")"},
        {"DEL and non-ASCII are raw", u"\x7F\u0080\u00E9\u2028\u2029\uFEFF\uFFFF",
         "\"\x7F\xC2\x80\xC3\xA9\xE2\x80\xA8\xE2\x80\xA9\xEF\xBB\xBF\xEF\xBF\xBF\""},
        {"lone surrogates are escaped in lower case",
         std::u16string{0xD800, u'|', 0xDBFF, u'|', 0xDC00, u'|', 0xDFFF},
         R"("\ud800|\udbff|\udc00|\udfff")"},
        {"a pair is raw UTF-8", std::u16string{0xD83D, 0xDE00}, "\"\xF0\x9F\x98\x80\""},
        {"a reversed pair is two lone surrogates", std::u16string{0xDE00, 0xD83D},
         R"("\ude00\ud83d")"},
        {"a high surrogate at the end", std::u16string{u'a', 0xD83D}, R"("a\ud83d")"},
        {"empty", u"", R"("")"},
    };
    for (const Case& c : cases) {
      CAPTURE(c.name);
      std::string out;
      cce::js::writeJsonString(c.input, out);
      CHECK(out == c.expected);
    }
  }

  TEST_CASE("writes long strings across its internal buffer without losing bytes") {
    // JSON.stringify(fragment.repeat(n)) is '"' + the inner part of JSON.stringify(fragment),
    // repeated, + '"', because no escape here depends on its neighbours.
    const std::u16string fragment{u'a', u'\n', 0xE9, 0xD800, u'"', 0xD83D, 0xDE00, u'\u2028', 0x01};
    const std::string inner = "a\\n\xC3\xA9\\ud800\\\"\xF0\x9F\x98\x80\xE2\x80\xA8\\u0001";
    std::u16string input;
    std::string expected = "\"";
    for (int i = 0; i < 3000; ++i) {
      input += fragment;
      expected += inner;
    }
    expected += '"';
    std::string out = "prefix:";
    cce::js::writeJsonString(input, out);
    CHECK(out == "prefix:" + expected);
  }

  TEST_CASE("orders integer-like keys first, ascending, then the rest in insertion order") {
    // In Node: JSON.stringify({b:1,"10":2,"2":3,"01":4,"4294967295":5,"4294967294":6,a:7,"0":8,
    // "-1":9,"1.5":10," 3":11})
    Value v = object({{u"b", num(1)},
                      {u"10", num(2)},
                      {u"2", num(3)},
                      {u"01", num(4)},
                      {u"4294967295", num(5)},
                      {u"4294967294", num(6)},
                      {u"a", num(7)},
                      {u"0", num(8)},
                      {u"-1", num(9)},
                      {u"1.5", num(10)},
                      {u" 3", num(11)}});
    CHECK(cce::js::toJson(v) ==
          R"({"0":8,"2":3,"10":2,"4294967294":6,"b":1,"01":4,"4294967295":5,"a":7,"-1":9,)"
          R"("1.5":10," 3":11})");
  }

  TEST_CASE("writes numbers like String(x) and non-finite numbers as null") {
    const double inf = std::numeric_limits<double>::infinity();
    Value v = array({num(std::numeric_limits<double>::quiet_NaN()), num(inf), num(-inf), num(-0.0),
                     num(1e21), num(1e-7), num(0.1 + 0.2), num(5e-324), Value::fromBool(true),
                     Value::fromBool(false), Value::null(), Value::array(), Value::object(),
                     array({Value::array()}), object({{u"", Value::object()}})});
    // JSON.stringify([NaN,Infinity,-Infinity,-0,1e21,1e-7,0.1+0.2,5e-324,true,false,null,[],{},
    // [[]],{"":{}}])
    CHECK(cce::js::toJson(v) ==
          R"([null,null,null,0,1e+21,1e-7,0.30000000000000004,5e-324,true,false,null,[],{},[[]],)"
          R"({"":{}}])");
  }

  TEST_CASE("escapes keys like strings") {
    Value v = object({{u"a\"b", num(1)}, {u"\n", num(2)}, {u"\xE9", num(3)}});
    CHECK(cce::js::toJson(v) == "{\"a\\\"b\":1,\"\\n\":2,\"\xC3\xA9\":3}");
  }

  TEST_CASE("writeJson appends to what the output already holds") {
    std::string out = "[";
    cce::js::writeJson(num(4.375), out);
    CHECK(out == "[4.375");
  }

  TEST_CASE("writes nesting as deep as the parser accepts") {
    Value v = num(1);
    for (int i = 0; i < 512; ++i) v = array({std::move(v)});
    std::string expected = std::string(512, '[') + "1" + std::string(512, ']');
    CHECK(cce::js::toJson(v) == expected);
  }

  TEST_CASE("recognises exactly the canonical array-index keys") {
    struct Case {
      const char16_t* key;
      bool expected;
    };
    const Case cases[] = {
        {u"0", true},    {u"17", true},      {u"4294967294", true},  {u"4294967295", false},
        {u"01", false},  {u"00", false},     {u"", false},           {u"-1", false},
        {u"1.5", false}, {u" 3", false},     {u"3 ", false},         {u"99999999999", false},
        {u"1e3", false}, {u"\u0663", false}, {u"9999999999", false},
    };
    for (std::size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
      CAPTURE(i);
      CHECK(cce::js::isIntegerLikeKey(cases[i].key) == cases[i].expected);
    }
  }
}
