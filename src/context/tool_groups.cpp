// SPDX-License-Identifier: MIT
// Atomic tool-call groups, fold/unfold of tool-call chains, progress recovery, structure checks.
#include "context/tool_groups.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

#include "jscompat/json_writer.h"
#include "jscompat/sort.h"
#include "jscompat/string.h"

namespace cce::context {
namespace {

using U16 = std::u16string;
using U16View = std::u16string_view;

constexpr U16View kDetailsOpen = u"<details type=\"tool_calls\"";
constexpr U16View kSummaryLine = u"<summary>Tool Executed</summary>";
constexpr U16View kDetailsClose = u"</details>";

bool isRole(const Value& m, U16View role) { return roleOf(m) == role; }
bool isTool(const Value& m) { return isRole(m, u"tool"); }
bool isAssistant(const Value& m) { return isRole(m, u"assistant"); }
bool isAssistantWithCalls(const Value& m) { return isAssistant(m) && hasToolCalls(m); }
bool isPlainAssistant(const Value& m) { return isAssistant(m) && !hasToolCalls(m); }

const Value* stringField(const Value& object, U16View key) {
  const Value* v = object.find(key);
  return v && v->isString() ? v : nullptr;
}

// The id of a call object, or nullptr.
const Value* callId(const Value& call) {
  return call.isObject() ? stringField(call, u"id") : nullptr;
}

U16 callName(const Value* call) {
  if (!call || !call->isObject()) return U16();
  const Value* fn = call->find(u"function");
  if (!fn || !fn->isObject()) return U16();
  const Value* name = stringField(*fn, u"name");
  return name ? name->string : U16();
}

// Arguments as text: OpenAI sends a JSON string; an object is written as its JSON.
U16 callArguments(const Value* call) {
  if (!call || !call->isObject()) return U16();
  const Value* fn = call->find(u"function");
  if (!fn || !fn->isObject()) return U16();
  const Value* args = fn->find(u"arguments");
  if (!args || args->isNull()) return U16();
  if (args->isString()) return args->string;
  return js::fromUtf8(js::toJson(*args));
}

// Chain end: [start, end) is a maximal a(calls) t.. [a(calls) t..].. [a] run.
std::size_t chainEnd(const std::vector<Value>& m, std::size_t start) {
  std::size_t j = start;
  const std::size_t n = m.size();
  while (j < n && isAssistantWithCalls(m[j])) {
    ++j;
    while (j < n && isTool(m[j])) ++j;
  }
  if (j < n && isPlainAssistant(m[j])) ++j;
  return j;
}

struct FoldBuilder {
  U16 text;
  bool first = true;

