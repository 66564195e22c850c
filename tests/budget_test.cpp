// SPDX-License-Identifier: MIT
// Token budgets (spec §9): fast path, search result, forceConverge.
#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <vector>

#include "budget.h"
#include "escalation.h"
#include "pipeline.h"
#include "token_estimate.h"
#include "cce.h"
#include "unit_util.h"

namespace {

std::string repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

}  // namespace

TEST_SUITE("budget") {
  TEST_CASE("a replaced text forgets its remembered estimate whenever it changes") {
    // The budget search counts summaries on every run through this cache: a text changed by
    // forceConverge or the escalation ladder must be estimated again.
    cce::OutputMessage out;
    out.content = u"a summary of several words";
    cce::CountedMessage counted;
    cce::Message source;
    counted.source = &source;
    counted.content = &*out.content;
    counted.contentScriptTokens = &out.content.scriptTokens();
    cce::CompressOptions o;  // the safe mode: script estimate
    // The default estimate bills the message's overhead beside its text (the source has no calls).
    const double overhead = cce::kMessageOverheadTokens;
    const double first = cce::estimateMessageTokens(counted, o);
    CHECK(first == cce::estimateTokens(u"a summary of several words") + overhead);
    REQUIRE(out.content.scriptTokens().has_value());
    out.content.scriptTokens() = 1000;  // what is remembered is what is used
    CHECK(cce::estimateMessageTokens(counted, o) == 1000 + overhead);
    out.content = u"[truncated — 9000 chars: a]";
    CHECK_FALSE(out.content.scriptTokens().has_value());
    counted.content = &*out.content;
    CHECK(cce::estimateMessageTokens(counted, o) == cce::estimateTokens(*out.content) + overhead);
    cce::OutputMessage copy = out;
    CHECK(copy.content.scriptTokens() == out.content.scriptTokens());
  }

  TEST_CASE("a budget that already fits returns the input unchanged (spec §13.12)") {
    auto in = cce::test::messagesFrom(R"([{"id":"1","role":"user","content":"hi"}])");
    cce::CompressOptions o;
    o.tokenBudget = 100;
    cce::CompressResult r = cce::compress(in.views, o);
    CHECK(r.fastPath);
    // "hi" is one token, and the message is billed cce::kMessageOverheadTokens more.
    CHECK(cce::test::resultJson(r, in) ==
          "{\"messages\":[{\"id\":\"1\",\"role\":\"user\",\"content\":\"hi\"}],\"compression\":{"
          "\"original_version\":0,\"ratio\":1,\"token_ratio\":1,\"messages_compressed\":0,"
          "\"messages_preserved\":1},\"verbatim\":{},\"fits\":true,\"tokenCount\":5,"
          "\"recencyWindow\":1}");
  }

  TEST_CASE("forceConverge truncates JSON it could not summarise (spec §13.11)") {
    std::string items;
    for (int i = 0; items.size() < 780; ++i) {
      items += (i ? "," : "") + std::string("{\\\"k\\\":") + std::to_string(i) + "}";
    }
    const std::string json = "{\\\"items\\\":[" + items + "]}";
    auto in = cce::test::messagesFrom("[{\"id\":\"0\",\"role\":\"user\",\"content\":\"" + json +
                                      "\"},{\"id\":\"1\",\"role\":\"assistant\",\"content\":"
                                      "\"short reply\"},{\"id\":\"2\",\"role\":\"user\","
                                      "\"content\":\"another short one\"}]");
    cce::CompressOptions o;
    o.compat = cce::Compat::Cce10;
    o.tokenBudget = 10;
    o.forceConverge = true;
    cce::CompressResult r = cce::compress(in.views, o);
    REQUIRE(r.budget);
    CHECK_FALSE(r.budget->fits);
    CHECK(r.budget->recencyWindow == 0);
    CHECK(r.compression.messagesPreserved == 3);
    REQUIRE(r.messages[0].content);
    CHECK(r.messages[0].content->rfind(u"[truncated \u2014 ", 0) == 0);
    for (const cce::OutputMessage& m : r.messages) CHECK(m.ensureMetadata);
    REQUIRE(r.verbatim.size() == 1);
    CHECK(r.verbatim[0].ensureMetadata);
    const std::string out = cce::test::resultJson(r, in);
    CHECK(out.find("\"content\":\"short reply\",\"metadata\":{}") != std::string::npos);
  }

  TEST_CASE("the search keeps the largest window that fits") {
    const std::string prose =
        "The deployment pipeline retries failed uploads three times before it gives up. ";
    std::string list = "[";
    for (int i = 0; i < 12; ++i) {
      if (i) list += ",";
      list += "{\"id\":\"m" + std::to_string(i) + "\",\"role\":\"" +
              (i % 2 ? "assistant" : "user") + "\",\"content\":\"" + repeat(prose, 4) + "\"}";
    }
    auto in = cce::test::messagesFrom(list + "]");
    cce::CompressOptions o;
    o.dedup = false;
    o.tokenBudget = 500;
    cce::CompressResult r = cce::compress(in.views, o);
    REQUIRE(r.budget);
    CHECK(r.budget->fits);
    CHECK(r.budget->tokenCount <= 500);
    // One more recent message kept verbatim would not fit.
    cce::CompressOptions wider = o;
    wider.tokenBudget.reset();
    wider.recencyWindow = r.budget->recencyWindow + 1;
    cce::CompressResult next = cce::compress(in.views, wider);
    bool pending = false;
    CHECK(cce::countOutputTokens(in.views, next, wider, pending) > 500);
  }
  TEST_CASE("forceConverge is on by default with a budget in the safe mode only") {
    struct Case {
      cce::Compat compat;
      std::optional<bool> explicitValue;
      bool converges;
    };
    const Case cases[] = {
        {cce::Compat::Safe, std::nullopt, true},  {cce::Compat::Safe, false, false},
        {cce::Compat::Safe, true, true},          {cce::Compat::Cce10, std::nullopt, false},
        {cce::Compat::Cce10, true, true},         {cce::Compat::Cce10, false, false},
    };
    for (const Case& c : cases) {
      CAPTURE(static_cast<int>(c.compat));
      CAPTURE(c.explicitValue.value_or(false));
      cce::CompressOptions o;
      o.compat = c.compat;
      o.forceConverge = c.explicitValue;
      CHECK(cce::convergesOnBudget(o) == c.converges);
    }
  }

  TEST_CASE("reads forceConverge as absent, true or false from JSON") {
    struct Case {
      const char* options;
      std::optional<bool> value;
    };
    const Case cases[] = {
        {"{}", std::nullopt},
        {"{\"forceConverge\":null}", std::nullopt},
        {"{\"forceConverge\":true}", true},
        {"{\"forceConverge\":false}", false},
    };
    for (const Case& c : cases) {
      CAPTURE(c.options);
      cce::Result<cce::json::Value> v = cce::parseJson(c.options);
      REQUIRE(v.ok());
      cce::CompressOptions o;
      REQUIRE(cce::parseCompressOptions(&v.value(), o).ok());
      CHECK(o.forceConverge == c.value);
    }
  }

  TEST_CASE("the safe search keeps the newest user turn verbatim when it fits on its own") {
    const std::string prose =
        "The deployment pipeline retries failed uploads three times before it gives up. ";
    const std::string later =
        "Caching the dependency layer shaved four minutes off every build on the runners. ";
    std::string list = "[";
    for (int i = 0; i < 6; ++i) {
      if (i) list += ",";
      list += "{\"id\":\"m" + std::to_string(i) + "\",\"role\":\"" +
              (i % 2 ? "assistant" : "user") + "\",\"content\":\"" +
              repeat(i < 4 ? prose : later, 3) + std::to_string(i) + "\"}";
    }
    auto in = cce::test::messagesFrom(list + "]");
    // The newest turn (m4, m5) costs 140 tokens; the whole conversation 412.
    cce::CompressOptions o;
    o.tokenBudget = 200;
    cce::CompressResult safe = cce::compress(in.views, o);
    REQUIRE(safe.budget);
    CHECK(safe.budget->fits);
    CHECK(safe.budget->recencyWindow >= 2);
    REQUIRE(safe.messages.size() >= 2);
    for (std::size_t k = safe.messages.size() - 2; k < safe.messages.size(); ++k) {
      CHECK_FALSE(safe.messages[k].content.has_value());
    }
    // The reference's search settles on a window that summarises part of that turn.
    cce::CompressOptions reference = o;
    reference.compat = cce::Compat::Cce10;
    cce::CompressResult r = cce::compress(in.views, reference);
    REQUIRE(r.budget);
    CHECK(r.budget->recencyWindow < 2);
  }

  TEST_CASE("forceConverge marks what it truncates on a message's own behalf") {
    std::string items;
    for (int i = 0; items.size() < 780; ++i) {
      items += (i ? "," : "") + std::string("{\\\"k\\\":") + std::to_string(i) + "}";
    }
    auto in = cce::test::messagesFrom(
        "[{\"id\":\"0\",\"role\":\"user\",\"content\":\"{\\\"items\\\":[" + items +
        "]}\"},{\"id\":\"1\",\"role\":\"user\",\"content\":\"short\"}]");
    cce::CompressOptions o;
    o.tokenBudget = 10;
    o.recencyWindow = 0;
    cce::CompressResult r = cce::runPipeline(in.views, o, 0);
    bool pending = false;
    r.budget = cce::BudgetOutcome{false, cce::countOutputTokens(in.views, r, o, pending), 0, {}};
    std::vector<cce::EntryKind> kinds = cce::entryKinds(r);
    CHECK(kinds == std::vector<cce::EntryKind>{cce::EntryKind::Preserved,
                                               cce::EntryKind::Preserved});
    cce::forceConverge(in.views, o, r, &kinds);
    CHECK(kinds == std::vector<cce::EntryKind>{cce::EntryKind::Truncated,
                                               cce::EntryKind::Preserved});
    CHECK(r.compression.messagesTruncated == 1);
  }
}
