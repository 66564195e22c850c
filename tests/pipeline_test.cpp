// SPDX-License-Identifier: MIT
// The core pipeline (spec §2) on the spec's worked examples (§13) and its invariants.
#include <doctest/doctest.h>

#include <string>

#include "cce.h"
#include "pipeline.h"
#include "token_estimate.h"
#include "unit_util.h"

namespace {

std::string repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

const std::string kLongSentence =
    "This is a long message about general topics that could be compressed. ";

std::string message(const std::string& id, const std::string& role, const std::string& content) {
  return "{\"id\":\"" + id + "\",\"role\":\"" + role + "\",\"content\":\"" + content + "\"}";
}

cce::CompressOptions optionsWith(double recencyWindow) {
  cce::CompressOptions o;
  o.recencyWindow = recencyWindow;
  o.tokenEstimate = cce::TokenEstimate::Chars;  // the spec's examples count ceil(len / 3.5)
  return o;
}

}  // namespace

TEST_SUITE("pipeline") {
  TEST_CASE("summarises one long message and records its provenance (spec §13.1)") {
    auto in = cce::test::messagesFrom("[" + message("1", "user", repeat(kLongSentence, 5)) + "]");
    cce::CompressResult r = cce::compress(in.views, optionsWith(0));
    CHECK(cce::test::resultJson(r, in) ==
          "{\"messages\":[{\"id\":\"1\",\"role\":\"user\",\"content\":\"[summary: This is a long "
          "message about general topics that could be compressed.]\",\"metadata\":{\"_cce_original\":"
          "{\"ids\":[\"1\"],\"summary_id\":\"cce_sum_3t1y\",\"version\":0}}}],\"compression\":{"
          "\"original_version\":0,\"ratio\":4.375,\"token_ratio\":4.3478260869565215,"
          "\"messages_compressed\":1,\"messages_preserved\":0},\"verbatim\":{\"1\":{\"id\":\"1\","
          "\"role\":\"user\",\"content\":\"" +
              repeat(kLongSentence, 5) + "\"}}}");
  }

  TEST_CASE("merges consecutive same-role messages into one summary (spec §13.2)") {
    auto in = cce::test::messagesFrom("[" + message("a", "user", repeat(kLongSentence, 5)) + "," +
                                      message("b", "user", repeat(kLongSentence, 5)) + "]");
    cce::CompressOptions o = optionsWith(0);
    o.dedup = false;
    cce::CompressResult r = cce::compress(in.views, o);
    REQUIRE(r.messages.size() == 1);
    CHECK(*r.messages[0].content ==
          u"[summary: This is a long message about general topics that could be compressed. (2 "
          u"messages merged)]");
    CHECK(r.messages[0].provenance->summaryId == u"cce_sum_377088");
    CHECK(r.compression.ratio == 7);
  }

  TEST_CASE("stats count every input message exactly once") {
    auto in = cce::test::messagesFrom(
        "[" + message("s", "system", repeat(kLongSentence, 3)) + "," +
        message("a", "user", repeat(kLongSentence, 4)) + "," +
        message("b", "user", repeat(kLongSentence, 4)) + "," + message("c", "assistant", "short") +
        "," + message("d", "assistant", repeat(kLongSentence, 6)) + "]");
    for (double rw : {0.0, 1.0, 2.0, 4.0, 9.0, -1.0, 2.5}) {
      CAPTURE(rw);
      cce::CompressResult r = cce::compress(in.views, optionsWith(rw));
      const cce::CompressionStats& s = r.compression;
      CHECK(s.messagesCompressed + s.messagesDeduped + s.messagesFuzzyDeduped +
                s.messagesPreserved ==
            in.views.size());
    }
  }

  TEST_CASE("exact duplicates take their kept message's script estimate, and only they") {
    // The run hands its dedup annotations to computeRatios, which gives each exact duplicate the
    // estimate of the message it duplicates instead of reading it again. Fuzzy duplicates (near,
    // not equal, texts) must be read themselves. Every shared estimate must be the message's own,
    // and the token ratio the one counted without sharing, for every window.
    std::string prose;
    for (int line = 0; line < 8; ++line) {
      prose += "Line " + std::to_string(line) + " of the build log: " + kLongSentence + "\\n";
    }
    const std::string other = repeat("Die Warteschlange verwirft alte Sitzungen \u00fcber Nacht. ", 5);
    const std::string cjk = repeat("\u961f\u5217\u6d88\u8d39\u8005\u8bb0\u5f55\u4f1a\u8bdd\u3002 ", 30);
    const std::string near = prose + "One more line of the log.";
    const std::string json =
        "[" + message("s", "system", prose) + "," + message("1", "user", prose) + "," +
        message("2", "assistant", cjk) + "," + message("3", "user", other) + "," +
        message("4", "assistant", cjk) + "," + message("5", "user", near) + "," +
        message("6", "user", prose) + "," + message("7", "assistant", other) + "," +
        message("8", "user", cjk) + "," + message("9", "assistant", prose) + "]";
    for (bool fuzzy : {false, true}) {
      for (double rw : {0.0, 1.0, 2.0, 3.0, 5.0}) {
        CAPTURE(fuzzy);
        CAPTURE(rw);
        auto in = cce::test::messagesFrom(json);
        cce::CompressOptions o;
        o.fuzzyDedup = fuzzy;
        o.recencyWindow = rw;
        cce::CompressResult r = cce::runPipeline(in.views, o, rw);
        std::size_t shared = 0;
        for (const cce::Message& m : in.views) {
          if (!m.scriptTokens) continue;
          CHECK(*m.scriptTokens == cce::estimateTokens(m.content));
          ++shared;
        }
        CHECK(shared == in.views.size());
        auto fresh = cce::test::messagesFrom(json);
        cce::CompressResult unshared = r;
        cce::computeRatios(fresh.views, o, nullptr, unshared);
        CHECK(unshared.compression.tokenRatio == r.compression.tokenRatio);
        CHECK(r.compression.messagesDeduped > 0);
        if (fuzzy && rw < 5) CHECK(r.compression.messagesFuzzyDeduped > 0);
      }
    }
  }

  TEST_CASE("an empty conversation gives the empty result (spec §1.5)") {
    auto in = cce::test::messagesFrom("[]");
    cce::CompressOptions o;
    o.sourceVersion = 3;
    CHECK(cce::test::resultJson(cce::compress(in.views, o), in) ==
          "{\"messages\":[],\"compression\":{\"original_version\":3,\"ratio\":1,\"token_ratio\":1,"
          "\"messages_compressed\":0,\"messages_preserved\":0},\"verbatim\":{}}");
  }

  TEST_CASE("two runs give identical bytes") {
    auto in = cce::test::messagesFrom("[" + message("a", "user", repeat(kLongSentence, 4)) + "," +
                                      message("b", "assistant", repeat(kLongSentence, 7)) + "]");
    CHECK(cce::test::resultJson(cce::compress(in.views, optionsWith(0)), in) ==
          cce::test::resultJson(cce::compress(in.views, optionsWith(0)), in));
  }
}
