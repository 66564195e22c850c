// SPDX-License-Identifier: MIT
// Reading and validating conversation documents and compaction events; timestamps and lengths.
#include "compaction/model.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "jscompat/json_writer.h"
#include "jscompat/sort.h"
#include "jscompat/number.h"
#include "jscompat/string.h"
#include "token_estimate.h"

namespace cce::compaction {

using json::Kind;
using json::Value;

namespace {

bool isIndex(const Value& v) {
  return v.isNumber() && std::isfinite(v.number) && v.number >= 0 &&
         v.number == std::floor(v.number) && v.number < 9007199254740992.0;
}

bool isContentShape(const Value* v) {
  return v == nullptr || v->isNull() || v->isString() || v->isArray();
}

struct TypeName {
  const char16_t* name;
  EventType type;
};
constexpr TypeName kTypeNames[] = {
    {u"user", EventType::User},
    {u"assistant", EventType::Assistant},
    {u"reasoning", EventType::Reasoning},
    {u"toolRequest", EventType::ToolRequest},
    {u"toolResponse", EventType::ToolResponse},
    {u"system", EventType::System},
    {u"other", EventType::Other},
};

// Checks the members an event of `type` is read by; everything else is carried through as is.
Result<bool> checkEvent(EventType type, const Value& event, const std::string& path) {
  auto optionalString = [&](std::u16string_view key) -> Result<bool> {
    const Value* v = event.find(key);
    if (v != nullptr && !v->isString()) {
      return invalid(path + "/" + js::toUtf8(key) + " must be a string",
                     path + "/" + js::toUtf8(key));
    }
    return true;
  };
  switch (type) {
    case EventType::ToolRequest: {
      const Value* name = event.find(u"name");
      if (name == nullptr || !name->isString()) {
        return invalid("a toolRequest event needs a string name", path + "/name");
      }
      return optionalString(u"id");
    }
    case EventType::ToolResponse: {
      if (const Value* ok = event.find(u"ok"); ok != nullptr && !ok->isBool()) {
        return invalid("ok must be a boolean", path + "/ok");
      }
      if (Result<bool> r = optionalString(u"id"); !r) return r;
      if (Result<bool> r = optionalString(u"name"); !r) return r;
      break;
    }
    case EventType::Other:
      return optionalString(u"role");
    default:
      break;
  }
  if (!isContentShape(event.find(u"content"))) {
    return invalid("content must be a string or an array", path + "/content");
  }
  return true;
}

int digitsAt(std::u16string_view s, std::size_t at, std::size_t count) {
  if (at + count > s.size()) return -1;
  int value = 0;
  for (std::size_t i = at; i < at + count; ++i) {
    if (!js::isDigit(s[i])) return -1;
    value = value * 10 + (s[i] - u'0');
  }
  return value;
}

// Days from 1970-01-01 to a proleptic Gregorian date (month 1-12).
long long daysFromCivil(long long y, int m, int d) {
  y -= m <= 2 ? 1 : 0;
  const long long era = (y >= 0 ? y : y - 399) / 400;
  const long long yoe = y - era * 400;
  const long long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const long long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

int daysInMonth(int y, int m) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return m == 2 && leap ? 29 : kDays[m - 1];
}

std::size_t stringLiteralLength(std::u16string_view s) {
  std::size_t n = 2;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char16_t c = s[i];
    if (c == u'"' || c == u'\\' || c == u'\b' || c == u'\f' || c == u'\n' || c == u'\r' ||
        c == u'\t') {
      n += 2;
    } else if (c < 0x20) {
      n += 6;
    } else if (c >= 0xD800 && c <= 0xDBFF && i + 1 < s.size() && s[i + 1] >= 0xDC00 &&
               s[i + 1] <= 0xDFFF) {
      n += 2;
      ++i;
    } else if (c >= 0xD800 && c <= 0xDFFF) {
      n += 6;  // a lone surrogate is written as \udxxx
    } else {
      n += 1;
    }
  }
  return n;
}

}  // namespace