  // Appends a piece after the "\n" joiner; returns the piece's offset.
  std::size_t append(U16View piece) {
    if (!first) text.push_back(u'\n');
    first = false;
    std::size_t at = text.size();
    text.append(piece);
    return at;
  }
};

U16 blockHead(bool done, U16View id, U16View name, U16View arguments) {
  U16 out(kDetailsOpen);
  out += done ? u" done=\"true\" id=\"" : u" done=\"false\" id=\"";
  out += escapeHtml(id);
  out += u"\" name=\"";
  out += escapeHtml(name);
  out += u"\" arguments=\"";
  out += escapeHtml(arguments);
  out += u"\">\n";
  out += kSummaryLine;
  return out;
}

Value partValue(std::size_t offset, std::size_t length) {
  Value part = Value::array();
  part.items.push_back(Value::fromNumber(static_cast<double>(offset)));
  part.items.push_back(Value::fromNumber(static_cast<double>(length)));
  return part;
}

Value foldChain(const std::vector<Value>& m, std::size_t start, std::size_t end) {
  FoldBuilder b;
  Value skeletons = Value::array();
  Value parts = Value::array();
  for (std::size_t k = start; k < end; ++k) skeletons.items.push_back(m[k]);
  parts.items.resize(end - start);

  auto assistantText = [&](std::size_t k) {
    const Value* content = m[k].find(u"content");
    if (!content || !content->isString()) return;  // part stays null: the skeleton keeps it
    std::size_t at = content->string.empty() ? 0 : b.append(content->string);
    parts.items[k - start] = partValue(at, content->string.size());
    skeletons.items[k - start].set(u"content", Value::null());
  };

  std::size_t k = start;
  while (k < end) {
    assistantText(k);
    if (!isAssistantWithCalls(m[k])) {
      ++k;
      continue;
    }
    const std::vector<Value>& calls = m[k].find(u"tool_calls")->items;
    std::vector<bool> answered(calls.size(), false);
    std::size_t j = k + 1;
    std::size_t position = 0;
    for (; j < end && isTool(m[j]); ++j, ++position) {
      const Value* toolCallId = stringField(m[j], u"tool_call_id");
      const Value* call = nullptr;
      for (std::size_t c = 0; c < calls.size() && toolCallId; ++c) {
        const Value* id = callId(calls[c]);
        if (id && id->string == toolCallId->string) {
          call = &calls[c];
          answered[c] = true;
          break;
        }
      }
      if (!call && !toolCallId && position < calls.size()) {
        call = &calls[position];
        answered[position] = true;
      }
      U16 id =
          toolCallId ? toolCallId->string : (call && callId(*call) ? callId(*call)->string : U16());
      U16 block = blockHead(true, id, callName(call), callArguments(call));
      block.push_back(u'\n');
      const Value* content = m[j].find(u"content");
      U16 body;
      bool stringContent = content && content->isString();
      if (stringContent) {
        body = escapeHtml(content->string);
      } else if (content) {
        body = escapeHtml(js::fromUtf8(js::toJson(*content)));
      }
      std::size_t bodyAt = block.size();
      block += body;
      block.push_back(u'\n');
      block += kDetailsClose;
      std::size_t at = b.append(block);
      if (stringContent) {
        parts.items[j - start] = partValue(at + bodyAt, body.size());
        skeletons.items[j - start].set(u"content", Value::null());
      }
    }
    for (std::size_t c = 0; c < calls.size(); ++c) {
      if (answered[c]) continue;
      const Value* id = callId(calls[c]);
      U16 block = blockHead(false, id ? U16View(id->string) : U16View(), callName(&calls[c]),
                            callArguments(&calls[c]));
      block.push_back(u'\n');
      block += kDetailsClose;
      b.append(block);
    }
    k = j;
  }

  Value fold = Value::object();
  fold.append(u"messages", std::move(skeletons));
  fold.append(u"parts", std::move(parts));
  fold.appendNumber(u"length", static_cast<double>(b.text.size()));
  Value metadata = Value::object();
  metadata.append(u"cce_fold", std::move(fold));
  Value out = Value::object();
  if (const Value* id = m[start].find(u"id")) out.append(u"id", Value(*id));
  out.appendString(u"role", u"assistant");
  out.appendString(u"content", std::move(b.text));
  out.append(u"metadata", std::move(metadata));
  return out;
}

bool wholeNumber(const Value& v, double limit) {
  return v.isNumber() && v.number >= 0 && v.number <= limit && std::floor(v.number) == v.number;
}

// Exact restore from metadata.cce_fold; false when it is missing or does not match the content.
bool unfoldExact(const Value& folded, std::vector<Value>& out) {
  const Value* metadata = folded.find(u"metadata");
  const Value* fold = metadata && metadata->isObject() ? metadata->find(u"cce_fold") : nullptr;
  const Value* content = stringField(folded, u"content");
  if (!fold || !fold->isObject() || !content) return false;
  const Value* skeletons = fold->find(u"messages");
  const Value* parts = fold->find(u"parts");
  const Value* length = fold->find(u"length");
  const double size = static_cast<double>(content->string.size());
  if (!skeletons || !skeletons->isArray() || !parts || !parts->isArray() ||
      parts->items.size() != skeletons->items.size() || !length || !length->isNumber() ||
      length->number != size) {
    return false;
  }
  std::vector<Value> restored;
  restored.reserve(skeletons->items.size());
  for (std::size_t k = 0; k < skeletons->items.size(); ++k) {
    const Value& skeleton = skeletons->items[k];
    const Value& part = parts->items[k];
    if (!skeleton.isObject()) return false;
    restored.push_back(skeleton);
    if (part.isNull()) continue;
    if (!part.isArray() || part.items.size() != 2 || !wholeNumber(part.items[0], size) ||
        !wholeNumber(part.items[1], size) || part.items[0].number + part.items[1].number > size) {
      return false;
    }
    U16View slice = U16View(content->string)
                        .substr(static_cast<std::size_t>(part.items[0].number),
                                static_cast<std::size_t>(part.items[1].number));
    restored.back().set(u"content",
                        Value::fromString(isTool(skeleton) ? unescapeHtml(slice) : U16(slice)));
  }
  for (Value& v : restored) out.push_back(std::move(v));
  return true;
}

struct Block {
  bool done = false;
  U16 id, name, arguments, result;
};

// Reads `key="value"` at p; advances p past it.
bool readAttribute(U16View s, std::size_t& p, U16View key, U16& value) {
  while (p < s.size() && s[p] == u' ') ++p;
  if (s.substr(p, key.size()) != key || p + key.size() + 1 >= s.size() ||
      s[p + key.size()] != u'=' || s[p + key.size() + 1] != u'"') {
    return false;
  }
  std::size_t begin = p + key.size() + 2;
  std::size_t close = s.find(u'"', begin);
  if (close == U16View::npos) return false;
  value = unescapeHtml(s.substr(begin, close - begin));
  p = close + 1;
  return true;
}

// Parses one block starting at `at` (which points at kDetailsOpen); returns its end or npos.
std::size_t parseBlock(U16View s, std::size_t at, Block& block) {
  std::size_t p = at + kDetailsOpen.size();
  U16 done;
  if (!readAttribute(s, p, u"done", done) || !readAttribute(s, p, u"id", block.id) ||
      !readAttribute(s, p, u"name", block.name) ||
      !readAttribute(s, p, u"arguments", block.arguments)) {
    return U16View::npos;
  }
  block.done = done == u"true";
  U16 head = U16(u">\n") + U16(kSummaryLine) + u"\n";
  if (s.substr(p, head.size()) != head) return U16View::npos;
  p += head.size();
  if (block.done) {
    std::size_t close = s.find(U16(u"\n") + U16(kDetailsClose), p);
    if (close == U16View::npos) return U16View::npos;
    block.result = unescapeHtml(s.substr(p, close - p));
    return close + 1 + kDetailsClose.size();
  }
  if (s.substr(p, kDetailsClose.size()) != kDetailsClose) return U16View::npos;
  return p + kDetailsClose.size();
}

Value canonicalCall(const Block& b) {
  Value fn = Value::object();
  fn.appendString(u"name", b.name);
  fn.appendString(u"arguments", b.arguments);
  Value call = Value::object();
  call.appendString(u"id", b.id);
  call.appendString(u"type", u"function");
  call.append(u"function", std::move(fn));
  return call;
}

// Rebuilds canonical messages from the folded text alone.
void unfoldParsed(U16View s, std::vector<Value>& out) {
  struct Item {
    bool isBlock;
    U16 text;
    Block block;
  };
  std::vector<Item> items;
  auto pushText = [&items](U16View t) {
    if (!t.empty() && t.front() == u'\n') t.remove_prefix(1);
    if (!t.empty() && t.back() == u'\n') t.remove_suffix(1);
    if (!t.empty()) items.push_back(Item{false, U16(t), Block{}});
  };
  std::size_t p = 0;
  while (p <= s.size()) {
    std::size_t at = s.find(kDetailsOpen, p);
    Block block;
    std::size_t end = at == U16View::npos ? U16View::npos : parseBlock(s, at, block);
    if (end == U16View::npos) {
      pushText(s.substr(p));
      break;
    }
    pushText(s.substr(p, at - p));
    items.push_back(Item{true, U16(), std::move(block)});
    p = end;
  }
  std::size_t i = 0;
  while (i < items.size()) {
    Value assistant = Value::object();
    assistant.appendString(u"role", u"assistant");
    if (!items[i].isBlock) {
      assistant.appendString(u"content", items[i].text);
      ++i;
      if (i >= items.size() || !items[i].isBlock) {
        out.push_back(std::move(assistant));
        continue;
      }
    } else {
      assistant.append(u"content", Value::null());
    }
    Value calls = Value::array();
    std::vector<Value> results;
    std::set<U16> seen;
    for (; i < items.size() && items[i].isBlock; ++i) {
      const Block& b = items[i].block;
      if (seen.insert(b.id).second) calls.items.push_back(canonicalCall(b));
      if (!b.done) continue;
      Value tool = Value::object();
      tool.appendString(u"role", u"tool");
      tool.appendString(u"tool_call_id", b.id);
      tool.appendString(u"content", b.result);
      results.push_back(std::move(tool));
    }
    assistant.append(u"tool_calls", std::move(calls));
    out.push_back(std::move(assistant));
    for (Value& r : results) out.push_back(std::move(r));
  }
}

}  // namespace

const std::u16string* callFunctionString(const Value& call, U16View field) {
  const Value* fn = call.isObject() ? call.find(u"function") : nullptr;
  const Value* v = fn && fn->isObject() ? stringField(*fn, field) : nullptr;
  return v ? &v->string : nullptr;
}

std::u16string_view roleOf(const Value& message) {
  const Value* role = message.isObject() ? message.find(u"role") : nullptr;
  return role && role->isString() ? std::u16string_view(role->string) : std::u16string_view();
}

bool hasToolCalls(const Value& message) {
  const Value* calls = message.isObject() ? message.find(u"tool_calls") : nullptr;
  return calls && calls->isArray() && !calls->items.empty();
}

std::size_t leadingSystemCount(const std::vector<Value>& messages) {
  std::size_t i = 0;
  while (i < messages.size() && isRole(messages[i], u"system")) ++i;
  return i;
}

std::vector<std::size_t> groupStarts(const std::vector<Value>& m, std::size_t from) {
  std::vector<std::size_t> start;
  extendGroupStarts(m, from, 0, start);
  return start;
}

void extendGroupStarts(const std::vector<Value>& m, std::size_t from, std::size_t resume,
                       std::vector<std::size_t>& start) {
  const std::size_t n = m.size();
  start.resize(n);
  for (std::size_t i = resume; i < n && i < from; ++i) start[i] = i;
  std::size_t i = std::max(from, resume);
  while (i < n) {
    std::size_t j = i + 1;
    if (isAssistantWithCalls(m[i])) {
      while (j < n && isTool(m[j])) ++j;
      if (j < n && isPlainAssistant(m[j])) ++j;
    }
    while (j < n && isTool(m[j])) ++j;  // results without a structured call stay with their cause
    for (std::size_t k = i; k < j; ++k) start[k] = i;
    i = j;
  }
}

std::u16string escapeHtml(std::u16string_view text) {
  U16 out;
  out.reserve(text.size());
  for (char16_t c : text) {
    switch (c) {
      case u'&': out += u"&amp;"; break;
      case u'<': out += u"&lt;"; break;
      case u'>': out += u"&gt;"; break;
      case u'"': out += u"&quot;"; break;
      default: out.push_back(c);
    }
  }
  return out;
}

std::u16string unescapeHtml(std::u16string_view text) {
  static constexpr std::pair<U16View, char16_t> kEntities[] = {
      {u"&amp;", u'&'}, {u"&lt;", u'<'}, {u"&gt;", u'>'}, {u"&quot;", u'"'}};
  U16 out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == u'&') {
      bool replaced = false;
      for (const auto& [entity, c] : kEntities) {
        if (text.substr(i, entity.size()) == entity) {
          out.push_back(c);
          i += entity.size() - 1;
          replaced = true;
          break;
        }
      }
      if (replaced) continue;
    }
    out.push_back(text[i]);
  }
  return out;
}

