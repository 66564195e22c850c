// SPDX-License-Identifier: MIT
// The safe mode's built-in token estimate (issue 6 item 7): the option, the defaults, the counts.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "budget.h"
#include "cce.h"
#include "json_io.h"
#include "jscompat/string.h"
#include "pipeline.h"
#include "request.h"
#include "token_estimate.h"
#include "unit_util.h"

namespace {

using cce::json::Value;
using cce::test::compressOutput;
using cce::test::restoredJson;

std::string msg(const std::string& id, const std::string& role, const std::string& content) {
  return "{\"id\":\"" + id + "\",\"role\":\"" + role + "\",\"content\":\"" + content + "\"}";
}

std::string repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

// 30 ideographs: 0.858 tokens each under the script estimate, 30 / 3.5 by length.
const std::string kHan = "我们需要把数据库迁移到新的服务器上并且在迁移之前完成全部备份";

cce::Result<bool> parseOptions(const std::string& json, cce::CompressOptions& out) {
  cce::Result<Value> v = cce::parseJson(json);
  REQUIRE(v.ok());
  return cce::parseCompressOptions(&v.value(), out);
}

double scriptOf(const Value* text) {
  return text && text->isString() ? cce::estimateTokens(text->string) : 0;
}

// The built-in count of `messages`, written out independently of the engine: by length, the
// reference's ceil(len / 3.5) of string contents; by script, the billing estimate (the script
// estimate of the content, 4 tokens a message, and 3 a tool call plus its name and arguments).
double contentTokens(const Value& messages, cce::TokenEstimate estimate) {
  double total = 0;
  for (const Value& m : messages.items) {
    const Value* c = m.find(u"content");
    if (estimate == cce::TokenEstimate::Chars) {
      if (c && c->isString()) total += std::ceil(c->string.size() / 3.5);
      continue;
    }
    total += 4 + scriptOf(c);
    const Value* calls = m.find(u"tool_calls");
    if (!calls || !calls->isArray()) continue;
    for (const Value& call : calls->items) {
      const Value* fn = call.isObject() ? call.find(u"function") : nullptr;
      total += 3 + scriptOf(fn ? fn->find(u"name") : nullptr) +
               scriptOf(fn ? fn->find(u"arguments") : nullptr);
    }
  }
  return total;
}

}  // namespace

