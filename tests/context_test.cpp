// SPDX-License-Identifier: MIT
// Tests for the context manager: arithmetic, boundaries, checkpoints, aging, JSON, real replays.
#include "context/context.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "context/context_json.h"
#include "context/summary_ledger.h"
#include "context/tool_groups.h"
#include "jscompat/string.h"
#include "token_estimate.h"
#include "jscompat/json_writer.h"
#include "jscompat/string.h"
#include "json_io.h"
#include "summarizer.h"
#include "types.h"

#ifndef CCE_TESTDATA_DIR
#define CCE_TESTDATA_DIR "build/testdata"
#endif

namespace {

using cce::json::Value;
using namespace cce::context;

Value parse(const std::string& text) {
  cce::Result<Value> v = cce::parseJson(text);
  if (!v) {
    std::fprintf(stderr, "test JSON does not parse: %s\n", v.error().message.c_str());
    std::abort();
  }
  return std::move(v.value());
}

std::string json(const Value& v) { return cce::js::toJson(v); }
std::u16string u16(const std::string& s) { return cce::js::fromUtf8(s); }
std::string u8(std::u16string_view s) { return cce::js::toUtf8(s); }

// Content of exactly `tokens` default tokens: ceil(floor(3.5 t) / 3.5) == t.
std::string textOfTokens(double tokens, char fill = 'x') {
  return std::string(static_cast<std::size_t>(std::floor(3.5 * tokens)), fill);
}

Value message(const std::string& role, const std::string& content, const std::string& id = "") {
  Value m = Value::object();
  if (!id.empty()) m.members.push_back({u"id", Value::fromString(u16(id))});
  m.members.push_back({u"role", Value::fromString(u16(role))});
  m.members.push_back({u"content", Value::fromString(u16(content))});
  return m;
}

Value assistantCalls(const std::vector<std::string>& ids, const std::string& content = "") {
  Value m = message("assistant", content);
  Value calls = Value::array();
  for (const std::string& id : ids) {
    calls.items.push_back(parse(
        R"({"id":")" + id +
        R"(","type":"function","function":{"name":"read",)"
        R"("arguments":"{\"path\":\"a<b>.txt\"}"}})"));
  }
  m.members.push_back({u"tool_calls", std::move(calls)});
  return m;
}

Value toolResult(const std::string& id, const std::string& content) {
  Value m = Value::object();
  m.members.push_back({u"role", Value::fromString(u"tool")});
  m.members.push_back({u"tool_call_id", Value::fromString(u16(id))});
  m.members.push_back({u"content", Value::fromString(u16(content))});
  return m;
}

// A conversation from a role pattern: s system, u user, a assistant, A assistant with one call,
// t tool result (answers the last call). Every message gets `tokens` default tokens of content.
std::vector<Value> fromPattern(const std::string& pattern, double tokens = 10) {
  std::vector<Value> out;
  std::string lastCall;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    std::string id = "m" + std::to_string(i);
    std::string text = textOfTokens(tokens, static_cast<char>('a' + i % 26));
    switch (pattern[i]) {
      case 's': out.push_back(message("system", text, id)); break;
      case 'u': out.push_back(message("user", text, id)); break;
      case 'a': out.push_back(message("assistant", text, id)); break;
      case 'A': {
        lastCall = "call" + std::to_string(i);
        Value m = assistantCalls({lastCall}, text);
        m.members.insert(m.members.begin(), {u"id", Value::fromString(u16(id))});
        out.push_back(std::move(m));
        break;
      }
      case 't': {
        Value m = toolResult(lastCall, text);
        m.members.insert(m.members.begin(), {u"id", Value::fromString(u16(id))});
        out.push_back(std::move(m));
        break;
      }
    }
  }
  return out;
}

State stateWith(const Config& config, std::vector<Value> messages) {
  State st;
  st.config = config;
  Host host;
  REQUIRE(addMessages(st, std::move(messages), host));
  REQUIRE_FALSE(host.pending());
  return st;
}

// Most tests reason in the reference's ceil(length / 3.5) (contentOf builds exact token counts);
// the replays of real sessions below run the default script estimate.
Config charsConfig() {
  Config c;
  c.scriptEstimate = false;
  return c;
}

Config bigWindow(std::size_t keepLast = 5, std::size_t keepFirst = 0) {
  Config c = charsConfig();
  c.contextWindow = 1000000;
  c.keepLast = keepLast;
  c.keepFirst = keepFirst;
  return c;
}

Value envelopeOutput(const std::string& response) {
  Value v = parse(response);
  const Value* ok = v.find(u"ok");
  if (!ok || !ok->boolean) {
    std::fprintf(stderr, "unexpected envelope: %s\n", response.substr(0, 400).c_str());
    return Value::null();
  }
  const Value* out = v.find(u"output");
  return out ? *out : Value::null();
}

std::string requestWith(const std::string& op, const Value& state, const std::string& extra = "") {
  return R"({"op":")" + op + R"(","state":)" + json(state) + extra + "}";
}

}  // namespace

