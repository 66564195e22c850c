// SPDX-License-Identifier: MIT
// Tests for spec §8 deduplication: eligibility, keep rules, fuzzy matching, formats, the corpus.
#include "dedup.h"

#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "jscompat/string.h"
#include "unit_util.h"

namespace {

using cce::DedupAnnotation;
using cce::DedupAnnotations;
using cce::Message;
using cce::Scalar;
using cce::U16;
using cce::js::fromAscii;
using cce::js::toUtf8;

// ---- message builders ------------------------------------------------------------------------

Scalar stringScalar(const U16& s) {
  Scalar out;
  out.kind = Scalar::Kind::String;
  out.text = s;
  return out;
}

Message makeMessage(const U16& id, const U16& role, const U16& content) {
  Message m;
  m.id = stringScalar(id);
  m.idKey = id;
  m.role = stringScalar(role);
  m.contentIsString = true;
  m.content = content;
  return m;
}

U16 repeated(char16_t c, std::size_t n) { return U16(n, c); }

// A 20-line block in the style of the corpus's config dumps; `tag` varies the text per block.
U16 configLine(const std::string& tag, int k) {
  return fromAscii("entry " + std::to_string(k) + " of the " + tag + " configuration = enabled");
}
U16 configBlock(const std::vector<std::pair<std::string, int>>& lines) {
  U16 out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (i > 0) out += u'\n';
    out += configLine(lines[i].first, lines[i].second);
  }
  return out;
}
std::vector<std::pair<std::string, int>> range(const std::string& tag, int from, int to) {
  std::vector<std::pair<std::string, int>> out;
  for (int k = from; k < to; ++k) out.emplace_back(tag, k);
  return out;
}
template <typename T>
std::vector<T> concat(std::vector<T> a, const std::vector<T>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Appends a final line of 'z' so the content is exactly `length` code units long.
U16 padTo(U16 s, std::size_t length) {
  REQUIRE(s.size() + 2 <= length);
  s += u'\n';
  s += repeated(u'z', length - s.size());
  return s;
}

// Renders annotations as one slot per message: "." none, else the keep index (single digit).
std::string keepMap(const DedupAnnotations& annotations) {
  std::string out;
  for (const auto& a : annotations) {
    out += a ? static_cast<char>('0' + a->duplicateOfIndex) : '.';
  }
  return out;
}

const std::vector<U16> kDefaultPreserve = {u"system"};

// ---- corpus access ---------------------------------------------------------------------------

using Doc = rapidjson::GenericDocument<rapidjson::UTF16<char16_t>>;
using Val = rapidjson::GenericValue<rapidjson::UTF16<char16_t>>;

std::filesystem::path casesDir() {
  if (const char* env = std::getenv("CCE_TESTDATA_DIR")) {
    return std::filesystem::path(env) / "conformance/public/cases";
  }
#ifdef CCE_TESTDATA_DIR
  return std::filesystem::path(CCE_TESTDATA_DIR) / "conformance/public/cases";
#else
  return std::filesystem::path("build/testdata/conformance/public/cases");
#endif
}

const Val* member(const Val& obj, const char16_t* key) {
  if (!obj.IsObject()) return nullptr;
  auto it = obj.FindMember(key);
  return it == obj.MemberEnd() ? nullptr : &it->value;
}

U16 str(const Val& v) { return U16(v.GetString(), v.GetStringLength()); }

/// One compress() case reduced to what dedup reads, plus the expected output messages.
struct CorpusCase {
  std::string skipReason;  // non-empty: not usable here
  std::vector<Message> messages;
  std::vector<U16> preserve = kDefaultPreserve;
  double recencyWindow = 4;
  bool dedup = true;
  bool fuzzy = false;
  double threshold = 0.85;
  struct Output {
    U16 content;
    std::optional<U16> firstId;  // metadata._cce_original.ids[0] when a string
  };
  std::vector<Output> outputs;
};

Scalar toScalar(const Val* v) {
  Scalar s;
  if (v == nullptr) return s;
  if (v->IsString()) return stringScalar(str(*v));
  s.kind = v->IsNull()     ? Scalar::Kind::Null
           : v->IsBool()   ? Scalar::Kind::Bool
           : v->IsNumber() ? Scalar::Kind::Number
                           : Scalar::Kind::Composite;
  return s;
}

CorpusCase loadCase(const std::filesystem::path& file) {
  CorpusCase c;
  std::ifstream in(file, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::string bytes = buffer.str();
  Doc doc;
  // Lone-surrogate escapes make RapidJSON reject the file; those cases are skipped.
  doc.Parse<rapidjson::kParseDefaultFlags, rapidjson::UTF8<>>(bytes.c_str());
  if (doc.HasParseError()) return c.skipReason = "unparseable", c;
  const Val* mode = member(doc, u"mode");
  if (mode == nullptr || !mode->IsString() || (str(*mode) != u"sync" && str(*mode) != u"async")) {
    return c.skipReason = "not a compress case", c;
  }
  const Val* input = member(doc, u"input");
  const Val* expected = member(doc, u"expected");
  const Val* compress = expected ? member(*expected, u"compress") : nullptr;
  if (input == nullptr || compress == nullptr) return c.skipReason = "compress throws", c;

  const Val* options = member(*input, u"options");
  if (options != nullptr) {
    if (const Val* v = member(*options, u"preserve"); v && v->IsArray()) {
      c.preserve.clear();
      for (const Val& role : v->GetArray()) {
        if (!role.IsString()) return c.skipReason = "non-string preserve entry", c;
        c.preserve.push_back(str(role));
      }
    }
    if (const Val* v = member(*options, u"recencyWindow"); v && v->IsNumber()) {
      c.recencyWindow = v->GetDouble();
    }
    if (const Val* v = member(*options, u"dedup"); v && v->IsBool()) c.dedup = v->GetBool();
    if (const Val* v = member(*options, u"fuzzyDedup"); v && v->IsBool()) c.fuzzy = v->GetBool();
    if (const Val* v = member(*options, u"fuzzyThreshold"); v && v->IsNumber()) {
      c.threshold = v->GetDouble();
    }
  }
  // Budget runs (their results carry fits/tokenCount/recencyWindow) emit the plan of the recency
  // window the search settled on; the fast path reports n, which preserves everything.
  if (member(*compress, u"fits") != nullptr) {
    const Val* rw = member(*compress, u"recencyWindow");
    if (rw == nullptr || !rw->IsNumber()) return c.skipReason = "budget without recencyWindow", c;
    c.recencyWindow = rw->GetDouble();
  }

  const Val* messages = member(*input, u"messages");
  if (messages == nullptr || !messages->IsArray()) return c.skipReason = "no messages", c;
  std::map<U16, int> seen;
  for (const Val& m : messages->GetArray()) {
    const Val* id = member(m, u"id");
    if (id == nullptr || !id->IsString()) return c.skipReason = "non-string id", c;
    Message msg;
    msg.id = toScalar(id);
    msg.idKey = str(*id);
    if (seen[msg.idKey]++ > 0) return c.skipReason = "duplicate ids", c;
    msg.role = toScalar(member(m, u"role"));
    if (const Val* content = member(m, u"content"); content && content->IsString()) {
      msg.contentIsString = true;
      msg.content = str(*content);
    }
    if (const Val* calls = member(m, u"tool_calls"); calls && calls->IsArray()) {
      msg.hasToolCalls = !calls->Empty();
    }
    c.messages.push_back(std::move(msg));
  }

  const Val* outputs = member(*compress, u"messages");
  if (outputs == nullptr || !outputs->IsArray()) return c.skipReason = "no output messages", c;
  for (const Val& m : outputs->GetArray()) {
    CorpusCase::Output out;
    if (const Val* content = member(m, u"content"); content && content->IsString()) {
      out.content = str(*content);
    }
    const Val* metadata = member(m, u"metadata");
    const Val* original = metadata ? member(*metadata, u"_cce_original") : nullptr;
    const Val* ids = original ? member(*original, u"ids") : nullptr;
    if (ids && ids->IsArray() && !ids->Empty() && (*ids)[0].IsString())
      out.firstId = str((*ids)[0]);
    c.outputs.push_back(std::move(out));
  }
  return c;
}

// Spec §2 steps 2-4 with the recency window of the run.
DedupAnnotations analyze(const CorpusCase& c) {
  double n = static_cast<double>(c.messages.size());
  double start = std::max(0.0, n - (c.recencyWindow > 0 ? c.recencyWindow : 0));
  // A fractional window makes `index >= start` equivalent to `index >= ceil(start)`.
  std::size_t dedupStart = static_cast<std::size_t>(std::ceil(start));
  DedupAnnotations annotations = c.dedup
                                     ? cce::analyzeDuplicates(c.messages, dedupStart, c.preserve)
                                     : DedupAnnotations(c.messages.size());
  if (c.fuzzy) {
    cce::analyzeFuzzyDuplicates(c.messages, dedupStart, c.preserve, c.threshold, annotations);
  }
  return annotations;
}

std::optional<U16> refFor(const CorpusCase& c, const DedupAnnotations& annotations, std::size_t i) {
  if (!annotations[i]) return std::nullopt;
  return cce::formatDuplicateRef(*annotations[i],
                                 c.messages[annotations[i]->duplicateOfIndex].idKey);
}

}  // namespace

TEST_SUITE("dedup") {
  TEST_CASE("formats exact and near-duplicate references like the reference") {
    struct Case {
      const char* name;
      DedupAnnotation annotation;
      U16 keepId;
      U16 expected;
    };
    const Case cases[] = {
        {"spec exact", {0, 218, std::nullopt}, u"keep", u"[cce:dup of keep \u2014 218 chars]"},
        {"spec fuzzy 87%",
         {0, 540, 0.87},
         u"3",
         u"[cce:near-dup of 3 \u2014 540 chars, ~87% match]"},
        {"spec example 8",
         {0, 679, 0.9},
         u"v2",
         u"[cce:near-dup of v2 \u2014 679 chars, ~90% match]"},
        // JS: Math.round(0.125 * 100) === 13, Math.round(0.865 * 100) === 87 (half rounds up).
        {"half rounds up",
         {0, 200, 0.125},
         u"x",
         u"[cce:near-dup of x \u2014 200 chars, ~13% match]"},
        {"half of 86.5",
         {0, 200, 0.865},
         u"x",
         u"[cce:near-dup of x \u2014 200 chars, ~87% match]"},
        {"full match",
         {0, 1000, 1.0},
         u"id",
         u"[cce:near-dup of id \u2014 1000 chars, ~100% match]"},
        {"zero similarity",
         {0, 201, 0.0},
         u"a",
         u"[cce:near-dup of a \u2014 201 chars, ~0% match]"},
        {"non-ASCII id",
         {0, 300, std::nullopt},
         u"\u00e9t\u00e9",
         u"[cce:dup of \u00e9t\u00e9 \u2014 300 chars]"},
    };
    for (const Case& c : cases) {
      CAPTURE(std::string(c.name));
      CHECK(toUtf8(cce::formatDuplicateRef(c.annotation, c.keepId)) == toUtf8(c.expected));
    }
  }

  TEST_CASE("recognises the three compression markers only at index 0 and case-sensitively") {
    struct Case {
      const char16_t* content;
      bool expected;
    };
    const Case cases[] = {
        {u"[summary: x", true},     {u"[summary#ab: x", true}, {u"[truncated \u2014 9", true},
        {u"[summary", false},       {u" [summary: x", false},  {u"[Summary: x", false},
        {u"[summary x", false},     {u"[truncate", false},     {u"", false},
        {u"[cce:dup of a]", false}, {u"x[truncated", false},
    };
    for (const Case& c : cases) {
      CAPTURE(toUtf8(c.content));
      CHECK(cce::startsWithCompressionMarker(c.content) == c.expected);
    }
  }

  TEST_CASE("preserves a role only when it is a non-empty string listed in preserve") {
    struct Case {
      const char* name;
      Scalar role;
      std::vector<U16> preserve;
      bool expected;
    };
    Scalar missing;
    Scalar null;
    null.kind = Scalar::Kind::Null;
    Scalar number;
    number.kind = Scalar::Kind::Number;
    number.text = u"1";
    const Case cases[] = {
        {"listed", stringScalar(u"system"), {u"system"}, true},
        {"listed among others", stringScalar(u"tool"), {u"system", u"tool"}, true},
        {"case-sensitive", stringScalar(u"System"), {u"system"}, false},
        {"empty list", stringScalar(u"system"), {}, false},
        {"empty role even if listed", stringScalar(u""), {u""}, false},
        {"missing role", missing, {u"system"}, false},
        {"null role", null, {u"system"}, false},
        {"number role whose text is listed", number, {u"1"}, false},
    };
    for (const Case& c : cases) {
      CAPTURE(std::string(c.name));
      CHECK(cce::isPreservedRole(c.role, c.preserve) == c.expected);
    }
  }

  TEST_CASE("groups identical eligible contents and applies the keep rule") {
    // One letter per message:
    //   A, B  user messages with distinct 300-unit contents     S  system message with A's text
    //   T     A's text with tool_calls                          x  non-string content
    //   h     a 199-unit text (twice identical)                 H  a 200-unit text
    //   m/n/r A-length texts starting "[summary:", "[summary#", "[truncated"
    // Expected: one slot per message, "." none, else the keep index.
    struct Case {
      const char* name;
      const char* layout;
      std::size_t dedupStart;
      std::vector<U16> preserve;
      const char* expected;
    };
    const U16 textA = repeated(u'a', 300);
    const U16 textB = repeated(u'b', 300);
    const Case cases[] = {
        {"pair, rw 0 (dedupStart = n) keeps the last", "AA", 2, kDefaultPreserve, "1."},
        {"pair, dedupStart 0 keeps the last", "AA", 0, kDefaultPreserve, "1."},
        {"pair, dedupStart 1 keeps the first in window", "AA", 1, kDefaultPreserve, "1."},
        {"triple with dedupStart = n keeps the last", "AAA", 3, kDefaultPreserve, "22."},
        {"triple keeps the first member at or after dedupStart", "AAA", 1, kDefaultPreserve, "1.1"},
        {"four copies, dedupStart 2", "AAAA", 2, kDefaultPreserve, "22.2"},
        {"window past every member keeps the last", "AAxx", 3, kDefaultPreserve, "1..."},
        {"two interleaved groups", "ABAB", 0, kDefaultPreserve, "23.."},
        {"two groups, dedupStart 3", "ABAB", 3, kDefaultPreserve, "23.."},
        {"two groups, dedupStart 2", "ABABA", 2, kDefaultPreserve, "23..2"},
        {"singletons stay unannotated", "AB", 0, kDefaultPreserve, ".."},
        {"preserved role is ineligible", "SS", 0, kDefaultPreserve, ".."},
        {"preserved role does not join a group", "ASA", 0, kDefaultPreserve, "2.."},
        {"empty preserve list makes system eligible", "SA", 0, {}, "1."},
        {"tool_calls are ineligible", "TTA", 0, kDefaultPreserve, "..."},
        {"199 units are too short", "hh", 0, kDefaultPreserve, ".."},
        {"200 units are long enough", "HH", 0, kDefaultPreserve, "1."},
        {"[summary: prefix is ineligible", "mm", 0, kDefaultPreserve, ".."},
        {"[summary# prefix is ineligible", "nn", 0, kDefaultPreserve, ".."},
        {"[truncated prefix is ineligible", "rr", 0, kDefaultPreserve, ".."},
        {"non-string content is ineligible", "xx", 0, kDefaultPreserve, ".."},
    };
    for (const Case& c : cases) {
      CAPTURE(std::string(c.name));
      std::vector<Message> messages;
      for (const char* p = c.layout; *p; ++p) {
        U16 id = fromAscii(std::to_string(messages.size()));
        Message m = makeMessage(id, u"user", U16());
        switch (*p) {
          case 'A':
            m.content = textA;
            break;
          case 'B':
            m.content = textB;
            break;
          case 'S':
            m.content = textA;
            m.role = stringScalar(u"system");
            break;
          case 'T':
            m.content = textA;
            m.hasToolCalls = true;
            break;
          case 'x':
            m.contentIsString = false;
            break;
          case 'h':
            m.content = repeated(u'h', 199);
            break;
          case 'H':
            m.content = repeated(u'h', 200);
            break;
          case 'm':
            m.content = u"[summary: " + textA;
            break;
          case 'n':
            m.content = u"[summary#" + textA;
            break;
          case 'r':
            m.content = u"[truncated" + textA;
            break;
        }
        messages.push_back(std::move(m));
      }
      DedupAnnotations annotations = cce::analyzeDuplicates(messages, c.dedupStart, c.preserve);
      REQUIRE(annotations.size() == messages.size());
      CHECK(keepMap(annotations) == c.expected);
      for (const auto& a : annotations) {
        if (!a) continue;
        CHECK_FALSE(a->similarity.has_value());
        CHECK(a->contentLength == messages[a->duplicateOfIndex].content.size());
      }
    }
  }

  TEST_CASE("groups identical contents across roles") {
    const U16 text = repeated(u'q', 250);
    std::vector<Message> messages = {makeMessage(u"u", u"user", text),
                                     makeMessage(u"t", u"tool", text),
                                     makeMessage(u"a", u"assistant", text)};
    CHECK(keepMap(cce::analyzeDuplicates(messages, 3, kDefaultPreserve)) == "22.");
  }

  TEST_CASE("matches near-duplicates by the fuzzy rules") {
    // Each case is a list of message contents; all are user messages; dedup annotations start
    // empty. `expected` is the keep map; `similarity` (when set) is checked for message 0.
    struct Case {
      const char* name;
      std::vector<U16> contents;
      double threshold;
      std::size_t dedupStart;
      const char* expected;
      std::optional<double> similarity;
    };
    const auto base = range("x", 0, 20);
    const U16 a20 = configBlock(base);
    const U16 a10 = configBlock(range("x", 0, 10));
    const U16 b17 = configBlock(concat(range("x", 0, 17), range("y", 17, 20)));
    const double j17of23 = 17.0 / 23.0;
    // Fingerprint overlap cases: five fingerprint lines then a shared tail; every fingerprint line
    // is the same length so contents stay within the length ratio.
    const auto tail = range("tail", 5, 20);
    auto fp = [&](std::vector<std::pair<std::string, int>> head) {
      return configBlock(concat(std::move(head), tail));
    };
    const std::pair<std::string, int> sx{"shr", 0}, sy{"shr", 1}, sz{"shr", 2};
    auto own = [](const char* tag, int k) { return std::make_pair(std::string(tag), k); };
    const Case cases[] = {
        {"Jaccard equal to the threshold matches", {a20, b17}, j17of23, 2, "1.", j17of23},
        {"Jaccard just below the threshold does not match",
         {a20, b17},
         std::nextafter(j17of23, 2.0),
         2,
         "..",
         std::nullopt},
        {"identical normalised lines score 1", {a20, a20 + u"\n"}, 1.0, 2, "1.", 1.0},
        {"length ratio exactly 0.7 passes",
         {padTo(a10, 700), padTo(a10, 1000)},
         0.0,
         2,
         "1.",
         10.0 / 12.0},
        {"length ratio below 0.7 is filtered",
         {padTo(a10, 699), padTo(a10, 1000)},
         0.0,
         2,
         "..",
         std::nullopt},
        {"three shared fingerprint lines make a candidate",
         {fp({sx, sy, sz, own("aaa", 3), own("aaa", 4)}),
          fp({own("bbb", 3), sz, sy, own("bbb", 4), sx})},
         0.0,
         2,
         "1.",
         std::nullopt},
        {"two shared fingerprint lines do not",
         {fp({sx, sy, own("aaa", 2), own("aaa", 3), own("aaa", 4)}),
          fp({sx, sy, own("bbb", 2), own("bbb", 3), own("bbb", 4)})},
         0.0,
         2,
         "..",
         std::nullopt},
        {"a line twice in both fingerprints counts 2x2",
         {fp({sx, sx, own("aaa", 2), own("aaa", 3), own("aaa", 4)}),
          fp({sx, own("bbb", 1), sx, own("bbb", 3), own("bbb", 4)})},
         0.0,
         2,
         "1.",
         std::nullopt},
        {"a line twice in one fingerprint and once in the other counts 2",
         {fp({sx, sx, own("aaa", 2), own("aaa", 3), own("aaa", 4)}),
          fp({sx, own("bbb", 1), own("bbb", 2), own("bbb", 3), own("bbb", 4)})},
         0.0,
         2,
         "..",
         std::nullopt},
        {"a line three times against once counts 3",
         {fp({sx, sx, sx, own("aaa", 3), own("aaa", 4)}),
          fp({own("bbb", 0), own("bbb", 1), own("bbb", 2), own("bbb", 3), sx})},
         0.0,
         2,
         "1.",
         std::nullopt},
        {"lines beyond the fifth are not fingerprint lines",
         {configBlock(concat(range("aaa", 0, 5), base)),
          configBlock(concat(range("bbb", 0, 5), base))},
         0.0,
         2,
         "..",
         std::nullopt},
        {"blank lines are dropped before taking the fingerprint",
         {u"\n  \n" + a20, u" \t\n" + a20 + u"\n\n"},
         1.0,
         2,
         "1.",
         1.0},
        {"lines are trimmed with the JS whitespace set",
         {a20, u"\u00a0\u3000" + configLine("x", 0) + u"\ufeff\n" + configBlock(range("x", 1, 20))},
         1.0,
         2,
         "1.",
         1.0},
        {"U+0085 is not trimmed",
         {a20, u"\u0085" + configLine("x", 0) + u"\n" + configBlock(range("x", 1, 20))},
         1.0,
         2,
         "..",
         std::nullopt},
        {"ASCII case is folded",
         {a20,
          fromAscii("ENTRY 0 OF THE X CONFIGURATION = ENABLED\n") + configBlock(range("x", 1, 20))},
         1.0,
         2,
         "1.",
         1.0},
        {"a single normalised line is never a candidate",
         {repeated(u'k', 250), repeated(u'k', 250) + u"\n\n  "},
         0.0,
         2,
         "..",
         std::nullopt},
        // Spec "need >= 2 normalised lines": such a message takes no part, even where blank padding
        // keeps the lengths close and the other fingerprint holds its line three times.
        {"a single-line message is not eligible",
         {repeated(u'k', 200) + u"\n" + repeated(u' ', 400),
          repeated(u'k', 200) + u"\n" + repeated(u'k', 200) + u"\n" + repeated(u'k', 200)},
         0.0,
         2,
         "..",
         std::nullopt},
        {"multiset counts repeated lines",
         {configBlock(concat(base, range("x", 0, 1))), a20},
         0.0,
         2,
         "1.",
         20.0 / 21.0},
        {"group of three, dedupStart = n keeps the last",
         {a20, b17, a20 + u"\n"},
         0.7,
         3,
         "22.",
         1.0},
        {"group of three keeps the first member in window",
         {a20, b17, a20 + u"\n"},
         0.7,
         1,
         "1.1",
         j17of23},
        {"group of three, dedupStart 0 keeps the last",
         {a20, b17, a20 + u"\n"},
         0.7,
         0,
         "22.",
         1.0},
    };
    for (const Case& c : cases) {
      CAPTURE(std::string(c.name));
      std::vector<Message> messages;
      for (const U16& content : c.contents) {
        messages.push_back(
            makeMessage(fromAscii(std::to_string(messages.size())), u"user", content));
      }
      DedupAnnotations annotations(messages.size());
      cce::analyzeFuzzyDuplicates(messages, c.dedupStart, kDefaultPreserve, c.threshold,
                                  annotations);
      CHECK(keepMap(annotations) == c.expected);
      for (std::size_t i = 0; i < annotations.size(); ++i) {
        if (!annotations[i]) continue;
        CAPTURE(i);
        REQUIRE(annotations[i]->similarity.has_value());
        CHECK(annotations[i]->contentLength == messages[i].content.size());
      }
      if (c.similarity) {
        REQUIRE(annotations[0]);
        CHECK(*annotations[0]->similarity == *c.similarity);
      }
    }
  }

  TEST_CASE("fuzzy dedup skips the same messages exact dedup skips") {
    const U16 a20 = configBlock(range("x", 0, 20));
    struct Case {
      const char* name;
      Message extra;  // placed at index 0; message 1 is a plain user copy of a20
    };
    Message system = makeMessage(u"s", u"system", a20);
    Message tools = makeMessage(u"t", u"assistant", a20);
    tools.hasToolCalls = true;
    Message marker = makeMessage(u"m", u"user", u"[summary: " + a20);
    Message shortOne = makeMessage(u"h", u"user", configBlock(range("x", 0, 4)));
    REQUIRE(shortOne.content.size() < 200);
    const Case cases[] = {
        {"preserved role", system}, {"tool_calls", tools}, {"marker", marker}, {"short", shortOne}};
    for (const Case& c : cases) {
      CAPTURE(std::string(c.name));
      std::vector<Message> messages = {c.extra, makeMessage(u"u", u"user", a20 + u"\n")};
      DedupAnnotations annotations(2);
      cce::analyzeFuzzyDuplicates(messages, 2, kDefaultPreserve, 0.0, annotations);
      CHECK(keepMap(annotations) == "..");
    }
  }

  TEST_CASE("fuzzy dedup leaves exact annotations alone and still considers exact keep targets") {
    const U16 a20 = configBlock(range("x", 0, 20));
    const U16 b17 = configBlock(concat(range("x", 0, 17), range("y", 17, 20)));
    std::vector<Message> messages = {makeMessage(u"A", u"tool", a20),
                                     makeMessage(u"A2", u"tool", a20),
                                     makeMessage(u"B", u"tool", b17)};
    DedupAnnotations annotations = cce::analyzeDuplicates(messages, 3, kDefaultPreserve);
    REQUIRE(keepMap(annotations) == "1..");
    cce::analyzeFuzzyDuplicates(messages, 3, kDefaultPreserve, 0.7, annotations);
    CHECK(keepMap(annotations) == "12.");
    CHECK_FALSE(annotations[0]->similarity.has_value());
    REQUIRE(annotations[1]->similarity.has_value());
    CHECK(*annotations[1]->similarity == 17.0 / 23.0);

    // With only the exact pair, the keep target has no fuzzy partner: nothing changes.
    messages.pop_back();
    annotations = cce::analyzeDuplicates(messages, 2, kDefaultPreserve);
    cce::analyzeFuzzyDuplicates(messages, 2, kDefaultPreserve, 0.0, annotations);
    CHECK(keepMap(annotations) == "1.");
    CHECK_FALSE(annotations[0]->similarity.has_value());
  }

  TEST_CASE("reproduces the dedup edge cases of the corpus") {
    // Expected references copied from each case's expected output (rw 0 unless noted).
    struct Case {
      const char* file;
      std::vector<const char16_t*> expected;  // per input message; nullptr: no annotation
    };
    const Case cases[] = {
        {"edge-fuzzy-unicode-casefold",
         {u"[cce:near-dup of B \u2014 377 chars, ~100% match]", nullptr, nullptr}},
        {"edge-fuzzy-chain-transitive",
         {u"[cce:near-dup of C \u2014 807 chars, ~82% match]", nullptr,
          u"[cce:near-dup of C \u2014 816 chars, ~90% match]", nullptr, nullptr, nullptr, nullptr}},
        {"edge-fuzzy-plus-exact",
         {u"[cce:dup of A2 \u2014 807 chars]", u"[cce:near-dup of B \u2014 807 chars, ~90% match]",
          nullptr, u"[cce:dup of X2 \u2014 1225 chars]", nullptr, nullptr}},
        {"edge-fuzzy-threshold-1",
         {u"[cce:near-dup of B \u2014 807 chars, ~100% match]", nullptr, nullptr, nullptr}},
        {"edge-fuzzy-threshold-0",
         {u"[cce:near-dup of C \u2014 807 chars, ~82% match]",
          u"[cce:near-dup of C \u2014 907 chars, ~82% match]", nullptr, nullptr}},
        {"edge-fuzzy-length-ratio-filter", {nullptr, nullptr, nullptr}},
        {"edge-fuzzy-fingerprint-miss", {nullptr, nullptr, nullptr}},
        {"edge-fuzzy-single-line-skipped", {nullptr, nullptr, nullptr}},
        // rw 3: t3 is the first copy at or after dedupStart = 5.
        {"edge-dedup-three-copies-rw3",
         {nullptr, u"[cce:dup of t3 \u2014 1225 chars]", nullptr,
          u"[cce:dup of t3 \u2014 1225 chars]", nullptr, nullptr, nullptr, nullptr}},
        // rw 1: system copies and tool_calls copies (c1, c2) are ineligible; r1..r3 group across
        // roles.
        {"edge-dedup-ineligible-and-cross-role",
         {nullptr, nullptr, nullptr, nullptr, u"[cce:dup of r3 \u2014 640 chars]",
          u"[cce:dup of r3 \u2014 640 chars]", nullptr, nullptr}},
    };
    for (const Case& c : cases) {
      CAPTURE(std::string(c.file));
      CorpusCase cc = loadCase(casesDir() / (std::string(c.file) + ".json"));
      REQUIRE(cc.skipReason.empty());
      REQUIRE(cc.messages.size() == c.expected.size());
      DedupAnnotations annotations = analyze(cc);
      for (std::size_t i = 0; i < c.expected.size(); ++i) {
        CAPTURE(i);
        std::optional<U16> ref = refFor(cc, annotations, i);
        CHECK(ref.has_value() == (c.expected[i] != nullptr));
        if (ref && c.expected[i]) CHECK(toUtf8(*ref) == toUtf8(c.expected[i]));
      }
    }
  }

  TEST_CASE("lower-casing a whole text gives the lines fuzzy dedup lower-cases one by one") {
    // Message::lowered rests on this: the JS layer lower-cases each text once, the engine then
    // splits and trims. The alphabet holds what could break it: Final_Sigma (whose context scan
    // skips case-ignorables such as U+0301, U+00AD, the apostrophe and U+FEFF, which trim also
    // removes), U+0130 (one unit, two lower-cased), and JavaScript's other whitespace.
    const char16_t alphabet[] = {u'A', u'b', u'Z', u'q', u'0', u' ', u'\t', u'\r', u'\n',
                                 u'\n', u'\'', 0x03A3, 0x03A3, 0x0391, 0x03C9, 0x0130, 0x0301,
                                 0x00AD, 0xFEFF, 0x00A0, 0x2028, 0x1E9E, 0x0049};
    cce::test::Rng rng{0x5EEDF00Dull};
    auto linesOf = [](cce::js::U16View text, bool lowerEach) {
      std::vector<U16> lines;
      for (cce::js::U16View line : cce::js::splitOn(text, u'\n')) {
        cce::js::U16View trimmed = cce::js::trimView(line);
        if (trimmed.empty()) continue;
        lines.push_back(lowerEach ? cce::js::toLowerCase(trimmed) : U16(trimmed));
      }
      return lines;
    };
    int withFinalSigma = 0;
    for (int round = 0; round < 4000; ++round) {
      U16 text;
      const int length = rng.below(24);
      for (int i = 0; i < length; ++i) text += alphabet[rng.below(static_cast<int>(std::size(alphabet)))];
      const U16 whole = cce::js::toLowerCase(text);
      if (whole.find(char16_t(0x03C2)) != U16::npos) ++withFinalSigma;
      CAPTURE(toUtf8(text));
      CHECK(linesOf(whole, false) == linesOf(text, true));
    }
    CHECK(withFinalSigma > 100);  // the context rule was exercised, not just plain mappings
  }

  TEST_CASE("fuzzy dedup reads the host's lowered text when a message carries one") {
    // Greek lines that differ only in case: equal once lower-cased with Final_Sigma (the last
    // letter of ΟΔΟΣ becomes ς), so the two messages are duplicates either way.
    U16 upper, lower;
    for (int k = 0; k < 16; ++k) {  // 16 lines: over the 200 units dedup considers
      const U16 n = fromAscii(std::to_string(k));
      upper += u"\u039F\u0394\u039F\u03A3 " + n + u" \u039A\u0391\u0399 \u03A3\u03A4\u039F\u039D\n";
      lower += u"\u03BF\u03B4\u03BF\u03C2 " + n + u" \u03BA\u03B1\u03B9 \u03C3\u03C4\u03BF\u03BD\n";
    }
    std::vector<Message> plain = {makeMessage(u"a", u"user", upper),
                                  makeMessage(u"b", u"user", lower)};
    std::vector<Message> helped = plain;
    for (Message& m : helped) m.lowered = cce::js::toLowerCase(m.content);
    for (const std::vector<Message>* messages : {&plain, &helped}) {
      DedupAnnotations annotations(2);
      cce::analyzeFuzzyDuplicates(*messages, 0, kDefaultPreserve, 0.85, annotations);
      CHECK(keepMap(annotations) == "1.");
      REQUIRE(annotations[0]);
      CHECK(*annotations[0]->similarity == 1.0);
      CHECK(annotations[0]->contentLength == upper.size());
    }
    // The lowered text is what is compared: a host that sends something else is believed.
    helped[1].lowered = u"something else entirely\nand a second line";
    DedupAnnotations annotations(2);
    cce::analyzeFuzzyDuplicates(helped, 0, kDefaultPreserve, 0.85, annotations);
    CHECK(keepMap(annotations) == "..");
  }

  TEST_CASE("a transitive fuzzy member reports its own similarity to the keep target") {
    CorpusCase cc = loadCase(casesDir() / "edge-fuzzy-chain-transitive.json");
    REQUIRE(cc.skipReason.empty());
    DedupAnnotations annotations = analyze(cc);
    REQUIRE(annotations[0]);
    REQUIRE(annotations[0]->similarity);
    CHECK(*annotations[0]->similarity < cc.threshold);
  }

  TEST_CASE("matches every dup reference in the corpus") {
    std::map<std::string, std::size_t> skipReasons;
    std::size_t cases = 0, refsExpected = 0, refsMatched = 0, annotated = 0, annotatedFound = 0;
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(casesDir())) {
      if (entry.path().extension() == ".json") files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    REQUIRE(files.size() >= 495);
    for (const auto& file : files) {
      CAPTURE(file.filename().string());
      CorpusCase c = loadCase(file);
      if (!c.skipReason.empty()) {
        ++skipReasons[c.skipReason];
        continue;
      }
      ++cases;
      DedupAnnotations annotations = analyze(c);
      std::map<U16, std::size_t> indexOf;
      for (std::size_t i = 0; i < c.messages.size(); ++i) indexOf[c.messages[i].idKey] = i;

      // Output side: every replacement the reference wrote is ours.
      std::map<std::size_t, U16> emitted;
      for (const auto& out : c.outputs) {
        bool dupLike = cce::js::startsWithAscii(out.content, "[cce:dup of ") ||
                       cce::js::startsWithAscii(out.content, "[cce:near-dup of ");
        if (!dupLike || !out.firstId) continue;
        auto it = indexOf.find(*out.firstId);
        REQUIRE(it != indexOf.end());
        const Message& source = c.messages[it->second];
        if (source.contentIsString && source.content == out.content) continue;  // kept as is
        ++refsExpected;
        emitted[it->second] = out.content;
        std::optional<U16> ref = refFor(c, annotations, it->second);
        CAPTURE(toUtf8(out.content));
        CHECK(ref.has_value());
        if (ref && *ref == out.content)
          ++refsMatched;
        else if (ref)
          CHECK(toUtf8(*ref) == toUtf8(out.content));
      }
      // Annotation side: outside the recency window, every annotation becomes a replacement.
      double recStart = static_cast<double>(c.messages.size()) - c.recencyWindow;
      for (std::size_t i = 0; i < annotations.size(); ++i) {
        if (!annotations[i]) continue;
        if (c.recencyWindow > 0 && static_cast<double>(i) >= recStart) continue;
        ++annotated;
        CAPTURE(i);
        CHECK(emitted.count(i) == 1);
        if (emitted.count(i)) ++annotatedFound;
      }
    }
    std::string skipped;
    for (const auto& [reason, count] : skipReasons) {
      skipped += " " + reason + ": " + std::to_string(count) + ";";
    }
    MESSAGE("corpus cases checked: " << cases << " (skipped" << skipped << "), dup references "
                                     << refsMatched << "/" << refsExpected
                                     << " matched, annotations found in output " << annotatedFound
                                     << "/" << annotated);
    CHECK(refsExpected > 100);
    CHECK(refsMatched == refsExpected);
  }

  TEST_CASE("handles 2,000 near-identical tool outputs") {
    // Every pair shares all five fingerprint lines: spec §8.2 (compat mode) visits n² / 2 pairs,
    // but pairs already in one group are never compared again, so only the first message's
    // comparisons are similarities.
    std::vector<Message> messages;
    const auto shared = range("build", 0, 19);
    for (int i = 0; i < 2000; ++i) {
      U16 content = configBlock(concat(shared, {{"item " + std::to_string(i), 19}}));
      messages.push_back(makeMessage(fromAscii("t" + std::to_string(i)), u"tool", content));
    }
    for (std::size_t perLine : {cce::kAllFuzzyCandidates, cce::kFuzzyCandidatesPerLine}) {
      CAPTURE(perLine);
      cce::FuzzyDedupWork work;
      DedupAnnotations annotations = cce::analyzeDuplicates(messages, 2000, kDefaultPreserve);
      cce::analyzeFuzzyDuplicates(messages, 2000, kDefaultPreserve, 0.85, annotations, perLine,
                                  &work);
      // 19 of 21 distinct lines shared: one group, kept at the last message (dedupStart = n).
      std::size_t fuzzy = 0;
      for (std::size_t i = 0; i + 1 < annotations.size(); ++i) {
        CAPTURE(i);
        REQUIRE(annotations[i]);
        REQUIRE(annotations[i]->similarity);
        fuzzy +=
            annotations[i]->duplicateOfIndex == 1999 && *annotations[i]->similarity == 19.0 / 21.0;
      }
      CHECK_FALSE(annotations[1999]);
      CHECK(fuzzy == 1999);
      CHECK(work.similarities == 1999);
      CHECK(work.pairsVisited == (perLine == cce::kAllFuzzyCandidates
                                      ? std::size_t{2000} * 1999 / 2
                                      : std::size_t{128} * (2000 - 128) + 128 * 127 / 2));
    }
  }

  TEST_CASE("groups 4,585 messages of 5.5 M units") {
    // Content i is 1,200 filler units plus (i mod 1500): groups of 3 or 4 identical messages.
    std::vector<Message> messages;
    for (int i = 0; i < 4585; ++i) {
      U16 content = repeated(u'f', 1200) + fromAscii(std::to_string(i % 1500));
      messages.push_back(makeMessage(fromAscii(std::to_string(i)), u"user", content));
    }
    DedupAnnotations annotations = cce::analyzeDuplicates(messages, 4581, kDefaultPreserve);
    std::size_t count = 0;
    for (const auto& a : annotations) count += a.has_value();
    CHECK(count == 4585 - 1500);
    REQUIRE(annotations[10]);
    CHECK(annotations[10]->duplicateOfIndex == 4510);  // no member at or after 4581: the last
    REQUIRE(annotations[82]);
    CHECK(annotations[82]->duplicateOfIndex == 4582);  // the first member at or after 4581
    REQUIRE(annotations[3083]);
    CHECK(annotations[3083]->duplicateOfIndex == 4583);
    CHECK_FALSE(annotations[4583]);
  }

  // ---- growth (issue 21 item 6) ---------------------------------------------------------------

  TEST_CASE("fuzzy dedup work grows linearly in the default mode, quadratically under the spec") {
    // Near-duplicates (19 of 20 lines shared), and messages that share their first five lines and
    // nothing else: every pair is a candidate. Work = pairs visited + similarities computed.
    struct Case {
      const char* name;
      U16 (*content)(int i);
      bool matches;
    };
    const Case cases[] = {
        {"near-duplicates",
         [](int i) {
           return configBlock(concat(range("build", 0, 19), {{"item " + std::to_string(i), 19}}));
         },
         true},
        {"a shared five-line header",
         [](int i) {
           const std::string body = "body " + std::to_string(i);
           return configBlock(concat(range("header", 0, 5), range(body, 5, 20)));
         },
         false},
    };
    auto run = [](const Case& c, int n, std::size_t perLine, DedupAnnotations& annotations) {
      std::vector<Message> messages;
      for (int i = 0; i < n; ++i) {
        messages.push_back(makeMessage(fromAscii("m" + std::to_string(i)), u"tool", c.content(i)));
      }
      cce::FuzzyDedupWork work;
      annotations.assign(messages.size(), std::nullopt);
      cce::analyzeFuzzyDuplicates(messages, 0, kDefaultPreserve, 0.85, annotations, perLine, &work);
      return work;
    };
    for (const Case& c : cases) {
      CAPTURE(std::string(c.name));
      DedupAnnotations bounded, all;
      const cce::FuzzyDedupWork small = run(c, 500, cce::kFuzzyCandidatesPerLine, bounded);
      const cce::FuzzyDedupWork large = run(c, 2000, cce::kFuzzyCandidatesPerLine, bounded);
      const double growth = double(large.pairsVisited + large.similarities) /
                            double(small.pairsVisited + small.similarities);
      MESSAGE(c.name << ": work x" << growth << " from 500 to 2,000 messages");
      // Linear: 4.4 here (the last 128 messages meet fewer); the spec's pass: 16.
      CHECK(growth < 5);
      CHECK(large.pairsVisited <= 2000 * cce::kFuzzyCandidatesPerLine);
      // The spec's count, kept by compat mode, and the same groups on these inputs.
      const cce::FuzzyDedupWork spec = run(c, 2000, cce::kAllFuzzyCandidates, all);
      CHECK(spec.pairsVisited == std::size_t{2000} * 1999 / 2);
      CHECK(keepMap(bounded) == keepMap(all));
      std::size_t annotated = 0;
      for (const auto& a : bounded) annotated += a.has_value();
      CHECK(annotated == (c.matches ? 1999u : 0u));
    }
  }

  TEST_CASE("the default mode's bound still compares pairs that share a rarer fingerprint line") {
    // 300 messages share one header line; two far apart (0 and 299) also share two lines no one
    // else has, and match. The header's list meets only the nearest 128, but message 299 is met
    // through the rare lines and its overlap counts the header too (3 lines).
    std::vector<Message> messages;
    const auto pairLines = range("rare", 0, 2);
    for (int i = 0; i < 300; ++i) {
      const bool pair = i == 0 || i == 299;
      auto lines = concat(range("header", 0, 1),
                          pair ? pairLines : range("filler " + std::to_string(i), 1, 3));
      lines = concat(lines, range(pair ? "body" : "other " + std::to_string(i), 3, 20));
      messages.push_back(makeMessage(fromAscii(std::to_string(i)), u"user", configBlock(lines)));
    }
    DedupAnnotations annotations(messages.size());
    cce::analyzeFuzzyDuplicates(messages, 0, kDefaultPreserve, 0.85, annotations,
                                cce::kFuzzyCandidatesPerLine);
    REQUIRE(annotations[0]);
    CHECK(annotations[0]->duplicateOfIndex == 299);
    for (std::size_t i = 1; i < annotations.size(); ++i) CHECK_FALSE(annotations[i]);
  }

  TEST_CASE("the default mode's bound leaves apart two matches separated by 128 other messages "
            "with the same first lines") {
    // The degenerate case the bound gives up (documented in dedup.h): messages 0 and 200 match,
    // but every line of their fingerprint recurs in the 199 messages between them, none of which
    // matches either. Compat mode compares all pairs and groups them, as the reference does.
    std::vector<Message> messages;
    for (int i = 0; i <= 200; ++i) {
      const std::string body = i == 0 || i == 200 ? "body" : "body " + std::to_string(i);
      const U16 content = configBlock(concat(range("header", 0, 5), range(body, 5, 20)));
      messages.push_back(makeMessage(fromAscii(std::to_string(i)), u"user", content));
    }
    DedupAnnotations bounded(messages.size()), all(messages.size());
    cce::analyzeFuzzyDuplicates(messages, 0, kDefaultPreserve, 0.85, bounded,
                                cce::kFuzzyCandidatesPerLine);
    cce::analyzeFuzzyDuplicates(messages, 0, kDefaultPreserve, 0.85, all, cce::kAllFuzzyCandidates);
    CHECK_FALSE(bounded[0]);
    REQUIRE(all[0]);
    CHECK(all[0]->duplicateOfIndex == 200);
  }
}

TEST_CASE("findExactDuplicates groups as interning every eligible content would") {
  // Only contents whose length another eligible content shares are interned (equal contents have
  // equal lengths); the groups and their order of first appearance must be those of the plain
  // definition: every eligible content in message order, a group per distinct content.
  std::uint64_t seed = 0x9E3779B97F4A7C15ull;
  auto next = [&seed](std::uint64_t bound) {
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return seed % bound;
  };
  for (int round = 0; round < 300; ++round) {
    // A few base texts whose lengths often agree, and variants that differ in one unit.
    std::vector<U16> pool;
    const std::size_t kinds = 1 + next(8);
    for (std::size_t k = 0; k < kinds; ++k) {
      U16 text = repeated(u'a' + static_cast<char16_t>(next(3)), 195 + next(12));
      if (next(2) == 0) text[next(text.size())] = u'z';
      pool.push_back(text);
    }
    std::vector<Message> messages;
    const std::size_t count = next(30);
    for (std::size_t i = 0; i < count; ++i) {
      U16 content = pool[next(pool.size())];
      const std::uint64_t twist = next(10);
      if (twist == 0) content = u"[summary: " + content;
      const U16 role = twist == 1 ? U16(u"system") : U16(u"user");
      messages.push_back(makeMessage(fromAscii(std::to_string(i)), role, content));
      if (twist == 2) messages.back().hasToolCalls = true;
    }
    const std::vector<U16> preserve = {u"system"};
    std::vector<U16> distinct;
    std::vector<std::vector<std::size_t>> expected;
    for (std::size_t i = 0; i < messages.size(); ++i) {
      const Message& m = messages[i];
      if (m.role.text == u"system" || m.hasToolCalls || m.content.size() < 200 ||
          cce::startsWithCompressionMarker(m.content)) {
        continue;
      }
      const U16 content(std::u16string_view(m.content));
      const std::size_t g = static_cast<std::size_t>(
          std::find(distinct.begin(), distinct.end(), content) - distinct.begin());
      if (g == distinct.size()) {
        distinct.push_back(content);
        expected.emplace_back();
      }
      expected[g].push_back(i);
    }
    expected.erase(std::remove_if(expected.begin(), expected.end(),
                                  [](const std::vector<std::size_t>& g) { return g.size() < 2; }),
                   expected.end());
    CAPTURE(round);
    CHECK(cce::findExactDuplicates(messages, preserve) == expected);
  }
}
