// SPDX-License-Identifier: MIT
// The safe default mode (issue 6): each fix next to the reference behaviour it replaces.
#include <doctest/doctest.h>

#include <string>

#include "cce.h"
#include "json_io.h"
#include "jscompat/json_writer.h"
#include "unit_util.h"

namespace {

using cce::json::Value;

std::string repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

const std::string kProse =
    "The service retries the upload after a short pause and logs every failed attempt. ";

Value compressed(const std::string& messages, const std::string& options) {
  return cce::test::compressOutput(messages, options);
}

std::string restored(const Value& result) { return cce::test::restoredJson(result); }

std::string contentOf(const Value& result, std::size_t i) {
  return cce::js::toJson(*result.find(u"messages")->items[i].find(u"content"));
}

double stat(const Value& result, const char16_t* key) {
  const Value* v = result.find(u"compression")->find(key);
  return v ? v->number : -1;
}

std::string toolPair() {
  return "[{\"id\":\"a\",\"role\":\"assistant\",\"content\":\"\",\"tool_calls\":[{\"id\":\"c1\"},"
         "{\"id\":\"c2\"}]},"
         "{\"id\":\"t1\",\"role\":\"tool\",\"tool_call_id\":\"c1\",\"name\":\"read\",\"content\":\"" +
         repeat(kProse, 3) +
         "\"},"
         "{\"id\":\"t2\",\"role\":\"tool\",\"tool_call_id\":\"c2\",\"name\":\"grep\","
         "\"content\":\"" +
         repeat("Another observation about the build cache and its eviction policy. ", 3) +
         "\"},{\"id\":\"u\",\"role\":\"user\",\"content\":\"thanks\"}]";
}

}  // namespace