bool isFolded(const Value& message) {
  const Value* metadata = message.isObject() ? message.find(u"metadata") : nullptr;
  if (metadata && metadata->isObject() && metadata->find(u"cce_fold")) return true;
  const Value* content = message.isObject() ? stringField(message, u"content") : nullptr;
  return isAssistant(message) && content && content->string.find(kDetailsOpen) != U16::npos;
}

std::vector<Value> foldToolChains(const std::vector<Value>& messages) {
  std::vector<Value> out;
  std::size_t i = 0;
  while (i < messages.size()) {
    if (!isAssistantWithCalls(messages[i])) {
      out.push_back(messages[i++]);
      continue;
    }
    std::size_t end = chainEnd(messages, i);
    out.push_back(foldChain(messages, i, end));
    i = end;
  }
  return out;
}

std::vector<Value> unfoldToolChains(const std::vector<Value>& messages) {
  std::vector<Value> out;
  for (const Value& m : messages) {
    if (!isFolded(m)) {
      out.push_back(m);
      continue;
    }
    if (unfoldExact(m, out)) continue;
    const Value* content = stringField(m, u"content");
    if (content) {
      unfoldParsed(content->string, out);
    } else {
      out.push_back(m);
    }
  }
  return out;
}

Result<RecoveredProgress> recoverProgress(const std::vector<Value>& visible, double keepLast) {
  RecoveredProgress r;
  const std::size_t n = visible.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (isFolded(visible[i])) {
      return invalid("recover(): messages[" + js::decimalAscii(i) +
                         "] is a folded tool-call chain; unfold the list first (progress is never "
                         "recovered from a folded view)",
                     "/messages/" + js::decimalAscii(i));
    }
  }
  for (std::size_t i = n; i-- > 0;) {
    const Value* metadata = visible[i].isObject() ? visible[i].find(u"metadata") : nullptr;
    const Value* covered =
        metadata && metadata->isObject() ? metadata->find(u"covered_until") : nullptr;
    if (covered && covered->isNumber() && covered->number >= 0 &&
        std::floor(covered->number) == covered->number) {
      r.found = true;
      r.summaryIndex = i;
      r.coveredUntil = covered->number;
      break;
    }
  }
  const std::size_t firstAfter = r.found ? r.summaryIndex + 1 : 0;
  const double after = static_cast<double>(n - firstAfter);
  r.originalCount = r.coveredUntil + after;
  r.target = std::max(r.coveredUntil, r.originalCount - keepLast);
  // Position of `target` in the visible list, moved back to its group start.
  std::size_t v = firstAfter + static_cast<std::size_t>(r.target - r.coveredUntil);
  if (v < n) {
    std::vector<std::size_t> starts = groupStarts(visible, firstAfter);
    v = starts[v];
  }
  r.alignedTarget = r.coveredUntil + static_cast<double>(v - firstAfter);
  return r;
}

