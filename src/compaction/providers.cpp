// SPDX-License-Identifier: MIT
// OpenAI and Anthropic message arrays <-> conversation documents (rules in providers.h).
#include "compaction/providers.h"

#include <cmath>
#include <optional>
#include <utility>
#include <vector>

#include "jscompat/json_writer.h"
#include "jscompat/string.h"
#include "json_io.h"

namespace cce::compaction {

using json::Value;

namespace {

Value str(std::u16string_view s) { return Value::fromString(std::u16string(s)); }

void eraseMember(Value& object, std::u16string_view key) {
  for (auto it = object.members.begin(); it != object.members.end(); ++it) {
    if (it->key == key) {
      object.members.erase(it);
      return;
    }
  }
}

bool isContent(const Value* v) { return v != nullptr && (v->isString() || v->isArray()); }

// Moves `key` out of a message or block template: the event takes the value, the template keeps
// a null placeholder so that the key's position survives.
void moveOut(Value& tmpl, std::u16string_view key, Value& moved) {
  tmpl.set(key, Value::null());
  moved.items.push_back(str(key));
}

// Appends events, opening a new turn at a user event (or user-role opaque part, e.g. an image)
// that follows a response-side event.
class TurnBuilder {
 public:
  void add(EventType type, Value event) {
    const std::u16string* role = stringMember(event, u"role");
    const bool userPart = type == EventType::User ||
                          (type == EventType::Other && role != nullptr && *role == u"user");
    if (turns_.items.empty() || (userPart && sawResponse_)) {
      Value turn = Value::object();
      turn.members.push_back({u"events", Value::array()});
      turns_.items.push_back(std::move(turn));
      sawResponse_ = false;
    }
    bool response = type == EventType::Assistant || type == EventType::Reasoning ||
                    type == EventType::ToolRequest || type == EventType::ToolResponse;
    if (type == EventType::Other) response = role != nullptr && *role == u"assistant";
    sawResponse_ = sawResponse_ || response;
    turns_.items.back().members[0].value.items.push_back(std::move(event));
    ++count_;
  }
  std::size_t count() const { return count_; }
  Value take() { return std::move(turns_); }

