// SPDX-License-Identifier: MIT
// Token budgets (spec §9): fast path, search result, forceConverge.
#include <doctest/doctest.h>

#include <string>

#include "budget.h"
#include "pipeline.h"
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
  TEST_CASE("a budget that already fits returns the input unchanged (spec §13.12)") {
    auto in = cce::test::messagesFrom(R"([{"id":"1","role":"user","content":"hi"}])");
    cce::CompressOptions o;
    o.tokenBudget = 100;
    cce::CompressResult r = cce::compress(in.views, o);
    CHECK(r.fastPath);
    CHECK(cce::test::resultJson(r, in) ==
          "{\"messages\":[{\"id\":\"1\",\"role\":\"user\",\"content\":\"hi\"}],\"compression\":{"
          "\"original_version\":0,\"ratio\":1,\"token_ratio\":1,\"messages_compressed\":0,"
          "\"messages_preserved\":1},\"verbatim\":{},\"fits\":true,\"tokenCount\":1,"
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
}
