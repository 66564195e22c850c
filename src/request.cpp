// SPDX-License-Identifier: MIT
// JSON requests -> engine views and options; result plans -> JSON objects with the reference's key order.
#include "request.h"

#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <unordered_map>

#include "compiler.h"
#include "jscompat/json_writer.h"
#include "jscompat/number.h"
#include "jscompat/string.h"
#include "pipeline.h"

namespace cce {

using json::Kind;
using json::Value;

namespace {

// `{...v}` as JavaScript spreads it: objects copy their members, arrays and strings their indices,
// every other value contributes nothing.
// The key of the i-th element, as the spread writes it.
U16 indexKey(std::size_t i) {
  U16 key;
  js::appendDecimal(key, i);
  return key;
}

std::vector<json::Member> spreadOf(const Value* v) {
  std::vector<json::Member> out;
  if (!v) return out;
  if (v->isObject()) return v->members;
  if (v->isArray()) {
    out.reserve(v->items.size());
    for (std::size_t i = 0; i < v->items.size(); ++i) {
      out.push_back({indexKey(i), v->items[i]});
    }
  } else if (v->isString()) {
    for (std::size_t i = 0; i < v->string.size(); ++i) {
      out.push_back({indexKey(i), Value::fromString(U16(1, v->string[i]))});
    }
  }
  return out;
}

Value objectFrom(std::vector<json::Member> members) {
  Value v = Value::object();
  v.members = std::move(members);
  return v;
}

Value provenanceValue(const Provenance& p, const std::vector<json::ValuePtr>& inputs) {
  Value o = Value::object();
  Value ids = Value::array();
  ids.items.reserve(p.sources.size());
  for (std::size_t s : p.sources) {
    const Value* id = inputs[s]->find(u"id");
    ids.items.push_back(id ? *id : Value::null());
  }
  o.append(u"ids", std::move(ids));
  o.appendString(u"summary_id", p.summaryId);
  if (!p.parentIds.empty()) {
    Value parents = Value::array();
    for (const U16& id : p.parentIds) parents.items.push_back(Value::fromString(id));
    o.append(u"parent_ids", std::move(parents));
  }
  o.appendNumber(u"version", p.version);
  return o;
}

// forceConverge's clone: `{...m, metadata: m.metadata ? {...m.metadata} : {}}`.
Value cloneWithMetadata(const Value& source) {
  Value clone = source;
  const Value* metadata = source.find(u"metadata");
  if (metadata && metadata->truthy()) {
    clone.set(u"metadata", objectFrom(spreadOf(metadata)));
  } else {
    clone.set(u"metadata", Value::object());
  }
  return clone;
}

// Out of line: parseCompressOptions reads ten options, and inlined each carried its error text.
CCE_NOINLINE bool readNumber(const OptionList& options, const char16_t* key, const char* name,
                             double& out, Error& error) {
  const OptionValue* v = options.find(key);
  if (!v || v->kind == Kind::Null) return true;  // nullish: keep the default
  if (v->kind != Kind::Number || !std::isfinite(v->number)) {
    error = invalid(std::string("options.") + name + " must be a finite number",
                    std::string("/options/") + name);
    return false;
  }
  out = v->number;
  return true;
}

CCE_NOINLINE bool readBool(const OptionList& options, const char16_t* key, const char* name,
                           bool& out, Error& error) {
  const OptionValue* v = options.find(key);
  if (!v || v->kind == Kind::Null) return true;
  if (v->kind != Kind::Bool) {
    error = invalid(std::string("options.") + name + " must be a boolean",
                    std::string("/options/") + name);
    return false;
  }
  out = v->boolean;
  return true;
}

}  // namespace

std::u16string jsString(const Value& value) {
  switch (value.kind) {
    case Kind::Null: return u"null";
    case Kind::Bool: return value.boolean ? u"true" : u"false";
    case Kind::Number: return js::fromAscii(js::numberToString(value.number));
    case Kind::String: return value.string;
    case Kind::Array: {
      // Array#toString is join(","), with null/undefined elements as "".
      U16 out;
      for (std::size_t i = 0; i < value.items.size(); ++i) {
        if (i > 0) out.push_back(u',');
        if (!value.items[i].isNull()) out += jsString(value.items[i]);
      }
      return out;
    }
    case Kind::Object: return u"[object Object]";
  }
  return U16();
}

Scalar toScalar(const Value* value) {
  Scalar s;
  if (!value) return s;
  switch (value->kind) {
    case Kind::Null: s.kind = Scalar::Kind::Null; break;
    case Kind::Bool: s.kind = Scalar::Kind::Bool; break;
    case Kind::Number: s.kind = Scalar::Kind::Number; break;
    case Kind::String: s.kind = Scalar::Kind::String; break;
    case Kind::Array:
    case Kind::Object: s.kind = Scalar::Kind::Composite; break;
  }
  s.text = jsString(*value);
  return s;
}

namespace {

// Part types that carry an image: OpenAI chat (`image_url`), Anthropic (`image`), OpenAI
// responses (`input_image`). js/src/engine.ts encodeParts keeps the same list.
bool isImagePartType(std::u16string_view type) {
  return type == u"image_url" || type == u"image" || type == u"input_image";
}

// What the safe mode reads of one element of an array content (see ContentPart).
ContentPart describePart(const Value& part) {
  ContentPart p;
  const Value* type = part.isObject() ? part.find(u"type") : nullptr;
  if (type && type->isString()) {
    const Value* text = type->string == u"text" ? part.find(u"text") : nullptr;
    if (text && text->isString()) {
      p.kind = ContentPart::Kind::Text;
      p.text = text->string;
      return p;
    }
    if (isImagePartType(type->string)) {
      p.kind = ContentPart::Kind::Image;
      return p;
    }
  }
  p.text = js::fromUtf8(js::toJson(part));
  return p;
}

}  // namespace

Message describeMessage(const Value& object) {
  Message m;
  m.id = toScalar(object.find(u"id"));
  m.idKey = m.id.text;
  m.role = toScalar(object.find(u"role"));
  if (const Value* content = object.find(u"content"); content && !content->isNull()) {
    if (content->isString()) {
      m.contentIsString = true;
      m.contentKind = Message::ContentKind::String;
      m.content = content->string;
    } else if (content->isArray()) {
      m.contentKind = Message::ContentKind::Array;
      for (std::size_t j = 0; j < content->items.size() && !m.badPart; ++j) {
        const Value& part = content->items[j];
        const Value* type = part.isObject() ? part.find(u"type") : nullptr;
        if (!type || !type->isString()) m.badPart = j;
      }
      m.parts.reserve(content->items.size());
      for (const Value& part : content->items) m.parts.push_back(describePart(part));
    } else {
      m.contentKind = Message::ContentKind::Other;
    }
  }
  if (const Value* calls = object.find(u"tool_calls"); calls && calls->isArray()) {
    m.toolCallsLength = static_cast<double>(calls->items.size());
    m.hasToolCalls = !calls->items.empty();
    for (const Value& call : calls->items) {
      const Value* function = call.isObject() ? call.find(u"function") : nullptr;
      if (function && !function->isObject()) function = nullptr;
      const Value* name = function ? function->find(u"name") : nullptr;
      const Value* arguments = function ? function->find(u"arguments") : nullptr;
      m.toolCallTokens += toolCallTokens(name && name->isString() ? name->string : U16(),
                                         arguments && arguments->isString() ? arguments->string
                                                                            : U16());
    }
  }
  if (const Value* callId = object.find(u"tool_call_id")) m.hasToolCallId = !callId->isNull();
  if (const Value* metadata = object.find(u"metadata")) {
    m.hasMetadata = metadata->truthy();
    m.metadataIsObject = metadata->isObject();
    if (const Value* original = metadata->isObject() ? metadata->find(u"_cce_original") : nullptr) {
      m.hasCceOriginal = original->truthy();
      if (original->isObject()) {
        if (const Value* sid = original->find(u"summary_id"); sid && sid->isString()) {
          m.cceSummaryId = sid->string;
        }
        if (const Value* ids = original->find(u"ids"); ids && ids->isArray()) {
          m.cceIdsIsArray = true;
          m.cceIds.reserve(ids->items.size());
          for (const Value& id : ids->items) m.cceIds.push_back(toScalar(&id));
        }
      }
    }
  }
  return m;
}

namespace {

// Shared by the copying and the consuming overloads: `take` turns an element into a shared object.
template <typename Take>
Result<ParsedMessages> parseMessagesWith(const Value* messages, const char* apiName, Take take) {
  const std::string api(apiName);
  if (!messages || !messages->isArray()) {
    return invalid(api + "(): messages must be an array", "/messages");
  }
  ParsedMessages parsed;
  parsed.objects.reserve(messages->items.size());
  parsed.views.reserve(messages->items.size());
  for (std::size_t i = 0; i < messages->items.size(); ++i) {
    const Value& item = messages->items[i];
    const std::string index = js::decimalAscii(i);
    // typeof [] === "object", so arrays pass this check in the reference (and then lack an id).
    if (!item.isObject() && !item.isArray()) {
      return invalid(api + "(): messages[" + index + "] must be an object", "/messages/" + index);
    }
    const Value* id = item.isObject() ? item.find(u"id") : nullptr;
    if (!id || id->isNull()) {
      return invalid(api + "(): messages[" + index + "] is missing required field \"id\"",
                     "/messages/" + index + "/id");
    }
  }
  for (std::size_t i = 0; i < messages->items.size(); ++i) {
    parsed.views.push_back(describeMessage(messages->items[i]));
    parsed.objects.push_back(take(i));
  }
  return parsed;
}

}  // namespace

Result<ParsedMessages> parseMessages(const Value* messages, const char* apiName) {
  return parseMessagesWith(messages, apiName, [messages](std::size_t i) {
    return std::make_shared<const Value>(messages->items[i]);
  });
}

Result<ParsedMessages> consumeMessages(Value* messages, const char* apiName) {
  // Validation finishes before anything is moved, so an error leaves `messages` intact.
  return parseMessagesWith(messages, apiName, [messages](std::size_t i) {
    return std::make_shared<const Value>(std::move(messages->items[i]));
  });
}

// The last member of that name, as a JavaScript object built from them would hold.
const OptionValue* OptionList::find(std::u16string_view key) const {
  for (std::size_t i = members.size(); i-- > 0;) {
    if (members[i].first == key) return &members[i].second;
  }
  return nullptr;
}

Result<bool> parseCompressOptions(const Value* options, CompressOptions& out) {
  if (!options || options->isNull()) return true;
  if (!options->isObject()) return invalid("options must be an object", "/options");
  OptionList list;
  for (const json::Member& member : options->members) {
    OptionValue v;
    v.kind = member.value.kind;
    v.boolean = member.value.boolean;
    v.number = member.value.number;
    v.string = member.value.string;
    for (const Value& item : member.value.items) {
      v.items.push_back(item.isString() ? std::optional<U16>(item.string) : std::nullopt);
    }
    list.members.emplace_back(member.key, std::move(v));
  }
  return parseCompressOptions(list, out);
}

Result<bool> parseCompressOptions(const OptionList& options, CompressOptions& out) {
  Error error;
  if (const OptionValue* preserve = options.find(u"preserve");
      preserve && preserve->kind != Kind::Null) {
    if (preserve->kind != Kind::Array) {
      return invalid("options.preserve must be an array of role names", "/options/preserve");
    }
    out.preserve.clear();
    for (std::size_t i = 0; i < preserve->items.size(); ++i) {
      const std::optional<U16>& role = preserve->items[i];
      if (!role) {
        return invalid("options.preserve must be an array of role names",
                       "/options/preserve/" + js::decimalAscii(i));
      }
      out.preserve.push_back(*role);
    }
  }
  if (!readNumber(options, u"recencyWindow", "recencyWindow", out.recencyWindow, error) ||
      !readNumber(options, u"sourceVersion", "sourceVersion", out.sourceVersion, error) ||
      !readNumber(options, u"minRecencyWindow", "minRecencyWindow", out.minRecencyWindow, error) ||
      !readNumber(options, u"fuzzyThreshold", "fuzzyThreshold", out.fuzzyThreshold, error) ||
      !readBool(options, u"dedup", "dedup", out.dedup, error) ||
      !readBool(options, u"fuzzyDedup", "fuzzyDedup", out.fuzzyDedup, error) ||
      !readBool(options, u"embedSummaryId", "embedSummaryId", out.embedSummaryId, error)) {
    return error;
  }
  // Tri-state: an absent (or null) forceConverge lets the mode choose its default.
  if (const OptionValue* force = options.find(u"forceConverge");
      force && force->kind != Kind::Null) {
    bool value = false;
    if (!readBool(options, u"forceConverge", "forceConverge", value, error)) return error;
    out.forceConverge = value;
  }
  if (const OptionValue* budget = options.find(u"tokenBudget");
      budget && budget->kind != Kind::Null) {
    double value = 0;
    if (!readNumber(options, u"tokenBudget", "tokenBudget", value, error)) return error;
    out.tokenBudget = value;
  }
  if (!readNumber(options, u"imageTokens", "imageTokens", out.imageTokens, error)) return error;
  if (out.imageTokens < 0) {
    return invalid("options.imageTokens must not be negative", "/options/imageTokens");
  }
  if (const OptionValue* estimate = options.find(u"tokenEstimate");
      estimate && estimate->kind != Kind::Null) {
    if (estimate->kind == Kind::String && estimate->string == u"script") {
      out.tokenEstimate = TokenEstimate::Script;
    } else if (estimate->kind == Kind::String && estimate->string == u"chars") {
      out.tokenEstimate = TokenEstimate::Chars;
    } else {
      return invalid("options.tokenEstimate must be \"script\" or \"chars\"",
                     "/options/tokenEstimate");
    }
  }
  // Recorded here, checked by the size limit and (default mode) validation.h.
  if (const OptionValue* limit = options.find(u"maxInputBytes");
      limit && limit->kind != Kind::Null) {
    out.maxInputBytes = limit->kind == Kind::Number && std::isfinite(limit->number)
                            ? limit->number
                            : std::numeric_limits<double>::quiet_NaN();
  }
  if (const OptionValue* compat = options.find(u"compat"); compat && compat->kind != Kind::Null) {
    if (compat->kind != Kind::String || compat->string != u"cce-1.0") {
      return invalid("options.compat must be \"cce-1.0\"", "/options/compat");
    }
    out.compat = Compat::Cce10;
  } else {
    out.compat = Compat::Safe;
  }
  return true;
}

Value partsWithText(const Value& parts, const U16& text) {
  Value out = Value::array();
  out.items.reserve(parts.items.size() + 1);
  bool placed = false;
  for (const Value& part : parts.items) {
    if (describePart(part).kind != ContentPart::Kind::Text) {
      out.items.push_back(part);
    } else if (!placed) {
      Value first = part;
      first.set(u"text", Value::fromString(text));
      out.items.push_back(std::move(first));
      placed = true;
    }
  }
  if (!placed) {
    Value first = Value::object();
    first.set(u"type", Value::fromString(u"text"));
    first.set(u"text", Value::fromString(text));
    out.items.insert(out.items.begin(), std::move(first));
  }
  return out;
}

Value materializeMessage(const OutputMessage& out, const std::vector<json::ValuePtr>& inputs,
                         const std::vector<Message>& views) {
  (void)views;
  const Value& source = *inputs[out.source];
  Value message = out.ensureMetadata ? cloneWithMetadata(source) : source;
  if (out.content) {
    // Only the safe mode replaces the text of an array content (compat mode counts it as "").
    const Value* content = source.find(u"content");
    message.set(u"content", content && content->isArray()
                                ? partsWithText(*content, *out.content)
                                : Value::fromString(*out.content));
  }
  if (out.provenance) {
    const Value* metadata = message.find(u"metadata");
    Value merged = objectFrom(spreadOf(metadata && metadata->truthy() ? metadata : nullptr));
    merged.set(u"_cce_original", provenanceValue(*out.provenance, inputs));
    message.set(u"metadata", std::move(merged));
  }
  return message;
}

CompressionFields compressionFields(const CompressionStats& s) {
  CompressionFields out;
  auto add = [&out](AnswerKey key, double value) { out.fields[out.count++] = {key, value}; };
  add(AnswerKey::original_version, s.originalVersion);
  add(AnswerKey::ratio, s.ratio);
  add(AnswerKey::token_ratio, s.tokenRatio);
  add(AnswerKey::messages_compressed, static_cast<double>(s.messagesCompressed));
  add(AnswerKey::messages_preserved, static_cast<double>(s.messagesPreserved));
  const std::pair<AnswerKey, std::size_t> optional[] = {
      {AnswerKey::messages_deduped, s.messagesDeduped},
      {AnswerKey::messages_fuzzy_deduped, s.messagesFuzzyDeduped},
      {AnswerKey::messages_truncated, s.messagesTruncated},
      {AnswerKey::messages_omitted, s.messagesOmitted},
  };
  for (const auto& [key, count] : optional) {
    if (count > 0) add(key, static_cast<double>(count));
  }
  return out;
}

Value compressionValue(const CompressionStats& s) {
  Value compression = Value::object();
  const CompressionFields fields = compressionFields(s);
  for (std::size_t i = 0; i < fields.count; ++i) {
    compression.members.push_back(
        {U16(answerKeyName(fields.fields[i].key)), Value::fromNumber(fields.fields[i].value)});
  }
  return compression;
}

Value materializeCompressResult(const CompressResult& result,
                                const std::vector<json::ValuePtr>& inputs,
                                const std::vector<Message>& views) {
  Value root = Value::object();

  Value messages = Value::array();
  messages.items.reserve(result.messages.size());
  for (const OutputMessage& out : result.messages) {
    messages.items.push_back(materializeMessage(out, inputs, views));
  }
  root.append(u"messages", std::move(messages));

  root.append(u"compression", compressionValue(result.compression));

  // A repeated key overwrites in place, as `verbatim[id] = m` does in JS.
  Value verbatim = Value::object();
  std::unordered_map<U16, std::size_t> position;
  for (const VerbatimEntry& entry : result.verbatim) {
    const Value& source = *inputs[entry.source];
    Value stored = entry.ensureMetadata ? cloneWithMetadata(source) : source;
    auto [it, inserted] = position.emplace(entry.key, verbatim.members.size());
    if (inserted) {
      verbatim.members.push_back({entry.key, std::move(stored)});
    } else {
      verbatim.members[it->second].value = std::move(stored);
    }
  }
  root.append(u"verbatim", std::move(verbatim));

  if (result.budget) {
    root.appendBool(u"fits", result.budget->fits);
    root.appendNumber(u"tokenCount", result.budget->tokenCount);
    root.appendNumber(u"recencyWindow", result.budget->recencyWindow);
    // Only the safe mode fills it (when the budget cannot be met). Without the input objects (the
    // plan form, whose host rebuilds messages itself) the indices go out as `blocking` instead.
    const std::vector<std::size_t>& blocking = result.budget->blocking;
    if (!blocking.empty() && inputs.empty()) {
      Value indices = Value::array();
      for (std::size_t i : blocking) {
        indices.items.push_back(Value::fromNumber(static_cast<double>(i)));
      }
      root.append(u"blocking", std::move(indices));
    } else if (!blocking.empty()) {
      Value ids = Value::array();
      ids.items.reserve(blocking.size());
      for (std::size_t i : blocking) {
        const Value* id = i < inputs.size() ? inputs[i]->find(u"id") : nullptr;
        ids.items.push_back(id ? *id : Value::null());
      }
      root.append(u"blockingIds", std::move(ids));
    }
  }
  return root;
}

}  // namespace cce
