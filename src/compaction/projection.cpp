// SPDX-License-Identifier: MIT
// The projection of a conversation under its compaction overlays (rules in projection.h).
#include "compaction/projection.h"

#include <algorithm>
#include <string>
#include <utility>

#include "jscompat/json_writer.h"
#include "jscompat/sort.h"
#include "jscompat/string.h"
#include "json_io.h"
#include "token_estimate.h"

namespace cce::compaction {

using json::Value;

namespace {

constexpr std::size_t kNone = static_cast<std::size_t>(-1);

enum class Action : unsigned char { Keep, Remove, Summarized, Strip };

using NameTable = std::vector<std::pair<std::u16string, std::u16string>>;

Value number(std::size_t n) { return Value::fromNumber(static_cast<double>(n)); }

std::u16string strippedResponseText(const Value& response, const NameTable& names) {
  const Value* ok = response.find(u"ok");
  const bool success = ok == nullptr || !ok->isBool() || ok->boolean;
  std::u16string text = kCompactedMarker;
  text += u' ';
  text += toolNameOf(response, names);
  text += success ? u": success" : u": error";
  return text;
}

// Ties each tool request to its responses by id: when one side of a pair is gone, the other goes.
void keepPairsTogether(const Conversation& c, std::vector<Action>& action) {
  struct Side {
    const std::u16string* id;
    std::size_t event;
    bool request;
  };
  std::vector<Side> sides;
  for (std::size_t i = 0; i < c.events.size(); ++i) {
    const EventRef& e = c.events[i];
    if (e.type != EventType::ToolRequest && e.type != EventType::ToolResponse) continue;
    const std::u16string* id = stringMember(*e.object, u"id");
    if (id != nullptr) sides.push_back({id, i, e.type == EventType::ToolRequest});
  }
  js::stableSort(sides, [](const Side& a, const Side& b) { return *a.id < *b.id; });
  for (std::size_t begin = 0; begin < sides.size();) {
    std::size_t end = begin;
    bool requests = false;
    bool responses = false;
    bool gone = false;
    while (end < sides.size() && *sides[end].id == *sides[begin].id) {
      (sides[end].request ? requests : responses) = true;
      const Action a = action[sides[end].event];
      gone = gone || a == Action::Remove || a == Action::Summarized;
      ++end;
    }
    if (requests && responses && gone) {
      for (std::size_t s = begin; s < end; ++s) {
        Action& a = action[sides[s].event];
        if (a == Action::Keep || a == Action::Strip) a = Action::Remove;
      }
    }
    begin = end;
  }
}

}  // namespace

NameTable requestNames(const Conversation& c) {
  NameTable names;
  for (const EventRef& e : c.events) {
    if (e.type != EventType::ToolRequest) continue;
    const std::u16string* id = stringMember(*e.object, u"id");
    if (id != nullptr) names.emplace_back(*id, *stringMember(*e.object, u"name"));
  }
  std::stable_sort(names.begin(), names.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  names.erase(std::unique(names.begin(), names.end(),
                          [](const auto& a, const auto& b) { return a.first == b.first; }),
              names.end());
  return names;
}

std::u16string toolNameOf(const Value& response, const NameTable& names) {
  if (const std::u16string* own = stringMember(response, u"name")) return *own;
  if (const std::u16string* id = stringMember(response, u"id")) {
    auto it = std::lower_bound(
        names.begin(), names.end(), *id,
        [](const auto& entry, const std::u16string& key) { return entry.first < key; });
    if (it != names.end() && it->first == *id) return it->second;
  }
  return u"tool";
}

Value compactArguments(const Value& arguments) {
  if (arguments.isObject()) {
    Value out = Value::object();
    out.members.reserve(arguments.members.size());
    for (const json::Member& m : arguments.members) {
      out.members.push_back({m.key, Value::fromString(kCompactedMarker)});
    }
    return out;
  }
  if (arguments.isString()) {
    // Provider formats such as OpenAI's carry arguments as JSON text; compact what it encodes
    // and keep it text, so the projection stays valid for that provider.
    Result<Value> parsed = parseJsonText(arguments.string);
    if (parsed && parsed->isObject()) {
      return Value::fromString(js::fromUtf8(js::toJson(compactArguments(parsed.value()))));
    }
  }
  return Value::fromString(kCompactedMarker);
}

Projection project(const Conversation& c, const std::vector<Compaction>& compactions,
                   bool buildView) {
  const std::size_t turnCount = c.turnCount();
  std::vector<std::size_t> summaryOwner(turnCount, kNone);
  std::vector<std::size_t> reasoningOwner(turnCount, kNone);
  std::vector<std::size_t> toolOwner(turnCount, kNone);
  // Painting oldest to newest leaves each turn with its newest owner per content type.
  for (std::size_t k : recencyOrder(compactions)) {
    const Compaction& x = compactions[k];
    const std::size_t last = std::min(x.toTurn + 1, turnCount);
    for (std::size_t t = x.fromTurn; t < last; ++t) {
      if (x.hasSummary) summaryOwner[t] = k;
      if (x.stripReasoning) reasoningOwner[t] = k;
      if (x.toolCalls.mode != ToolCallMode::None) toolOwner[t] = k;
    }
  }

  const NameTable names = requestNames(c);
  std::vector<Action> action(c.events.size(), Action::Keep);
  std::vector<std::size_t> by(c.events.size(), kNone);
  for (std::size_t i = 0; i < c.events.size(); ++i) {
    const EventRef& e = c.events[i];
    if (summaryOwner[e.turn] != kNone) {
      if (e.type != EventType::System) action[i] = Action::Summarized;
      continue;
    }
    if (e.type == EventType::Reasoning && reasoningOwner[e.turn] != kNone) {
      action[i] = Action::Remove;
      by[i] = reasoningOwner[e.turn];
      continue;
    }
    const bool request = e.type == EventType::ToolRequest;
    if (!request && e.type != EventType::ToolResponse) continue;
    const std::size_t k = toolOwner[e.turn];
    if (k == kNone) continue;
    const Compaction& x = compactions[k];
    by[i] = k;
    if (x.toolCalls.mode == ToolCallMode::Omit) {
      action[i] = Action::Remove;
      continue;
    }
    bool strip = request ? x.toolCalls.request : x.toolCalls.response;
    const std::u16string tool =
        request ? *stringMember(*e.object, u"name") : toolNameOf(*e.object, names);
    if (const ToolHint* hint = x.hintFor(tool)) {
      const HintSide side = request ? hint->request : hint->response;
      if (side != HintSide::Unset) strip = side == HintSide::Strip;
    }
    if (strip) action[i] = Action::Strip;
  }
  keepPairsTogether(c, action);

  Projection out;
  out.turns = Value::array();
  auto count = [&out](double tokens) {
    out.tokens += tokens;
    ++out.events;
  };

  // System events inside a summarized range move to the summary's turn.
  std::vector<std::vector<std::size_t>> systemEventsOf(compactions.size());
  for (std::size_t i = 0; i < c.events.size(); ++i) {
    const std::size_t owner = summaryOwner[c.events[i].turn];
    if (owner != kNone && c.events[i].type == EventType::System) systemEventsOf[owner].push_back(i);
  }
  std::vector<bool> summaryPlaced(compactions.size(), false);

  for (std::size_t t = 0; t < turnCount; ++t) {
    Value events = Value::array();
    Value turn = Value::object();
    turn.appendNumber(u"turn", t);
    const std::size_t owner = summaryOwner[t];
    if (owner != kNone) {
      if (summaryPlaced[owner]) continue;
      summaryPlaced[owner] = true;
      const Compaction& x = compactions[owner];
      for (std::size_t i : systemEventsOf[owner]) {
        count(eventTokens(EventType::System, *c.events[i].object));
        if (buildView) events.items.push_back(*c.events[i].object);
      }
      count(estimateTokens(kSummaryRequestText));
      count(estimateTokens(x.summary));
      if (!buildView) continue;
      Value range = Value::object();
      range.appendNumber(u"fromTurn", x.fromTurn);
      range.appendNumber(u"toTurn", x.toTurn);
      turn.append(u"summaryOf", std::move(range));
      auto synthetic = [&](const char16_t* type, std::u16string content) {
        Value event = Value::object();
        event.appendString(u"type", type);
        event.appendString(u"content", std::move(content));
        event.appendNumber(u"compactedBy", owner);
        events.items.push_back(std::move(event));
      };
      synthetic(u"user", kSummaryRequestText);
      synthetic(u"assistant", x.summary);
    } else {
      for (std::size_t i = c.turnBegin[t]; i < c.turnBegin[t + 1]; ++i) {
        const EventRef& e = c.events[i];
        switch (action[i]) {
          case Action::Remove:
          case Action::Summarized:
            break;
          case Action::Keep:
            count(eventTokens(e.type, *e.object));
            if (buildView) events.items.push_back(*e.object);
            break;
          case Action::Strip: {
            Value changed = buildView ? *e.object : Value::object();
            if (e.type == EventType::ToolRequest) {
              const std::u16string& name = *stringMember(*e.object, u"name");
              if (const Value* args = e.object->find(u"arguments")) {
                Value compacted = compactArguments(*args);
                count(toolRequestTokens(name, &compacted));
                if (buildView) changed.set(u"arguments", std::move(compacted));
              } else {
                count(toolRequestTokens(name, nullptr));
              }
            } else {
              std::u16string text = strippedResponseText(*e.object, names);
              count(estimateTokens(text));
              if (buildView) changed.set(u"content", Value::fromString(std::move(text)));
            }
            if (buildView) {
              changed.set(u"compactedBy", number(by[i]));
              events.items.push_back(std::move(changed));
            }
            break;
          }
        }
      }
    }
    if (!buildView) continue;
    turn.append(u"events", std::move(events));
    out.turns.items.push_back(std::move(turn));
  }
  return out;
}

}  // namespace cce::compaction
