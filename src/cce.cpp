// SPDX-License-Identifier: MIT
// Public entry points: compress dispatch, and the JSON and bytes envelope APIs (pending protocol).
#include "cce.h"

#include <cmath>
#include <map>
#include <set>

#include "answer_writer.h"
#include "budget.h"
#include "earlier_provenance.h"
#include "envelope.h"
#include "json_io.h"
#include "jscompat/string.h"
#include "pipeline.h"
#include "request.h"
#include "request_bytes.h"
#include "string_index.h"
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
  CompressResult result = options.tokenBudget
                              ? compressWithBudget(messages, options)
                              : runPipeline(messages, options, options.recencyWindow);
  // The default mode restores exactly what it was given, even where an input message already
  // carries a `_cce_original` naming this call's originals; the reference expands it (spec §11).
  if (options.compat == Compat::Safe) guardEarlierProvenance(messages, options, result);
  return result;
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
// Written straight through an answer writer (answer_writer.h), JSON or binary: a plan has an entry
// per message, and building a json::Value tree for thousands of entries first cost more than
// writing them.

// A missing id: [kind, text] with the kinds of the bytes request's scalars, so the host rebuilds
// the value without the engine parsing numbers.
template <class W>
void writeScalarPlan(W& w, const Scalar& s) {
  w.beginArray();
  w.index(static_cast<std::size_t>(s.kind));
  w.string(s.text);
  w.endArray();
}

// `_cce_original` with source indices in place of ids: the host reads the ids from its own
// objects, so they come back exactly as given (strings, numbers or anything else).
template <class W>
void writeProvenancePlan(W& w, const Provenance& p) {
  w.beginObject();
  w.key(AnswerKey::src);
  w.beginArray();
  for (std::size_t source : p.sources) w.index(source);
  w.endArray();
  w.key(AnswerKey::summary_id);
  w.string(p.summaryId);
  if (!p.parentIds.empty()) {
    w.key(AnswerKey::parent_ids);
    w.beginArray();
    for (const U16& id : p.parentIds) w.string(id);
    w.endArray();
  }
  w.key(AnswerKey::version);
  w.number(p.version);
  w.endObject();
}

// An unchanged message is just its source index; anything else {"s","c","o","m","t"}.
template <class W>
void writePlanEntry(W& w, std::size_t source, const U16* content, const Provenance* provenance,
                    bool ensureMetadata, bool textView = false) {
  if (!content && !provenance && !ensureMetadata && !textView) return w.index(source);
  w.beginObject();
  w.key(AnswerKey::s);
  w.index(source);
  if (content) {
    w.key(AnswerKey::c);
    w.string(*content);
  }
  if (provenance) {
    w.key(AnswerKey::o);
    writeProvenancePlan(w, *provenance);
  }
  if (ensureMetadata) {
    w.key(AnswerKey::m);
    w.index(1);
  }
  if (textView) {
    w.key(AnswerKey::t);
    w.index(1);
  }
  w.endObject();
}

// The result object of the reference with messages and verbatim in plan form; the statistics and
// budget fields are the materialised ones (same keys, same order).
template <class W>
void writeCompressPlan(W& w, const CompressResult& result) {
  w.beginObject();
  w.key(AnswerKey::messages);
  w.beginArray();
  for (const OutputMessage& m : result.messages) {
    writePlanEntry(w, m.source, m.content ? &*m.content : nullptr,
                   m.provenance ? &*m.provenance : nullptr, m.ensureMetadata);
  }
  w.endArray();
  w.key(AnswerKey::compression);
  w.beginObject();
  const CompressionFields compression = compressionFields(result.compression);
  for (std::size_t i = 0; i < compression.count; ++i) {
    w.key(compression.fields[i].key);
    // As JSON.stringify writes a non-finite number (the JSON form writes null for it too).
    const double value = compression.fields[i].value;
    std::isfinite(value) ? w.number(value) : w.null();
  }
  w.endObject();
  w.key(AnswerKey::verbatim);
  w.beginArray();
  for (const VerbatimEntry& v : result.verbatim) {
    w.beginArray();
    w.string(v.key);
    w.index(v.source);
    w.boolean(v.ensureMetadata);
    w.endArray();
  }
  w.endArray();
  if (const std::optional<BudgetOutcome>& budget = result.budget) {
    w.key(AnswerKey::fits);
    w.boolean(budget->fits);
    w.key(AnswerKey::tokenCount);
    w.number(budget->tokenCount);
    w.key(AnswerKey::recencyWindow);
    w.number(budget->recencyWindow);
    // Safe mode, when the budget cannot be met: the host reports these messages' own ids.
    if (!budget->blocking.empty()) {
      w.key(AnswerKey::blocking);
      w.beginArray();
      for (std::size_t i : budget->blocking) w.index(i);
      w.endArray();
    }
  }
  if (result.fastPath) {
    w.key(AnswerKey::fastPath);
    w.boolean(true);
  }
  w.endObject();
}