 private:
  Value turns_ = Value::array();
  bool sawResponse_ = false;
  std::size_t count_ = 0;
};

Value sourceOf(std::size_t message, const Value* block) {
  Value s = Value::object();
  s.members.push_back({u"message", Value::fromNumber(static_cast<double>(message))});
  if (block != nullptr) s.members.push_back({u"block", *block});
  return s;
}

Value event(EventType type) {
  Value e = Value::object();
  e.members.push_back({u"type", str(eventTypeName(type))});
  return e;
}

Value document(Value turns, const char16_t* format, Value records) {
  Value doc = Value::object();
  doc.members.push_back({u"turns", std::move(turns)});
  doc.members.push_back({u"compactions", Value::array()});
  Value source = Value::object();
  source.members.push_back({u"format", str(format)});
  source.members.push_back({u"messages", std::move(records)});
  doc.members.push_back({u"source", std::move(source)});
  return doc;
}

Value record(Value tmpl, Value moved, bool stringContent) {
  Value r = Value::object();
  r.members.push_back({u"template", std::move(tmpl)});
  r.members.push_back({u"moved", std::move(moved)});
  if (stringContent) r.members.push_back({u"string", Value::fromBool(true)});
  return r;
}

// ---- rendering helpers ----------------------------------------------------------------------

// The records of `source` when it was written by the `format` converter.
const Value* recordsFor(const Value* source, std::u16string_view format) {
  if (source == nullptr || !source->isObject()) return nullptr;
  const std::u16string* f = stringMember(*source, u"format");
  const Value* records = source->find(u"messages");
  if (f == nullptr || *f != format || records == nullptr || !records->isArray()) return nullptr;
  return records;
}

// The message index an event was converted from, when its record is usable.
std::optional<std::size_t> messageIndex(const EventRef& e, const Value* records) {
  if (records == nullptr) return std::nullopt;
  const Value* src = e.object->find(u"source");
  const Value* m = src != nullptr ? src->find(u"message") : nullptr;
  if (m == nullptr || !m->isNumber() || m->number < 0 || m->number != std::floor(m->number) ||
      m->number >= static_cast<double>(records->items.size())) {
    return std::nullopt;
  }
  const Value& r = records->items[static_cast<std::size_t>(m->number)];
  const Value* tmpl = r.find(u"template");
  if (tmpl == nullptr || !tmpl->isObject()) return std::nullopt;
  return static_cast<std::size_t>(m->number);
}

const Value* blockOf(const EventRef& e) {
  const Value* src = e.object->find(u"source");
  const Value* b = src != nullptr ? src->find(u"block") : nullptr;
  return b != nullptr && b->isObject() ? b : nullptr;
}

bool fromAProvider(const EventRef& e) { return e.object->find(u"source") != nullptr; }

// Content for a standard rendering: arrays from another provider's format are reduced to text.
Value renderedContent(const EventRef& e) {
  const Value* c = e.object->find(u"content");
  if (c == nullptr || c->isNull()) return str(u"");
  if (c->isArray() && fromAProvider(e)) return Value::fromString(contentText(c));
  return *c;
}

std::u16string argumentsText(const Value* args) {
  if (args == nullptr) return u"{}";
  if (args->isString()) return args->string;
  return js::fromUtf8(js::toJson(*args));
}

Value argumentsObject(const Value* args) {
  if (args != nullptr && args->isObject()) return *args;
  if (args != nullptr && args->isString()) {
    Result<Value> parsed = parseJson(js::toUtf8(args->string));
    if (parsed && parsed->isObject()) return std::move(parsed.value());
  }
  return Value::object();
}

bool isUserSide(const EventRef& e) {
  switch (e.type) {
    case EventType::User:
    case EventType::ToolResponse:
      return true;
    case EventType::Other: {
      const std::u16string* role = stringMember(*e.object, u"role");
      return role == nullptr || *role != u"assistant";
    }
    default:
      return false;
  }
}

// Collects consecutive events that belong to one output message.
struct Group {
  enum class Kind { None, Record, Standard };
  Kind kind = Kind::None;
  std::size_t message = 0;
  bool userSide = false;
  std::vector<const EventRef*> events;
};

const EventRef* firstOf(const Group& g, std::initializer_list<EventType> types) {
  for (const EventRef* e : g.events) {
    for (EventType t : types) {
      if (e->type == t) return e;
    }
  }
  return nullptr;
}

// ---- OpenAI ---------------------------------------------------------------------------------

// `withRecord`: the event's block template is an OpenAI tool call item (same-format rebuild).
Value openAiToolCall(const EventRef& e, bool withRecord) {
  const Value* block = withRecord ? blockOf(e) : nullptr;
  if (block != nullptr && e.type == EventType::ToolRequest) {
    Value item = *block;
    if (Value* fn = item.find(u"function"); fn != nullptr && fn->isObject()) {
      if (const Value* args = e.object->find(u"arguments"); args && fn->find(u"arguments")) {
        fn->set(u"arguments", *args);
      }
    }
    return item;
  }
  if (block != nullptr) return *block;
  Value item = Value::object();
  const std::u16string* id = stringMember(*e.object, u"id");
  item.members.push_back({u"id", str(id ? *id : u"")});
  item.members.push_back({u"type", str(u"function")});
  Value fn = Value::object();
  fn.members.push_back({u"name", str(*stringMember(*e.object, u"name"))});
  fn.members.push_back(
      {u"arguments", Value::fromString(argumentsText(e.object->find(u"arguments")))});
  item.members.push_back({u"function", std::move(fn)});
  return item;
}

Value openAiFromRecord(const Group& g, const Value& rec) {
  Value msg = *rec.find(u"template");
  const Value* moved = rec.find(u"moved");
  if (moved == nullptr || !moved->isArray()) return msg;
  for (const Value& key : moved->items) {
    if (!key.isString()) continue;
    if (key.string == u"tool_calls") {
      Value calls = Value::array();
      for (const EventRef* e : g.events) {
        if (e->type == EventType::ToolRequest || (e->type == EventType::Other && blockOf(*e))) {
          calls.items.push_back(openAiToolCall(*e, true));
        }
      }
      if (calls.items.empty()) {
        eraseMember(msg, key.string);
      } else {
        msg.set(key.string, std::move(calls));
      }
      continue;
    }
    const bool reasoning = key.string != u"content";
    const EventRef* e = reasoning ? firstOf(g, {EventType::Reasoning})
                                  : firstOf(g, {EventType::System, EventType::User,
                                                EventType::Assistant, EventType::ToolResponse});
    const Value* content = e != nullptr ? e->object->find(u"content") : nullptr;
    if (content == nullptr) {
      eraseMember(msg, key.string);
    } else {
      msg.set(key.string, *content);
    }
  }
  return msg;
}

class OpenAiWriter {
 public:
  explicit OpenAiWriter(const Value* records) : records_(records) {}

