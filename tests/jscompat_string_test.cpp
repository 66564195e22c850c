// SPDX-License-Identifier: MIT
// Tests for the JavaScript string model: trim/split, toLowerCase, UTF-8 <-> UTF-16.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <string>
#include <vector>

#include "jscompat/string.h"

namespace {

using cce::js::U16;

U16 units(std::initializer_list<char16_t> list) { return U16(list.begin(), list.end()); }

std::string hexUnits(const U16& s) {
  std::string out;
  char buf[8];
  for (char16_t c : s) {
    std::snprintf(buf, sizeof buf, "%04X ", static_cast<unsigned>(c));
    out += buf;
  }
  return out;
}

// FNV-1a over UTF-16 units: the same function the expected constants were computed with in Node.
struct Fnv {
  std::uint32_t h = 0x811C9DC5u;
  void feed(const U16& s) {
    for (char16_t c : s) h = (h ^ c) * 16777619u;
  }
};

U16 fromCodePoint(char32_t cp) {
  if (cp < 0x10000) return U16(1, static_cast<char16_t>(cp));
  cp -= 0x10000;
  return units(
      {static_cast<char16_t>(0xD800 + (cp >> 10)), static_cast<char16_t>(0xDC00 + (cp & 0x3FF))});
}

}  // namespace

