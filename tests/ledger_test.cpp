// SPDX-License-Identifier: MIT
// Issue 18 item 4: the artifact ledger of omitted and cleared messages, and the default-mode
// summaries that keep high-entropy tokens (hashes, UUIDs, hex dumps) verbatim.
#include "ledger.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "clearing.h"
#include "jscompat/json_writer.h"
#include "jscompat/string.h"
#include "summarizer.h"
#include "unit_util.h"

namespace {

using cce::ArtifactKind;
using cce::LedgerSource;
using cce::U16;

U16 u(const std::string& s) { return cce::js::fromUtf8(s); }
std::string s8(const U16& s) { return cce::js::toUtf8(s); }

std::vector<std::string> textsOf(const std::vector<cce::Artifact>& found) {
  std::vector<std::string> out;
  for (const cce::Artifact& a : found) out.push_back(s8(a.text));
  return out;
}

std::vector<std::string> ofKind(const std::vector<cce::Artifact>& found, ArtifactKind kind) {
  std::vector<std::string> out;
  for (const cce::Artifact& a : found) {
    if (a.kind == kind) out.push_back(s8(a.text));
  }
  return out;
}

std::size_t countOf(const std::string& s, const std::string& part) {
  std::size_t n = 0;
  for (std::size_t at = s.find(part); at != std::string::npos; at = s.find(part, at + 1)) ++n;
  return n;
}

// A message whose artifacts are what a later turn reuses: a hex dump, two UUIDs and a commit
// among prose a summary would otherwise pick from (the shape of the quality probes). No
// detector of the classifier preserves it, and it is longer than 600 units: summarised in 400.
const char* kFirmwareReport =
    "I inspected the firmware image you uploaded and compared it with the last known good build. "
    "The header looks intact, but the checksum region differs, which explains why the bootloader "
    "refuses it. Here is the first line of the dump:\n\n"
    "00000000  7f 45 4c 46 02 01 01 00  a3 00 00 00 00 00 00 00  |.ELF............|\n\n"
    "The affected device records are 550e8400-e29b-41d4-a716-446655440000 and "
    "6ba7b810-9dad-11d1-80b4-00c04fd430c8; each needs to be re-flashed once the image is rebuilt "
    "from commit 9b74c9897bac. In general the rest of the layout matches what we saw last week, so "
    "the fix should be limited to the signing step, and there is no reason to touch the partition "
    "table or the recovery image. Importantly, the signing key itself must never be rotated during "
    "this fix. Let me know when you want me to start.";

// What a later turn asks about: the dump, both records and the commit.
const std::vector<std::string> kProbes = {
    "7f 45 4c 46 02 01 01 00  a3 00 00 00 00 00 00 00",
    "550e8400-e29b-41d4-a716-446655440000",
    "6ba7b810-9dad-11d1-80b4-00c04fd430c8",
    "9b74c9897bac",
};

}  // namespace