TEST_SUITE("context") {
  TEST_CASE("computes available tokens and the trigger as documented") {
    struct Case {
      double window;
      const char* systemPromptTokens;  // JSON value or "" for absent
      double prompt, margin, threshold;
      double available, trigger;
    };
    const Case cases[] = {
        {6963, "500", 1000, 1000, 0.75, 4463, 3347},  // the issue's example: 3347.25 -> 3347
        {100, "0", 0, 0, 0.29, 100, 29},              // 0.29 * 100 = 28.999999999999996
        {8000, "", 0, 0, 1, 8000, 8000},
        {10000, "1234", 500, 266, 0.5, 8000, 4000},
        {4001, "0", 0, 0, 0.75, 4001, 3000},  // 3000.75
    };
    for (const Case& c : cases) {
      CAPTURE(c.window);
      CAPTURE(c.threshold);
      std::string config = R"({"contextWindow":)" + std::to_string(c.window) +
                           (std::string(c.systemPromptTokens).empty()
                                ? std::string()
                                : std::string(R"(,"systemPromptTokens":)") + c.systemPromptTokens) +
                           R"(,"promptBudget":)" + std::to_string(c.prompt) +
                           R"(,"safetyMargin":)" + std::to_string(c.margin) + R"(,"threshold":)" +
                           cce::js::toUtf8(u16(std::to_string(c.threshold))) + "}";
      Value out = envelopeOutput(cce::contextJson(R"({"op":"create","config":)" + config + "}"));
      REQUIRE(out.isObject());
      const Value* usage = out.find(u"usage");
      CHECK(usage->find(u"available")->number == c.available);
      CHECK(usage->find(u"threshold")->number == c.trigger);
    }
  }

  TEST_CASE("triggers strictly above the threshold (3347 no, 3348 yes)") {
    Config c = charsConfig();
    c.contextWindow = 6963;
    c.systemPromptTokens = 500;
    c.promptBudget = 1000;
    c.safetyMargin = 1000;
    c.keepLast = 1;
    const struct {
      double tokens;
      bool over;
    } cases[] = {{3347, false}, {3348, true}};
    for (const auto& k : cases) {
      CAPTURE(k.tokens);
      State st = stateWith(c, {message("user", textOfTokens(1000)),
                               message("assistant", textOfTokens(k.tokens - 1000))});
      Host host;
      Usage u = usage(st, host);
      CHECK(u.conversation == k.tokens);
      CHECK(u.overThreshold == k.over);
      CHECK(u.shouldCompress == k.over);
      CHECK(u.percent == std::floor(k.tokens * 1000 / 4463 + 0.5) / 10);
    }
  }

  TEST_CASE("counts the leading system messages as the system prompt when no size is given") {
    Config c = bigWindow();
    c.contextWindow = 5000;
    State st =
        stateWith(c, {message("system", textOfTokens(300)), message("system", textOfTokens(200)),
                      message("user", textOfTokens(40)), message("system", textOfTokens(7))});
    Host host;
    Usage u = usage(st, host);
    CHECK(u.system == 500);
    CHECK(u.available == 4500);
    CHECK(u.recent == 47);  // a later system message is part of the conversation
    CHECK(u.total == 547);
  }

  TEST_CASE("counts Chinese by script by default, where length / 3.5 sees a third of it") {
    // 700 ideographs: the reference's formula says 200 tokens; BPE tokenizers spend about one
    // per ideograph, and the default estimate must be in that range, not near 200.
    std::u16string han;
    for (int i = 0; i < 100; ++i) han += u"\u4ec0\u4e48\u662f\u4e0a\u4e0b\u6587\u7a97";
    Config script;
    script.contextWindow = 100000;
    Config chars = script;
    chars.scriptEstimate = false;
    std::vector<Value> messages = {message("user", cce::js::toUtf8(han))};
    Host host;
    const double byScript = usage(stateWith(script, messages), host).conversation;
    const double byLength = usage(stateWith(chars, messages), host).conversation;
    CHECK(byLength == 200);
    CHECK(byScript == cce::estimateTokens(han));
    CHECK(byScript >= 2 * byLength);
  }

  TEST_CASE("a deterministic summary of CJK text fits its token budget under the script estimate") {
    std::u16string han;
    for (int i = 0; i < 60; ++i) han += u"\u6211\u4eec\u9700\u8981\u6279\u91cf\u63d2\u5165\u3002";
    Config c;
    c.contextWindow = 3000;
    c.keepLast = 1;
    std::vector<Value> messages;
    for (int i = 0; i < 8; ++i) {
      messages.push_back(message(i % 2 ? "assistant" : "user", cce::js::toUtf8(han)));
    }
    State st = stateWith(c, messages);
    Host host;
    CompressOutcome out = compress(st, Value(), host);
    REQUIRE(out.checkpoint);
    CHECK(out.checkpoint->compressedTokens == cce::estimateTokens(out.checkpoint->summary));
    CHECK(out.checkpoint->compressedTokens < out.checkpoint->originalTokens);
  }

  TEST_CASE("a summary keeps the artifacts of its range, the newest message's first") {
    Config c;
    c.contextWindow = 4000;
    c.keepLast = 2;
    const std::string filler = " The team discussed the plan at length and agreed to continue.";
    std::string padding;
    for (int i = 0; i < 30; ++i) padding += filler;
    Value call = parse(
        R"({"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function",)"
        R"("function":{"name":"Edit","arguments":"{\"file_path\":\"src/retry/policy.ts\",)"
        R"(\"old_string\":\"const maxAttempts = 3;\"}"}}]})");
    std::vector<Value> messages = {
        message("user", "Please fix the upload retry in uploadQueue." + padding),
        message("assistant", "The old limit lives in config/limits.yaml." + padding),
        call,
        toolResult("c1", "TypeError: attempts is undefined\n" + padding),
        message("user", "Thanks." + padding),
        message("assistant", "Done." + padding),
    };
    State st = stateWith(c, messages);
    Host host;
    CompressOutcome out = compress(st, Value(), host);
    REQUIRE(out.checkpoint);
    REQUIRE(out.checkpoint->end == 4);
    const std::string summary = u8(out.checkpoint->summary);
    const std::size_t line = summary.find("\nArtifacts: ");
    REQUIRE(line != std::string::npos);
    const std::string artifacts = summary.substr(line, summary.find('\n', line + 1) - line);
    // A tool call's short string arguments whole (quoted as the call wrote them), the artifacts of
    // every message of the range, the newest message's first.
    for (const char* item : {"\"src/retry/policy.ts\"", "\"const maxAttempts = 3;\"",
                             "\"TypeError: attempts is undefined\"", "config/limits.yaml",
                             "uploadQueue"}) {
      CAPTURE(artifacts);
      CHECK_MESSAGE(artifacts.find(item) != std::string::npos, std::string(item));
    }
    CHECK(artifacts.find("TypeError") < artifacts.find("policy.ts"));
    CHECK(artifacts.find("policy.ts") < artifacts.find("config/limits.yaml"));
    CHECK(artifacts.find("config/limits.yaml") < artifacts.find("uploadQueue"));
    CHECK(out.checkpoint->summary.size() <= static_cast<std::size_t>(
                                                3.5 * summaryBudget(out.checkpoint->level,
                                                                    out.checkpoint->originalTokens,
                                                                    3000)) + 1);
    // Without artifacts the line is left out.
    std::vector<Value> plain = {message("user", "Hello." + padding),
                                message("assistant", "Hi." + padding),
                                message("user", "More." + padding),
                                message("assistant", "Ok." + padding)};
    State bare = stateWith(c, plain);
    CompressOutcome none = compress(bare, Value(), host);
    REQUIRE(none.checkpoint);
    CHECK(u8(none.checkpoint->summary).find("Artifacts:") == std::string::npos);
  }

  TEST_CASE("a merged summary keeps the artifacts lines of both, the newer one's first") {
    const std::vector<std::u16string_view> bodies = {
        u"Artifacts: old/a.ts, \"TypeError: x, y\", shared.ts\nolder sentences",
        u"Artifacts: new/b.ts, shared.ts\nnewer sentences"};
    const std::vector<std::u16string> items = mergedArtifacts(bodies, 1000);
    REQUIRE(items.size() == 4);
    CHECK(u8(items[0]) == "new/b.ts");
    CHECK(u8(items[1]) == "shared.ts");
    CHECK(u8(items[2]) == "old/a.ts");
    CHECK(u8(items[3]) == "\"TypeError: x, y\"");
    CHECK(u8(withoutArtifacts(bodies[0])) == "older sentences");
    // Within the units given: what does not fit is left out, a shorter item after it may fit.
    CHECK(mergedArtifacts(bodies, 12).size() == 1);
    RangeStats stats;
    stats.messages = 2;
    const std::u16string merged = mergedSummary(stats, bodies, 200);
    CHECK(u8(merged).find("Artifacts: new/b.ts, shared.ts, old/a.ts") != std::string::npos);
    CHECK(u8(merged).find("older sentences") != std::string::npos);
  }

  TEST_CASE("each checkpoint is its own summary message; a later compress leaves older ones as they were") {
    Config c = bigWindow(1);
    c.maxCheckpoints = 8;
    c.ageAfter = 8;
    State st;
    st.config = c;
    std::vector<std::string> before;  // the summary messages of the last view, as JSON
    for (int round = 0; round < 4; ++round) {
      Host host;
      REQUIRE(addMessages(st, fromPattern("uaua", 40), host));
      REQUIRE(compress(st, Value::fromNumber(round), host).compressed);
      ViewResult v = view(st, host);
      std::vector<std::string> summaries;
      std::vector<std::string> roles;
      for (std::size_t i = 0; i < v.messages.size(); ++i) {
        if (v.sources[i] >= 0) continue;
        summaries.push_back(json(v.messages[i]));
        roles.push_back(u8(roleOf(v.messages[i])));
      }
      CAPTURE(round);
      REQUIRE(summaries.size() == static_cast<std::size_t>(round + 1));
      // The older summary messages are byte-identical: a provider's cache still holds them.
      for (std::size_t k = 0; k < before.size(); ++k) CHECK(summaries[k] == before[k]);
      // The first takes the role the joint needs (an assistant message follows), the rest are
      // system messages, so the view stays a valid alternation.
      CHECK(roles.front() == "user");
      for (std::size_t k = 1; k < roles.size(); ++k) CHECK(roles[k] == "system");
      CHECK(checkStructure(v.messages).empty());
      // Each names its own checkpoint and where it ends.
      const Value& last = v.messages[v.messages.size() - 2];
      CHECK(last.find(u"metadata")->find(u"covered_until")->number ==
            static_cast<double>(st.ledger.checkpoints.back().end));
      CHECK(last.find(u"metadata")->find(u"checkpoints")->items.size() == 1);
      before = summaries;
    }
  }

  TEST_CASE("a summary names each tool's arguments and keeps quoted phrases with their quotes") {
    const std::string padding =
        " The team discussed the plan at length and agreed to continue with the next step.";
    std::vector<Value> messages = {
        message("user", "Look at the reader." + padding),
        parse(R"({"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function",)"
              R"("function":{"name":"Read","arguments":"{\"file_path\":\"src/a.ts\",\"limit\":20}"}},)"
              R"({"id":"c2","type":"function","function":{"name":"TodoWrite","arguments":)"
              R"("{\"todos\":[{\"content\":\"fix it\",\"activeForm\":\"Fixing it\"}]}"}}]})"),
        toolResult("c1", "The shelf \"Tiny Experiments\" has 3 books." + padding),
        toolResult("c2", "ok" + padding),
    };
    const std::string summary = u8(deterministicSummary(messages, 0, messages.size(), 300));
    CAPTURE(summary);
    const std::string stats = summary.substr(0, summary.find('\n'));
    CHECK(stats.find(R"(Read {"file_path", "limit"})") != std::string::npos);
    CHECK(stats.find(R"(TodoWrite {"todos", "content", "activeForm"})") != std::string::npos);
    CHECK(summary.find("\"Tiny Experiments\"") != std::string::npos);
    // Artifacts an earlier summary of the view holds are left out of a later one.
    const std::vector<std::u16string> known = {u"\"src/a.ts\""};
    CHECK(summary.find("\"src/a.ts\"") != std::string::npos);
    const std::string later = u8(deterministicSummary(messages, 0, messages.size(), 300, known));
    CHECK(later.find("\"src/a.ts\"") == std::string::npos);
    CHECK(later.find("\"Tiny Experiments\"") != std::string::npos);
  }

  TEST_CASE("an artifact a longer one holds is left out of the line, the longer one kept") {
    const std::string padding =
        " The team discussed the plan at length and agreed to continue with the next step.";
    std::vector<Value> messages = {
        message("user", "Look at the reader. It is src/reader/shelf.ts with config/limits.yaml." +
                padding),
        parse(R"({"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function",)"
              R"("function":{"name":"Read","arguments":"{\"file_path\":\"src/reader/shelf.ts\"}"}}]})"),
        toolResult("c1", "export const shelfSize = 3;" + padding),
    };
    auto items = [&](const std::vector<std::u16string>& known) {
      std::vector<std::string> out;
      const std::u16string summary =
          deterministicSummary(messages, 0, messages.size(), 300, known);
      for (const std::u16string& item : artifactItems(summary.substr(summary.find(u'\n') + 1))) {
        out.push_back(u8(item));
      }
      return out;
    };
    auto has = [](const std::vector<std::string>& list, const std::string& item) {
      return std::find(list.begin(), list.end(), item) != list.end();
    };
    const std::vector<std::string> line = items({});
    CAPTURE(line.size());
    // The call's quoted argument holds the path and the file name the user wrote: they are not
    // repeated (the next call finds them inside it), whichever came first.
    CHECK(has(line, "\"src/reader/shelf.ts\""));
    CHECK_FALSE(has(line, "src/reader/shelf.ts"));
    CHECK_FALSE(has(line, "shelf.ts"));
    CHECK(has(line, "config/limits.yaml"));
    CHECK_FALSE(has(line, "limits.yaml"));
    // Nor is an item an older summary of the view holds inside a longer one.
    const std::vector<std::string> later = items({u"\"config/limits.yaml\""});
    CHECK_FALSE(has(later, "config/limits.yaml"));
    CHECK(has(later, "\"src/reader/shelf.ts\""));
  }

  TEST_CASE("the artifacts line may take 0.95 of what the stats line leaves of the summary") {
    std::string text = "The files:";
    for (int i = 0; i < 200; ++i) text += " src/part" + std::to_string(i) + "/module.ts";
    text += " The team discussed the plan at length and agreed to continue with the next step.";
    const std::vector<Value> messages = {message("assistant", text)};
    const double budget = 100;
    const std::string summary = u8(deterministicSummary(messages, 0, 1, budget));
    CAPTURE(summary);
    const std::size_t stats = summary.find('\n');
    REQUIRE(stats != std::string::npos);
    const std::size_t end = summary.find('\n', stats + 1);
    const std::size_t line = (end == std::string::npos ? summary.size() : end) - stats - 1;
    const std::size_t left = static_cast<std::size_t>(3.5 * budget) - stats - 1;
    CHECK(line > static_cast<std::size_t>(0.85 * static_cast<double>(left)));
    CHECK(line <= static_cast<std::size_t>(0.95 * static_cast<double>(left)));
  }

  TEST_CASE("a compress leaves out of a new summary the artifacts older summaries hold") {
    Config c;
    c.contextWindow = 100000;
    c.keepLast = 1;
    c.maxCheckpoints = 8;
    c.ageAfter = 8;
    std::string padding;
    for (int i = 0; i < 30; ++i) padding += " The team discussed the plan at length and agreed.";
    State st;
    st.config = c;
    for (int round = 0; round < 2; ++round) {
      const std::string own = round == 0 ? "first/only.ts" : "second/only.ts";
      Host host;
      REQUIRE(addMessages(st,
                          {message("user", "Fix the limits. See config/limits.yaml and " + own + "." +
                                   padding),
                           message("assistant", "Done with config/limits.yaml." + padding),
                           message("user", "Next." + padding),
                           message("assistant", "Ok." + padding)},
                          host));
      REQUIRE(compress(st, Value::fromNumber(round), host).compressed);
    }
    REQUIRE(st.ledger.checkpoints.size() == 2);
    const std::string first = u8(st.ledger.checkpoints[0].summary);
    const std::string second = u8(st.ledger.checkpoints[1].summary);
    CAPTURE(first);
    CAPTURE(second);
    auto items = [](const Checkpoint& cp) {
      std::vector<std::string> out;
      for (const std::u16string& item : artifactItems(summaryBody(cp))) out.push_back(u8(item));
      return out;
    };
    auto has = [](const std::vector<std::string>& list, const std::string& item) {
      return std::find(list.begin(), list.end(), item) != list.end();
    };
    const std::vector<std::string> older = items(st.ledger.checkpoints[0]);
    const std::vector<std::string> newer = items(st.ledger.checkpoints[1]);
    CHECK(has(older, "config/limits.yaml"));
    CHECK(has(older, "first/only.ts"));
    CHECK(has(newer, "second/only.ts"));
    CHECK_FALSE(has(newer, "config/limits.yaml"));
  }

  TEST_CASE("tokenEstimate is part of the configuration and its state") {
    Value created = envelopeOutput(cce::contextJson(
        R"({"op":"create","config":{"contextWindow":1000,"tokenEstimate":"chars"}})"));
    REQUIRE(created.isObject());
    CHECK(json(*created.find(u"state")->find(u"config")->find(u"tokenEstimate")) == "\"chars\"");
    Value byDefault =
        envelopeOutput(cce::contextJson(R"({"op":"create","config":{"contextWindow":1000}})"));
    CHECK(json(*byDefault.find(u"state")->find(u"config")->find(u"tokenEstimate")) ==
          "\"script\"");
  }

  TEST_CASE("chooses the level by input size and never gives a lower level a larger budget") {
    struct Case {
      double tokens;
      Level level;
    };
    const Case levels[] = {{0, Level::Compact},     {1999, Level::Compact},
                           {2000, Level::Moderate}, {7999, Level::Moderate},
                           {8000, Level::Detailed}, {100000, Level::Detailed}};
    for (const Case& k : levels) {
      CAPTURE(k.tokens);
      CHECK(levelForInput(k.tokens) == k.level);
    }
    struct Budget {
      Level level;
      double tokens, available, budget;
    };
    const Budget budgets[] = {
        {Level::Compact, 1000, 4463, 100},   // 0.10 * 1000 < 0.04 * 4463 = 178.52
        {Level::Compact, 20000, 4463, 178},  // capped by the window share
        {Level::Moderate, 5000, 4463, 312},  // 0.07 * 4463 = 312.41
        {Level::Moderate, 1000, 100000, 150},
        {Level::Detailed, 20000, 4463, 446},  // 0.10 * 4463
        {Level::Detailed, 9000, 100000, 1800},
        {Level::Compact, 20, 4463, 20},   // never more than the input
        {Level::Compact, 200, 4463, 32},  // the floor of 32
    };
    for (const Budget& b : budgets) {
      CAPTURE(b.tokens);
      CAPTURE(levelName(b.level));
      CHECK(summaryBudget(b.level, b.tokens, b.available) == b.budget);
    }
    for (double t : {10.0, 100.0, 1000.0, 5000.0, 50000.0}) {
      for (double a : {500.0, 4463.0, 100000.0}) {
        CHECK(summaryBudget(Level::Compact, t, a) <= summaryBudget(Level::Moderate, t, a));
        CHECK(summaryBudget(Level::Moderate, t, a) <= summaryBudget(Level::Detailed, t, a));
      }
    }
  }

  TEST_CASE("builds atomic groups: calls, results and the plain follow-up never split") {
    struct Case {
      const char* pattern;
      std::vector<std::size_t> starts;
    };
    const Case cases[] = {
        {"sua", {0, 1, 2}},
        {"uAtta", {0, 1, 1, 1, 1}},
        {"uAtAta", {0, 1, 1, 3, 3, 3}},  // a chain is two groups; both halves stay valid
        {"uAtu", {0, 1, 1, 3}},
        {"uatt", {0, 1, 1, 1}},  // results without a structured call stay with their cause
        {"uAa", {0, 1, 1}},      // calls without results still take the follow-up
        {"uAtat", {0, 1, 1, 1, 1}},
        {"ssAt", {0, 1, 2, 2}},
    };
    for (const Case& c : cases) {
      CAPTURE(c.pattern);
      std::vector<Value> m = fromPattern(c.pattern);
      CHECK(groupStarts(m, leadingSystemCount(m)) == c.starts);
    }
  }

  TEST_CASE("moves keepFirst and keepLast boundaries to group starts") {
    struct Case {
      const char* pattern;
      std::size_t keepFirst, keepLast;
      std::size_t start, end;  // the checkpoint compress creates
    };
    const Case cases[] = {
        {"uauAttauaua", 0, 4, 0, 7},  // n-4 = 7 is a group start
        {"uauAttaua", 0, 4, 0, 3},    // n-4 = 5 is inside the group starting at 3
        {"uAtauauaua", 2, 2, 1, 8},   // keepFirst 2 ends inside [1,4): the head is [0,1)
        {"uauAtauaua", 4, 3, 3, 7},   // head [0,3): index 4 is inside the group at 3
        {"suauauaua", 0, 3, 1, 6},    // the system prompt is never covered
        {"uauauAtta", 0, 0, 0, 5},    // keepLast 0 still keeps the last (growing) group
    };
    for (const Case& c : cases) {
      CAPTURE(c.pattern);
      CAPTURE(c.keepFirst);
      CAPTURE(c.keepLast);
      State st = stateWith(bigWindow(c.keepLast, c.keepFirst), fromPattern(c.pattern));
      Host host;
      CompressOutcome out = compress(st, Value::null(), host);
      REQUIRE(out.compressed);
      CHECK(out.checkpoint->start == c.start);
      CHECK(out.checkpoint->end == c.end);
    }
  }

  TEST_CASE("gives the summary message the role that keeps user/assistant alternation") {
    struct Case {
      const char* pattern;
      std::size_t keepFirst, keepLast;
      const char* role;
    };
    const Case cases[] = {
        {"uauaua", 0, 2, "system"},     // nothing before, a user message after
        {"uauaua", 0, 1, "user"},       // nothing before, an assistant message after
        {"uauaua", 1, 2, "assistant"},  // user before and after
        {"uauaua", 1, 1, "system"},     // user before, assistant after
        {"uAtaua", 0, 1, "user"},
        {"uAtuauaua", 3, 2, "assistant"},  // a tool result before (user side), a user after
    };
    for (const Case& c : cases) {
      CAPTURE(c.pattern);
      CAPTURE(c.keepFirst);
      CAPTURE(c.keepLast);
      State st = stateWith(bigWindow(c.keepLast, c.keepFirst), fromPattern(c.pattern));
      Host host;
      REQUIRE(compress(st, Value::null(), host).compressed);
      ViewResult v = view(st, host);
      auto it = std::find(v.sources.begin(), v.sources.end(), -1);
      REQUIRE(it != v.sources.end());
      const Value& summary = v.messages[static_cast<std::size_t>(it - v.sources.begin())];
      CHECK(u8(roleOf(summary)) == c.role);
      std::vector<StructureIssue> issues = checkStructure(v.messages);
      CHECK(issues.empty());
    }
  }

  TEST_CASE("recovers progress from a visible list with covered_until") {
    auto summary = [](double coveredUntil) {
      return parse(R"({"role":"system","content":"[Summary]","metadata":{"covered_until":)" +
                   cce::js::toUtf8(u16(std::to_string(static_cast<long>(coveredUntil)))) + "}}");
    };
    struct Case {
      const char* name;
      std::vector<Value> visible;
      double keepLast;
      bool found;
      double coveredUntil, originalCount, target, alignedTarget;
    };
    std::vector<Value> tail = fromPattern("uaua");
    std::vector<Value> groupTail = fromPattern("Atta");
    auto join = [](std::vector<Value> a, const std::vector<Value>& b) {
      a.insert(a.end(), b.begin(), b.end());
      return a;
    };
    const Case cases[] = {
        {"no summary", fromPattern("uaua"), 2, false, 0, 4, 2, 2},
        {"keepLast larger than the tail", join({message("system", "s"), summary(10)}, tail), 5,
         true, 10, 14, 10, 10},
        {"keepLast inside the tail", join({message("system", "s"), summary(10)}, tail), 2, true, 10,
         14, 12, 12},
        {"target inside a group moves to its start", join({summary(7)}, groupTail), 2, true, 7, 11,
         9, 7},
        {"the last summary counts", join(join({summary(3)}, tail), join({summary(20)}, tail)), 1,
         true, 20, 24, 23, 23},
    };
    for (const Case& c : cases) {
      CAPTURE(c.name);
      cce::Result<RecoveredProgress> r = recoverProgress(c.visible, c.keepLast);
      REQUIRE(r);
      CHECK(r->found == c.found);
      CHECK(r->coveredUntil == c.coveredUntil);
      CHECK(r->originalCount == c.originalCount);
      CHECK(r->target == c.target);
      CHECK(r->alignedTarget == c.alignedTarget);
    }
  }

  TEST_CASE("refuses to recover progress from a folded view") {
    std::vector<Value> visible = {message("user", "go"), assistantCalls({"c1"}),
                                  toolResult("c1", "ok"), message("assistant", "done")};
    std::vector<Value> folded = foldToolChains(visible);
    REQUIRE(folded.size() == 2);
    cce::Result<RecoveredProgress> r = recoverProgress(folded, 5);
    REQUIRE_FALSE(r);
    CHECK(r.error().code == cce::ErrorCode::InvalidInput);
    CHECK(r.error().path == "/messages/1");
  }

  TEST_CASE("trims the newest groups from the summary input, never the oldest") {
    struct Case {
      double limit;
      bool compressed;
      std::size_t end;  // checkpoint end (covered_until) when compressed
      const char* reason;
    };
    // Groups: [u] [a] [u] [A t a] [u] [a] | kept: [u a] ; every message 100 tokens.
    const Case cases[] = {
        {10000, true, 8, ""},
        {650, true, 6, "summaryInputTrimmed"},  // 800 > 650: drop [u a] newest first -> [0,6)
        {300, true, 3, "summaryInputTrimmed"},
        {100, true, 1, "summaryInputTrimmed"},
        {99, false, 0, "summaryInputTooSmall"},  // the oldest group alone does not fit
    };
    for (const Case& c : cases) {
      CAPTURE(c.limit);
      Config config = bigWindow(2);
      config.summaryInputTokens = c.limit;
      State st = stateWith(config, fromPattern("uauAtauaua", 100));
      Host host;
      CompressOutcome out = compress(st, Value::null(), host);
      CHECK(out.compressed == c.compressed);
      bool hasReason = std::string(c.reason).empty();
      for (const Reason& r : out.validation.reasons) {
        hasReason = hasReason || std::string(r.code) == c.reason;
      }
      CHECK(hasReason);
      if (!c.compressed) {
        CHECK(st.ledger.checkpoints.empty());
        continue;
      }
      CHECK(out.checkpoint->start == 0);
      CHECK(out.checkpoint->end == c.end);
      CHECK(out.checkpoint->originalTokens <= c.limit);
      ViewResult v = view(st, host);
      CHECK(v.messages[0].find(u"metadata")->find(u"covered_until")->number == c.end);
      CHECK(v.messages.size() == 1 + (10 - c.end));  // everything not summarised stays visible
    }
  }

  TEST_CASE("folds a tool-call chain into one details message and unfolds it byte for byte") {
    std::vector<Value> chain = {
        message("user", "Read both files"),
        assistantCalls({"c1", "c2"}, "Reading."),
        toolResult("c1", "x < y & \"z\""),
        toolResult("c2", "</details> inside"),
        assistantCalls({"c3"}),
        message("assistant", "Both read."),
    };
    // c3 has no result: its block says done="false"; the last assistant is the follow-up.
    std::vector<Value> folded = foldToolChains(chain);
    REQUIRE(folded.size() == 2);
    CHECK(json(folded[0]) == json(chain[0]));
    const std::string args = "{&quot;path&quot;:&quot;a&lt;b&gt;.txt&quot;}";
    const std::string expected =
        "Reading.\n"
        "<details type=\"tool_calls\" done=\"true\" id=\"c1\" name=\"read\" arguments=\"" +
        args +
        "\">\n<summary>Tool Executed</summary>\nx &lt; y &amp; &quot;z&quot;\n</details>\n"
        "<details type=\"tool_calls\" done=\"true\" id=\"c2\" name=\"read\" arguments=\"" +
        args +
        "\">\n<summary>Tool Executed</summary>\n&lt;/details&gt; inside\n</details>\n"
        "<details type=\"tool_calls\" done=\"false\" id=\"c3\" name=\"read\" arguments=\"" +
        args +
        "\">\n<summary>Tool Executed</summary>\n</details>\n"
        "Both read.";
    CHECK(u8(folded[1].find(u"content")->string) == expected);

    std::vector<Value> back = unfoldToolChains(folded);
    REQUIRE(back.size() == chain.size());
    for (std::size_t i = 0; i < chain.size(); ++i) CHECK(json(back[i]) == json(chain[i]));

    // Without the metadata the blocks alone rebuild canonical OpenAI messages. Blocks with no text
    // between them read as one assistant message, so the separate call c3 joins c1 and c2.
    Value stripped = folded[1];
    stripped.members.erase(stripped.members.end() - 1);
    std::vector<Value> parsed = unfoldToolChains({stripped});
    const std::string call =
        R"({"type":"function","function":{"name":"read","arguments":"{\"path\":\"a<b>.txt\"}"}})";
    auto callWith = [&call](const std::string& id) {
      return R"({"id":")" + id + "\"," + call.substr(1);
    };
    REQUIRE(parsed.size() == 4);
    CHECK(json(parsed[0]) == R"({"role":"assistant","content":"Reading.","tool_calls":[)" +
                                 callWith("c1") + "," + callWith("c2") + "," + callWith("c3") +
                                 "]}");
    CHECK(json(parsed[1]) == R"({"role":"tool","tool_call_id":"c1","content":"x < y & \"z\""})");
    CHECK(json(parsed[2]) ==
          R"({"role":"tool","tool_call_id":"c2","content":"</details> inside"})");
    CHECK(json(parsed[3]) == R"({"role":"assistant","content":"Both read."})");
    // With text between the calls, the parsed form is the original chain.
    std::vector<Value> simple = {assistantCalls({"c1"}, "First."), toolResult("c1", "one"),
                                 assistantCalls({"c2"}, "Second."), toolResult("c2", "two"),
                                 message("assistant", "Done.")};
    Value simpleFolded = foldToolChains(simple)[0];
    simpleFolded.members.pop_back();
    std::vector<Value> simpleBack = unfoldToolChains({simpleFolded});
    REQUIRE(simpleBack.size() == simple.size());
    for (std::size_t i = 0; i < simple.size(); ++i) CHECK(json(simpleBack[i]) == json(simple[i]));
  }

  TEST_CASE("escapes and unescapes the four HTML characters only") {
    const struct {
      const char16_t* raw;
      const char16_t* escaped;
    } cases[] = {{u"a&b", u"a&amp;b"},
                 {u"<x>", u"&lt;x&gt;"},
                 {u"\"q\"", u"&quot;q&quot;"},
                 {u"&amp;", u"&amp;amp;"},
                 {u"it's", u"it's"}};
    for (const auto& c : cases) {
      CHECK(escapeHtml(c.raw) == c.escaped);
      CHECK(unescapeHtml(c.escaped) == c.raw);
    }
    CHECK(unescapeHtml(u"&nbsp;&") == u"&nbsp;&");
  }

  TEST_CASE(
      "ages old checkpoints one level lower from raw messages and merges the oldest from their "
      "summaries") {
    Config c = bigWindow(2);
    c.contextWindow = 200000;
    c.maxCheckpoints = 4;
    c.ageAfter = 1;
    State st = stateWith(c, {});
    std::vector<std::vector<std::string>> levelsAfter;
    std::vector<Value> history;
    for (int round = 0; round < 6; ++round) {
      // Each round adds ten 1,000-token messages of prose, then compresses all but the last two.
      std::vector<Value> batch;
      for (int k = 0; k < 10; ++k) {
        std::string text;
        while (text.size() < 3500) {
          text += "Round " + std::to_string(round) + " fact " + std::to_string(k) +
                  " is that the parser must handle case " + std::to_string(text.size()) + ". ";
        }
        text.resize(3500);
        batch.push_back(message(k % 2 ? "assistant" : "user", text,
                                "r" + std::to_string(round) + "-" + std::to_string(k)));
      }
      Host host;
      REQUIRE(addMessages(st, batch, host));
      history.insert(history.end(), batch.begin(), batch.end());
      CompressOutcome out = compress(st, Value::fromNumber(round), host);
      REQUIRE(out.compressed);
      std::vector<std::string> levels;
      for (const Checkpoint& cp : st.ledger.checkpoints) {
        levels.push_back(u8(cp.id) + ":" + levelName(cp.level));
        // A new or aged summary is what the deterministic summariser makes of the raw range at
        // its level; a merged one is made from the two summaries it replaced (in the archive),
        // under a stats line that counts the whole range as a scan of its messages does.
        double budget = summaryBudget(cp.level, cp.originalTokens, 200000);
        if (cp.mergedFrom.empty()) {
          // Made this round (new or aged): without the artifacts of the summaries before it,
          // as they are now (an older one remade this round is remade first).
          const bool made = cp.id == out.checkpoint->id ||
                            std::find(out.aged.begin(), out.aged.end(), cp.id) != out.aged.end();
          std::vector<std::u16string> known;
          for (const Checkpoint& older : st.ledger.checkpoints) {
            if (older.end > cp.start) continue;
            for (std::u16string& item : artifactItems(summaryBody(older))) known.push_back(item);
          }
          if (made) {
            CHECK(cp.summary == deterministicSummary(st.messages, cp.start, cp.end, budget, known));
          }
        } else {
          std::vector<std::u16string_view> bodies;
          for (const std::u16string& id : cp.mergedFrom) {
            for (const Checkpoint& old : st.ledger.archive) {
              if (old.id == id) bodies.push_back(summaryBody(old));
            }
          }
          REQUIRE(bodies.size() == 2);
          CHECK(cp.summary ==
                mergedSummary(RangeStats::of(st.messages, cp.start, cp.end), bodies, budget));
          CHECK(u8(cp.summary).rfind(std::to_string(cp.end - cp.start) + " messages (", 0) == 0);
        }
        CHECK(cp.summary.size() <= static_cast<std::size_t>(3.5 * budget));
      }
      levelsAfter.push_back(levels);
    }
    // Compression k creates cp over 8,000-10,000 tokens (detailed). Each older checkpoint drops a
    // level per compression (ageAfter 1); with more than 4 active, the two oldest adjacent ones
    // (never the new one) merge into a compact checkpoint with the next id.
    const std::vector<std::vector<std::string>> expected = {
        {"cp-1:detailed"},
        {"cp-1:moderate", "cp-2:detailed"},
        {"cp-1:compact", "cp-2:moderate", "cp-3:detailed"},
        {"cp-1:compact", "cp-2:compact", "cp-3:moderate", "cp-4:detailed"},
        {"cp-6:compact", "cp-3:compact", "cp-4:moderate", "cp-5:detailed"},
        {"cp-8:compact", "cp-4:compact", "cp-5:moderate", "cp-7:detailed"},
    };
    for (std::size_t r = 0; r < expected.size(); ++r) {
      CAPTURE(r);
      CHECK(levelsAfter[r] == expected[r]);
    }
    // The archive keeps every merged checkpoint with a pointer to its replacement.
    std::vector<std::string> archive;
    for (const Checkpoint& cp : st.ledger.archive) {
      archive.push_back(u8(cp.id) + ">" + u8(cp.replacedBy) + ":" + u8(cp.status));
    }
    CHECK(archive == std::vector<std::string>{"cp-1>cp-6:merged", "cp-2>cp-6:merged",
                                              "cp-6>cp-8:merged", "cp-3>cp-8:merged"});
    CHECK(st.ledger.checkpoints[0].start == 0);
    CHECK(st.ledger.checkpoints[0].end == 28);
    // Undoing everything gives back the history exactly.
    Host host;
    while (!st.ledger.checkpoints.empty()) {
      REQUIRE(undo(st, st.ledger.checkpoints.front().id, Value::null(), host));
    }
    ViewResult v = view(st, host);
    REQUIRE(v.messages.size() == history.size());
    for (std::size_t i = 0; i < history.size(); ++i) CHECK(json(v.messages[i]) == json(history[i]));
  }

  TEST_CASE(
      "undoing a middle checkpoint shows its messages again and the next compress refills it") {
    Config c = bigWindow(2);
    State st = stateWith(c, fromPattern("uaua", 50));
    Host host;
    REQUIRE(compress(st, Value::fromNumber(1), host).compressed);  // [0,2)
    Host h2;
    REQUIRE(addMessages(st, fromPattern("uaua", 50), h2));
    REQUIRE(compress(st, Value::fromNumber(2), host).compressed);  // [2,6)
    REQUIRE(st.ledger.checkpoints.size() == 2);
    REQUIRE(undo(st, u"cp-1", Value::fromNumber(3), host));
    ViewResult v = view(st, host);
    // u a (raw) + summary of [2,6) + u a
    REQUIRE(v.messages.size() == 5);
    CHECK(v.sources == std::vector<long>{0, 1, -1, 6, 7});
    CHECK(u8(roleOf(v.messages[2])) == "system");
    CHECK(u8(st.ledger.archive.back().status) == "undone");
    cce::Result<UndoOutcome> again = undo(st, u"cp-1", Value::null(), host);
    REQUIRE_FALSE(again);
    CHECK(again.error().message.find("already undone") != std::string::npos);
    CompressOutcome refill = compress(st, Value::fromNumber(4), host);
    REQUIRE(refill.compressed);
    CHECK(refill.checkpoint->start == 0);
    CHECK(refill.checkpoint->end == 2);
    CHECK(u8(refill.checkpoint->id) == "cp-3");
  }

  TEST_CASE("keeps fewer recent groups only when the view would not fit otherwise") {
    Config c = charsConfig();
    c.contextWindow = 1000;
    c.keepLast = 4;
    // Four kept messages of 300 tokens cannot fit 1000: compress keeps only what fits.
    State st = stateWith(c, fromPattern("uauauaua", 300));
    Host host;
    CompressOutcome out = compress(st, Value::null(), host);
    REQUIRE(out.compressed);
    // Keeping 4 (1200) cannot fit; keeping 3 (900) plus the estimated summary (40 + 12) does.
    CHECK(out.checkpoint->end == 5);
    CHECK(out.validation.fits);
    CHECK_FALSE(out.again);
    // A last message larger than the window is reported, not hidden.
    Host h2;
    REQUIRE(addMessages(st, {message("user", textOfTokens(1200))}, h2));
    CompressOutcome big = compress(st, Value::null(), host);
    CHECK_FALSE(big.validation.fits);
    bool reported = false;
    for (const Reason& r : big.validation.reasons)
      reported = reported || std::string(r.code) == "lastGroupTooLarge";
    CHECK(reported);
  }

  TEST_CASE("asks the host for counts and summaries and resumes with the answers") {
    std::string config =
        R"({"contextWindow":100000,"keepLast":1,"tokenCounter":true,"summarizer":true})";
    Value created = envelopeOutput(cce::contextJson(R"({"op":"create","config":)" + config + "}"));
    Value state = *created.find(u"state");
    std::string add = requestWith(
        "add", state,
        R"(,"messages":[{"role":"user","content":"Hello there. Please fix the parser bug in the )"
        R"(lexer module."},{"role":"assistant","content":"Sure."}])");
    Value pending = parse(cce::contextJson(add));
    REQUIRE(pending.find(u"pending"));
    const std::vector<Value>& counts = pending.find(u"pending")->find(u"counts")->items;
    REQUIRE(counts.size() == 2);
    CHECK(u8(counts[0].find(u"message")->find(u"role")->string) == "user");
    std::string answers = R"(,"host":{"counts":{")" + u8(counts[0].find(u"key")->string) +
                          R"(":17,")" + u8(counts[1].find(u"key")->string) + R"(":3}})";
    Value added = envelopeOutput(cce::contextJson(add.substr(0, add.size() - 1) + answers + "}"));
    REQUIRE(added.isObject());
    state = *added.find(u"state");
    CHECK(json(*state.find(u"tokens")) == "[17,3]");

    std::string compressReq = requestWith("compress", state, R"(,"now":"2025-01-01T00:00:00Z")");
    Value round1 = parse(cce::contextJson(compressReq));
    REQUIRE(round1.find(u"pending"));
    const std::vector<Value>& summaries = round1.find(u"pending")->find(u"summaries")->items;
    REQUIRE(summaries.size() == 1);
    CHECK(u8(summaries[0].find(u"text")->string) ==
          "user: Hello there. Please fix the parser bug in the lexer module.");
    CHECK(json(*summaries[0].find(u"messageRange")) == R"({"start":0,"end":1})");
    const std::string key = u8(summaries[0].find(u"key")->string);
    struct Case {
      const char* answer;
      const char* summarizer;
      const char* summary;
    };
    const Case cases[] = {
        {R"("User asked to fix the lexer bug.")", "host", "User asked to fix the lexer bug."},
        // 17 counted tokens: budget 17 -> 59 units; after the stats line, the artifacts line (the
        // user's request) and what is left of the summariser's sentence.
        {"null", "deterministic",
         "1 message (1 user).\nArtifacts: \"Hello there.\"\nPlease fix..."},
        {R"("   ")", "deterministic",
         "1 message (1 user).\nArtifacts: \"Hello there.\"\nPlease fix..."},
    };
    for (const Case& c : cases) {
      CAPTURE(c.answer);
      std::string withSummary = compressReq.substr(0, compressReq.size() - 1) +
                                R"(,"host":{"summaries":{")" + key + "\":" + c.answer + "}}}";
      Value round2 = parse(cce::contextJson(withSummary));
      REQUIRE(round2.find(u"pending"));
      const std::vector<Value>& more = round2.find(u"pending")->find(u"counts")->items;
      REQUIRE(!more.empty());
      std::string countAnswers;
      for (const Value& r : more) {
        countAnswers += (countAnswers.empty() ? "\"" : ",\"") + u8(r.find(u"key")->string) + "\":5";
      }
      std::string final = compressReq.substr(0, compressReq.size() - 1) +
                          R"(,"host":{"summaries":{")" + key + "\":" + c.answer +
                          R"(},"counts":{)" + countAnswers + "}}}";
      Value done = envelopeOutput(cce::contextJson(final));
      REQUIRE(done.isObject());
      const Value* cp = done.find(u"checkpoint");
      CHECK(u8(cp->find(u"summarizer")->string) == c.summarizer);
      CHECK(u8(cp->find(u"summary")->string) == c.summary);
      CHECK(u8(cp->find(u"createdAt")->string) == "2025-01-01T00:00:00Z");
      CHECK(cp->find(u"compressedTokens")->number == 5);
      CHECK(cp->find(u"compressionRatio")->number == 17.0 / 5);
      std::vector<std::string> stages;
      for (const Value& p : done.find(u"progress")->items)
        stages.push_back(u8(p.find(u"stage")->string));
      CHECK(stages == std::vector<std::string>{"identify", "prepare", "summarize",
                                               "createCheckpoint", "updateContext", "validate"});
      // The view and usage of the new state need no further round trip.
      Value viewed = envelopeOutput(cce::contextJson(requestWith("view", *done.find(u"state"))));
      REQUIRE(viewed.isObject());
      CHECK(viewed.find(u"usage")->find(u"checkpoints")->number == 5);
    }
  }

  TEST_CASE("reports request errors with codes and paths") {
    struct Case {
      std::string request;
      const char* code;
      const char* path;
    };
    Value state =
        *envelopeOutput(cce::contextJson(R"({"op":"create","config":{"contextWindow":1000}})"))
             .find(u"state");
    Value tampered = state;
    tampered.find(u"messages")->items = fromPattern("uAta");
    tampered.find(u"tokens")->items = {Value::fromNumber(1), Value::fromNumber(1),
                                       Value::fromNumber(1), Value::fromNumber(1)};
    tampered.find(u"checkpoints")
        ->items.push_back(parse(
            R"({"id":"cp-1","createdAt":null,"summary":"s","originalMessageIds":["m0","m1"],)"
            R"("messageRange":{"start":0,"end":2},"originalTokens":2,"compressedTokens":1,)"
            R"("compressionRatio":2,"level":"compact","compressionNumber":1,)"
            R"("summarizer":"deterministic"})"));
    const Case cases[] = {
        {"[1]", "InvalidInput", ""},
        {"{", "InvalidJson", ""},
        {R"({"op":"dance"})", "InvalidInput", "/op"},
        {R"({"op":"create","config":{"contextWindow":1000,"promptBudget":600,"safetyMargin":400}})",
         "BudgetTooSmall", "/config"},
        {R"({"op":"create","config":{"contextWindow":1000,"threshold":1.5}})", "InvalidInput",
         "/config/threshold"},
        {R"({"op":"create","config":{"contextWindow":1000,"keepLast":2.5}})", "InvalidInput",
         "/config/keepLast"},
        {R"({"op":"create","config":{}})", "InvalidInput", "/config/contextWindow"},
        {R"({"op":"create","config":{"contextWindow":1000,"tokenEstimate":"bpe"}})",
         "InvalidInput", "/config/tokenEstimate"},
        {requestWith("add", state, R"(,"messages":[{"role":"user"},7])"), "InvalidInput",
         "/messages/1"},
        {requestWith("add", state, R"(,"messages":[{"content":"x"}])"), "InvalidInput",
         "/messages/0/role"},
        {requestWith("undo", state, R"(,"checkpoint":"cp-9")"), "InvalidInput", "/checkpoint"},
        {requestWith("view", tampered), "InvalidInput", "/state/checkpoints/0/messageRange"},
        {R"({"op":"view","state":{"format":"other"}})", "InvalidInput", "/state/format"},
        {R"({"op":"recover","messages":[{"role":"user"}],"keepLast":-1})", "InvalidInput",
         "/keepLast"},
    };
    for (const Case& c : cases) {
      CAPTURE(c.request.substr(0, 120));
      Value response = parse(cce::contextJson(c.request));
      REQUIRE(response.find(u"ok")->boolean == false);
      const Value* error = response.find(u"error");
      CHECK(u8(error->find(u"code")->string) == c.code);
      CHECK(u8(error->find(u"path")->string) == c.path);
    }
  }
}

