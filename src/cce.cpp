// SPDX-License-Identifier: MIT
// The public entry points: compress dispatch, and the JSON envelope API with its pending protocol.
#include "cce.h"

#include <cstdlib>
#include <map>
#include <set>

#include "budget.h"
#include "json_io.h"
#include "jscompat/json_writer.h"
#include "jscompat/number.h"
#include "jscompat/string.h"
#include "pipeline.h"
#include "request.h"
#include "uncompress.h"

// CMake passes the project version; a direct compile (unit tests built by hand) gets a marker.
#ifndef CCE_VERSION
#define CCE_VERSION "0.0.0-dev"
#endif

namespace cce {

using json::Value;

const char* version() { return CCE_VERSION; }

CompressResult compress(const std::vector<Message>& messages, const CompressOptions& options) {
  if (options.tokenBudget) return compressWithBudget(messages, options);
  return runPipeline(messages, options, options.recencyWindow);
}

std::string errorCodesJson() {
  std::string out = "[";
  bool first = true;
  for (ErrorCode code : allErrorCodes()) {
    if (!first) out += ",";
    first = false;
    out += "\"";
    out += errorCodeName(code);
    out += "\"";
  }
  return out + "]";
}

namespace {

std::string errorEnvelope(const Error& error) {
  std::string out = "{\"ok\":false,\"error\":{\"code\":\"";
  out += errorCodeName(error.code);
  out += "\",\"message\":";
  js::writeJsonString(js::fromUtf8(error.message), out);
  out += ",\"path\":";
  js::writeJsonString(js::fromUtf8(error.path), out);
  out += "}}";
  return out;
}

std::string okEnvelope(const char* field, const Value& payload) {
  std::string out = "{\"ok\":true,\"";
  out += field;
  out += "\":";
  js::writeJson(payload, out);
  out += "}";
  return out;
}

Error invalid(std::string message, std::string path) {
  return Error{ErrorCode::InvalidInput, std::move(message), std::move(path)};
}

Value number(double d) { return Value::fromNumber(d); }

// A missing id read back from a Scalar: strings stay strings, numbers numbers (their text is the
// shortest round-trip form, so strtod restores the exact double).
Value scalarValue(const Scalar& s) {
  switch (s.kind) {
    case Scalar::Kind::Missing:
    case Scalar::Kind::Null: return Value::null();
    case Scalar::Kind::Bool: return Value::fromBool(s.text == u"true");
    case Scalar::Kind::Number: return number(std::strtod(js::toUtf8(s.text).c_str(), nullptr));
    case Scalar::Kind::String:
    case Scalar::Kind::Composite: return Value::fromString(s.text);
  }
  return Value::null();
}

// ---- plan form ----------------------------------------------------------------------------

Value provenancePlan(const Provenance& p, const std::vector<json::ValuePtr>& inputs) {
  Value o = Value::object();
  Value ids = Value::array();
  for (std::size_t s : p.sources) {
    const Value* id = inputs[s]->find(u"id");
    ids.items.push_back(id ? *id : Value::null());
  }
  o.members.push_back({u"ids", std::move(ids)});
  o.members.push_back({u"summary_id", Value::fromString(p.summaryId)});
  if (!p.parentIds.empty()) {
    Value parents = Value::array();
    for (const U16& id : p.parentIds) parents.items.push_back(Value::fromString(id));
    o.members.push_back({u"parent_ids", std::move(parents)});
  }
  o.members.push_back({u"version", number(p.version)});
  return o;
}

Value planEntry(std::size_t source, const U16* content, const Provenance* provenance,
                bool ensureMetadata, const std::vector<json::ValuePtr>& inputs) {
  Value e = Value::object();
  e.members.push_back({u"s", number(static_cast<double>(source))});
  if (content) e.members.push_back({u"c", Value::fromString(*content)});
  if (provenance) e.members.push_back({u"o", provenancePlan(*provenance, inputs)});
  if (ensureMetadata) e.members.push_back({u"m", number(1)});
  return e;
}

Value compressPlan(const CompressResult& result, const std::vector<json::ValuePtr>& inputs,
                   const std::vector<Message>& views) {
  // Stats and budget fields are exactly the materialised ones; only messages/verbatim differ.
  CompressResult statsOnly;
  statsOnly.compression = result.compression;
  statsOnly.budget = result.budget;
  Value root = materializeCompressResult(statsOnly, inputs, views);
  Value messages = Value::array();
  messages.items.reserve(result.messages.size());
  for (const OutputMessage& m : result.messages) {
    messages.items.push_back(planEntry(m.source, m.content ? &*m.content : nullptr,
                                       m.provenance ? &*m.provenance : nullptr, m.ensureMetadata,
                                       inputs));
  }
  Value verbatim = Value::array();
  for (const VerbatimEntry& v : result.verbatim) {
    Value row = Value::array();
    row.items.push_back(Value::fromString(v.key));
    row.items.push_back(number(static_cast<double>(v.source)));
    row.items.push_back(Value::fromBool(v.ensureMetadata));
    verbatim.items.push_back(std::move(row));
  }
  root.set(u"messages", std::move(messages));
  root.set(u"verbatim", std::move(verbatim));
  if (result.fastPath) root.set(u"fastPath", Value::fromBool(true));
  return root;
}

// ---- host hooks -------------------------------------------------------------------------------

// Replays the host's answers in request order; records what is still unknown.
struct HostHooks {
  std::vector<std::optional<U16>> summaries;  // nullopt: the summarizer failed -> fallback
  std::size_t nextSummary = 0;
  std::vector<U16> pendingSummaries;