  void add(const EventRef& e) {
    if (std::optional<std::size_t> k = messageIndex(e, records_)) {
      if (group_.kind != Group::Kind::Record || group_.message != *k) {
        flush();
        group_.kind = Group::Kind::Record;
        group_.message = *k;
      }
      group_.events.push_back(&e);
      return;
    }
    switch (e.type) {
      case EventType::System:
      case EventType::User: {
        flush();
        Value m = Value::object();
        m.members.push_back({u"role", str(e.type == EventType::System ? u"system" : u"user")});
        m.members.push_back({u"content", renderedContent(e)});
        out_.items.push_back(std::move(m));
        return;
      }
      case EventType::ToolResponse: {
        flush();
        Value m = Value::object();
        m.members.push_back({u"role", str(u"tool")});
        const std::u16string* id = stringMember(*e.object, u"id");
        m.members.push_back({u"tool_call_id", str(id ? *id : u"")});
        m.members.push_back({u"content", renderedContent(e)});
        out_.items.push_back(std::move(m));
        return;
      }
      case EventType::Reasoning:
      case EventType::Assistant:
      case EventType::ToolRequest: {
        // One assistant message holds reasoning, then content, then tool calls.
        const int rank = e.type == EventType::Reasoning   ? 0
                         : e.type == EventType::Assistant ? 1
                                                          : 2;
        if (group_.kind != Group::Kind::Standard || rank < rank_ || (rank < 2 && rank == rank_)) {
          flush();
          group_.kind = Group::Kind::Standard;
        }
        rank_ = rank;
        group_.events.push_back(&e);
        return;
      }
      case EventType::Other:
        return;  // opaque parts of another format have no OpenAI rendering
    }
  }

  Value finish() {
    flush();
    return std::move(out_);
  }

 private:
  void flush() {
    if (group_.kind == Group::Kind::Record) {
      out_.items.push_back(openAiFromRecord(group_, records_->items[group_.message]));
    } else if (group_.kind == Group::Kind::Standard) {
      Value m = Value::object();
      m.members.push_back({u"role", str(u"assistant")});
      const EventRef* text = firstOf(group_, {EventType::Assistant});
      m.members.push_back({u"content", text ? renderedContent(*text) : Value::null()});
      if (const EventRef* r = firstOf(group_, {EventType::Reasoning})) {
        std::u16string reasoning = contentText(r->object->find(u"content"));
        if (!reasoning.empty()) {
          m.members.push_back({u"reasoning_content", Value::fromString(std::move(reasoning))});
        }
      }
      Value calls = Value::array();
      for (const EventRef* e : group_.events) {
        if (e->type == EventType::ToolRequest) calls.items.push_back(openAiToolCall(*e, false));
      }
      if (!calls.items.empty()) m.members.push_back({u"tool_calls", std::move(calls)});
      out_.items.push_back(std::move(m));
    }
    group_ = Group{};
    rank_ = -1;
  }

