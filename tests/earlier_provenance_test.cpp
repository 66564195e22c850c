// SPDX-License-Identifier: MIT
// Tests for the default mode's guard of messages that arrive carrying `_cce_original` (issue 21
// item 1): uncompress(compress(x)) gives back x whatever provenance x already carries.
#include "earlier_provenance.h"

#include <doctest/doctest.h>

#include <string>

#include "unit_util.h"

namespace {

using cce::json::Value;
using cce::test::compressOutput;
using cce::test::restoredJson;

// Prose the summarizer shortens: long enough to be compressed outside the recency window.
const std::string kLong =
    "The deployment pipeline retried the upload three times before the storage node answered. "
    "Alice reviewed the migration plan and asked Bob to double-check the rollback steps. "
    "Memory usage grew slowly over the weekend, which points at the connection pool.";

std::string message(const std::string& id, const std::string& content,
                    const std::string& extra = "") {
  return "{\"id\":\"" + id + "\",\"role\":\"user\",\"content\":\"" + content + "\"" + extra + "}";
}

/** The metadata of a message that carries `_cce_original` naming `ids` (a JSON array). */
std::string naming(const std::string& ids) {
  return ",\"metadata\":{\"_cce_original\":{\"ids\":" + ids +
         ",\"summary_id\":\"s\",\"version\":0}}";
}

std::string json(const Value& v) { return cce::js::toJson(v); }

/** JSON text as JSON.stringify writes it, to compare with restored messages. */
std::string normalized(const std::string& text) {
  cce::Result<Value> value = cce::parseJson(text);
  REQUIRE(value.ok());
  return json(value.value());
}

const Value& at(const Value& out, std::size_t i) { return out.find(u"messages")->items.at(i); }

std::string contentOf(const Value& m) { return json(*m.find(u"content")); }

std::string originalOf(const Value& m) {
  const Value* metadata = m.find(u"metadata");
  const Value* o = metadata ? metadata->find(u"_cce_original") : nullptr;
  return o ? json(*o) : "";
}

std::string verbatimKeys(const Value& out) {
  std::string keys;
  for (const auto& member : out.find(u"verbatim")->members) {
    keys += cce::js::toUtf8(member.key) + " ";
  }
  return keys;
}

}  // namespace

