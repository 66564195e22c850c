// SPDX-License-Identifier: MIT
// libFuzzer harness: raw request bytes, then a conversation built from the same bytes, checked.
//
// Every input runs two ways:
//  (a) the bytes as a compressJson / uncompressJson request: never a crash, always a well-formed
//      envelope (UTF-8 JSON, ok + output/plan/pending, or a known error code that is not Internal);
//  (b) the bytes as choices for a generated conversation and options (roles, tool calls, fences,
//      JSON, CJK, emoji, lone surrogates, CRLF, empty and long texts, duplicate and near-duplicate
//      runs, earlier rounds' summaries, both compat modes, budgets with forceConverge, host
//      summarizer and token counter answered through the pending protocol).
// Whenever a compress call succeeds, the invariants of checkOutcome() must hold: the same request
// gives the same bytes twice, the statistics add up to the message count, and uncompress restores
// every input message exactly (default mode; under cce-1.0 only where the reference is lossless).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "cce.h"
#include "json/value.h"
#include "json_io.h"
#include "jscompat/json_writer.h"
#include "jscompat/string.h"
#include "request.h"
#include "value_bytes.h"

namespace {

using cce::json::Member;
using cce::json::Value;
using U16 = std::u16string;

[[noreturn]] void fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "\n==== cce fuzz invariant violated: %s\n%s\n", what,
               detail.substr(0, 6000).c_str());
  std::fflush(stderr);
  std::abort();
}

// ---- envelopes -------------------------------------------------------------------------------

bool isWellFormedUtf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    std::size_t extra = 0;
    std::uint32_t min = 0;
    std::uint32_t cp = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xE0) == 0xC0) {
      extra = 1, min = 0x80, cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      extra = 2, min = 0x800, cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      extra = 3, min = 0x10000, cp = c & 0x07;
    } else {
      return false;
    }
    if (i + extra >= s.size()) return false;
    for (std::size_t k = 1; k <= extra; ++k) {
      const unsigned char d = static_cast<unsigned char>(s[i + k]);
      if ((d & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (d & 0x3F);
    }
    // Lone surrogates must travel as \udXXX escapes, never as raw (WTF-8) bytes.
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += extra + 1;
  }
  return true;
}

const std::set<std::string>& errorCodes() {
  static const std::set<std::string> codes = [] {
    std::set<std::string> out;
    for (cce::ErrorCode code : cce::allErrorCodes()) out.insert(cce::errorCodeName(code));
    return out;
  }();
  return codes;
}

std::string utf8(const U16& s) { return cce::js::toUtf8(s); }

// Parses an envelope and checks its shape.
Value checkEnvelope(const std::string& text, const char* api) {
  if (!isWellFormedUtf8(text)) fail("envelope is not well-formed UTF-8", text);
  cce::Result<Value> parsed = cce::parseJson(text);
  if (!parsed) fail("envelope is not JSON", std::string(api) + ": " + text);
  const Value& e = parsed.value();
  const Value* ok = e.find(u"ok");
  if (!e.isObject() || !ok || !ok->isBool()) fail("envelope without a boolean ok", text);
  if (ok->boolean) {
    int bodies = 0;
    for (const char16_t* key : {u"output", u"plan", u"pending"}) {
      if (const Value* body = e.find(key)) {
        if (!body->isObject()) fail("envelope body is not an object", text);
        ++bodies;
      }
    }
    if (bodies != 1 || e.members.size() != 2) fail("ok envelope needs exactly one body", text);
  } else {
    const Value* error = e.find(u"error");
    if (!error || !error->isObject() || e.members.size() != 2) fail("error envelope shape", text);
    const Value* code = error->find(u"code");
    const Value* message = error->find(u"message");
    const Value* path = error->find(u"path");
    if (!code || !code->isString() || !errorCodes().count(utf8(code->string))) {
      fail("error envelope with an unknown code", text);
    }
    if (code->string == u"Internal") fail("Internal error (an engine invariant broke)", text);
    if (!message || !message->isString() || message->string.empty()) fail("error message", text);
    if (!path || !path->isString() || (!path->string.empty() && path->string[0] != u'/')) {
      fail("error path is not a JSON pointer", text);
    }
  }
  return parsed.value();
}