  const Value* records_;
  Value out_ = Value::array();
  Group group_;
  int rank_ = -1;
};

// ---- Anthropic ------------------------------------------------------------------------------

// The standard block for an event, or null when it has none (unsigned reasoning, empty text,
// opaque parts of another format).
Value anthropicBlock(const EventRef& e) {
  Value b = Value::object();
  switch (e.type) {
    case EventType::User:
    case EventType::Assistant: {
      std::u16string text = contentText(e.object->find(u"content"));
      if (text.empty()) return Value::null();
      b.members.push_back({u"type", str(u"text")});
      b.members.push_back({u"text", Value::fromString(std::move(text))});
      return b;
    }
    case EventType::Reasoning: {
      const std::u16string* signature = stringMember(*e.object, u"signature");
      if (signature == nullptr) return Value::null();
      b.members.push_back({u"type", str(u"thinking")});
      b.members.push_back(
          {u"thinking", Value::fromString(contentText(e.object->find(u"content")))});
      b.members.push_back({u"signature", str(*signature)});
      return b;
    }
    case EventType::ToolRequest: {
      const std::u16string* id = stringMember(*e.object, u"id");
      b.members.push_back({u"type", str(u"tool_use")});
      b.members.push_back({u"id", str(id ? *id : u"")});
      b.members.push_back({u"name", str(*stringMember(*e.object, u"name"))});
      b.members.push_back({u"input", argumentsObject(e.object->find(u"arguments"))});
      return b;
    }
    case EventType::ToolResponse: {
      const std::u16string* id = stringMember(*e.object, u"id");
      b.members.push_back({u"type", str(u"tool_result")});
      b.members.push_back({u"tool_use_id", str(id ? *id : u"")});
      if (const Value* c = e.object->find(u"content"); c != nullptr && !c->isNull()) {
        b.members.push_back({u"content", renderedContent(e)});
      }
      const Value* ok = e.object->find(u"ok");
      if (ok != nullptr && ok->isBool() && !ok->boolean) {
        b.members.push_back({u"is_error", Value::fromBool(true)});
      }
      return b;
    }
    default:
      return Value::null();
  }
}

// The payload key a block template holds for an event of `type`.
const char16_t* payloadKey(EventType type) {
  switch (type) {
    case EventType::User:
    case EventType::Assistant:
      return u"text";
    case EventType::Reasoning:
      return u"thinking";
    case EventType::ToolRequest:
      return u"input";
    case EventType::ToolResponse:
      return u"content";
    default:
      return nullptr;
  }
}

const char16_t* payloadSource(EventType type) {
  return type == EventType::ToolRequest ? u"arguments" : u"content";
}

Value anthropicFromRecord(const Group& g, const Value& rec) {
  Value msg = *rec.find(u"template");
  const Value* stringFlag = rec.find(u"string");
  if (stringFlag != nullptr && stringFlag->truthy()) {
    const EventRef* e = firstOf(g, {EventType::User, EventType::Assistant});
    const Value* content = e != nullptr ? e->object->find(u"content") : nullptr;
    msg.set(u"content", content != nullptr ? *content : str(u""));
    return msg;
  }
  Value blocks = Value::array();
  for (const EventRef* e : g.events) {
    const Value* tmpl = blockOf(*e);
    if (tmpl == nullptr) {
      if (e->type == EventType::Other) continue;  // a placeholder for a message without parts
      Value b = anthropicBlock(*e);
      if (!b.isNull()) blocks.items.push_back(std::move(b));
      continue;
    }
    Value b = *tmpl;
    const char16_t* key = payloadKey(e->type);
    if (key != nullptr && b.find(key) != nullptr) {
      if (const Value* payload = e->object->find(payloadSource(e->type))) b.set(key, *payload);
    }
    blocks.items.push_back(std::move(b));
  }
  msg.set(u"content", std::move(blocks));
  return msg;
}

class AnthropicWriter {
 public:
  explicit AnthropicWriter(const Value* records) : records_(records) {}

