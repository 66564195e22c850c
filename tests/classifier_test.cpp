// SPDX-License-Identifier: MIT
// Tests for spec §3: every detector's edge cases, SQL, API keys, isValidJson, tiers, corpus checks.
#include "classifier.h"

#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "growth.h"
#include "jscompat/string.h"
#include "match/api_keys.h"
#include "match/sql_keywords.h"

namespace {

using cce::Classification;
using cce::classifyMessage;
using cce::FenceAndHardReason;
using cce::hasHardReason;
using cce::isValidJson;
using cce::scanFenceAndHardReason;
using cce::Tier;
using cce::match::ApiKeyKind;

std::u16string repeat(std::u16string_view unit, std::size_t times) {
  std::u16string out;
  out.reserve(unit.size() * times);
  for (std::size_t i = 0; i < times; ++i) out += unit;
  return out;
}

bool hasReason(const Classification& c, std::string_view reason) {
  return std::find(c.reasons.begin(), c.reasons.end(), reason) != c.reasons.end();
}

const std::set<std::string> kHardReasons = {
    "code_fence",
    "indented_code",
    "json_structure",
    "yaml_structure",
    "high_special_char_ratio",
    "high_line_length_variance",
    "api_key",
    "latex_math",
    "unicode_math",
    "sql_content",
    "verse_pattern",
};

bool anyHard(const Classification& c) {
  for (const auto& r : c.reasons) {
    if (kHardReasons.count(r)) return true;
  }
  return false;
}

std::string show(std::u16string_view s) { return cce::js::toUtf8(s); }

struct ReasonCase {
  const char* name;
  std::u16string text;
  const char* reason;
  bool expected;
};

void checkReasonCases(const std::vector<ReasonCase>& cases) {
  for (const ReasonCase& c : cases) {
    const std::string name = c.name;
    CAPTURE(name);
    CAPTURE(show(c.text));
    Classification got = classifyMessage(c.text);
    CHECK(hasReason(got, c.reason) == c.expected);
    CHECK(hasHardReason(c.text) == anyHard(got));
  }
}

}  // namespace