// ---- replay of real conversations -------------------------------------------------------------

namespace {

struct Violations {
  std::size_t count = 0;
  std::vector<std::string> first;
  void add(const std::string& what) {
    if (first.size() < 8) first.push_back(what);
    ++count;
  }
};

struct ReplayTotals {
  std::size_t conversations = 0, messages = 0, turns = 0, compressions = 0, merges = 0, ages = 0;
  std::size_t maxActive = 0, viewsChecked = 0, trimmed = 0;
  double minAvailable = 1e18, maxAvailable = 0;
};

// Sizes the replay windows with the manager's own default count (the script estimate).
double defaultTokens(const Value& m) { return cce::context::defaultCount(Config{}, m); }

// The window for a conversation: small, but large enough for its largest atomic group plus the
// summaries and the keepFirst head (a group larger than the window can never fit).
constexpr double kSmallestAvailable = 600;
Config replayConfig(const std::vector<Value>& conv, std::size_t index) {
  std::size_t sysEnd = leadingSystemCount(conv);
  std::vector<std::size_t> starts = groupStarts(conv, sysEnd);
  Config c;
  c.keepLast = 5;
  c.keepFirst = index % 2 ? 2 : 0;
  const std::size_t headTarget = std::min(conv.size(), sysEnd + c.keepFirst);
  const std::size_t headEnd = headTarget >= conv.size() ? conv.size() : starts[headTarget];
  double largest = 0, group = 0, system = 0, head = 0;
  for (std::size_t i = 0; i < conv.size(); ++i) {
    if (i < sysEnd) {
      system += defaultTokens(conv[i]);
      continue;
    }
    if (i < headEnd) head += defaultTokens(conv[i]);
    if (starts[i] == i) group = 0;
    group += defaultTokens(conv[i]);
    largest = std::max(largest, group);
  }
  double available = std::max(kSmallestAvailable, 2 * (largest + 100) + head);
  c.promptBudget = 1000;
  c.safetyMargin = 500;
  c.contextWindow = available + system + c.promptBudget + c.safetyMargin;
  return c;
}

void checkView(const State& st, const ViewResult& v, Violations& bad, const std::string& where) {
  const std::vector<Value>& h = st.messages;
  if (!v.validation.fits)
    bad.add(where + ": view does not fit (" + v.validation.reasons[0].message + ")");
  for (const Reason& r : v.validation.reasons) {
    if (std::string(r.code) == "structure") bad.add(where + ": " + r.message);
  }
  for (std::size_t j = 0; j < v.messages.size(); ++j) {
    long src = v.sources[j];
    if (src >= 0 && json(v.messages[j]) != json(h[static_cast<std::size_t>(src)])) {
      bad.add(where + ": view message differs from history");
    }
    // A tool message keeps the predecessor it has in the history (sources may start with one).
    if (roleOf(v.messages[j]) == u"tool" && src > 0 && (j == 0 || v.sources[j - 1] != src - 1)) {
      bad.add(where + ": orphaned tool message at view " + std::to_string(j));
    }
    if (src >= 0 && hasToolCalls(v.messages[j]) && static_cast<std::size_t>(src) + 1 < h.size() &&
        roleOf(h[static_cast<std::size_t>(src) + 1]) == u"tool" &&
        (j + 1 >= v.messages.size() || v.sources[j + 1] != src + 1)) {
      bad.add(where + ": tool results separated from their call at view " + std::to_string(j));
    }
    if (src < 0) {
      // The next visible message is the history's message there, or the summary of the
      // checkpoint that starts there (one summary message per checkpoint).
      const Value* covered = v.messages[j].find(u"metadata")->find(u"covered_until");
      long next = j + 1 < v.messages.size() ? v.sources[j + 1] : -2;
      if (next == -1) {
        const std::u16string& id =
            v.messages[j + 1].find(u"metadata")->find(u"checkpoints")->items[0].string;
        for (const Checkpoint& cp : st.ledger.checkpoints) {
          if (cp.id == id) next = static_cast<long>(cp.start);
        }
      }
      if (next != -2 && next != static_cast<long>(covered->number)) {
        bad.add(where + ": covered_until does not match the next visible message");
      }
      std::u16string_view role = roleOf(v.messages[j]);
      if (role != u"system") {
        // A user/assistant summary must alternate with both neighbours (tool results are
        // user-side).
        auto side = [](std::u16string_view r) {
          return r == u"assistant" ? 1 : r == u"system" ? 0 : 2;
        };
        std::size_t p = j;
        while (p > 0 && roleOf(v.messages[p - 1]) == u"system") --p;
        std::size_t q = j + 1;
        while (q < v.messages.size() && roleOf(v.messages[q]) == u"system") ++q;
        if ((p > 0 && side(roleOf(v.messages[p - 1])) == side(role)) ||
            (q < v.messages.size() && side(roleOf(v.messages[q])) == side(role))) {
          bad.add(where + ": summary role breaks alternation");
        }
      }
    }
  }
  cce::Result<RecoveredProgress> p =
      recoverProgress(v.messages, static_cast<double>(st.config.keepLast));
  if (!p || p->originalCount != static_cast<double>(h.size()) ||
      p->found != !st.ledger.checkpoints.empty()) {
    bad.add(where + ": recovered progress does not match the history");
  }
}

void checkCheckpoints(const State& st, Violations& bad, const std::string& where) {
  std::vector<std::size_t> starts = groupStarts(st.messages, leadingSystemCount(st.messages));
  std::size_t pos = 0;
  for (const Checkpoint& cp : st.ledger.checkpoints) {
    double tokens = 0;
    bool ids = cp.originalMessageIds.size() == cp.end - cp.start;
    for (std::size_t i = cp.start; i < cp.end; ++i) {
      tokens += st.tokens[i];
      const Value* id = st.messages[i].find(u"id");
      if (ids && json(cp.originalMessageIds[i - cp.start]) != (id ? json(*id) : "null"))
        ids = false;
    }
    if (cp.start < pos || cp.end <= cp.start || starts[cp.start] != cp.start ||
        (cp.end < st.messages.size() && starts[cp.end] != cp.end)) {
      bad.add(where + ": checkpoint range not ordered or not at group starts");
    }
    if (tokens != cp.originalTokens || !ids)
      bad.add(where + ": checkpoint does not match its range");
    Value summaryMessage = Value::object();
    summaryMessage.members.push_back({u"content", Value::fromString(cp.summary)});
    if (cp.compressedTokens != cce::context::defaultCount(st.config, summaryMessage)) {
      bad.add(where + ": compressedTokens is not the summary's count");
    }
    pos = cp.end;
  }
}

void replay(const std::vector<Value>& conv, std::size_t index, ReplayTotals& totals,
            Violations& bad, const std::string& name) {
  State st;
  st.config = replayConfig(conv, index);
  totals.conversations += 1;
  totals.messages += conv.size();

  for (std::size_t i = 0; i < conv.size(); ++i) {
    const std::string where = name + "#" + std::to_string(index) + " turn " + std::to_string(i);
    Host host;
    if (!addMessages(st, {conv[i]}, host)) bad.add(where + ": add failed");
    totals.turns += 1;
    Usage u = usage(st, host);
    for (int guard = 0; u.shouldCompress; ++guard) {
      if (guard == 8) {
        bad.add(where + ": compress does not converge");
        break;
      }
      std::size_t lastStart = groupStarts(st.messages, leadingSystemCount(st.messages)).back();
      CompressOutcome out = compress(st, Value::fromNumber(static_cast<double>(i)), host);
      if (!out.compressed || !out.checkpoint) {
        bad.add(where + ": shouldCompress but compress did nothing");
        break;
      }
      if (out.checkpoint->end > lastStart) bad.add(where + ": the last group was summarised");
      totals.compressions += 1;
      totals.merges += out.merged.size();
      totals.ages += out.aged.size();
      totals.maxActive = std::max(totals.maxActive, st.ledger.checkpoints.size());
      checkCheckpoints(st, bad, where);
      u = out.usage;
    }
    ViewResult v = view(st, host);
    totals.viewsChecked += 1;
    checkView(st, v, bad, where);
  }
  Host counter;
  double available = usage(st, counter).available;
  totals.minAvailable = std::min(totals.minAvailable, available);
  totals.maxAvailable = std::max(totals.maxAvailable, available);
  // toJSON / fromJSON: the serialised state reads back to the same bytes.
  std::string saved = json(stateToJson(st));
  cce::Result<State> loaded = stateFromJson(parse(saved));
  if (!loaded || json(stateToJson(loaded.value())) != saved) {
    bad.add(name + "#" + std::to_string(index) + ": state JSON does not round-trip");
  }
  // Undo every checkpoint (newest first): the view is the original history, byte for byte.
  Host host;
  while (!st.ledger.checkpoints.empty()) {
    if (!undo(st, st.ledger.checkpoints.back().id, Value::null(), host)) break;
  }
  ViewResult all = view(st, host);
  bool same = all.messages.size() == conv.size();
  for (std::size_t i = 0; same && i < conv.size(); ++i)
    same = json(all.messages[i]) == json(conv[i]);
  if (!same)
    bad.add(name + "#" + std::to_string(index) + ": undo-all does not restore the history");
}

std::vector<Value> loadConversations(const std::string& file) {
  std::string path = std::string(CCE_TESTDATA_DIR) + "/data/real/" + file;
  std::string text;
  if (FILE* f = std::fopen(path.c_str(), "rb")) {
    char buffer[1 << 16];
    std::size_t n;
    while ((n = std::fread(buffer, 1, sizeof buffer, f)) > 0) text.append(buffer, n);
    std::fclose(f);
  }
  if (text.empty()) return {};
  Value all = parse(text);
  return std::move(all.items);
}

}  // namespace

