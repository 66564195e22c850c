// SPDX-License-Identifier: MIT
// The projection benchmark over real transcripts (see bench.h).
#include "compaction/bench.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <optional>
#include <utility>

#include "compaction/compact.h"
#include "compaction/compaction_json.h"
#include "compaction/model.h"
#include "compaction/projection.h"
#include "compaction/providers.h"
#include "jscompat/string.h"
#include "jscompat/json_writer.h"
#include "json_io.h"

namespace cce::compaction {

using json::Value;

namespace {

// Process CPU time rather than wall time: the numbers must mean something on a loaded machine.
struct Clock {
  static std::clock_t now() { return std::clock(); }
};

double msSince(std::clock_t start) {
  return 1000.0 * static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 == 1 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

struct Prepared {
  const Value* messages = nullptr;
  Value document;
  Conversation conversation;
  std::vector<Compaction> defaultOnly;
  std::vector<Compaction> stacked;
  std::string projectRequest;
};

std::optional<Compaction> compactWith(const Conversation& c, const char16_t* profile) {
  CompactRequest r;
  r.profile = profile;
  Result<CompactOutcome> made = createCompaction(c, r, SummarizeFn());
  if (!made || made->empty) return std::nullopt;  // too short for the profile: nothing to compact
  return std::move(made->parsed);
}

CompactionBenchRow benchFile(const CompactionBenchInput& file, int repeats) {
  CompactionBenchRow row;
  row.name = file.name;
  Result<Value> parsed = parseJson(file.json);
  if (!parsed || !parsed->isArray()) {
    row.error = parsed ? "not an array of conversations" : parsed.error().message;
    return row;
  }
  const Value& all = parsed.value();
  std::vector<Prepared> prepared(all.items.size());
  std::vector<double> from, compact, raw, def, heavy, to, json;
  for (int r = 0; r < std::max(repeats, 1); ++r) {
    const bool first = r == 0;
    auto start = Clock::now();
    for (std::size_t i = 0; i < all.items.size(); ++i) {
      Result<Value> doc = fromOpenAI(all.items[i], "");
      if (!doc) {
        row.error = "conversation " + js::decimalAscii(i) + ": " + doc.error().message;
        return row;
      }
      prepared[i].messages = &all.items[i];
      prepared[i].document = std::move(doc.value());
    }
    from.push_back(msSince(start));

    for (Prepared& p : prepared) {
      p.conversation = readConversation(p.document, "").value();
    }
    start = Clock::now();
    for (Prepared& p : prepared) {
      p.defaultOnly.clear();
      p.stacked.clear();
      if (std::optional<Compaction> d = compactWith(p.conversation, u"default")) {
        p.defaultOnly.push_back(*d);
        p.stacked.push_back(std::move(*d));
      }
      if (std::optional<Compaction> h = compactWith(p.conversation, u"heavy")) {
        p.stacked.push_back(std::move(*h));
      }
    }
    compact.push_back(msSince(start));

    double tokensRaw = 0;
    double tokensDefault = 0;
    double tokensHeavy = 0;
    start = Clock::now();
    for (Prepared& p : prepared) tokensRaw += project(p.conversation, {}).tokens;
    raw.push_back(msSince(start));
    std::vector<Projection> views;
    views.reserve(prepared.size());
    start = Clock::now();
    for (Prepared& p : prepared) {
      views.push_back(project(p.conversation, p.defaultOnly));
      tokensDefault += views.back().tokens;
    }
    def.push_back(msSince(start));
    start = Clock::now();
    for (Prepared& p : prepared) tokensHeavy += project(p.conversation, p.stacked).tokens;
    heavy.push_back(msSince(start));

    start = Clock::now();
    for (std::size_t i = 0; i < prepared.size(); ++i) {
      Value view = Value::object();
      view.members.push_back({u"turns", std::move(views[i].turns)});
      Result<Conversation> c = readConversation(view, "");
      Value messages = toOpenAI(c.value(), prepared[i].document.find(u"source"));
      if (messages.items.empty() && !prepared[i].messages->items.empty()) row.error = "empty view";
    }
    to.push_back(msSince(start));

    if (first) {
      row.conversations = prepared.size();
      row.tokensRaw = tokensRaw;
      row.tokensDefault = tokensDefault;
      row.tokensHeavy = tokensHeavy;
      for (Prepared& p : prepared) {
        row.messages += p.messages->items.size();
        row.turns += p.conversation.turnCount();
        row.events += p.conversation.events.size();
        Value back = toOpenAI(p.conversation, p.document.find(u"source"));
        if (js::toJson(back) != js::toJson(*p.messages)) ++row.roundTripFailures;
        Value request = Value::object();
        request.members.push_back({u"op", Value::fromString(u"project")});
        request.members.push_back({u"format", Value::fromString(u"openai")});
        Value doc = p.document;
        Value log = Value::array();
        if (!p.defaultOnly.empty()) {
          CompactRequest cr;
          cr.profile = u"default";
          log.items.push_back(createCompaction(p.conversation, cr, SummarizeFn())->compaction);
        }
        doc.set(u"compactions", std::move(log));
        request.members.push_back({u"conversation", std::move(doc)});
        p.projectRequest = js::toJson(request);
      }
    }
    start = Clock::now();
    for (Prepared& p : prepared) {
      std::string out = compactionJson(p.projectRequest);
      if (out.compare(0, 11, "{\"ok\":true,") != 0) row.error = out.substr(0, 200);
    }
    json.push_back(msSince(start));
  }
  row.fromOpenAIMs = median(from);
  row.compactMs = median(compact);
  row.projectRawMs = median(raw);
  row.projectDefaultMs = median(def);
  row.projectHeavyMs = median(heavy);
  row.toOpenAIMs = median(to);
  row.projectJsonMs = median(json);
  return row;
}

}  // namespace

std::vector<CompactionBenchRow> benchCompaction(const std::vector<CompactionBenchInput>& files,
                                                int repeats) {
  std::vector<CompactionBenchRow> rows;
  rows.reserve(files.size());
  for (const CompactionBenchInput& f : files) rows.push_back(benchFile(f, repeats));
  return rows;
}

std::string formatCompactionBench(const std::vector<CompactionBenchRow>& rows) {
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line,
                "%-36s %5s %6s %6s %6s %8s %8s %8s %8s %8s %8s %8s %10s %10s %10s %4s\n", "file",
                "convs", "msgs", "turns", "events", "from ms", "compact", "proj raw", "proj def",
                "proj hvy", "toOpenAI", "json ms", "tok raw", "tok def", "tok heavy", "rt!");
  out += line;
  for (const CompactionBenchRow& r : rows) {
    if (!r.error.empty()) {
      out += r.name + ": " + r.error + "\n";
      continue;
    }
    std::snprintf(line, sizeof line,
                  "%-36s %5zu %6zu %6zu %6zu %8.2f %8.2f %8.2f %8.2f %8.2f %8.2f %8.2f %10.0f "
                  "%10.0f %10.0f %4zu\n",
                  r.name.c_str(), r.conversations, r.messages, r.turns, r.events, r.fromOpenAIMs,
                  r.compactMs, r.projectRawMs, r.projectDefaultMs, r.projectHeavyMs, r.toOpenAIMs,
                  r.projectJsonMs, r.tokensRaw, r.tokensDefault, r.tokensHeavy,
                  r.roundTripFailures);
    out += line;
  }
  return out;
}

}  // namespace cce::compaction
