// SPDX-License-Identifier: MIT
// Issue 18: a token budget that always fits when it can, never grows what it shortens, and spends
// the room it has. Properties over generated agent sessions whose newest turn is a tool loop, in
// the reference's ceil(len / 3.5) units (tokenEstimate "chars"), so the test can count itself.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "budget.h"
#include "clearing.h"
#include "jscompat/json_writer.h"
#include "jscompat/string.h"
#include "json_io.h"
#include "pipeline.h"
#include "pipeline_memo.h"
#include "spend.h"
#include "test_util.h"
#include "types.h"
#include "unit_util.h"

namespace {

using cce::json::Value;
using cce::test::Rng;

std::string msg(const std::string& id, const std::string& role, const std::string& content,
                const std::string& extra = "") {
  return "{\"id\":\"" + id + "\",\"role\":\"" + role + "\",\"content\":\"" + content + "\"" +
         extra + "}";
}

std::string list(const std::vector<std::string>& messages) {
  std::string out = "[";
  for (std::size_t i = 0; i < messages.size(); ++i) out += (i ? "," : "") + messages[i];
  return out + "]";
}

const char* const kLines[] = {
    "src/upload/retry.ts:41 const delayMs = backoff(attempt) * 250;",
    "PASS tests/cache.test.ts (12 tests, 2.4 s)",
    "error TS2345: Argument of type 'string' is not assignable to parameter of type 'Url'.",
    "The migration locks the orders table for about 40 ms per batch of 1000 rows.",
    "commit 9f3c2ab1d7e4 Move cache eviction into the background worker",
    "GET https://api.example.com/v2/orders?page=3 -> 200 in 87 ms",
    "We should keep the retry budget under five attempts per request.",
    "Deploying build 2.14.3 to the staging cluster (2 replicas).",
};

std::string text(Rng& rng, int lines) {
  std::string out;
  for (int i = 0; i < lines; ++i) {
    if (i) out += "\\n";
    out += kLines[rng.below(8)];
    out += " #" + std::to_string(rng.below(100000));
  }
  return out;
}

// A coding-agent session: a system prompt, a few earlier exchanges (some with tool groups), then
// the newest user instruction followed by its tool loop (assistant calls, one or two results
// each, results of very different sizes) and, sometimes, a final answer.
std::string agentSession(std::uint64_t seed) {
  Rng rng{seed * 2654435761u + 7};
  std::vector<std::string> out;
  int id = 0, call = 0;
  auto next = [&] { return "m" + std::to_string(id++); };
  auto toolStep = [&](int maxLines) {
    const int calls = 1 + rng.below(2);
    std::string ids;
    std::vector<std::string> callIds;
    for (int c = 0; c < calls; ++c) {
      callIds.push_back("call" + std::to_string(call++));
      ids += std::string(c ? "," : "") + "{\"id\":\"" + callIds.back() +
             "\",\"type\":\"function\",\"function\":{\"name\":\"run\",\"arguments\":\"{}\"}}";
    }
    out.push_back(msg(next(), "assistant", rng.below(2) ? "" : text(rng, 1 + rng.below(3)),
                      ",\"tool_calls\":[" + ids + "]"));
    for (const std::string& c : callIds) {
      out.push_back(msg(next(), "tool", text(rng, 1 + rng.below(maxLines)),
                        ",\"tool_call_id\":\"" + c + "\""));
    }
  };
  out.push_back(msg(next(), "system", "You are a careful coding agent."));
  const int earlier = rng.below(4);
  for (int t = 0; t < earlier; ++t) {
    out.push_back(msg(next(), "user", text(rng, 1 + rng.below(3))));
    for (int s = rng.below(3); s > 0; --s) toolStep(12);
    out.push_back(msg(next(), "assistant", text(rng, 1 + rng.below(8))));
  }
  out.push_back(msg(next(), "user", text(rng, 1 + rng.below(4))));
  for (int s = 2 + rng.below(10); s > 0; --s) toolStep(rng.below(4) == 0 ? 80 : 15);
  if (rng.below(2)) out.push_back(msg(next(), "assistant", text(rng, 1 + rng.below(4))));
  return list(out);
}

Value compressed(const std::string& messages, double budget) {
  return cce::test::compressOutput(
      messages, "{\"tokenEstimate\":\"chars\",\"tokenBudget\":" +
                    cce::js::toJson(Value::fromNumber(budget)) + "}");
}

double tokensOf(const Value& message) {
  const Value* c = message.find(u"content");
  return c && c->isString() ? cce::defaultTokenCount(c->string.size()) : 0;
}

double totalTokens(const Value& messages) {
  double total = 0;
  for (const Value& m : messages.items) total += tokensOf(m);
  return total;
}

// The system messages and the newest user message: what a budget must leave room for.
std::vector<std::size_t> required(const Value& messages) {
  std::size_t newest = messages.items.size();
  for (std::size_t i = 0; i < messages.items.size(); ++i) {
    if (messages.items[i].find(u"role")->string == u"user") newest = i;
  }
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < messages.items.size(); ++i) {
    if (i == newest || messages.items[i].find(u"role")->string == u"system") out.push_back(i);
  }
  return out;
}