TEST_SUITE("jscompat_string") {
  TEST_CASE("trim removes exactly the JavaScript whitespace set") {
    CHECK(cce::js::trim(u" \u00A0a b\u3000") == u"a b");
    CHECK(cce::js::trim(u"\u0085x\u200B") == u"\u0085x\u200B");  // NEL and ZWSP are not spaces
    CHECK(cce::js::trim(u"\t\n\v\f\r \uFEFFx\u2029") == u"x");
    CHECK(cce::js::trim(u"   ").empty());
  }

  TEST_CASE("split on whitespace runs keeps empty edge items like JavaScript") {
    struct Case {
      const char16_t* input;
      std::vector<std::u16string> expected;
    };
    const Case cases[] = {
        {u"  a  b ", {u"", u"a", u"b", u""}},
        {u"", {u""}},
        {u"a", {u"a"}},
        {u"\u00A0a\u2028b\uFEFF", {u"", u"a", u"b", u""}},
        {u"a\u0085b\u200Bc\u180Ed", {u"a\u0085b\u200Bc\u180Ed"}},
    };
    for (const Case& c : cases) {
      CAPTURE(hexUnits(c.input));
      std::vector<cce::js::U16View> parts = cce::js::splitOnSpaceRuns(c.input);
      REQUIRE(parts.size() == c.expected.size());
      for (std::size_t i = 0; i < parts.size(); ++i) CHECK(U16(parts[i]) == c.expected[i]);
    }
  }

  TEST_CASE("split on a single unit keeps empty items") {
    std::vector<cce::js::U16View> parts = cce::js::splitOn(u"a\n\nb\n", u'\n');
    REQUIRE(parts.size() == 4);
    CHECK(parts[0] == u"a");
    CHECK(parts[1].empty());
    CHECK(parts[2] == u"b");
    CHECK(parts[3].empty());
    CHECK(cce::js::splitOn(u"", u'\n').size() == 1);
  }

  TEST_CASE("the packed lower-case tables unpack to what the generator measured on Node") {
    // Every code point's simple mapping and Final_Sigma class, against the digest that
    // scripts/gen-lower-case.mjs computed from String.prototype.toLowerCase itself.
    CHECK(cce::js::detail::lowerCaseTableDigest() == cce::js::detail::lowerCaseTableExpectedDigest());
  }

  TEST_CASE("toLowerCase matches Node on tricky strings") {
    struct Case {
      const char* name;
      std::initializer_list<char16_t> input;
      std::initializer_list<char16_t> expected;  // "s.toLowerCase()" in Node 20.20.2
    };
    const Case cases[] = {
        {"ascii",
         {0x48, 0x65, 0x6C, 0x6C, 0x6F, 0x2C, 0x20, 0x57, 0x4F, 0x52, 0x4C, 0x44, 0x20, 0x31, 0x32,
          0x33, 0x5F, 0x21},
         {0x68, 0x65, 0x6C, 0x6C, 0x6F, 0x2C, 0x20, 0x77, 0x6F, 0x72, 0x6C, 0x64, 0x20, 0x31, 0x32,
          0x33, 0x5F, 0x21}},
        {"dotted capital I",
         {0x130, 0x73, 0x74, 0x61, 0x6E, 0x62, 0x75, 0x6C},
         {0x69, 0x307, 0x73, 0x74, 0x61, 0x6E, 0x62, 0x75, 0x6C}},
        {"dotted capital I alone", {0x130}, {0x69, 0x307}},
        {"sigma at word end",
         {0x39F, 0x394, 0x3A5, 0x3A3, 0x3A3, 0x395, 0x3A5, 0x3A3},
         {0x3BF, 0x3B4, 0x3C5, 0x3C3, 0x3C3, 0x3B5, 0x3C5, 0x3C2}},
        {"sigma alone", {0x3A3}, {0x3C3}},
        {"sigma after space", {0x61, 0x20, 0x3A3}, {0x61, 0x20, 0x3C3}},
        {"sigma between letters", {0x41, 0x3A3, 0x41}, {0x61, 0x3C3, 0x61}},
        {"sigma before space", {0x41, 0x3A3, 0x20, 0x62}, {0x61, 0x3C2, 0x20, 0x62}},
        {"sigma before punctuation", {0x41, 0x3A3, 0x2E}, {0x61, 0x3C2, 0x2E}},
        {"sigma across apostrophe (case-ignorable)", {0x41, 0x3A3, 0x27}, {0x61, 0x3C2, 0x27}},
        {"sigma then apostrophe then letter", {0x41, 0x3A3, 0x27, 0x61}, {0x61, 0x3C3, 0x27, 0x61}},
        {"sigma after combining acute", {0x41, 0x301, 0x3A3}, {0x61, 0x301, 0x3C2}},
        {"sigma after digit", {0x31, 0x3A3}, {0x31, 0x3C3}},
        {"double sigma", {0x41, 0x3A3, 0x3A3}, {0x61, 0x3C3, 0x3C2}},
        {"sigma after astral cased letter", {0xD801, 0xDC00, 0x3A3}, {0xD801, 0xDC28, 0x3C2}},
        {"sigma before astral cased letter",
         {0x41, 0x3A3, 0xD801, 0xDC00},
         {0x61, 0x3C3, 0xD801, 0xDC28}},
        {"sigma after lone high surrogate", {0x41, 0xD801, 0x3A3}, {0x61, 0xD801, 0x3C3}},
        {"sigma then lone low surrogate", {0x41, 0x3A3, 0xDC00}, {0x61, 0x3C2, 0xDC00}},
        {"sigma after soft hyphen run", {0x41, 0xAD, 0xAD, 0x3A3}, {0x61, 0xAD, 0xAD, 0x3C2}},
        {"sigma with ypogegrammeni", {0x41, 0x3A3, 0x345}, {0x61, 0x3C2, 0x345}},
        {"capital sharp s", {0x1E9E}, {0xDF}},
        {"sharp s", {0x53, 0x74, 0x72, 0x61, 0xDF, 0x65}, {0x73, 0x74, 0x72, 0x61, 0xDF, 0x65}},
        {"greek with accents",
         {0x386, 0x388, 0x389, 0x38A, 0x38C, 0x38E, 0x38F, 0x20, 0x3AA, 0x3AB},
         {0x3AC, 0x3AD, 0x3AE, 0x3AF, 0x3CC, 0x3CD, 0x3CE, 0x20, 0x3CA, 0x3CB}},
        {"greek polytonic",
         {0x1F08, 0x1F88, 0x1FBC, 0x1FCC, 0x1FFC},
         {0x1F00, 0x1F80, 0x1FB3, 0x1FC3, 0x1FF3}},
        {"cherokee", {0x13A0, 0x13F4, 0x13F5, 0xAB70}, {0xAB70, 0x13FC, 0x13FD, 0xAB70}},
        {"deseret",
         {0xD801, 0xDC00, 0xD801, 0xDC27, 0xD801, 0xDC28},
         {0xD801, 0xDC28, 0xD801, 0xDC4F, 0xD801, 0xDC28}},
        {"osage and adlam", {0xD801, 0xDCB0, 0xD83A, 0xDD00}, {0xD801, 0xDCD8, 0xD83A, 0xDD22}},
        {"georgian mtavruli", {0x1C90, 0x1CBF}, {0x10D0, 0x10FF}},
        {"kelvin and ohm", {0x212A, 0x2126, 0x212B}, {0x6B, 0x3C9, 0xE5}},
        {"roman numerals and circled",
         {0x2160, 0x216F, 0x24B6, 0x24CF},
         {0x2170, 0x217F, 0x24D0, 0x24E9}},
        {"fullwidth", {0xFF21, 0xFF3A}, {0xFF41, 0xFF5A}},
        {"cyrillic", {0x416, 0x401, 0x400, 0x4C0}, {0x436, 0x451, 0x450, 0x4CF}},
        {"armenian", {0x531, 0x556}, {0x561, 0x586}},
        {"latin extended alternation",
         {0x100, 0x101, 0x102, 0x139, 0x178, 0x187, 0x1C4, 0x1C5, 0x1C6},
         {0x101, 0x101, 0x103, 0x13A, 0xFF, 0x188, 0x1C6, 0x1C6, 0x1C6}},
        {"lone surrogates",
         {0xD800, 0x41, 0xDC00, 0x42, 0xDBFF},
         {0xD800, 0x61, 0xDC00, 0x62, 0xDBFF}},
        {"reversed pair", {0xDC00, 0xD800}, {0xDC00, 0xD800}},
        {"titlecase digraph", {0x1C5, 0x1C8, 0x1CB, 0x1F2}, {0x1C6, 0x1C9, 0x1CC, 0x1F3}},
        {"turkish dotless i", {0x131, 0x49}, {0x131, 0x69}},
        {"emoji", {0xD83D, 0xDE00, 0x20, 0x4F, 0x4B}, {0xD83D, 0xDE00, 0x20, 0x6F, 0x6B}},
        {"empty", {}, {}},
    };
    for (const Case& c : cases) {
      CAPTURE(c.name);
      U16 actual = cce::js::toLowerCase(units(c.input));
      CHECK(hexUnits(actual) == hexUnits(units(c.expected)));
    }
  }

  // The constants below are the same FNV-1a hashes computed in Node 20.20.2 over the same
  // sequences, so a single wrong code point anywhere in the table fails these.
  TEST_CASE("toLowerCase matches Node for every code point alone") {
    Fnv fnv;
    for (char32_t cp = 0; cp <= 0x10FFFF; ++cp) {
      fnv.feed(cce::js::toLowerCase(fromCodePoint(cp)));
      fnv.feed(u"\uFFFF");
    }
    CHECK(fnv.h == 0x9CBE748Fu);
  }

  TEST_CASE("toLowerCase applies Final_Sigma like Node next to every code point") {
    // Per code point c: ("A" + c + "Σ").toLowerCase() then ("AΣ" + c).toLowerCase().
    Fnv fnv;
    for (char32_t cp = 0; cp <= 0x10FFFF; ++cp) {
      U16 c = fromCodePoint(cp);
      fnv.feed(cce::js::toLowerCase(u"A" + c + u"\u03A3"));
      fnv.feed(cce::js::toLowerCase(u"A\u03A3" + c));
    }
    CHECK(fnv.h == 0xB05E1C38u);
  }

  TEST_CASE("toLowerCase matches Node on random strings of sigmas and context characters") {
    // xorshift32 strings over this alphabet; each lower-cased result is followed by U+FFFF.
    const std::u16string alphabet[] = {u"\u03A3",
                                       u"\u03A3",
                                       u"\u03A3",
                                       u"A",
                                       u"a",
                                       u" ",
                                       u"'",
                                       u"\u0301",
                                       u"\u00AD",
                                       u"\u0345",
                                       u"\u0130",
                                       u"1",
                                       u".",
                                       units({0xD801}),
                                       units({0xDC00}),
                                       units({0xD801, 0xDC00}),
                                       u"\u1E9E",
                                       u"\u2019",
                                       u"\u02B0",
                                       u"\u0345",
                                       u"\u3000",
                                       u"\u13A0"};
    constexpr std::uint32_t kAlphabetSize = sizeof alphabet / sizeof alphabet[0];
    static_assert(kAlphabetSize == 22, "must match the Node script");
    std::uint32_t x = 2463534242u;
    auto next = [&x]() {
      x ^= x << 13;
      x ^= x >> 17;
      x ^= x << 5;
      return x;
    };
    Fnv fnv;
    for (int n = 0; n < 20000; ++n) {
      std::uint32_t length = next() % 12;
      U16 s;
      for (std::uint32_t k = 0; k < length; ++k) s += alphabet[next() % kAlphabetSize];
      fnv.feed(cce::js::toLowerCase(s));
      fnv.feed(u"\uFFFF");
    }
    CHECK(fnv.h == 0x13355210u);
  }

  TEST_CASE("fromUtf8 decodes like TextDecoder, one U+FFFD per maximal invalid subpart") {
    struct Case {
      const char* name;
      std::string_view bytes;
      std::initializer_list<char16_t> expected;  // new TextDecoder().decode(bytes) in Node
    };
    const Case cases[] = {
        {"ascii", "\x41\x42\x43", {0x41, 0x42, 0x43}},
        {"two-byte", "\xC3\xA9", {0xE9}},
        {"three-byte", "\xE2\x82\xAC", {0x20AC}},
        {"four-byte emoji", "\xF0\x9F\x98\x80", {0xD83D, 0xDE00}},
        {"max code point", "\xF4\x8F\xBF\xBF", {0xDBFF, 0xDFFF}},
        {"lone continuation", "\x80", {0xFFFD}},
        {"two continuations", "\x80\xBF", {0xFFFD, 0xFFFD}},
        {"invalid lead bytes", "\xC0\xC1\xF5\xFF\x41", {0xFFFD, 0xFFFD, 0xFFFD, 0xFFFD, 0x41}},
        {"overlong two-byte", "\xC0\x80", {0xFFFD, 0xFFFD}},
        {"overlong three-byte", "\xE0\x80\x80", {0xFFFD, 0xFFFD, 0xFFFD}},
        {"overlong four-byte", "\xF0\x80\x80\x80", {0xFFFD, 0xFFFD, 0xFFFD, 0xFFFD}},
        {"above U+10FFFF", "\xF4\x90\x80\x80", {0xFFFD, 0xFFFD, 0xFFFD, 0xFFFD}},
        {"truncated three-byte at end", "\xE2\x82", {0xFFFD}},
        {"truncated four-byte before ASCII", "\xF0\x9F\x98\x41", {0xFFFD, 0x41}},
        {"truncated then valid", "\xE2\x82\xE2\x82\xAC", {0xFFFD, 0x20AC}},
        {"lead then lead", "\xC3\xC3\xA9", {0xFFFD, 0xE9}},
        {"E0 then low continuation", "\xE0\x9F\x80", {0xFFFD, 0xFFFD, 0xFFFD}},
        {"F0 then low continuation", "\xF0\x8F\x80\x80", {0xFFFD, 0xFFFD, 0xFFFD, 0xFFFD}},
        {"ascii runs across word boundary",
         "\x30\x31\x32\x33\x34\x35\x36\x37\x38\x39\x61\x62\x63\x64\x65\x66\xC3\xA9\x30\x31\x32\x33"
         "\x34\x35\x36\xE2",
         {0x30, 0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x61, 0x62,  0x63,
          0x64, 0x65, 0x66, 0xE9, 0x30, 0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0xFFFD}},
        {"embedded NUL", std::string_view("a\0b", 3), {0x61, 0x00, 0x62}},
    };
    for (const Case& c : cases) {
      CAPTURE(c.name);
      CHECK(hexUnits(cce::js::fromUtf8(c.bytes)) == hexUnits(units(c.expected)));
    }
  }

  TEST_CASE("fromUtf8 accepts WTF-8 surrogates, which TextDecoder would replace") {
    struct Case {
      const char* name;
      std::string_view bytes;
      std::initializer_list<char16_t> expected;
    };
    const Case cases[] = {
        {"lone high", "\xED\xA0\x80", {0xD800}},
        {"lone low", "\xED\xBF\xBF", {0xDFFF}},
        {"high then low form a pair", "\xED\xA0\xBD\xED\xB8\x80", {0xD83D, 0xDE00}},
        {"last code point before surrogates", "\xED\x9F\xBF", {0xD7FF}},
        {"truncated surrogate", "\xED\xA0", {0xFFFD}},
    };
    for (const Case& c : cases) {
      CAPTURE(c.name);
      CHECK(hexUnits(cce::js::fromUtf8(c.bytes)) == hexUnits(units(c.expected)));
    }
  }

  TEST_CASE("toUtf8 writes UTF-8 and lone surrogates as WTF-8") {
    struct Case {
      const char* name;
      std::initializer_list<char16_t> input;
      std::string_view expected;  // Buffer.from(s) in Node for well-formed input
    };
    const Case cases[] = {
        {"ascii", {0x41, 0x7F}, "\x41\x7F"},
        {"two and three bytes",
         {0x80, 0x7FF, 0x800, 0xFFFF},
         "\xC2\x80\xDF\xBF\xE0\xA0\x80\xEF\xBF\xBF"},
        {"pair", {0xD83D, 0xDE00}, "\xF0\x9F\x98\x80"},
        {"lone high", {0xD800, 0x41}, "\xED\xA0\x80\x41"},
        {"lone low", {0xDC00}, "\xED\xB0\x80"},
        {"reversed pair", {0xDC00, 0xD800}, "\xED\xB0\x80\xED\xA0\x80"},
        {"high at end", {0x41, 0xDBFF}, "\x41\xED\xAF\xBF"},
        {"NUL", {0x00}, std::string_view("\0", 1)},
    };
    for (const Case& c : cases) {
      CAPTURE(c.name);
      CHECK(cce::js::toUtf8(units(c.input)) == c.expected);
    }
  }

  TEST_CASE("UTF-16 survives toUtf8 then fromUtf8 for every BMP unit and astral pairs") {
    U16 all;
    for (char32_t u = 0; u < 0x10000; ++u) all.push_back(static_cast<char16_t>(u));
    for (char32_t cp = 0x10000; cp <= 0x10FFFF; cp += 0x3FF) all += fromCodePoint(cp);
    CHECK(cce::js::fromUtf8(cce::js::toUtf8(all)) == all);
  }
  TEST_CASE("decimal digits as String(n) writes whole numbers, up to the largest uint64") {
    U16 out = u"n=";
    cce::js::appendDecimal(out, 0);
    out += u',';
    cce::js::appendDecimal(out, 7);
    out += u',';
    cce::js::appendDecimal(out, 1000);
    out += u',';
    cce::js::appendDecimal(out, 9007199254740991ull);  // Number.MAX_SAFE_INTEGER
    out += u',';
    cce::js::appendDecimal(out, UINT64_MAX);
    CHECK(out == u"n=0,7,1000,9007199254740991,18446744073709551615");
    CHECK(cce::js::decimalAscii(0) == "0");
    CHECK(cce::js::decimalAscii(42) == "42");
    CHECK(cce::js::decimalAscii(UINT64_MAX) == "18446744073709551615");
  }
}
