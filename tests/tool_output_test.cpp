// SPDX-License-Identifier: MIT
// Tests for §6 structured tool output: detection thresholds, line rules and the two summary forms.
#include "tool_output.h"

#include <doctest/doctest.h>

#include <string>

#include "growth.h"
#include "jscompat/string.h"

namespace {

std::u16string u16(const std::string& s) { return cce::js::fromUtf8(s); }
std::string u8(std::u16string_view s) { return cce::js::toUtf8(s); }

// `n` copies of `line` joined by "\n".
std::string lines(const std::string& line, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += (i > 0 ? "\n" : "") + line;
  return out;
}

std::string grepOutput(int n) {
  std::string out;
  for (int i = 0; i < n; ++i) {
    std::string k = std::to_string(i);
    out += (i > 0 ? "\n" : "") + ("src/file" + k + ".ts:1: export const x" + k + " = " + k);
  }
  return out;
}

}  // namespace

TEST_SUITE("tool_output") {
  TEST_CASE("summarises grep output as its file list") {
    // §13 example 5.
    std::u16string text = u16(grepOutput(10));
    CHECK(cce::isStructuredOutput(text));
    CHECK(u8(cce::summarizeStructured(text, 200)) ==
          "files: src/file0.ts, src/file1.ts, src/file2.ts +7 more");
  }

  TEST_CASE("counts distinct paths in first-seen order however often they repeat") {
    std::string text;
    for (int i = 0; i < 60; ++i) {
      std::string k = std::to_string((i * 7) % 20);
      text += (i > 0 ? "\n" : "") + ("lib/m" + k + ".py:" + std::to_string(i + 1) + ": x = " + k);
    }
    // (i * 7) % 20 visits 0, 7, 14, 1, ... and every residue within the first 20 lines.
    CHECK(u8(cce::summarizeStructured(u16(text), 200)) ==
          "files: lib/m0.py, lib/m7.py, lib/m14.py +17 more");
  }

  TEST_CASE("counts thousands of distinct paths, each once") {
    std::string text;
    for (int i = 0; i < 6000; ++i) {
      const int file = i % 3000;  // every path twice, the second time 3,000 lines later
      text += (i > 0 ? "\n" : "") + ("src/deep/module" + std::to_string(file) + ".ts:" +
                                     std::to_string(i + 1) + ": export const value = " +
                                     std::to_string(i));
    }
    CHECK(u8(cce::summarizeStructured(u16(text), 200)) ==
          "files: src/deep/module0.ts, src/deep/module1.ts, src/deep/module2.ts +2997 more");
  }

  TEST_CASE("falls back to first three, last and line count without paths or status lines") {
    // §13 example 8 (the keep target of the near-dup pair).
    std::string text;
    for (int i = 0; i < 20; ++i) {
      text += (i > 0 ? "\n" : "") +
              ("line " + std::to_string(i) + ": config entry " + std::to_string(i) + " = enabled");
    }
    std::u16string t = u16(text);
    CHECK(cce::isStructuredOutput(t));
    CHECK(u8(cce::summarizeStructured(t, 400)) ==
          "line 0: config entry 0 = enabled | line 1: config entry 1 = enabled | line 2: config "
          "entry 2 = enabled | ... | line 19: config entry 19 = enabled (20 lines)");
  }

  TEST_CASE("decides structure by line rules, line count and newline density") {
    struct Case {
      const char* name;
      std::string text;
      bool structured;
    };
    const std::string bullet = "  - item number is ready for review";
    const Case cases[] = {
        {"six bullets", lines(bullet, 6), true},
        {"five bullets", lines(bullet, 5), false},
        {"blank lines do not count", lines(bullet, 5) + "\n  \n\t", false},
        {"unicode bullet", lines("\t\xe2\x80\xa2 point", 6), true},
        {"bullet needs indent", lines("- item", 6), false},
        {"key: value", lines("some words: value", 6), true},
        {"trailing colon is not key: value", lines("heading:", 6), false},
        {"CRLF makes a trailing colon count", lines("heading:\r", 6), true},
        {"key with dots, slashes, hyphens", lines("  a.b/c-d e: x", 6), true},
        {"key must start with a word char", lines("-a: x", 6), false},
        {"status prefix", lines("WARNING low disk", 6), true},
        {"status prefix is case-sensitive", lines("Warning low disk", 6), false},
        {"status prefix needs a boundary", lines("OKAY then", 6), false},
        {"grep hit", lines("a.b:1:x", 6), true},
        {"grep hit needs text before the dot", lines(".b:1:x", 6), false},
        {"prose", lines("just some plain prose words here", 6), false},
        {"exactly half is not enough", lines("a: b", 3) + "\n" + lines("plain", 3), false},
        {"more than half", lines("a: b", 4) + "\n" + lines("plain", 3), true},
    };
    for (const Case& c : cases) {
      CAPTURE(std::string(c.name));
      CHECK(cce::isStructuredOutput(u16(c.text)) == c.structured);
    }
  }

  TEST_CASE("rejects a newline density below one in eighty") {
    // Six lines, five newlines: 400 units is exactly 1/80 (kept), 401 is below (rejected).
    std::string base = lines("a: b", 6);  // 29 units
    std::string pad(400 - base.size(), 'x');
    CHECK(cce::isStructuredOutput(u16(base + pad)));
    CHECK_FALSE(cce::isStructuredOutput(u16(base + pad + "x")));
  }

  TEST_CASE("captures the greedy path of a grep hit and keeps paths distinct") {
    std::string text = lines("a.b:1:c.d:2: hit", 3) + "\nsrc/f0.py:4: x\nsrc/f0.py:5: y\nz.rs:1:";
    CHECK(u8(cce::summarizeStructured(u16(text), 200)) == "files: a.b:1:c.d, src/f0.py, z.rs");
  }

  TEST_CASE("lists up to three distinct trimmed status lines after the files") {
    std::string text =
        "src/a.ts:1: FAIL one\n  Tests  3 passed\n  Tests  3 passed\nTotal: 4\nDuration 2s\n"
        "nothing\n- test: run vitest suite";
    CHECK(u8(cce::summarizeStructured(u16(text), 200)) ==
          "files: src/a.ts | src/a.ts:1: FAIL one | Tests  3 passed | Total: 4");
    // The status words are matched case-insensitively and as whole words (§13 example 7).
    CHECK(u8(cce::summarizeStructured(u16("  - test: run vitest suite\n  - testing: no\n"), 200)) ==
          "- test: run vitest suite");
  }

  TEST_CASE("cuts a long summary to budget-3 plus an ellipsis") {
    std::string longLine(100, 'x');
    std::string text = lines("  - " + longLine, 8);
    std::u16string out = cce::summarizeStructured(u16(text), 200);
    CHECK(out.size() == 200);
    CHECK(u8(out.substr(0, 6)) == "- xxxx");
    CHECK(u8(out.substr(194)) == "xxx...");
  }

  TEST_CASE("a summary is cut as if it had been built whole") {
    // summarizeStructured stops copying past budget + 1 units; cutting its uncut summary (a budget
    // nothing reaches) with `slice(0, budget - 3) + "..."` must give the same text at every budget.
    const std::string texts[] = {
        grepOutput(12),
        lines("  - " + std::string(100, 'x'), 8),
        "src/a.ts:1: FAIL one\n  Tests  3 passed\n  Tests  3 passed\nTotal: 4\nDuration 2s\n"
        "nothing\n- test: run vitest suite",
        lines("ERROR " + std::string(30, 'e'), 7) + "\nWARN w\nPASS p",
        lines("key: value", 9),
        lines("  * b\u00e4r", 6),
    };
    std::size_t checked = 0;
    for (const std::string& text : texts) {
      const std::u16string in = u16(text);
      const std::u16string whole = cce::summarizeStructured(in, std::size_t{1} << 40);
      CHECK(whole.size() > 20);
      for (std::size_t budget = 3; budget <= whole.size() + 5; ++budget) {
        const std::u16string expected =
            whole.size() <= budget ? whole : whole.substr(0, budget - 3) + u"...";
        CAPTURE(text);
        CAPTURE(budget);
        CHECK(u8(cce::summarizeStructured(in, budget)) == u8(expected));
        ++checked;
      }
    }
    CHECK(checked > 500);
  }

  TEST_CASE("detects a megabyte of log lines in linear time") {
    auto log = [](std::size_t size) {
      std::u16string big;
      while (big.size() < size) big += u"src/mod/file.ts:12: const value = load(1);\n";
      return big;
    };
    CHECK(cce::isStructuredOutput(log(1u << 20)));
    CHECK(u8(cce::summarizeStructured(log(1u << 20), 400)) == "files: src/mod/file.ts");
    CHECK(cce::test::growthRatio(
              [&](std::size_t size) {
                const std::u16string big = log(size);
                if (cce::isStructuredOutput(big)) cce::summarizeStructured(big, 400);
              },
              1u << 18) < cce::test::kLinearGrowthLimit);
  }

}  // TEST_SUITE("tool_output")