TEST_SUITE("ledger") {
  TEST_CASE("keeps paths, identifiers, versions, URLs and hashes, in order, without repeats") {
    const U16 text = u(
        "Read src/upload/retry.ts and README.md, then set retryConfig.maxAttempts (max_attempts) "
        "before v2.14.3; see https://example.com/a?b=1. Commit 9f3c2ab1d7e4 and "
        "123e4567-e89b-12d3-a456-426614174000 again: src/upload/retry.ts. Plain words, 3.5 and 2024.");
    const std::vector<std::string> got = textsOf(cce::artifactsOf({text, false}, 20));
    const std::vector<std::string> want = {
        "src/upload/retry.ts", "README.md", "retryConfig.maxAttempts", "max_attempts", "v2.14.3",
        "https://example.com/a?b=1", "9f3c2ab1d7e4", "123e4567-e89b-12d3-a456-426614174000"};
    CHECK(got == want);
    CHECK(cce::artifactsOf({text, false}, 2).size() == 2);
  }

  TEST_CASE("finds error lines: exceptions, compiler errors, test failures, a traceback's last line") {
    struct Case {
      const char* line;
      bool error;
    };
    const Case cases[] = {
        {"TypeError: x is undefined", true},
        {"Uncaught ReferenceError: fetchUser is not defined", true},
        {"error[E0308]: mismatched types", true},
        {"error: could not compile `app` due to 2 previous errors", true},
        {"src/app.ts(12,5): error TS2322: Type 'string' is not assignable", true},
        {"FAILED tests/test_upload.py::test_retry - AssertionError: 3 != 5", true},
        {"java.lang.NullPointerException: user is null", true},
        {"npm ERR! code ELIFECYCLE", true},
        {"fatal: not a git repository", true},
        {"Traceback (most recent call last):", false},
        {"We fixed the error in the parser yesterday.", false},
        {"No errors found.", false},
        {"but I get the following error:", false},
        {"        except (TypeError, ValueError) as error:", false},
    };
    for (const Case& c : cases) {
      CAPTURE(c.line);
      const auto found = cce::artifactsOf({u(c.line), false}, 20);
      const auto errors = ofKind(found, ArtifactKind::Error);
      if (c.error) {
        REQUIRE(errors.size() == 1);
        CHECK(errors[0] == "\"" + std::string(c.line) + "\"");
      } else {
        CHECK(errors.empty());
      }
    }
    // A Python traceback: the exception line at its end is the one kept.
    const std::string traceback =
        "Traceback (most recent call last):\n  File \"app.py\", line 3, in <module>\n"
        "    main()\nKeyError: 'user_id'\n";
    CHECK(ofKind(cce::artifactsOf({u(traceback), false}, 20), ArtifactKind::Error) ==
          std::vector<std::string>{"\"KeyError: 'user_id'\""});
  }

  TEST_CASE("finds numbers with units, whole, and leaves plain numbers alone") {
    const U16 text = u(
        "The worker used 512 MB and timed out after 30s; p99 was 200ms at 80% CPU on a 2.5 GHz "
        "core, costing $12.50 for 3 runs in 2024 with 1.5 retries, 10x slower than 1990.");
    CHECK(ofKind(cce::artifactsOf({text, false}, 20), ArtifactKind::Quantity) ==
          std::vector<std::string>{"512 MB", "30s", "200ms", "80%", "2.5 GHz", "$12.50", "10x"});
  }

  TEST_CASE("finds commands after a prompt, on their own line, and in backticks") {
    const U16 text = u(
        "$ npm run build\n"
        "git checkout -b fix/retry\n"
        "make sure the tests pass before you push.\n"
        "Then run `pytest -k retry` and read `config.yaml` at line `344`.\n"
        "```bash\nls\n```\n");
    CHECK(ofKind(cce::artifactsOf({text, false}, 20), ArtifactKind::Command) ==
          std::vector<std::string>{"`npm run build`", "`git checkout -b fix/retry`",
                                   "`pytest -k retry`", "`config.yaml`"});
  }

  TEST_CASE("a user message's first sentence is its request, shortened at a space") {
    const auto found = cce::artifactsOf(
        {u("Please fix the retry loop in src/upload/retry.ts. It retries forever."), true}, 20);
    CHECK(ofKind(found, ArtifactKind::Request) ==
          std::vector<std::string>{"\"Please fix the retry loop in src/upload/retry.ts.\""});
    // The same text from the assistant is no request.
    CHECK(ofKind(cce::artifactsOf({u("Please fix the retry loop."), false}, 20),
                 ArtifactKind::Request)
              .empty());
    // One word is no request; a stub is none either.
    CHECK(ofKind(cce::artifactsOf({u("Thanks!"), true}, 20), ArtifactKind::Request).empty());
    CHECK(ofKind(cce::artifactsOf({u("[cce:omitted 3 messages \u2014 900 chars]"), true}, 20),
                 ArtifactKind::Request)
              .empty());
    std::string longRequest = "Rewrite";
    for (int i = 0; i < 40; ++i) longRequest += " module" + std::to_string(i);
    const auto requests =
        ofKind(cce::artifactsOf({u(longRequest + "."), true}, 20), ArtifactKind::Request);
    REQUIRE(requests.size() == 1);
    const U16 kept = u(requests[0]);
    CHECK(kept.size() <= cce::kLedgerPhraseChars + 2);
    // Whole words of the source, then "…" and the closing quote.
    const std::string inner = requests[0].substr(1, requests[0].size() - 1 - 1 - 3);
    CHECK(("\"" + longRequest).rfind("\"" + inner, 0) == 0);
    CHECK(longRequest[inner.size()] == ' ');
    CHECK(requests[0].substr(requests[0].size() - 4) == "\u2026\"");
  }

  TEST_CASE("items are whole tokens of the source") {
    std::string text;
    for (int i = 0; i < 30; ++i) {
      text += "Step " + std::to_string(i) + " touched lib/part_" + std::to_string(i) +
              ".py with commit a1b2c3d4e5f6" + std::to_string(i) + ".\n";
    }
    const U16 l = cce::ledger({{u(text), false}});
    REQUIRE(!l.empty());
    // Every item (between ", ") is a whole token of the text: bounded by non-token characters.
    std::string rest = s8(l).substr(3);
    std::size_t start = 0;
    while (start < rest.size()) {
      std::size_t end = rest.find(", ", start);
      if (end == std::string::npos) end = rest.size();
      const std::string item = rest.substr(start, end - start);
      CAPTURE(item);
      const std::size_t at = text.find(item);
      REQUIRE(at != std::string::npos);
      const char after = at + item.size() < text.size() ? text[at + item.size()] : ' ';
      CHECK((after == ' ' || after == '.' || after == '\n'));
      CHECK((at == 0 || text[at - 1] == ' '));
      start = end + 2;
    }
  }

  TEST_CASE("chooses by priority: requests, errors, references, commands, quantities, identifiers") {
    std::string noise;
    for (int i = 0; i < 30; ++i) noise += "value_" + std::to_string(i) + " ";
    const std::vector<U16> texts = {
        u(noise + "\nserver_timeout was 30s and the build used v2.14.3 via `npm test`."),
        u("Make the upload resumable after a dropped connection. Keep src/upload/retry.ts small."),
        u("Running it:\nTypeError: chunk.slice is not a function\nsee 9f3c2ab1d7e4"),
    };
    const U16 l = cce::ledger({{texts[0], false}, {texts[1], true}, {texts[2], false}});
    const std::string got = s8(l);
    CAPTURE(got);
    // The request and the error line come first though they appear last; a ninth identifier loses.
    CHECK(got.rfind(" | \"Make the upload resumable after a dropped connection.\", "
                    "\"TypeError: chunk.slice is not a function\", src/upload/retry.ts, "
                    "9f3c2ab1d7e4, `npm test`, 30s, v2.14.3, value_0",
                    0) == 0);
    CHECK(got.find("value_29") == std::string::npos);
    // An error line at the end of a long output is found after a hundred identifiers.
    std::string output;
    for (int i = 0; i < 100; ++i) output += "check_" + std::to_string(i) + " ok\n";
    output += "AssertionError: expected 3 retries, got 5\n";
    CHECK(s8(cce::ledger({{u(output), false}})).rfind(
              " | \"AssertionError: expected 3 retries, got 5\", check_0", 0) == 0);
    CHECK(countOf(got, ", ") + 1 <= cce::kLedgerItems);
  }

  TEST_CASE("caps requests, error lines, items and units; a token inside a kept line is not repeated") {
    std::vector<U16> texts;
    for (int i = 0; i < 6; ++i) {
      texts.push_back(u("Please add feature number " + std::to_string(i) + " to the app."));
      texts.push_back(u("ValueError: bad input " + std::to_string(i) + " in parse_row"));
    }
    std::vector<LedgerSource> sources;
    for (std::size_t i = 0; i < texts.size(); ++i) sources.push_back({texts[i], i % 2 == 0});
    const std::string got = s8(cce::ledger(sources));
    CAPTURE(got);
    CHECK(countOf(got, "\"Please add") == cce::kLedgerRequests);
    CHECK(countOf(got, "\"ValueError") == cce::kLedgerErrors);
    CHECK(countOf(got, "parse_row") == 3);  // only inside the error lines
    CHECK(u(got).size() <= cce::kLedgerChars);
    // A smaller cap (a quarter of what a stub replaces) is honoured, by whole items.
    const U16 small = cce::ledger(sources, 60);
    CHECK(small.size() <= 60);
    CHECK(s8(small).rfind(" | \"Please add feature number 0 to the app.\"", 0) == 0);

    std::string many;
    for (int i = 0; i < 40; ++i) many += "file_" + std::to_string(i) + ".py ";
    const U16 l = cce::ledger({{u(many), false}});
    CHECK(s8(l).rfind(" | file_0.py, file_1.py", 0) == 0);
    CHECK(l.size() <= cce::kLedgerChars);
    CHECK(countOf(s8(l), ", ") + 1 == cce::kLedgerItems);
    CHECK(s8(cce::clearedNote(12, l)).rfind("[cce:cleared \u2014 12 chars | file_0", 0) == 0);
    CHECK(cce::ledger({{u("Nothing to see here, just words."), false}}).empty());
  }

  TEST_CASE("is deterministic and reads each text once: n against 4n units") {
    std::string block;
    for (int i = 0; i < 50; ++i) {
      block += "line " + std::to_string(i) + " of src/mod_" + std::to_string(i % 7) +
               ".ts took 12ms; see `make test` and retryCount.\n";
    }
    std::string four = block + block + block + block;
    std::size_t steps1 = 0, steps4 = 0;
    const auto a = cce::artifactsOf({u(block), true}, 1000, &steps1);
    const auto b = cce::artifactsOf({u(four), true}, 1000, &steps4);
    CHECK(textsOf(a) == textsOf(b));  // repeats add nothing
    CHECK(steps1 >= block.size());
    CHECK(steps4 <= 4 * steps1 + 16);
    CHECK(steps4 * 10 >= 35 * steps1);
    const U16 first = u(block), second = u(four);
    const std::vector<LedgerSource> sources = {{first, true}, {second, false}};
    CHECK(s8(cce::ledger(sources)) == s8(cce::ledger(sources)));
  }

  TEST_CASE("high-entropy runs: hashes, UUIDs, 0x addresses, keys and hex dumps, whole") {
    const U16 text = u(
        "at 0x7ffd5fbff8a0 the key AKIAxY9z8W7v6U5t4S3r2Q1p failed; sha 9f3c2ab1d7e4 and "
        "123e4567-e89b-12d3-a456-426614174000.\n"
        "00000010: 4865 6c6c 6f20 776f 726c 6421 0a00 0000  Hello world!....\n"
        "10 20 30 40 50\n"
        "deadline facade decade\n");
    std::vector<std::string> got;
    for (const U16& r : cce::highEntropyRuns(text, 400)) got.push_back(s8(r));
    CHECK(got == std::vector<std::string>{"0x7ffd5fbff8a0", "AKIAxY9z8W7v6U5t4S3r2Q1p",
                                          "9f3c2ab1d7e4", "123e4567-e89b-12d3-a456-426614174000",
                                          "4865 6c6c 6f20 776f 726c 6421 0a00 0000"});
    // The cap keeps whole runs only.
    got.clear();
    for (const U16& r : cce::highEntropyRuns(text, 30)) got.push_back(s8(r));
    CHECK(got == std::vector<std::string>{"0x7ffd5fbff8a0", "9f3c2ab1d7e4"});
  }

  // The scan goes from digit to digit (every run holds one): runs whose digit comes late in the
  // token, the group or the line are found whole, and letter-only runs are none.
  TEST_CASE("high-entropy runs: found from any of their digits") {
    const U16 text = u(
        "A line of prose without any digit at all, long enough for several steps.\n"
        "ok deadbeefcafebabe facade, then the key QWERTYuiopASDFGHjklz2468 and cafebabedeadbee1:\n"
        "\n"
        "v1.2 dump: zz 4a6f 686e 2044 6f65 end\n"
        "trailing hash 0123abcd");
    std::vector<std::string> got;
    for (const U16& r : cce::highEntropyRuns(text, 400)) got.push_back(s8(r));
    CHECK(got == std::vector<std::string>{"QWERTYuiopASDFGHjklz2468", "cafebabedeadbee1",
                                          "4a6f 686e 2044 6f65", "0123abcd"});
    CHECK(cce::highEntropyRuns(u("no digits here, deadbeefcafebabe\nnor here"), 400).empty());
  }

  // The digit-driven scan (one walk over a line's digit tokens, which also finds its dump) against
  // the plain scan of every line and token, on the real data sets' texts and on generated lines of
  // hex groups, hashes, keys, numbers and near misses, at caps that cut the list anywhere.
  TEST_CASE("high-entropy runs: the digit-driven scan finds what reading every token finds") {
    std::vector<U16> texts;
    for (const char* file : {"aider_chat_history.json", "claude_code_ccviewer.json",
                             "claude_code_console_bookminder.json", "claude_code_mclaude.json",
                             "swe_agent_trajectories.json"}) {
      const std::string json = cce::test::readFile(cce::test::testDataDir() + "/data/real/" + file);
      REQUIRE(!json.empty());
      // Every JSON string's raw text (escapes and all): both scans see the same units.
      for (std::size_t at = json.find('"'); at != std::string::npos;) {
        std::size_t close = at + 1;
        while (close < json.size() && json[close] != '"') close += json[close] == '\\' ? 2 : 1;
        if (close - at > 40) texts.push_back(u(json.substr(at + 1, close - at - 1)));
        at = json.find('"', close + 1);
      }
    }
    const std::size_t real = texts.size();
    CHECK(real > 10000);
    const char* const pieces[] = {"4865", "6c", "0a00", "deadbeef", "9f3c2ab1d7e4", "ab", "12",
                                  "0x7ffd5f", "0X1", "123e4567-e89b-12d3-a456-426614174000",
                                  "AKIAxY9z8W7v6U5t4S3r2Q1p", "v1.2.3", "2024-01-01", "x",
                                  "deadline", "cafe", "12345678", "zz", "g00d", "abcdef12:", "#1",
                                  "a-1", "QWERTYuiopASDFGHjklz2468.", "0123456789abcdef0123"};
    const char* const gaps[] = {" ", "  ", "\t", ", ", "\n", " \r\n", "/", "\n\n", "(", " | "};
    unsigned state = 7;
    auto next = [&state](unsigned n) {
      state = state * 1103515245u + 12345u;
      return (state >> 8) % n;
    };
    for (int t = 0; t < 6000; ++t) {
      std::string text;
      const unsigned count = 1 + next(30);
      for (unsigned k = 0; k < count; ++k) {
        if (k > 0) text += gaps[next(sizeof gaps / sizeof gaps[0])];
        text += pieces[next(sizeof pieces / sizeof pieces[0])];
      }
      texts.push_back(u(text));
    }
    std::size_t checked = 0, nonEmpty = 0, differ = 0;
    for (std::size_t i = 0; i < texts.size(); ++i) {
      for (std::size_t cap : {std::size_t{30}, std::size_t{100}, std::size_t{200}, std::size_t{4000}}) {
        const std::vector<U16> fast = cce::highEntropyRuns(texts[i], cap);
        const std::vector<U16> plain = cce::detail::highEntropyRunsByLines(texts[i], cap);
        ++checked;
        nonEmpty += !plain.empty();
        if (fast != plain) {
          ++differ;
          CAPTURE(i);
          CAPTURE(cap);
          CHECK(s8(texts[i]) == "");
        }
      }
    }
    MESSAGE("texts compared: " << checked << " (" << real << " real), " << nonEmpty
                               << " with runs");
    CHECK(differ == 0);
    CHECK(nonEmpty > 5000);
  }
}