// {"ok":true,"<field>":...} around what `payload` writes.
template <class W, class Payload>
std::string okAnswer(AnswerKey field, Payload&& payload) {
  W w;
  w.beginObject();
  w.key(AnswerKey::ok);
  w.boolean(true);
  w.key(field);
  payload(w);
  w.endObject();
  return w.take();
}

template <class W>
std::string planAnswer(const CompressResult& result) {
  return okAnswer<W>(AnswerKey::plan, [&](W& w) { writeCompressPlan(w, result); });
}

// ---- host hooks -------------------------------------------------------------------------------

// A rebuilt message the host's counter must count: a copy of what the engine's CountedMessage
// points to, which does not outlive the budget step that asked.
struct PendingCount {
  U16 key;
  std::size_t source = 0;
  std::optional<U16> content;
  std::optional<Provenance> provenance;
  bool ensureMetadata = false;
  bool textView = false;
};

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
  // The host's counts of rebuilt messages by countKey, and the ones asked for in this round.
  std::vector<U16> countKeys;
  std::vector<double> counts;
  StringIndex countIndex{[this](std::uint32_t i) { return std::u16string_view(countKeys[i]); }};
  std::vector<PendingCount> pendingCounts;
  StringIndex pendingIndex{
      [this](std::uint32_t i) { return std::u16string_view(pendingCounts[i].key); }};

  HostHooks() = default;
  HostHooks(const HostHooks&) = delete;  // the indices read this object's keys
  HostHooks& operator=(const HostHooks&) = delete;

  void addCount(U16 key, double count) {
    const std::uint32_t i = countIndex.intern(key);
    if (i < counts.size()) {
      counts[i] = count;  // the last answer for a key wins
      return;
    }
    countKeys.push_back(std::move(key));
    counts.push_back(count);
  }
};

U16 countKey(const CountedMessage& m) {
  // FNV-1a over the content identifies rebuilt contents; the source index, the summary id and the
  // clone flag complete what the counter can see.
  std::uint64_t h = 1469598103934665603ull;
  if (m.content) {
    for (char16_t c : *m.content) {
      h ^= static_cast<std::uint64_t>(c);
      h *= 1099511628211ull;
    }
  }
  U16 key;
  js::appendDecimal(key, m.sourceIndex);
  if (m.content) {
    key += u':';
    js::appendDecimal(key, m.content->size());
    key += u':';
    js::appendDecimal(key, h);
  } else {
    key += u":-";
  }
  if (m.provenance) {
    key += u':';
    key += m.provenance->summaryId;
  } else {
    key += u":-";
  }
  key += m.ensureMetadata ? u":m" : u":-";
  if (m.textView) key += u":t";
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
        if (member.value.isNumber()) hooks.addCount(member.key, member.value.number);
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
  for (auto& [key, count] : host->counts) hooks.addCount(std::move(key), count);
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
      U16 key = countKey(m);
      if (std::uint32_t i = hooks.countIndex.find(key); i != StringIndex::kAbsent) {
        return TokenCount{hooks.counts[i], false};
      }
      if (hooks.pendingIndex.intern(key) == hooks.pendingCounts.size()) {
        PendingCount& pending = hooks.pendingCounts.emplace_back();
        pending.key = std::move(key);
        pending.source = m.sourceIndex;
        if (m.content) pending.content = *m.content;
        if (m.provenance) pending.provenance = *m.provenance;
        pending.ensureMetadata = m.ensureMetadata;
        pending.textView = m.textView;
      }
      return TokenCount{0, true};
    };
  }
}

