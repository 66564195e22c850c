// SPDX-License-Identifier: MIT
// compactionJson: request parsing, operation dispatch and the envelope (shapes in the header).
#include "compaction/compaction_json.h"

#include <optional>
#include <utility>
#include <vector>

#include "compaction/compact.h"
#include "compaction/model.h"
#include "compaction/projection.h"
#include "envelope.h"
#include "jscompat/json_writer.h"
#include "jscompat/string.h"
#include "json_io.h"

namespace cce {

using json::Value;
using namespace compaction;  // NOLINT: this file is the JSON face of the compaction module

namespace {

Value number(double d) { return Value::fromNumber(d); }

// The request's conversation document, read and validated. `document` must outlive the result.
Result<Conversation> conversationOf(const Value& request, const Value** document) {
  const Value* doc = request.find(u"conversation");
  if (doc == nullptr) return invalid("conversation is required", "/conversation");
  *document = doc;
  return readConversation(*doc, "/conversation");
}

// An events view ({"turns", "source"?}); `source` (the conversation's, may be null) is moved in.
Value viewOf(Projection projection, Value* source) {
  Value view = Value::object();
  view.append(u"turns", std::move(projection.turns));
  if (source != nullptr) view.append(u"source", std::move(*source));
  return view;
}

Value* mutableSource(Value& request) {
  Value* doc = request.find(u"conversation");
  return doc != nullptr ? doc->find(u"source") : nullptr;
}

std::string runProject(Value& request) {
  const Value* doc = nullptr;
  Result<Conversation> c = conversationOf(request, &doc);
  if (!c) return errorEnvelope(c.error());
  Projection projection = project(c.value(), c->compactions);
  const double tokens = projection.tokens;
  Value out = Value::object();
  out.append(u"view", viewOf(std::move(projection), mutableSource(request)));
  out.appendNumber(u"tokens", tokens);
  return okEnvelope("output", out);
}

// Replays the host's summary answers (docs/boundary.md); a compaction asks for at most one.
struct HostSummaries {
  bool enabled = false;
  std::vector<std::optional<std::u16string>> answers;
};

Result<HostSummaries> readHost(const Value& request) {
  HostSummaries host;
  const Value* h = request.find(u"host");
  if (h == nullptr || h->isNull()) return host;
  if (!h->isObject()) return invalid("host must be an object", "/host");
  const Value* flag = h->find(u"summarizer");
  host.enabled = flag != nullptr && flag->truthy();
  if (const Value* answers = h->find(u"summaries"); answers != nullptr && !answers->isNull()) {
    if (!answers->isArray()) return invalid("host.summaries must be an array", "/host/summaries");
    for (const Value& a : answers->items) {
      host.answers.push_back(a.isString() ? std::optional<std::u16string>(a.string) : std::nullopt);
    }
  }
  return host;
}

std::string runCompact(Value& request, bool dryRun) {
  const Value* doc = nullptr;
  Result<Conversation> c = conversationOf(request, &doc);
  if (!c) return errorEnvelope(c.error());
  Result<CompactRequest> spec = readCompactRequest(request);
  if (!spec) return errorEnvelope(spec.error());
  Result<HostSummaries> host = readHost(request);
  if (!host) return errorEnvelope(host.error());

  SummarizeFn summarizer;
  if (host->enabled) {
    summarizer = [&host](const std::u16string&) {
      SummaryAnswer answer;
      if (host->answers.empty()) {
        answer.kind = SummaryAnswer::Kind::Pending;
      } else if (host->answers[0]) {
        answer.kind = SummaryAnswer::Kind::Accepted;
        answer.text = *host->answers[0];
      }
      return answer;
    };
  }
  Result<CompactOutcome> made = createCompaction(c.value(), spec.value(), summarizer);
  if (!made) return errorEnvelope(made.error());
  CompactOutcome& outcome = made.value();
  if (outcome.pending) {
    Value item = Value::object();
    item.appendString(u"text", std::move(outcome.pendingSummary.text));
    item.appendNumber(u"budget", static_cast<double>(outcome.pendingSummary.budget));
    Value list = Value::array();
    list.items.push_back(std::move(item));
    Value pending = Value::object();
    pending.append(u"summaries", std::move(list));
    return okEnvelope("pending", pending);
  }

  // Nothing to compact (the bounds leave no turn): a null compaction, the view as it is.
  Value out = Value::object();
  out.append(u"compaction", outcome.empty ? Value() : std::move(outcome.compaction));
  out.append(u"index",
             outcome.empty ? Value() : number(static_cast<double>(c->compactions.size())));
  out.appendBool(u"extended", outcome.extended);
  if (!dryRun) return okEnvelope("output", out);

  const double raw = project(c.value(), {}, false).tokens;
  const double before = project(c.value(), c->compactions, false).tokens;
  std::vector<Compaction> with = c->compactions;
  if (!outcome.empty) with.push_back(std::move(outcome.parsed));
  Projection projection = project(c.value(), with);
  const double after = projection.tokens;
  out.append(u"view", viewOf(std::move(projection), mutableSource(request)));
  Value tokens = Value::object();
  tokens.appendNumber(u"raw", raw);
  tokens.appendNumber(u"before", before);
  tokens.appendNumber(u"after", after);
  out.append(u"tokens", std::move(tokens));
  return okEnvelope("output", out);
}

std::string runUndo(Value& request) {
  const Value* doc = nullptr;
  Result<Conversation> c = conversationOf(request, &doc);
  if (!c) return errorEnvelope(c.error());
  const std::size_t n = c->compactions.size();
  const Value* all = request.find(u"all");
  const bool removeAll = all != nullptr && all->truthy();
  std::size_t index = n;  // none
  if (!removeAll) {
    const Value* i = request.find(u"index");
    double k = -1;
    if (i != nullptr && !i->isNull()) {
      if (!i->isNumber() || i->number != static_cast<double>(static_cast<long long>(i->number))) {
        return errorEnvelope(invalid("index must be an integer", "/index"));
      }
      k = i->number;
    }
    if (k < 0) k += static_cast<double>(n);
    if (n == 0 || k < 0 || k >= static_cast<double>(n)) {
      return errorEnvelope(
          invalid("there is no compaction at that index (the log has " + js::decimalAscii(n) + ")",
                  "/index"));
    }
    index = static_cast<std::size_t>(k);
  }
  Value kept = Value::array();
  Value removed = Value::array();
  for (std::size_t k = 0; k < n; ++k) {
    const Value& event = *c->compactionObjects[k];
    (removeAll || k == index ? removed : kept).items.push_back(event);
  }
  Value out = Value::object();
  out.append(u"compactions", std::move(kept));
  out.append(u"removed", std::move(removed));
  return okEnvelope("output", out);
}

// Validation only: the JS layer converts a checked conversation to a provider format.
std::string runCheck(const Value& request) {
  const Value* doc = nullptr;
  Result<Conversation> c = conversationOf(request, &doc);
  if (!c) return errorEnvelope(c.error());
  return okEnvelope("output", Value::object());
}

}  // namespace

std::string compactionJson(std::string_view requestText) {
  Result<Value> parsed = parseJson(requestText);
  if (!parsed) return errorEnvelope(parsed.error());
  return compactionRequest(std::move(parsed.value()));
}

std::string compactionRequest(Value&& requestValue) {
  Value& request = requestValue;
  if (!request.isObject()) return errorEnvelope(invalid("request must be a JSON object", ""));
  const std::u16string* op = stringMember(request, u"op");
  if (op == nullptr) {
    return errorEnvelope(invalid(
        "op must be one of project, compact, dryRun, undo, check",
        "/op"));
  }
  if (*op == u"project") return runProject(request);
  if (*op == u"compact") return runCompact(request, false);
  if (*op == u"dryRun") return runCompact(request, true);
  if (*op == u"undo") return runUndo(request);
  if (*op == u"check") return runCheck(request);
  return errorEnvelope(invalid(
      "op must be one of project, compact, dryRun, undo, check",
      "/op"));
}

}  // namespace cce
