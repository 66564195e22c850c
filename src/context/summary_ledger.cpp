// SPDX-License-Identifier: MIT
// The artifacts line of a checkpoint summary (summary_ledger.h).
#include "context/summary_ledger.h"

#include <algorithm>

#include "context/tool_groups.h"
#include "jscompat/json_writer.h"
#include "jscompat/string.h"
#include "json_io.h"
#include "ledger.h"

namespace cce::context {
namespace {

using View = std::u16string_view;

// Of one message at most this many artifacts of each kind: a long tool result (a file read, a
// test log) must not fill the line alone when older messages named other things.
constexpr std::size_t kPerKindPerMessage = 24;
constexpr View kSeparator = u", ";
// A tool call's string argument up to this long is kept whole; of one message at most
// kWholeArgumentsPerMessage of them.
constexpr std::size_t kArgumentValueUnits = 100;
constexpr std::size_t kWholeArgumentsPerMessage = 48;
constexpr int kArgumentDepth = 8;
// A quoted phrase of a message's text is kept with its quotes when its text is this long.
constexpr std::size_t kQuotedMinUnits = 4;
constexpr std::size_t kQuotedMaxUnits = 60;
// Argument names are read from the arguments object and the objects nested this deep in it.
constexpr int kArgumentNameDepth = 3;

// What a message says: its string content or text parts.
void contentTexts(const Value& m, std::vector<U16>& out) {
  const Value* c = m.find(u"content");
  if (!c) return;
  if (c->isString()) {
    out.push_back(c->string);
  } else if (c->isArray()) {
    for (const Value& part : c->items) {
      const Value* t = part.isObject() ? part.find(u"text") : nullptr;
      if (t && t->isString()) out.push_back(t->string);
    }
  }
}

// A tool call's string arguments, in order: a short one whole, as the call wrote it (a JSON
// string: the path it read, the command it ran, a todo item), a long one (an edit's text, a
// file's content) as text to read artifacts from.
void argumentStrings(const Value& v, int depth, std::vector<U16>& whole, std::vector<U16>& texts) {
  if (v.isString()) {
    if (v.string.size() > kArgumentValueUnits) {
      texts.push_back(v.string);
    } else if (v.string.size() >= 3) {
      std::string quoted;
      js::writeJsonString(v.string, quoted);
      whole.push_back(js::fromUtf8(quoted));
    }
    return;
  }
  if (depth >= kArgumentDepth) return;
  if (v.isArray()) {
    for (const Value& item : v.items) argumentStrings(item, depth + 1, whole, texts);
  } else if (v.isObject()) {
    for (const json::Member& member : v.members) {
      argumentStrings(member.value, depth + 1, whole, texts);
    }
  }
}

void callArguments(const Value& m, std::vector<U16>& whole, std::vector<U16>& texts) {
  if (!hasToolCalls(m)) return;
  for (const Value& call : m.find(u"tool_calls")->items) {
    const U16* args = callFunctionString(call, u"arguments");
    if (!args) continue;
    Result<Value> parsed = parseJsonText(*args);
    if (parsed.ok()) {
      argumentStrings(parsed.value(), 0, whole, texts);
    } else {
      texts.push_back(*args);
    }
  }
}

// The phrases a text puts in double quotes (4 to 60 units, on one line), quotes included: the
// names a message quotes (a title, a key, a message string) are the ones a later call writes
// again as they were. At most `limit`, in order.
std::vector<U16> quotedPhrases(View text, std::size_t limit) {
  std::vector<U16> out;
  std::size_t i = text.find(u'"');
  while (i != View::npos && out.size() < limit) {
    std::size_t close = i + 1;
    while (close < text.size() && text[close] != u'"' && text[close] != u'\n') ++close;
    if (close >= text.size()) break;
    if (text[close] == u'\n') {
      i = text.find(u'"', close);
      continue;
    }
    const std::size_t units = close - i - 1;
    if (units >= kQuotedMinUnits && units <= kQuotedMaxUnits) {
      out.emplace_back(text.substr(i, close + 1 - i));
    }
    i = text.find(u'"', close + 1);
  }
  return out;
}

// Adds `item` unless the view holds it already or it is over the budget; false once the budget
// is spent. An item that is part of a longer one (a file name of a path, a path of a quoted
// argument) is left out, and a longer one takes the place of the items it contains: the next call
// finds the text either way, and the units go to strings the view does not have.
// The sets are vectors searched in order (no red-black tree code in the module): an add that
// keeps its item reads every kept item and the known items' text anyway, and `seen` holds no more
// items than the adds that got that far.
struct Collected {
  explicit Collected(std::size_t limit, const std::vector<U16>* skip = nullptr)
      : maxUnits(limit), known(skip) {
    if (!known) return;
    for (const U16& k : *known) knownText += k + u'\n';
  }
  std::size_t maxUnits;
  const std::vector<U16>* known;
  U16 knownText;  // the known items, one a line (items hold no line break)
  std::size_t used = 0;
  std::vector<U16> seen;
  std::vector<U16> items;
  static bool holds(const std::vector<U16>& list, const U16& item) {
    return std::find(list.begin(), list.end(), item) != list.end();
  }
  bool add(U16 item) {
    if (item.empty() || holds(seen, item) || (known && holds(*known, item))) return true;
    const std::size_t cost = item.size() + kSeparator.size();
    if (used + cost > maxUnits) return used + kSeparator.size() + 4 <= maxUnits;
    seen.push_back(item);
    if (knownText.find(item) != U16::npos) return true;
    for (const U16& kept : items) {
      if (kept.size() > item.size() && kept.find(item) != U16::npos) return true;
    }
    items.erase(std::remove_if(items.begin(), items.end(),
                               [&](const U16& kept) {
                                 if (item.find(kept) == U16::npos) return false;
                                 used -= kept.size() + kSeparator.size();
                                 return true;
                               }),
                items.end());
    used += cost;
    items.push_back(std::move(item));
    return true;
  }
};

// The items of an artifacts line ("Artifacts: a, b, "c, d"" -> a | b | "c, d"): a quoted phrase
// (a request or an error line) is read to its closing quote.
std::vector<U16> lineItems(View line) {
  std::vector<U16> out;
  std::size_t i = 0;
  while (i < line.size()) {
    std::size_t end = line.find(kSeparator, i);
    if (line[i] == u'"') {
      const std::size_t close = line.find(u"\", ", i + 1);
      end = close == View::npos ? View::npos : close + 1;
    }
    if (end == View::npos) end = line.size();
    out.emplace_back(line.substr(i, end - i));
    i = end + kSeparator.size();
  }
  return out;
}

View artifactsLineOf(View body) {
  if (body.substr(0, kArtifactsPrefix.size()) != kArtifactsPrefix) return {};
  const std::size_t end = body.find(u'\n');
  return body.substr(kArtifactsPrefix.size(),
                     end == View::npos ? View::npos : end - kArtifactsPrefix.size());
}

}  // namespace

std::vector<U16> rangeArtifacts(const std::vector<Value>& messages, std::size_t start,
                                std::size_t end, std::size_t maxUnits, std::size_t* steps,
                                const std::vector<U16>* known) {
  Collected c(maxUnits, known);
  std::vector<U16> texts, whole, argumentTexts;
  auto read = [&](const std::vector<U16>& from, bool userFirst) {
    for (std::size_t t = 0; t < from.size(); ++t) {
      // A user's request is the first sentence of its text, not of its later parts.
      LedgerSource source{from[t], userFirst && t == 0};
      for (Artifact& a : artifactsOf(source, kPerKindPerMessage, steps)) {
        if (!c.add(std::move(a.text))) return false;
      }
      if (steps) *steps += from[t].size();
      for (U16& phrase : quotedPhrases(from[t], kPerKindPerMessage)) {
        if (!c.add(std::move(phrase))) return false;
      }
    }
    return true;
  };
  // The message's text, then its calls' short arguments whole, then their long ones.
  for (std::size_t i = end; i > start; --i) {
    const Value& m = messages[i - 1];
    texts.clear();
    whole.clear();
    argumentTexts.clear();
    contentTexts(m, texts);
    callArguments(m, whole, argumentTexts);
    if (!read(texts, roleOf(m) == u"user")) break;
    bool room = true;
    for (std::size_t w = 0; room && w < whole.size() && w < kWholeArgumentsPerMessage; ++w) {
      if (steps) *steps += whole[w].size();
      room = c.add(std::move(whole[w]));
    }
    if (!room || !read(argumentTexts, false)) break;
  }
  return std::move(c.items);
}

std::vector<U16> callArgumentNames(const Value& call) {
  std::vector<U16> out;
  const U16* args = callFunctionString(call, u"arguments");
  if (!args) return out;
  Result<Value> parsed = parseJsonText(*args);
  if (!parsed.ok() || !parsed.value().isObject()) return out;
  // Top-level names first, then those of objects inside (a todo list's items), in order.
  std::vector<const Value*> level = {&parsed.value()};
  for (int depth = 0; depth < kArgumentNameDepth && !level.empty(); ++depth) {
    std::vector<const Value*> inner;
    for (const Value* v : level) {
      for (const json::Member& member : v->members) {
        const U16& key = member.key;
        if (!key.empty() && key.size() <= kArgumentNameUnits &&
            std::find(out.begin(), out.end(), key) == out.end()) {
          out.push_back(key);
        }
        const Value& value = member.value;
        if (value.isObject()) inner.push_back(&value);
        if (value.isArray()) {
          for (const Value& item : value.items) {
            if (item.isObject()) inner.push_back(&item);
          }
        }
      }
    }
    level = std::move(inner);
  }
  return out;
}

std::vector<U16> mergedArtifacts(const std::vector<View>& bodies, std::size_t maxUnits) {
  Collected c(maxUnits);
  for (std::size_t b = bodies.size(); b > 0; --b) {
    for (U16& item : lineItems(artifactsLineOf(bodies[b - 1]))) {
      if (!c.add(std::move(item))) return std::move(c.items);
    }
  }
  return std::move(c.items);
}

std::vector<U16> artifactItems(View body) { return lineItems(artifactsLineOf(body)); }

View withoutArtifacts(View body) {
  if (body.substr(0, kArtifactsPrefix.size()) != kArtifactsPrefix) return body;
  const std::size_t end = body.find(u'\n');
  return end == View::npos ? View() : body.substr(end + 1);
}

U16 artifactsLine(const std::vector<U16>& items, std::size_t maxUnits) {
  U16 out;
  if (maxUnits <= kArtifactsPrefix.size()) return out;
  std::size_t used = kArtifactsPrefix.size();
  for (const U16& item : items) {
    const std::size_t cost = item.size() + (out.empty() ? 0 : kSeparator.size());
    if (used + cost > maxUnits) continue;
    if (out.empty()) {
      out = U16(kArtifactsPrefix);
    } else {
      out += kSeparator;
    }
    out += item;
    used += cost;
  }
  return out;
}

}  // namespace cce::context
