// SPDX-License-Identifier: MIT
// Tests for the finders of match/identifiers.h (findUnit, findDigit, findTerminator, findUpper):
// eight units per step with SSE2 (native x86-64, the wasm speed build), four or one elsewhere, the
// same answer as the plain definition from every start, wherever the unit sits among the lanes.
#include "match/identifiers.h"

#include <doctest/doctest.h>

#include <cstddef>
#include <string>
#include <vector>

namespace {

// The plain definition: the first unit at or after `from` that `is` accepts, or the size.
template <class Is>
std::size_t plainFind(const std::u16string& text, std::size_t from, Is is) {
  while (from < text.size() && !is(text[from])) ++from;
  return from;
}

// Texts of every length up to 40 made of near misses (units next to the wanted ones, and units
// whose low or high byte is one: 0x802E, 0x2E00, 0x0130, 0xFF10), with the wanted unit at each
// position in turn, and once with every unit wanted.
template <class Check>
void forEachText(char16_t wanted, Check check) {
  const char16_t misses[] = {u'a', u'/', u':', u'-', u',', u'\n', u' ', u'@', u'[',
                             0x802E, 0x2E00, 0x0130, 0xFF10, 0x3A3A, 0x8000, 0xFFFF,
                             0x8041, 0x4100, 0x015A, 0x5B,   0x60};
  for (std::size_t length = 0; length <= 40; ++length) {
    std::u16string base(length, u'x');
    for (std::size_t i = 0; i < length; ++i) base[i] = misses[(i * 7 + length) % std::size(misses)];
    check(base);
    for (std::size_t at = 0; at < length; ++at) {
      std::u16string text = base;
      text[at] = wanted;
      check(text);
    }
    check(std::u16string(length, wanted));
  }
}

}  // namespace

TEST_SUITE("match finders") {
  TEST_CASE("findUnit, findDigit, findTerminator and findUpper agree with their definitions") {
    std::size_t checked = 0;
    auto agree = [&checked](const std::u16string& text, auto find, auto is) {
      for (std::size_t from = 0; from <= text.size(); ++from) {
        CHECK(find(text, from) == plainFind(text, from, is));
        ++checked;
      }
    };
    for (char16_t unit : {u'\n', u':', u'`', u'.'}) {
      forEachText(unit, [&](const std::u16string& text) {
        auto find = [unit](std::u16string_view t, std::size_t f) {
          return cce::match::findUnit(t, f, unit);
        };
        agree(text, find, [unit](char16_t c) { return c == unit; });
      });
    }
    for (char16_t digit : {u'0', u'5', u'9'}) {
      forEachText(digit, [&](const std::u16string& text) {
        agree(text, cce::match::findDigit<>, [](char16_t c) { return c >= u'0' && c <= u'9'; });
      });
    }
    for (char16_t stop : {u'0', u'9', u'\n'}) {
      forEachText(stop, [&](const std::u16string& text) {
        agree(text, cce::match::findDigit<true>,
              [](char16_t c) { return (c >= u'0' && c <= u'9') || c == u'\n'; });
      });
    }
    for (char16_t terminator : {u'.', u'!', u'?'}) {
      forEachText(terminator, [&](const std::u16string& text) {
        agree(text, cce::match::findTerminator,
              [](char16_t c) { return c == u'.' || c == u'!' || c == u'?'; });
      });
    }
    for (char16_t upper : {u'A', u'Q', u'Z'}) {
      forEachText(upper, [&](const std::u16string& text) {
        agree(text, cce::match::findUpper, [](char16_t c) { return c >= u'A' && c <= u'Z'; });
      });
    }
    CHECK(checked > 100000);
  }
}
