// SPDX-License-Identifier: MIT
// The core pipeline (spec §2) on the spec's worked examples (§13) and its invariants.
#include <doctest/doctest.h>

#include <string>

#include "cce.h"
#include "pipeline.h"
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
