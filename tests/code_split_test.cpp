// SPDX-License-Identifier: MIT
// Tests for the §4.1 fence splitter (fence shape, lazy body, trimmed prose, linear scanning).
#include "code_split.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "growth.h"
#include "jscompat/string.h"

namespace {

struct Expected {
  std::string prose;
  std::vector<std::string> fences;
};

Expected split(const std::string& utf8) {
  cce::CodeSplit s = cce::splitCodeAndProse(cce::js::fromUtf8(utf8));
  Expected out{cce::js::toUtf8(s.prose), {}};
  for (const auto& f : s.fences) out.fences.push_back(cce::js::toUtf8(f));
  return out;
}

// Pieces of fenced and unfenced text: openings with 0-4 spaces and info strings, bodies, closings
// indented or not, stray and unclosed backticks, blank and whitespace-only prose, non-ASCII.
std::u16string generatedFences(unsigned seed) {
  unsigned state = seed * 2654435761u + 3;
  auto next = [&state](unsigned n) {
    state = state * 1103515245u + 12345u;
    return (state >> 8) % n;
  };
  static const char* const kPieces[] = {
      "```", "```ts\n", "   ```python\n", "    ```\n", "\n```\n", "\n  ```", "code();\n",
      "Some prose here. ", "  ", "\n\n", "\t", "`inline`", "``", "naïve 日本", "x = 1\n",
      "\n```", "more words and a sentence.\n", "```\n```\n"};
  std::string text;
  const unsigned pieces = next(30);
  for (unsigned i = 0; i < pieces; ++i) text += kPieces[next(sizeof kPieces / sizeof kPieces[0])];
  return cce::js::fromUtf8(text);
}

}  // namespace

TEST_SUITE("code_split") {
  TEST_CASE("the prose length alone equals the split's") {
    // codeSplitProseLength walks as splitCodeAndProse does without building its strings (the
    // classifier needs only the length): 50,000 generated texts of fences and prose.
    std::size_t withFence = 0;
    for (unsigned seed = 0; seed < 50000; ++seed) {
      const std::u16string text = generatedFences(seed);
      const cce::CodeSplit split = cce::splitCodeAndProse(text);
      withFence += !split.fences.empty();
      if (cce::codeSplitProseLength(text) != split.proseLength) {
        CAPTURE(seed);
        CHECK(cce::codeSplitProseLength(text) == split.proseLength);
      }
    }
    CHECK(withFence > 10000);
  }

  TEST_CASE("separates fenced code from trimmed prose") {
    struct Case {
      const char* name;
      std::string text;
      std::string prose;
      std::vector<std::string> fences;
    };
    const Case cases[] = {
        {"one fence",
         "Intro text.\n```js\nconst a = 1;\n```\nOutro.",
         "Intro text. Outro.",
         {"```js\nconst a = 1;\n```"}},
        {"text after the closing backticks is prose",
         "A\n```\nx\n```tail words",
         "A tail words",
         {"```\nx\n```"}},
        {"closing fence after blank lines and indentation",
         "```\ncode\n\n   \t```\nafter",
         "after",
         {"```\ncode\n\n   \t```"}},
        {"lazy body stops at the first closing fence",
         "p1\n```\na\n```\np2\n```py\nb\n```\np3",
         "p1 p2 p3",
         {"```\na\n```", "```py\nb\n```"}},
        {"info string may be anything",
         "```  c++ {x} ``` y\nz\n```",
         "",
         {"```  c++ {x} ``` y\nz\n```"}},
        {"three leading spaces open a fence", "p\n   ```\nx\n```", "p", {"   ```\nx\n```"}},
        {"four leading spaces do not", "prose\n    ```\nx\n```", "prose\n    ```\nx\n```", {}},
        {"opening must be at a line start", "say ```\nx\n``` ok", "say ```\nx\n``` ok", {}},
        {"a carriage return starts a line", "p\r```\nx\n```", "p", {"```\nx\n```"}},
        {"the body needs its own newline", "```\n```", "```\n```", {}},
        {"an empty body is fine", "```\n\n```", "", {"```\n\n```"}},
        {"unmatched backticks leave one prose segment", "  see ``` here  ", "see ``` here", {}},
        {"four backticks still close", "```\nx\n````", "`", {"```\nx\n```"}},
        {"backticks inside earlier lines are prose",
         "use `x` and ```y``` inline\n```js\ncode\n```\nafter",
         "use `x` and ```y``` inline after",
         {"```js\ncode\n```"}},
    };
    for (const Case& c : cases) {
      CAPTURE(std::string(c.name));
      Expected got = split(c.text);
      CHECK(got.prose == c.prose);
      CHECK(got.fences == c.fences);
    }
  }

  TEST_CASE("counts prose length without the joining spaces") {
    cce::CodeSplit s = cce::splitCodeAndProse(u"  ab \n```\nx\n```\n cde \n```\ny\n```\n  fg");
    CHECK(s.prose == u"ab cde fg");
    CHECK(s.proseLength == 7);
    CHECK(s.fences.size() == 2);
  }

  TEST_CASE("splits pathological inputs in linear time") {
    // Many openings (lines started by \r) without a newline, and long whitespace runs full of
    // newlines before a non-fence; the work for 256 K units against 1 M.
    auto openings = [](std::size_t size) {
      std::u16string text;
      while (text.size() < size) text += u"```x\r";
      return text;
    };
    auto blanks = [](std::size_t size) {
      std::u16string text = u"```\n";
      while (text.size() < size) text += u"\n \n";
      return text + u"x";
    };
    CHECK(cce::splitCodeAndProse(openings(1u << 20)).fences.empty());
    CHECK(cce::splitCodeAndProse(blanks(1u << 20)).fences.empty());
    for (auto make : {+openings, +blanks}) {
      CHECK(cce::test::growthRatio([&](std::size_t size) { cce::splitCodeAndProse(make(size)); },
                                   1u << 18) < cce::test::kLinearGrowthLimit);
    }
  }

}  // TEST_SUITE("code_split")
