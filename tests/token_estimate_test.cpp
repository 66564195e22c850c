// SPDX-License-Identifier: MIT
// Tests for the script-aware token estimate: accuracy against o200k_base, monotonicity, additivity.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "growth.h"
#include "jscompat/string.h"
#include "token_estimate.h"

namespace {

using cce::estimateTokens;

std::string sampleDir() {
#ifdef CCE_SOURCE_DIR
  return std::string(CCE_SOURCE_DIR) + "/tests/data/token-estimate/";
#else
  return "tests/data/token-estimate/";
#endif
}

std::u16string readSample(const std::string& name) {
  std::ifstream in(sampleDir() + name, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return cce::js::fromUtf8(bytes);
}

// Real counts of each whole file, measured with gpt-tokenizer 4.0.0 by
// scripts/measure-token-estimate.mjs (o200k_base is the calibration target; cl100k_base is
// recorded to show how far the older vocabulary is from it on non-Latin scripts). `units` pins the
// file: if a sample is edited, its counts must be measured again. Files under holdout/ were never
// used to fit the costs.
struct Sample {
  const char* file;
  std::size_t units;
  int o200k;
  int cl100k;
  double tolerance;  // relative to o200k
};

// Pure-ideograph paragraphs get 20 %: o200k stores many common Chinese words as one token, so its
// cost per ideograph ranges from 0.74 (zh-tech) to 1.03 (zh-tw-prose) between texts, and no
// per-character estimate can follow that. Everything else is held to 15 %.
constexpr Sample kSamples[] = {
    {"zh-chat-code.txt", 570, 215, 253, 0.15},
    {"zh-chat.txt", 209, 164, 246, 0.20},
    {"zh-prose.txt", 279, 229, 357, 0.20},
    {"zh-tech.txt", 331, 224, 343, 0.20},
    {"zh-tw-chat.txt", 237, 205, 335, 0.20},
    {"zh-tw-prose.txt", 260, 244, 377, 0.20},
    {"ja-chat-code.txt", 541, 209, 256, 0.15},
    {"ja-chat.txt", 244, 172, 244, 0.15},
    {"ja-prose.txt", 342, 283, 391, 0.15},
    {"ja-tech.txt", 404, 254, 355, 0.15},
    {"ko-chat-code.txt", 541, 211, 283, 0.15},
    {"ko-chat.txt", 262, 149, 252, 0.15},
    {"ko-prose.txt", 384, 211, 373, 0.15},
    {"ko-tech.txt", 397, 228, 366, 0.15},
    {"ar-prose.txt", 634, 180, 423, 0.15},
    {"el-prose.txt", 553, 202, 489, 0.15},
    {"emoji-chat.txt", 354, 108, 131, 0.15},
    {"eu-prose.txt", 829, 172, 229, 0.15},
    {"he-prose.txt", 487, 175, 462, 0.15},
    {"hi-prose.txt", 690, 188, 671, 0.15},
    {"ru-prose.txt", 822, 211, 399, 0.15},
    {"th-prose.txt", 486, 200, 480, 0.15},
    {"en-code-ts.txt", 1005, 267, 264, 0.15},
    {"en-markdown.txt", 842, 234, 230, 0.15},
    {"en-prose.txt", 809, 167, 170, 0.15},
    {"en-tool-output.txt", 878, 336, 336, 0.15},
    {"holdout/zh-code-chat.txt", 293, 129, 159, 0.15},
    {"holdout/zh-news.txt", 212, 163, 262, 0.20},
    {"holdout/ja-news.txt", 223, 179, 256, 0.15},
    {"holdout/ko-news.txt", 257, 138, 251, 0.15},
    {"holdout/ru-tech.txt", 512, 117, 208, 0.15},
    {"holdout/en-support.txt", 560, 129, 131, 0.15},
};

std::vector<std::u16string> allSamples() {
  std::vector<std::u16string> texts;
  for (const Sample& s : kSamples) texts.push_back(readSample(s.file));
  return texts;
}

bool isBlank(char16_t c) { return c == u' '; }
bool isWhitespace(char16_t c) { return c == u' ' || c == u'\n' || c == u'\t' || c == u'\r'; }
bool isLowSurrogate(char16_t c) { return c >= 0xDC00 && c <= 0xDFFF; }

}  // namespace

TEST_SUITE("token_estimate") {
  TEST_CASE("estimates each paragraph-sized sample within its tolerance of the o200k count") {
    for (const Sample& s : kSamples) {
      CAPTURE(s.file);
      std::u16string text = readSample(s.file);
      REQUIRE(text.size() == s.units);
      double estimate = estimateTokens(text);
      CAPTURE(estimate);
      CAPTURE(s.o200k);
      CHECK(std::fabs(estimate - s.o200k) <= s.tolerance * s.o200k);
    }
  }

  TEST_CASE("stays within three tokens of o200k on short messages") {
    // Counts from gpt-tokenizer's o200k_base. Left out on purpose: whole phrases the vocabulary
    // stores as one token ("こんにちは" is 1, "안녕하세요" is 1) and ZWJ emoji sequences.
    struct Short {
      const char16_t* text;
      int o200k;
    };
    const Short cases[] = {
        {u"hello world", 2},
        {u"The quick brown fox jumps over the lazy dog.", 10},
        {u"你好，世界！今天天气很好。", 9},
        {u"東京タワー", 4},
        {u"😀😀", 2},
        {u"👍🏽", 3},
        {u"function foo(a, b) { return a + b; }", 13},
        {u"retryConfig.maxAttempts", 4},
        {u"a3f9c2e17b", 9},
        {u"───────────────", 4},
        {u"const x = 42;\n    return x * 2;\n", 13},
        {u"Exit code 1", 4},
        {u"Привет, мир!", 5},
        {u"Größenänderung", 5},
        {u"✅ done → next", 4},
        {u"2024-08-14T14:02:53.118Z", 15},
        {u"ls -la /usr/local/bin", 7},
        {u"\x1b[31merror\x1b[0m", 9},
        {u"SELECT * FROM users WHERE id = 7;", 10},
        {u"if (ok) {\n            return;\n        }\n", 10},
        {u"def f(x):\n    if x:\n        return [\n            x,\n        ]\n", 16},
        {u"name        size    modified\nREADME.md   4096    Aug 14\n", 17},
    };
    for (const Short& c : cases) {
      std::u16string text(c.text);
      CAPTURE(cce::js::toUtf8(text));
      double estimate = estimateTokens(text);
      CAPTURE(estimate);
      CHECK(std::fabs(estimate - c.o200k) <= 3);
    }
  }

  TEST_CASE("counts the empty string as zero and any other text as at least one token") {
    CHECK(estimateTokens(u"") == 0);
    CHECK(estimateTokens(u" ") == 1);
    CHECK(estimateTokens(u"\n\n\n") == 1);
    CHECK(estimateTokens(u"。") == 1);
    const char16_t lone[] = {0xD83D, u'a', 0xDE00, 0};
    CHECK(estimateTokens(lone) >= 2);
  }

  TEST_CASE("returns whole numbers") {
    for (const std::u16string& text : allSamples()) {
      double estimate = estimateTokens(text);
      CHECK(estimate == std::floor(estimate));
    }
  }

  TEST_CASE("never decreases when a code point is appended") {
    std::vector<std::u16string> texts = allSamples();
    texts.push_back(u"a  \n  b\t\tc 12 34x5Y ─── ── 😀‍👍🏽 \x1b[0m АБв 中文。かなカナ 한국어 𠀀");
    // A random-looking run that stops looking random as lower-case letters are appended.
    texts.push_back(u"key: gAAAAABl3x9QzR7vK2mW8pL4nT6yH1cJ5dF0 " + std::u16string(60, u'x') + u" end");
    for (const std::u16string& text : texts) {
      CAPTURE(cce::js::toUtf8(text.substr(0, 40)));
      double previous = 0;
      for (std::size_t end = 1; end <= text.size(); ++end) {
        if (end < text.size() && isLowSurrogate(text[end])) continue;  // code point boundaries
        double estimate = estimateTokens(std::u16string_view(text).substr(0, end));
        if (estimate < previous) {
          CAPTURE(end);
          CHECK(estimate >= previous);
          break;
        }
        previous = estimate;
      }
    }
  }

  TEST_CASE("splitting at a single space loses at most the rounding of one part") {
    // Every count depends only on the text since the previous whitespace run, so the two parts'
    // fractional sums add up exactly and only the final rounding differs.
    for (const std::u16string& text : allSamples()) {
      std::u16string_view all(text);
      for (std::size_t i = 1; i + 1 < text.size(); ++i) {
        if (!isBlank(text[i]) || isWhitespace(text[i - 1]) || isWhitespace(text[i + 1])) continue;
        double a = estimateTokens(all.substr(0, i));
        double b = estimateTokens(all.substr(i));
        double whole = estimateTokens(all);
        CAPTURE(cce::js::toUtf8(text.substr(0, 40)));
        CAPTURE(i);
        CHECK(whole <= a + b);
        CHECK(whole >= a + b - 1);
      }
    }
  }

  TEST_CASE("grows linearly with repetition and runs in linear time on 1 MB") {
    std::u16string unit;
    for (const std::u16string& text : allSamples()) unit += text;  // every sample ends in \n
    const double perUnit = estimateTokens(unit);
    std::u16string big;
    std::size_t copies = 0;
    while (big.size() < (std::size_t{1} << 20)) {
      big += unit;
      ++copies;
    }
    const double estimate = estimateTokens(big);
    CHECK(estimate <= copies * perUnit);
    CHECK(estimate >= copies * (perUnit - 1));
    // The work for a quarter of the text against all of it.
    const std::size_t quarter = big.size() / 4;
    CHECK(cce::test::growthRatio(
              [&](std::size_t size) {
                volatile double sink = estimateTokens(std::u16string_view(big).substr(0, size));
                (void)sink;
              },
              quarter) < cce::test::kLinearGrowthLimit);
  }

  TEST_CASE("counts every CJK paragraph closer to o200k than the reference's len/3.5 does") {
    // The defect of issue 6 item 7: o200k spends 0.5-1 token per CJK character, the reference
    // 0.29, so it is 40-75 % short on these samples.
    for (const Sample& s : kSamples) {
      std::string file = s.file;
      std::string lang = file.substr(file.rfind('/') + 1, 2);
      if (lang != "zh" && lang != "ja" && lang != "ko") continue;
      CAPTURE(s.file);
      std::u16string text = readSample(s.file);
      double reference = std::ceil(text.size() / 3.5);
      CHECK(std::fabs(estimateTokens(text) - s.o200k) < std::fabs(reference - s.o200k) / 2);
    }
  }

  TEST_CASE("costs exactly what its feature counts cost, however a long text is split") {
    // Long texts (from 256 units) are estimated in two interleaved halves and the seam is
    // repaired; the feature counts come from a plain serial pass of step(), so any seam mistake
    // shows up as a difference, to the thousandth of a token.
    auto milliFromFeatures = [](std::u16string_view text) {
      cce::detail::TokenFeatures f = cce::detail::tokenFeatures(text);
      std::uint64_t milli = 0;
      for (int k = 0; k < cce::detail::kFeatureCount; ++k) {
        milli += f[k] * cce::detail::kTokenFeatureCostMilli[k];
      }
      return milli;
    };
    auto fromFeatures = [&](std::u16string_view text) {
      const std::uint64_t milli = milliFromFeatures(text);
      return text.empty() ? 0.0 : milli == 0 ? 1.0 : static_cast<double>((milli + 999) / 1000);
    };
    std::vector<std::u16string> texts = allSamples();
    const std::u16string pieces[] = {
        u"implementationDetails", u"   \n\n    ", u"1234567", u"───────", u"😀👍🏽𠀀",
        u"\xD83D", u"\xDE00", u"(x)", u"АБВгд", u"中文。", u"한국어 단어", u"a", u" ",
        u"Xk9fQ2mZr7TbW4pLs8Nd+/", u"Xk9fQ2mZr7TbW4pLs8Nd.", u"/OEBPS/html/ch05.", u"/OEBPS/html/ch5."};
    // Every piece, repeated past the two-halves threshold, with every shift of the middle.
    for (const std::u16string& piece : pieces) {
      for (std::size_t length : {300, 2100}) {
        std::u16string body;
        while (body.size() < length) body += piece;
        for (std::size_t shift = 0; shift < 24; ++shift) {
          texts.push_back(std::u16string(shift, u'x') + body);
          texts.push_back(u"A b" + std::u16string(shift, u' ') + body);
        }
      }
    }
    // A seam inside a run that never lets the states meet again (one long word, one long rule)
    // and a text whose halves are different scripts.
    texts.push_back(std::u16string(5000, u'a'));
    texts.push_back(std::u16string(5000, u'\u2500'));
    // Random-looking runs longer than the packed counts hold, across the seam or not.
    for (std::size_t length : {70000, 140000, 140017}) {
      std::u16string run;
      while (run.size() < length) run += u"Xk9fQ2mZr7TbW4pLs8Nd+/";
      run.resize(length);
      texts.push_back(run);
      texts.push_back(u"x " + run + u" tail");
    }
    std::u16string mixed;
    for (const std::u16string& piece : pieces) {
      for (int i = 0; i < 40; ++i) mixed += piece;
    }
    texts.push_back(mixed);
    // Words of every length after every kind of start, below, at and past both length caps
    // (spaced words after a blank, bare ones after punctuation or a capital).
    for (std::size_t length = 1; length <= 12; ++length) {
      const std::u16string word(length, u'e');
      for (const char16_t* before : {u" ", u"(", u"\n", u"X", u"Ab", u"a1", u"é"}) {
        std::u16string text;
        for (int i = 0; i < 30; ++i) text += std::u16string(before) + word;
        texts.push_back(text);
        texts.push_back(text.substr(0, 200));
      }
    }
    // The speed build takes plain ASCII units two at a time and everything else one at a time:
    // controls (symbols, which may repeat), DEL, non-ASCII units and surrogates at every position
    // and parity among plain units, in short texts and long ones.
    const std::u16string odd[] = {u"\x1b", u"\x1b\x1b", u"\x7f", u"\x01\x01\x01", u"\u00e9",
                                  u"\u2500\u2500", u"\xD83D\xDE00", u"\xD83D", u"\xDE00",
                                  u"\u4e2d", u"\t", u"\r\n"};
    for (const std::u16string& unit : odd) {
      for (std::size_t at = 0; at < 6; ++at) {
        for (std::size_t length : {7, 40, 301}) {
          std::u16string text = u"Ab c1.";
          while (text.size() < length) text += u"word Word 12 (x) ";
          text.resize(length);
          text.insert(std::min(at, text.size()), unit);
          text.insert(std::min(text.size() / 2 + at, text.size()), unit);
          text += unit;
          texts.push_back(text);
        }
      }
    }
    for (const std::u16string& text : texts) {
      CAPTURE(cce::js::toUtf8(text.substr(0, 40)));
      CAPTURE(text.size());
      CHECK(cce::detail::costMilli(text) == milliFromFeatures(text));
      CHECK(estimateTokens(text) == fromFeatures(text));
    }
  }

  TEST_CASE("estimates documentation markdown and JSON tool texts within 10 % of o200k") {
    // Issue 17: the main entry says `fits: true` only if what it sends is within 1.10 x the
    // budget by o200k. Texts like these (shortened from data/native) were estimated 11-15 % low
    // before the refit (docs/token-counts.md): words after punctuation runs, JSON escapes ("\n"
    // and "\"" inside strings) and line breaks after punctuation were mispriced. The o200k counts
    // were computed once with gpt-tokenizer (o200k_base) and are written here as data.
    struct Case {
      const char* what;
      const char16_t* text;
      int o200k;
    };
    const Case cases[] = {
        {"a documentation table of code names (markdown)",
         u"| Event | Matcher input | Example matchers |\n"
         u"|-------|---------------|------------------|\n"
         u"| `PreToolUse`, `PostToolUse`, `PermissionRequest` | too"
         u"l name | `Bash`, `Edit\\|Write`, `mcp__.*` |\n"
         u"| `SessionStart` | how the session started | `startup`, "
         u"`resume`, `clear`, `compact` |\n"
         u"| `SubagentStart` | agent type | `Bash`, `Explore`, `Pla"
         u"n`, or custom agent names |\n"
         u"| `UserPromptSubmit`, `Stop` | no matcher support | alwa"
         u"ys fires on every occurrence |\n",
         123},  // estimate before: 105, now 113
        {"the arguments of an edit tool call (JSON with escaped code)",
         u"{\"file_path\":\"/home/user/projects/spotter/test/spotter/s"
         u"ervices/transcript_renderer_test.exs\",\"old_string\":\"  de"
         u"fp render(session) do\\n    session\\n    |> Transcript.re"
         u"nder(%{\\\"mode\\\" => \\\"full\\\"})\\n    |> Enum.join(\\\"\\\\n\\\")"
         u"\\n  end\\n\",\"new_string\":\"  defp render(session, opts \\\\\\"
         u"\\ []) do\\n    mode = Keyword.get(opts, :mode, \\\"full\\\")\\"
         u"n    session\\n    |> Transcript.render(%{\\\"mode\\\" => mod"
         u"e})\\n    |> Enum.join(\\\"\\\\n\\\")\\n  end\\n\",\"replace_all\":f"
         u"alse}",
         132},  // estimate before: 117, now 126
        {"a tool result holding escaped markdown (JSON)",
         u"[{\"text\":\"Pydantic AI is a Python agent framework design"
         u"ed to simplify building production-grade applications.  "
         u"\\n\\n## Core Features\\n\\n*   **Type-safe agents**: generi"
         u"c types are checked at compile time. \\n*   **Model-agnos"
         u"tic**: over 15 providers through one `Model` interface. "
         u"\\n*   **Structured outputs**: streamed and validated wit"
         u"h Pydantic.\\n\",\"citations\":null}]",
         92},  // estimate before: 81, now 88
    };
    for (const Case& c : cases) {
      CAPTURE(c.what);
      const double estimate = estimateTokens(c.text);
      CAPTURE(estimate);
      CHECK(estimate >= 0.9 * c.o200k);
      CHECK(estimate <= 1.1 * c.o200k);
    }
  }

  TEST_CASE("joins line breaks to punctuation and prices escapes as o200k splits them") {
    using cce::detail::tokenFeatures;
    // ".\n\n" is one o200k token, "done\n\n" two.
    CHECK(tokenFeatures(u"done.\n\nnext")[cce::detail::kPunctNewlines] == 1);
    CHECK(tokenFeatures(u"done.\n\nnext")[cce::detail::kNewlineRuns] == 0);
    CHECK(tokenFeatures(u"done\n\nnext")[cce::detail::kNewlineRuns] == 1);
    // A letter after a backslash is an escape, and the word after it starts afresh.
    const auto escaped = tokenFeatures(u"a;\\nimport x");
    CHECK(escaped[cce::detail::kEscapes] == 1);
    CHECK(escaped[cce::detail::kAttachedWords] == 0);
    // One mark glued to the word before a word joins it ("(src"); after a blank or another
    // mark the word is a piece of its own (" (src", "](/en").
    CHECK(tokenFeatures(u"f(src")[cce::detail::kAttachedWords] == 1);
    CHECK(tokenFeatures(u"f (src")[cce::detail::kAttachedWords] == 0);
    CHECK(tokenFeatures(u"x](/en")[cce::detail::kAttachedWords] == 0);
    CHECK(estimateTokens(u"x](/en") > estimateTokens(u"x(en"));
  }

  TEST_CASE("prices random-looking base64 runs at o200k's rate, and only those") {
    // 1,368 units of base64 of pseudo-random bytes (a fixed LCG): o200k_base spends 0.68-0.69
    // tokens a unit on such text; the automaton alone prices it like identifiers, about 0.51.
    std::u16string blob;
    const char16_t* const alphabet =
        u"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::uint32_t seed = 12345;
    for (int i = 0; i < 1368; ++i) {
      seed = seed * 1103515245u + 12345u;
      blob += alphabet[(seed >> 16) % 64];
    }
    cce::detail::TokenFeatures f = cce::detail::tokenFeatures(blob);
    CHECK(f[cce::detail::kRandomChars] == blob.size());
    CHECK(estimateTokens(blob) >= 0.65 * blob.size());
    CHECK(estimateTokens(blob) <= 0.75 * blob.size());
    // Inside other text: the run alone counts, split at the blanks around it.
    CHECK(cce::detail::tokenFeatures(u"data " + blob + u" end")[cce::detail::kRandomChars] ==
          blob.size());
    // Not random: hex digests, camelCase and snake_case identifiers, paths, prose, short keys.
    for (const char16_t* text :
         {u"sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
          u"useImplementationDetailsForRetryConfig2 getHTTPClientFromEnvironment",
          u"/usr/lib/python3.11/site-packages/some_long_module_name/__init__.py",
          u"The quick brown fox jumps over the lazy dog 1234567890 times.", u"aB3dE5gH9jK1mN",
          u"ALL_CAPS_CONSTANT_NAME_WITH_DIGITS_123"}) {
      CAPTURE(cce::js::toUtf8(text));
      CHECK(cce::detail::tokenFeatures(text)[cce::detail::kRandomChars] == 0);
    }
    // The longest prefix that looks random counts, so appending letters never takes it back.
    const std::u16string key = u"Xk9fQ2mZr7TbW4pLs8Nd";
    CHECK(cce::detail::tokenFeatures(key)[cce::detail::kRandomChars] == key.size());
    CHECK(cce::detail::tokenFeatures(key + std::u16string(40, u'q'))[cce::detail::kRandomChars] >=
          key.size());
    // Runs longer than the packed counts hold are cut and priced in pieces.
    std::u16string huge;
    while (huge.size() < 200000) huge += blob;
    CHECK(cce::detail::tokenFeatures(huge)[cce::detail::kRandomChars] == huge.size());
  }

  TEST_CASE("finds the random-looking runs sixteen units at a time as the serial pass does") {
    // The speed build's estimate reads only the base64 runs of 16 units or more, found a block of
    // 16 at a time (SSE2 where there is SSE2); the feature count is the plain serial definition.
    auto check = [](const std::u16string& text) {
      CAPTURE(cce::js::toUtf8(text.substr(0, 60)));
      CAPTURE(text.size());
      CHECK(cce::detail::randomCharsOfLongRuns(text) ==
            cce::detail::tokenFeatures(text)[cce::detail::kRandomChars]);
    };
    for (const std::u16string& text : allSamples()) check(text);
    // Runs of every length around the minimum and the packed counts' cut, random-looking or not,
    // at every offset into a block, ended by each kind of non-base64 unit or by the text's end
    // (the units 0x100, 0x8000 and 0xFFFF leave base64 when the lanes are narrowed to bytes).
    const std::u16string random = u"Xk9fQ2mZr7TbW4pLs8Nd+/_-=aB3dE5gH9jK1mN";
    const std::u16string plain = u"abcdefghijklmnopqrstuvwxyz";
    const std::u16string ends[] = {u"",       u" ",      u".",      u"@",
                                   u"\u00e9", u"\u0100", u"\u8000", u"\uffff",
                                   u"\xD83D\xDE00", std::u16string(1, u'\0')};
    for (const std::u16string* body : {&random, &plain}) {
      for (std::size_t length : {0, 1, 14, 15, 16, 17, 18, 31, 32, 33, 47, 48, 49}) {
        std::u16string run;
        while (run.size() < length) run += *body;
        run.resize(length);
        for (std::size_t offset = 0; offset < 18; ++offset) {
          for (const std::u16string& end : ends) {
            check(std::u16string(offset, u' ') + run + end);
            check(std::u16string(offset, u'a') + end + run + end + u"tail of text");
            check(run + end + std::u16string(offset, u'Q') + end + run);
          }
        }
      }
    }
    for (std::size_t length : {65534, 65535, 65536, 65550, 131070, 131071, 131086}) {
      std::u16string run;
      while (run.size() < length) run += random;
      run.resize(length);
      check(run);
      check(u"x " + run + u" tail");
      check(std::u16string(7, u'a') + run);
    }
    // Long runs are read only when they hold a digit: mixed-case runs of 16-40 units with one
    // digit at each position (in the part carried from the blocks before, in the block that
    // reaches 16, past it, last), or none, at every offset into a block, ended or not.
    const std::u16string mixedCase = u"kTqWzRbNpLmXcVdHsJfGyUeA";
    for (std::size_t length : {16, 17, 23, 31, 40}) {
      for (std::size_t digitAt = 0; digitAt <= length; ++digitAt) {
        std::u16string run;
        while (run.size() < length) run += mixedCase;
        run.resize(length);
        if (digitAt < length) run[digitAt] = u'7';
        for (std::size_t offset = 0; offset < 17; ++offset) {
          check(std::u16string(offset, u' ') + run);
          check(std::u16string(offset, u'.') + run + u" tail of the text");
          check(u"x" + std::u16string(offset, u'a') + u"." + run + u"@" + run);
        }
      }
    }
    // Random texts over base64 units and separators, mostly base64 so that long runs are common.
    const std::u16string alphabet = u"aZ09+/_-=Qx7 .\u00e9\u0100\u8000\n";
    std::uint32_t seed = 2026;
    for (int t = 0; t < 20000; ++t) {
      seed = seed * 1103515245u + 12345u;
      const std::size_t length = (seed >> 16) % 160;
      std::u16string text;
      for (std::size_t k = 0; k < length; ++k) {
        seed = seed * 1103515245u + 12345u;
        const std::uint32_t r = (seed >> 16) % 100;
        text += r < 85 ? alphabet[r % 12] : alphabet[12 + r % 6];
      }
      check(text);
    }
  }

  TEST_CASE("exposes one named, non-negative cost per feature") {
    for (int k = 0; k < cce::detail::kFeatureCount; ++k) {
      CAPTURE(k);
      CHECK(std::string(cce::detail::tokenFeatureName(k)).size() > 0);
      CHECK(cce::detail::kTokenFeatureCostMilli[k] < 5000);
    }
    CHECK(std::string(cce::detail::tokenFeatureName(cce::detail::kFeatureCount)).empty());
  }
}