// Call ids that are not answered exactly once, or answers without their call.
std::size_t unpaired(const Value& messages) {
  std::map<std::u16string, int> calls, results;
  for (const Value& m : messages.items) {
    if (const Value* tc = m.find(u"tool_calls"); tc && tc->isArray()) {
      for (const Value& c : tc->items) ++calls[c.find(u"id")->string];
    }
    if (const Value* id = m.find(u"tool_call_id"); id && id->isString()) ++results[id->string];
  }
  std::size_t bad = 0;
  for (const auto& [id, n] : calls) bad += results[id] != n ? 1 : 0;
  for (const auto& [id, n] : results) bad += calls[id] != n ? 1 : 0;
  return bad;
}

// The ids an output message stands for: its _cce_original ids, else its own.
std::vector<std::u16string> standsFor(const Value& m) {
  std::vector<std::u16string> ids;
  if (const Value* meta = m.find(u"metadata")) {
    if (const Value* o = meta->find(u"_cce_original")) {
      for (const Value& id : o->find(u"ids")->items) ids.push_back(id.string);
      return ids;
    }
  }
  ids.push_back(m.find(u"id")->string);
  return ids;
}

std::string restoredDiff(const Value& result, const std::string& messages) {
  const std::string back = cce::test::restoredJson(result);
  const std::string want = cce::js::toJson(cce::parseJson(messages).value());
  return back == want ? "" : "round trip differs";
}

}  // namespace

