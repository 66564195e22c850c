// SPDX-License-Identifier: MIT
// Tests for §7 entity extraction (order of kinds, starter filter, lower-cased vowelless, cap).
#include "entities.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "growth.h"
#include "jscompat/string.h"

namespace {

std::string joined(const std::vector<std::u16string>& entities) {
  std::string out;
  for (std::size_t i = 0; i < entities.size(); ++i) {
    if (i > 0) out += ", ";
    out += cce::js::toUtf8(entities[i]);
  }
  return out;
}

std::string entitiesOf(const std::string& utf8, std::size_t limit = 10) {
  return joined(cce::extractEntities(cce::js::fromUtf8(utf8), limit));
}

std::string repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

}  // namespace

TEST_SUITE("entities") {
  TEST_CASE("reproduces the spec's verified entity lists") {
    struct Case {
      const char* name;
      std::string text;
      std::string expected;
    };
    const Case cases[] = {
        // §7 example.
        {"section 7",
         repeat("We use pnpm workspaces and connect via ssh to deploy the grpc service with the "
                "Express server and Redis cache. The TypeScript code calls getUserProfile and "
                "handles 3 retries in 500 ms. ",
                4),
         "Express, Redis, TypeScript, getUserProfile, pnpm, ssh, grpc, 3 retries, 500 ms"},
        // §13 example 9.
        {"filler",
         repeat("Sure thing. OK then. Thanks for that. Got it. No problem. Will do. Right. "
                "Absolutely. ",
                3),
         "Got, Will, Right, Absolutely"},
        // §13 example 1: "This" is a common starter.
        {"starter only",
         repeat("This is a long message about general topics that could be compressed. ", 5), ""},
        // corpus edge-summarize-all-filler.
        {"filler phrases",
         "No, that is fine and report back shortly. Right, I will take a look at it soon and "
         "report back shortly. No, I will take a look at it soon and report back shortly. "
         "Understood, that is fine and report back shortly. Will do, we can do that and report "
         "back shortly.",
         "Right, Understood, Will"},
    };
    for (const Case& c : cases) {
      CAPTURE(std::string(c.name));
      CHECK(entitiesOf(c.text) == c.expected);
    }
  }

  TEST_CASE("keeps proper-noun phrases whole, whitespace included, and drops starter phrases") {
    struct Case {
      const char* text;
      const char* expected;
    };
    const Case cases[] = {
        {"Alice Johnson met Bob in Berlin", "Alice Johnson, Bob, Berlin"},
        {"Ask New\nYork  City now", "Ask New\nYork  City"},
        {"The Express server", ""},                 // the whole phrase goes with its starter
        {"Hello World2 here", "Hello"},             // the last word cannot end at a word char
        {"Hello TypeScript", "Hello, TypeScript"},  // "Type" runs into "S": phrase stops at Hello
        {"Abc1 Xyz_", ""},
        {"caf\xc3\xa9 Zo\xc3\xab", "Zo"},                    // non-ASCII letters are non-word chars
        {"Berlin Berlin. Berlin", "Berlin Berlin, Berlin"},  // exact-string dedup
    };
    for (const Case& c : cases) {
      CAPTURE(std::string(c.text));
      CHECK(entitiesOf(c.text) == c.expected);
    }
  }

  TEST_CASE("orders identifier kinds, lower-cases vowelless words and keeps number units") {
    struct Case {
      const char* text;
      const char* expected;
    };
    const Case cases[] = {
        {"db_pool getUser UserService", "UserService, getUser, db_pool"},
        {"SSH and ssh and Ssh", "Ssh, ssh"},  // "Ssh" is a proper noun, then vowelless "ssh" once
        {"took 3ms, 4.2 seconds, 2 replicas, 100 users and 7 attempts",
         "3ms, 4.2 seconds, 2 replicas, 100 users, 7 attempts"},
        {"up 40% today, 40 percent, 12%x", "40 percent, 12%"},  // "%" needs a word char after it
        {"after 3 hours and 1 day and 5 errors", "3 hours, 1 day, 5 errors"},
        {"a1 5 ms", "5 ms"},
        {"x5 ms", ""},  // no boundary before the digit
    };
    for (const Case& c : cases) {
      CAPTURE(std::string(c.text));
      CHECK(entitiesOf(c.text) == c.expected);
    }
  }

  TEST_CASE("caps the list at the limit in insertion order") {
    std::string text =
        "Alpha Bravo. Charlie! Delta? Echo; Foxtrot, Golf: Hotel- India/ Juliet+ Kilo";
    CHECK(entitiesOf(text) ==
          "Alpha Bravo, Charlie, Delta, Echo, Foxtrot, Golf, Hotel, India, Juliet, Kilo");
    CHECK(entitiesOf(text + ". Lima") ==
          "Alpha Bravo, Charlie, Delta, Echo, Foxtrot, Golf, Hotel, India, Juliet, Kilo");
    CHECK(entitiesOf(text, 3) == "Alpha Bravo, Charlie, Delta");
    CHECK(entitiesOf(text, 0).empty());
  }

  TEST_CASE("a limit above 16 keeps each entity once, in order, through its index") {
    // Thirty distinct proper nouns, each twice, and a vowelless word in three cases: past 16
    // entities a list looks its items up in an index instead of scanning them.
    std::string text;
    std::string expected;
    for (int round = 0; round < 2; ++round) {
      for (char a = 'a'; a < 'a' + 30; ++a) {
        std::string name = std::string("Name") + static_cast<char>('a' + (a - 'a') % 26) +
                           static_cast<char>('a' + (a - 'a') / 26);
        text += name + ". ";
        if (round == 0) expected += (expected.empty() ? "" : ", ") + name;
      }
    }
    text += "ssh, SSH and ssh.";
    CHECK(entitiesOf(text, 40) == expected + ", ssh");
    CHECK(entitiesOf(text, 20) == entitiesOf(text, 40).substr(0, 20 * 8 - 2));
  }

  TEST_CASE("keeps finding proper nouns and capitals after the later kinds are full") {
    // Ten camel words fill the list before anything else; past a long plain stretch only proper
    // nouns, Pascal and camel words can still enter, pushing the last camel words out.
    std::string text =
        "oneTwo threeFour fiveSix sevenEight nineTen elevenTwelve thirteenFourteen fifteenSixteen "
        "seventeenEighteen nineteenTwenty. ";
    text += repeat("then some plain words with ssh and 5 ms follow here ", 40);
    text += "and Redis runs with WidgetFactory and extraCamel too.";
    CHECK(entitiesOf(text) ==
          "Redis, WidgetFactory, oneTwo, threeFour, fiveSix, sevenEight, nineTen, elevenTwelve, "
          "thirteenFourteen, fifteenSixteen");
  }

  TEST_CASE("treats non-ASCII letters as word boundaries in every kind") {
    // "Caf" ends at the non-word "é"; "veBayes" starts after "ï"; "Zürich" has no [a-z] after Z.
    CHECK(entitiesOf("\xc3\x9cn\xc3\xaf" "code Caf\xc3\xa9 uses the na\xc3\xafveBayes module "
                     "and Z\xc3\xbcrich ssh.") == "Caf, veBayes, ssh");
  }

  TEST_CASE("extracts from a megabyte of text in linear time") {
    auto text = [](std::size_t size) {
      std::u16string big;
      while (big.size() < size) big += u"The quick fox and the lazy dog rest here. ";
      return big;
    };
    CHECK(cce::extractEntities(text(1u << 20)).empty());
    CHECK(cce::test::growthRatio([&](std::size_t size) { cce::extractEntities(text(size)); },
                                 1u << 18) < cce::test::kLinearGrowthLimit);
  }

  TEST_CASE("the lane walk finds what the word walk finds, at every cut of a text") {
    // SIMD builds walk 64-unit blocks of word lanes (extractEntities); the others walk word by
    // word (detail::extractEntitiesByWords). Both pass over the words the upper-case walk can no
    // longer use; detail::extractEntitiesPassingNone hands it every word. Words cross block and 1024-unit chunk edges, sit at
    // the text's start and end, mix every class, and the lists fill (so both walks stop early
    // and switch to the upper-case walk at the same word).
    static constexpr std::u16string_view kPieces[] = {
        u"the",        u"build",       u"service",    u"and",       u"with",      u"Alice",
        u"Bob Smith",  u"New York",    u"The",        u"However",   u"HTTP",      u"PASS",
        u"snake_case", u"other_name",  u"camelCase",  u"getValue",  u"PascalCase", u"MyType",
        u"npm",        u"ssh",         u"gym",        u"rhythm",    u"x1",        u"_private",
        u"a",          u"I",           u"30 seconds", u"2.5 GB",    u"5ms",       u"12 km",
        u"caf\u00e9",  u"\u00fcber",   u"\u2014",     u"\U0001F600", u"42",       u"v1.5",
        // Units the lanes narrow with saturation: 0x80-0xFF stay, 0x100-0x7FFF become 0xFF,
        // 0x8000 and above 0x00; none of them may pass for an ASCII word unit.
        u"na\u0130ve",  u"\uFF21BC",    u"Stra\u00DFe", u"\u4E2D\u6587x", u"\uAC00Go",
        u"\u0141odz",   u"x\u0080y\u00FFz", u"\uFFFF_id", u"\u0100\u7FFF\u8000",
        // Capitals the upper-case walk passes over once camel words are full, and those it takes.
        u"APIClient",   u"Version2",    u"X_y",        u"Ab",        u"OK",        u"A",
        u"abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstu",
        u"ALLCAPSWORDTHATGOESONANDONANDONANDONANDONANDONANDONANDONANDON",
        u"very_long_snake_identifier_that_keeps_going_past_one_block_of_lanes"};
    static constexpr std::u16string_view kGaps[] = {u" ", u" ", u" ", u"  ", u", ", u". ", u"-",
                                                    u"(", u")", u"\n", u"\n\n", u": ", u"/"};
    std::uint32_t state = 20261127;
    auto below = [&state](std::size_t n) {
      state = state * 1103515245u + 12345u;
      return static_cast<std::size_t>((state >> 8) % n);
    };
    std::size_t calls = 0, full = 0;
    for (int t = 0; t < 300; ++t) {
      std::u16string text;
      const std::size_t pieces = 1 + below(t % 10 == 0 ? 600 : 80);
      for (std::size_t k = 0; k < pieces; ++k) {
        if (k > 0) text += kGaps[below(std::size(kGaps))];
        // Mostly plain words, so that lists fill late and the lanes skip most words.
        text += below(3) == 0 ? kPieces[below(std::size(kPieces))] : kPieces[below(4)];
      }
      const std::size_t step = text.size() > 1500 ? 97 : text.size() > 300 ? 7 : 1;
      for (std::size_t cut = 0; cut <= text.size(); cut += step) {
        const std::u16string_view part(text.data(), cut);
        for (std::size_t limit : {std::size_t{3}, std::size_t{10}, std::size_t{20}}) {
          const auto expected = cce::detail::extractEntitiesByWords(part, limit);
          ++calls;
          if (cce::detail::extractEntitiesPassingNone(part, limit) != expected) {
            CAPTURE(cce::js::toUtf8(part));
            CAPTURE(limit);
            CHECK(cce::detail::extractEntitiesPassingNone(part, limit) == expected);
          }
          full += expected.size() == limit;
          if (cce::extractEntities(part, limit) != expected) {
            CAPTURE(cce::js::toUtf8(part));
            CAPTURE(limit);
            CHECK(cce::extractEntities(part, limit) == expected);
          }
        }
      }
    }
    CHECK(calls > 20000);
    CHECK(full > calls / 10);
  }

  TEST_CASE("the upper-case walk's lane step takes every capital word start at every offset") {
    // Once snake and camel words are full (limit 3: three of each below), the SIMD builds take
    // proper nouns and Pascal words from 64-unit lane masks. Capital words are placed at every
    // offset from the walk's start, so each one (and the lower-case letter after it) lands on
    // every lane, the block edge included; the walk that hands every word on is the reference.
    const std::u16string fill = u"one_a two_b three_c oneAb twoBc threeCd ";
    const std::u16string_view tails[] = {
        u"Zeta", u"Zeta Kappa", u"fooBar Zeta", u"HTTPServer Zeta", u"Ab", u"A b Zeta",
        u"The Zeta", u"Zeta2 Kappa", u"X_y Zeta", u"AlphaBeta Zeta", u"Zeta_ Kappa Mu"};
    std::size_t checked = 0;
    for (std::size_t limit : {std::size_t{3}, std::size_t{6}, std::size_t{7}}) {
      for (std::u16string_view tail : tails) {
        for (std::size_t pad = 0; pad < 140; ++pad) {
          std::u16string text = fill + std::u16string(pad, u'x') + u" ";
          for (int k = 0; k < 4; ++k) {
            text += tail;
            text += std::u16string(1 + (pad + 7 * k) % 5, k % 2 ? u' ' : u'\n');
          }
          const auto expected = cce::detail::extractEntitiesPassingNone(text, limit);
          if (cce::extractEntities(text, limit) != expected) {
            CAPTURE(cce::js::toUtf8(text));
            CAPTURE(limit);
            CHECK(cce::extractEntities(text, limit) == expected);
          }
          ++checked;
        }
      }
    }
    CHECK(checked == 3 * 11 * 140);
  }

}  // TEST_SUITE("entities")