TEST_SUITE("classifier") {
  TEST_CASE(
      "code_fence needs an opening line of 0-3 spaces, backticks and word chars, then a "
      "closing fence after a later newline") {
    checkReasonCases({
        {"simple fence", u"```js\nconst x = 1;\n```", "code_fence", true},
        {"three spaces of indent", u"   ```\ncode\n```", "code_fence", true},
        {"four spaces is not a fence", u"    ```\ncode\n```", "code_fence", false},
        {"info string with a space", u"```js x\ncode\n```", "code_fence", false},
        {"body needs its own newline", u"```\n```", "code_fence", false},
        {"empty body line", u"```\n\n```", "code_fence", true},
        {"whitespace after the newline spans lines", u"text\n```py\nx\n  \n  ```", "code_fence",
         true},
        {"closing fence needs a newline before it", u"```\nx ```", "code_fence", false},
        {"CRLF opening line", u"```\r\nx\r\n```", "code_fence", false},
        {"opening after a carriage return", u"a\r```\nx\n```", "code_fence", true},
    });
  }

  TEST_CASE("indented_code needs two consecutive indented lines joined by a line feed") {
    checkReasonCases({
        {"four spaces", u"Intro\n    a = 1\n    b = 2", "indented_code", true},
        {"tabs", u"\tfoo()\n\tbar()", "indented_code", true},
        {"CRLF never matches", u"    a = 1\r\n    b = 2", "indented_code", false},
        {"three spaces on the second line", u"    a\n   b", "indented_code", false},
        {"first line has nothing after the indent", u"    \n    b", "indented_code", false},
        {"five spaces count as four plus one", u"     \n\tb", "indented_code", true},
        {"U+2028 ends the line but is not a line feed", u"    a\u2028    b", "indented_code",
         false},
        {"indent not at a line start", u"x    a\n    b", "indented_code", false},
        {"indented lines separated by a blank line", u"    a\n\n    b", "indented_code", false},
    });
  }

  TEST_CASE("latex_math takes two dollars on one line or a $$ pair") {
    checkReasonCases({
        {"two amounts on one line (spec §13.13)", u"costs $5 and $10", "latex_math", true},
        {"amounts on two lines", u"costs $5\nand $10", "latex_math", false},
        {"carriage return does not stop the single-dollar form", u"costs $5\rand $10", "latex_math",
         true},
        {"adjacent dollars have nothing between", u"a $$ b", "latex_math", false},
        {"block math spans lines", u"Block:\n$$\nE = mc^2\n$$", "latex_math", true},
        {"four dollars", u"$$$$", "latex_math", false},
        {"five dollars", u"$$$$$", "latex_math", true},
        {"a single dollar", u"a $ b", "latex_math", false},
        {"inline formula (corpus)", u"The loss is $L = \\sum_i (y_i)^2$ here.", "latex_math", true},
    });
  }

  TEST_CASE("unicode_math fires on any one of the listed symbols") {
    checkReasonCases({
        {"arrow (spec §13.13)", u"step one \u2192 step two", "unicode_math", true},
        {"multiplication sign", u"3 \u00d7 4", "unicode_math", true},
        {"not sign", u"\u00acp", "unicode_math", true},
        {"element of", u"x \u2208 S", "unicode_math", true},
        {"ASCII operators", u"a - b = c * d / e", "unicode_math", false},
        {"double arrow is not listed", u"x \u21d2 y", "unicode_math", false},
    });
  }

  TEST_CASE("json_structure looks only at the start of the text") {
    checkReasonCases({
        {"object with a key", u"{\"a\": 1", "json_structure", true},
        {"array of numbers after whitespace", u"  \n[ 1, 2", "json_structure", true},
        {"negative number", u"[-1]", "json_structure", true},
        {"array of objects across a newline", u"[\n{", "json_structure", true},
        {"no-break space is JS whitespace", u"\u00a0{\"a\"", "json_structure", true},
        {"array of booleans", u"[true]", "json_structure", false},
        {"empty object", u"{}", "json_structure", false},
        {"single-quoted key", u"{ 'a': 1 }", "json_structure", false},
        {"not at the start", u"x{\"a\"", "json_structure", false},
    });
  }

  TEST_CASE("yaml_structure needs two key: value lines with keys at column 0") {
    checkReasonCases({
        {"two keys (spec §13.13)", u"name: api\nport: 8080", "yaml_structure", true},
        {"indented second key", u"name: api\n port: 8080", "yaml_structure", false},
        {"no space after the first colon", u"name:api\nport: 8080", "yaml_structure", false},
        {"the first value may start on the next line", u"key:\n  value\nnext: x", "yaml_structure",
         true},
        {"CRLF text", u"a: b\r\nc: d", "yaml_structure", false},
        {"the first value may be spaces only", u"a:  \nb: c", "yaml_structure", true},
        {"one space is not a value", u"a: \nb: c", "yaml_structure", false},
        {"second value missing", u"a: b\nc: ", "yaml_structure", false},
        {"second value of one space", u"a: b\nc:  ", "yaml_structure", true},
        {"dashes and underscores in keys", u"my-key: 1\nother_key: 2", "yaml_structure", true},
        {"keys with spaces", u"The plan: ship it\nNext step: test", "yaml_structure", false},
        {"after a line starting elsewhere", u"intro\nname: service\nreplicas: 3\nmore",
         "yaml_structure", true},
    });
  }

  TEST_CASE("verse_pattern needs three capitalised unpunctuated lines after a newline") {
    checkReasonCases({
        {"after a first line (spec §13.13)",
         u"Intro line.\nRoses bloom\nSoftly falls\nQuiet rivers", "verse_pattern", true},
        {"the first line never counts", u"Roses bloom\nSoftly falls\nQuiet rivers", "verse_pattern",
         false},
        {"a period breaks it", u"x\nRoses bloom\nSoftly falls.\nQuiet rivers", "verse_pattern",
         false},
        {"trailing newline", u"x\nRoses\nSoftly\nQuiet\n", "verse_pattern", true},
        {"lower-case line in the middle", u"x\nRoses\nsoftly\nQuiet\nNow", "verse_pattern", false},
        {"carriage returns are ordinary characters", u"x\nA\r\nB\r\nC", "verse_pattern", true},
        {"leading space", u"x\n Roses\nSoftly\nQuiet", "verse_pattern", false},
        {"non-ASCII capital", u"x\n\u00c9t\u00e9\nSoftly\nQuiet", "verse_pattern", false},
    });
  }

  TEST_CASE("high_line_length_variance needs more than three lines and cv above 1.2") {
    const std::u16string longLine = repeat(u"x", 300);
    checkReasonCases({
        {"three lines are not enough", u"a\nb\n" + longLine, "high_line_length_variance", false},
        {"four lines, one long", u"a\nb\nc\n" + longLine, "high_line_length_variance", true},
        {"equal lines", u"abc\nabc\nabc\nabc", "high_line_length_variance", false},
        {"only newlines", u"\n\n\n", "high_line_length_variance", false},
        // lengths 1,1,1,1,6: mean 2, population sd 2, cv 1.
        {"cv of exactly one", u"a\nb\nc\nd\nxxxxxx", "high_line_length_variance", false},
    });
  }

  TEST_CASE("high_special_char_ratio counts the 23 listed ASCII characters") {
    checkReasonCases({
        {"assignments", u"a=b;a=b;a=b;a=b;", "high_special_char_ratio", true},
        {"exactly 0.15 is not above", u"abc(def)ghijklmnopq;", "high_special_char_ratio", false},
        {"0.2", u"abc(def)ghijklmnop;;", "high_special_char_ratio", true},
        {"punctuation outside the set", u"!!!!????\"\"''//--__,,..", "high_special_char_ratio",
         false},
        {"corpus sample", u"{{<>}}[[||]]@@##$$%%^^&&**(())==++ ;;;:::@@@### Okay!",
         "high_special_char_ratio", true},
    });
  }

  TEST_CASE("sql_content follows the strong and weak anchor rules") {
    checkReasonCases({
        {"the word integer (spec §13.13)", u"The function returns an integer.", "sql_content",
         true},
        {"three keywords with a weak anchor", u"UPDATE accounts SET balance = 1 WHERE id = 5",
         "sql_content", true},
        {"keywords without an anchor (corpus)",
         u"Please select the file from the list, update the set of options and drop the old "
         u"view before you create a new one",
         "sql_content", false},
        {"two keywords only", u"select the rows where", "sql_content", false},
        {"weak anchor plus two more (corpus)",
         u"You can select a plan from the menu where the defaults are set", "sql_content", true},
        {"strong two-word anchor", u"use a LEFT JOIN here", "sql_content", true},
        {"hyphen breaks a two-word keyword", u"left-join the tables, join them where selected",
         "sql_content", false},
        {"JOIN after a broken LEFT still counts", u"left-join then select where", "sql_content",
         true},
        {"two-word keyword across a newline", u"group\n  by region", "sql_content", true},
        {"two-word keyword across a no-break space", u"group\u00a0by region", "sql_content", true},
        {"hyphenated", u"group-by", "sql_content", false},
        {"underscore joins words", u"group_by", "sql_content", false},
        {"longer second word", u"GROUP BYE", "sql_content", false},
        {"plural", u"the integers", "sql_content", false},
        {"non-ASCII letter before is a boundary", u"\u00e9integer", "sql_content", true},
        {"underscore before is not a boundary", u"_integer", "sql_content", false},
        {"digit after is not a boundary", u"integer2", "sql_content", false},
        {"dotless i does not fold to i", u"\u0131nteger", "sql_content", false},
        {"not null", u"must be NOT   NULL", "sql_content", true},
        {"on conflict", u"on conflict do nothing", "sql_content", true},
    });
  }

  TEST_CASE("plain keywords count towards three only beside a weak anchor") {
    // hasHardReason leaves SELECT, FROM, SET and the like to a final full scan, made only when a
    // weak anchor was seen: these pin both sides of that rule.
    checkReasonCases({
        {"seven plain keywords", u"select from insert into update set delete", "sql_content",
         false},
        {"two plain keywords and a weak anchor", u"select from where", "sql_content", true},
        {"the weak anchor last, far away",
         u"select the rows from the table and then, much later in the text, say where",
         "sql_content", true},
        {"one weak anchor repeated", u"where where where", "sql_content", false},
        {"a weak anchor and one plain keyword", u"where is it from", "sql_content", false},
        {"two weak anchors and a plain keyword", u"union the values from both", "sql_content",
         true},
        {"a plain keyword between the words of a strong one", u"order set by", "sql_content",
         false},
    });
  }

  TEST_CASE("the SQL scan matches two-word keywords as one and normalises them") {
    struct Case {
      const char* name;
      std::u16string_view text;
      std::vector<std::string> expected;
    };
    const Case cases[] = {
        {"INNER JOIN is one match", u"INNER JOIN x JOIN y", {"INNER JOIN", "JOIN"}},
        {"the JOIN of LEFT JOIN is not counted alone", u"a LEFT JOIN b", {"LEFT JOIN"}},
        {"whitespace collapses", u"left\n\tjoin", {"LEFT JOIN"}},
        {"SELECT before SET, settings is no keyword", u"select set settings", {"SELECT", "SET"}},
        {"distinct set", u"Group  By group by", {"GROUP BY"}},
        {"nothing", u"plain prose here", {}},
    };
    for (const Case& c : cases) {
      const std::string name = c.name;
      CAPTURE(name);
      CHECK(cce::match::sqlKeywords(c.text) == c.expected);
    }
  }

  TEST_CASE("api_key recognises each provider pattern and the generic token") {
    struct Case {
      const char* name;
      std::u16string text;
      ApiKeyKind expected;
    };
    const std::u16string letters24 = u"abcdefghijklmnopqrstuvwx";
    const std::u16string alnum36 = u"Xvhr8GLgJ98TwAYklCfl0j7jPNbJu2y2lgZx";
    const std::vector<Case> cases = {
        {"openai (corpus)", u"Credential: sk-w4o5SzLWluuHIPewAYUFosFpF298Vw18 was rotated",
         ApiKeyKind::kOpenAi},
        {"openai after an underscore", u"_sk-abcdefghijklmnopqrstu", ApiKeyKind::kOpenAi},
        {"openai after a hyphen", u"-sk-abcdefghijklmnopqrstu", ApiKeyKind::kNone},
        {"openai after a digit", u"9sk-abcdefghijklmnopqrstu", ApiKeyKind::kNone},
        {"openai with 19 characters", u"sk-abcdefghijklmnopqrs", ApiKeyKind::kNone},
        {"aws", u"key AKIAIOSFODNN7EXAMPLE here", ApiKeyKind::kAwsAccessKey},
        {"aws followed by a hyphen", u"AKIAIOSFODNN7EXAMPLE-x", ApiKeyKind::kAwsAccessKey},
        {"aws with 17 characters", u"AKIAIOSFODNN7EXAMPLE1", ApiKeyKind::kNone},
        {"aws without a boundary before", u"xAKIAIOSFODNN7EXAMPLE", ApiKeyKind::kNone},
        {"aws with a lower-case letter", u"AKIAIOSFODNN7EXAMPLe", ApiKeyKind::kNone},
        {"github token", u"ghp_" + alnum36, ApiKeyKind::kGitHubToken},
        {"github token followed by an underscore", u"ghp_" + repeat(u"a", 36) + u"_",
         ApiKeyKind::kNone},
        {"the same with digits is a generic token", u"ghp_" + alnum36 + u"_", ApiKeyKind::kGeneric},
        {"github pat (corpus)", u"github_pat_Xvhr8GLgJ98TwAYklCfl0j7jPNbJu2y2lgZxd7cj",
         ApiKeyKind::kGitHubPat},
        {"stripe live", u"sk_live_" + letters24, ApiKeyKind::kStripe},
        {"stripe restricted test", u"rk_test_" + letters24, ApiKeyKind::kStripe},
        {"stripe with 23 characters", u"sk_live_" + letters24.substr(1), ApiKeyKind::kNone},
        {"slack", u"xoxb-1234567890-abcdefghij", ApiKeyKind::kSlack},
        {"slack gives back a trailing hyphen", u"xoxb-" + repeat(u"a", 20) + u"- ",
         ApiKeyKind::kSlack},
        {"slack with no boundary at 20 or 21", u"xoxb-" + repeat(u"a", 19) + u"-- ",
         ApiKeyKind::kNone},
        {"sendgrid (corpus)", u"SG.9xb61J2eNIw3JyUoYwQrBW.JLl8mW6NnaHwzVrIdAa1IbPiNvRFl0",
         ApiKeyKind::kSendGrid},
        {"sendgrid with a short first part", u"SG." + repeat(u"a", 19) + u"." + repeat(u"b", 20),
         ApiKeyKind::kNone},
        {"gitlab (corpus)", u"glpat-TFTxuLAn8j5XhxGGtEOa was", ApiKeyKind::kGitLab},
        {"npm (corpus)", u"npm_HvtBHp0Byei1r5RiZgJPTyVvdrgr3CZYTMHN", ApiKeyKind::kNpm},
        {"google: exactly 35 (corpus)", u"AIza3zbUaeoniiWo4DD92gH77olBnhgOmcG1pSF was",
         ApiKeyKind::kGoogle},
        {"google with 36", u"AIza3zbUaeoniiWo4DD92gH77olBnhgOmcG1pSFx", ApiKeyKind::kNone},
        {"google ending in a hyphen before a space", u"AIza" + repeat(u"a", 34) + u"- ",
         ApiKeyKind::kNone},
        {"google ending in a hyphen before a letter", u"AIza" + repeat(u"a", 34) + u"-x",
         ApiKeyKind::kGoogle},
        {"generic (corpus)", u"Credential: mykey-r6rJsZc7Yy7QObVDORI80UM9j was",
         ApiKeyKind::kGeneric},
        {"generic with underscore (corpus)", u"tok_bWL5l9iyIr9T9xrwJzf7PaCaB",
         ApiKeyKind::kGeneric},
        {"uuid (corpus)", u"Request 550e8400-e29b-41d4-a716-446655440000 failed",
         ApiKeyKind::kNone},
        {"BEM class names (corpus)",
         u"block__element--modifier-long-name-here and "
         u"my-component-wrapper-with-many-long-words",
         ApiKeyKind::kNone},
        {"body with two lower-case dash segments", u"build-abc-def-1234567890123456789",
         ApiKeyKind::kNone},
        {"only the first generic match is examined",
         u"build-abc-def-1234567890123456789 mykey-r6rJsZc7Yy7QObVDORI80UM9j", ApiKeyKind::kNone},
        {"hex-only prefix", u"deadbeef-1234567890abcdefghij", ApiKeyKind::kNone},
        {"prefix with a letter after f", u"beefg-1234567890abcdefghij", ApiKeyKind::kGeneric},
        {"the first letter is outside the g-z look-ahead", u"gabc-1234567890abcdefghij",
         ApiKeyKind::kNone},
        {"16-character prefix", u"abcdefghijklmnop-1234567890abcdefghij", ApiKeyKind::kNone},
        {"15-character prefix", u"abcdefghijklmno-1234567890abcdefghij", ApiKeyKind::kGeneric},
        {"generic body gives back a trailing hyphen", u"tok_" + repeat(u"a1", 10) + u"- ",
         ApiKeyKind::kGeneric},
        {"generic body without a digit", u"tok_" + repeat(u"ab", 12), ApiKeyKind::kNone},
    };
    for (const Case& c : cases) {
      const std::string name = c.name;
      CAPTURE(name);
      CAPTURE(show(c.text));
      CHECK(cce::match::findApiKey(c.text) == c.expected);
      const bool expectKey = c.expected != ApiKeyKind::kNone;
      CHECK(cce::match::hasApiKey(c.text) == expectKey);
      CHECK(hasReason(classifyMessage(c.text), "api_key") == expectKey);
    }
  }

  TEST_CASE("isValidJson accepts exactly what JSON.parse accepts after a JS trim") {
    struct Case {
      const char* name;
      std::u16string text;
      bool expected;
    };
    const std::vector<Case> cases = {
        {"array of booleans", u"[true]", true},
        {"spaced literals", u"[ true , false , null ]", true},
        {"empty object", u"{}", true},
        {"padded empty object", u"  {}  ", true},
        {"padded with JS-only whitespace", u"\u00a0{}\ufeff", true},
        {"trailing comma in array", u"[1,]", false},
        {"trailing comma in object", u"{\"a\":1,}", false},
        {"escaped lone surrogate", u"[\"\\ud800\"]", true},
        {"raw lone surrogate", std::u16string(u"[\"") + char16_t(0xD800) + u"\"]", true},
        {"raw tab in a string", u"[\"a\tb\"]", false},
        {"escaped tab", u"[\"a\\tb\"]", true},
        {"raw line separator in a string", u"[\"\u2028\"]", true},
        {"leading zero", u"[01]", false},
        {"negative zero", u"[-0]", true},
        {"trailing dot", u"[1.]", false},
        {"leading dot", u"[.5]", false},
        {"exponent", u"[1e5, 1E+5, -2.5e-3]", true},
        {"empty exponent", u"[1e]", false},
        {"scalar text", u"true", false},
        {"trailing garbage", u"[1] x", false},
        {"trailing newline", u"[1]\n", true},
        {"no-break space inside", u"[\u00a0 1]", false},
        {"nested", u"{\"a\" : [1, {\"b\": null}], \"a\": \"dup\"}", true},
        {"bad escape", u"[\"\\x\"]", false},
        {"bad unicode escape", u"[\"\\u12G4\"]", false},
        {"empty", u"", false},
        {"unclosed", u"[", false},
        {"key without value", u"{\"a\"}", false},
        {"two values", u"{\"a\":1}{}", false},
        {"unclosed array (corpus)", u"[null, false, true", false},
        {"single-quoted string", u"['a']", false},
        {"very deep nesting", repeat(u"[", 100000) + repeat(u"]", 100000), true},
        {"very deep, unbalanced", repeat(u"[", 100000) + repeat(u"]", 99999), false},
    };
    for (const Case& c : cases) {
      const std::string name = c.name;
      CAPTURE(name);
      CHECK(isValidJson(c.text) == c.expected);
    }
  }

  TEST_CASE("tier and confidence follow the reason count and the word count") {
    const std::u16string nineteen = repeat(u"word ", 18) + u"word";
    Classification empty = classifyMessage(u"");
    CHECK(empty.decision == Tier::T2);
    CHECK(empty.confidence == 0.65);
    CHECK(empty.reasons.empty());

    CHECK(classifyMessage(nineteen).decision == Tier::T2);
    CHECK(classifyMessage(nineteen + u" word").decision == Tier::T3);
    // A leading space adds an empty first item to split(/\s+/).
    CHECK(classifyMessage(u" " + nineteen).decision == Tier::T3);

    // Values as JS computes Math.min(0.95, 0.7 + 0.05 * n).
    Classification one = classifyMessage(u"x \u2192 y");
    REQUIRE(one.reasons == std::vector<std::string>{"unicode_math"});
    CHECK(one.decision == Tier::T0);
    CHECK(one.confidence == 0.75);
    Classification two = classifyMessage(u"x \u2192 y costs $5 and $10");
    REQUIRE(two.reasons == std::vector<std::string>{"latex_math", "unicode_math"});
    CHECK(two.confidence == 0.7999999999999999);
    Classification many =
        classifyMessage(u"x \u2192 y costs $5 and $10, an integer, see https://a.b/c/d v1.2.3");
    CHECK(many.reasons.size() >= 5);
    CHECK(many.confidence == 0.95);
  }

  TEST_CASE("soft reasons are reported after hard ones and in the reference's order") {
    Classification c = classifyMessage(
        u"returns an integer; see https://example.com/a/b or mail ops@example.com, call "
        u"555-123-4567, version 2, sha 0123456789abcdef0123456789abcdef01234567, host 10.0.0.1, "
        u"\"token\": x, the vendor shall pay, \u201cquoted words here\u201d, 5 ms");
    const std::vector<std::string> expected = {
        "sql_content",    "url",         "email",        "phone",
        "version_number", "hash_or_sha", "file_path",    "ip_or_semver",
        "quoted_key",     "legal_term",  "direct_quote", "numeric_with_units"};
    CHECK(c.reasons == expected);
    CHECK(c.decision == Tier::T0);
    CHECK(c.confidence == 0.95);
  }

  TEST_CASE("a hard reason is found wherever it sits in a long text") {
    // hasHardReason reads sixteen units at a time and hands work to other scanners at some units
    // only, so each snippet (hard by the examples of spec §3 and the corpus) is moved across two
    // windows' worth of offsets inside clean prose.
    const std::u16string prose =
        u"the service streams background tasks to the worker pool so the queue stays short ";
    const std::u16string_view snippets[] = {
        u" ORDER BY name ",
        u" AKIAIOSFODNN7EXAMPLE ",
        u" sk-w4o5SzLWluuHIPewAYUFosFpF298Vw18 ",
        u" mykey-r6rJsZc7Yy7QObVDORI80UM9j ",
        u" step one \u2192 step two ",
        u" costs $5 and $10 ",
        u"\n    a = 1\n    b = 2\n",
        u"\nname: api\nport: 8080\n",
        u"\nRoses bloom\nSoftly falls\nQuiet rivers\n",
        u" the function returns an integer ",
    };
    for (std::size_t offset = 0; offset < 40; ++offset) {
      const std::u16string before = prose + prose.substr(0, offset);
      CAPTURE(offset);
      REQUIRE_FALSE(hasHardReason(before + prose));
      for (std::u16string_view snippet : snippets) {
        const std::u16string text = before + std::u16string(snippet) + prose;
        CAPTURE(show(text));
        CHECK(hasHardReason(text));
        CHECK(anyHard(classifyMessage(text)));
      }
    }
  }

  TEST_CASE("soft patterns alone never make a hard reason") {
    const std::u16string texts[] = {
        u"See https://github.com/acme/widgets for details.",
        u"Contact ops@example.com if needed.",
        u"Call 937-662-9032 for the on-call.",
        u"This shipped in v7.19.3.",
        u"Commit 9ac6ea692ab3e60389358244de1c00571bf1232d introduced it.",
        u"The file lives under /etc/nginx/nginx.conf on the host.",
        u"He said \"we should really migrate before the end of the quarter\" in the meeting.",
        u"It ran 57 kg in total.",
        u"The latency was 5 \u03bcs on the Greek-mu box",
    };
    for (const auto& t : texts) {
      CAPTURE(show(t));
      Classification c = classifyMessage(t);
      CHECK(!c.reasons.empty());
      CHECK_FALSE(anyHard(c));
      CHECK_FALSE(hasHardReason(t));
    }
  }
}