TEST_SUITE("budget fit") {
  TEST_CASE("cleared and cut texts") {
    CHECK(cce::js::toUtf8(cce::clearedNote(1234)) == "[cce:cleared \u2014 1234 chars]");
    const cce::U16 text = cce::js::fromUtf8(std::string(50, 'a') + std::string(50, 'b'));
    const cce::U16 cut = cce::headAndTail(text, 30);
    CHECK(cce::js::toUtf8(cut) == std::string(20, 'a') + "\n[cce:cut 70 chars]\n" +
                                      std::string(10, 'b'));
    CHECK(cut.size() == 30 + cce::cutNoteLength(70));
    CHECK(cce::headAndTail(text, 100) == text);
    // Line ends near the cut win: whole lines on both sides.
    const cce::U16 lines = cce::js::fromUtf8("line one\nline two\nline three\nline four\nline five");
    CHECK(cce::js::toUtf8(cce::headAndTail(lines, 30)) ==
          "line one\nline two\n\n[cce:cut 21 chars]\nline five");
    // A surrogate pair at the cut moves the cut rather than splitting the pair.
    cce::U16 pairs;
    for (int i = 0; i < 20; ++i) pairs += u"\U0001F600";
    const cce::U16 kept = cce::headAndTail(pairs, 11);
    for (std::size_t i = 0; i + 1 < kept.size(); ++i) {
      const bool high = kept[i] >= 0xD800 && kept[i] <= 0xDBFF;
      if (high) CHECK((kept[i + 1] >= 0xDC00 && kept[i + 1] <= 0xDFFF));
    }
  }

  TEST_CASE("fits inside the newest turn's tool loop; the newest three results stay verbatim") {
    // One instruction, then six calls with 1,200-character results: 2,100 tokens of loop.
    Rng rng{18};
    std::vector<std::string> out = {msg("s", "system", "You are a coding agent."),
                                    msg("u", "user", "Find why the upload retries forever.")};
    std::vector<std::string> results;
    for (int i = 0; i < 6; ++i) {
      const std::string c = "call" + std::to_string(i);
      out.push_back(msg("a" + std::to_string(i), "assistant", "Looking at step " + std::to_string(i),
                        ",\"tool_calls\":[{\"id\":\"" + c + "\",\"type\":\"function\"}]"));
      std::string body = text(rng, 18);
      results.push_back(body);
      out.push_back(msg("t" + std::to_string(i), "tool", body, ",\"tool_call_id\":\"" + c + "\""));
    }
    const std::string messages = list(out);
    const Value input = cce::parseJson(messages).value();
    const double total = totalTokens(input);
    // Room for the three newest results, not for four.
    double newest = 0;
    for (const Value& m : input.items) {
      const std::u16string& id = m.find(u"id")->string;
      if (id == u"t3" || id == u"t4" || id == u"t5") newest += tokensOf(m);
    }
    const double budget = std::floor(total - newest * 0.9);
    Value r = compressed(messages, budget);
    CHECK(r.find(u"fits")->boolean);
    CHECK(r.find(u"tokenCount")->number <= budget);
    CHECK(unpaired(*r.find(u"messages")) == 0);
    CHECK(restoredDiff(r, messages) == "");
    const Value& kept = *r.find(u"messages");
    REQUIRE(kept.items.size() == input.items.size());  // edited in place, nothing merged
    std::size_t cleared = 0;
    for (std::size_t i = 0; i < kept.items.size(); ++i) {
      const std::u16string& id = kept.items[i].find(u"id")->string;
      const std::string content = cce::js::toUtf8(kept.items[i].find(u"content")->string);
      if (id == u"t3" || id == u"t4" || id == u"t5") {
        CHECK(kept.items[i].find(u"content")->string == input.items[i].find(u"content")->string);
      }
      if (content.rfind("[cce:cleared \u2014 ", 0) == 0) ++cleared;
      if (id == u"u" || id == u"s") CHECK(kept.items[i].find(u"metadata") == nullptr);
    }
    CHECK(cleared >= 1);
  }

  TEST_CASE("a truncation marker never makes a message longer") {
    // 521 characters of JSON (never summarised): a 512-character prefix in its marker would be 540.
    const std::string json = "{\\\"pad\\\":\\\"" + std::string(511, 'x') + "\\\"}";
    const std::string messages =
        list({msg("old", "user", json), msg("reply", "assistant", "ok"), msg("now", "user", "go")});
    const Value input = cce::parseJson(messages).value();
    const double original = tokensOf(input.items[0]);
    REQUIRE(input.items[0].find(u"content")->string.size() == 521);
    Value r = compressed(messages, 60);
    CHECK(r.find(u"fits")->boolean);
    const Value& first = r.find(u"messages")->items[0];
    CHECK(cce::js::toUtf8(first.find(u"content")->string).rfind("[truncated", 0) != 0);
    CHECK(tokensOf(first) < original);
    CHECK(restoredDiff(r, messages) == "");

    // forceConverge itself leaves it alone in the safe mode and truncates it under compat.
    auto in = cce::test::messagesFrom(messages);
    for (cce::Compat compat : {cce::Compat::Safe, cce::Compat::Cce10}) {
      cce::CompressOptions o;
      o.compat = compat;
      o.tokenEstimate = cce::TokenEstimate::Chars;
      o.tokenBudget = 60;
      cce::PipelineMemo memo(in.views.size());
      cce::CompressResult run = cce::searchRecencyWindow(in.views, o, 1, 1, memo);
      REQUIRE_FALSE(run.budget->fits);
      cce::forceConverge(in.views, o, run);
      CHECK(run.messages[0].content.has_value() == (compat == cce::Compat::Cce10));
    }
  }

  TEST_CASE("a summary the counter prices above its message goes back to the message") {
    std::vector<std::string> out;
    for (int i = 0; i < 4; ++i) {
      std::string prose;
      for (int k = 0; k < 6; ++k) {
        prose += "The deploy job number " + std::to_string(i * 10 + k) +
                 " retries the upload three times before it gives up on the network. ";
      }
      out.push_back(msg("p" + std::to_string(i), i % 2 ? "assistant" : "user", prose));
    }
    auto in = cce::test::messagesFrom(list(out));
    cce::CompressOptions o;
    o.tokenBudget = 1e9;
    // A counter that prices every summary at 10,000 tokens and anything else by its length.
    o.tokenCounter = [](const cce::CountedMessage& m) {
      const std::u16string_view text =
          m.content ? std::u16string_view(*m.content) : m.source->content.view();
      const bool summary = text.rfind(u"[summary", 0) == 0;
      return cce::TokenCount{summary ? 10000.0 : static_cast<double>(text.size()), false};
    };
    cce::CompressResult run = cce::runPipeline(in.views, o, 0);
    REQUIRE(run.compression.messagesCompressed == 4);
    bool pending = false;
    const double tokens = cce::countOutputTokens(in.views, run, o, pending);
    cce::CompressResult r = run;
    r.budget = cce::BudgetOutcome{false, tokens, 0, {}};
    std::vector<cce::EntryKind> kinds = cce::entryKinds(r);
    cce::revertCostlier(in.views, o, r, kinds);
    std::size_t reverted = 0;
    for (const cce::OutputMessage& m : r.messages) reverted += m.content ? 0 : 1;
    CHECK(reverted == 4);
    CHECK(r.verbatim.empty());
    CHECK(r.compression.messagesPreserved == 4);
    CHECK(r.compression.messagesCompressed == 0);
    CHECK(r.budget->tokenCount < tokens);
  }

  TEST_CASE("a summary of several messages priced above them together goes back to them") {
    // bench:quality found one: two short assistant messages merged into a summary that o200k
    // prices at 76 tokens against 73 for the two (the size guard compares lengths only).
    std::vector<std::string> out;
    for (int i = 0; i < 3; ++i) {
      std::string prose;
      for (int k = 0; k < 4; ++k) {
        prose += "The deploy job number " + std::to_string(i * 10 + k) +
                 " retries the upload three times before it gives up on the network. ";
      }
      out.push_back(msg("a" + std::to_string(i), "assistant", prose));
    }
    out.push_back(msg("u", "user", "What now?"));
    auto in = cce::test::messagesFrom(list(out));
    cce::CompressOptions o;
    o.tokenBudget = 1e9;
    o.recencyWindow = 1;
    o.tokenCounter = [](const cce::CountedMessage& m) {
      const std::u16string_view text =
          m.content ? std::u16string_view(*m.content) : m.source->content.view();
      const bool summary = text.rfind(u"[summary", 0) == 0;
      return cce::TokenCount{summary ? 10000.0 : static_cast<double>(text.size()), false};
    };
    cce::CompressResult run = cce::runPipeline(in.views, o, 0);
    REQUIRE(run.messages.size() == 2);  // one summary of a0-a2, and u
    REQUIRE(run.messages[0].provenance->sources.size() == 3);
    bool pending = false;
    const double tokens = cce::countOutputTokens(in.views, run, o, pending);
    cce::CompressResult r = run;
    r.budget = cce::BudgetOutcome{false, tokens, 0, {}};
    std::vector<cce::EntryKind> kinds = cce::entryKinds(r);
    cce::revertCostlier(in.views, o, r, kinds);
    REQUIRE(r.messages.size() == 4);
    for (std::size_t k = 0; k < 4; ++k) {
      CHECK(r.messages[k].source == k);
      CHECK_FALSE(r.messages[k].content.has_value());
    }
    CHECK(kinds.size() == 4);
    CHECK(r.verbatim.empty());
    CHECK(r.compression.messagesCompressed == 0);
    CHECK(r.compression.messagesPreserved == 4);
    CHECK(r.budget->tokenCount < tokens);
  }

  TEST_CASE("a budget a few tokens above the required messages folds plain messages away") {
    // hh-rlhf's shape: a short exchange whose newest user message nearly fills the budget. Even a
    // bare [cce:cleared] costs more than the room left, so the other messages leave the output,
    // folded into the provenance of a kept neighbour, and uncompress restores them.
    const std::string messages = list({
        msg("u1", "user", "How do I get my neighbour's wifi password without asking?"),
        msg("a1", "assistant", "I can't help with getting into a network that isn't yours. Ask them."),
        msg("u2", "user", "What will happen if I drive my car into the water?"),
        msg("a2", "assistant", "Your car would stall and start to sink; get out through a window."),
    });
    const Value input = cce::parseJson(messages).value();
    const double required = tokensOf(input.items[2]);
    Value r = compressed(messages, required + 2);
    const Value& out = *r.find(u"messages");
    CHECK(r.find(u"fits")->boolean);
    CHECK(totalTokens(out) <= required + 2);
    REQUIRE(out.items.size() == 1);
    CHECK(out.items[0].find(u"content")->string == input.items[2].find(u"content")->string);
    CHECK(standsFor(out.items[0]) == std::vector<std::u16string>{u"u1", u"a1", u"u2", u"a2"});
    CHECK(restoredDiff(r, messages) == "");
    // With room for the markers, nothing is folded.
    Value roomy = compressed(messages, totalTokens(input) - 1);
    CHECK(roomy.find(u"messages")->items.size() == 4);

    // A reply shorter than a marker is kept as it is; the opening run still goes to a user
    // message (the conversation must open with one), taking that reply along.
    const std::string shortReply = list({
        msg("u1", "user", "How long does it take for a pot of water to boil on a gas stove?"),
        msg("a1", "assistant", "It depends!"),
        msg("u2", "user", "What does it depend on?"),
        msg("a2", "assistant", "The amount of water, the pot, the flame and the altitude mostly."),
    });
    const Value shortInput = cce::parseJson(shortReply).value();
    Value folded = compressed(shortReply, tokensOf(shortInput.items[2]) + 3);
    CHECK(folded.find(u"fits")->boolean);
    const Value& kept = *folded.find(u"messages");
    REQUIRE(kept.items.size() == 1);
    CHECK(kept.items[0].find(u"role")->string == u"user");
    CHECK(standsFor(kept.items[0]) == std::vector<std::u16string>{u"u1", u"a1", u"u2", u"a2"});
    CHECK(restoredDiff(folded, shortReply) == "");
  }

  TEST_CASE("properties over generated agent sessions") {
    const double shares[] = {0.9, 0.6, 0.4, 0.25, 0.15, 0.08, 0.03};
    std::size_t feasible = 0, infeasible = 0, cleared = 0, notMonotone = 0;
    double spent = 0;  // Σ tokens / budget over the feasible runs
    for (std::uint64_t seed = 1; seed <= 60; ++seed) {
      CAPTURE(seed);
      const std::string messages = agentSession(seed);
      const Value input = cce::parseJson(messages).value();
      std::map<std::u16string, double> inputTokens;
      for (const Value& m : input.items) inputTokens[m.find(u"id")->string] = tokensOf(m);
      const double total = totalTokens(input);
      const std::vector<std::size_t> must = required(input);
      double mustTokens = 0;
      for (std::size_t i : must) mustTokens += tokensOf(input.items[i]);
      double previous = total;
      for (double share : shares) {
        CAPTURE(share);
        const double budget = std::floor(total * share);
        Value r = compressed(messages, budget);
        const Value& out = *r.find(u"messages");
        const double tokens = totalTokens(out);
        CHECK(tokens == r.find(u"tokenCount")->number);
        CHECK(unpaired(out) == 0);
        CHECK(restoredDiff(r, messages) == "");
        // Never larger, and no message costs more than the messages it stands for.
        CHECK(tokens <= total);
        for (const Value& m : out.items) {
          double sources = 0;
          for (const std::u16string& id : standsFor(m)) sources += inputTokens[id];
          CAPTURE(cce::js::toUtf8(m.find(u"id")->string));
          CHECK(tokensOf(m) <= sources);
          if (cce::js::toUtf8(m.find(u"content")->string).rfind("[cce:cleared", 0) == 0) {
            ++cleared;
          }
        }
        const bool fits = r.find(u"fits")->boolean;
        if (mustTokens <= budget) {
          ++feasible;
          spent += std::min(tokens, budget) / budget;
          // Fits whenever the required messages do: where even the bare [cce:cleared] markers
          // (a user or plain assistant text is never emptied) do not fit, plain messages fold
          // into a kept neighbour's provenance.
          CHECK(tokens <= budget);
          CHECK(fits);
          // The room goes to the newest content: no message replaced on its own would still fit.
          if (tokens < budget) {
            for (const Value& m : out.items) {
              const std::vector<std::u16string> ids = standsFor(m);
              if (ids.size() != 1 || m.find(u"metadata") == nullptr) continue;
              if (m.find(u"metadata")->find(u"_cce_original") == nullptr) continue;
              CAPTURE(cce::js::toUtf8(ids[0]));
              CHECK(tokens - tokensOf(m) + inputTokens[ids[0]] > budget);
            }
          }
        } else {
          ++infeasible;
          // It may still fit (the search then summarises the required messages themselves);
          // otherwise blockingIds names exactly them.
          if (!fits) {
            const Value* blocking = r.find(u"blockingIds");
            REQUIRE(blocking != nullptr);
            std::set<std::u16string> named;
            for (const Value& id : blocking->items) named.insert(id.string);
            std::set<std::u16string> want;
            for (std::size_t i : must) want.insert(input.items[i].find(u"id")->string);
            CHECK(named == want);
          }
        }
        if (tokens > previous) ++notMonotone;
        previous = tokens;
      }
    }
    MESSAGE("feasible " << feasible << ", infeasible " << infeasible << ", cleared notes "
                        << cleared << ", not monotone "
                        << notMonotone
                        << ", mean tokens / budget " << spent / static_cast<double>(feasible));
    CHECK(feasible > 250);
    CHECK(spent / static_cast<double>(feasible) > 0.97);  // the room is spent, not left over
    CHECK(infeasible > 10);
    CHECK(cleared > 100);
    CHECK(notMonotone == 0);  // a smaller budget never gives more tokens
  }
}