TEST_SUITE("safe_estimate") {
  TEST_CASE("reads tokenEstimate as script or chars and rejects anything else") {
    cce::CompressOptions o;
    REQUIRE(parseOptions("{\"tokenEstimate\":\"chars\"}", o).ok());
    CHECK(o.tokenEstimate == cce::TokenEstimate::Chars);
    REQUIRE(parseOptions("{\"tokenEstimate\":\"script\"}", o).ok());
    CHECK(o.tokenEstimate == cce::TokenEstimate::Script);
    cce::CompressOptions unset;
    REQUIRE(parseOptions("{\"tokenEstimate\":null}", unset).ok());
    CHECK_FALSE(unset.tokenEstimate.has_value());
    for (const char* bad : {"{\"tokenEstimate\":\"words\"}", "{\"tokenEstimate\":1}",
                            "{\"tokenEstimate\":\"Script\"}"}) {
      CAPTURE(bad);
      cce::CompressOptions b;
      cce::Result<bool> r = parseOptions(bad, b);
      REQUIRE_FALSE(r.ok());
      CHECK(r.error().code == cce::ErrorCode::InvalidInput);
      CHECK(r.error().path == "/options/tokenEstimate");
    }
  }

  TEST_CASE("the safe mode estimates by script and compat mode by length unless told otherwise") {
    cce::CompressOptions safe;
    CHECK(cce::tokenEstimateOf(safe) == cce::TokenEstimate::Script);
    cce::CompressOptions compat;
    compat.compat = cce::Compat::Cce10;
    CHECK(cce::tokenEstimateOf(compat) == cce::TokenEstimate::Chars);
    safe.tokenEstimate = cce::TokenEstimate::Chars;
    CHECK(cce::tokenEstimateOf(safe) == cce::TokenEstimate::Chars);
    compat.tokenEstimate = cce::TokenEstimate::Script;
    CHECK(cce::tokenEstimateOf(compat) == cce::TokenEstimate::Script);
  }

  TEST_CASE("counts an ideograph as 0.858 tokens by script and 1/3.5 by length") {
    auto in = cce::test::messagesFrom("[" + msg("1", "user", repeat(kHan, 10)) + "]");
    cce::CountedMessage counted;
    counted.source = &in.views[0];
    cce::CompressOptions safe;
    // 300 ideographs: ceil(300 * 0.858) = 258 against ceil(300 / 3.5) = 86; the script estimate
    // bills the message overhead (4) too.
    CHECK(cce::countTokens(counted, safe).value == 258 + 4);
    CHECK(in.views[0].scriptTokens == 258);  // remembered for the next count
    CHECK(cce::countTokens(counted, safe).value == 258 + 4);
    cce::CompressOptions chars;
    chars.tokenEstimate = cce::TokenEstimate::Chars;
    CHECK(cce::countTokens(counted, chars).value == 86);
    // A rebuilt content is estimated as such, not from the source's cache.
    const std::u16string replacement = u"short";
    counted.content = &replacement;
    CHECK(cce::countTokens(counted, safe).value == cce::estimateTokens(replacement) + 4);
  }

  TEST_CASE("token_ratio and tokenCount use the script estimate by default") {
    std::string prose;
    for (int i = 0; i < 6; ++i) {
      prose += "The migration of table number " + std::to_string(i) +
               " must finish before the cutover window closes tonight. ";
    }
    const std::string messages =
        "[" + msg("s", "system", "Be brief.") + "," + msg("u1", "user", repeat(kHan, 8)) + "," +
        msg("a1", "assistant", prose) + "," + msg("u2", "user", "Status?") + "]";
    cce::Result<Value> input = cce::parseJson(messages);
    REQUIRE(input.ok());
    for (cce::TokenEstimate estimate : {cce::TokenEstimate::Script, cce::TokenEstimate::Chars}) {
      const bool script = estimate == cce::TokenEstimate::Script;
      CAPTURE(script);
      const std::string name = script ? "" : ",\"tokenEstimate\":\"chars\"";
      Value out = compressOutput(messages, "{\"recencyWindow\":1" + name + "}");
      const Value& stats = *out.find(u"compression");
      REQUIRE(stats.find(u"messages_compressed")->number >= 1);
      const double in = contentTokens(input.value(), estimate);
      const double kept = contentTokens(*out.find(u"messages"), estimate);
      CHECK(stats.find(u"token_ratio")->number == doctest::Approx(in / kept).epsilon(1e-12));

      const double budget = std::floor(in * 0.6);
      Value budgeted = compressOutput(
          messages, "{\"tokenBudget\":" + std::to_string(static_cast<int>(budget)) + name + "}");
      CHECK(budgeted.find(u"tokenCount")->number ==
            contentTokens(*budgeted.find(u"messages"), estimate));
      CHECK(budgeted.find(u"fits")->boolean ==
            (budgeted.find(u"tokenCount")->number <= budget));
    }
  }

  TEST_CASE("a budget on CJK text converges under the script estimate") {
    // Ten long Chinese exchanges: the length estimate sees a third of the real tokens.
    std::string messages = "[" + msg("s", "system", "回答要简洁。");
    for (int i = 0; i < 10; ++i) {
      messages += "," + msg("u" + std::to_string(i), "user", repeat(kHan, 6) + "。");
      messages += "," + msg("a" + std::to_string(i), "assistant", repeat(kHan, 5) + "。");
    }
    messages += "," + msg("q", "user", "备份需要多长时间？") + "]";
    cce::Result<Value> input = cce::parseJson(messages);
    REQUIRE(input.ok());
    const double script = contentTokens(input.value(), cce::TokenEstimate::Script);
    const double chars = contentTokens(input.value(), cce::TokenEstimate::Chars);
    CHECK(script > 2.4 * chars);
    const double budget = std::floor(script * 0.4);
    Value out = compressOutput(
        messages, "{\"tokenBudget\":" + std::to_string(static_cast<int>(budget)) + "}");
    CHECK(out.find(u"fits")->boolean);
    const double counted = contentTokens(*out.find(u"messages"), cce::TokenEstimate::Script);
    CHECK(out.find(u"tokenCount")->number == counted);
    CHECK(counted <= budget);
    // By length the same budget already holds the whole input: nothing would be compressed.
    CHECK(chars <= budget);
  }

  TEST_CASE("budgets on real transcripts count by script, report it and round-trip") {
    const std::string dir = cce::test::testDataDir() + "/data/real";
    std::size_t conversations = 0, fitting = 0;
    for (const char* file : {"claude_code_ccviewer.json", "swe_agent_trajectories.json"}) {
      const std::string text = cce::test::readFile(dir + "/" + file);
      if (text.empty()) FAIL("cannot read " << dir << "/" << file);
      cce::Result<Value> all = cce::parseJson(text);
      REQUIRE(all.ok());
      for (std::size_t c = 0; c < all->items.size(); ++c) {
        CAPTURE(file);
        CAPTURE(c);
        const Value& conversation = all->items[c];
        const std::string messages = cce::js::toJson(conversation);
        const double budget =
            std::floor(contentTokens(conversation, cce::TokenEstimate::Script) * 0.3);
        Value out = compressOutput(
            messages, "{\"tokenBudget\":" + cce::js::toJson(Value::fromNumber(budget)) + "}");
        const double tokens = out.find(u"tokenCount")->number;
        CHECK(tokens == contentTokens(*out.find(u"messages"), cce::TokenEstimate::Script));
        CHECK(out.find(u"fits")->boolean == (tokens <= budget));
        CHECK(restoredJson(out) == messages);
        ++conversations;
        fitting += out.find(u"fits")->boolean ? 1 : 0;
      }
    }
    CHECK(conversations == 32);
    CHECK(fitting * 2 > conversations);
  }

  TEST_CASE("the script estimate bills each message's overhead and its tool calls") {
    // Names and arguments count when they are strings (OpenAI Chat sends arguments as JSON text);
    // a call without a function object still costs its 3 tokens.
    auto in = cce::test::messagesFrom(R"([
      {"id":"a","role":"assistant","content":null,"tool_calls":[
        {"id":"c1","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"src/main.cpp\"}"}},
        {"id":"c2","type":"function","function":{"name":"grep","arguments":{"pattern":"TODO","n":3}}},
        {"id":"c3","type":"custom"}]},
      {"id":"t","role":"tool","tool_call_id":"c1","content":"int main() {}"},
      {"id":"u","role":"user","content":"Fix it."}])");
    const cce::Message& a = in.views[0];
    const double calls = 3 + cce::estimateTokens(u"read_file") +
                         cce::estimateTokens(u"{\"path\":\"src/main.cpp\"}") + 3 +
                         cce::estimateTokens(u"grep") + 3;
    CHECK(calls > 15);
    CHECK(a.toolCallTokens == calls);
    cce::CompressOptions safe;
    cce::CountedMessage counted;
    counted.source = &a;
    CHECK(cce::countTokens(counted, safe).value == cce::kMessageOverheadTokens + calls);
    // A rebuilt content keeps the calls (the host spreads the source object into it).
    const std::u16string stub = u"[summary: reads main]";
    counted.content = &stub;
    CHECK(cce::countTokens(counted, safe).value ==
          cce::estimateTokens(stub) + cce::kMessageOverheadTokens + calls);
    counted.source = &in.views[2];
    counted.content = nullptr;
    CHECK(cce::countTokens(counted, safe).value == cce::estimateTokens(u"Fix it.") + 4);

    // The reference's counts stay: cce-1.0 (whatever its estimate), "chars", a tokenCounter.
    counted.source = &a;
    cce::CompressOptions compat;
    compat.compat = cce::Compat::Cce10;
    CHECK(cce::countTokens(counted, compat).value == 0);
    compat.tokenEstimate = cce::TokenEstimate::Script;
    CHECK(cce::countTokens(counted, compat).value == 0);
    cce::CompressOptions chars;
    chars.tokenEstimate = cce::TokenEstimate::Chars;
    CHECK(cce::countTokens(counted, chars).value == 0);
    cce::CompressOptions counter;
    counter.tokenCounter = [](const cce::CountedMessage&) { return cce::TokenCount{7, false}; };
    CHECK(cce::countTokens(counted, counter).value == 7);
    CHECK(cce::estimateMessageTokens(counted, counter) == 0);
  }

  TEST_CASE("a budget counts tool-call arguments: fits means the billed count fits") {
    // Three old tool rounds with long arguments and long results, then the question.
    std::string args = "{\\\"patch\\\":\\\"" + repeat("- old line of code\\n+ new line of code\\n", 12) +
                       "\\\"}";
    std::string messages = "[" + msg("s", "system", "You edit code.");
    for (int i = 0; i < 3; ++i) {
      const std::string n = std::to_string(i);
      messages += ",{\"id\":\"a" + n + "\",\"role\":\"assistant\",\"content\":\"Applying patch " + n +
                  ".\",\"tool_calls\":[{\"id\":\"c" + n + "\",\"type\":\"function\",\"function\":" +
                  "{\"name\":\"apply_patch\",\"arguments\":\"" + args + "\"}}]}";
      messages += ",{\"id\":\"t" + n + "\",\"role\":\"tool\",\"tool_call_id\":\"c" + n +
                  "\",\"content\":\"" + repeat("The patch applied cleanly and the build of the module went on. ", 10) + "\"}";
    }
    messages += "," + msg("q", "user", "Did all three apply?") + "]";
    cce::Result<Value> input = cce::parseJson(messages);
    REQUIRE(input.ok());
    const double billed = contentTokens(input.value(), cce::TokenEstimate::Script);
    double text = 0;
    for (const Value& m : input->items) text += scriptOf(m.find(u"content"));
    CHECK(billed > text + 300);  // the arguments are a good part of what is billed
    const double budget = std::floor(billed * 0.6);
    Value out = compressOutput(
        messages, "{\"tokenBudget\":" + std::to_string(static_cast<int>(budget)) + "}");
    const double tokens = out.find(u"tokenCount")->number;
    CHECK(tokens == contentTokens(*out.find(u"messages"), cce::TokenEstimate::Script));
    CHECK(out.find(u"fits")->boolean == (tokens <= budget));
    CHECK(out.find(u"fits")->boolean);
    CHECK(restoredJson(out) == messages);
  }
}