// ---- corpus properties
// ---------------------------------------------------------------------------

namespace {

std::filesystem::path casesDir() {
  if (const char* env = std::getenv("CCE_TESTDATA_DIR")) {
    return std::filesystem::path(env) / "conformance/public/cases";
  }
#ifdef CCE_TESTDATA_DIR
  return std::filesystem::path(CCE_TESTDATA_DIR) / "conformance/public/cases";
#else
  return std::filesystem::path(__FILE__).parent_path() / "../build/testdata/conformance/public/cases";
#endif
}

bool isHexAt(const std::string& s, std::size_t at) {
  if (at + 4 > s.size()) return false;
  for (std::size_t k = at; k < at + 4; ++k) {
    if (!std::isxdigit(static_cast<unsigned char>(s[k]))) return false;
  }
  return true;
}

// RapidJSON 1.1 rejects a `\udXXX` high surrogate that is not followed by a low one. Replace such
// an escape with U+E000: a private-use unit is, like a lone surrogate, a non-word, non-space,
// non-special BMP unit of length 1, so every classifier result is unchanged.
std::string patchLoneHighSurrogates(const std::string& json) {
  std::string out;
  out.reserve(json.size());
  for (std::size_t i = 0; i < json.size(); ++i) {
    if (json[i] != '\\' || i + 1 >= json.size()) {
      out += json[i];
      continue;
    }
    if (json[i + 1] == 'u' && isHexAt(json, i + 2)) {
      unsigned v = std::stoul(json.substr(i + 2, 4), nullptr, 16);
      bool pairedLow = json.compare(i + 6, 2, "\\u") == 0 && isHexAt(json, i + 8) &&
                       (std::stoul(json.substr(i + 8, 4), nullptr, 16) & 0xFC00) == 0xDC00;
      if ((v & 0xFC00) == 0xD800 && !pairedLow) {
        out += "\\ue000";
        i += 5;
        continue;
      }
    }
    out += json[i];
    out += json[i + 1];
    ++i;
  }
  return out;
}

struct CaseFile {
  std::string name;
  rapidjson::Document doc;
};

std::vector<CaseFile>& corpus() {
  static std::vector<CaseFile> files = [] {
    std::vector<CaseFile> out;
    std::vector<std::filesystem::path> paths;
    if (std::filesystem::is_directory(casesDir())) {
      for (const auto& e : std::filesystem::directory_iterator(casesDir())) {
        if (e.path().extension() == ".json") paths.push_back(e.path());
      }
    }
    std::sort(paths.begin(), paths.end());
    for (const auto& p : paths) {
      std::ifstream in(p, std::ios::binary);
      std::stringstream buf;
      buf << in.rdbuf();
      CaseFile f;
      f.name = p.filename().string();
      f.doc.Parse(patchLoneHighSurrogates(buf.str()).c_str());
      if (!f.doc.HasParseError()) out.push_back(std::move(f));
    }
    return out;
  }();
  return files;
}

std::u16string u16(const rapidjson::Value& v) {
  return cce::js::fromUtf8(std::string_view(v.GetString(), v.GetStringLength()));
}

void collectStrings(const rapidjson::Value& v, std::set<std::u16string>* out) {
  if (v.IsString()) {
    out->insert(u16(v));
  } else if (v.IsArray()) {
    for (const auto& x : v.GetArray()) collectStrings(x, out);
  } else if (v.IsObject()) {
    for (const auto& m : v.GetObject()) collectStrings(m.value, out);
  }
}

}  // namespace