TEST_SUITE("earlier_provenance") {
  TEST_CASE("a message whose old _cce_original names a compressed input comes back as itself") {
    // The reproducer of issue 21: y was restored as x, so the ids came back as [x, x].
    const std::string input =
        "[" + message("x", kLong) + "," + message("y", "ok", naming("[\"x\"]")) + "]";
    // 28: room for x's summary and y with the 4-token overhead the default estimate bills each.
    for (const char* options : {"{\"recencyWindow\":0}", "{\"tokenBudget\":28}"}) {
      CAPTURE(options);
      const Value out = compressOutput(input, options);
      CHECK(contentOf(at(out, 0)).substr(0, 10) == "\"[summary:");
      // y keeps its content; its fresh provenance names only itself and links the old summary.
      CHECK(contentOf(at(out, 1)) == "\"ok\"");
      CHECK(originalOf(at(out, 1)) ==
            "{\"ids\":[\"y\"],\"summary_id\":\"cce_sum_3t3y\",\"parent_ids\":[\"s\"],"
            "\"version\":0}");
      CHECK(verbatimKeys(out) == "x y ");
      CHECK(restoredJson(out) == normalized(input));
    }
  }

  TEST_CASE("a genuine earlier summary next to an original the app put back comes back as itself") {
    // Round 1 merges a and b into one summary (id a, ids [a, b]); round 2 gets that summary, the
    // original b and a new d, and compresses b: the summary was restored as b ([b, b, d]).
    const std::string first = "[" + message("a", kLong) + "," + message("b", kLong + " Twice.") +
                              "," + message("c", "ok") + "]";
    const Value round1 = compressOutput(first, "{\"recencyWindow\":1}");
    REQUIRE(originalOf(at(round1, 0)).substr(0, 16) == "{\"ids\":[\"a\",\"b\"]");
    const std::string second = "[" + json(at(round1, 0)) + "," +
                               json(*round1.find(u"verbatim")->find(u"b")) + "," +
                               message("d", "ok") + "]";
    const Value round2 = compressOutput(second, "{\"recencyWindow\":1}");
    CHECK(verbatimKeys(round2) == "b a ");
    CHECK(contentOf(at(round2, 0)) == contentOf(at(round1, 0)));
    CHECK(originalOf(at(round2, 0)).substr(0, 13) == "{\"ids\":[\"a\"],");
    CHECK(restoredJson(round2) == normalized(second));
  }

  TEST_CASE("stand-ins follow chains of messages naming each other, in either order") {
    const std::string forward = "[" + message("x", kLong) + "," +
                                message("y", "ok", naming("[\"x\"]")) + "," +
                                message("z", "fine", naming("[\"y\"]")) + "]";
    const std::string backward = "[" + message("z", "fine", naming("[\"y\"]")) + "," +
                                 message("y", "ok", naming("[\"x\"]")) + "," +
                                 message("x", kLong) + "," + message("w", "last") + "]";
    for (const std::string& input : {forward, backward}) {
      CAPTURE(input);
      const Value out = compressOutput(input, "{\"recencyWindow\":1}");
      CHECK(restoredJson(out) == normalized(input));
    }
    CHECK(verbatimKeys(compressOutput(forward, "{\"recencyWindow\":0}")) == "x y z ");
    CHECK(verbatimKeys(compressOutput(backward, "{\"recencyWindow\":1}")) == "x y z ");
  }

  TEST_CASE("stand-ins follow links that zigzag through the output") {
    // x <- a <- b <- c <- d, placed c a d b x: one pass in each direction is not enough.
    const std::string input =
        "[" + message("c", "three", naming("[\"b\"]")) + "," +
        message("a", "one", naming("[\"x\"]")) + "," + message("d", "four", naming("[\"c\"]")) +
        "," + message("b", "two", naming("[\"a\"]")) + "," + message("x", kLong) + "," +
        message("w", "last") + "]";
    const Value out = compressOutput(input, "{\"recencyWindow\":1}");
    CHECK(verbatimKeys(out) == "x a b c d ");
    CHECK(restoredJson(out) == normalized(input));
  }

  TEST_CASE("old provenance naming nothing stored is left as it is") {
    // Ids that exist nowhere, the message's own id, and an input kept verbatim: uncompress finds
    // none of them in this call's store, so nothing needs a stand-in.
    const std::string input = "[" + message("x", kLong) + "," +
                              message("y", "ok", naming("[\"ghost\"]")) + "," +
                              message("z", "fine", naming("[\"z\"]")) + "," +
                              message("v", kLong, naming("[\"w\"]")) + "," + message("w", kLong) +
                              "]";
    const Value out = compressOutput(input, "{\"recencyWindow\":1}");
    CHECK(verbatimKeys(out) == "x v ");
    CHECK(originalOf(at(out, 1)) ==
          "{\"ids\":[\"ghost\"],\"summary_id\":\"s\",\"version\":0}");
    CHECK(originalOf(at(out, 2)) == "{\"ids\":[\"z\"],\"summary_id\":\"s\",\"version\":0}");
    CHECK(restoredJson(out) == normalized(input));
  }

  TEST_CASE("a stand-in with content parts keeps every part") {
    const std::string parts =
        "[{\"type\":\"text\",\"text\":\"see\",\"cache_control\":{\"type\":\"ephemeral\"}},"
        "{\"type\":\"image_url\",\"image_url\":{\"url\":\"https://example.com/a.png\"}}]";
    const std::string input = "[" + message("x", kLong) +
                              ",{\"id\":\"y\",\"role\":\"user\",\"content\":" + parts +
                              naming("[\"x\"]") + "}]";
    const Value out = compressOutput(input, "{\"recencyWindow\":0}");
    CHECK(contentOf(at(out, 1)) == normalized(parts));
    CHECK(originalOf(at(out, 1)).substr(0, 13) == "{\"ids\":[\"y\"],");
    CHECK(restoredJson(out) == normalized(input));
  }

  TEST_CASE("cce-1.0 keeps the reference's expansion of old provenance") {
    // Pinned behaviour (spec §11): the reference expands y into x, so its round trip is lossy.
    const std::string input =
        "[" + message("x", kLong) + "," + message("y", "ok", naming("[\"x\"]")) + "]";
    const Value out = compressOutput(input, "{\"recencyWindow\":0,\"compat\":\"cce-1.0\"}");
    CHECK(verbatimKeys(out) == "x ");
    CHECK(originalOf(at(out, 1)) == "{\"ids\":[\"x\"],\"summary_id\":\"s\",\"version\":0}");
    const std::string xx = "[" + message("x", kLong) + "," + message("x", kLong) + "]";
    CHECK(restoredJson(out) == normalized(xx));
  }
}