// {"summaries":[{"text"}...],"counts":[{"key","message"}...]}, each list only when non-empty.
template <class W>
std::string pendingAnswer(const HostHooks& hooks) {
  return okAnswer<W>(AnswerKey::pending, [&](W& w) {
    w.beginObject();
    if (!hooks.pendingSummaries.empty()) {
      w.key(AnswerKey::summaries);
      w.beginArray();
      for (const U16& text : hooks.pendingSummaries) {
        w.beginObject();
        w.key(AnswerKey::text);
        w.string(text);
        w.endObject();
      }
      w.endArray();
    }
    if (!hooks.pendingCounts.empty()) {
      w.key(AnswerKey::counts);
      w.beginArray();
      for (const PendingCount& p : hooks.pendingCounts) {
        w.beginObject();
        w.key(AnswerKey::key);
        w.string(p.key);
        w.key(AnswerKey::message);
        writePlanEntry(w, p.source, p.content ? &*p.content : nullptr,
                       p.provenance ? &*p.provenance : nullptr, p.ensureMetadata, p.textView);
        w.endObject();
      }
      w.endArray();
    }
    w.endObject();
  });
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
  std::vector<char> storeFound;
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

// One literal (the cap is a constant): no number formatting for a message this rare.
static_assert(kMaxRecursiveMessages == 100000, "the message below names the cap");
Error recursionTooLarge() {
  return Error{ErrorCode::InputTooLarge,
               "uncompress(): the recursive expansion returns more than 100000 messages "
               "(store entries that name each other)",
               "/options/recursive"};
}

template <class W>
std::string uncompressPendingAnswer(const std::vector<U16>& pendingIds) {
  return okAnswer<W>(AnswerKey::pending, [&](W& w) {
    w.beginObject();
    w.key(AnswerKey::ids);
    w.beginArray();
    for (const U16& id : pendingIds) w.string(id);
    w.endArray();
    w.endObject();
  });
}

template <class W>
std::string uncompressPlanAnswer(const UncompressResult& result, const UncompressCall& call) {
  return okAnswer<W>(AnswerKey::plan, [&](W& w) {
    w.beginObject();
    // A message of the request is its index; a store entry {"k": key}.
    w.key(AnswerKey::messages);
    w.beginArray();
    for (std::size_t handle : result.messages) {
      if (handle < call.messageCount) {
        w.index(handle);
      } else {
        w.beginObject();
        w.key(AnswerKey::k);
        w.string(call.storeKeys[handle - call.messageCount]);
        w.endObject();
      }
    }
    w.endArray();
    w.key(AnswerKey::messages_expanded);
    w.index(result.messagesExpanded);
    w.key(AnswerKey::messages_passthrough);
    w.index(result.messagesPassthrough);
    w.key(AnswerKey::missing_ids);
    w.beginArray();
    for (const Scalar& id : result.missingIds) writeScalarPlan(w, id);
    w.endArray();
    w.endObject();
  });
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
    if (Result<bool> ok = validateCompressRequest(messages->views, options); !ok) {
      return errorEnvelope(ok.error());
    }
  }
  HostHooks hooks;
  if (Result<bool> ok = readHostJson(request.find(u"host"), messages->views.size(), hooks); !ok) {
    return errorEnvelope(ok.error());
  }
  installHostHooks(hooks, options);

  CompressResult result = compress(messages->views, options);
  if (result.pending) return pendingAnswer<JsonAnswer>(hooks);
  if (wantsPlan(request)) return planAnswer<JsonAnswer>(result);
  return okEnvelope("output",
                    materializeCompressResult(result, messages->objects, messages->views));
}

