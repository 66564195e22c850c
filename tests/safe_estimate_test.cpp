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

double contentTokens(const Value& messages, cce::TokenEstimate estimate) {
  double total = 0;
  for (const Value& m : messages.items) {
    const Value* c = m.find(u"content");
    if (!c || !c->isString()) continue;
    total += estimate == cce::TokenEstimate::Script ? cce::estimateTokens(c->string)
                                                    : std::ceil(c->string.size() / 3.5);
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
    // 300 ideographs: ceil(300 * 0.858) = 258 against ceil(300 / 3.5) = 86.
    CHECK(cce::countTokens(counted, safe).value == 258);
    CHECK(in.views[0].scriptTokens == 258);  // remembered for the next count
    CHECK(cce::countTokens(counted, safe).value == 258);
    cce::CompressOptions chars;
    chars.tokenEstimate = cce::TokenEstimate::Chars;
    CHECK(cce::countTokens(counted, chars).value == 86);
    // A rebuilt content is estimated as such, not from the source's cache.
    const std::u16string replacement = u"short";
    counted.content = &replacement;
    CHECK(cce::countTokens(counted, safe).value == cce::estimateTokens(replacement));
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
}
