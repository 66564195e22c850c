// SPDX-License-Identifier: MIT
// Creating compaction events: profiles, bound resolution, summary extension and generation.
#include "compaction/compact.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "compaction/projection.h"
#include "jscompat/json_writer.h"
#include "jscompat/string.h"
#include "summarizer.h"

namespace cce::compaction {

using json::Value;

namespace {

constexpr Profile kProfiles[] = {
    {u"default", true, u"strip", false, 3},
    {u"light", true, nullptr, false, 5},
    {u"heavy", false, nullptr, true, 3},
};

bool isInteger(const Value& v) {
  return v.isNumber() && std::isfinite(v.number) && v.number == std::floor(v.number) &&
         std::fabs(v.number) < 9007199254740992.0;
}

// "-3", "12": CLI-style integers given as strings.
std::optional<long long> integerText(std::u16string_view s) {
  std::size_t i = !s.empty() && (s[0] == u'-' || s[0] == u'+') ? 1 : 0;
  if (i == s.size() || s.size() - i > 15) return std::nullopt;
  long long n = 0;
  for (std::size_t k = i; k < s.size(); ++k) {
    if (!js::isDigit(s[k])) return std::nullopt;
    n = n * 10 + (s[k] - u'0');
  }
  return s[0] == u'-' ? -n : n;
}

// A turn count or a duration, as keepFirst/keepLast take them.
Result<Bound> readKeep(const Value& v, Bound::Kind kind, const std::string& path) {
  Bound b;
  b.kind = kind;
  if (isInteger(v) && v.number >= 0) {
    b.count = static_cast<long long>(v.number);
    return b;
  }
  if (v.isString()) {
    if (std::optional<double> ms = parseDuration(v.string)) {
      b.isDuration = true;
      b.ms = *ms;
      return b;
    }
  }
  return invalid("must be a non-negative turn count or a duration such as \"5h\"", path);
}

// Turn indices are resolved in signed arithmetic so that bounds past either end can be clamped.
struct Resolver {
  const Conversation& c;
  Instant now;
  long long last() const { return static_cast<long long>(c.turnCount()) - 1; }

  // Turns that started before any timestamp count as infinitely old.
  bool startedAtOrBefore(std::size_t t, double cutoff) const {
    return !c.turnStart[t].known || c.turnStart[t].ms <= cutoff;
  }
  long long firstAtOrAfter(double cutoff) const {
    for (std::size_t t = 0; t < c.turnCount(); ++t) {
      if (c.turnStart[t].known && c.turnStart[t].ms >= cutoff) return static_cast<long long>(t);
    }
    return last() + 1;
  }
  long long lastAtOrBefore(double cutoff) const {
    for (std::size_t t = c.turnCount(); t-- > 0;) {
      if (startedAtOrBefore(t, cutoff)) return static_cast<long long>(t);
    }
    return -1;
  }