TEST_SUITE("context") {
  TEST_CASE("replays real conversations turn by turn: views fit, stay valid, undo restores all") {
    struct Dataset {
      const char* file;
      std::size_t limit;  // conversations replayed (0: all)
    };
    const bool full = std::getenv("CCE_CONTEXT_FULL") != nullptr;
    const Dataset datasets[] = {
        {"claude_code_ccviewer.json", 0},
        {"swe_agent_trajectories.json", 0},
        {"claude_code_mclaude.json", 0},
        {"claude_code_console_bookminder.json", full ? 0u : 8u},
        {"aider_chat_history.json", full ? 0u : 120u},
        {"oasst1_en100_best_path.json", 0},
        {"hh_rlhf_harmless_base_test.json", full ? 0u : 150u},
    };
    for (const Dataset& d : datasets) {
      std::vector<Value> convs = loadConversations(d.file);
      if (convs.empty()) {
        MESSAGE("skipped (not found): " << d.file);
        continue;
      }
      // The longest conversations first, so a limited run still covers them.
      std::vector<std::size_t> order(convs.size());
      for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
      std::stable_sort(order.begin(), order.end(), [&convs](std::size_t a, std::size_t b) {
        return convs[a].items.size() > convs[b].items.size();
      });
      if (d.limit && order.size() > d.limit) order.resize(d.limit);
      ReplayTotals totals;
      Violations bad;
      for (std::size_t i : order) replay(convs[i].items, i, totals, bad, d.file);
      const std::string file = d.file;
      CAPTURE(file);
      std::string first;
      for (const std::string& s : bad.first) first += "\n  " + s;
      INFO("first violations:" << first);
      CHECK(bad.count == 0);
      MESSAGE(file << ": " << totals.conversations << " conversations, " << totals.messages
                   << " messages, " << totals.compressions << " compressions, " << totals.merges
                   << " merges, " << totals.ages << " agings, max " << totals.maxActive
                   << " active checkpoints, available " << totals.minAvailable << "-"
                   << totals.maxAvailable);
    }
  }

  TEST_CASE("serves fold, unfold, recover and check over JSON") {
    const std::string chain =
        R"([{"role":"user","content":"go"},)"
        R"({"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function",)"
        R"("function":{"name":"ls","arguments":"{}"}}]},)"
        R"({"role":"tool","tool_call_id":"c1","content":"a.txt"},)"
        R"({"role":"assistant","content":"One file."}])";
    Value folded = envelopeOutput(cce::contextJson(R"({"op":"fold","messages":)" + chain + "}"));
    REQUIRE(folded.isObject());
    REQUIRE(folded.find(u"messages")->items.size() == 2);
    Value unfolded = envelopeOutput(
        cce::contextJson(R"({"op":"unfold","messages":)" + json(*folded.find(u"messages")) + "}"));
    REQUIRE(unfolded.isObject());
    CHECK(json(*unfolded.find(u"messages")) == json(parse(chain)));
    Value checked = envelopeOutput(cce::contextJson(
        R"({"op":"check","messages":[{"role":"assistant","content":"hi"},{"role":"tool","content":"x"}]})"));
    CHECK(json(checked) ==
          R"({"issues":[{"kind":"firstNotUser","index":0},{"kind":"orphanToolResult","index":1}]})");
    Value recovered = envelopeOutput(cce::contextJson(
        R"({"op":"recover","keepLast":1,"messages":[{"role":"system","content":"s",)"
        R"("metadata":{"covered_until":6}},{"role":"user","content":"u"},)"
        R"({"role":"assistant","content":"a"}]})"));
    CHECK(json(recovered) ==
          R"({"found":true,"summaryIndex":0,"coveredUntil":6,"originalCount":8,"target":7,)"
          R"("alignedTarget":7})");
    Value refused = parse(cce::contextJson(R"({"op":"recover","messages":)" +
                                           json(*folded.find(u"messages")) + "}"));
    CHECK(json(*refused.find(u"ok")) == "false");
  }

  TEST_CASE("folds and unfolds every real conversation byte for byte") {
    std::size_t conversations = 0, chains = 0;
    for (const char* file : {"claude_code_ccviewer.json", "claude_code_mclaude.json",
                             "swe_agent_trajectories.json", "claude_code_console_bookminder.json"}) {
      std::vector<Value> convs = loadConversations(file);
      for (const Value& conv : convs) {
        std::vector<Value> folded = foldToolChains(conv.items);
        for (const Value& m : folded) chains += isFolded(m) ? 1 : 0;
        std::vector<Value> back = unfoldToolChains(folded);
        bool same = back.size() == conv.items.size();
        for (std::size_t i = 0; same && i < back.size(); ++i) {
          same = json(back[i]) == json(conv.items[i]);
        }
        CAPTURE(file);
        CHECK(same);
        ++conversations;
      }
    }
    MESSAGE(conversations << " conversations, " << chains << " tool-call chains folded");
    CHECK(chains > 0);
  }

  TEST_CASE("the JSON entry point replays a conversation to the same state as the core") {
    std::vector<Value> convs = loadConversations("claude_code_ccviewer.json");
    if (convs.empty()) return;
    const std::vector<Value>& conv = convs[0].items;
    Config config = replayConfig(conv, 1);
    State core;
    core.config = config;
    std::string configJson =
        R"({"contextWindow":)" +
        cce::js::toUtf8(u16(std::to_string(static_cast<long>(config.contextWindow)))) +
        R"(,"promptBudget":1000,"safetyMargin":500,"keepLast":5,"keepFirst":2})";
    Value state =
        *envelopeOutput(cce::contextJson(R"({"op":"create","config":)" + configJson + "}"))
             .find(u"state");
    std::size_t compressions = 0;
    for (std::size_t i = 0; i < conv.size(); ++i) {
      Host host;
      REQUIRE(addMessages(core, {conv[i]}, host));
      while (usage(core, host).shouldCompress) {
        REQUIRE(compress(core, Value::fromNumber(static_cast<double>(i)), host).compressed);
      }
      Value added = envelopeOutput(
          cce::contextJson(requestWith("add", state, ",\"message\":" + json(conv[i]))));
      REQUIRE(added.isObject());
      state = *added.find(u"state");
      while (added.find(u"usage")->find(u"shouldCompress")->boolean) {
        added = envelopeOutput(
            cce::contextJson(requestWith("compress", state, ",\"now\":" + std::to_string(i))));
        REQUIRE(added.find(u"compressed")->boolean);
        state = *added.find(u"state");
        ++compressions;
      }
    }
    CHECK(compressions > 0);
    CHECK(json(state) == json(stateToJson(core)));
  }
}