TEST_SUITE("classifier") {
  TEST_CASE("hasHardReason agrees with classifyMessage on every string in the corpus") {
    REQUIRE(corpus().size() == 495);
    std::set<std::u16string> texts;
    for (const CaseFile& f : corpus()) collectStrings(f.doc, &texts);
    REQUIRE(texts.size() > 5000);
    std::size_t hard = 0;
    for (const auto& t : texts) {
      bool expected = anyHard(classifyMessage(t));
      hard += expected;
      if (hasHardReason(t) != expected) {
        CAPTURE(show(t));
        CHECK(hasHardReason(t) == expected);
      }
    }
    CHECK(hard > 1000);  // the corpus exercises the detectors, not just prose
  }

  TEST_CASE("compressible corpus messages are preserved exactly when hard or valid JSON") {
    // Messages whose fate is decided by rules 8-9 of §2.1 alone: sync runs without a token budget,
    // not protected by role, recency or tool_calls, >= 120 chars, no summary/truncation prefix, no
    // fence, not replaced by a dedup reference. A preserved message must be at least 240 long: a
    // shorter single message may also come back unchanged because its summary was not shorter.
    std::size_t preserved = 0, compressed = 0;
    for (const CaseFile& f : corpus()) {
      const rapidjson::Document& d = f.doc;
      if (!d.HasMember("mode") || std::string(d["mode"].GetString()) != "sync") continue;
      const auto& expected = d["expected"];
      if (!expected.HasMember("compress")) continue;
      const auto& input = d["input"];
      const auto& options = input["options"];
      if (options.HasMember("tokenBudget")) continue;
      const auto& messages = input["messages"].GetArray();
      const double n = messages.Size();

      std::map<std::string, const rapidjson::Value*> byId;
      bool idsOk = true;
      for (const auto& m : messages) {
        if (!m.IsObject() || !m.HasMember("id") || !m["id"].IsString() ||
            byId.count(m["id"].GetString())) {
          idsOk = false;
          break;
        }
        byId[m["id"].GetString()] = &m;
      }
      if (!idsOk) continue;
      std::map<std::string, const rapidjson::Value*> outById;
      for (const auto& m : expected["compress"]["messages"].GetArray()) {
        outById[m["id"].GetString()] = &m;
      }
      const double rw = options.HasMember("recencyWindow") && options["recencyWindow"].IsNumber()
                            ? options["recencyWindow"].GetDouble()
                            : 4;
      std::set<std::string> roles = {"system"};
      if (options.HasMember("preserve") && options["preserve"].IsArray()) {
        roles.clear();
        for (const auto& r : options["preserve"].GetArray()) roles.insert(r.GetString());
      }

      for (rapidjson::SizeType i = 0; i < messages.Size(); ++i) {
        const auto& m = messages[i];
        if (!m.HasMember("content") || !m["content"].IsString()) continue;
        if (m.HasMember("role") && m["role"].IsString() && m["role"].GetStringLength() > 0 &&
            roles.count(m["role"].GetString())) {
          continue;
        }
        if (rw > 0 && i >= n - rw) continue;
        if (m.HasMember("tool_calls") && m["tool_calls"].IsArray() && !m["tool_calls"].Empty()) {
          continue;
        }
        const std::u16string c = u16(m["content"]);
        if (c.size() < 120 || cce::js::startsWithAscii(c, "[summary:") ||
            cce::js::startsWithAscii(c, "[summary#") || cce::js::startsWithAscii(c, "[truncated") ||
            c.find(u"```") != std::u16string::npos) {
          continue;
        }
        auto out = outById.find(m["id"].GetString());
        std::u16string outContent;
        if (out != outById.end() && (*out->second).HasMember("content") &&
            (*out->second)["content"].IsString()) {
          outContent = u16((*out->second)["content"]);
        }
        if (cce::js::startsWithAscii(outContent, "[cce:")) continue;
        const bool wasPreserved = out != outById.end() && outContent == c;
        if (wasPreserved && c.size() < 240) continue;
        CAPTURE(f.name);
        CAPTURE(m["id"].GetString());
        CAPTURE(show(c));
        CHECK((hasHardReason(c) || isValidJson(c)) == wasPreserved);
        ++(wasPreserved ? preserved : compressed);
      }
    }
    MESSAGE("unambiguous corpus messages: ", preserved, " preserved, ", compressed, " compressed");
    CHECK(preserved > 150);
    CHECK(compressed > 800);
  }
}

