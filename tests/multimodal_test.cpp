// SPDX-License-Identifier: MIT
// Safe mode, array content (issue 6 item 5): parts are read, counted, compressed and put back.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "cce.h"
#include "json_io.h"
#include "jscompat/json_writer.h"
#include "jscompat/string.h"
#include "pipeline.h"
#include "request.h"
#include "token_estimate.h"
#include "unit_util.h"

namespace {

using cce::json::Value;
using cce::test::compressOutput;
using cce::test::restoredJson;

// 242 characters of prose, four sentences, no hard reason: compressible on its own.
const std::string kProse =
    "We should batch the inserts in groups of 500 rows. The importer currently commits after "
    "every single row, which is slow. Profiling shows that importRows spends most of its time "
    "waiting on the database. A second fix is to disable the audit trigger during the import.";

const std::string kImage =
    R"({"type":"image_url","image_url":{"url":"https://example.com/chart.png"}})";

std::string text(const std::string& t) { return R"({"type":"text","text":")" + t + "\"}"; }

std::string msg(const std::string& id, const std::string& role, const std::string& content) {
  return "{\"id\":\"" + id + "\",\"role\":\"" + role + "\",\"content\":" + content + "}";
}

std::string contentJson(const Value& out, std::size_t i) {
  return cce::js::toJson(*out.find(u"messages")->items[i].find(u"content"));
}

}  // namespace