bool envelopeOk(const Value& e) { return e.find(u"ok")->boolean; }

// ---- invariants of one successful compress ---------------------------------------------------

double numberAt(const Value& object, const char16_t* key, const std::string& context) {
  const Value* v = object.find(key);
  if (!v || !v->isNumber()) fail("missing statistic", utf8(key) + " in " + context);
  return v->number;
}

bool truthy(const Value* v) { return v && v->truthy(); }

struct RequestFacts {
  bool reference = false;  // compat "cce-1.0"
  bool budget = false;
  bool forceConverge = false;
  bool plan = false;
  bool uniqueIds = true;
  bool carriesOriginal = false;  // some input has a truthy metadata._cce_original
};

RequestFacts factsOf(const Value& request) {
  RequestFacts f;
  const Value* options = request.find(u"options");
  if (options && options->isObject()) {
    const Value* compat = options->find(u"compat");
    f.reference = compat && compat->isString() && compat->string == u"cce-1.0";
    const Value* budget = options->find(u"tokenBudget");
    f.budget = budget && !budget->isNull();
    f.forceConverge = truthy(options->find(u"forceConverge"));
  }
  f.plan = truthy(request.find(u"plan"));
  std::set<U16> ids;
  for (const Value& m : request.find(u"messages")->items) {
    const Value* id = m.find(u"id");
    // String(id) is the verbatim key: 1 and "1" collide.
    if (id && !ids.insert(cce::jsString(*id)).second) f.uniqueIds = false;
    const Value* metadata = m.find(u"metadata");
    if (metadata && metadata->isObject() && truthy(metadata->find(u"_cce_original"))) {
      f.carriesOriginal = true;
    }
  }
  return f;
}

void checkOutcome(const Value& request, const std::string& envelopeText, const Value& envelope) {
  const RequestFacts facts = factsOf(request);
  const Value& messages = *request.find(u"messages");
  const std::size_t n = messages.items.size();
  const Value* body = envelope.find(facts.plan ? u"plan" : u"output");
  if (!body) return;  // pending: nothing final to check
  const std::string context = envelopeText.substr(0, 3000);

  const Value* out = body->find(u"messages");
  const Value* compression = body->find(u"compression");
  const Value* verbatim = body->find(u"verbatim");
  if (!out || !out->isArray() || !compression || !compression->isObject() || !verbatim) {
    fail("result without messages / compression / verbatim", context);
  }
  if (out->items.size() > n) fail("more output messages than input messages", context);

  // Spec §1.5: compressed + deduped + fuzzy + preserved = n; the safe mode also counts truncated
  // messages (taken out of `preserved`) and messages replaced by budget stubs.
  static constexpr const char16_t* kOptional[] = {u"messages_deduped", u"messages_fuzzy_deduped",
                                                  u"messages_truncated", u"messages_omitted"};
  double total = numberAt(*compression, u"messages_compressed", context) +
                 numberAt(*compression, u"messages_preserved", context);
  for (const char16_t* key : kOptional) {
    if (const Value* v = compression->find(key)) {
      if (!(v->isNumber() && v->number > 0)) fail("optional statistic present but not positive", context);
      total += v->number;
    }
  }
  if (total != static_cast<double>(n)) fail("statistics do not add up to the message count", context);
  if (facts.reference &&
      (compression->find(u"messages_truncated") || compression->find(u"messages_omitted"))) {
    fail("safe-mode statistics under cce-1.0", context);
  }
  const bool hasBudgetFields = body->find(u"fits") && body->find(u"tokenCount") &&
                               body->find(u"recencyWindow");
  if (hasBudgetFields != facts.budget) fail("budget fields present iff tokenBudget", context);

  // The default mode's validation rejects repeated ids (they would overwrite each other in the
  // verbatim store), so every request it accepts must round-trip exactly.
  if (!facts.reference && !facts.uniqueIds) fail("the default mode accepted repeated ids", context);
  if (facts.plan) return;  // the plan form has no materialised messages to restore
  // The reference loses data with repeated ids, in forceConverge (metadata: {} on every message)
  // and for inputs that already carry _cce_original.
  const bool lossless =
      !facts.reference || (facts.uniqueIds && !facts.forceConverge && !facts.carriesOriginal);
  if (!lossless) return;
  std::string restore = "{\"messages\":" + cce::js::toJson(*out) +
                        ",\"store\":" + cce::js::toJson(*verbatim) + "}";
  const std::string restoredText = cce::uncompressJson(restore);
  Value restored = checkEnvelope(restoredText, "uncompressJson");
  if (!envelopeOk(restored)) fail("uncompress of a compress result failed", restoredText);
  const std::string expected = cce::js::toJson(messages);
  const std::string actual = cce::js::toJson(*restored.find(u"output")->find(u"messages"));
  if (actual != expected) {
    fail("uncompress(compress(x)) != x",
         "input:    " + expected.substr(0, 2500) + "\nrestored: " + actual.substr(0, 2500) +
             "\nresult:   " + context);
  }
}