// ---- generated texts ----------------------------------------------------------------------------

namespace {

// Texts made of the pieces the detectors care about, glued at random: words of every length, SQL
// keywords, API-key shapes, line breaks of each kind, indentation, YAML keys, dollars, backticks,
// non-ASCII letters and symbols. A fixed seed keeps every run the same.
class TextGenerator {
 public:
  explicit TextGenerator(std::uint32_t seed) : state_(seed) {}

  std::u16string text(bool mild) {
    std::u16string out;
    const std::size_t pieces = 10 + below(150);
    for (std::size_t k = 0; k < pieces; ++k) {
      out += mild ? mildPiece() : piece();
      if (below(10) < 7) out += u' ';
    }
    return out;
  }

 private:
  std::uint32_t next() {
    state_ = state_ * 1103515245u + 12345u;
    return (state_ >> 8) & 0xFFFFFF;
  }
  std::size_t below(std::size_t n) { return next() % n; }
  template <typename T, std::size_t N>
  const T& pick(const T (&options)[N]) {
    return options[below(N)];
  }

  std::u16string word(std::size_t min, std::size_t max) {
    static constexpr char16_t kLetters[] = u"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    std::u16string out;
    for (std::size_t k = min + below(max - min + 1); k > 0; --k) out += kLetters[below(52)];
    return out;
  }