TEST_SUITE("summarizer") {
  TEST_CASE("the default mode's summary keeps hashes, UUIDs and hex dumps verbatim") {
    const U16 text = u(kFirmwareReport);
    REQUIRE(text.size() >= 600);
    cce::SummarizeRules safe;
    safe.keepIdentifiersWhole = true;
    safe.keepHighEntropy = true;
    const U16 kept = cce::summarize(text, 400, safe);
    CAPTURE(s8(kept));
    CHECK(kept.size() <= 400);
    for (const std::string& probe : kProbes) {
      CAPTURE(probe);
      CHECK(s8(kept).find(probe) != std::string::npos);
    }
    // Without the rule the same summary loses some of them: the test can fail.
    cce::SummarizeRules plain;
    plain.keepIdentifiersWhole = true;
    const std::string without = s8(cce::summarize(text, 400, plain));
    std::size_t lost = 0;
    for (const std::string& probe : kProbes) lost += without.find(probe) == std::string::npos;
    CHECK(lost > 0);
    // The reference's summary is unchanged by the rule (cce-1.0 stays byte-identical).
    CHECK(cce::summarize(text, 400, cce::SummarizeRules{}) == cce::summarize(text, 400));
    // Short budgets keep what fits, whole, and never exceed the budget.
    for (std::size_t budget : {200u, 100u, 50u, 10u}) {
      CAPTURE(budget);
      CHECK(cce::summarize(text, budget, safe).size() <= budget);
    }
  }

  TEST_CASE("a default-mode compression keeps the quality probes of a summarised message") {
    std::string firmware;
    cce::js::writeJsonString(u(kFirmwareReport), firmware);
    const std::string messages =
        "[{\"id\":\"1\",\"role\":\"user\",\"content\":\"The new firmware image will not boot; can "
        "you check it against the last good build?\"},"
        "{\"id\":\"2\",\"role\":\"assistant\",\"content\":" + firmware + "},"
        "{\"id\":\"3\",\"role\":\"user\",\"content\":\"Thanks. Please re-sign it and list the "
        "devices to re-flash.\"},"
        "{\"id\":\"4\",\"role\":\"assistant\",\"content\":\"Done, the image is re-signed.\"}]";
    const cce::json::Value out = cce::test::compressOutput(messages, "{\"recencyWindow\":2}");
    const std::string all = cce::js::toJson(*out.find(u"messages"));
    CAPTURE(all);
    REQUIRE(all.find("[summary") != std::string::npos);
    for (const std::string& probe : kProbes) {
      CAPTURE(probe);
      CHECK(all.find(probe) != std::string::npos);
    }
  }
}
