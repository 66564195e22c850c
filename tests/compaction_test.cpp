// SPDX-License-Identifier: MIT
// Tests for non-destructive compaction: projection, stacking, extension, bounds, JSON.
#include <doctest/doctest.h>

#include <cctype>
#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "compaction/bench.h"
#include "compaction/compact.h"
#include "jscompat/number.h"
#include "token_estimate.h"
#include "compaction/compaction_json.h"
#include "compaction/model.h"
#include "compaction/projection.h"
#include "jscompat/json_writer.h"
#include "jscompat/string.h"
#include "json_io.h"
#include "summarizer.h"
#include "types.h"

#ifndef CCE_SOURCE_DIR
#define CCE_SOURCE_DIR "."
#endif
#ifndef CCE_TESTDATA_DIR
#define CCE_TESTDATA_DIR "build/testdata"
#endif

namespace {

using cce::js::fromUtf8;
using cce::js::toJson;
using cce::js::toUtf8;
using cce::json::Value;

std::string readText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string fixture(const char* name) {
  std::string text = readText(std::string(CCE_SOURCE_DIR) + "/tests/golden/compaction/" + name);
  REQUIRE_MESSAGE(!text.empty(), "missing fixture " << name);
  return text;
}

Value parse(const std::string& text) {
  cce::Result<Value> v = cce::parseJson(text);
  REQUIRE_MESSAGE(v.ok(), (v.ok() ? "" : v.error().message) << " in " << text.substr(0, 200));
  return v.value();
}

// Runs a request that must succeed and returns its output.
Value output(const std::string& request) {
  Value envelope = parse(cce::compactionJson(request));
  const Value* ok = envelope.find(u"ok");
  REQUIRE_MESSAGE((ok != nullptr && ok->boolean && envelope.find(u"output") != nullptr),
                  toJson(envelope));
  return *envelope.find(u"output");
}

// Runs a request that must fail; returns "code: message @ path".
std::string failure(const std::string& request) {
  Value envelope = parse(cce::compactionJson(request));
  const Value* error = envelope.find(u"error");
  REQUIRE_MESSAGE(error != nullptr, toJson(envelope));
  return toUtf8(error->find(u"code")->string) + ": " + toUtf8(error->find(u"message")->string) +
         " @ " + toUtf8(error->find(u"path")->string);
}

std::string text(const Value& v) { return v.isString() ? toUtf8(v.string) : toJson(v); }

// One line per event: "type content" / "toolRequest id name args" / "toolResponse id ok|error: x".
std::string describeEvent(const Value& e) {
  const std::string type = toUtf8(e.find(u"type")->string);
  const Value* content = e.find(u"content");
  if (type == "toolRequest") {
    return type + " " + text(*e.find(u"id")) + " " + text(*e.find(u"name")) + " " +
           text(*e.find(u"arguments"));
  }
  if (type == "toolResponse") {
    const Value* ok = e.find(u"ok");
    return type + " " + text(*e.find(u"id")) + " " +
           (ok == nullptr || ok->boolean ? "ok" : "error") + ": " + text(*content);
  }
  return type + " " + (content != nullptr ? text(*content) : "");
}

// The events of a view (output.view of project/dryRun), turn by turn.
std::vector<std::string> describeView(const Value& view) {
  std::vector<std::string> lines;
  for (const Value& turn : view.find(u"turns")->items) {
    for (const Value& e : turn.find(u"events")->items) lines.push_back(describeEvent(e));
  }
  return lines;
}

std::vector<std::string> describeTurn(const Value& view, double turn) {
  for (const Value& t : view.find(u"turns")->items) {
    if (t.find(u"turn")->number != turn) continue;
    std::vector<std::string> lines;
    for (const Value& e : t.find(u"events")->items) lines.push_back(describeEvent(e));
    return lines;
  }
  return {"(turn not in view)"};
}

std::string join(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

// A conversation of `turns` turns; turn t: user "u<t>", reasoning "r<t>", a tool call "c<t>" of
// tool "read" (even t) or "write" (odd t) and its response, assistant "a<t>". Turn t starts at
// hour t of 2025-07-17 (UTC).
std::string syntheticConversation(int turns, const std::string& compactions = "[]",
                                  bool timestamps = true) {
  std::string out = "{\"turns\":[";
  for (int t = 0; t < turns; ++t) {
    const std::string n = std::to_string(t);
    const std::string tool = t % 2 == 0 ? "read" : "write";
    char ts[64];
    std::snprintf(ts, sizeof ts, "2025-07-%02dT%02d:00:00Z", 17 + t / 24, t % 24);
    if (t > 0) out += ",";
    out += "{";
    if (timestamps) out += "\"timestamp\":\"" + std::string(ts) + "\",";
    out += "\"events\":[{\"type\":\"user\",\"content\":\"u" + n +
           "\"},{\"type\":\"reasoning\",\"content\":\"r" + n +
           "\"},{\"type\":\"toolRequest\",\"id\":\"c" + n + "\",\"name\":\"" + tool +
           "\",\"arguments\":{\"path\":\"p" + n + "\"}},{\"type\":\"toolResponse\",\"id\":\"c" + n +
           "\",\"ok\":true,\"content\":\"out" + n + "\"},{\"type\":\"assistant\",\"content\":\"a" +
           n + "\"}]}";
  }
  return out + "],\"compactions\":" + compactions + "}";
}

std::string projectRequest(const std::string& conversation) {
  return "{\"op\":\"project\",\"conversation\":" + conversation + "}";
}

// The conversation with `compaction` appended to its log.
std::string appended(const std::string& conversation, const Value& compaction) {
  Value doc = parse(conversation);
  doc.find(u"compactions")->items.push_back(compaction);
  return toJson(doc);
}

std::string withLog(const std::string& conversation, const Value& compactions) {
  Value doc = parse(conversation);
  doc.set(u"compactions", compactions);
  return toJson(doc);
}

const char* const kRfdHints =
    "\"tools\":{\"fs_read_file\":{\"request\":\"keep\"},\"fs_create_file\":{\"request\":"
    "\"strip\"},\"fs_modify_file\":{\"request\":\"strip\"}}";

}  // namespace

TEST_SUITE("compaction") {
  TEST_CASE("projects the RFD example under the default profile: reasoning gone, tools compacted") {
    const std::string conv = fixture("rfd_example.json");
    Value made = output("{\"op\":\"compact\",\"profile\":\"default\"," + std::string(kRfdHints) +
                        ",\"conversation\":" + conv + "}");
    const Value& compaction = *made.find(u"compaction");
    CHECK(compaction.find(u"fromTurn")->number == 0);
    CHECK(compaction.find(u"toTurn")->number == 2);  // keepLast 3 of 6 turns
    CHECK(made.find(u"index")->number == 0);
    Value view = *output(projectRequest(appended(conv, compaction))).find(u"view");
    const std::vector<std::string> expected = {
        "user set up the project",
        "assistant I'll create the project structure.",
        R"(toolRequest 1 fs_create_file {"path":"[compacted]","content":"[compacted]"})",
        "toolResponse 1 ok: [compacted] fs_create_file: success",
        "assistant Created src/main.rs with a basic setup.",
        "user add error handling",
        R"(toolRequest 2 fs_read_file {"path":"src/main.rs"})",
        "toolResponse 2 ok: [compacted] fs_read_file: success",
        R"(toolRequest 3 fs_modify_file {"path":"[compacted]","patch":"[compacted]"})",
        "toolResponse 3 ok: [compacted] fs_modify_file: success",
        "assistant Added error handling to main.",
        "user now add logging",
        R"(toolRequest 4 fs_modify_file {"path":"[compacted]","patch":"[compacted]"})",
        "toolResponse 4 ok: [compacted] fs_modify_file: success",
        "assistant Added tracing-based logging.",
        "user run the tests",
        "toolRequest 5 cargo_test {}",
        "toolResponse 5 error: 1 test failed",
        "assistant One test fails.",
        "user fix it",
        "assistant Fixed.",
        "user thanks",
        "assistant You are welcome.",
    };
    CHECK(join(describeView(view)) == join(expected));
  }

  TEST_CASE("projects the RFD example under the heavy profile as one summary pair") {
    const std::string conv = fixture("rfd_example.json");
    const std::string request =
        "{\"op\":\"compact\",\"profile\":\"heavy\",\"conversation\":" + conv +
        ",\"host\":{\"summarizer\":true";
    // First call: the host is asked for the summary of the raw events of turns 0..2.
    Value pending = parse(cce::compactionJson(request + "}}"));
    const Value* asked = pending.find(u"pending");
    REQUIRE(asked != nullptr);
    const std::string input = toUtf8(asked->find(u"summaries")->items[0].find(u"text")->string);
    CHECK(input.find("User: set up the project") == 0);
    CHECK(input.find("Reasoning: <500 tokens of thinking>") != std::string::npos);
    CHECK(input.find("Tool result fs_modify_file (success): <250 lines of diff>") !=
          std::string::npos);
    CHECK(input.find("run the tests") == std::string::npos);         // turn 3 is kept
    const double budget = fromUtf8(input).size() < 600 ? 200 : 400;  // the engine's rule
    CHECK(asked->find(u"summaries")->items[0].find(u"budget")->number == budget);
    // Second call with the answer.
    const std::string summary =
        "Set up a Rust project at src/main.rs with error handling and tracing-based logging.";
    Value made = output(request + ",\"summaries\":[\"" + summary + "\"]}}");
    Value view = *output(projectRequest(appended(conv, *made.find(u"compaction")))).find(u"view");
    const std::vector<std::string> expected = {
        "user [Summary of previous conversation]",
        "assistant " + summary,
        "user run the tests",
        "toolRequest 5 cargo_test {}",
        "toolResponse 5 error: 1 test failed",
        "assistant One test fails.",
        "user fix it",
        "assistant Fixed.",
        "user thanks",
        "assistant You are welcome.",
    };
    CHECK(join(describeView(view)) == join(expected));
    const Value& first = view.find(u"turns")->items[0];
    CHECK(toJson(*first.find(u"summaryOf")) == R"({"fromTurn":0,"toTurn":2})");
    CHECK(first.find(u"events")->items[1].find(u"compactedBy")->number == 0);
  }

  TEST_CASE("summarizes deterministically with the engine's summarizer and budget rule") {
    struct Case {
      const char* name;
      const char* answers;  // host.summaries, or nullptr for no host
      bool deterministic;
    };
    const Case cases[] = {
        {"no host summarizer", nullptr, true},
        {"the host summarizer failed", "[null]", true},
        {"the host answered an empty string", "[\"\"]", true},
        {"the host answered something longer than the input", "[\"LONG\"]", true},
        {"the host answered a short summary", "[\"short\"]", false},
    };
    const std::string conv = syntheticConversation(3);
    // The summarizer input for turns 0..1, written out by hand from the documented format.
    const std::u16string input =
        u"User: u0\n\nReasoning: r0\n\nTool call read: {\"path\":\"p0\"}\n\nTool result read "
        u"(success): out0\n\nAssistant: a0\n\nUser: u1\n\nReasoning: r1\n\nTool call write: "
        u"{\"path\":\"p1\"}\n\nTool result write (success): out1\n\nAssistant: a1";
    for (const Case& c : cases) {
      CAPTURE(c.name);
      std::string answers = c.answers ? c.answers : "";
      if (answers == "[\"LONG\"]") answers = "[\"" + std::string(input.size() + 1, 'x') + "\"]";
      const std::string host =
          c.answers ? ",\"host\":{\"summarizer\":true,\"summaries\":" + answers + "}" : "";
      Value made = output("{\"op\":\"compact\",\"summary\":true,\"from\":0,\"to\":1" + host +
                          ",\"conversation\":" + conv + "}");
      const std::u16string summary =
          made.find(u"compaction")->find(u"summary")->find(u"summary")->string;
      CHECK(summary == (c.deterministic ? cce::summarize(input, 200) : u"short"));
    }
  }

  TEST_CASE("stacks compactions per content type with the RFD's table") {
    // A: summary of turns 0..20 (older); B: tool responses stripped over 0..30 (newer).
    const std::string log = R"([{"timestamp":"2025-07-18T00:00:00Z","fromTurn":0,"toTurn":20,)"
                            R"("summary":{"summary":"S"}},)"
                            R"({"timestamp":"2025-07-19T00:00:00Z","fromTurn":0,"toTurn":30,)"
                            R"("toolCalls":"strip-responses"}])";
    Value view = *output(projectRequest(syntheticConversation(32, log))).find(u"view");
    struct Row {
      double turn;
      std::vector<std::string> events;
    };
    const Row rows[] = {
        {0, {"user [Summary of previous conversation]", "assistant S"}},  // A: summarize
        {5, {"(turn not in view)"}},                                      // folded into A
        {25,
         {"user u25", "reasoning r25", R"(toolRequest c25 write {"path":"p25"})",
          "toolResponse c25 ok: [compacted] write: success", "assistant a25"}},  // B strips
        {31,
         {"user u31", "reasoning r31", R"(toolRequest c31 write {"path":"p31"})",
          "toolResponse c31 ok: out31", "assistant a31"}},  // outside both
    };
    for (const Row& r : rows) {
      CAPTURE(r.turn);
      CHECK(join(describeTurn(view, r.turn)) == join(r.events));
    }
    CHECK(view.find(u"turns")->items.size() == 1 + 11);  // the summary turn, then turns 21..31
  }

  TEST_CASE("resolves overlapping overlays by recency, per content type") {
    struct Case {
      const char* name;
      const char* log;
      std::vector<std::string> turn1;  // the events of turn 1 in the view
    };
    const Case cases[] = {
        {"a newer strip-responses un-strips the requests of an older strip",
         R"([{"fromTurn":0,"toTurn":2,"toolCalls":"strip"},
             {"fromTurn":1,"toTurn":1,"toolCalls":"strip-responses"}])",
         {"user u1", "reasoning r1", R"(toolRequest c1 write {"path":"p1"})",
          "toolResponse c1 ok: [compacted] write: success", "assistant a1"}},
        {"an older strip loses to a newer omit",
         R"([{"fromTurn":0,"toTurn":2,"toolCalls":"strip"},
             {"fromTurn":1,"toTurn":2,"toolCalls":"omit"}])",
         {"user u1", "reasoning r1", "assistant a1"}},
        {"timestamps beat log order",
         R"([{"timestamp":2000,"fromTurn":1,"toTurn":1,"toolCalls":"omit"},
             {"timestamp":1000,"fromTurn":0,"toTurn":2,"toolCalls":"strip-requests"}])",
         {"user u1", "reasoning r1", "assistant a1"}},
        {"equal timestamps fall back to log order",
         R"([{"timestamp":1000,"fromTurn":1,"toTurn":1,"toolCalls":"omit"},
             {"timestamp":1000,"fromTurn":0,"toTurn":2,"toolCalls":"strip-requests"}])",
         {"user u1", "reasoning r1", R"(toolRequest c1 write {"path":"[compacted]"})",
          "toolResponse c1 ok: out1", "assistant a1"}},
        {"policies for different types compose",
         R"([{"fromTurn":0,"toTurn":2,"reasoning":"strip"},
             {"fromTurn":1,"toTurn":2,"toolCalls":{"request":false,"response":true}}])",
         {"user u1", R"(toolRequest c1 write {"path":"p1"})",
          "toolResponse c1 ok: [compacted] write: success", "assistant a1"}},
        {"an absent policy has no opinion",
         R"([{"fromTurn":0,"toTurn":2,"toolCalls":"strip"},
             {"fromTurn":1,"toTurn":1,"reasoning":"strip","toolCalls":null}])",
         {"user u1", R"(toolRequest c1 write {"path":"[compacted]"})",
          "toolResponse c1 ok: [compacted] write: success", "assistant a1"}},
        {"an older summary beats a newer strip",
         R"([{"fromTurn":1,"toTurn":1,"summary":{"summary":"S1"}},
             {"fromTurn":0,"toTurn":2,"toolCalls":"omit","reasoning":"strip"}])",
         {"user [Summary of previous conversation]", "assistant S1"}},
        {"a newer summary nested in an older one owns its turns",
         R"([{"fromTurn":0,"toTurn":2,"summary":{"summary":"outer"}},
             {"fromTurn":1,"toTurn":1,"summary":{"summary":"inner"}}])",
         {"user [Summary of previous conversation]", "assistant inner"}},
        {"a newer summary containing an older one hides it",
         R"([{"fromTurn":1,"toTurn":1,"summary":{"summary":"inner"}},
             {"fromTurn":1,"toTurn":2,"summary":{"summary":"outer"}}])",
         {"user [Summary of previous conversation]", "assistant outer"}},
    };
    for (const Case& c : cases) {
      CAPTURE(c.name);
      Value view = *output(projectRequest(syntheticConversation(3, c.log))).find(u"view");
      CHECK(join(describeTurn(view, 1)) == join(c.turn1));
    }
  }

  TEST_CASE("applies per-tool hints over a strip policy but not over omit") {
    struct Case {
      const char* policy;
      const char* hint;  // for tool "read" (turn 0)
      const char* request;
      const char* response;
    };
    const Case cases[] = {
        {"\"strip\"", "{}", R"({"path":"[compacted]"})", "[compacted] read: success"},
        {"\"strip\"", R"({"request":"keep"})", R"({"path":"p0"})", "[compacted] read: success"},
        {"\"strip\"", R"({"response":"keep"})", R"({"path":"[compacted]"})", "out0"},
        {"\"strip-responses\"", R"({"request":"strip"})", R"({"path":"[compacted]"})",
         "[compacted] read: success"},
        {"\"strip-requests\"", R"({"request":"keep","response":"strip"})", R"({"path":"p0"})",
         "[compacted] read: success"},
        {"{\"request\":false,\"response\":false}", R"({"response":"strip"})", R"({"path":"p0"})",
         "[compacted] read: success"},
        {"\"omit\"", R"({"request":"keep","response":"keep"})", nullptr, nullptr},
    };
    for (const Case& c : cases) {
      CAPTURE(c.policy);
      CAPTURE(c.hint);
      const std::string log = std::string("[{\"fromTurn\":0,\"toTurn\":1,\"toolCalls\":") +
                              c.policy + ",\"tools\":{\"read\":" + c.hint +
                              ",\"write\":{\"request\":\"keep\"}}}]";
      Value view = *output(projectRequest(syntheticConversation(2, log))).find(u"view");
      std::vector<std::string> expected = {"user u0", "reasoning r0"};
      if (c.request != nullptr) {
        expected.push_back(std::string("toolRequest c0 read ") + c.request);
        expected.push_back(std::string("toolResponse c0 ok: ") + c.response);
      }
      expected.push_back("assistant a0");
      CHECK(join(describeTurn(view, 0)) == join(expected));
    }
  }

  TEST_CASE("keeps tool requests and responses together when one side goes") {
    // Turn 0 calls c0 but its response arrives in turn 1 (an interrupted turn resumed later).
    const std::string conv = R"({"turns":[
      {"events":[{"type":"user","content":"go"},
                 {"type":"toolRequest","id":"c0","name":"bash","arguments":{"cmd":"make"}}]},
      {"events":[{"type":"user","content":"still there?"},
                 {"type":"toolResponse","id":"c0","ok":false,"content":"make: error"},
                 {"type":"assistant","content":"The build failed."}]},
      {"events":[{"type":"user","content":"bye"}]}],"compactions":)";
    struct Case {
      const char* name;
      const char* log;
      std::vector<std::string> events;
    };
    const Case cases[] = {
        {"omitting the request removes its response outside the range",
         R"([{"fromTurn":0,"toTurn":0,"toolCalls":"omit"}])",
         {"user go", "user still there?", "assistant The build failed.", "user bye"}},
        {"omitting the response removes its request outside the range",
         R"([{"fromTurn":1,"toTurn":1,"toolCalls":"omit"}])",
         {"user go", "user still there?", "assistant The build failed.", "user bye"}},
        {"summarizing the request removes its response",
         R"([{"fromTurn":0,"toTurn":0,"summary":{"summary":"S"}}])",
         {"user [Summary of previous conversation]", "assistant S", "user still there?",
          "assistant The build failed.", "user bye"}},
        {"stripping keeps both sides",
         R"([{"fromTurn":0,"toTurn":1,"toolCalls":"strip"}])",
         {"user go", R"(toolRequest c0 bash {"cmd":"[compacted]"})", "user still there?",
          "toolResponse c0 error: [compacted] bash: error", "assistant The build failed.",
          "user bye"}},
    };
    for (const Case& c : cases) {
      CAPTURE(c.name);
      Value view = *output(projectRequest(conv + c.log + "}")).find(u"view");
      CHECK(join(describeView(view)) == join(c.events));
    }
  }

  TEST_CASE("keeps system events of a summarized range before the summary pair") {
    const std::string conv = R"({"turns":[
      {"events":[{"type":"system","content":"be brief"},{"type":"user","content":"a"},
                 {"type":"assistant","content":"b"}]},
      {"events":[{"type":"user","content":"c"},{"type":"system","content":"mode: review"},
                 {"type":"other","role":"user","blob":1},{"type":"assistant","content":"d"}]},
      {"events":[{"type":"user","content":"e"}]}],
      "compactions":[{"fromTurn":0,"toTurn":1,"summary":{"summary":"S"}}]})";
    Value view = *output(projectRequest(conv)).find(u"view");
    CHECK(join(describeView(view)) ==
          join({"system be brief", "system mode: review", "user [Summary of previous conversation]",
                "assistant S", "user e"}));
  }

  TEST_CASE("auto-extends a new summary until no summary partially overlaps it") {
    struct Case {
      const char* name;
      const char* existing;  // compaction log
      int from;
      int to;
      int expectedFrom;
      int expectedTo;
    };
    const Case cases[] = {
        {"overlap on the left", R"([{"fromTurn":2,"toTurn":5,"summary":{"summary":"S"}}])", 4, 8, 2,
         8},
        {"overlap on the right", R"([{"fromTurn":2,"toTurn":5,"summary":{"summary":"S"}}])", 0, 3,
         0, 5},
        {"chained overlaps", R"([{"fromTurn":2,"toTurn":5,"summary":{"summary":"S"}},
                                 {"fromTurn":7,"toTurn":9,"summary":{"summary":"T"}}])",
         4, 8, 2, 9},
        {"an extension that creates a new overlap",
         R"([{"fromTurn":0,"toTurn":3,"summary":{"summary":"S"}},
             {"fromTurn":5,"toTurn":8,"summary":{"summary":"T"}}])",
         3, 5, 0, 8},
        {"containing the old summary", R"([{"fromTurn":2,"toTurn":5,"summary":{"summary":"S"}}])",
         0, 9, 0, 9},
        {"inside the old summary", R"([{"fromTurn":2,"toTurn":5,"summary":{"summary":"S"}}])", 3, 4,
         3, 4},
        {"disjoint", R"([{"fromTurn":2,"toTurn":5,"summary":{"summary":"S"}}])", 6, 8, 6, 8},
        {"strip overlays never extend", R"([{"fromTurn":2,"toTurn":5,"toolCalls":"strip"}])", 4, 8,
         4, 8},
    };
    for (const Case& c : cases) {
      CAPTURE(c.name);
      const std::string conv = syntheticConversation(12, c.existing);
      const std::string request =
          "{\"op\":\"compact\",\"summary\":true,\"from\":" + std::to_string(c.from) +
          ",\"to\":" + std::to_string(c.to) +
          ",\"host\":{\"summarizer\":true},\"conversation\":" + conv + "}";
      // The summarizer is asked about the raw events of the extended range.
      Value pending = parse(cce::compactionJson(request));
      REQUIRE(pending.find(u"pending") != nullptr);
      const std::string input =
          toUtf8(pending.find(u"pending")->find(u"summaries")->items[0].find(u"text")->string);
      CHECK(input.find("User: u" + std::to_string(c.expectedFrom) + "\n") == 0);
      CHECK(input.size() - input.rfind("Assistant: a" + std::to_string(c.expectedTo)) ==
            std::string("Assistant: a" + std::to_string(c.expectedTo)).size());
      CHECK(input.find("[Summary") == std::string::npos);  // never a projected view
      Value made =
          output("{\"op\":\"compact\",\"summary\":true,\"from\":" + std::to_string(c.from) +
                 ",\"to\":" + std::to_string(c.to) + ",\"conversation\":" + conv + "}");
      const Value& k = *made.find(u"compaction");
      CHECK(k.find(u"fromTurn")->number == c.expectedFrom);
      CHECK(k.find(u"toTurn")->number == c.expectedTo);
      const bool extended = c.expectedFrom != c.from || c.expectedTo != c.to;
      CHECK(made.find(u"extended")->boolean == extended);
      CHECK((k.find(u"requested") != nullptr) == extended);
    }
  }

  TEST_CASE("refuses a given summary text when the range had to be extended") {
    const std::string conv =
        syntheticConversation(6, R"([{"fromTurn":2,"toTurn":4,"summary":{"summary":"S"}}])");
    CHECK(
        failure(R"({"op":"compact","summary":{"summary":"mine"},"from":0,"to":3,"conversation":)" +
                conv + "}")
            .find("InvalidInput: the summary range must extend to turns 0..4") == 0);
    Value ok = output(R"({"op":"compact","summary":{"summary":"mine"},"from":0,"to":4,)"
                      R"("conversation":)" +
                      conv + "}");
    CHECK(ok.find(u"compaction")->find(u"summary")->find(u"summary")->string == u"mine");
  }

  TEST_CASE("resolves every kind of range bound to absolute turns") {
    // Ten turns at 00:00, 01:00, ... 09:00; "now" is 09:30 unless a case drops the timestamp.
    struct Case {
      const char* name;
      const char* fields;
      const char* log;
      const char* expected;  // "from..to", "none" (nothing to compact) or the start of the error
    };
    const char* kNoLog = "[]";
    const char* kLog = R"([{"fromTurn":0,"toTurn":3,"reasoning":"strip"}])";
    const Case cases[] = {
        {"absolute", R"("from":2,"to":5)", kNoLog, "2..5"},
        {"negative: turns before the last", R"("from":-3,"to":-1)", kNoLog, "6..8"},
        {"negative past the start clamps", R"("from":-20,"to":3)", kNoLog, "0..3"},
        {"an end past the last turn", R"("from":7,"to":100)", kNoLog,
         "InvalidInput: to is turn 100, past the conversation's 10 turns (0..9)"},
        {"integers as strings", R"("from":"4","to":"-3")", kNoLog, "4..6"},
        {"defaults cover everything", "", kNoLog, "0..9"},
        {"last without a compaction is the start", R"("from":"last","to":4)", kNoLog, "0..4"},
        {"last continues after the newest compaction", R"("from":"last")", kLog, "4..9"},
        {"last as an end bound", R"("from":1,"to":"last")", kLog, "1..3"},
        {"a duration start", R"("from":"5h","to":8)", kNoLog, "5..8"},
        {"a duration end", R"("to":"5h")", kNoLog, "0..4"},
        {"a compound duration", R"("to":"1h30m")", kNoLog, "0..8"},
        {"both bounds as durations", R"("from":"7h","to":"2h")", kNoLog, "3..7"},
        {"keepLast as a count", R"("keepLast":3)", kNoLog, "0..6"},
        {"keepLast as an end bound", R"("to":{"keepLast":2})", kNoLog, "0..7"},
        {"keepLast as a duration", R"("keepLast":"2h")", kNoLog, "0..7"},
        {"keepFirst as a count", R"("keepFirst":2)", kNoLog, "2..9"},
        {"keepFirst as a duration", R"("keepFirst":"2h")", kNoLog, "3..9"},
        {"keepFirst as a start bound", R"("from":{"keepFirst":1},"keepLast":1)", kNoLog, "1..8"},
        {"an explicit end overrides keepLast", R"("to":8,"keepLast":5)", kNoLog, "0..8"},
        {"a start after the end", R"("from":9,"to":3)", kNoLog,
         "InvalidInput: from is turn 9, after to (turn 3)"},
        {"a start past the end", R"("from":12)", kNoLog,
         "InvalidInput: from is turn 12, past the conversation's 10 turns (0..9)"},
        {"keeping every turn: nothing to compact", R"("keepLast":10)", kNoLog, "none"},
        {"keeping more turns than there are", R"("keepLast":25)", kNoLog, "none"},
        {"an offset before the first turn", R"("to":-11)", kNoLog, "none"},
        {"keepFirst past the end", R"("keepFirst":10)", kNoLog, "none"},
        {"a duration older than every turn", R"("to":"20h")", kNoLog, "none"},
        {"an unknown bound", R"("from":"yesterday")", kNoLog, "InvalidInput: from must be"},
        {"a fractional index", R"("to":2.5)", kNoLog, "InvalidInput: to must be"},
    };
    for (const Case& c : cases) {
      CAPTURE(c.name);
      const std::string fields = *c.fields ? std::string(c.fields) + "," : "";
      const std::string request = R"({"op":"dryRun","reasoning":"strip",)" + fields +
                                  R"("timestamp":"2025-07-17T09:30:00Z","conversation":)" +
                                  syntheticConversation(10, c.log) + "}";
      const std::string expected = c.expected;
      if (expected == "none") {
        const Value out = output(request);
        CHECK(out.find(u"compaction")->isNull());
        CHECK(out.find(u"index")->isNull());
        const Value* tokens = out.find(u"tokens");
        CHECK(tokens->find(u"after")->number == tokens->find(u"before")->number);
      } else if (std::isdigit(static_cast<unsigned char>(expected[0]))) {
        const Value k = *output(request).find(u"compaction");
        CHECK(std::to_string(static_cast<int>(k.find(u"fromTurn")->number)) + ".." +
                  std::to_string(static_cast<int>(k.find(u"toTurn")->number)) ==
              expected);
      } else {
        CHECK(failure(request).find(expected) == 0);
      }
    }
  }

  TEST_CASE("a conversation no longer than what a profile keeps compacts to nothing") {
    // The default profile keeps the last 3 turns, light 5: shorter conversations are common
    // (one instruction and its agent loop is one turn) and are not an error.
    for (const char* profile : {"default", "light", "heavy"}) {
      for (int turns : {0, 1, 3}) {
        CAPTURE(profile);
        CAPTURE(turns);
        const std::string conversation =
            turns == 0 ? std::string(R"({"turns":[]})") : syntheticConversation(turns, "[]");
        for (const char* op : {"compact", "dryRun"}) {
          const Value out = output(std::string(R"({"op":")") + op + R"(","profile":")" + profile +
                                   R"(","conversation":)" + conversation + "}");
          CHECK(out.find(u"compaction")->isNull());
          CHECK(out.find(u"extended")->boolean == false);
        }
      }
    }
    // One turn more than the default keeps: the oldest turn is compacted.
    const Value k = *output(R"({"op":"compact","profile":"default","conversation":)" +
                            syntheticConversation(4, "[]") + "}")
                         .find(u"compaction");
    CHECK(k.find(u"fromTurn")->number == 0);
    CHECK(k.find(u"toTurn")->number == 0);
  }

  TEST_CASE("measures durations from the latest timestamp when the request has none") {
    const Value made = output(R"({"op":"compact","reasoning":"strip","to":"5h","conversation":)" +
                              syntheticConversation(10) + "}");
    CHECK(made.find(u"compaction")->find(u"toTurn")->number == 4);  // 09:00 - 5h = 04:00
    CHECK(failure(R"({"op":"compact","reasoning":"strip","to":"5h","conversation":)" +
                  syntheticConversation(10, "[]", false) + "}")
              .find("InvalidInput: a duration bound needs timestamps") == 0);
  }

  TEST_CASE("builds profiles and lets explicit policies override them") {
    struct Case {
      const char* fields;
      const char* expected;  // the compaction minus its range
    };
    const Case cases[] = {
        {"", R"({"reasoning":"strip","toolCalls":"strip","profile":"default"})"},
        {R"("profile":"light")", R"({"reasoning":"strip","profile":"light"})"},
        {R"("profile":"default","toolCalls":"omit")",
         R"({"reasoning":"strip","toolCalls":"omit","profile":"default"})"},
        {R"("profile":"default","reasoning":null)", R"({"toolCalls":"strip","profile":"default"})"},
        {R"("toolCalls":"strip-responses","tools":{"read":{"response":"keep"}})",
         R"({"toolCalls":"strip-responses","tools":{"read":{"response":"keep"}}})"},
        {R"("timestamp":1752742800000,"reasoning":"strip")",
         R"({"timestamp":1752742800000,"reasoning":"strip"})"},
    };
    for (const Case& c : cases) {
      CAPTURE(c.fields);
      const std::string fields = *c.fields ? std::string(c.fields) + "," : "";
      Value k = *output(R"({"op":"compact","from":0,"to":1,)" + fields + R"("conversation":)" +
                        syntheticConversation(8) + "}")
                     .find(u"compaction");
      k.members.erase(k.members.begin() + (k.find(u"timestamp") != nullptr ? 1 : 0),
                      k.members.begin() + (k.find(u"timestamp") != nullptr ? 3 : 2));
      CHECK(toJson(k) == c.expected);
    }
    CHECK(failure(R"({"op":"compact","reasoning":null,"conversation":)" + syntheticConversation(8) +
                  "}")
              .find("InvalidInput: the compaction has no policy") == 0);
    CHECK(failure(R"({"op":"compact","profile":"extreme","conversation":)" +
                  syntheticConversation(8) + "}") ==
          "InvalidInput: profile must be \"default\", \"light\" or \"heavy\" @ /profile");
  }

  TEST_CASE("dry run counts tokens before and after without appending anything") {
    const std::string response(100, 'x');
    const std::string conv = R"({"turns":[
      {"events":[{"type":"user","content":"hello"},{"type":"reasoning","content":"think think"},
                 {"type":"toolRequest","id":"1","name":"read","arguments":{"path":"a.txt"}},
                 {"type":"toolResponse","id":"1","content":")" +
                             response + R"("},{"type":"assistant","content":"done"}]},
      {"events":[{"type":"user","content":"next"},{"type":"assistant","content":"ok"}]}],
      "compactions":[]})";
    // Each event by the script estimate (a tool request: its name and its arguments' JSON).
    auto est = [](const char16_t* text) { return cce::estimateTokens(text); };
    const double hello = est(u"hello"), think = est(u"think think"),
                 read = est(u"read") + est(u"{\"path\":\"a.txt\"}"),
                 body = cce::estimateTokens(std::u16string(100, u'x')), done = est(u"done"),
                 next = est(u"next"), ok = est(u"ok");
    const double raw = hello + think + read + body + done + next + ok;
    // After turn 0 is compacted: reasoning gone, the arguments and the response compacted.
    const double compactedRead = est(u"read") + est(u"{\"path\":\"[compacted]\"}");
    const double compactedResponse = est(u"[compacted] read: success");
    const double after = hello + compactedRead + compactedResponse + done + next + ok;
    auto tokens = [](double r, double b, double a) {
      return "{\"raw\":" + cce::js::numberToString(r) + ",\"before\":" +
             cce::js::numberToString(b) + ",\"after\":" + cce::js::numberToString(a) + "}";
    };
    const std::string dry = R"({"op":"dryRun","profile":"default","to":0,"conversation":)" + conv;
    Value out = output(dry + "}");
    CHECK(toJson(*out.find(u"tokens")) == tokens(raw, raw, after));
    CHECK(after < raw);
    Value appendedView =
        *output(projectRequest(appended(conv, *out.find(u"compaction")))).find(u"view");
    CHECK(toJson(*out.find(u"view")) == toJson(appendedView));
    CHECK(output(projectRequest(conv)).find(u"tokens")->number == raw);

    // With an overlay already in the log, "before" counts it.
    const std::string logged =
        withLog(conv, parse(R"([{"fromTurn":0,"toTurn":1,"reasoning":"strip"}])"));
    Value again =
        output(R"({"op":"dryRun","toolCalls":"omit","to":0,"conversation":)" + logged + "}");
    // Before: the logged overlay strips the reasoning; after: tool pairs of turn 0 omitted too.
    CHECK(toJson(*again.find(u"tokens")) ==
          tokens(raw, raw - think, hello + done + next + ok));
    CHECK(again.find(u"index")->number == 1);
  }

  TEST_CASE("counts CJK text by script, not at a third of its tokens") {
    // 210 ideographs: ceil(210 / 3.5) = 60 by the reference's formula.
    std::string han;
    for (int i = 0; i < 30; ++i) han += "\u6211\u4eec\u9700\u8981\u6279\u91cf\u63d2";
    const std::string conv = R"({"turns":[{"events":[{"type":"user","content":")" + han +
                             R"("}]}],"compactions":[]})";
    const double tokens = output(projectRequest(conv)).find(u"tokens")->number;
    CHECK(tokens == cce::estimateTokens(cce::js::fromUtf8(han)));
    CHECK(tokens >= 120);
  }

  TEST_CASE("an overlay-free projection reproduces every event exactly") {
    const std::string conv = fixture("rfd_example.json");
    Value view = *output(projectRequest(conv)).find(u"view");
    Value doc = parse(conv);
    const auto& turns = doc.find(u"turns")->items;
    REQUIRE(view.find(u"turns")->items.size() == turns.size());
    for (std::size_t t = 0; t < turns.size(); ++t) {
      CAPTURE(t);
      CHECK(toJson(*view.find(u"turns")->items[t].find(u"events")) ==
            toJson(*turns[t].find(u"events")));
    }
  }

  TEST_CASE("undo restores the previous view exactly") {
    const std::string conv0 = fixture("rfd_example.json");
    const std::string view0 = toJson(output(projectRequest(conv0)));
    Value first = *output(R"({"op":"compact","profile":"default","conversation":)" + conv0 + "}")
                       .find(u"compaction");
    const std::string conv1 = appended(conv0, first);
    const std::string view1 = toJson(output(projectRequest(conv1)));
    Value second =
        *output(R"({"op":"compact","summary":true,"from":1,"to":3,"conversation":)" + conv1 + "}")
             .find(u"compaction");
    const std::string conv2 = appended(conv1, second);
    const std::string view2 = toJson(output(projectRequest(conv2)));
    CHECK(view2 != view1);
    CHECK(view1 != view0);

    struct Case {
      const char* fields;
      const std::string* expectedView;
      int removed;
    };
    const std::string view1only =
        toJson(output(projectRequest(withLog(conv0, parse("[" + toJson(second) + "]")))));
    const Case cases[] = {
        {"", &view1, 1},
        {R"("index":-1,)", &view1, 1},
        {R"("index":1,)", &view1, 1},
        {R"("index":0,)", &view1only, 1},
        {R"("all":true,)", &view0, 2},
    };
    for (const Case& c : cases) {
      CAPTURE(c.fields);
      Value undone =
          output(std::string(R"({"op":"undo",)") + c.fields + R"("conversation":)" + conv2 + "}");
      CHECK(undone.find(u"removed")->items.size() == static_cast<std::size_t>(c.removed));
      const std::string restored = withLog(conv2, *undone.find(u"compactions"));
      CHECK(toJson(output(projectRequest(restored))) == *c.expectedView);
    }
    CHECK(failure(R"({"op":"undo","index":2,"conversation":)" + conv2 + "}") ==
          "InvalidInput: there is no compaction at that index (the log has 2) @ /index");
  }

  // The provider conversions (fromOpenAI, toAnthropic, views in a provider format) are the JS
  // layer's since issue 20 item 5: js/test/compaction-providers.test.mjs holds what was asserted
  // here. The engine only checks the documents the JS layer converts.
  TEST_CASE("check reads a conversation or view and reports its errors as project does") {
    CHECK(toJson(output(R"({"op":"check","conversation":)" + syntheticConversation(3) + "}")) ==
          "{}");
    const Value view = *output(projectRequest(syntheticConversation(3))).find(u"view");
    CHECK(toJson(output(R"({"op":"check","conversation":)" + toJson(view) + "}")) == "{}");
    CHECK(failure(R"({"op":"check"})") == "InvalidInput: conversation is required @ /conversation");
    CHECK(failure(R"({"op":"check","conversation":{"turns":[{"events":[{"type":"toolRequest"}]}]}})") ==
          "InvalidInput: a toolRequest event needs a string name @ "
          "/conversation/turns/0/events/0/name");
  }

  TEST_CASE("benchmarks the real transcripts") {
    for (const char* name : {"oasst1_en100_best_path.json", "swe_agent_trajectories.json",
                             "claude_code_ccviewer.json"}) {
      CAPTURE(name);
      const std::string text = readText(std::string(CCE_TESTDATA_DIR) + "/data/real/" + name);
      if (text.empty()) {
        MESSAGE("skipped: " << name << " not found");
        continue;
      }
      std::vector<cce::compaction::CompactionBenchInput> in = {{name, text}};
      std::vector<cce::compaction::CompactionBenchRow> rows =
          cce::compaction::benchCompaction(in, 1);
      REQUIRE(rows.size() == 1);
      CHECK(rows[0].error == "");
      CHECK(rows[0].conversations > 0);
      CHECK(rows[0].turns > 0);
      CHECK(rows[0].events > rows[0].turns);
      CHECK(rows[0].tokensRaw > 0);
    }
  }

  TEST_CASE("reports malformed requests as typed errors with JSON pointers") {
    struct Case {
      const char* request;
      const char* expected;
    };
    const Case cases[] = {
        {"{", "InvalidJson: "},
        {"[]", "InvalidInput: request must be a JSON object @ "},
        {R"({"op":"squash"})", "InvalidInput: op must be one of"},
        {R"({"op":"project"})", "InvalidInput: conversation is required @ /conversation"},
        {R"({"op":"project","conversation":{"turns":{}}})",
         "InvalidInput: conversation.turns must be an array @ /conversation/turns"},
        {R"({"op":"project","conversation":{"turns":[{"events":[{"type":"bot"}]}]}})",
         "InvalidInput: event.type must be one of"},
        {R"({"op":"project","conversation":{"turns":[{"events":[{"type":"user","content":3}]}]}})",
         "InvalidInput: content must be a string or an array @ "
         "/conversation/turns/0/events/0/content"},
        {R"({"op":"project","conversation":{"turns":[{"events":[{"type":"toolRequest"}]}]}})",
         "InvalidInput: a toolRequest event needs a string name @ "
         "/conversation/turns/0/events/0/name"},
        {R"({"op":"project","conversation":{"turns":[{"timestamp":"yesterday","events":[]}]}})",
         "InvalidInput: a timestamp must be"},
        {R"({"op":"project","conversation":{"turns":[{"events":[]}],)"
         R"("compactions":[{"fromTurn":0,"toTurn":1,"reasoning":"strip"}]}})",
         "InvalidInput: the compaction covers turns 0..1 but the conversation has 1 turns @ "
         "/conversation/compactions/0"},
        {R"({"op":"project","conversation":{"turns":[{"events":[]}],)"
         R"("compactions":[{"fromTurn":0,"toTurn":0,"toolCalls":"squash"}]}})",
         "InvalidInput: toolCalls must be"},
        {R"({"op":"project","conversation":{"turns":[{"events":[]}],)"
         R"("compactions":[{"fromTurn":0,"toTurn":0,"tools":{"x":{"request":"drop"}}}]}})",
         "InvalidInput: a tool hint side must be \"keep\" or \"strip\" @ "
         "/conversation/compactions/0/tools/x/request"},
    };
    for (const Case& c : cases) {
      CAPTURE(c.request);
      CHECK(failure(c.request).find(c.expected) == 0);
    }
  }

  TEST_CASE("parses RFC 3339 timestamps and durations") {
    using cce::compaction::parseDuration;
    using cce::compaction::parseRfc3339;
    struct Case {
      const char16_t* text;
      double ms;  // -1: rejected
    };
    const Case times[] = {
        {u"1970-01-01T00:00:00Z", 0},
        {u"2025-07-17T10:00:00Z", 1752746400000},
        {u"2025-07-17T12:00:00+02:00", 1752746400000},
        {u"2025-07-17t10:00:00.250z", 1752746400250},
        {u"2024-02-29T00:00:00-00:30", 1709166600000},
        {u"2023-02-29T00:00:00Z", -1},
        {u"2025-07-17T10:00:00", -1},
        {u"2025-07-17", -1},
        {u"2025-13-01T00:00:00Z", -1},
    };
    for (const Case& c : times) {
      CAPTURE(toUtf8(c.text));
      std::optional<double> ms = parseRfc3339(c.text);
      CHECK(ms.value_or(-1) == c.ms);
    }
    const Case durations[] = {
        {u"90s", 90000},    {u"5m", 300000},     {u"5h", 18000000}, {u"2d", 172800000},
        {u"1w", 604800000}, {u"1h30m", 5400000}, {u"h", -1},        {u"5", -1},
        {u"5x", -1},        {u"", -1},
    };
    for (const Case& c : durations) {
      CAPTURE(toUtf8(c.text));
      CHECK(parseDuration(c.text).value_or(-1) == c.ms);
    }
  }

  TEST_CASE("counts JSON lengths in UTF-16 units like JSON.stringify") {
    struct Case {
      const char* json;
    };
    const Case cases[] = {
        {R"({"a":[1,2.5,-0,true,null,"x\ny\u0001"],"\u00e9":{}})"},
        {R"(["\ud83d\ude00","\ud83d","é",1e21,123456789012])"},
    };
    for (const Case& c : cases) {
      CAPTURE(c.json);
      const Value v = parse(c.json);
      CHECK(cce::compaction::jsonLength(v) == fromUtf8(toJson(v)).size());
    }
  }
}