  Result<long long> resolve(const Bound& b, bool from) const {
    if ((b.isDuration || b.kind == Bound::Kind::Duration) && !now.known) {
      return invalid("a duration bound needs timestamps on the turns or the request", "");
    }
    switch (b.kind) {
      case Bound::Kind::Index:
        return b.count;
      case Bound::Kind::FromEnd:
        return last() + b.count;
      case Bound::Kind::Last: {
        std::vector<std::size_t> order = recencyOrder(c.compactions);
        if (order.empty()) return from ? 0LL : -1LL;
        const Compaction& newest = c.compactions[order.back()];
        return static_cast<long long>(newest.toTurn) + (from ? 1 : 0);
      }
      case Bound::Kind::Duration:
        return from ? firstAtOrAfter(now.ms - b.ms) : lastAtOrBefore(now.ms - b.ms);
      case Bound::Kind::KeepLast:
        return b.isDuration ? lastAtOrBefore(now.ms - b.ms) : last() - b.count;
      case Bound::Kind::KeepFirst: {
        if (!b.isDuration) return b.count;
        std::size_t first = 0;
        while (first < c.turnCount() && !c.turnStart[first].known) ++first;
        if (first == c.turnCount()) return 0LL;
        const double cutoff = c.turnStart[first].ms + b.ms;
        for (std::size_t t = first; t < c.turnCount(); ++t) {
          if (c.turnStart[t].known && c.turnStart[t].ms > cutoff) return static_cast<long long>(t);
        }
        return last() + 1;
      }
    }
    return 0LL;
  }
};

void appendParagraph(std::u16string& out, std::u16string_view label, std::u16string_view text) {
  if (!out.empty()) out += u"\n\n";
  out += label;
  out += text;
}

}  // namespace

const Profile* findProfile(std::u16string_view name) {
  for (const Profile& p : kProfiles) {
    if (name == p.name) return &p;
  }
  return nullptr;
}

Result<Bound> readBound(const Value& value, std::string_view side, const std::string& path) {
  Bound b;
  const bool from = side == "from";
  std::optional<long long> integer;
  if (isInteger(value)) integer = static_cast<long long>(value.number);
  if (value.isString()) {
    if (value.string == u"last") {
      b.kind = Bound::Kind::Last;
      return b;
    }
    integer = integerText(value.string);
    if (!integer) {
      if (std::optional<double> ms = parseDuration(value.string)) {
        b.kind = Bound::Kind::Duration;
        b.isDuration = true;
        b.ms = *ms;
        return b;
      }
    }
  }
  if (integer) {
    b.kind = *integer < 0 ? Bound::Kind::FromEnd : Bound::Kind::Index;
    b.count = *integer;
    return b;
  }
  const char16_t* keepKey = from ? u"keepFirst" : u"keepLast";
  if (value.isObject() && value.members.size() == 1 && value.members[0].key == keepKey) {
    return readKeep(value.members[0].value, from ? Bound::Kind::KeepFirst : Bound::Kind::KeepLast,
                    path + "/" + js::toUtf8(keepKey));
  }
  return invalid(std::string(side) +
                     " must be a turn index, a negative offset, \"last\", a duration such as "
                     "\"5h\" or {\"" +
                     js::toUtf8(keepKey) + "\": N}",
                 path);
}

Result<CompactRequest> readCompactRequest(const Value& request) {
  CompactRequest r;
  if (const Value* p = request.find(u"profile"); p != nullptr && !p->isNull()) {
    if (!p->isString() || findProfile(p->string) == nullptr) {
      return invalid("profile must be \"default\", \"light\" or \"heavy\"", "/profile");
    }
    r.profile = p->string;
  }
  struct Field {
    const char16_t* key;
    std::optional<Bound>* into;
    bool keep;
    Bound::Kind kind;
  };
  for (const Field& f : {Field{u"from", &r.from, false, Bound::Kind::Index},
                         Field{u"to", &r.to, false, Bound::Kind::Index},
                         Field{u"keepFirst", &r.keepFirst, true, Bound::Kind::KeepFirst},
                         Field{u"keepLast", &r.keepLast, true, Bound::Kind::KeepLast}}) {
    const Value* v = request.find(f.key);
    if (v == nullptr || v->isNull()) continue;
    const std::string name = js::toUtf8(f.key);
    Result<Bound> b = f.keep ? readKeep(*v, f.kind, "/" + name) : readBound(*v, name, "/" + name);
    if (!b) return b.error();
    *f.into = b.value();
  }
  if (const Value* ts = request.find(u"timestamp"); ts != nullptr && !ts->isNull()) {
    Result<Instant> at = readTimestamp(*ts, "/timestamp");
    if (!at) return at.error();
    r.at = at.value();
    r.timestamp = *ts;
  }
  // A policy field set to null or false turns the profile's policy off.
  auto off = [](const Value* v) { return v->isNull() || (v->isBool() && !v->boolean); };
  if (const Value* v = request.find(u"reasoning")) {
    if (off(v)) {
      r.reasoning = Setting::Off;
    } else if ((v->isString() && v->string == u"strip") || (v->isBool() && v->boolean)) {
      r.reasoning = Setting::On;
    } else {
      return invalid("reasoning must be \"strip\"", "/reasoning");
    }
  }
  if (const Value* v = request.find(u"toolCalls")) {
    if (off(v)) {
      r.toolCalls = Setting::Off;
    } else {
      Result<ToolCallPolicy> p = readToolCallPolicy(*v, "/toolCalls");
      if (!p) return p.error();
      r.toolCalls = Setting::On;
      r.toolCallsValue = *v;
    }
  }
  if (const Value* v = request.find(u"tools")) {
    if (off(v)) {
      r.tools = Setting::Off;
    } else {
      Result<std::vector<ToolHint>> h = readToolHints(*v, "/tools");
      if (!h) return h.error();
      r.tools = Setting::On;
      r.toolsValue = *v;
    }
  }
  if (const Value* v = request.find(u"summary")) {
    if (off(v)) {
      r.summary = CompactRequest::Summary::Off;
    } else if (v->isBool()) {
      r.summary = CompactRequest::Summary::Generate;
    } else if (v->isObject()) {
      const Value* text = v->find(u"summary");
      if (text == nullptr || text->isNull()) {
        r.summary = CompactRequest::Summary::Generate;
      } else if (text->isString()) {
        r.summary = CompactRequest::Summary::Given;
        r.summaryText = text->string;
      } else {
        return invalid("summary.summary must be a string", "/summary/summary");
      }
    } else {
      return invalid("summary must be true, {} or {\"summary\": text}", "/summary");
    }
  }
  return r;
}

Result<std::optional<std::pair<std::size_t, std::size_t>>> resolveRange(
    const Conversation& c, const CompactRequest& r, long long defaultKeepLast) {
  const std::size_t n = c.turnCount();
  if (n == 0) return std::optional<std::pair<std::size_t, std::size_t>>();
  Resolver resolver{c, r.at.known ? r.at : c.latest};
  Bound keepFirst;
  keepFirst.kind = Bound::Kind::KeepFirst;
  Bound keepLast;
  keepLast.kind = Bound::Kind::KeepLast;
  keepLast.count = defaultKeepLast;
  const Bound& fromBound = r.from ? *r.from : r.keepFirst ? *r.keepFirst : keepFirst;
  const Bound& toBound = r.to ? *r.to : r.keepLast ? *r.keepLast : keepLast;
  Result<long long> from = resolver.resolve(fromBound, true);
  if (!from) return Error{from.error().code, from.error().message, "/from"};
  Result<long long> to = resolver.resolve(toBound, false);
  if (!to) return Error{to.error().code, to.error().message, "/to"};

  // A turn index names a turn: past the end it is a mistake. Every other bound (offsets from the
  // end, keepFirst/keepLast, durations, "last") is relative, and may leave nothing to compact.
  const std::string turns = js::decimalAscii(n) + (n == 1 ? " turn" : " turns");
  for (const auto& [bound, side, at] : {std::tuple{&fromBound, "from", from.value()},
                                        std::tuple{&toBound, "to", to.value()}}) {
    if (bound->kind == Bound::Kind::Index && at >= static_cast<long long>(n)) {
      return invalid(std::string(side) + " is turn " + js::decimalAscii(static_cast<std::uint64_t>(at)) +
                         ", past the conversation's " + turns + " (0.." +
                         js::decimalAscii(n - 1) + ")",
                     std::string("/") + side);
    }
  }
  if (fromBound.kind == Bound::Kind::Index && toBound.kind == Bound::Kind::Index &&
      from.value() > to.value()) {
    return invalid("from is turn " + js::decimalAscii(static_cast<std::uint64_t>(from.value())) +
                       ", after to (turn " +
                       js::decimalAscii(static_cast<std::uint64_t>(to.value())) + ")",
                   "/from");
  }
  const long long a = std::max(from.value(), 0LL);
  const long long b = std::min(to.value(), static_cast<long long>(n) - 1);
  if (a > b) return std::optional<std::pair<std::size_t, std::size_t>>();
  return std::optional(std::make_pair(static_cast<std::size_t>(a), static_cast<std::size_t>(b)));
}

std::pair<std::size_t, std::size_t> extendOverSummaries(const std::vector<Compaction>& compactions,
                                                        std::size_t from, std::size_t to) {
  for (bool changed = true; changed;) {
    changed = false;
    for (const Compaction& s : compactions) {
      if (!s.hasSummary) continue;
      const bool intersects = s.fromTurn <= to && from <= s.toTurn;
      const bool newContainsOld = from <= s.fromTurn && s.toTurn <= to;
      const bool oldContainsNew = s.fromTurn <= from && to <= s.toTurn;
      if (intersects && !newContainsOld && !oldContainsNew) {
        from = std::min(from, s.fromTurn);
        to = std::max(to, s.toTurn);
        changed = true;
      }
    }
  }
  return {from, to};
}

SummaryInput summaryInput(const Conversation& c, std::size_t from, std::size_t to) {
  SummaryInput input;
  const auto names = requestNames(c);
  for (std::size_t i = c.turnBegin[from]; i < c.turnBegin[to + 1]; ++i) {
    const EventRef& e = c.events[i];
    const Value& o = *e.object;
    switch (e.type) {
      case EventType::User:
      case EventType::Assistant:
      case EventType::Reasoning: {
        std::u16string text = contentText(o.find(u"content"));
        if (text.empty()) break;
        appendParagraph(input.text,
                        e.type == EventType::User        ? u"User: "
                        : e.type == EventType::Assistant ? u"Assistant: "
                                                         : u"Reasoning: ",
                        text);
        break;
      }
      case EventType::ToolRequest: {
        std::u16string label = u"Tool call " + *stringMember(o, u"name") + u": ";
        const Value* args = o.find(u"arguments");
        std::u16string text = args == nullptr    ? std::u16string()
                              : args->isString() ? args->string
                                                 : js::fromUtf8(js::toJson(*args));
        appendParagraph(input.text, label, text);
        break;
      }
      case EventType::ToolResponse: {
        const Value* ok = o.find(u"ok");
        const bool success = ok == nullptr || !ok->isBool() || ok->boolean;
        std::u16string label =
            u"Tool result " + toolNameOf(o, names) + (success ? u" (success): " : u" (error): ");
        appendParagraph(input.text, label, contentText(o.find(u"content")));
        break;
      }
      case EventType::System:
      case EventType::Other:
        break;
    }
  }
  input.budget = input.text.size() < 600 ? 200 : 400;
  return input;
}

std::u16string deterministicSummary(const SummaryInput& input) {
  std::u16string text = summarize(input.text, input.budget);
  return text.empty() ? std::u16string(u"(nothing to summarize)") : text;
}

Result<CompactOutcome> createCompaction(const Conversation& c, const CompactRequest& r,
                                        const SummarizeFn& summarizer) {
  using Summary = CompactRequest::Summary;
  const bool explicitPolicy =
      r.reasoning != Setting::Unset || r.toolCalls != Setting::Unset || r.summary != Summary::Unset;
  const Profile* profile = r.profile        ? findProfile(*r.profile)
                           : explicitPolicy ? nullptr
                                            : findProfile(u"default");
  bool stripReasoning = profile != nullptr && profile->stripReasoning;
  std::optional<Value> toolCalls;
  if (profile != nullptr && profile->toolCalls != nullptr) {
    toolCalls = Value::fromString(profile->toolCalls);
  }
  Summary summary = profile != nullptr && profile->summary ? Summary::Generate : Summary::Off;
  if (r.reasoning != Setting::Unset) stripReasoning = r.reasoning == Setting::On;
  if (r.toolCalls == Setting::On) toolCalls = r.toolCallsValue;
  if (r.toolCalls == Setting::Off) toolCalls.reset();
  if (r.summary != Summary::Unset) summary = r.summary;
  if (!stripReasoning && !toolCalls && summary == Summary::Off) {
    return invalid("the compaction has no policy: set reasoning, toolCalls or summary", "");
  }

  Result<std::optional<std::pair<std::size_t, std::size_t>>> range =
      resolveRange(c, r, profile != nullptr ? profile->keepLast : 0);
  if (!range) return range.error();
  CompactOutcome out;
  if (!range.value()) {
    out.empty = true;
    return out;
  }
  out.requestedFrom = range.value()->first;
  out.requestedTo = range.value()->second;
  std::size_t from = out.requestedFrom;
  std::size_t to = out.requestedTo;

  std::u16string summaryText;
  if (summary != Summary::Off) {
    std::tie(from, to) = extendOverSummaries(c.compactions, from, to);
    out.extended = from != out.requestedFrom || to != out.requestedTo;
    if (summary == Summary::Given) {
      if (out.extended) {
        return invalid("the summary range must extend to turns " + js::decimalAscii(from) + ".." +
                           js::decimalAscii(to) +
                           " to cover an overlapping summary; a given summary text would not "
                           "describe it (ask for a generated summary, or use that range)",
                       "/summary");
      }
      summaryText = r.summaryText;
    } else {
      SummaryInput input = summaryInput(c, from, to);
      SummaryAnswer answer;
      if (summarizer) answer = summarizer(input.text);
      if (answer.kind == SummaryAnswer::Kind::Pending) {
        out.pending = true;
        out.pendingSummary = std::move(input);
        return out;
      }
      const bool accepted = answer.kind == SummaryAnswer::Kind::Accepted && !answer.text.empty() &&
                            answer.text.size() < input.text.size();
      summaryText = accepted ? answer.text : deterministicSummary(input);
    }
  }

  Value& event = out.compaction = Value::object();
  auto index = [](std::size_t n) { return Value::fromNumber(static_cast<double>(n)); };
  if (r.timestamp) event.append(u"timestamp", Value(*r.timestamp));
  event.append(u"fromTurn", index(from));
  event.append(u"toTurn", index(to));
  if (summary != Summary::Off) {
    Value s = Value::object();
    s.appendString(u"summary", std::move(summaryText));
    event.append(u"summary", std::move(s));
  }
  if (stripReasoning) event.appendString(u"reasoning", u"strip");
  if (toolCalls) event.append(u"toolCalls", std::move(*toolCalls));
  if (r.tools == Setting::On) event.append(u"tools", Value(r.toolsValue));
  if (profile != nullptr) event.appendString(u"profile", profile->name);
  if (out.extended) {
    Value requested = Value::object();
    requested.append(u"fromTurn", index(out.requestedFrom));
    requested.append(u"toTurn", index(out.requestedTo));
    event.append(u"requested", std::move(requested));
  }
  Result<Compaction> parsed = readCompaction(event, c.turnCount(), "");
  if (!parsed) {
    return Error{ErrorCode::Internal, "built an invalid compaction: " + parsed.error().message,
                 parsed.error().path};
  }
  out.parsed = std::move(parsed.value());
  return out;
}

}  // namespace cce::compaction