const char16_t* eventTypeName(EventType type) {
  for (const TypeName& t : kTypeNames) {
    if (t.type == type) return t.name;
  }
  return u"other";
}

const ToolHint* Compaction::hintFor(std::u16string_view tool) const {
  auto it = std::lower_bound(hints.begin(), hints.end(), tool,
                             [](const ToolHint& h, std::u16string_view t) { return h.tool < t; });
  return it != hints.end() && it->tool == tool ? &*it : nullptr;
}

const std::u16string* stringMember(const Value& object, std::u16string_view key) {
  const Value* v = object.find(key);
  return v != nullptr && v->isString() ? &v->string : nullptr;
}

std::optional<double> parseRfc3339(std::u16string_view s) {
  const int year = digitsAt(s, 0, 4);
  if (year < 0 || s.size() < 20 || s[4] != u'-' || s[7] != u'-') return std::nullopt;
  const int month = digitsAt(s, 5, 2);
  const int day = digitsAt(s, 8, 2);
  if (s[10] != u'T' && s[10] != u't' && s[10] != u' ') return std::nullopt;
  const int hour = digitsAt(s, 11, 2);
  const int minute = digitsAt(s, 14, 2);
  const int second = digitsAt(s, 17, 2);
  if (s[13] != u':' || s[16] != u':') return std::nullopt;
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month) || hour < 0 ||
      hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) {
    return std::nullopt;
  }
  std::size_t i = 19;
  double fraction = 0;
  if (i < s.size() && s[i] == u'.') {
    double scale = 100;  // milliseconds per first fractional digit
    std::size_t start = ++i;
    while (i < s.size() && js::isDigit(s[i])) {
      fraction += (s[i] - u'0') * scale;
      scale /= 10;
      ++i;
    }
    if (i == start) return std::nullopt;
  }
  if (i >= s.size()) return std::nullopt;
  long long offsetMinutes = 0;
  if (s[i] == u'Z' || s[i] == u'z') {
    ++i;
  } else if (s[i] == u'+' || s[i] == u'-') {
    const int oh = digitsAt(s, i + 1, 2);
    const int om = digitsAt(s, i + 4, 2);
    if (oh < 0 || om < 0 || oh > 23 || om > 59 || s[i + 3] != u':') return std::nullopt;
    offsetMinutes = (s[i] == u'+' ? 1 : -1) * (oh * 60LL + om);
    i += 6;
  } else {
    return std::nullopt;
  }
  if (i != s.size()) return std::nullopt;
  const long long days = daysFromCivil(year, month, day);
  const long long seconds = days * 86400 + hour * 3600LL + minute * 60LL + second;
  return static_cast<double>((seconds - offsetMinutes * 60) * 1000) + fraction;
}

std::optional<double> parseDuration(std::u16string_view s) {
  if (s.empty()) return std::nullopt;
  double total = 0;
  std::size_t i = 0;
  while (i < s.size()) {
    double amount = 0;
    const std::size_t start = i;
    while (i < s.size() && js::isDigit(s[i])) amount = amount * 10 + (s[i++] - u'0');
    if (i == start || i >= s.size() || i - start > 12) return std::nullopt;
    double unit = 0;
    switch (s[i++]) {
      case u's':
        unit = 1000;
        break;
      case u'm':
        unit = 60 * 1000;
        break;
      case u'h':
        unit = 3600 * 1000;
        break;
      case u'd':
        unit = 86400 * 1000;
        break;
      case u'w':
        unit = 7 * 86400 * 1000;
        break;
      default:
        return std::nullopt;
    }
    total += amount * unit;
  }
  return total;
}

Result<Instant> readTimestamp(const Value& value, const std::string& path) {
  if (value.isNull()) return Instant{};
  if (value.isNumber() && std::isfinite(value.number)) return Instant{true, value.number};
  if (value.isString()) {
    if (std::optional<double> ms = parseRfc3339(value.string)) return Instant{true, *ms};
  }
  return invalid(
      "a timestamp must be milliseconds since the epoch or an RFC 3339 date-time with an offset",
      path);
}