  void add(const EventRef& e) {
    if (e.type == EventType::System) return;
    if (std::optional<std::size_t> k = messageIndex(e, records_)) {
      if (group_.kind != Group::Kind::Record || group_.message != *k) {
        flush();
        group_.kind = Group::Kind::Record;
        group_.message = *k;
      }
      group_.events.push_back(&e);
      return;
    }
    const bool user = isUserSide(e);
    if (group_.kind != Group::Kind::Standard || group_.userSide != user) {
      flush();
      group_.kind = Group::Kind::Standard;
      group_.userSide = user;
    }
    group_.events.push_back(&e);
  }

  Value finish() {
    flush();
    return std::move(out_);
  }

 private:
  void flush() {
    if (group_.kind == Group::Kind::Record) {
      out_.items.push_back(anthropicFromRecord(group_, records_->items[group_.message]));
    } else if (group_.kind == Group::Kind::Standard) {
      Value blocks = Value::array();
      for (const EventRef* e : group_.events) {
        Value b = anthropicBlock(*e);
        if (!b.isNull()) blocks.items.push_back(std::move(b));
      }
      if (!blocks.items.empty()) {
        Value m = Value::object();
        m.members.push_back({u"role", str(group_.userSide ? u"user" : u"assistant")});
        const bool oneText =
            blocks.items.size() == 1 && *stringMember(blocks.items[0], u"type") == u"text";
        m.members.push_back(
            {u"content", oneText ? std::move(*blocks.items[0].find(u"text")) : std::move(blocks)});
        out_.items.push_back(std::move(m));
      }
    }
    group_ = Group{};
  }