std::string compressBytes(std::string_view request, std::string_view host) {
  // The request outlives this call (the host frees it after reading the answer), so the messages
  // may view their contents in it rather than copy them.
  Result<BytesCompressRequest> decoded = readCompressBytes(request, false, true);
  if (!decoded) return bytesErrorAnswer(decoded.error());
  CompressOptions options;
  if (Result<bool> ok = parseCompressOptions(decoded->options, options); !ok) {
    return bytesErrorAnswer(ok.error());
  }
  // maxInputBytes weighs the request as UTF-8 carries it. For a UTF-16 request that takes a pass
  // over every string, so it is made only when the cheap upper bound is over the limit.
  if (Result<bool> ok = checkRequestSize(decoded->utf8Size, options); !ok) {
    if (!kUtf16RequestsSupported || decoded->utf8SizeIsExact) {
      return bytesErrorAnswer(ok.error());
    }
    Result<BytesCompressRequest> measured = readCompressBytes(request, true);
    if (!measured) return bytesErrorAnswer(measured.error());
    if (Result<bool> exact = checkRequestSize(measured->utf8Size, options); !exact) {
      return bytesErrorAnswer(exact.error());
    }
  }
  if (options.compat == Compat::Safe) {
    if (Result<bool> ok = validateCompressRequest(decoded->views, options); !ok) {
      return bytesErrorAnswer(ok.error());
    }
  }
  HostHooks hooks;
  if (Result<bool> ok = readHostBytes(host, decoded->views.size(), hooks); !ok) {
    return bytesErrorAnswer(ok.error());
  }
  if (hooks.validateOnly) {
    return okAnswer<BytesAnswer>(AnswerKey::valid, [](BytesAnswer& w) { w.boolean(true); });
  }
  installHostHooks(hooks, options);

  CompressResult result = compress(decoded->views, options);
  if (result.pending) return pendingAnswer<BytesAnswer>(hooks);
  return planAnswer<BytesAnswer>(result);
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
      return errorEnvelope(invalid("uncompress(): messages[" + js::decimalAscii(i) +
                                       "] must be an object",
                                   "/messages/" + js::decimalAscii(i)));
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
  if (!pendingIds.empty()) return uncompressPendingAnswer<JsonAnswer>(pendingIds);
  if (result.tooLarge) return errorEnvelope(recursionTooLarge());
  if (wantsPlan(request)) return uncompressPlanAnswer<JsonAnswer>(result, call);

  Value out = Value::object();
  Value list = Value::array();
  list.items.reserve(result.messages.size());
  for (std::size_t handle : result.messages) {
    list.items.push_back(handle < n ? messages->items[handle] : store->members[handle - n].value);
  }
  out.append(u"messages", std::move(list));
  out.appendNumber(u"messages_expanded", static_cast<double>(result.messagesExpanded));
  out.appendNumber(u"messages_passthrough", static_cast<double>(result.messagesPassthrough));
  Value missing = Value::array();
  for (const Scalar& id : result.missingIds) missing.items.push_back(scalarValue(id));
  out.append(u"missing_ids", std::move(missing));
  return okEnvelope("output", out);
}

std::string uncompressBytes(std::string_view request, std::string_view store) {
  Result<BytesUncompressRequest> decoded = readUncompressBytes(request, store);
  if (!decoded) return bytesErrorAnswer(decoded.error());
  UncompressCall call;
  call.views = std::move(decoded->views);
  call.messageCount = decoded->messageCount;
  call.storeKeys = std::move(decoded->storeKeys);
  call.storeFound = std::move(decoded->storeFound);
  call.lookupIsFunction = true;  // the JS layer always answers the store lazily, as a lookup
  call.recursive = decoded->recursive;
  std::vector<U16> pendingIds;
  UncompressResult result = runUncompress(call, pendingIds);
  if (!pendingIds.empty()) return uncompressPendingAnswer<BytesAnswer>(pendingIds);
  if (result.tooLarge) return bytesErrorAnswer(recursionTooLarge());
  return uncompressPlanAnswer<BytesAnswer>(result, call);
}

}  // namespace cce