// ---- (a) raw bytes ---------------------------------------------------------------------------

void fuzzRaw(std::string_view text) {
  const std::string first = cce::compressJson(text);
  Value envelope = checkEnvelope(first, "compressJson");
  if (cce::compressJson(text) != first) fail("compressJson is not deterministic", first);
  if (envelopeOk(envelope)) {
    cce::Result<Value> request = cce::parseJson(text);
    if (!request) fail("compressJson accepted text that parseJson rejects", first);
    checkOutcome(request.value(), first, envelope);
  }
  checkEnvelope(cce::uncompressJson(text), "uncompressJson");
  // The same bytes after the magic word of value bytes (the session modules' requests): read or
  // refused, never a read past them (ASan) nor a value JSON cannot write.
  std::string valueBytes = "CCV1";
  valueBytes.append(text);
  if (cce::Result<Value> value = cce::readValueBytes(valueBytes)) {
    if (cce::js::toJson(value.value()).empty()) fail("value bytes read as nothing", valueBytes);
  }
}

// ---- (b) generated conversations ---------------------------------------------------------------

// Choices read from the front of the input; zeros once it is exhausted, so every input is usable.
class Bytes {
 public:
  Bytes(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  std::uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  std::size_t below(std::size_t n) {  // uniform enough in [0, n)
    if (n <= 1) return 0;
    std::size_t v = byte();
    if (n > 256) v = (v << 8) | byte();
    return v % n;
  }
  bool oneIn(std::size_t n) { return below(n) + 1 == n; }  // false once exhausted
  bool flag() { return byte() & 1; }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

const char* const kWords[] = {
    "the", "service", "retries", "upload", "after", "a", "short", "pause", "and", "logs", "every",
    "failed", "attempt", "We", "should", "refactor", "parser", "because", "it", "allocates", "too",
    "much", "memory", "The", "cache", "eviction", "policy", "uses", "LRU", "order", "Sure", "thing",
    "OK", "then", "Thanks", "integer", "boolean", "not", "null", "group", "by", "order", "by",
    "getUserById", "src/auth/token.ts", "https://example.com/a?b=1", "v1.2.3", "user@example.com",
    "42ms", "3.5GB", "Kubernetes", "PostgreSQL", "React", "naïve", "Zürich", "日本語の", "テキスト",
    "中文内容", "😀", "🚀", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "Ελληνικά", "e\u0301", "\u00a0", "\u2028", "\ufeff", "→", "∑",
    "$x^2$", "sk-abcdefghijklmnopqrstuvwxyz0123456789", "AKIAIOSFODNN7EXAMPLE", "SELECT",
    "FROM", "WHERE", "JOIN", "TODO", "FIXME", "Error:", "PASS", "FAIL", "#", "-", "*", "`x`", "\"q\"",
    "(", ")", "[", "]", "{", "}", ":", ";", "...", "?", "!", "100%", "1,234", "0x1F"};
constexpr std::size_t kWordCount = sizeof(kWords) / sizeof(kWords[0]);

U16 word(Bytes& b) { return cce::js::fromUtf8(kWords[b.below(kWordCount)]); }

U16 sentence(Bytes& b) {
  U16 s;
  const std::size_t n = 1 + b.below(18);
  for (std::size_t i = 0; i < n; ++i) {
    if (i) s += u' ';
    s += word(b);
  }
  static const char16_t* const kEnds[] = {u". ", u"! ", u"? ", u".\n", u"\n\n", u" ", u"。"};
  s += kEnds[b.below(7)];
  return s;
}

U16 prose(Bytes& b, std::size_t sentences) {
  U16 s;
  for (std::size_t i = 0; i < sentences; ++i) s += sentence(b);
  return s;
}

U16 numberText(Bytes& b) { return cce::js::fromUtf8(std::to_string(b.below(100000))); }

U16 makeText(Bytes& b, int depth);

U16 codeBlock(Bytes& b) {
  static const char16_t* const kLangs[] = {u"ts", u"python", u"", u"sql", u"json", u"bash"};
  U16 s = u"```";
  s += kLangs[b.below(6)];
  s += u"\n";
  const std::size_t lines = 1 + b.below(12);
  for (std::size_t i = 0; i < lines; ++i) {
    s += b.flag() ? u"  const x" : u"def f";
    s += numberText(b);
    s += b.flag() ? u" = await fetch(url);\n" : u"(a, b):\n    return a + b\n";
  }
  if (!b.oneIn(6)) s += u"```\n";  // sometimes unterminated
  return s;
}

U16 jsonText(Bytes& b, int depth) {
  switch (b.below(depth > 3 ? 3 : 5)) {
    case 0: return numberText(b);
    case 1: return u"\"" + word(b) + u"\"";
    case 2: return b.flag() ? u"true" : u"null";
    case 3: {
      U16 s = u"[";
      const std::size_t n = b.below(6);
      for (std::size_t i = 0; i < n; ++i) s += (i ? u"," : u"") + jsonText(b, depth + 1);
      return s + u"]";
    }
    default: {
      U16 s = u"{";
      const std::size_t n = b.below(6);
      for (std::size_t i = 0; i < n; ++i) {
        s += (i ? u", " : u"") + (u"\"k" + numberText(b) + u"\": ") + jsonText(b, depth + 1);
      }
      return s + u"}";
    }
  }
}

U16 lines(Bytes& b, const char16_t* prefix, std::size_t count) {
  U16 s;
  for (std::size_t i = 0; i < count; ++i) {
    s += prefix;
    s += numberText(b);
    s += b.flag() ? u".ts:" : u": ";
    s += numberText(b);
    s += u": ";
    s += sentence(b);
    s += u"\n";
  }
  return s;
}

U16 makeText(Bytes& b, int depth) {
  if (depth > 3) return prose(b, 1 + b.below(5));
  switch (b.below(20)) {
    case 0: return U16();
    case 1: return u" \n\t\u00a0 ";
    case 2: return sentence(b);
    case 3:
    case 4:
    case 5: return prose(b, 2 + b.below(30));
    case 6: return prose(b, 1 + b.below(4)) + codeBlock(b) + prose(b, b.below(6));
    case 7: return jsonText(b, 0);
    case 8: return lines(b, u"src/file", 3 + b.below(30));
    case 9: return lines(b, b.flag() ? u"PASS test " : u"  - name", 3 + b.below(20));
    case 10: {
      static const char16_t* const kMarkers[] = {u"[summary: ", u"[summary#cce_sum_3t1y: ",
                                                 u"[truncated \u2014 900 chars: ",
                                                 u"[cce:dup of m1 \u2014 300 chars]", u"[summary"};
      return kMarkers[b.below(5)] + prose(b, 1 + b.below(20)) + u"]";
    }
    case 11: {  // one long run: no whitespace, or one word repeated
      U16 unit = b.flag() ? U16(u"word ") : word(b);
      U16 s;
      const std::size_t n = 1 + b.below(b.oneIn(8) ? 4000 : 300);
      for (std::size_t i = 0; i < n; ++i) s += unit;
      return s;
    }
    case 12: {  // lone surrogates, and pairs split by the middle
      U16 s = prose(b, 1 + b.below(12));
      const std::size_t k = 1 + b.below(4);
      for (std::size_t i = 0; i < k; ++i) {
        const char16_t unit = static_cast<char16_t>(0xD800 + b.below(0x800));
        s.insert(s.begin() + static_cast<std::ptrdiff_t>(b.below(s.size() + 1)), unit);
      }
      return s;
    }
    case 13: {  // CRLF and lone CR line ends
      U16 s = makeText(b, depth + 1);
      U16 t;
      for (char16_t c : s) {
        if (c == u'\n') t += b.flag() ? u"\r\n" : u"\r";
        else t += c;
      }
      return t;
    }
    case 14: return u"SELECT id, name FROM users u LEFT JOIN orders o ON o.user_id = u.id WHERE "
                    u"u.active = true GROUP BY u.id ORDER BY name; " + prose(b, b.below(10));
    case 15: return u"# Heading\n\n" + prose(b, 2 + b.below(8)) + u"\n\n## Next\n\n- item one\n- " +
                    prose(b, 1 + b.below(8));
    default:
      if (depth < 2) return makeText(b, depth + 1) + makeText(b, depth + 1);
      return prose(b, 3 + b.below(20));
  }
}

// Same lines, one changed: a fuzzy-dedup candidate.
U16 nearDuplicate(Bytes& b, const U16& text) {
  U16 out = text;
  std::size_t pos = out.find(u'\n', b.below(out.size() + 1));
  if (pos == U16::npos) pos = out.size();
  out.insert(pos, u" changed " + numberText(b));
  return out;
}

Value str(const U16& s) { return Value::fromString(s); }
Value str(const char16_t* s) { return Value::fromString(s); }
Value num(double d) { return Value::fromNumber(d); }

struct Generated {
  Value request;
  std::uint8_t answerSeed = 0;
  bool hostSummarizer = false;
  bool hostCounter = false;
};

Generated generate(Bytes& b) {
  Generated g;
  const bool reference = b.oneIn(3);
  const bool sloppy = b.oneIn(24);  // shapes the safe mode rejects (and cce-1.0 accepts)
  const std::size_t n = b.below(b.oneIn(8) ? 60 : 16);

  Value messages = Value::array();
  std::vector<U16> contents;
  static const char16_t* const kRoles[] = {u"user", u"assistant", u"user", u"assistant", u"system",
                                           u"tool", u"function", u"developer", u"", u"User"};
  for (std::size_t i = 0; i < n; ++i) {
    Value m = Value::object();
    // ids: unique strings, including integer-like keys and prototype-ish names
    U16 id;
    switch (b.below(8)) {
      case 0: id = cce::js::fromUtf8(std::to_string(i)); break;
      case 1: id = u"__proto__"; break;
      case 2: id = u"constructor"; break;
      case 3: id = u"é😀-" + cce::js::fromUtf8(std::to_string(i)); break;
      default: id = u"m" + cce::js::fromUtf8(std::to_string(i)); break;
    }
    if (id == u"__proto__" || id == u"constructor") id += cce::js::fromUtf8(std::to_string(i));
    if (sloppy && b.oneIn(4)) {
      m.set(u"id", b.flag() ? num(static_cast<double>(i % 3)) : str(u"dup"));
    } else {
      m.set(u"id", str(id));
    }
    if (b.oneIn(3)) m.set(u"index", num(static_cast<double>(i)));
    const std::size_t roleChoice = b.below(11);
    if (roleChoice < 10) m.set(u"role", str(kRoles[roleChoice]));
    const U16 role = roleChoice < 10 ? U16(kRoles[roleChoice]) : U16();

    // content: fresh, an exact duplicate of an earlier one, or a near-duplicate
    U16 content;
    const std::size_t source = b.below(8);
    if (!contents.empty() && source == 0) {
      content = contents[b.below(contents.size())];
    } else if (!contents.empty() && source == 1) {
      content = nearDuplicate(b, contents[b.below(contents.size())]);
    } else {
      content = makeText(b, 0);
    }
    contents.push_back(content);

    const bool toolCalls = role == u"assistant" && b.oneIn(3);
    const std::size_t shape = b.below(16);
    if (toolCalls && shape < 4) {
      if (shape < 2) m.set(u"content", Value::null());  // or no content at all
    } else if (shape == 4) {
      // Multimodal content: text parts (the message's text, or pieces of it) around images,
      // Anthropic tool_result and thinking blocks; sloppy runs add parts that are not parts.
      Value parts = Value::array();
      const std::size_t count = 1 + b.below(4);
      for (std::size_t k = 0; k < count; ++k) {
        Value part = Value::object();
        switch (b.below(5)) {
          case 0:
            part.set(u"type", str(u"image_url"));
            part.set(u"image_url", Value::object());
            break;
          case 1:
            part.set(u"type", str(u"thinking"));
            part.set(u"thinking", str(makeText(b, 0)));
            break;
          case 2:
            part.set(u"type", str(u"tool_result"));
            part.set(u"tool_use_id", str(u"toolu_1"));
            part.set(u"content", str(makeText(b, 0)));
            break;
          default:
            part.set(u"type", str(u"text"));
            part.set(u"text", str(k == 0 ? content : makeText(b, 0)));
            break;
        }
        parts.items.push_back(std::move(part));
      }
      if (sloppy && b.oneIn(4)) parts.items.push_back(b.flag() ? str(u"x") : Value::object());
      m.set(u"content", std::move(parts));
    } else if (sloppy && shape == 5) {
      m.set(u"content", b.flag() ? num(7) : Value::object());
    } else if (sloppy && shape == 6) {
      m.set(u"content", Value::null());
    } else {
      m.set(u"content", str(content));
    }
    if (toolCalls) {
      Value calls = Value::array();
      Value call = Value::object();
      call.set(u"id", str(u"call_" + cce::js::fromUtf8(std::to_string(i))));
      call.set(u"type", str(u"function"));
      calls.items.push_back(std::move(call));
      m.set(u"tool_calls", std::move(calls));
    } else if (b.oneIn(12)) {
      m.set(u"tool_calls", Value::array());
    }
    if (role == u"tool") m.set(u"tool_call_id", str(u"call_" + numberText(b)));

    switch (b.below(10)) {
      case 0: m.set(u"metadata", Value::object()); break;
      case 1: {
        Value md = Value::object();
        md.set(u"source", str(u"import"));
        md.set(u"__proto__", Value::object());
        md.set(u"7", num(1));
        m.set(u"metadata", std::move(md));
        break;
      }
      case 2: {
        // An earlier round's output: its own id plus ids no longer in the conversation.
        Value original = Value::object();
        Value ids = Value::array();
        ids.items.push_back(*m.find(u"id"));
        if (b.flag()) ids.items.push_back(str(u"gone-" + numberText(b)));
        original.set(u"ids", std::move(ids));
        original.set(u"summary_id", str(u"cce_sum_" + numberText(b)));
        original.set(u"version", num(0));
        Value md = Value::object();
        md.set(u"_cce_original", std::move(original));
        m.set(u"metadata", std::move(md));
        break;
      }
      case 3:
        if (reference || sloppy) m.set(u"metadata", b.flag() ? Value::null() : Value::array());
        break;
      default: break;
    }
    if (b.oneIn(10)) m.set(u"name", str(word(b)));
    messages.items.push_back(std::move(m));
  }

  Value options = Value::object();
  if (reference) options.set(u"compat", str(u"cce-1.0"));
  if (!b.oneIn(3)) {
    double rw = static_cast<double>(b.below(n + 3));
    if (b.oneIn(6)) rw += 0.5;
    if (reference && b.oneIn(8)) rw = -rw;
    options.set(u"recencyWindow", num(rw));
  }
  switch (b.below(6)) {
    case 0: options.set(u"preserve", Value::array()); break;
    case 1: {
      Value p = Value::array();
      p.items.push_back(str(u"user"));
      p.items.push_back(str(u"tool"));
      options.set(u"preserve", std::move(p));
      break;
    }
    default: break;
  }
  if (b.oneIn(4)) options.set(u"dedup", Value::fromBool(b.flag()));
  if (b.oneIn(3)) {
    options.set(u"fuzzyDedup", Value::fromBool(true));
    if (b.flag()) options.set(u"fuzzyThreshold", num(0.3 + 0.7 * b.below(101) / 100.0));
  }
  if (b.oneIn(4)) options.set(u"embedSummaryId", Value::fromBool(true));
  if (b.oneIn(6)) options.set(u"sourceVersion", num(b.oneIn(3) ? 1.5 : b.below(4)));
  if (b.oneIn(3)) {
    double total = 0;
    for (const U16& c : contents) total += static_cast<double>((2 * c.size() + 6) / 7);
    const double fraction = b.below(121) / 100.0;
    options.set(u"tokenBudget", num(b.oneIn(8) ? 0 : std::floor(total * fraction)));
    if (b.oneIn(4)) options.set(u"minRecencyWindow", num(static_cast<double>(b.below(n + 2))));
    if (b.flag()) options.set(u"forceConverge", Value::fromBool(true));
  }

  g.request = Value::object();
  g.request.set(u"messages", std::move(messages));
  g.request.set(u"options", std::move(options));
  if (b.oneIn(6)) g.request.set(u"plan", Value::fromBool(true));
  g.hostSummarizer = b.oneIn(5);
  g.hostCounter = b.oneIn(6);
  g.answerSeed = b.byte();
  if (g.hostSummarizer || g.hostCounter) {
    Value host = Value::object();
    if (g.hostSummarizer) {
      host.set(u"summarizer", Value::fromBool(true));
      host.set(u"summaries", Value::array());
    }
    if (g.hostCounter) {
      host.set(u"tokenCounter", Value::fromBool(true));
      host.set(u"inputCounts", Value::array());
      host.set(u"counts", Value::object());
    }
    g.request.set(u"host", std::move(host));
  }
  return g;
}

// ---- the host side of the pending protocol --------------------------------------------------

// What a user's summarizer might return for the k-th request: nothing, too long, or a summary.
Value summaryAnswer(std::uint8_t seed, std::size_t k, const U16& text) {
  switch ((seed + k) % 6) {
    case 0: return Value::null();          // threw, rejected or returned a non-string
    case 1: return str(U16());             // empty: rejected by the engine
    case 2: return str(text + u"!");       // not shorter: rejected
    case 3: return str(text.substr(0, text.size() / 2));
    case 4: return str(u"Short summary \U0001F600 with ] and \"quotes\"");
    default: return str(text.substr(0, 3) + U16(1, static_cast<char16_t>(0xD83D)));
  }
}

// A user's token counter, one of a few shapes (including odd ones: zero, negative, fractional).
double countOf(std::uint8_t seed, const U16* content) {
  const double len = content ? static_cast<double>(content->size()) : 0;
  switch ((seed >> 3) % 6) {
    case 0: return std::ceil(len / 3.5);
    case 1: {
      double words = 0;
      bool in = false;
      if (content) {
        for (char16_t c : *content) {
          const bool space = cce::js::isSpace(c);
          if (!space && !in) ++words;
          in = !space;
        }
      }
      return words;
    }
    case 2: return 1;
    case 3: return 0;
    case 4: return len / 7.3;
    default: return -len;
  }
}

const U16* contentOf(const Value& message) {
  const Value* c = message.find(u"content");
  return c && c->isString() ? &c->string : nullptr;
}

// Runs a request to completion, answering pending work the way a host would.
std::string runToEnd(Value request, const Generated& g, Value& finalRequest) {
  const Value& messages = *request.find(u"messages");
  if (g.hostCounter && messages.isArray()) {
    Value& inputCounts = *request.find(u"host")->find(u"inputCounts");
    for (const Value& m : messages.items) {
      inputCounts.items.push_back(num(countOf(g.answerSeed, contentOf(m))));
    }
  }
  for (int round = 0;; ++round) {
    const std::string text = cce::compressJson(cce::js::toJson(request));
    Value envelope = checkEnvelope(text, "compressJson");
    const Value* pending = envelopeOk(envelope) ? envelope.find(u"pending") : nullptr;
    if (!pending) {
      finalRequest = std::move(request);
      return text;
    }
    if (round > 200) fail("the pending protocol does not converge", text);
    bool progress = false;
    Value* host = request.find(u"host");
    if (!host) fail("pending without host hooks", text);
    if (const Value* summaries = pending->find(u"summaries")) {
      Value* answers = host->find(u"summaries");
      if (!answers) fail("pending summaries without a host summarizer", text);
      for (const Value& item : summaries->items) {
        const Value* t = item.find(u"text");
        if (!t || !t->isString()) fail("pending summary without text", text);
        answers->items.push_back(summaryAnswer(g.answerSeed, answers->items.size(), t->string));
        progress = true;
      }
    }
    if (const Value* counts = pending->find(u"counts")) {
      Value* answers = host->find(u"counts");
      if (!answers) fail("pending counts without a host counter", text);
      for (const Value& item : counts->items) {
        const Value* key = item.find(u"key");
        const Value* entry = item.find(u"message");
        if (!key || !key->isString() || !entry) fail("pending count shape", text);
        const Value* s = entry->find(u"s");
        if (!s || !s->isNumber() || s->number < 0 ||
            s->number >= static_cast<double>(messages.items.size())) {
          fail("pending count with a bad source index", text);
        }
        const Value* c = entry->find(u"c");
        const U16* content = c && c->isString()
                                 ? &c->string
                                 : contentOf(messages.items[static_cast<std::size_t>(s->number)]);
        answers->set(key->string, num(countOf(g.answerSeed, content)));
        progress = true;
      }
    }
    if (!progress) fail("pending envelope with nothing to do", text);
  }
}

// CCE_FUZZ_TRACE=1: one line per generated request, to see what the generator reaches.
void trace(const Value& request, const Value& envelope) {
  static const bool enabled = std::getenv("CCE_FUZZ_TRACE") != nullptr;
  if (!enabled) return;
  const RequestFacts f = factsOf(request);
  std::string line = f.reference ? "cce-1.0" : "safe";
  line += " n=" + std::to_string(request.find(u"messages")->items.size());
  if (f.budget) line += f.forceConverge ? " budget+force" : " budget";
  if (request.find(u"host")) line += " host";
  if (!envelopeOk(envelope)) {
    line += " error=" + utf8(envelope.find(u"error")->find(u"code")->string) + " " +
            utf8(envelope.find(u"error")->find(u"path")->string);
  } else if (const Value* body = envelope.find(f.plan ? u"plan" : u"output")) {
    for (const Member& m : body->find(u"compression")->members) {
      if (m.key.rfind(u"messages_", 0) == 0 && m.key != u"messages_preserved") {
        line += " " + utf8(m.key.substr(9)) + "=" + cce::js::toJson(m.value);
      }
    }
  }
  std::fprintf(stderr, "trace: %s\n", line.c_str());
}

void fuzzGenerated(const std::uint8_t* data, std::size_t size) {
  Bytes b(data, size);
  Generated g = generate(b);
  Value finalRequest;
  const std::string first = runToEnd(g.request, g, finalRequest);
  Value again;
  if (runToEnd(g.request, g, again) != first) fail("compress is not deterministic", first);
  Value envelope = checkEnvelope(first, "compressJson");
  trace(finalRequest, envelope);
  if (envelopeOk(envelope)) checkOutcome(finalRequest, first, envelope);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzzRaw(std::string_view(reinterpret_cast<const char*>(data), size));
  fuzzGenerated(data, size);
  return 0;
}
