// SPDX-License-Identifier: MIT
// `cce bench`: median timings of the engine and of the JSON API over the shared benchmark corpus.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "cce.h"
#include "cli/conformance.h"
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

}  // namespace

int benchMain(const std::vector<std::string>& args, const char* argv0) {
  int runs = 5;
  std::string shared;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--runs" && i + 1 < args.size()) {
      runs = std::atoi(args[++i].c_str());
    } else if (args[i] == "--shared" && i + 1 < args.size()) {
      shared = args[++i];
    } else {
      std::fprintf(stderr, "usage: cce bench [--runs N] [--shared DIR]\n");
      return 2;
    }
  }
  if (runs < 1) {
    std::fprintf(stderr, "cce bench: --runs must be >= 1\n");
    return 2;
  }
  if (shared.empty()) shared = findSharedDir(argv0);
  if (shared.empty() || !isDirectory(shared)) {
    std::fprintf(stderr,
                 "cce bench: ../shared not found (looked next to the current directory and the "
                 "executable); pass --shared DIR\n");
    return 2;
  }
  std::printf("cce %s bench: median of %d runs after 1 warm-up (a run of a small input averages "
              "enough calls to last >= %.0f ms)\nshared: %s\n",
              version(), runs, kMinSampleMs, shared.c_str());
  if (runs < 5) std::printf("note: fewer than 5 runs; medians are noisy\n");
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
    if (measure(row, conversation, "{}", runs)) {
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
                       ",\"forceConverge\":true}";
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
    if (measure(row, js::toJson(*messages), "{\"recencyWindow\":0}", runs)) {
      printRow(row);
    } else {
      ok = false;
    }
  }
  std::printf("engine ms: cce::compress on pre-built views; parse ms: parseJson(request); write "
              "ms: materialise + stringify the result; e2e ms: compressJson (parse, validate, "
              "compress, write); MB/s: request bytes / e2e; ref ms: the reference's published "
              "median (Node 20, compress() on parsed objects)\n");
  return ok ? 0 : 1;
}

}  // namespace cce::cli