  std::u16string keyShape(std::size_t length) {
    static constexpr std::u16string_view kPrefixes[] = {
        u"sk-", u"sk_live_", u"AKIA", u"ghp_", u"github_pat_", u"xoxb-",
        u"SG.", u"glpat-",   u"npm_", u"AIza", u"tok_",        u"build-abc-def-"};
    static constexpr char16_t kBody[] = u"abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789_-.";
    std::u16string out(pick(kPrefixes));
    for (std::size_t k = length; k > 0; --k) out += kBody[below(sizeof kBody / 2 - 1)];
    return out;
  }

  std::u16string piece() {
    static constexpr std::u16string_view kSql[] = {
        u"select", u"FROM",   u"where",    u"Join",     u"into",         u"set",
        u"drop",   u"merge",  u"having",   u"union",    u"group by",     u"order\nby",
        u"not  null", u"integer", u"on conflict", u"with recursive", u"left join",
        u"on",     u"with",   u"left",     u"values",   u"schema",       u"trigger"};
    static constexpr std::u16string_view kSeparators[] = {
        u" ",    u" ",    u", ",      u". ",   u".",     u"-",      u"_",       u"\n",
        u"\n",  u"\r\n", u"\r",   u"\u2028", u"\n    ", u"\n\t", u":",    u": ",
        u"$",    u"$$",   u"`",      u"```",  u"(",     u")",      u"\"",     u"'",
        u"/",    u"!",    u"?",      u"\u00e9", u"\u2192", u"\u00a0", u"\u2014", u"42",
        u"{",    u"}",    u";",      u"=",    u"\t",   u"--",     u"\n\n",  u"\nA",
        u"\nThe "};
    const std::size_t r = below(100);
    if (r < 45) return word(1, 9);
    if (r < 50) return word(10, 30);
    if (r < 62) return std::u16string(pick(kSql));
    if (r < 66) return keyShape(10 + below(40));
    return std::u16string(pick(kSeparators));
  }