  std::vector<double> inputCounts;
  std::map<std::string, double> counts;
  std::set<std::string> pendingKeys;
  Value pendingCounts = Value::array();
};

std::string countKey(const CountedMessage& m) {
  // FNV-1a over the content identifies rebuilt contents; the source index, the summary id and the
  // clone flag complete what the counter can see.
  std::uint64_t h = 1469598103934665603ull;
  if (m.content) {
    for (char16_t c : *m.content) {
      h ^= static_cast<std::uint64_t>(c);
      h *= 1099511628211ull;
    }
  }
  std::string key = std::to_string(m.sourceIndex);
  key += m.content ? ":" + std::to_string(m.content->size()) + ":" + std::to_string(h) : ":-";
  key += m.provenance ? ":" + js::toUtf8(m.provenance->summaryId) : ":-";
  key += m.ensureMetadata ? ":m" : ":-";
  return key;
}

Result<bool> installHostHooks(const Value* host, std::size_t messageCount,
                              const std::vector<json::ValuePtr>& inputs, HostHooks& hooks,
                              CompressOptions& options) {
  if (!host || host->isNull()) return true;
  if (!host->isObject()) return invalid("host must be an object", "/host");

  if (const Value* s = host->find(u"summarizer"); s && s->truthy()) {
    if (const Value* answers = host->find(u"summaries"); answers && !answers->isNull()) {
      if (!answers->isArray()) return invalid("host.summaries must be an array", "/host/summaries");
      for (const Value& a : answers->items) {
        hooks.summaries.push_back(a.isString() ? std::optional<U16>(a.string) : std::nullopt);
      }
    }
    options.summarizer = [&hooks](const U16& text) {
      SummaryAnswer answer;
      if (hooks.nextSummary < hooks.summaries.size()) {
        const std::optional<U16>& given = hooks.summaries[hooks.nextSummary];
        if (given) {
          answer.kind = SummaryAnswer::Kind::Accepted;
          answer.text = *given;
        }
      } else {
        answer.kind = SummaryAnswer::Kind::Pending;
        hooks.pendingSummaries.push_back(text);
      }
      ++hooks.nextSummary;
      return answer;
    };
  }

  if (const Value* c = host->find(u"tokenCounter"); c && c->truthy()) {
    const Value* given = host->find(u"inputCounts");
    if (!given || !given->isArray() || given->items.size() != messageCount) {
      return invalid("host.inputCounts must give one count per message", "/host/inputCounts");
    }
    for (const Value& v : given->items) {
      if (!v.isNumber()) return invalid("host.inputCounts must be numbers", "/host/inputCounts");
      hooks.inputCounts.push_back(v.number);
    }
    if (const Value* counts = host->find(u"counts"); counts && counts->isObject()) {
      for (const json::Member& member : counts->members) {
        if (member.value.isNumber()) hooks.counts[js::toUtf8(member.key)] = member.value.number;
      }
    }
    options.tokenCounter = [&hooks, &inputs](const CountedMessage& m) {
      if (!m.content && !m.provenance && !m.ensureMetadata) {
        return TokenCount{hooks.inputCounts[m.sourceIndex], false};
      }
      std::string key = countKey(m);
      if (auto it = hooks.counts.find(key); it != hooks.counts.end()) {
        return TokenCount{it->second, false};
      }
      if (hooks.pendingKeys.insert(key).second) {
        Value request = Value::object();
        request.members.push_back({u"key", Value::fromString(js::fromUtf8(key))});
        request.members.push_back(
            {u"message", planEntry(m.sourceIndex, m.content, m.provenance, m.ensureMetadata,
                                   inputs)});
        hooks.pendingCounts.items.push_back(std::move(request));
      }
      return TokenCount{0, true};
    };
  }
  return true;
}

std::string pendingEnvelope(HostHooks& hooks) {
  Value pending = Value::object();
  if (!hooks.pendingSummaries.empty()) {
    Value list = Value::array();
    for (const U16& text : hooks.pendingSummaries) {
      Value item = Value::object();
      item.members.push_back({u"text", Value::fromString(text)});
      list.items.push_back(std::move(item));
    }
    pending.members.push_back({u"summaries", std::move(list)});
  }
  if (!hooks.pendingCounts.items.empty()) {
    pending.members.push_back({u"counts", std::move(hooks.pendingCounts)});
  }
  return okEnvelope("pending", pending);
}

bool wantsPlan(const Value& request) {
  const Value* plan = request.find(u"plan");
  return plan && plan->truthy();
}

}  // namespace

std::string compressJson(std::string_view requestText) {
  Result<Value> parsed = parseJson(requestText);
  if (!parsed) return errorEnvelope(parsed.error());
  Value& request = parsed.value();
  if (!request.isObject()) return errorEnvelope(invalid("request must be a JSON object", ""));

  Result<ParsedMessages> messages = consumeMessages(request.find(u"messages"), "compress");
  if (!messages) return errorEnvelope(messages.error());
  CompressOptions options;
  if (Result<bool> ok = parseCompressOptions(request.find(u"options"), options); !ok) {
    return errorEnvelope(ok.error());
  }
  HostHooks hooks;
  if (Result<bool> ok = installHostHooks(request.find(u"host"), messages->views.size(),
                                         messages->objects, hooks, options);
      !ok) {
    return errorEnvelope(ok.error());
  }

  CompressResult result = compress(messages->views, options);
  if (result.pending) return pendingEnvelope(hooks);
  if (wantsPlan(request)) {
    return okEnvelope("plan", compressPlan(result, messages->objects, messages->views));
  }
  return okEnvelope("output",
                    materializeCompressResult(result, messages->objects, messages->views));
}

std::string uncompressJson(std::string_view requestText) {
  Result<Value> parsed = parseJson(requestText);
  if (!parsed) return errorEnvelope(parsed.error());
  const Value& request = parsed.value();
  if (!request.isObject()) return errorEnvelope(invalid("request must be a JSON object", ""));

  const Value* messages = request.find(u"messages");
  if (!messages || !messages->isArray()) {
    return errorEnvelope(invalid("uncompress(): messages must be an array", "/messages"));
  }
  const Value* store = request.find(u"store");
  if (!store || !store->isObject()) {
    return errorEnvelope(
        invalid("uncompress(): store must be a VerbatimMap or lookup function", "/store"));
  }
  bool recursive = false;
  if (const Value* options = request.find(u"options"); options && options->isObject()) {
    if (const Value* r = options->find(u"recursive")) recursive = r->truthy();
  }
  const Value* host = request.find(u"host");
  const Value* lookupFlag = host && host->isObject() ? host->find(u"lookup") : nullptr;
  const bool lookupIsFunction = lookupFlag && lookupFlag->truthy();

  // Handles: [0, n) are the request's messages, [n, ...) store entries in member order.
  const std::size_t n = messages->items.size();
  std::vector<Message> views;
  views.reserve(n + store->members.size());
  for (std::size_t i = 0; i < n; ++i) {
    const Value& item = messages->items[i];
    if (item.isNull()) {
      return errorEnvelope(invalid("uncompress(): messages[" + std::to_string(i) +
                                       "] must be an object",
                                   "/messages/" + std::to_string(i)));
    }
    views.push_back(describeMessage(item));
  }
  std::map<U16, std::size_t> storeHandles;
  for (const json::Member& member : store->members) {
    storeHandles[member.key] = views.size();
    views.push_back(describeMessage(member.value));
  }

  std::vector<U16> pendingIds;
  std::set<U16> pendingSeen;
  UncompressHost uhost;
  uhost.describe = [&views](std::size_t handle) -> const Message& { return views[handle]; };
  uhost.lookup = [&](const Scalar& id) -> std::optional<std::size_t> {
    auto it = storeHandles.find(id.text);
    if (it == storeHandles.end()) {
      if (lookupIsFunction && pendingSeen.insert(id.text).second) pendingIds.push_back(id.text);
      return std::nullopt;
    }
    const Value& stored = store->members[it->second - n].value;
    if (!stored.truthy()) return std::nullopt;
    return it->second;
  };

  std::vector<std::size_t> input(n);
  for (std::size_t i = 0; i < n; ++i) input[i] = i;
  UncompressResult result = uncompress(input, uhost, recursive);

  if (!pendingIds.empty()) {
    Value ids = Value::array();
    for (const U16& id : pendingIds) ids.items.push_back(Value::fromString(id));
    Value pending = Value::object();
    pending.members.push_back({u"ids", std::move(ids)});
    return okEnvelope("pending", pending);
  }

  const bool plan = wantsPlan(request);
  Value out = Value::object();
  Value list = Value::array();
  list.items.reserve(result.messages.size());
  for (std::size_t handle : result.messages) {
    const bool fromInput = handle < n;
    if (plan) {
      Value ref = Value::object();
      if (fromInput) {
        ref.members.push_back({u"i", number(static_cast<double>(handle))});
      } else {
        ref.members.push_back({u"k", Value::fromString(store->members[handle - n].key)});
      }
      list.items.push_back(std::move(ref));
    } else {
      list.items.push_back(fromInput ? messages->items[handle] : store->members[handle - n].value);
    }
  }
  out.members.push_back({u"messages", std::move(list)});
  out.members.push_back({u"messages_expanded", number(static_cast<double>(result.messagesExpanded))});
  out.members.push_back(
      {u"messages_passthrough", number(static_cast<double>(result.messagesPassthrough))});
  Value missing = Value::array();
  for (const Scalar& id : result.missingIds) missing.items.push_back(scalarValue(id));
  out.members.push_back({u"missing_ids", std::move(missing)});
  return okEnvelope(plan ? "plan" : "output", out);
}

}  // namespace cce