Result<ToolCallPolicy> readToolCallPolicy(const Value& value, const std::string& path) {
  ToolCallPolicy p;
  if (value.isNull()) return p;
  if (value.isString()) {
    const std::u16string& s = value.string;
    if (s == u"strip") return ToolCallPolicy{ToolCallMode::Strip, true, true};
    if (s == u"strip-responses") return ToolCallPolicy{ToolCallMode::Strip, false, true};
    if (s == u"strip-requests") return ToolCallPolicy{ToolCallMode::Strip, true, false};
    if (s == u"omit") return ToolCallPolicy{ToolCallMode::Omit, false, false};
  } else if (value.isObject()) {
    p.mode = ToolCallMode::Strip;
    if (const Value* policy = value.find(u"policy")) {
      if (policy->isString() && policy->string == u"omit") {
        p.mode = ToolCallMode::Omit;
      } else if (!policy->isString() || policy->string != u"strip") {
        return invalid("toolCalls.policy must be \"strip\" or \"omit\"", path + "/policy");
      }
    }
    for (auto [key, flag] :
         {std::pair<const char16_t*, bool*>{u"request", &p.request}, {u"response", &p.response}}) {
      const Value* v = value.find(key);
      if (v == nullptr) continue;
      if (!v->isBool()) {
        return invalid("toolCalls." + js::toUtf8(key) + " must be a boolean",
                       path + "/" + js::toUtf8(key));
      }
      *flag = v->boolean;
    }
    if (p.mode == ToolCallMode::Omit) p.request = p.response = false;
    return p;
  }
  return invalid(
      "toolCalls must be \"strip\", \"strip-responses\", \"strip-requests\", \"omit\" or "
      "{\"request\": bool, \"response\": bool}",
      path);
}

Result<std::vector<ToolHint>> readToolHints(const Value& value, const std::string& path) {
  std::vector<ToolHint> hints;
  if (value.isNull()) return hints;
  if (!value.isObject()) return invalid("tools must be an object of per-tool hints", path);
  for (const json::Member& m : value.members) {
    const std::string at = path + "/" + js::toUtf8(m.key);
    if (!m.value.isObject()) return invalid("a tool hint must be an object", at);
    ToolHint hint;
    hint.tool = m.key;
    for (auto [key, side] : {std::pair<const char16_t*, HintSide*>{u"request", &hint.request},
                             {u"response", &hint.response}}) {
      const Value* v = m.value.find(key);
      if (v == nullptr || v->isNull()) continue;
      if (v->isString() && v->string == u"keep") {
        *side = HintSide::Keep;
      } else if (v->isString() && v->string == u"strip") {
        *side = HintSide::Strip;
      } else {
        return invalid("a tool hint side must be \"keep\" or \"strip\"",
                       at + "/" + js::toUtf8(key));
      }
    }
    hints.push_back(std::move(hint));
  }
  // JSON objects have unique keys, so sorting gives a unique, searchable list.
  std::sort(hints.begin(), hints.end(),
            [](const ToolHint& a, const ToolHint& b) { return a.tool < b.tool; });
  return hints;
}

