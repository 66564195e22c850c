// SPDX-License-Identifier: MIT
// Public entry points: compress dispatch, and the JSON and bytes envelope APIs (pending protocol).
#include "cce.h"

#include <map>
#include <set>

#include "budget.h"
#include "envelope.h"
#include "json_io.h"
#include "jscompat/json_writer.h"
#include "jscompat/number.h"
#include "jscompat/string.h"
#include "pipeline.h"
#include "request.h"
#include "request_bytes.h"
#include "validation.h"
#include "uncompress.h"

// CMake passes the project version; a direct compile (unit tests built by hand) gets a marker.
#ifndef CCE_VERSION
#define CCE_VERSION "0.0.0-dev"
#endif

namespace cce {

using json::Value;

const char* version() { return CCE_VERSION; }

namespace {

CompressResult compressViews(const std::vector<Message>& messages, const CompressOptions& options) {
  if (options.tokenBudget) return compressWithBudget(messages, options);
  return runPipeline(messages, options, options.recencyWindow);
}

}  // namespace

CompressResult compress(const std::vector<Message>& messages, const CompressOptions& options) {
  // The safe mode reads the text parts of array contents through a working copy (pipeline.h).
  if (std::optional<std::vector<Message>> views = textViewsOfParts(messages, options)) {
    return compressViews(*views, options);
  }
  return compressViews(messages, options);
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

Error invalid(std::string message, std::string path) {
  return Error{ErrorCode::InvalidInput, std::move(message), std::move(path)};
}

Value number(double d) { return Value::fromNumber(d); }

// A missing id of the materialised JSON output: strings stay strings, numbers numbers (the text
// is the shortest round-trip form, so parsing it restores the exact double; a non-finite number
// has no JSON form and becomes null, as JSON.stringify writes it).
Value scalarValue(const Scalar& s) {
  switch (s.kind) {
    case Scalar::Kind::Missing:
    case Scalar::Kind::Null: return Value::null();
    case Scalar::Kind::Bool: return Value::fromBool(s.text == u"true");
    case Scalar::Kind::Number: {
      Result<Value> parsed = parseJson(js::toUtf8(s.text));
      return parsed && parsed->isNumber() ? parsed.value() : Value::null();
    }
    case Scalar::Kind::String:
    case Scalar::Kind::Composite: return Value::fromString(s.text);
  }
  return Value::null();
}

// ---- plan form ----------------------------------------------------------------------------
// Written straight as JSON text: a plan has an entry per message, and building a json::Value tree
// for thousands of entries first cost more than writing them.

void appendIndex(std::size_t n, std::string& out) { out += std::to_string(n); }

// A missing id: [kind, text] with the kinds of the bytes request's scalars, so the host rebuilds
// the value without the engine parsing numbers.
void writeScalarPlan(const Scalar& s, std::string& out) {
  out += '[';
  appendIndex(static_cast<std::size_t>(s.kind), out);
  out += ',';
  js::writeJsonString(s.text, out);
  out += ']';
}

// `_cce_original` with source indices in place of ids: the host reads the ids from its own
// objects, so they come back exactly as given (strings, numbers or anything else).
void writeProvenancePlan(const Provenance& p, std::string& out) {
  out += "{\"src\":[";
  for (std::size_t i = 0; i < p.sources.size(); ++i) {
    if (i > 0) out += ',';
    appendIndex(p.sources[i], out);
  }
  out += "],\"summary_id\":";
  js::writeJsonString(p.summaryId, out);
  if (!p.parentIds.empty()) {
    out += ",\"parent_ids\":[";
    for (std::size_t i = 0; i < p.parentIds.size(); ++i) {
      if (i > 0) out += ',';
      js::writeJsonString(p.parentIds[i], out);
    }
    out += ']';
  }
  out += ",\"version\":";
  out += js::numberToString(p.version);
  out += '}';
}

// An unchanged message is just its source index; anything else {"s","c","o","m"}.
void writePlanEntry(std::size_t source, const U16* content, const Provenance* provenance,
                    bool ensureMetadata, std::string& out, bool textView = false) {
  if (!content && !provenance && !ensureMetadata && !textView) {
    appendIndex(source, out);
    return;
  }
  out += "{\"s\":";
  appendIndex(source, out);
  if (content) {
    out += ",\"c\":";
    js::writeJsonString(*content, out);
  }
  if (provenance) {
    out += ",\"o\":";
    writeProvenancePlan(*provenance, out);
  }
  if (ensureMetadata) out += ",\"m\":1";
  if (textView) out += ",\"t\":1";
  out += '}';
}

void writeCompressPlan(const CompressResult& result, std::string& out) {
  // Stats and budget fields are exactly the materialised ones (same keys, same order); only
  // messages and verbatim take their plan form.
  CompressResult statsOnly;
  statsOnly.compression = result.compression;
  statsOnly.budget = result.budget;
  const Value root = materializeCompressResult(statsOnly, {}, {});
  out += '{';
  for (std::size_t k = 0; k < root.members.size(); ++k) {
    const json::Member& member = root.members[k];
    if (k > 0) out += ',';
    js::writeJsonString(member.key, out);
    out += ':';
    if (member.key == u"messages") {
      out += '[';
      for (std::size_t i = 0; i < result.messages.size(); ++i) {
        const OutputMessage& m = result.messages[i];
        if (i > 0) out += ',';
        writePlanEntry(m.source, m.content ? &*m.content : nullptr,
                       m.provenance ? &*m.provenance : nullptr, m.ensureMetadata, out);
      }
      out += ']';
    } else if (member.key == u"verbatim") {
      out += '[';
      for (std::size_t i = 0; i < result.verbatim.size(); ++i) {
        const VerbatimEntry& v = result.verbatim[i];
        out += i > 0 ? ",[" : "[";
        js::writeJsonString(v.key, out);
        out += ',';
        appendIndex(v.source, out);
        out += v.ensureMetadata ? ",true]" : ",false]";
      }
      out += ']';
    } else {
      js::writeJson(member.value, out);
    }
  }
  if (result.fastPath) out += ",\"fastPath\":true";
  out += '}';
}

std::string planEnvelope(const CompressResult& result) {
  std::string out = "{\"ok\":true,\"plan\":";
  writeCompressPlan(result, out);
  out += '}';
  return out;
}

// ---- host hooks -------------------------------------------------------------------------------

// The host's answers so far (from a JSON or a bytes request), replayed in request order, and what
// is still unknown.
struct HostHooks {
  bool validateOnly = false;
  bool summarizer = false;
  std::vector<std::optional<U16>> summaries;  // nullopt: the summarizer failed -> fallback
  std::size_t nextSummary = 0;
  std::vector<U16> pendingSummaries;

  bool tokenCounter = false;
  std::vector<double> inputCounts;
  std::map<std::string, double> counts;
  std::set<std::string> pendingKeys;
  std::string pendingCounts;  // JSON array items, comma-separated
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
  if (m.textView) key += ":t";
  return key;
}

Result<bool> readHostJson(const Value* host, std::size_t messageCount, HostHooks& hooks) {
  if (!host || host->isNull()) return true;
  if (!host->isObject()) return invalid("host must be an object", "/host");

  if (const Value* s = host->find(u"summarizer"); s && s->truthy()) {
    hooks.summarizer = true;
    if (const Value* answers = host->find(u"summaries"); answers && !answers->isNull()) {
      if (!answers->isArray()) return invalid("host.summaries must be an array", "/host/summaries");
      for (const Value& a : answers->items) {
        hooks.summaries.push_back(a.isString() ? std::optional<U16>(a.string) : std::nullopt);
      }
    }
  }
  if (const Value* c = host->find(u"tokenCounter"); c && c->truthy()) {
    hooks.tokenCounter = true;
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
  }
  return true;
}

Result<bool> readHostBytes(std::string_view bytes, std::size_t messageCount, HostHooks& hooks) {
  Result<BytesCompressHost> host = readCompressHostBytes(bytes);
  if (!host) return host.error();
  hooks.validateOnly = host->validateOnly;
  if (hooks.validateOnly) return true;
  hooks.summarizer = host->summarizer;
  hooks.summaries = std::move(host->summaries);
  hooks.tokenCounter = host->tokenCounter;
  if (hooks.tokenCounter && host->inputCounts.size() != messageCount) {
    return invalid("host.inputCounts must give one count per message", "/host/inputCounts");
  }
  hooks.inputCounts = std::move(host->inputCounts);
  hooks.counts = std::move(host->counts);
  return true;
}

void installHostHooks(HostHooks& hooks, CompressOptions& options) {
  if (hooks.summarizer) {
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
  if (hooks.tokenCounter) {
    options.tokenCounter = [&hooks](const CountedMessage& m) {
      if (!m.content && !m.provenance && !m.ensureMetadata) {
        return TokenCount{hooks.inputCounts[m.sourceIndex], false};
      }
      std::string key = countKey(m);
      if (auto it = hooks.counts.find(key); it != hooks.counts.end()) {
        return TokenCount{it->second, false};
      }
      if (hooks.pendingKeys.insert(key).second) {
        std::string& out = hooks.pendingCounts;
        if (!out.empty()) out += ',';
        out += "{\"key\":";
        js::writeJsonString(js::fromUtf8(key), out);
        out += ",\"message\":";
        writePlanEntry(m.sourceIndex, m.content, m.provenance, m.ensureMetadata, out, m.textView);
        out += '}';
      }
      return TokenCount{0, true};
    };
  }
}

std::string pendingEnvelope(const HostHooks& hooks) {
  std::string out = "{\"ok\":true,\"pending\":{";
  if (!hooks.pendingSummaries.empty()) {
    out += "\"summaries\":[";
    for (std::size_t i = 0; i < hooks.pendingSummaries.size(); ++i) {
      out += i > 0 ? ",{\"text\":" : "{\"text\":";
      js::writeJsonString(hooks.pendingSummaries[i], out);
      out += '}';
    }
    out += ']';
  }
  if (!hooks.pendingCounts.empty()) {
    if (!hooks.pendingSummaries.empty()) out += ',';
    out += "\"counts\":[";
    out += hooks.pendingCounts;
    out += ']';
  }
  out += "}}";
  return out;
}

bool wantsPlan(const Value& request) {
  const Value* plan = request.find(u"plan");
  return plan && plan->truthy();
}

// ---- uncompress -------------------------------------------------------------------------------

// What uncompress sees, from either request form. Handles [0, messageCount) are the request's
// messages, [messageCount, ...) the store entries, keyed by storeKeys.
struct UncompressCall {
  std::vector<Message> views;
  std::size_t messageCount = 0;
  std::vector<U16> storeKeys;
  std::vector<bool> storeFound;
  bool lookupIsFunction = false;
  bool recursive = false;
};

// Runs uncompress; fills `pendingIds` instead when the lookup function must answer first.
UncompressResult runUncompress(const UncompressCall& call, std::vector<U16>& pendingIds) {
  const std::size_t n = call.messageCount;
  std::map<U16, std::size_t> storeHandles;
  for (std::size_t i = 0; i < call.storeKeys.size(); ++i) storeHandles[call.storeKeys[i]] = n + i;
  std::set<U16> pendingSeen;
  UncompressHost uhost;
  uhost.describe = [&call](std::size_t handle) -> const Message& { return call.views[handle]; };
  uhost.lookup = [&](const Scalar& id) -> std::optional<std::size_t> {
    auto it = storeHandles.find(id.text);
    if (it == storeHandles.end()) {
      if (call.lookupIsFunction && pendingSeen.insert(id.text).second) {
        pendingIds.push_back(id.text);
      }
      return std::nullopt;
    }
    if (!call.storeFound[it->second - n]) return std::nullopt;
    return it->second;
  };
  std::vector<std::size_t> input(n);
  for (std::size_t i = 0; i < n; ++i) input[i] = i;
  return uncompress(input, uhost, call.recursive);
}

std::string uncompressPendingEnvelope(const std::vector<U16>& pendingIds) {
  Value ids = Value::array();
  for (const U16& id : pendingIds) ids.items.push_back(Value::fromString(id));
  Value pending = Value::object();
  pending.members.push_back({u"ids", std::move(ids)});
  return okEnvelope("pending", pending);
}

std::string uncompressPlanEnvelope(const UncompressResult& result, const UncompressCall& call) {
  // A message of the request is its index; a store entry {"k": key}.
  std::string out = "{\"ok\":true,\"plan\":{\"messages\":[";
  for (std::size_t i = 0; i < result.messages.size(); ++i) {
    const std::size_t handle = result.messages[i];
    if (i > 0) out += ',';
    if (handle < call.messageCount) {
      appendIndex(handle, out);
    } else {
      out += "{\"k\":";
      js::writeJsonString(call.storeKeys[handle - call.messageCount], out);
      out += '}';
    }
  }
  out += "],\"messages_expanded\":";
  appendIndex(result.messagesExpanded, out);
  out += ",\"messages_passthrough\":";
  appendIndex(result.messagesPassthrough, out);
  out += ",\"missing_ids\":[";
  for (std::size_t i = 0; i < result.missingIds.size(); ++i) {
    if (i > 0) out += ',';
    writeScalarPlan(result.missingIds[i], out);
  }
  out += "]}}";
  return out;
}

}  // namespace

std::string compressJson(std::string_view requestText) {
  // Before parsing: a request over the limit must not cost the memory of its document.
  if (Result<bool> ok = checkRequestSize(requestText); !ok) return errorEnvelope(ok.error());
  Result<Value> parsed = parseJson(requestText);
  if (!parsed) return errorEnvelope(parsed.error());
  Value& request = parsed.value();
  if (!request.isObject()) return errorEnvelope(invalid("request must be a JSON object", ""));

  Result<ParsedMessages> messages = consumeMessages(request.find(u"messages"), "compress");
  if (!messages) return errorEnvelope(messages.error());
  CompressOptions options;
  const Value* optionsValue = request.find(u"options");
  if (Result<bool> ok = parseCompressOptions(optionsValue, options); !ok) {
    return errorEnvelope(ok.error());
  }
  if (options.compat == Compat::Safe) {
    if (Result<bool> ok = validateCompressRequest(messages->views, optionsValue, options); !ok) {
      return errorEnvelope(ok.error());
    }
  }
  HostHooks hooks;
  if (Result<bool> ok = readHostJson(request.find(u"host"), messages->views.size(), hooks); !ok) {
    return errorEnvelope(ok.error());
  }
  installHostHooks(hooks, options);

  CompressResult result = compress(messages->views, options);
  if (result.pending) return pendingEnvelope(hooks);
  if (wantsPlan(request)) return planEnvelope(result);
  return okEnvelope("output",
                    materializeCompressResult(result, messages->objects, messages->views));
}

std::string compressBytes(std::string_view request, std::string_view host) {
  Result<BytesCompressRequest> decoded = readCompressBytes(request);
  if (!decoded) return errorEnvelope(decoded.error());
  CompressOptions options;
  const Value* optionsValue = decoded->options.isNull() ? nullptr : &decoded->options;
  if (Result<bool> ok = parseCompressOptions(optionsValue, options); !ok) {
    return errorEnvelope(ok.error());
  }
  if (Result<bool> ok = checkRequestSize(request.size(), optionsValue); !ok) {
    return errorEnvelope(ok.error());
  }
  if (options.compat == Compat::Safe) {
    if (Result<bool> ok = validateCompressRequest(decoded->views, optionsValue, options); !ok) {
      return errorEnvelope(ok.error());
    }
  }
  HostHooks hooks;
  if (Result<bool> ok = readHostBytes(host, decoded->views.size(), hooks); !ok) {
    return errorEnvelope(ok.error());
  }
  if (hooks.validateOnly) return "{\"ok\":true,\"valid\":true}";
  installHostHooks(hooks, options);

  CompressResult result = compress(decoded->views, options);
  if (result.pending) return pendingEnvelope(hooks);
  return planEnvelope(result);
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
  UncompressCall call;
  if (const Value* options = request.find(u"options"); options && options->isObject()) {
    if (const Value* r = options->find(u"recursive")) call.recursive = r->truthy();
  }
  const Value* host = request.find(u"host");
  const Value* lookupFlag = host && host->isObject() ? host->find(u"lookup") : nullptr;
  call.lookupIsFunction = lookupFlag && lookupFlag->truthy();

  const std::size_t n = messages->items.size();
  call.messageCount = n;
  call.views.reserve(n + store->members.size());
  for (std::size_t i = 0; i < n; ++i) {
    const Value& item = messages->items[i];
    if (item.isNull()) {
      return errorEnvelope(invalid("uncompress(): messages[" + std::to_string(i) +
                                       "] must be an object",
                                   "/messages/" + std::to_string(i)));
    }
    call.views.push_back(describeMessage(item));
  }
  for (const json::Member& member : store->members) {
    call.storeKeys.push_back(member.key);
    call.storeFound.push_back(member.value.truthy());
    call.views.push_back(describeMessage(member.value));
  }

  std::vector<U16> pendingIds;
  UncompressResult result = runUncompress(call, pendingIds);
  if (!pendingIds.empty()) return uncompressPendingEnvelope(pendingIds);
  if (wantsPlan(request)) return uncompressPlanEnvelope(result, call);

  Value out = Value::object();
  Value list = Value::array();
  list.items.reserve(result.messages.size());
  for (std::size_t handle : result.messages) {
    list.items.push_back(handle < n ? messages->items[handle] : store->members[handle - n].value);
  }
  out.members.push_back({u"messages", std::move(list)});
  out.members.push_back(
      {u"messages_expanded", number(static_cast<double>(result.messagesExpanded))});
  out.members.push_back(
      {u"messages_passthrough", number(static_cast<double>(result.messagesPassthrough))});
  Value missing = Value::array();
  for (const Scalar& id : result.missingIds) missing.items.push_back(scalarValue(id));
  out.members.push_back({u"missing_ids", std::move(missing)});
  return okEnvelope("output", out);
}

std::string uncompressBytes(std::string_view request, std::string_view store) {
  Result<BytesUncompressRequest> decoded = readUncompressBytes(request, store);
  if (!decoded) return errorEnvelope(decoded.error());
  UncompressCall call;
  call.views = std::move(decoded->views);
  call.messageCount = decoded->messageCount;
  call.storeKeys = std::move(decoded->storeKeys);
  call.storeFound = std::move(decoded->storeFound);
  call.lookupIsFunction = true;  // the JS layer always answers the store lazily, as a lookup
  call.recursive = decoded->recursive;
  std::vector<U16> pendingIds;
  UncompressResult result = runUncompress(call, pendingIds);
  if (!pendingIds.empty()) return uncompressPendingEnvelope(pendingIds);
  return uncompressPlanEnvelope(result, call);
}

}  // namespace cce