  // Fewer triggers, so that about a third of the texts are clean.
  std::u16string mildPiece() {
    static constexpr std::u16string_view kSeparators[] = {
        u" ",   u" ",    u", ", u". ",   u".",      u"-",     u"_",  u"\n", u"\r\n",
        u"\u2028", u"\n    ", u":", u"(",  u")",      u"\"",    u"'",  u"/",   u"!",
        u"?",   u"\u00e9", u"0", u"42", u"\n\n", u"\nA",  u"\t"};
    const std::size_t r = below(1000);
    if (r < 700) return word(1, 9);
    if (r < 740) return word(10, 24);
    if (r < 770) return std::u16string(below(2) ? u"from" : u"where");
    if (r < 775) return keyShape(10 + below(20));
    return std::u16string(pick(kSeparators));
  }

  std::uint32_t state_;
};

}  // namespace

TEST_SUITE("classifier") {
  TEST_CASE("hasHardReason agrees with classifyMessage on generated texts") {
    // The fused pass against the detector-by-detector one, on texts long enough to cross many
    // windows and to mix every kind of stop.
    TextGenerator generator(20240611);
    std::size_t hard = 0, clean = 0;
    for (int k = 0; k < 4000; ++k) {
      const std::u16string text = generator.text(/*mild=*/k % 2 == 1);
      const bool expected = anyHard(classifyMessage(text));
      ++(expected ? hard : clean);
      if (hasHardReason(text) != expected) {
        CAPTURE(show(text));
        CHECK(hasHardReason(text) == expected);
      }
    }
    CHECK(hard > 1000);  // both answers are well exercised
    CHECK(clean > 300);
  }

  TEST_CASE("the fused pass finds a fence exactly when the text holds ```, before or after a "
            "hard reason") {
    // The pipeline's first two questions come from one pass that may stop early at a hard
    // reason: the fence answer must still cover the whole text.
    TextGenerator generator(20261122);
    std::vector<std::u16string> texts;
    for (int k = 0; k < 4000; ++k) texts.push_back(generator.text(/*mild=*/k % 2 == 1));
    const std::u16string hardFirst = u"SELECT id FROM users WHERE id = 1 AND name = 'x'; ";
    const std::u16string prose = u"The deployment finished without errors after the retry. ";
    texts.push_back(hardFirst + prose + u"and then ``` later");
    texts.push_back(hardFirst + prose);
    texts.push_back(u"```" + hardFirst);
    texts.push_back(u"{\"a\": 1} and a ``` after a json start");
    texts.push_back(u"{\"a\": 1} without a fence");
    texts.push_back(prose + u"``");
    texts.push_back(prose + u"`` `");
    std::size_t fences = 0, hardWithLaterFence = 0;
    for (const std::u16string& text : texts) {
      const FenceAndHardReason scan = scanFenceAndHardReason(text);
      const bool fence = text.find(u"```") != std::u16string::npos;
      fences += fence;
      hardWithLaterFence += scan.hardReason && fence;
      if (scan.tripleBacktick != fence || scan.hardReason != hasHardReason(text)) {
        CAPTURE(show(text));
        CHECK(scan.tripleBacktick == fence);
        CHECK(scan.hardReason == hasHardReason(text));
      }
    }
    CHECK(fences > 300);
    CHECK(hardWithLaterFence > 100);
  }

  TEST_CASE("the pipeline's scan may stop at a fence, and answers its question as the full pass") {
    // scanFenceOrHardReason (what classifyContent asks) stops at the first "```" in SIMD builds,
    // since a fence decides before hard reasons: the fence answer must be the full pass's, and so
    // must the hard reason wherever there is no fence. Every cut of generated texts puts the
    // fence's three units on every side of a block edge.
    TextGenerator generator(20261127);
    std::vector<std::u16string> texts;
    for (int k = 0; k < 1500; ++k) texts.push_back(generator.text(/*mild=*/k % 2 == 1));
    const std::u16string prose = u"The deployment finished without errors after the retry. ";
    for (std::size_t at = 0; at < 140; ++at) {
      std::u16string text = prose + prose + prose;
      text.insert(at, u"```");
      texts.push_back(text + u"SELECT id FROM users WHERE id = 1 AND name = 'x';");
      texts.push_back(u"``" + text.substr(0, at) + u"`");
    }
    std::size_t calls = 0, fences = 0, hard = 0;
    for (const std::u16string& text : texts) {
      const std::size_t step = text.size() > 300 ? 11 : 1;
      for (std::size_t cut = 0; cut <= text.size(); cut += step) {
        const std::u16string_view part(text.data(), cut);
        const FenceAndHardReason full = scanFenceAndHardReason(part);
        const FenceAndHardReason asked = cce::scanFenceOrHardReason(part);
        ++calls;
        fences += full.tripleBacktick;
        hard += !full.tripleBacktick && full.hardReason;
        if (asked.tripleBacktick != full.tripleBacktick ||
            (!full.tripleBacktick && asked.hardReason != full.hardReason)) {
          CAPTURE(show(std::u16string(part)));
          CHECK(asked.tripleBacktick == full.tripleBacktick);
          CHECK(asked.hardReason == full.hardReason);
        }
      }
    }
    CHECK(calls > 30000);
    CHECK(fences > calls / 10);
    CHECK(hard > calls / 10);
  }

  TEST_CASE("the block scan answers as the word walk does, at every cut of a text") {
    // SIMD builds scan sixteen-unit blocks (scanFenceAndHardReason); the other builds walk words
    // (detail::scanFenceAndHardReasonByWords). Every prefix of each text puts words, key runs,
    // specials and cold units on every side of a block edge and of the padded last block; units
    // at and above 0x8000 (surrogates, full-width forms) must count as non-ASCII too.
    TextGenerator generator(20261127);
    std::vector<std::u16string> texts;
    for (int k = 0; k < 600; ++k) texts.push_back(generator.text(/*mild=*/k % 3 != 0));
    texts.push_back(u"abcdefghijklmnopqrstuvwxyz0123456789_-.abcdefghijklmnopqrstuvwx " +
                    std::u16string(u"sk-abcdefghijklmnopqrstuvwxyz0123 and AKIA0123456789ABCDEF"));
    texts.push_back(u"prose \xd83d\xde00 and \xff0c \x8000 \xffff text that goes on, and on " +
                    std::u16string(u"with order by here"));
    texts.push_back(u"a `` b $ c \r\n d {} [] <> | \\ ; : @ # $ % ^ & * ( ) = + ` ~ ' ?!");
    std::size_t calls = 0, hard = 0, fences = 0;
    for (const std::u16string& text : texts) {
      const std::size_t step = text.size() > 400 ? 7 : 1;
      for (std::size_t cut = 0; cut <= text.size(); cut += step) {
        const std::u16string_view part(text.data(), cut);
        const FenceAndHardReason blocks = scanFenceAndHardReason(part);
        const FenceAndHardReason words = cce::detail::scanFenceAndHardReasonByWords(part);
        ++calls;
        hard += words.hardReason;
        fences += words.tripleBacktick;
        if (blocks.hardReason != words.hardReason ||
            blocks.tripleBacktick != words.tripleBacktick) {
          CAPTURE(show(std::u16string(part)));
          CHECK(blocks.hardReason == words.hardReason);
          CHECK(blocks.tripleBacktick == words.tripleBacktick);
        }
      }
    }
    CHECK(calls > 50000);
    CHECK(hard > calls / 4);  // both answers well exercised
    CHECK(hard < calls * 3 / 4);
    CHECK(fences > 1000);
  }
}