TEST_SUITE("safe mode") {
  TEST_CASE("answers to different tool calls stay separate messages with their call ids") {
    Value safe = compressed(toolPair(), "{\"recencyWindow\":0}");
    const Value& out = *safe.find(u"messages");
    REQUIRE(out.items.size() == 4);
    CHECK(out.items[1].find(u"tool_call_id")->string == u"c1");
    CHECK(out.items[2].find(u"tool_call_id")->string == u"c2");
    CHECK(out.items[2].find(u"name")->string == u"grep");
    CHECK(contentOf(safe, 1).rfind("\"[summary: ", 0) == 0);
    CHECK(contentOf(safe, 2).rfind("\"[summary: ", 0) == 0);

    // The reference merges them and keeps only the first call id: c2 loses its answer.
    Value reference = compressed(toolPair(), "{\"recencyWindow\":0,\"compat\":\"cce-1.0\"}");
    CHECK(reference.find(u"messages")->items.size() == 3);
  }

  TEST_CASE("forceConverge leaves untouched messages alone, so the round trip is exact") {
    std::string items;
    for (int i = 0; items.size() < 780; ++i) {
      items += (i ? "," : "") + std::string("{\\\"k\\\":") + std::to_string(i) + "}";
    }
    const std::string messages =
        "[{\"id\":\"0\",\"role\":\"user\",\"content\":\"{\\\"items\\\":[" + items +
        "]}\"},{\"id\":\"1\",\"role\":\"assistant\",\"content\":\"short reply\"},"
        "{\"id\":\"2\",\"role\":\"user\",\"content\":\"another short one\"}]";
    // A budget the truncation alone meets (268 tokens of 390; the truncated text is 249, o200k
    // counts it 240): the ladder is not needed.
    const std::string options = "{\"tokenBudget\":275,\"forceConverge\":true";
    Value safe = compressed(messages, options + "}");
    CHECK(contentOf(safe, 0).rfind("\"[truncated \u2014 ", 0) == 0);
    CHECK(safe.find(u"messages")->items[1].find(u"metadata") == nullptr);
    CHECK(restored(safe) == messages);
    CHECK(stat(safe, u"messages_truncated") == 1);
    CHECK(stat(safe, u"messages_preserved") == 2);
    CHECK(stat(safe, u"ratio") > 1);

    // The reference adds `metadata: {}` everywhere and reports ratio 1.
    Value reference = compressed(
        messages, "{\"tokenBudget\":10,\"forceConverge\":true,\"compat\":\"cce-1.0\"}");
    CHECK(reference.find(u"messages")->items[1].find(u"metadata") != nullptr);
    CHECK(restored(reference) != messages);
    CHECK(stat(reference, u"ratio") == 1);
  }

  TEST_CASE("truncating an earlier round's summary keeps it, linked through parent_ids") {
    const std::string earlier =
        "[{\"id\":\"s\",\"role\":\"user\",\"content\":\"" + repeat("x", 900) +
        "\",\"metadata\":{\"_cce_original\":{\"ids\":[\"p\",\"q\"],\"summary_id\":\"cce_sum_old\","
        "\"version\":0}}},{\"id\":\"n\",\"role\":\"user\",\"content\":\"now\"}]";
    Value safe = compressed(earlier, "{\"tokenBudget\":60,\"forceConverge\":true}");
    const Value& first = safe.find(u"messages")->items[0];
    const Value* original = first.find(u"metadata")->find(u"_cce_original");
    REQUIRE(original != nullptr);
    CHECK(cce::js::toJson(*original->find(u"ids")) == "[\"s\"]");
    CHECK(cce::js::toJson(*original->find(u"parent_ids")) == "[\"cce_sum_old\"]");
    CHECK(safe.find(u"verbatim")->find(u"s") != nullptr);
    // A budget with no room even for a marker folds it into the newest message: still linked.
    Value folded = compressed(earlier, "{\"tokenBudget\":5,\"forceConverge\":true}");
    REQUIRE(folded.find(u"messages")->items.size() == 1);
    const Value* link =
        folded.find(u"messages")->items[0].find(u"metadata")->find(u"_cce_original");
    REQUIRE(link != nullptr);
    CHECK(cce::js::toJson(*link->find(u"ids")) == "[\"s\",\"n\"]");
    CHECK(cce::js::toJson(*link->find(u"parent_ids")) == "[\"cce_sum_old\"]");
    CHECK(restored(folded) == earlier);
  }

  TEST_CASE("a run whose only change is a near-duplicate reports its real ratio") {
    std::string lines;
    for (int i = 0; i < 20; ++i) {
      lines += "line " + std::to_string(i) + ": config entry " + std::to_string(i) + " = enabled\\n";
    }
    std::string variant = lines;
    variant.replace(variant.find("entry 7"), 7, "entry 7b");
    // v2 and u sit in the recency window; v1 becomes a near-duplicate of v2.
    const std::string messages = "[{\"id\":\"v1\",\"role\":\"user\",\"content\":\"" + lines +
                                 "\"},{\"id\":\"v2\",\"role\":\"user\",\"content\":\"" + variant +
                                 "\"},{\"id\":\"u\",\"role\":\"user\",\"content\":\"ok\"}]";
    const std::string options = "{\"recencyWindow\":2,\"fuzzyDedup\":true";
    Value safe = compressed(messages, options + "}");
    CHECK(stat(safe, u"messages_fuzzy_deduped") == 1);
    CHECK(stat(safe, u"ratio") > 1);
    Value reference = compressed(messages, options + ",\"compat\":\"cce-1.0\"}");
    CHECK(stat(reference, u"messages_fuzzy_deduped") == 1);
    CHECK(stat(reference, u"ratio") == 1);
  }

  TEST_CASE("an unknown compat name is a typed error") {
    std::string envelope = cce::compressJson(
        "{\"messages\":[],\"options\":{\"compat\":\"cce-2\"}}");
    CHECK(envelope.find("\"code\":\"InvalidInput\"") != std::string::npos);
    CHECK(envelope.find("\"path\":\"/options/compat\"") != std::string::npos);
  }
}
