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

// The conversation document of an OpenAI-style transcript, read plainly for timing (one event
// per message part; a turn opens at a user message after a response). The package's reading, with
// its records for exact round trips, is the JS layer's (js/src/compaction-providers.ts).
Value documentOf(const Value& messages) {
  Value turns = Value::array();
  bool sawResponse = false;
  auto add = [&](const char16_t* type, Value e, bool user) {
    if (turns.items.empty() || (user && sawResponse)) {
      Value turn = Value::object();
      turn.append(u"events", Value::array());
      turns.items.push_back(std::move(turn));
      sawResponse = false;
    }
    sawResponse = sawResponse || !user;
    e.members.insert(e.members.begin(), {u"type", Value::fromString(type)});
    turns.items.back().members[0].value.items.push_back(std::move(e));
  };
  for (const Value& m : messages.items) {
    const std::u16string* role = stringMember(m, u"role");
    const Value* content = m.find(u"content");
    Value text = Value::object();
    if (content != nullptr && (content->isString() || content->isArray())) {
      text.append(u"content", Value(*content));
    }
    if (role == nullptr) continue;
    if (*role == u"system" || *role == u"developer") {
      add(u"system", std::move(text), false);
    } else if (*role == u"user") {
      add(u"user", std::move(text), true);
    } else if (*role == u"tool") {
      if (const std::u16string* id = stringMember(m, u"tool_call_id")) {
        text.appendString(u"id", *id);
      }
      add(u"toolResponse", std::move(text), false);
    } else if (*role == u"assistant") {
      if (const std::u16string* r = stringMember(m, u"reasoning_content")) {
        Value e = Value::object();
        e.appendString(u"content", *r);
        add(u"reasoning", std::move(e), false);
      }
      add(u"assistant", std::move(text), false);
      const Value* calls = m.find(u"tool_calls");
      for (const Value& call : calls != nullptr ? calls->items : std::vector<Value>{}) {
        const Value* fn = call.find(u"function");
        const std::u16string* name = fn != nullptr ? stringMember(*fn, u"name") : nullptr;
        if (name == nullptr) continue;
        Value e = Value::object();
        if (const std::u16string* id = stringMember(call, u"id")) {
          e.appendString(u"id", *id);
        }
        e.appendString(u"name", *name);
        if (const Value* args = fn->find(u"arguments")) e.append(u"arguments", Value(*args));
        add(u"toolRequest", std::move(e), false);
      }
    }
  }
  Value doc = Value::object();
  doc.append(u"turns", std::move(turns));
  doc.append(u"compactions", Value::array());
  return doc;
}

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
  std::vector<double> read, compact, raw, def, heavy, json;
  for (int r = 0; r < std::max(repeats, 1); ++r) {
    const bool first = r == 0;
    auto start = Clock::now();
    for (std::size_t i = 0; i < all.items.size(); ++i) {
      if (!all.items[i].isArray()) {
        row.error = "conversation " + js::decimalAscii(i) + ": not an array of messages";
        return row;
      }
      prepared[i].messages = &all.items[i];
      prepared[i].document = documentOf(all.items[i]);
    }
    for (Prepared& p : prepared) {
      Result<Conversation> c = readConversation(p.document, "");
      if (!c) {
        row.error = c.error().message + " @ " + c.error().path;
        return row;
      }
      p.conversation = std::move(c.value());
    }
    read.push_back(msSince(start));
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

    if (first) {
      row.conversations = prepared.size();
      row.tokensRaw = tokensRaw;
      row.tokensDefault = tokensDefault;
      row.tokensHeavy = tokensHeavy;
      for (Prepared& p : prepared) {
        row.messages += p.messages->items.size();
        row.turns += p.conversation.turnCount();
        row.events += p.conversation.events.size();
        Value request = Value::object();
        request.appendString(u"op", u"project");
        Value doc = p.document;
        Value log = Value::array();
        if (!p.defaultOnly.empty()) {
          CompactRequest cr;
          cr.profile = u"default";
          log.items.push_back(createCompaction(p.conversation, cr, SummarizeFn())->compaction);
        }
        doc.set(u"compactions", std::move(log));
        request.append(u"conversation", std::move(doc));
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
  row.readMs = median(read);
  row.compactMs = median(compact);
  row.projectRawMs = median(raw);
  row.projectDefaultMs = median(def);
  row.projectHeavyMs = median(heavy);
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
                "%-36s %5s %6s %6s %6s %8s %8s %8s %8s %8s %8s %10s %10s %10s\n", "file", "convs",
                "msgs", "turns", "events", "read ms", "compact", "proj raw", "proj def", "proj hvy",
                "json ms", "tok raw", "tok def", "tok heavy");
  out += line;
  for (const CompactionBenchRow& r : rows) {
    if (!r.error.empty()) {
      out += r.name + ": " + r.error + "\n";
      continue;
    }
    std::snprintf(line, sizeof line,
                  "%-36s %5zu %6zu %6zu %6zu %8.2f %8.2f %8.2f %8.2f %8.2f %8.2f %10.0f %10.0f "
                  "%10.0f\n",
                  r.name.c_str(), r.conversations, r.messages, r.turns, r.events, r.readMs,
                  r.compactMs, r.projectRawMs, r.projectDefaultMs, r.projectHeavyMs,
                  r.projectJsonMs, r.tokensRaw, r.tokensDefault, r.tokensHeavy);
    out += line;
  }
  return out;
}

}  // namespace cce::compaction