// ---- linear time --------------------------------------------------------------------------------

namespace {

/** Classifies (or asks only hasHardReason of) the first `size` units of `text`. */
void classifyPrefix(const std::u16string& text, std::size_t size, bool full) {
  const std::u16string part = text.substr(0, size);
  volatile bool sink = full ? !classifyMessage(part).reasons.empty() : hasHardReason(part);
  (void)sink;
}

}  // namespace

TEST_SUITE("classifier") {
  TEST_CASE("hasHardReason grows linearly over prose") {
    std::u16string prose;
    const std::u16string sentence =
        u"The service streams background tasks to the worker pool so the queue stays short and "
        u"nobody waits too long.\n";
    while (prose.size() < 400000) prose += sentence;
    REQUIRE_FALSE(hasHardReason(prose));
    const double growth = cce::test::growthRatio(
        [&](std::size_t size) { classifyPrefix(prose, size, false); }, 100000);
    MESSAGE("hasHardReason, 100 K to 400 K units of prose: x", growth);
    CHECK(growth < cce::test::kLinearGrowthLimit);
  }

  TEST_CASE("inputs that make the JS patterns backtrack stay linear") {
    // Each input repeats a unit that opens a candidate match which never completes; a quadratic
    // rescan grows 16x from 50 000 to 200 000 units, a linear scan 4x.
    const std::u16string_view units[] = {
        u"$$x",    u"a: ", u"```\n ", u"xoxb-",    u"glpat-",  u"_sk-", u"SG.",
        u"a-",     u"a1-", u"\"ab",   u"\u201cab", u"select ", u"[",    u"k:\n",
        u"\n",     u"1.",  u"v1.",    u"    x\n",  u"ab-cd-",  u"AIza", u"tok_a-",
        u"ghp_a ", u"@a",  u"/a",     u"0",        u"x\nA",
    };
    for (std::u16string_view unit : units) {
      const std::u16string text = repeat(unit, 200000 / unit.size());
      const std::size_t quarter = text.size() / 4;
      CAPTURE(show(unit));
      CHECK(cce::test::growthRatio([&](std::size_t size) { classifyPrefix(text, size, true); },
                                   quarter) < cce::test::kLinearGrowthLimit);
      CHECK(cce::test::growthRatio([&](std::size_t size) { classifyPrefix(text, size, false); },
                                   quarter) < cce::test::kLinearGrowthLimit);
    }
  }
}
