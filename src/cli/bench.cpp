// SPDX-License-Identifier: MIT
// `cce bench`: median timings of the engine and of the JSON API over the shared benchmark corpus.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <system_error>
#include <tuple>
#include <vector>

#include "cce.h"
#include "cli/conformance.h"
#include "escalation.h"
#include "json_io.h"
#include "jscompat/json_writer.h"
#include "jscompat/string.h"
#include "request.h"

namespace cce::cli {
namespace {

namespace fs = std::filesystem;
using json::Value;
using Clock = std::chrono::steady_clock;

// Small inputs finish in microseconds: one sample then averages enough calls to span this long,
// so the clock's resolution and the call overhead do not dominate.
constexpr double kMinSampleMs = 10;

struct Row {
  std::string name;
  std::size_t messages = 0;
  double chars = 0;
  double engineMs = 0;
  double parseMs = 0;  // parseJson of the request
  double writeMs = 0;  // materialise + JSON.stringify of the result
  double endToEndMs = 0;
  double megabytesPerSecond = 0;
  double ratio = 0;
  std::optional<double> refMs;
  std::optional<double> refRatio;
  std::string note;
};

template <typename Fn>
double medianMs(int runs, Fn&& fn) {
  auto t0 = Clock::now();
  fn();  // warm-up, also sizes the repetition count
  double warmMs = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  long reps = warmMs >= kMinSampleMs ? 1 : static_cast<long>(std::ceil(kMinSampleMs /
                                                                      std::max(warmMs, 1e-4)));
  reps = std::min(reps, 100000L);
  std::vector<double> samples;
  for (int r = 0; r < runs; ++r) {
    auto s = Clock::now();
    for (long i = 0; i < reps; ++i) fn();
    samples.push_back(std::chrono::duration<double, std::milli>(Clock::now() - s).count() /
                      static_cast<double>(reps));
  }
  std::sort(samples.begin(), samples.end());
  std::size_t n = samples.size();
  return n % 2 == 1 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
}

double numberOf(const Value* v) { return v != nullptr && v->isNumber() ? v->number : 0; }

const Value* v1Run(const Value& scaleResults, bool budgetRun) {
  const Value* runs = scaleResults.find(u"runs");
  if (runs == nullptr || !runs->isArray()) return nullptr;
  for (const Value& run : runs->items) {
    const Value* engine = run.find(u"engine");
    const Value* opts = run.find(u"options");
    if (engine == nullptr || engine->string != u"v1" || opts == nullptr) continue;
    bool hasBudget = opts->find(u"tokenBudget") != nullptr;
    if (budgetRun ? hasBudget : opts->members.empty()) return &run;
  }
  return nullptr;
}

// Times one input: the engine alone on pre-built views, and compressJson end to end.
bool measure(Row& row, const std::string& messagesJson, const std::string& optionsJson, int runs,
             std::optional<BudgetOutcome>* budgetOut = nullptr) {
  std::string request = "{\"messages\":" + messagesJson + ",\"options\":" + optionsJson + "}";
  Result<Value> doc = parseJson(request);
  if (!doc) {
    std::fprintf(stderr, "cce bench: %s: %s\n", row.name.c_str(), doc.error().message.c_str());
    return false;
  }
  Result<ParsedMessages> parsed = parseMessages(doc->find(u"messages"), "compress");
  CompressOptions options;
  if (!parsed || !parseCompressOptions(doc->find(u"options"), options)) {
    std::fprintf(stderr, "cce bench: %s: request rejected\n", row.name.c_str());
    return false;
  }
  const std::vector<Message>& views = parsed->views;
  row.messages = views.size();
  for (const Message& m : views) row.chars += static_cast<double>(m.length());

  CompressResult result = compress(views, options);
  row.ratio = result.compression.ratio;
  if (budgetOut != nullptr) *budgetOut = result.budget;
  std::size_t sink = 0;
  row.engineMs = medianMs(runs, [&] { sink += compress(views, options).messages.size(); });
  row.parseMs = medianMs(runs, [&] { sink += parseJson(request).ok() ? 1 : 0; });
  row.writeMs = medianMs(runs, [&] {
    sink += js::toJson(materializeCompressResult(result, parsed->objects, views)).size();
  });
  row.endToEndMs = medianMs(runs, [&] { sink += compressJson(request).size(); });
  row.megabytesPerSecond = static_cast<double>(request.size()) / 1e6 / (row.endToEndMs / 1e3);
  if (sink == 0 && !views.empty()) row.note += " (empty output?)";
  return true;
}

void printRow(const Row& r) {
  char ref[32] = "-";
  char speedup[32] = "-";
  char refRatio[32] = "-";
  if (r.refMs) {
    std::snprintf(ref, sizeof ref, "%.2f", *r.refMs);
    std::snprintf(speedup, sizeof speedup, "%.1fx", *r.refMs / r.engineMs);
  }
  if (r.refRatio) {
    if (*r.refRatio == r.ratio) {
      std::snprintf(refRatio, sizeof refRatio, "same");
    } else {
      std::snprintf(refRatio, sizeof refRatio, "ref %.6f", *r.refRatio);
    }
  }
  std::printf("%-32s %5zu %8.0f %10.3f %9.3f %9.3f %10.3f %7.1f %7.4f %8s %7s  %s%s\n",
              r.name.c_str(), r.messages, r.chars, r.engineMs, r.parseMs, r.writeMs, r.endToEndMs,
              r.megabytesPerSecond, r.ratio, ref, speedup, refRatio, r.note.c_str());
  std::fflush(stdout);
}

// ---- budget convergence (issue 6): the safe defaults next to compat ----------------------------

// What one compress() call with a tokenBudget produced.
struct BudgetRun {
  double ms = 0;
  double tokens = 0;
  bool fits = false;
  std::size_t orphans = 0;
  std::size_t omitted = 0;
  std::size_t blocking = 0;
};

// Orphaned tool calls in a message list: tool_calls entries without exactly one matching tool
// result, plus tool results (tool_call_id) whose call is missing.
std::size_t orphanedToolCalls(const Value& messages) {
  std::map<std::u16string, std::size_t> results;
  std::set<std::u16string> calls;
  for (const Value& m : messages.items) {
    if (const Value* id = m.find(u"tool_call_id"); id != nullptr && id->isString()) {
      ++results[id->string];
    }
    if (const Value* tc = m.find(u"tool_calls"); tc != nullptr && tc->isArray()) {
      for (const Value& c : tc->items) {
        const Value* id = c.find(u"id");
        if (id != nullptr && id->isString()) calls.insert(id->string);
      }
    }
  }
  std::size_t orphans = 0;
  for (const Value& m : messages.items) {
    if (const Value* tc = m.find(u"tool_calls"); tc != nullptr && tc->isArray()) {
      for (const Value& c : tc->items) {
        const Value* id = c.find(u"id");
        auto it = id != nullptr && id->isString() ? results.find(id->string) : results.end();
        if (it == results.end() || it->second != 1) ++orphans;
      }
    }
    if (const Value* id = m.find(u"tool_call_id"); id != nullptr && id->isString()) {
      if (calls.count(id->string) == 0) ++orphans;
    }
  }
  return orphans;
}

// Σ defaultTokenCount over the string contents.
double defaultTokens(const Value& messages) {
  double total = 0;
  for (const Value& m : messages.items) {
    const Value* content = m.find(u"content");
    if (content != nullptr && content->isString()) {
      total += defaultTokenCount(content->string.size());
    }
  }
  return total;
}

// One compress() on pre-built views (median of `runs` timings), then the figures of its result.
BudgetRun runBudget(const ParsedMessages& parsed, const std::string& optionsJson, int runs) {
  BudgetRun out;
  Result<Value> optionsDoc = parseJson(optionsJson);
  CompressOptions options;
  if (!optionsDoc || !parseCompressOptions(&optionsDoc.value(), options)) return out;
  CompressResult result = compress(parsed.views, options);
  if (runs > 0) {
    std::size_t sink = 0;
    out.ms = medianMs(runs, [&] { sink += compress(parsed.views, options).messages.size(); });
    if (sink == 0) out.ms = -1;
  }
  Value json = materializeCompressResult(result, parsed.objects, parsed.views);
  out.orphans = orphanedToolCalls(*json.find(u"messages"));
  if (result.budget) {
    out.tokens = result.budget->tokenCount;
    out.fits = result.budget->fits;
    out.blocking = result.budget->blocking.size();
  }
  out.omitted = result.compression.messagesOmitted;
  return out;
}

// Safe defaults (`{tokenBudget}`) and the reference's behaviour with its own best effort
// (`{tokenBudget, forceConverge: true, compat: "cce-1.0"}`).
std::string safeOptions(double budget) {
  return "{\"tokenBudget\":" + js::toJson(Value::fromNumber(budget)) + "}";
}
std::string compatOptions(double budget) {
  return "{\"tokenBudget\":" + js::toJson(Value::fromNumber(budget)) +
         ",\"forceConverge\":true,\"compat\":\"cce-1.0\"}";
}

void printBudgetHeader() {
  std::printf("%-34s %6s %8s %8s | %-27s | %-34s\n", "input", "msgs", "tokens", "budget",
              "compat ms/tokens/fits/orph", "safe ms/tokens/fits/orph/omitted");
}

void printBudgetRow(const std::string& name, std::size_t messages, double inputTokens,
                    double budget, const BudgetRun& compat, const BudgetRun& safe) {
  std::printf("%-34s %6zu %8.0f %8.0f | %9.1f %9.0f %-5s %2zu | %9.1f %9.0f %-5s %2zu %6zu%s\n",
              name.c_str(), messages, inputTokens, budget, compat.ms, compat.tokens,
              compat.fits ? "yes" : "no", compat.orphans, safe.ms, safe.tokens,
              safe.fits ? "yes" : "no", safe.orphans, safe.omitted,
              safe.blocking > 0 ? (" blocking " + std::to_string(safe.blocking)).c_str() : "");
  std::fflush(stdout);
}

// 2,000 short messages (every content under 120 characters, so the pipeline keeps them all): a
// system prompt, then user/assistant turns built from a fixed sentence list with the turn number,
// and a tool-call group (call, result, follow-up) every 50 turns.
std::string shortConversation() {
  static const char* const kSentences[] = {
      "The deploy job retries the upload three times before it gives up.",
      "We moved the cache eviction into a background worker last week.",
      "Please check whether the migration locks the orders table.",
      "The flaky test depends on the wall clock and fails near midnight.",
      "Our staging cluster runs two replicas of the API gateway.",
      "Logging every request doubled the storage bill in March.",
      "The parser rejects trailing commas although the spec allows them.",
      "Switching to streaming responses cut the latency in half.",
  };
  Value list = Value::array();
  auto add = [&](const std::string& id, const char* role, const std::string& content) {
    Value m = Value::object();
    m.set(u"id", Value::fromString(js::fromUtf8(id)));
    m.set(u"role", Value::fromString(js::fromUtf8(role)));
    m.set(u"content", Value::fromString(js::fromUtf8(content)));
    list.items.push_back(std::move(m));
    return &list.items.back();
  };
  add("m0", "system", "You are a helpful assistant.");
  for (int turn = 1; list.items.size() < 2000; ++turn) {
    const std::string n = std::to_string(turn);
    if (turn % 50 == 0) {
      Value* m = add("m" + n + "-call", "assistant", "");
      Value c = Value::object();
      c.set(u"id", Value::fromString(js::fromUtf8("call_" + n)));
      c.set(u"type", Value::fromString(u"function"));
      Value calls = Value::array();
      calls.items.push_back(std::move(c));
      m->set(u"tool_calls", std::move(calls));
      add("m" + n + "-result", "tool", "ok: 3 rows")
          ->set(u"tool_call_id", Value::fromString(js::fromUtf8("call_" + n)));
    }
    add("m" + n, turn % 2 == 1 ? "user" : "assistant",
        std::string(kSentences[(turn * 5) % 8]) + " (turn " + n + ")");
  }
  return js::toJson(list);
}

// Rows for the scale session, the synthetic conversation and the real transcripts.
bool budgetBench(const std::string& shared, int runs, bool each) {
  std::printf("\nbudget convergence: compat = {tokenBudget, forceConverge: true, compat: "
              "\"cce-1.0\"}, safe = {tokenBudget}; ms = engine median of %d runs (real data: one "
              "run each, summed per file); orph = orphaned tool calls in the output\n",
              runs);
  printBudgetHeader();
  bool ok = true;
  auto row = [&](const std::string& name, const std::string& messagesJson, double budget) {
    Result<Value> doc = parseJson(messagesJson);
    Result<ParsedMessages> parsed = doc ? parseMessages(&doc.value(), "compress")
                                        : Result<ParsedMessages>(doc.error());
    if (!parsed) {
      std::fprintf(stderr, "cce bench: %s: not a message list\n", name.c_str());
      ok = false;
      return;
    }
    BudgetRun compat = runBudget(parsed.value(), compatOptions(budget), runs);
    BudgetRun safe = runBudget(parsed.value(), safeOptions(budget), runs);
    printBudgetRow(name, parsed->views.size(), defaultTokens(doc.value()), budget, compat, safe);
  };

  std::string scale;
  if (readFile(shared + "/conformance/scale/scale-conversation.json", scale)) {
    Result<Value> doc = parseJson(scale);
    const double total = doc ? defaultTokens(doc.value()) : 0;
    row("scale session, budget 20000", scale, 20000);
    row("scale session, budget 30 %", scale, std::floor(total * 0.3));
  } else {
    std::printf("(no scale session under %s)\n", shared.c_str());
  }
  row("2,000 short messages, budget 20000", shortConversation(), 20000);

  const std::string realDir = shared + "/data/real";
  std::vector<std::string> files;
  std::error_code ec;
  for (fs::directory_iterator it(realDir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() == ".json") files.push_back(it->path().filename().string());
  }
  std::sort(files.begin(), files.end());
  for (const std::string& file : files) {
    std::string text;
    Result<Value> doc = readFile(realDir + "/" + file, text) ? parseJson(text)
                                                             : Result<Value>(Error{});
    if (!doc || !doc->isArray()) {
      std::fprintf(stderr, "cce bench: %s: not an array of conversations\n", file.c_str());
      ok = false;
      continue;
    }
    BudgetRun compatSum, safeSum;
    std::size_t messages = 0, compatFits = 0, safeFits = 0, inputOrphans = 0, conversations = 0;
    std::size_t protectedOver = 0;
    double tokens = 0, budgets = 0;
    for (std::size_t c = 0; c < doc->items.size(); ++c) {
      const Value& conversation = doc->items[c];
      Result<ParsedMessages> parsed = parseMessages(&conversation, "compress");
      if (!parsed) continue;
      const double total = defaultTokens(conversation);
      const double budget = std::floor(total * 0.3);
      auto timed = [&](const std::string& options) {
        auto t0 = Clock::now();
        BudgetRun r = runBudget(parsed.value(), options, 0);
        r.ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
        return r;
      };
      BudgetRun compat = timed(compatOptions(budget));
      BudgetRun safe = timed(safeOptions(budget));
      if (each) {
        printBudgetRow(file + " #" + std::to_string(c), parsed->views.size(), total, budget,
                       compat, safe);
      }
      ++conversations;
      messages += parsed->views.size();
      tokens += total;
      budgets += budget;
      inputOrphans += orphanedToolCalls(conversation);
      CompressOptions options;
      options.tokenBudget = budget;
      if (!safe.fits && !findProtected(parsed->views, options).fits) ++protectedOver;
      for (auto [sum, one, fits] : {std::make_tuple(&compatSum, &compat, &compatFits),
                                    std::make_tuple(&safeSum, &safe, &safeFits)}) {
        sum->ms += one->ms;
        sum->tokens += one->tokens;
        sum->orphans += one->orphans;
        sum->omitted += one->omitted;
        sum->blocking += one->blocking > 0 ? 1 : 0;
        *fits += one->fits ? 1 : 0;
      }
    }
    std::printf("%-34s %6zu %8.0f %8.0f | %9.1f %9.0f %5s %2zu | %9.1f %9.0f %5s %2zu %6zu"
                "  (%zu conversations; input orphans %zu; safe blocked %zu, of which %zu by "
                "their protected messages)\n",
                file.substr(0, file.size() - 5).c_str(), messages, tokens, budgets, compatSum.ms,
                compatSum.tokens,
                (std::to_string(compatFits) + "/" + std::to_string(conversations)).c_str(),
                compatSum.orphans, safeSum.ms, safeSum.tokens,
                (std::to_string(safeFits) + "/" + std::to_string(conversations)).c_str(),
                safeSum.orphans, safeSum.omitted, conversations, inputOrphans, safeSum.blocking,
                protectedOver);
    std::fflush(stdout);
  }
  std::printf("real data: budget = 30 %% of each conversation's default tokens; tokens, budget, "
              "orph and omitted summed over the file; fits = conversations that fit; blocked = "
              "safe results with blockingIds (every one that does not fit), by their protected "
              "messages = the system prompt and the newest user turn alone exceed the budget\n");
  return ok;
}

}  // namespace

int benchMain(const std::vector<std::string>& args, const char* argv0) {
  int runs = 5;
  std::string shared;
  bool budgetOnly = false;
  bool each = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--runs" && i + 1 < args.size()) {
      runs = std::atoi(args[++i].c_str());
    } else if (args[i] == "--shared" && i + 1 < args.size()) {
      shared = args[++i];
    } else if (args[i] == "--budget") {
      budgetOnly = true;  // only the budget convergence table
    } else if (args[i] == "--each") {
      each = true;  // one budget row per real conversation
    } else {
      std::fprintf(stderr, "usage: cce bench [--runs N] [--shared DIR] [--budget] [--each]\n");
      return 2;
    }
  }
  if (runs < 1) {
    std::fprintf(stderr, "cce bench: --runs must be >= 1\n");
    return 2;
  }
  if (shared.empty()) shared = findTestDataDir(argv0);
  if (shared.empty() || !isDirectory(shared)) {
    std::fprintf(stderr,
                 "cce bench: build/testdata not found (run `node scripts/testdata.mjs` in the "
                 "project); pass --shared DIR\n");
    return 2;
  }
  std::printf("cce %s bench: median of %d runs after 1 warm-up (a run of a small input averages "
              "enough calls to last >= %.0f ms)\nshared: %s\n",
              version(), runs, kMinSampleMs, shared.c_str());
  if (runs < 5) std::printf("note: fewer than 5 runs; medians are noisy\n");
  if (budgetOnly) return budgetBench(shared, runs, each) ? 0 : 1;
  std::printf("%-32s %5s %8s %10s %9s %9s %10s %7s %7s %8s %7s  %s\n", "input", "msgs", "chars",
              "engine ms", "parse ms", "write ms", "e2e ms", "MB/s", "ratio", "ref ms", "ref/eng",
              "ratio vs ref");

  bool ok = true;
  // The scale session, defaults, then the tokenBudget + forceConverge row.
  const std::string scaleDir = shared + "/conformance/scale";
  std::string conversation;
  std::string resultsText;
  if (readFile(scaleDir + "/scale-conversation.json", conversation)) {
    Value results;
    if (readFile(scaleDir + "/scale-results.json", resultsText)) {
      if (Result<Value> r = parseJson(resultsText)) results = std::move(r.value());
    }
    Row row;
    row.name = "scale session {}";
    if (const Value* ref = v1Run(results, false)) {
      row.refMs = numberOf(ref->find(u"median_ms"));
      row.refRatio = numberOf(ref->find(u"ratio"));
    }
    // Rows set next to the reference's published timings run the reference's behaviour.
    if (measure(row, conversation, "{\"compat\":\"cce-1.0\"}", runs)) {
      printRow(row);
    } else {
      ok = false;
    }

    // Budget = 30% of the session's default token total, as in the reference's published run.
    double total = 0;
    if (Result<Value> doc = parseJson(conversation)) {
      for (const Value& m : doc->items) {
        const Value* content = m.find(u"content");
        if (content != nullptr && content->isString()) {
          total += defaultTokenCount(content->string.size());
        }
      }
    }
    double budget = std::floor(total * 0.3);
    Row brow;
    brow.name = "scale tokenBudget " + js::toJson(Value::fromNumber(budget)) + " force";
    std::optional<BudgetOutcome> outcome;
    const Value* ref = v1Run(results, true);
    if (ref != nullptr) {
      brow.refMs = numberOf(ref->find(u"median_ms"));
      brow.refRatio = numberOf(ref->find(u"ratio"));
    }
    std::string opts = "{\"tokenBudget\":" + js::toJson(Value::fromNumber(budget)) +
                       ",\"forceConverge\":true,\"compat\":\"cce-1.0\"}";
    if (measure(brow, conversation, opts, runs, &outcome)) {
      if (outcome) {
        brow.note += std::string(" fits=") + (outcome->fits ? "true" : "false") +
                     " tokenCount=" + js::toJson(Value::fromNumber(outcome->tokenCount));
        if (ref != nullptr) {
          double refCount = numberOf(ref->find(u"tokenCount"));
          brow.note += " (ref " + js::toJson(Value::fromNumber(refCount)) + ")";
        }
      }
      brow.note += brow.engineMs <= 400 ? " [target <= 400 ms: ok]" : " [target <= 400 ms: MISSED]";
      printRow(brow);
    } else {
      ok = false;
    }
  } else {
    std::printf("(no scale session at %s)\n", scaleDir.c_str());
  }

  // The bench scenarios at the reference's main-table setting {recencyWindow: 0}.
  const std::string benchDir = shared + "/data/bench";
  Value oracle;
  if (std::string text; readFile(benchDir + "/oracle-results.json", text)) {
    if (Result<Value> r = parseJson(text)) oracle = std::move(r.value());
  }
  std::vector<std::string> files;
  std::error_code ec;
  for (fs::directory_iterator it(benchDir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string file = it->path().filename().string();
    if (it->path().extension() == ".json" && file != "oracle-results.json") files.push_back(file);
  }
  std::sort(files.begin(), files.end());
  for (const std::string& file : files) {
    std::string text;
    if (!readFile(benchDir + "/" + file, text)) continue;
    Result<Value> doc = parseJson(text);
    if (!doc || !doc->isObject()) continue;
    const Value* messages = doc->find(u"messages");
    const Value* name = doc->find(u"name");
    if (messages == nullptr || !messages->isArray()) continue;
    Row row;
    row.name = name != nullptr && name->isString() ? js::toUtf8(name->string) : file;
    row.name += " rw0";
    if (const Value* scenarios = oracle.find(u"scenarios"); scenarios != nullptr) {
      for (const Value& s : scenarios->items) {
        const Value* f = s.find(u"file");
        if (f == nullptr || !f->isString() || js::toUtf8(f->string) != file) continue;
        if (const Value* main = s.find(u"v1") ? s.find(u"v1")->find(u"bench_main_rw0") : nullptr) {
          row.refMs = numberOf(main->find(u"median_ms"));
          row.refRatio = numberOf(main->find(u"ratio"));
        }
      }
    }
    if (measure(row, js::toJson(*messages), "{\"recencyWindow\":0,\"compat\":\"cce-1.0\"}",
                runs)) {
      printRow(row);
    } else {
      ok = false;
    }
  }
  std::printf("engine ms: cce::compress on pre-built views; parse ms: parseJson(request); write "
              "ms: materialise + stringify the result; e2e ms: compressJson (parse, validate, "
              "compress, write); MB/s: request bytes / e2e; ref ms: the reference's published "
              "median (Node 20, compress() on parsed objects)\n");
  if (!budgetBench(shared, runs, each)) ok = false;
  return ok ? 0 : 1;
}

}  // namespace cce::cli
