// SPDX-License-Identifier: MIT
// contextJson: request parsing, state (de)serialisation, the envelope and the pending protocol.
#include "context/context_json.h"

#include <cmath>
#include <memory>
#include <utility>
#include <vector>

#include "envelope.h"
#include "jscompat/json_writer.h"
#include "jscompat/number.h"
#include "jscompat/sort.h"
#include "jscompat/string.h"
#include "json_io.h"

namespace cce {
namespace context {
namespace {

using json::Member;

constexpr std::u16string_view kFormat = u"cce-context/1";

Value number(double d) { return Value::fromNumber(d); }
Value size(std::size_t n) { return Value::fromNumber(static_cast<double>(n)); }
Value text(const std::string& utf8) { return Value::fromString(js::fromUtf8(utf8)); }

std::string utf8(std::u16string_view s) { return js::toUtf8(s); }

// Field readers: absent (or null) keeps the default; a wrong type is an InvalidInput at `path/key`.
struct Reader {
  const Value& object;
  std::string path;
  std::string name;  // for messages, e.g. "config"
  Error error;
  bool ok = true;

  const Value* get(const char16_t* key) const {
    const Value* v = object.find(key);
    return v && !v->isNull() ? v : nullptr;
  }
  bool fail(const char16_t* key, const char* rule) {
    if (ok) error = invalid(name + "." + utf8(key) + " " + rule, path + "/" + utf8(key));
    ok = false;
    return false;
  }
  // `required`: absent (or null) is an error, "is required".
  bool number(const char16_t* key, double& out, bool required = false) {
    const Value* v = get(key);
    if (!v) return !required || fail(key, "is required");
    if (!v->isNumber() || !std::isfinite(v->number)) return fail(key, "must be a finite number");
    out = v->number;
    return true;
  }
  bool optionalNumber(const char16_t* key, std::optional<double>& out) {
    double d = 0;
    if (!get(key)) return true;
    if (!number(key, d)) return false;
    out = d;
    return true;
  }
  bool count(const char16_t* key, std::size_t& out, bool required = false) {
    const Value* v = get(key);
    if (!v) return !required || fail(key, "is required");
    if (!v->isNumber() || v->number < 0 || v->number > 9007199254740991.0 ||
        std::floor(v->number) != v->number) {
      return fail(key, "must be a non-negative integer");
    }
    out = static_cast<std::size_t>(v->number);
    return true;
  }
  bool boolean(const char16_t* key, bool& out) {
    const Value* v = get(key);
    if (!v) return true;
    if (!v->isBool()) return fail(key, "must be a boolean");
    out = v->boolean;
    return true;
  }
  bool string(const char16_t* key, std::u16string& out) {
    const Value* v = object.find(key);
    if (!v || !v->isString()) return fail(key, "must be a string");
    // Strings are copied by construction and a move here and in context.cpp: the module then
    // has no u16string copy assignment.
    out = std::u16string(v->string);
    return true;
  }
};

// Reads into `c` (a default Config), as the state's readers below do.
Result<bool> parseConfig(const Value* value, const std::string& path, Config& c) {
  if (!value || !value->isObject()) return invalid("config must be an object", path);
  Reader r{*value, path, "config", {}};
  r.number(u"contextWindow", c.contextWindow, true) &&
      r.optionalNumber(u"systemPromptTokens", c.systemPromptTokens) &&
      r.number(u"promptBudget", c.promptBudget) && r.number(u"safetyMargin", c.safetyMargin) &&
      r.number(u"threshold", c.threshold) && r.count(u"keepLast", c.keepLast) &&
      r.count(u"keepFirst", c.keepFirst) &&
      r.optionalNumber(u"summaryInputTokens", c.summaryInputTokens) &&
      r.count(u"maxCheckpoints", c.maxCheckpoints) && r.count(u"ageAfter", c.ageAfter) &&
      r.boolean(u"tokenCounter", c.tokenCounter) && r.boolean(u"summarizer", c.summarizer);
  if (!r.ok) return r.error;
  if (const Value* estimate = value->find(u"tokenEstimate"); estimate && !estimate->isNull()) {
    if (estimate->isString() && (estimate->string == u"script" || estimate->string == u"chars")) {
      c.scriptEstimate = estimate->string == u"script";
    } else {
      return invalid("config.tokenEstimate must be \"script\" or \"chars\"",
                     path + "/tokenEstimate");
    }
  }
  if (Result<bool> ok = checkConfig(c); !ok) {
    Error e = ok.error();
    if (e.path.rfind("/config", 0) == 0) {
      std::string moved = path;
      moved.append(e.path, 7, std::string::npos);
      e.path = std::move(moved);
    }
    return e;
  }
  return true;
}

Value configJson(const Config& c) {
  Value o = Value::object();
  o.appendNumber(u"contextWindow", c.contextWindow);
  if (c.systemPromptTokens) o.appendNumber(u"systemPromptTokens", *c.systemPromptTokens);
  o.appendNumber(u"promptBudget", c.promptBudget);
  o.appendNumber(u"safetyMargin", c.safetyMargin);
  o.appendNumber(u"threshold", c.threshold);
  o.append(u"keepLast", size(c.keepLast));
  o.append(u"keepFirst", size(c.keepFirst));
  if (c.summaryInputTokens) o.appendNumber(u"summaryInputTokens", *c.summaryInputTokens);
  o.append(u"maxCheckpoints", size(c.maxCheckpoints));
  o.append(u"ageAfter", size(c.ageAfter));
  o.appendBool(u"tokenCounter", c.tokenCounter);
  o.appendBool(u"summarizer", c.summarizer);
  o.appendString(u"tokenEstimate", c.scriptEstimate ? u"script" : u"chars");
  return o;
}

Value idList(const std::vector<std::u16string>& ids) {
  Value a = Value::array();
  for (const auto& id : ids) a.items.push_back(Value::fromString(id));
  return a;
}

// The readers of a state fill their caller's objects and answer Result<bool>: a Result of a
// State, a Checkpoint or a vector of them would each carry its own default construction and
// moves into the module (for the errors' sake).
Result<bool> parseCheckpoint(const Value& v, const std::string& path, Checkpoint& cp) {
  if (!v.isObject()) return invalid("a checkpoint must be an object", path);
  Reader r{v, path, "checkpoint", {}};
  std::u16string level, summarizer;
  const Value* range = v.find(u"messageRange");
  double start = -1, end = -1;
  if (range && range->isObject()) {
    Reader rr{*range, path + "/messageRange", "checkpoint.messageRange", {}};
    std::size_t s = 0, e = 0;
    if (!(rr.count(u"start", s, true) && rr.count(u"end", e, true))) {
      return rr.error;
    }
    start = static_cast<double>(s);
    end = static_cast<double>(e);
  }
  if (start < 0)
    return invalid("checkpoint.messageRange must be {start, end}", path + "/messageRange");
  cp.start = static_cast<std::size_t>(start);
  cp.end = static_cast<std::size_t>(end);
  r.string(u"id", cp.id) && r.string(u"summary", cp.summary) && r.string(u"level", level) &&
      r.number(u"originalTokens", cp.originalTokens, true) &&
      r.number(u"compressedTokens", cp.compressedTokens, true) &&
      r.number(u"compressionRatio", cp.compressionRatio, true) &&
      r.number(u"compressionNumber", cp.compressionNumber, true) &&
      r.string(u"summarizer", summarizer);
  if (!r.ok) return r.error;
  std::optional<Level> parsedLevel = levelFromName(level);
  if (!parsedLevel)
    return invalid("checkpoint.level must be compact, moderate or detailed", path + "/level");
  cp.level = *parsedLevel;
  if (summarizer != u"host" && summarizer != u"deterministic") {
    return invalid("checkpoint.summarizer must be \"host\" or \"deterministic\"",
                   path + "/summarizer");
  }
  cp.hostSummary = summarizer == u"host";
  if (const Value* at = v.find(u"createdAt")) cp.createdAt = *at;
  const Value* ids = v.find(u"originalMessageIds");
  if (!ids || !ids->isArray()) {
    return invalid("checkpoint.originalMessageIds must be an array", path + "/originalMessageIds");
  }
  // Copy-constructed, then moved (no copy assignment of a vector of Values; see json/value.cpp).
  cp.originalMessageIds = std::vector<Value>(ids->items);
  if (const Value* merged = v.find(u"mergedFrom"); merged && !merged->isNull()) {
    if (!merged->isArray())
      return invalid("checkpoint.mergedFrom must be an array", path + "/mergedFrom");
    for (const Value& id : merged->items) {
      if (!id.isString())
        return invalid("checkpoint.mergedFrom must hold ids", path + "/mergedFrom");
      cp.mergedFrom.push_back(id.string);
    }
  }
  if (const Value* status = v.find(u"status"); status && status->isString())
    cp.status = std::u16string(status->string);
  if (const Value* by = v.find(u"replacedBy"); by && by->isString()) cp.replacedBy = std::u16string(by->string);
  return true;
}

Result<bool> parseCheckpoints(const Value* v, const std::string& path,
                              std::vector<Checkpoint>& out) {
  if (!v || v->isNull()) return true;
  if (!v->isArray()) return invalid("state" + path.substr(6) + " must be an array", path);
  for (std::size_t i = 0; i < v->items.size(); ++i) {
    out.push_back(Checkpoint());
    Result<bool> ok = parseCheckpoint(v->items[i], path + "/" + js::decimalAscii(i), out.back());
    if (!ok) return ok;
  }
  return true;
}

Value progressJson(const std::vector<ProgressEvent>& events) {
  Value a = Value::array();
  for (const ProgressEvent& e : events) {
    Value o = Value::object();
    o.appendString(u"stage", js::fromAscii(e.code));
    o.appendNumber(u"percent", e.percent);
    o.append(u"message", text(e.message));
    a.items.push_back(std::move(o));
  }
  return a;
}

Value validationJson(const Validation& v) {
  Value o = Value::object();
  o.appendBool(u"fits", v.fits);
  o.appendBool(u"underThreshold", v.underThreshold);
  o.appendNumber(u"tokens", v.tokens);
  o.appendNumber(u"available", v.available);
  Value reasons = Value::array();
  for (const Reason& r : v.reasons) {
    Value item = Value::object();
    item.append(u"code", text(r.code));
    item.append(u"message", text(r.message));
    reasons.items.push_back(std::move(item));
  }
  o.append(u"reasons", std::move(reasons));
  return o;
}

Value rangeJson(std::size_t start, std::size_t end) {
  Value r = Value::object();
  r.append(u"start", size(start));
  r.append(u"end", size(end));
  return r;
}

Value pendingJson(const Host& host, const std::vector<ProgressEvent>& progress) {
  Value pending = Value::object();
  if (!host.pendingCounts.empty()) {
    Value list = Value::array();
    for (const CountRequest& r : host.pendingCounts) {
      Value item = Value::object();
      item.append(u"key", text(r.key));
      item.append(u"message", Value(r.message));
      list.items.push_back(std::move(item));
    }
    pending.append(u"counts", std::move(list));
  }
  if (!host.pendingSummaries.empty()) {
    Value list = Value::array();
    for (const SummaryRequest& r : host.pendingSummaries) {
      Value item = Value::object();
      item.append(u"key", text(r.key));
      item.appendString(u"text", r.text);
      item.appendNumber(u"budget", r.budget);
      item.appendString(u"level", js::fromAscii(levelName(r.level)));
      item.append(u"messageRange", rangeJson(r.start, r.end));
      list.items.push_back(std::move(item));
    }
    pending.append(u"summaries", std::move(list));
  }
  pending.append(u"progress", progressJson(progress));
  return pending;
}

// The indices of `members` in key order (their keys are distinct).
std::vector<std::size_t> keyOrder(const std::vector<Member>& members) {
  std::vector<std::size_t> order(members.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  js::stableSort(order, [&members](std::size_t a, std::size_t b) {
    return members[a].key < members[b].key;
  });
  return order;
}

Result<bool> readHost(const Value* host, Host& out) {
  if (!host || host->isNull()) return true;
  if (!host->isObject()) return invalid("host must be an object", "/host");
  if (const Value* counts = host->find(u"counts"); counts && !counts->isNull()) {
    if (!counts->isObject()) return invalid("host.counts must be an object", "/host/counts");
    for (const Member& m : counts->members) {
      if (!m.value.isNumber() || !std::isfinite(m.value.number) || m.value.number < 0) {
        return invalid("host.counts values must be non-negative numbers",
                       "/host/counts/" + utf8(m.key));
      }
    }
    out.counts = counts;
    out.countsByKey = keyOrder(counts->members);
  }
  if (const Value* summaries = host->find(u"summaries"); summaries && !summaries->isNull()) {
    if (!summaries->isObject())
      return invalid("host.summaries must be an object", "/host/summaries");
    out.summaries = summaries;
  }
  return true;
}

Result<std::vector<Value>> takeMessages(Value& request, const char* op) {
  Value* list = request.find(u"messages");
  if (!list || !list->isArray()) {
    return invalid(std::string(op) + "(): messages must be an array", "/messages");
  }
  for (std::size_t i = 0; i < list->items.size(); ++i) {
    if (!list->items[i].isObject()) {
      const std::string index = js::decimalAscii(i);
      return invalid(std::string(op) + "(): messages[" + index + "] must be an object",
                     "/messages/" + index);
    }
  }
  return std::move(list->items);
}

Value messagesJson(std::vector<Value>&& messages) {
  Value a = Value::array();
  a.items = std::move(messages);
  return a;
}

// The state is not used after the response is built, so its history moves instead of copying.
Value withState(State& st, Value out) {
  std::vector<Value> history = std::move(st.messages);
  st.messages.clear();
  Value state = stateToJson(st);
  state.find(u"messages")->items = std::move(history);
  Value o = Value::object();
  o.append(u"state", std::move(state));
  for (Member& m : out.members) o.members.push_back(std::move(m));
  return o;
}

// Sorted by key (the ledger holds them in no order; its keys are UTF-8 bytes, one unit each, so
// this is the byte order of the keys), each written as the key it stands for: its bytes decoded
// (WTF-8, so a lone surrogate comes back as it was read).
Value summaryTokensJson(const Ledger& l) {
  Value sorted = Value::object();
  for (std::size_t i : keyOrder(l.summaryTokens.members)) {
    const Member& count = l.summaryTokens.members[i];
    const std::string bytes(count.key.begin(), count.key.end());  // each unit is one byte
    sorted.members.push_back({js::fromUtf8(bytes), count.value});
  }
  return sorted;
}

// States held between calls ("open" -> handle): an operation naming a handle reads and updates
// the state in place, so it costs what it touches rather than a parse and a write of the history.
// Handles are never reused; "close" frees one.
// Handle h is slot h - 1 (null once closed; the table owns what its slots point to): a vector
// rather than a std::map, whose node erase and lookups were code this module carried for this
// table alone; of plain pointers, whose vector code is smaller than unique_ptrs' (-52 gzip).
struct OpenStates {
  std::vector<State*> states;
  std::size_t open = 0;
  State* find(double handle) const {
    if (!(handle >= 1 && handle <= static_cast<double>(states.size()))) return nullptr;
    const auto slot = static_cast<std::size_t>(handle);
    return slot == handle ? states[slot - 1] : nullptr;
  }
};
OpenStates& openStates() {
  static OpenStates table;
  return table;
}

Result<State*> stateOfHandle(const Value& request) {
  const Value* handle = request.find(u"handle");
  if (!handle || !handle->isNumber()) return invalid("handle must be a number", "/handle");
  State* st = openStates().find(handle->number);
  if (!st) return invalid("no open context state has this handle", "/handle");
  return st;
}

}  // namespace

// What a compress or undo changed in a state held by handle: the active checkpoints, the archive
// and events appended since (`archiveFrom`, `eventsFrom`), and the counters. The caller's copy of
// the state becomes the engine's by replacing and appending these.
Value ledgerDelta(const Ledger& l, std::size_t archiveFrom, std::size_t eventsFrom) {
  Value o = Value::object();
  Value active = Value::array();
  for (const Checkpoint& cp : l.checkpoints) active.items.push_back(checkpointToJson(cp));
  o.append(u"checkpoints", std::move(active));
  Value archive = Value::array();
  for (std::size_t i = archiveFrom; i < l.archive.size(); ++i)
    archive.items.push_back(checkpointToJson(l.archive[i]));
  o.append(u"archive", std::move(archive));
  Value events = Value::array();
  for (std::size_t i = eventsFrom; i < l.events.size(); ++i) events.items.push_back(l.events[i]);
  o.append(u"events", std::move(events));
  o.appendNumber(u"compressions", l.compressions);
  o.appendNumber(u"nextId", l.nextId);
  o.append(u"summaryTokens", summaryTokensJson(l));
  return o;
}

Result<Config> configFromJson(const Value* value) {
  Config c;
  if (Result<bool> ok = parseConfig(value, "/config", c); !ok) return ok.error();
  return c;
}

Value usageToJson(const Usage& u) {
  Value o = Value::object();
  o.appendNumber(u"system", u.system);
  o.appendNumber(u"checkpoints", u.checkpoints);
  o.appendNumber(u"recent", u.recent);
  o.appendNumber(u"conversation", u.conversation);
  o.appendNumber(u"total", u.total);
  o.appendNumber(u"available", u.available);
  o.appendNumber(u"threshold", u.threshold);
  o.appendNumber(u"percent", u.percent);
  o.append(u"messages", size(u.messages));
  o.append(u"activeCheckpoints", size(u.activeCheckpoints));
  o.appendBool(u"overThreshold", u.overThreshold);
  o.appendBool(u"canCompress", u.canCompress);
  o.appendBool(u"shouldCompress", u.shouldCompress);
  return o;
}

Value checkpointToJson(const Checkpoint& cp) {
  Value o = Value::object();
  o.appendString(u"id", cp.id);
  o.append(u"createdAt", Value(cp.createdAt));
  o.appendString(u"summary", cp.summary);
  Value ids = Value::array();
  ids.items = std::vector<Value>(cp.originalMessageIds);
  o.append(u"originalMessageIds", std::move(ids));
  o.append(u"messageRange", rangeJson(cp.start, cp.end));
  o.appendNumber(u"originalTokens", cp.originalTokens);
  o.appendNumber(u"compressedTokens", cp.compressedTokens);
  o.appendNumber(u"compressionRatio", cp.compressionRatio);
  o.appendString(u"level", js::fromAscii(levelName(cp.level)));
  o.appendNumber(u"compressionNumber", cp.compressionNumber);
  o.appendString(u"summarizer", cp.hostSummary ? u"host" : u"deterministic");
  if (!cp.mergedFrom.empty()) o.append(u"mergedFrom", idList(cp.mergedFrom));
  if (!cp.status.empty()) o.appendString(u"status", cp.status);
  if (!cp.replacedBy.empty()) o.appendString(u"replacedBy", cp.replacedBy);
  return o;
}

Value stateToJson(const State& st) {
  Value o = Value::object();
  o.appendString(u"format", std::u16string(kFormat));
  o.append(u"config", configJson(st.config));
  Value messages = Value::array();
  messages.items = std::vector<Value>(st.messages);
  o.append(u"messages", std::move(messages));
  Value tokens = Value::array();
  for (double t : st.tokens) tokens.items.push_back(number(t));
  o.append(u"tokens", std::move(tokens));
  Value active = Value::array();
  for (const Checkpoint& cp : st.ledger.checkpoints) active.items.push_back(checkpointToJson(cp));
  o.append(u"checkpoints", std::move(active));
  Value archive = Value::array();
  for (const Checkpoint& cp : st.ledger.archive) archive.items.push_back(checkpointToJson(cp));
  o.append(u"archive", std::move(archive));
  Value events = Value::array();
  events.items = std::vector<Value>(st.ledger.events);
  o.append(u"events", std::move(events));
  o.appendNumber(u"compressions", st.ledger.compressions);
  o.appendNumber(u"nextId", st.ledger.nextId);
  o.append(u"summaryTokens", summaryTokensJson(st.ledger));
  return o;
}

namespace {

// stateFromJson into `st` (contextJson reads states this way: no Result<State> in the module).
Result<bool> readState(Value&& v, State& st) {
  if (!v.isObject()) return invalid("state must be an object", "/state");
  const Value* format = v.find(u"format");
  if (!format || !format->isString() || format->string != kFormat) {
    return invalid("state.format must be \"cce-context/1\"", "/state/format");
  }
  if (Result<bool> ok = parseConfig(v.find(u"config"), "/state/config", st.config); !ok) return ok;
  Value* messages = v.find(u"messages");
  if (!messages || !messages->isArray()) {
    return invalid("state.messages must be an array", "/state/messages");
  }
  for (std::size_t i = 0; i < messages->items.size(); ++i) {
    const Value& m = messages->items[i];
    const Value* role = m.isObject() ? m.find(u"role") : nullptr;
    if (!role || !role->isString()) {
      return invalid("state.messages[" + js::decimalAscii(i) + "] must be an object with a role",
                     "/state/messages/" + js::decimalAscii(i));
    }
  }
  st.messages = std::move(messages->items);
  const Value* tokens = v.find(u"tokens");
  if (!tokens || !tokens->isArray())
    return invalid("state.tokens must be an array", "/state/tokens");
  for (const Value& t : tokens->items) {
    if (!t.isNumber()) return invalid("state.tokens must be numbers", "/state/tokens");
    st.tokens.push_back(t.number);
  }
  if (Result<bool> ok =
          parseCheckpoints(v.find(u"checkpoints"), "/state/checkpoints", st.ledger.checkpoints);
      !ok) {
    return ok;
  }
  if (Result<bool> ok = parseCheckpoints(v.find(u"archive"), "/state/archive", st.ledger.archive);
      !ok) {
    return ok;
  }
  if (Value* events = v.find(u"events"); events && events->isArray()) {
    st.ledger.events = std::move(events->items);
  }
  Reader r{v, "/state", "state", {}};
  if (!(r.number(u"compressions", st.ledger.compressions) &&
        r.number(u"nextId", st.ledger.nextId))) {
    return r.error;
  }
  if (const Value* counts = v.find(u"summaryTokens"); counts && counts->isObject()) {
    for (const Member& m : counts->members) {
      // Distinct keys have distinct UTF-8 forms (lone surrogates too: WTF-8), so each is held once.
      if (m.value.isNumber()) {
        st.ledger.summaryTokens.members.push_back({js::fromAscii(utf8(m.key)), m.value});
      }
    }
  }
  return checkState(st);
}

}  // namespace

Result<State> stateFromJson(Value&& v) {
  State st;
  if (Result<bool> ok = readState(std::move(v), st); !ok) return ok.error();
  return st;
}

}  // namespace context

std::string contextJson(std::string_view requestText) {
  return contextJson(requestText, {context::foldToolChains, context::unfoldToolChains});
}

std::string contextJson(std::string_view requestText, ToolChainOps ops) {
  Result<json::Value> parsed = parseJson(requestText);
  if (!parsed) return errorEnvelope(parsed.error());
  return contextRequest(std::move(parsed.value()), ops);
}

std::string contextRequest(json::Value&& requestValue, ToolChainOps ops) {
  using namespace context;
  Value& request = requestValue;
  if (!request.isObject()) return errorEnvelope(invalid("request must be a JSON object", ""));
  const Value* opValue = request.find(u"op");
  if (!opValue || !opValue->isString()) return errorEnvelope(invalid("op must be a string", "/op"));
  const std::string op = js::toUtf8(opValue->string);

  // Stateless utilities over a message list.
  const bool folding = (op == "fold" && ops.fold) || (op == "unfold" && ops.unfold);
  if (folding || op == "recover" || op == "check") {
    Result<std::vector<Value>> messages = takeMessages(request, op.c_str());
    if (!messages) return errorEnvelope(messages.error());
    Value out = Value::object();
    if (folding) {
      std::vector<Value> result = (op == "fold" ? ops.fold : ops.unfold)(messages.value());
      out.append(u"messages", messagesJson(std::move(result)));
    } else if (op == "recover") {
      double keepLast = 5;
      Reader r{request, "", "recover()", {}};
      std::size_t k = 5;
      if (!r.count(u"keepLast", k)) return errorEnvelope(r.error);
      keepLast = static_cast<double>(k);
      Result<RecoveredProgress> p = recoverProgress(messages.value(), keepLast);
      if (!p) return errorEnvelope(p.error());
      out.appendBool(u"found", p->found);
      out.append(u"summaryIndex", p->found ? size(p->summaryIndex) : Value::null());
      out.appendNumber(u"coveredUntil", p->coveredUntil);
      out.appendNumber(u"originalCount", p->originalCount);
      out.appendNumber(u"target", p->target);
      out.appendNumber(u"alignedTarget", p->alignedTarget);
    } else {
      Value issues = Value::array();
      for (const StructureIssue& issue : checkStructure(messages.value())) {
        Value item = Value::object();
        item.appendString(u"kind", js::fromAscii(structureIssueName(issue.kind)));
        item.append(u"index", size(issue.index));
        issues.items.push_back(std::move(item));
      }
      out.append(u"issues", std::move(issues));
    }
    return okEnvelope("output", out);
  }

  if (op == "create") {
    State st;
    if (Result<bool> ok = parseConfig(request.find(u"config"), "/config", st.config); !ok)
      return errorEnvelope(ok.error());
    Host host;
    Value out = Value::object();
    out.append(u"usage", usageToJson(usage(st, host)));
    return okEnvelope("output", withState(st, std::move(out)));
  }

  if (op == "open") {
    Value* stateValue = request.find(u"state");
    if (!stateValue) return errorEnvelope(invalid("state is required", "/state"));
    const Value* echo = request.find(u"echo");
    const bool echoState = echo && echo->isBool() && echo->boolean;
    // Read in the place it will be held (no State moves in the module).
    auto loaded = std::make_unique<State>();
    if (Result<bool> ok = readState(std::move(*stateValue), *loaded); !ok)
      return errorEnvelope(ok.error());
    Host host;
    Usage u = usage(*loaded, host);
    if (host.pending()) return okEnvelope("pending", pendingJson(host, {}));
    OpenStates& table = openStates();
    table.states.push_back(loaded.release());
    ++table.open;
    const double handle = static_cast<double>(table.states.size());
    State& st = *table.states.back();
    Value out = Value::object();
    out.appendNumber(u"handle", handle);
    out.append(u"usage", usageToJson(u));
    if (echoState) out.append(u"state", stateToJson(st));
    return okEnvelope("output", out);
  }
  if (op == "close") {
    const Value* handle = request.find(u"handle");
    if (!handle || !handle->isNumber()) return errorEnvelope(invalid("handle must be a number", "/handle"));
    OpenStates& table = openStates();
    if (State* open = table.find(handle->number)) {
      delete open;
      table.states[static_cast<std::size_t>(handle->number) - 1] = nullptr;
      --table.open;
    }
    Value out = Value::object();
    out.append(u"open", size(table.open));
    return okEnvelope("output", out);
  }

  if (op == "save") {
    Result<State*> found = stateOfHandle(request);
    if (!found) return errorEnvelope(found.error());
    Value out = Value::object();
    out.append(u"state", stateToJson(*found.value()));
    return okEnvelope("output", out);
  }

  const bool known = op == "add" || op == "usage" || op == "shouldCompress" || op == "compress" ||
                     op == "view" || op == "undo";
  if (!known) return errorEnvelope(invalid("unknown op \"" + op + "\"", "/op"));

  // The state: one held by handle (updated in place) or one sent with the request.
  const bool held = request.find(u"handle") != nullptr;
  State sent;
  State* target = &sent;
  if (held) {
    Result<State*> found = stateOfHandle(request);
    if (!found) return errorEnvelope(found.error());
    target = found.value();
  } else {
    Value* stateValue = request.find(u"state");
    if (!stateValue) return errorEnvelope(invalid("state is required", "/state"));
    if (Result<bool> ok = readState(std::move(*stateValue), sent); !ok)
      return errorEnvelope(ok.error());
  }
  State& st = *target;
  const std::size_t archiveFrom = st.ledger.archive.size();
  const std::size_t eventsFrom = st.ledger.events.size();
  // A changed state goes back whole when it was sent, as a delta when it is held.
  auto answer = [&](Value out, bool ledgerChanged) {
    if (!held) return okEnvelope("output", withState(st, std::move(out)));
    if (ledgerChanged) out.append(u"ledger", ledgerDelta(st.ledger, archiveFrom, eventsFrom));
    return okEnvelope("output", out);
  };
  Host host;
  if (Result<bool> ok = readHost(request.find(u"host"), host); !ok)
    return errorEnvelope(ok.error());
  const Value* nowValue = request.find(u"now");
  const Value now = nowValue ? *nowValue : Value::null();
  Value out = Value::object();

  if (op == "add") {
    std::vector<Value> messages;
    if (Value* one = request.find(u"message"); one && !request.find(u"messages")) {
      messages.push_back(std::move(*one));
    } else {
      Result<std::vector<Value>> list = takeMessages(request, "add");
      if (!list) return errorEnvelope(list.error());
      messages = std::move(list.value());
    }
    const std::size_t before = st.messages.size();
    Result<bool> ok = addMessages(st, std::move(messages), host);
    if (!ok) return errorEnvelope(ok.error());
    if (host.pending()) return okEnvelope("pending", pendingJson(host, {}));
    Usage u = usage(st, host);
    if (host.pending()) {  // a held state stays as it was until the answer is complete
      while (st.messages.size() > before) st.messages.pop_back();
      while (st.tokens.size() > before) st.tokens.pop_back();
      return okEnvelope("pending", pendingJson(host, {}));
    }
    out.append(u"usage", usageToJson(u));
    if (held) {
      Value counts = Value::array();
      for (std::size_t i = before; i < st.tokens.size(); ++i) counts.items.push_back(number(st.tokens[i]));
      out.append(u"tokens", std::move(counts));
    }
    return answer(std::move(out), false);
  }
  if (op == "usage" || op == "shouldCompress") {
    Usage u = usage(st, host);
    if (host.pending()) return okEnvelope("pending", pendingJson(host, {}));
    if (op == "shouldCompress") out.appendBool(u"shouldCompress", u.shouldCompress);
    out.append(u"usage", usageToJson(u));
    return okEnvelope("output", out);
  }
  if (op == "view") {
    const Value* known = request.find(u"summariesKnown");
    const std::string knownKey = known && known->isString() ? js::toUtf8(known->string) : "";
    ViewResult v = view(st, host, !held, knownKey);
    if (host.pending()) return okEnvelope("pending", pendingJson(host, {}));
    if (held) {
      // The caller holds a copy of the history: its messages go by index, summaries in full.
      // Summaries the caller already has (its "summariesKnown" is their key) are not sent again.
      // A run of consecutive history indices (the recent messages) goes as [first, last].
      Value sources = Value::array(), summaries = Value::array();
      for (std::size_t k = 0; k < v.sources.size();) {
        std::size_t run = k + 1;
        while (v.sources[k] >= 0 && run < v.sources.size() &&
               v.sources[run] == v.sources[run - 1] + 1) {
          ++run;
        }
        if (run - k < 2) {
          sources.items.push_back(number(static_cast<double>(v.sources[k])));
        } else {
          Value pair = Value::array();
          pair.items.push_back(number(static_cast<double>(v.sources[k])));
          pair.items.push_back(number(static_cast<double>(v.sources[run - 1])));
          sources.items.push_back(std::move(pair));
        }
        k = run;
      }
      out.append(u"sources", std::move(sources));
      if (knownKey != v.summaryKey) {
        summaries.items = std::move(v.summaries);
        out.append(u"summaries", std::move(summaries));
      }
      out.append(u"summaryKey", text(v.summaryKey));
    } else {
      out.append(u"messages", messagesJson(std::move(v.messages)));
    }
    out.append(u"validation", validationJson(v.validation));
    out.append(u"usage", usageToJson(v.usage));
    return okEnvelope("output", out);
  }
  if (op == "undo") {
    const Value* id = request.find(u"checkpoint");
    if (!id || !id->isString())
      return errorEnvelope(invalid("undo(): checkpoint must be an id", "/checkpoint"));
    Result<UndoOutcome> undone = undo(st, id->string, now, host);
    if (!undone) return errorEnvelope(undone.error());
    if (host.pending()) return okEnvelope("pending", pendingJson(host, {}));
    out.append(u"checkpoint", checkpointToJson(undone->checkpoint));
    out.append(u"usage", usageToJson(undone->usage));
    return answer(std::move(out), true);
  }
  // compress
  CompressOutcome c = compress(st, now, host);
  if (host.pending()) return okEnvelope("pending", pendingJson(host, c.progress));
  out.appendBool(u"compressed", c.compressed);
  out.append(u"checkpoint", c.checkpoint ? checkpointToJson(*c.checkpoint) : Value::null());
  out.append(u"aged", idList(c.aged));
  out.append(u"merged", idList(c.merged));
  out.append(u"progress", progressJson(c.progress));
  out.append(u"validation", validationJson(c.validation));
  out.append(u"usage", usageToJson(c.usage));
  out.appendBool(u"again", c.again);
  return answer(std::move(out), true);
}

}  // namespace cce