TEST_SUITE("context") {
  TEST_CASE("the history index grows with each add as a fresh one would be built") {
    // s s u a A t t a u A t u ...: leading systems, groups that grow, a taken-back add.
    const std::string pattern = "ssuaAttauAtuaAtAtauuaAta";
    std::vector<Value> all = fromPattern(pattern);
    State st;
    st.config = charsConfig();
    for (std::size_t i = 0; i < all.size(); ++i) {
      Host host;
      REQUIRE(addMessages(st, {all[i]}, host));
      (void)usage(st, host);
      if (i % 5 == 4) {  // an add taken back (as a pending answer does), then made again
        st.messages.pop_back();
        st.tokens.pop_back();
        (void)usage(st, host);
        REQUIRE(addMessages(st, {all[i]}, host));
        (void)usage(st, host);
      }
      CAPTURE(i);
      const std::size_t sysEnd = leadingSystemCount(st.messages);
      CHECK(st.index.count == st.messages.size());
      CHECK(st.index.sysEnd == sysEnd);
      CHECK(st.index.starts == groupStarts(st.messages, sysEnd));
      REQUIRE(st.index.turns.size() == st.messages.size());
      for (std::size_t k = 0; k < st.messages.size(); ++k) {
        const Turn turn = turnOf(st.messages[k]);
        CHECK((st.index.turns[k].role == turn.role && st.index.turns[k].calls == turn.calls));
      }
      double sum = 0;
      for (std::size_t k = 0; k < st.messages.size(); ++k) {
        CHECK(st.index.prefix[k] == sum);
        sum += st.tokens[k];
      }
    }
  }

  TEST_CASE("add then usage costs the new message, not the history") {
    auto workFor = [](std::size_t n) {
      State st;
      st.config = charsConfig();
      st.config.contextWindow = 1e12;
      for (std::size_t i = 0; i < n; ++i) {
        Host host;
        REQUIRE(addMessages(st, {message(i % 2 ? "assistant" : "user", "hi")}, host));
        (void)usage(st, host);
      }
      return st.index.work;
    };
    const std::size_t small = workFor(500), large = workFor(2000);
    // About 4 per add (the last group scanned again, one prefix sum, one tail sum): constant,
    // where rebuilding the index on every call would cost n per add (n^2 / 2 in all).
    CHECK(small <= 5 * 500);
    CHECK(large <= 5 * 2000);
  }

  TEST_CASE("a compress summarises a bounded amount, whatever the history's length") {
    // An agent session replayed turn by turn under a small window: past maxCheckpoints every
    // compress merges the oldest checkpoints, whose range starts at the beginning of the history.
    // A merged summary made from the raw range would read all of it (the largest compress of 4n
    // messages would read about 4 times the largest of n); made from the two summaries it reads a
    // bounded amount.
    struct Run {
      std::size_t compressions = 0, merges = 0, largest = 0, total = 0, views = 0, runsBuilt = 0;
    };
    auto replayOf = [](std::size_t n) {
      Config c = charsConfig();
      c.contextWindow = 6000;
      c.promptBudget = 500;
      c.keepLast = 6;
      State st = stateWith(c, {});
      Run run;
      const std::string pattern = "uAtauaAta";
      std::vector<Value> all;
      for (std::size_t i = 0; all.size() < n; ++i) {
        for (Value& m : fromPattern(pattern, 30 + static_cast<double>(i % 7) * 10)) {
          all.push_back(std::move(m));
        }
      }
      all.resize(n);
      for (std::size_t i = 0; i < n; ++i) {
        Host host;
        REQUIRE(addMessages(st, {all[i]}, host));
        while (usage(st, host).shouldCompress) {
          const std::size_t before = st.summarised;
          CompressOutcome out = compress(st, Value::null(), host);
          if (!out.compressed) break;
          ++run.compressions;
          run.merges += out.merged.size();
          run.largest = std::max(run.largest, st.summarised - before);
        }
        ViewResult v = view(st, host);
        CHECK(v.validation.fits);
        ++run.views;
      }
      run.total = st.summarised;
      run.runsBuilt = st.summaryRuns.built;
      return run;
    };
    const Run small = replayOf(1000), large = replayOf(4000);
    CAPTURE(small.largest);
    CAPTURE(large.largest);
    REQUIRE(small.merges > 5);
    REQUIRE(large.merges > 4 * 5);
    // The largest single compress does not grow with the history (the raw rule: about 4 times).
    CHECK(large.largest <= small.largest + small.largest / 4);
    // In all, 4n messages cost about 4 times n (the raw rule: about 16 times).
    CHECK(large.total <= 5 * small.total);
    // The summary messages are built and counted when the checkpoints change, not per call: a
    // compress changes at most its new, merged and aged runs, while every turn adds and views.
    CHECK(large.runsBuilt <= 4 * large.compressions);
    CHECK(large.views > 20 * large.compressions);
  }

  TEST_CASE("a held view sends its summaries again only when they changed") {
    const std::string created = cce::contextJson(
        R"({"op":"create","config":{"contextWindow":3000,"keepLast":4,"tokenEstimate":"chars"}})");
    Value state = *envelopeOutput(created).find(u"state");
    const std::string handle = json(*envelopeOutput(cce::contextJson(
        R"({"op":"open","state":)" + json(state) + "}")).find(u"handle"));
    auto held = [&](const std::string& op, const std::string& extra) {
      return envelopeOutput(
          cce::contextJson(R"({"op":")" + op + R"(","handle":)" + handle + extra + "}"));
    };
    std::vector<Value> messages = fromPattern("uauauauauauauauauauauauauaua", 150);
    std::string key;
    std::size_t sent = 0, skipped = 0;
    for (const Value& m : messages) {
      Value added = held("add", ",\"message\":" + json(m));
      if (added.find(u"usage")->find(u"shouldCompress")->boolean) held("compress", "");
      Value full = held("view", "");
      Value known = held("view", key.empty() ? "" : ",\"summariesKnown\":\"" + key + "\"");
      const std::string now = u8(full.find(u"summaryKey")->string);
      CHECK(u8(known.find(u"summaryKey")->string) == now);
      CHECK(json(*known.find(u"sources")) == json(*full.find(u"sources")));
      if (!key.empty() && key == now) {
        CHECK(known.find(u"summaries") == nullptr);  // the caller has them
        ++skipped;
      } else {
        CHECK(json(*known.find(u"summaries")) == json(*full.find(u"summaries")));
        ++sent;
      }
      key = now;
    }
    CHECK(sent > 2);  // the empty list, then after each compress that changed the summaries
    CHECK(skipped > sent);
    cce::contextJson(R"({"op":"close","handle":)" + handle + "}");
  }

  TEST_CASE("checkStructure pairs parallel tool results with their calls") {
    std::vector<std::string> ids;
    for (int i = 0; i < 300; ++i) ids.push_back("c" + std::to_string(i));
    std::vector<Value> m = {message("user", "go"), assistantCalls(ids)};
    for (const std::string& id : ids) m.push_back(toolResult(id, "ok"));
    CHECK(checkStructure(m).empty());
    m[150] = toolResult("nobody", "?");  // answers no call; c148 goes unanswered
    std::vector<StructureIssue> issues = checkStructure(m);
    REQUIRE(issues.size() == 2);
    CHECK(issues[0].kind == StructureIssue::Kind::MissingToolResult);
    CHECK(issues[0].index == 1);
    CHECK(issues[1].kind == StructureIssue::Kind::OrphanToolResult);
    CHECK(issues[1].index == 150);
    // A system message splits the run: the results after it answer nothing.
    m[150] = message("system", "note");
    issues = checkStructure(m);
    std::size_t orphans = 0;
    for (const StructureIssue& issue : issues) {
      if (issue.kind != StructureIssue::Kind::OrphanToolResult) continue;
      ++orphans;
      CHECK(issue.index > 150);
    }
    CHECK(orphans == 301 - 150);
  }

  TEST_CASE("a state held by handle answers as the state sent with each request does") {
    std::vector<Value> convs = loadConversations("claude_code_ccviewer.json");
    if (convs.empty()) return;
    const std::vector<Value>& conv = convs[0].items;
    Config config = replayConfig(conv, 1);
    std::string configJson =
        R"({"contextWindow":)" + std::to_string(static_cast<long>(config.contextWindow)) +
        R"(,"promptBudget":1000,"safetyMargin":500,"keepLast":5,"keepFirst":2})";
    Value state =
        *envelopeOutput(cce::contextJson(R"({"op":"create","config":)" + configJson + "}"))
             .find(u"state");
    Value opened = envelopeOutput(
        cce::contextJson(R"({"op":"open","echo":true,"state":)" + json(state) + "}"));
    REQUIRE(opened.isObject());
    CHECK(json(*opened.find(u"state")) == json(state));
    const std::string handle = json(*opened.find(u"handle"));
    auto held = [&](const std::string& op, const std::string& extra) {
      return envelopeOutput(
          cce::contextJson(R"({"op":")" + op + R"(","handle":)" + handle + extra + "}"));
    };
    auto without = [](Value v, const char16_t* key) {
      v.members.erase(std::remove_if(v.members.begin(), v.members.end(),
                                     [key](const cce::json::Member& m) { return m.key == key; }),
                      v.members.end());
      return v;
    };
    std::size_t compressions = 0;
    for (std::size_t i = 0; i < conv.size(); ++i) {
      const std::string add = ",\"message\":" + json(conv[i]);
      Value sent = envelopeOutput(cce::contextJson(requestWith("add", state, add)));
      Value kept = held("add", add);
      REQUIRE(sent.isObject());
      state = *sent.find(u"state");
      CHECK(json(*kept.find(u"usage")) == json(*sent.find(u"usage")));
      CHECK(json(*kept.find(u"tokens")->items.begin()) == json(state.find(u"tokens")->items.back()));
      // A held view names history messages by index: rebuilt from the history, it is the view.
      Value heldView = held("view", "");
      Value rebuilt = Value::object();
      Value messages = Value::array();
      std::size_t summary = 0;
      for (const Value& source : heldView.find(u"sources")->items) {
        const auto& history = state.find(u"messages")->items;
        if (source.isArray()) {  // [first, last]: consecutive history messages
          REQUIRE(source.items[1].number > source.items[0].number);
          for (double i = source.items[0].number; i <= source.items[1].number; ++i) {
            messages.items.push_back(history[static_cast<std::size_t>(i)]);
          }
        } else {
          messages.items.push_back(source.number < 0
                                       ? heldView.find(u"summaries")->items[summary++]
                                       : history[static_cast<std::size_t>(source.number)]);
        }
      }
      rebuilt.members.push_back({u"messages", std::move(messages)});
      rebuilt.members.push_back({u"validation", *heldView.find(u"validation")});
      rebuilt.members.push_back({u"usage", *heldView.find(u"usage")});
      CHECK(json(rebuilt) == json(envelopeOutput(cce::contextJson(requestWith("view", state)))));
      while (sent.find(u"usage")->find(u"shouldCompress")->boolean) {
        const std::string now = ",\"now\":" + std::to_string(i);
        sent = envelopeOutput(cce::contextJson(requestWith("compress", state, now)));
        kept = held("compress", now);
        state = *sent.find(u"state");
        CHECK(json(without(kept, u"ledger")) == json(without(sent, u"state")));
        const Value& delta = *kept.find(u"ledger");
        CHECK(json(*delta.find(u"checkpoints")) == json(*state.find(u"checkpoints")));
        CHECK(json(*delta.find(u"summaryTokens")) == json(*state.find(u"summaryTokens")));
        ++compressions;
      }
    }
    CHECK(compressions > 0);
    // The held state, written out, is the state sent back and forth.
    Value saved = held("save", "");
    REQUIRE(saved.isObject());
    CHECK(json(*saved.find(u"state")) == json(state));
    const double before =
        envelopeOutput(cce::contextJson(R"({"op":"close","handle":0})")).find(u"open")->number;
    Value closed = envelopeOutput(cce::contextJson(R"({"op":"close","handle":)" + handle + "}"));
    CHECK(closed.find(u"open")->number == before - 1);
    Value gone = parse(cce::contextJson(R"({"op":"view","handle":)" + handle + "}"));
    CHECK_FALSE(gone.find(u"ok")->boolean);
  }
}