Result<Compaction> readCompaction(const Value& object, std::size_t turnCount,
                                  const std::string& path) {
  if (!object.isObject()) return invalid("a compaction must be an object", path);
  Compaction c;
  const Value* from = object.find(u"fromTurn");
  const Value* to = object.find(u"toTurn");
  if (from == nullptr || !isIndex(*from)) {
    return invalid("fromTurn must be a non-negative integer", path + "/fromTurn");
  }
  if (to == nullptr || !isIndex(*to)) {
    return invalid("toTurn must be a non-negative integer", path + "/toTurn");
  }
  c.fromTurn = static_cast<std::size_t>(from->number);
  c.toTurn = static_cast<std::size_t>(to->number);
  if (c.fromTurn > c.toTurn || c.toTurn >= turnCount) {
    return invalid("the compaction covers turns " + js::decimalAscii(c.fromTurn) + ".." +
                       js::decimalAscii(c.toTurn) + " but the conversation has " +
                       js::decimalAscii(turnCount) + " turns",
                   path);
  }
  if (const Value* at = object.find(u"atTurn"); at != nullptr && !at->isNull()) {
    if (!isIndex(*at)) return invalid("atTurn must be a non-negative integer", path + "/atTurn");
    c.atTurn = static_cast<std::size_t>(at->number);
  }
  if (const Value* ts = object.find(u"timestamp")) {
    Result<Instant> instant = readTimestamp(*ts, path + "/timestamp");
    if (!instant) return instant.error();
    c.timestamp = instant.value();
  }
  if (const Value* summary = object.find(u"summary"); summary != nullptr && !summary->isNull()) {
    const std::u16string* text = summary->isObject() ? stringMember(*summary, u"summary") : nullptr;
    if (text == nullptr) {
      return invalid("summary must be {\"summary\": text}", path + "/summary");
    }
    c.hasSummary = true;
    c.summary = *text;
  }
  if (const Value* r = object.find(u"reasoning"); r != nullptr && !r->isNull()) {
    if (!r->isString() || r->string != u"strip") {
      return invalid("reasoning must be \"strip\"", path + "/reasoning");
    }
    c.stripReasoning = true;
  }
  if (const Value* t = object.find(u"toolCalls")) {
    Result<ToolCallPolicy> policy = readToolCallPolicy(*t, path + "/toolCalls");
    if (!policy) return policy.error();
    c.toolCalls = policy.value();
  }
  if (const Value* hints = object.find(u"tools")) {
    Result<std::vector<ToolHint>> read = readToolHints(*hints, path + "/tools");
    if (!read) return read.error();
    c.hints = std::move(read.value());
  }
  return c;
}

Result<Conversation> readConversation(const Value& document, const std::string& path) {
  if (!document.isObject()) return invalid("the conversation must be an object", path);
  const Value* turns = document.find(u"turns");
  if (turns == nullptr || !turns->isArray()) {
    return invalid("conversation.turns must be an array", path + "/turns");
  }
  Conversation c;
  c.turnBegin.reserve(turns->items.size() + 1);
  c.turnStart.reserve(turns->items.size());
  Instant previous;
  auto noteLatest = [&c](const Instant& i) {
    if (i.known && (!c.latest.known || i.ms > c.latest.ms)) c.latest = i;
  };
  for (std::size_t t = 0; t < turns->items.size(); ++t) {
    const Value& turn = turns->items[t];
    const std::string turnPath = path + "/turns/" + js::decimalAscii(t);
    if (!turn.isObject()) return invalid("a turn must be an object", turnPath);
    const Value* events = turn.find(u"events");
    if (events == nullptr || !events->isArray()) {
      return invalid("turn.events must be an array", turnPath + "/events");
    }
    Instant start;
    if (const Value* ts = turn.find(u"timestamp")) {
      Result<Instant> read = readTimestamp(*ts, turnPath + "/timestamp");
      if (!read) return read.error();
      start = read.value();
      noteLatest(start);
    }
    c.turnBegin.push_back(c.events.size());
    for (std::size_t i = 0; i < events->items.size(); ++i) {
      const Value& event = events->items[i];
      const std::string eventPath = turnPath + "/events/" + js::decimalAscii(i);
      if (!event.isObject()) return invalid("an event must be an object", eventPath);
      const std::u16string* type = stringMember(event, u"type");
      const TypeName* found = nullptr;
      for (const TypeName& tn : kTypeNames) {
        if (type != nullptr && *type == tn.name) found = &tn;
      }
      if (found == nullptr) {
        return invalid(
            "event.type must be one of user, assistant, reasoning, toolRequest, toolResponse, "
            "system, other",
            eventPath + "/type");
      }
      if (Result<bool> ok = checkEvent(found->type, event, eventPath); !ok) return ok.error();
      if (const Value* ts = event.find(u"timestamp")) {
        Result<Instant> read = readTimestamp(*ts, eventPath + "/timestamp");
        if (!read) return read.error();
        if (!start.known) start = read.value();
        noteLatest(read.value());
      }
      c.events.push_back(EventRef{found->type, t, i, &event});
    }
    if (!start.known) start = previous;
    c.turnStart.push_back(start);
    previous = start;
  }
  c.turnBegin.push_back(c.events.size());

  if (const Value* log = document.find(u"compactions"); log != nullptr && !log->isNull()) {
    if (!log->isArray()) {
      return invalid("conversation.compactions must be an array", path + "/compactions");
    }
    for (std::size_t k = 0; k < log->items.size(); ++k) {
      Result<Compaction> read = readCompaction(log->items[k], c.turnCount(),
                                               path + "/compactions/" + js::decimalAscii(k));
      if (!read) return read.error();
      c.compactions.push_back(std::move(read.value()));
      c.compactionObjects.push_back(&log->items[k]);
    }
  }
  return c;
}