TEST_SUITE("multimodal") {
  TEST_CASE("reads text parts by their text, images by kind and other parts as JSON") {
    auto in = cce::test::messagesFrom(
        "[" +
        msg("1", "user",
            "[" + text("a") + "," + kImage +
                R"(,{"type":"image","source":{"type":"base64","data":"AAAA"}},)"
                R"({"type":"tool_use","id":"t1","name":"grep","input":{"q":"x"}},)"
                R"({"type":"text","text":7},{"type":"input_image","image_url":"u"}])") +
        "]");
    const cce::Message& m = in.views[0];
    REQUIRE(m.parts.size() == 6);
    CHECK(m.parts[0].kind == cce::ContentPart::Kind::Text);
    CHECK(m.parts[0].text == u"a");
    CHECK(m.parts[1].kind == cce::ContentPart::Kind::Image);
    CHECK(m.parts[1].text.empty());
    CHECK(m.parts[2].kind == cce::ContentPart::Kind::Image);
    CHECK(m.parts[3].kind == cce::ContentPart::Kind::Other);
    CHECK(m.parts[3].text ==
          u"{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"grep\",\"input\":{\"q\":\"x\"}}");
    CHECK(m.parts[4].kind == cce::ContentPart::Kind::Other);  // a text part without a string text
    CHECK(m.parts[5].kind == cce::ContentPart::Kind::Image);
    CHECK_FALSE(m.contentIsString);  // the view itself keeps the reference's reading
  }

  TEST_CASE("joins the text parts with a newline in the safe mode's working copy only") {
    auto in = cce::test::messagesFrom(
        "[" + msg("1", "user", "[" + text("first") + "," + kImage + "," + text("second") + "]") +
        "," + msg("2", "user", "\"plain\"") + "]");
    cce::CompressOptions safe;
    auto views = cce::textViewsOfParts(in.views, safe);
    REQUIRE(views.has_value());
    CHECK((*views)[0].multimodal);
    CHECK((*views)[0].contentIsString);
    CHECK((*views)[0].content == u"first\nsecond");
    CHECK_FALSE((*views)[1].multimodal);
    cce::CompressOptions compat;
    compat.compat = cce::Compat::Cce10;
    CHECK_FALSE(cce::textViewsOfParts(in.views, compat).has_value());
    auto plain = cce::test::messagesFrom("[" + msg("1", "user", "\"only text\"") + "]");
    CHECK_FALSE(cce::textViewsOfParts(plain.views, safe).has_value());
  }

  TEST_CASE("counts images as imageTokens and other parts by the estimate of their JSON") {
    const std::string toolUse = R"({"type":"tool_use","id":"t1","name":"grep","input":{}})";
    auto in = cce::test::messagesFrom(
        "[" + msg("1", "user", "[" + text("hello world") + "," + kImage + "," + kImage + "," +
                                   toolUse + "]") +
        "]");
    const std::u16string toolJson = in.views[0].parts[3].text;
    for (cce::TokenEstimate estimate : {cce::TokenEstimate::Script, cce::TokenEstimate::Chars}) {
      const bool script = estimate == cce::TokenEstimate::Script;
      CAPTURE(script);
      cce::CompressOptions o;
      o.tokenEstimate = estimate;
      auto views = cce::textViewsOfParts(in.views, o);
      REQUIRE(views.has_value());
      cce::CountedMessage counted;
      counted.source = &(*views)[0];
      auto est = [&](std::u16string_view t) {
        return script ? cce::estimateTokens(t) : std::ceil(t.size() / 3.5);
      };
      // The script estimate bills the message overhead too; "chars" keeps the reference's count.
      const double overhead = script ? cce::kMessageOverheadTokens : 0;
      CHECK(cce::countTokens(counted, o).value ==
            est(u"hello world") + 2 * 765 + est(toolJson) + overhead);
      o.imageTokens = 85;  // low detail
      CHECK(cce::countTokens(counted, o).value ==
            est(u"hello world") + 2 * 85 + est(toolJson) + overhead);
      // A replaced text keeps the other parts' cost.
      const std::u16string summary = u"[summary: hi]";
      counted.content = &summary;
      CHECK(cce::countTokens(counted, o).value == est(summary) + 2 * 85 + est(toolJson) + overhead);
    }
  }

  TEST_CASE("puts a summary into the first text part and keeps every other part in order") {
    const std::string parts = "[" + text("Look at this chart.") + "," + kImage + "," +
                              text(kProse) + R"(,{"type":"tool_result","tool_use_id":"t1"}])";
    const std::string messages = "[" + msg("u1", "user", parts) + "," +
                                 msg("a1", "assistant", "\"ok\"") + "]";
    Value out = compressOutput(messages, "{\"recencyWindow\":1}");
    CHECK(out.find(u"compression")->find(u"messages_compressed")->number == 1);
    const Value& content = *out.find(u"messages")->items[0].find(u"content");
    REQUIRE(content.isArray());
    REQUIRE(content.items.size() == 3);  // the second text part is dropped
    CHECK(content.items[0].find(u"type")->string == u"text");
    const std::u16string& summary = content.items[0].find(u"text")->string;
    CHECK(summary.rfind(u"[summary: Look at this chart. ... ", 0) == 0);
    CHECK(cce::js::toJson(content.items[1]) == kImage);
    CHECK(cce::js::toJson(content.items[2]) == R"({"type":"tool_result","tool_use_id":"t1"})");
    CHECK(restoredJson(out) == cce::js::toJson(cce::parseJson(messages).value()));
  }

  TEST_CASE("partsWithText keeps the first text part's other fields and adds one when missing") {
    Value parts = cce::parseJson(R"([{"type":"text","text":"a","cache_control":{"type":"x"}},)"
                                 R"({"type":"image","source":{}},{"type":"text","text":"b"}])")
                      .value();
    CHECK(cce::js::toJson(cce::partsWithText(parts, u"S")) ==
          R"([{"type":"text","text":"S","cache_control":{"type":"x"}},)"
          R"({"type":"image","source":{}}])");
    Value images = cce::parseJson(R"([{"type":"image","source":{}}])").value();
    CHECK(cce::js::toJson(cce::partsWithText(images, u"S")) ==
          R"([{"type":"text","text":"S"},{"type":"image","source":{}}])");
  }

  TEST_CASE("never merges nor deduplicates messages with content parts") {
    const std::string parts = "[" + text(kProse) + "," + kImage + "]";
    // Two consecutive user messages with parts, then the same text as a plain string: without
    // parts the reference would merge the first two and turn duplicates into references.
    const std::string messages = "[" + msg("u1", "user", parts) + "," + msg("u2", "user", parts) +
                                 "," + msg("u3", "user", "\"" + kProse + "\"") + "," +
                                 msg("a1", "assistant", "\"ok\"") + "]";
    Value out = compressOutput(messages, "{\"recencyWindow\":1}");
    const Value& stats = *out.find(u"compression");
    CHECK(stats.find(u"messages_deduped") == nullptr);
    CHECK(stats.find(u"messages_compressed")->number == 3);
    REQUIRE(out.find(u"messages")->items.size() == 4);
    for (std::size_t i : {0, 1}) {
      const Value& m = out.find(u"messages")->items[i];
      CHECK(m.find(u"metadata")->find(u"_cce_original")->find(u"ids")->items.size() == 1);
      CHECK(cce::js::toJson(m.find(u"content")->items[1]) == kImage);
    }
    CHECK(restoredJson(out) == cce::js::toJson(cce::parseJson(messages).value()));
  }

  TEST_CASE("compat mode keeps array content verbatim and counts it as empty") {
    const std::string parts = "[" + text(kProse) + "," + kImage + "]";
    const std::string messages =
        "[" + msg("u1", "user", parts) + "," + msg("a1", "assistant", "\"ok\"") + "]";
    Value out = compressOutput(
        messages, "{\"recencyWindow\":0,\"compat\":\"cce-1.0\",\"tokenBudget\":1}");
    CHECK(contentJson(out, 0) == parts);
    CHECK(out.find(u"tokenCount")->number == 1);  // only "ok": ceil(2 / 3.5)
  }

  TEST_CASE("a budget counts the images and summarises the text around them") {
    const std::string parts = "[" + text(kProse) + "," + kImage + "]";
    const std::string messages = "[" + msg("u1", "user", parts) + "," +
                                 msg("a1", "assistant", "\"Thanks, looking.\"") + "," +
                                 msg("u2", "user", "\"And now?\"") + "]";
    // With the image the input is 765 + about 70 tokens (texts and 4 a message): a budget of 805
    // needs the summary, which leaves u1 at 765 + 16 + 4 and the whole at 801.
    Value out = compressOutput(messages, "{\"tokenBudget\":805}");
    CHECK(out.find(u"fits")->boolean);
    CHECK(out.find(u"tokenCount")->number > 765);
    CHECK(out.find(u"compression")->find(u"messages_compressed")->number == 1);
    CHECK(cce::js::toJson(out.find(u"messages")->items[0].find(u"content")->items[1]) == kImage);
    // With cheaper images the whole input fits as it is.
    Value cheap = compressOutput(messages, "{\"tokenBudget\":805,\"imageTokens\":85}");
    CHECK(cheap.find(u"compression")->find(u"messages_compressed")->number == 0);
    CHECK(contentJson(cheap, 0) == parts);
    // Below the image alone only omission fits: a stub (carried by a1, as a message with parts
    // carries none) replaces u1 and a1, image included; verbatim keeps them.
    Value tight = compressOutput(messages, "{\"tokenBudget\":700}");
    CHECK(tight.find(u"fits")->boolean);
    CHECK(tight.find(u"compression")->find(u"messages_omitted")->number == 2);
    const Value& stub = tight.find(u"messages")->items[0];
    CHECK(stub.find(u"id")->string == u"a1");
    CHECK(stub.find(u"content")->string.rfind(u"[cce:omitted 2 messages", 0) == 0);
    CHECK(restoredJson(tight) == cce::js::toJson(cce::parseJson(messages).value()));
    // An image in the newest user turn is protected: that budget cannot be met.
    const std::string newest = "[" + msg("a0", "assistant", "\"Send it.\"") + "," +
                               msg("u1", "user", parts) + "]";
    Value blocked = compressOutput(newest, "{\"tokenBudget\":700}");
    CHECK_FALSE(blocked.find(u"fits")->boolean);
    CHECK(cce::js::toJson(*blocked.find(u"blockingIds")) == "[\"u1\"]");
  }

  TEST_CASE("rejects a negative imageTokens") {
    cce::Result<Value> envelope = cce::parseJson(cce::compressJson(
        R"({"messages":[{"id":"1","role":"user","content":"x"}],"options":{"imageTokens":-1}})"));
    REQUIRE(envelope.ok());
    const Value* error = envelope->find(u"error");
    REQUIRE(error != nullptr);
    CHECK(error->find(u"path")->string == u"/options/imageTokens");
  }
}