  const Value* records_;
  Value out_ = Value::array();
  Group group_;
};

}  // namespace

Result<Value> fromOpenAI(const Value& messages, const std::string& path) {
  if (!messages.isArray()) return invalid("messages must be an array", path);
  TurnBuilder turns;
  Value records = Value::array();
  records.items.reserve(messages.items.size());
  for (std::size_t k = 0; k < messages.items.size(); ++k) {
    const Value& m = messages.items[k];
    const std::string at = path + "/" + js::decimalAscii(k);
    if (!m.isObject()) return invalid("a message must be an object", at);
    Value tmpl = m;
    Value moved = Value::array();
    const std::size_t before = turns.count();
    const std::u16string* role = stringMember(m, u"role");
    const std::u16string r = role != nullptr ? *role : u"";
    auto contentEvent = [&](EventType type) {
      const Value* content = m.find(u"content");
      if (!isContent(content)) return;
      Value e = event(type);
      e.members.push_back({u"content", *content});
      e.members.push_back({u"source", sourceOf(k, nullptr)});
      moveOut(tmpl, u"content", moved);
      turns.add(type, std::move(e));
    };
    if (r == u"system" || r == u"developer") {
      contentEvent(EventType::System);
    } else if (r == u"user") {
      contentEvent(EventType::User);
    } else if (r == u"assistant") {
      for (const char16_t* key : {u"reasoning_content", u"reasoning"}) {
        const std::u16string* text = stringMember(m, key);
        if (text == nullptr) continue;
        Value e = event(EventType::Reasoning);
        e.members.push_back({u"content", str(*text)});
        e.members.push_back({u"source", sourceOf(k, nullptr)});
        moveOut(tmpl, key, moved);
        turns.add(EventType::Reasoning, std::move(e));
        break;
      }
      contentEvent(EventType::Assistant);
      const Value* calls = m.find(u"tool_calls");
      if (calls != nullptr && calls->isArray() && !calls->items.empty()) {
        moveOut(tmpl, u"tool_calls", moved);
        for (const Value& item : calls->items) {
          const Value* fn = item.find(u"function");
          const std::u16string* name = fn != nullptr ? stringMember(*fn, u"name") : nullptr;
          if (name == nullptr) {
            Value e = event(EventType::Other);
            e.members.push_back({u"role", str(u"assistant")});
            e.members.push_back({u"source", sourceOf(k, &item)});
            turns.add(EventType::Other, std::move(e));
            continue;
          }
          Value e = event(EventType::ToolRequest);
          if (const std::u16string* id = stringMember(item, u"id")) {
            e.members.push_back({u"id", str(*id)});
          }
          e.members.push_back({u"name", str(*name)});
          Value block = item;
          if (const Value* args = fn->find(u"arguments")) {
            e.members.push_back({u"arguments", *args});
            block.find(u"function")->set(u"arguments", Value::null());
          }
          e.members.push_back({u"source", sourceOf(k, &block)});
          turns.add(EventType::ToolRequest, std::move(e));
        }
      }
    } else if (r == u"tool") {
      Value e = event(EventType::ToolResponse);
      if (const std::u16string* id = stringMember(m, u"tool_call_id")) {
        e.members.push_back({u"id", str(*id)});
      }
      if (const std::u16string* name = stringMember(m, u"name")) {
        e.members.push_back({u"name", str(*name)});
      }
      e.members.push_back({u"ok", Value::fromBool(true)});
      if (const Value* content = m.find(u"content"); isContent(content)) {
        e.members.push_back({u"content", *content});
        moveOut(tmpl, u"content", moved);
      }
      e.members.push_back({u"source", sourceOf(k, nullptr)});
      turns.add(EventType::ToolResponse, std::move(e));
    }
    if (turns.count() == before) {
      // Nothing to compact in this message (unknown role, or no content): keep its place.
      Value e = event(EventType::Other);
      if (role != nullptr) e.members.push_back({u"role", str(*role)});
      e.members.push_back({u"source", sourceOf(k, nullptr)});
      turns.add(EventType::Other, std::move(e));
    }
    records.items.push_back(record(std::move(tmpl), std::move(moved), false));
  }
  return document(turns.take(), u"openai", std::move(records));
}

Result<Value> fromAnthropic(const Value& messages, const Value* system, const std::string& path) {
  if (!messages.isArray()) return invalid("messages must be an array", path);
  TurnBuilder turns;
  if (system != nullptr && !system->isNull()) {
    if (!isContent(system)) return invalid("system must be a string or an array", "/system");
    Value e = event(EventType::System);
    e.members.push_back({u"content", *system});
    Value source = Value::object();
    source.members.push_back({u"system", Value::fromBool(true)});
    e.members.push_back({u"source", std::move(source)});
    turns.add(EventType::System, std::move(e));
  }
  Value records = Value::array();
  records.items.reserve(messages.items.size());
  for (std::size_t k = 0; k < messages.items.size(); ++k) {
    const Value& m = messages.items[k];
    const std::string at = path + "/" + js::decimalAscii(k);
    if (!m.isObject()) return invalid("a message must be an object", at);
    const std::u16string* role = stringMember(m, u"role");
    const bool assistant = role != nullptr && *role == u"assistant";
    const EventType textType = assistant ? EventType::Assistant : EventType::User;
    Value tmpl = m;
    Value moved = Value::array();
    const std::size_t before = turns.count();
    const Value* content = m.find(u"content");
    const bool stringContent = content != nullptr && content->isString();
    if (stringContent) {
      Value e = event(textType);
      e.members.push_back({u"content", *content});
      e.members.push_back({u"source", sourceOf(k, nullptr)});
      moveOut(tmpl, u"content", moved);
      turns.add(textType, std::move(e));
    } else if (content != nullptr && content->isArray()) {
      moveOut(tmpl, u"content", moved);
      for (const Value& block : content->items) {
        const std::u16string* type = block.isObject() ? stringMember(block, u"type") : nullptr;
        const std::u16string t = type != nullptr ? *type : u"";
        Value tmplBlock = block;
        EventType et = EventType::Other;
        Value e;
        auto payload = [&](const char16_t* key, const char16_t* as) {
          if (const Value* v = block.find(key)) {
            e.members.push_back({as, *v});
            tmplBlock.set(key, Value::null());
          }
        };
        if (t == u"text" && stringMember(block, u"text") != nullptr) {
          et = textType;
          e = event(et);
          payload(u"text", u"content");
        } else if (t == u"thinking" && stringMember(block, u"thinking") != nullptr) {
          et = EventType::Reasoning;
          e = event(et);
          payload(u"thinking", u"content");
        } else if (t == u"redacted_thinking") {
          et = EventType::Reasoning;
          e = event(et);
        } else if (t == u"tool_use" && stringMember(block, u"name") != nullptr) {
          et = EventType::ToolRequest;
          e = event(et);
          if (const std::u16string* id = stringMember(block, u"id")) {
            e.members.push_back({u"id", str(*id)});
          }
          e.members.push_back({u"name", str(*stringMember(block, u"name"))});
          payload(u"input", u"arguments");
        } else if (t == u"tool_result") {
          et = EventType::ToolResponse;
          e = event(et);
          if (const std::u16string* id = stringMember(block, u"tool_use_id")) {
            e.members.push_back({u"id", str(*id)});
          }
          const Value* isError = block.find(u"is_error");
          e.members.push_back({u"ok", Value::fromBool(isError == nullptr || !isError->truthy())});
          if (isContent(block.find(u"content"))) payload(u"content", u"content");
        } else {
          e = event(et);
          e.members.push_back({u"role", str(assistant ? u"assistant" : u"user")});
        }
        e.members.push_back({u"source", sourceOf(k, &tmplBlock)});
        turns.add(et, std::move(e));
      }
    }
    if (turns.count() == before) {
      Value e = event(EventType::Other);
      e.members.push_back({u"role", str(assistant ? u"assistant" : u"user")});
      e.members.push_back({u"source", sourceOf(k, nullptr)});
      turns.add(EventType::Other, std::move(e));
    }
    records.items.push_back(record(std::move(tmpl), std::move(moved), stringContent));
  }
  return document(turns.take(), u"anthropic", std::move(records));
}

Value toOpenAI(const Conversation& c, const Value* source) {
  OpenAiWriter writer(recordsFor(source, u"openai"));
  for (const EventRef& e : c.events) writer.add(e);
  return writer.finish();
}

Value toAnthropic(const Conversation& c, const Value* source) {
  const Value* records = recordsFor(source, u"anthropic");
  AnthropicWriter writer(records);
  std::vector<const EventRef*> system;
  for (const EventRef& e : c.events) {
    if (e.type == EventType::System) system.push_back(&e);
    writer.add(e);
  }
  Value out = Value::object();
  if (system.size() == 1 && records != nullptr) {
    const Value* src = system[0]->object->find(u"source");
    const Value* flag = src != nullptr ? src->find(u"system") : nullptr;
    const Value* content = system[0]->object->find(u"content");
    if (flag != nullptr && flag->truthy() && content != nullptr) {
      out.members.push_back({u"system", *content});
    }
  }
  if (out.members.empty() && !system.empty()) {
    std::u16string text;
    for (const EventRef* e : system) {
      if (!text.empty()) text += u"\n\n";
      text += contentText(e->object->find(u"content"));
    }
    out.members.push_back({u"system", Value::fromString(std::move(text))});
  }
  out.members.push_back({u"messages", writer.finish()});
  return out;
}

}  // namespace cce::compaction