const char* structureIssueName(StructureIssue::Kind kind) {
  switch (kind) {
    case StructureIssue::Kind::OrphanToolResult: return "orphanToolResult";
    case StructureIssue::Kind::MissingToolResult: return "missingToolResult";
    case StructureIssue::Kind::RoleRepeat: return "roleRepeat";
    case StructureIssue::Kind::FirstNotUser: return "firstNotUser";
  }
  return "unknown";
}

namespace {

// checkStructure over pointers to the messages (a view names the history's messages instead of
// copying them). `turns[i]` is turnOf(message i), looked up once per message: each check looks
// at a message's neighbours too, and a context view is validated on every call.
std::vector<StructureIssue> structureIssues(const std::vector<const Value*>& list,
                                            const std::vector<Turn>& turns) {
  using Kind = StructureIssue::Kind;
  using Role = Turn::Role;
  std::vector<StructureIssue> issues;
  const std::size_t n = list.size();
  auto m = [&list](std::size_t i) -> const Value& { return *list[i]; };
  std::size_t lastTurn = n;  // index of the previous non-system message
  // The call ids a run of tool messages may answer (those of the assistant message before the
  // run), collected once per run so n parallel results cost n lookups, not n scans of n calls.
  // The id strings of the messages themselves, sorted (no copies; the sort is the one the engine
  // shares for pointer-sized values, not another instance of std::sort).
  std::vector<const Value*> answerable, results;
  auto sorted = [](std::vector<const Value*>& ids) {
    js::stableSort(ids.data(), ids.data() + ids.size(),
                   [](const Value* a, const Value* b) { return a->string < b->string; });
  };
  auto contains = [](const std::vector<const Value*>& ids, const U16& id) {
    auto at = std::lower_bound(ids.begin(), ids.end(), id,
                               [](const Value* v, const U16& x) { return v->string < x; });
    return at != ids.end() && (*at)->string == id;
  };
  for (std::size_t i = 0; i < n; ++i) {
    const Role role = turns[i].role;
    if (role == Role::System) continue;
    if (lastTurn == n && role != Role::User) issues.push_back({Kind::FirstNotUser, i});
    if (lastTurn != n && (role == Role::User || role == Role::Assistant) &&
        role == turns[lastTurn].role) {
      issues.push_back({Kind::RoleRepeat, i});
    }
    lastTurn = i;
    if (role == Role::Tool) {
      if (i == 0 || turns[i - 1].role != Role::Tool) {  // the first result of a run
        answerable.clear();
        if (i > 0 && turns[i - 1].calls) {
          for (const Value& call : m(i - 1).find(u"tool_calls")->items) {
            if (const Value* cid = callId(call)) answerable.push_back(cid);
          }
          sorted(answerable);
        }
      }
      const Value* id = stringField(m(i), u"tool_call_id");
      if (!id || !contains(answerable, id->string)) issues.push_back({Kind::OrphanToolResult, i});
    } else if (turns[i].calls) {
      results.clear();
      for (std::size_t j = i + 1; j < n && turns[j].role == Role::Tool; ++j) {
        if (const Value* id = stringField(m(j), u"tool_call_id")) results.push_back(id);
      }
      sorted(results);
      for (const Value& call : m(i).find(u"tool_calls")->items) {
        const Value* cid = callId(call);
        if (!cid || !contains(results, cid->string)) {
          issues.push_back({Kind::MissingToolResult, i});
          break;
        }
      }
    }
  }
  return issues;
}

}  // namespace

Turn turnOf(const Value& m) {
  Turn t;
  U16View role = roleOf(m);
  if (role == u"system") {
    t.role = Turn::Role::System;
  } else if (role == u"user") {
    t.role = Turn::Role::User;
  } else if (role == u"assistant") {
    t.role = Turn::Role::Assistant;
    t.calls = hasToolCalls(m);
  } else if (role == u"tool") {
    t.role = Turn::Role::Tool;
  }
  return t;
}

// Through the pointer form: one compiled copy of the checks (each copy was about 1 KB of the
// context module), for a list of pointers the "check" op builds once per call.
std::vector<StructureIssue> checkStructure(const std::vector<Value>& messages) {
  std::vector<const Value*> list;
  std::vector<Turn> turns;
  list.reserve(messages.size());
  turns.reserve(messages.size());
  for (const Value& m : messages) {
    list.push_back(&m);
    turns.push_back(turnOf(m));
  }
  return structureIssues(list, turns);
}

std::vector<StructureIssue> checkStructure(const std::vector<const Value*>& messages,
                                           const std::vector<Turn>& turns) {
  return structureIssues(messages, turns);
}

}  // namespace cce::context