TEST_SUITE("context") {
  TEST_CASE("contextJson without fold and unfold (the wasm builds) answers them as unknown ops") {
    const std::string chain =
        R"([{"role":"assistant","content":null,"tool_calls":[{"id":"c","function":{"name":"f","arguments":"{}"}}]},)"
        R"({"role":"tool","tool_call_id":"c","content":"r"}])";
    for (const char* op : {"fold", "unfold"}) {
      const std::string request = std::string(R"({"op":")") + op + R"(","messages":)" + chain + "}";
      Value without = parse(cce::contextJson(request, {nullptr, nullptr}));
      CHECK_FALSE(without.find(u"ok")->boolean);
      CHECK(u8(without.find(u"error")->find(u"message")->string) ==
            std::string("unknown op \"") + op + "\"");
      Value with = parse(cce::contextJson(request));
      CHECK(with.find(u"ok")->boolean);
    }
    // The other message-list ops are served either way.
    Value check =
        parse(cce::contextJson(R"({"op":"check","messages":)" + chain + "}", {nullptr, nullptr}));
    CHECK(check.find(u"ok")->boolean);
  }
}

// The engine's keyed tables are vectors (no std::map / std::set in the session module): these pin
// what the trees gave, whatever the order in which keys arrive.
TEST_SUITE("context") {
  TEST_CASE("host counts answered in any order are each found by their key") {
    Value state = *envelopeOutput(cce::contextJson(
                       R"({"op":"create","config":{"contextWindow":100000,"tokenCounter":true}})"))
                       .find(u"state");
    std::string messages;
    for (int i = 0; i < 7; ++i) {
      messages += std::string(i ? "," : "") + R"({"role":")" + (i % 2 ? "assistant" : "user") +
                  R"(","content":"message )" + std::to_string(i) + "\"}";
    }
    std::string add = requestWith("add", state, R"(,"messages":[)" + messages + "]");
    Value pending = parse(cce::contextJson(add));
    REQUIRE(pending.find(u"pending"));
    const std::vector<Value>& counts = pending.find(u"pending")->find(u"counts")->items;
    REQUIRE(counts.size() == 7);
    // Answered newest first, with a key nobody asked for in between: message i counts 10 + i.
    std::string answers = R"("c-unasked":99)";
    for (std::size_t i = counts.size(); i > 0; --i) {
      answers += ",\"" + u8(counts[i - 1].find(u"key")->string) + "\":" + std::to_string(9 + i);
    }
    Value added = envelopeOutput(
        cce::contextJson(add.substr(0, add.size() - 1) + R"(,"host":{"counts":{)" + answers + "}}}"));
    REQUIRE(added.isObject());
    CHECK(json(*added.find(u"state")->find(u"tokens")) == "[10,11,12,13,14,15,16]");
  }

  TEST_CASE("a state's summaryTokens go back in key order, numbers only") {
    Value state = *envelopeOutput(cce::contextJson(
                       R"({"op":"create","config":{"contextWindow":1000,"tokenCounter":true}})"))
                       .find(u"state");
    state.find(u"summaryTokens")->members =
        parse(R"({"cz":1,"ca":2,"cc":"x","cb":3,"a":4})").members;
    Value opened = envelopeOutput(cce::contextJson(
        R"({"op":"open","echo":true,"state":)" + json(state) + "}"));
    REQUIRE(opened.isObject());
    CHECK(json(*opened.find(u"state")->find(u"summaryTokens")) ==
          R"({"a":4,"ca":2,"cb":3,"cz":1})");
    cce::contextJson(R"({"op":"close","handle":)" + json(*opened.find(u"handle")) + "}");
  }

  TEST_CASE("a state's non-ASCII summaryTokens keys come back as they were read") {
    Value state = *envelopeOutput(cce::contextJson(
                       R"({"op":"create","config":{"contextWindow":1000,"tokenCounter":true}})"))
                       .find(u"state");
    // Written in UTF-8 byte order: e (65), é (C3 A9), 日 (E6 97 A5), a lone surrogate (WTF-8:
    // ED A0 80), 😀 (F0 9F 98 80).
    state.find(u"summaryTokens")->members =
        parse(R"({"\ud800x":5,"\ud83d\ude00":4,"\u65e5":3,"\u00e9":2,"e":1})").members;
    const std::string request = R"({"op":"open","echo":true,"state":)" + json(state) + "}";
    Value opened = envelopeOutput(cce::contextJson(request));
    REQUIRE(opened.isObject());
    CHECK(json(*opened.find(u"state")->find(u"summaryTokens")) ==
          json(parse(R"({"e":1,"\u00e9":2,"\u65e5":3,"\ud800x":5,"\ud83d\ude00":4})")));
    cce::contextJson(R"({"op":"close","handle":)" + json(*opened.find(u"handle")) + "}");
  }

  TEST_CASE("a state whose checkpoints repeat an id is refused at the repeat") {
    Value state =
        *envelopeOutput(cce::contextJson(R"({"op":"create","config":{"contextWindow":1000}})"))
             .find(u"state");
    state.find(u"messages")->items = fromPattern("uauaua", 1);
    state.find(u"tokens")->items.assign(6, Value::fromNumber(1));
    auto checkpoint = [](const char* id, int start) {
      return parse(std::string(R"({"id":")") + id +
                   R"(","createdAt":null,"summary":"s","originalMessageIds":["a","b"],)"
                   R"("messageRange":{"start":)" + std::to_string(start) + R"(,"end":)" +
                   std::to_string(start + 2) +
                   R"(},"originalTokens":2,"compressedTokens":1,"compressionRatio":2,)"
                   R"("level":"compact","compressionNumber":1,"summarizer":"deterministic"})");
    };
    std::vector<Value>& cps = state.find(u"checkpoints")->items;
    cps.push_back(checkpoint("cp-1", 0));
    cps.push_back(checkpoint("cp-2", 2));
    CHECK(envelopeOutput(cce::contextJson(requestWith("usage", state))).isObject());
    cps.push_back(checkpoint("cp-1", 4));
    Value refused = parse(cce::contextJson(requestWith("usage", state)));
    CHECK_FALSE(refused.find(u"ok")->boolean);
    CHECK(u8(refused.find(u"error")->find(u"path")->string) == "/state/checkpoints/2/id");
  }
}