std::vector<std::size_t> recencyOrder(const std::vector<Compaction>& compactions) {
  std::vector<double> effective(compactions.size());
  double last = -std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < compactions.size(); ++i) {
    if (compactions[i].timestamp.known) last = compactions[i].timestamp.ms;
    effective[i] = last;
  }
  std::vector<std::size_t> order(compactions.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  js::stableSort(order, [&](std::size_t a, std::size_t b) { return effective[a] < effective[b]; });
  return order;
}

std::u16string contentText(const Value* content) {
  if (content == nullptr) return {};
  if (content->isString()) return content->string;
  std::u16string out;
  if (!content->isArray()) return out;
  bool first = true;
  for (const Value& part : content->items) {
    const std::u16string* text = part.isString() ? &part.string : stringMember(part, u"text");
    if (text == nullptr) continue;
    if (!first) out += u'\n';
    first = false;
    out += *text;
  }
  return out;
}

std::size_t contentLength(const Value* content) {
  if (content == nullptr) return 0;
  if (content->isString()) return content->string.size();
  if (!content->isArray()) return 0;
  std::size_t n = 0;
  bool first = true;
  for (const Value& part : content->items) {
    const std::u16string* text = part.isString() ? &part.string : stringMember(part, u"text");
    if (text == nullptr) continue;
    n += text->size() + (first ? 0 : 1);
    first = false;
  }
  return n;
}

std::size_t jsonLength(const Value& v) {
  switch (v.kind) {
    case Kind::Null:
      return 4;
    case Kind::Bool:
      return v.boolean ? 4 : 5;
    case Kind::Number:
      return std::isfinite(v.number) ? js::numberToString(v.number).size() : 4;
    case Kind::String:
      return stringLiteralLength(v.string);
    case Kind::Array: {
      std::size_t n = 2 + (v.items.empty() ? 0 : v.items.size() - 1);
      for (const Value& item : v.items) n += jsonLength(item);
      return n;
    }
    case Kind::Object: {
      std::size_t n = 2 + (v.members.empty() ? 0 : v.members.size() - 1);
      for (const json::Member& m : v.members) {
        n += stringLiteralLength(m.key) + 1 + jsonLength(m.value);
      }
      return n;
    }
  }
  return 0;
}

double toolRequestTokens(std::u16string_view name, const Value* arguments) {
  double tokens = estimateTokens(name);
  if (arguments) {
    tokens += arguments->isString() ? estimateTokens(arguments->string)
                                    : estimateTokens(js::fromUtf8(js::toJson(*arguments)));
  }
  return tokens;
}

double eventTokens(EventType type, const Value& event) {
  switch (type) {
    case EventType::ToolRequest: {
      const std::u16string* name = stringMember(event, u"name");
      return toolRequestTokens(name ? std::u16string_view(*name) : std::u16string_view(),
                               event.find(u"arguments"));
    }
    case EventType::Other:
      return 0;
    default:
      return estimateTokens(contentText(event.find(u"content")));
  }
}

}  // namespace cce::compaction
