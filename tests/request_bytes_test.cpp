// SPDX-License-Identifier: MIT
// Tests for the binary requests of the wasm boundary: decoding, errors, and equivalence with JSON.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "cce.h"
#include "cli/conformance.h"
#include "json_io.h"
#include "jscompat/json_writer.h"
#include "jscompat/number.h"
#include "jscompat/string.h"
#include "pipeline.h"
#include "request.h"
#include "request_bytes.h"
#include "answer_reader.h"
#include "test_util.h"

namespace cce {
namespace {

using json::Value;

// Message flags of docs/boundary.md.
constexpr std::uint32_t kNotObject = 1, kContent = 2, kToolCalls = 4, kToolCallId = 8,
                        kMetadataTruthy = 16, kMetadataObject = 32, kOriginalTruthy = 64,
                        kSummaryId = 128, kIds = 256, kContentArray = 512,
                        kContentInvalid = 1024, kBadPart = 2048, kContentParts = 4096;

// Writes requests the way js/src/transport.ts does, from JSON values (what the corpus holds).
struct Writer {
  std::string out;
  bool utf16 = false;  // compressRequest writes "CCE2" and every string as UTF-16 (the Node entry)
  bool sendToolCalls = true;  // compressRequest appends tool-call texts when the mode bills them

  Writer& word(std::uint32_t w) {
    char b[4];
    std::memcpy(b, &w, 4);
    out.append(b, 4);
    return *this;
  }
  Writer& number(double d) {
    char b[8];
    std::memcpy(b, &d, 8);
    out.append(b, 8);
    return *this;
  }
  Writer& bytes(std::string_view s) {
    word(static_cast<std::uint32_t>(s.size()));
    out.append(s);
    out.append((4 - s.size() % 4) % 4, '\0');
    return *this;
  }
  Writer& string(std::u16string_view s) {
    if (!utf16) return bytes(js::toUtf8(s));  // WTF-8, as the JS side
    word(static_cast<std::uint32_t>(s.size()));
    out.append(reinterpret_cast<const char*>(s.data()), s.size() * 2);
    out.append(s.size() % 2 == 0 ? 0 : 2, '\0');
    return *this;
  }
  Writer& scalar(const Value* v) {
    if (!v) return word(0);
    switch (v->kind) {
      case json::Kind::Null: return word(1);
      case json::Kind::Bool: return word(2).string(v->boolean ? u"true" : u"false");
      case json::Kind::Number: return word(3).string(js::fromAscii(js::numberToString(v->number)));
      case json::Kind::String: return word(4).string(v->string);
      default: return word(5).string(jsString(*v));
    }
  }
  Writer& value(const Value& v) {
    switch (v.kind) {
      case json::Kind::Null: return word(0);
      case json::Kind::Bool: return word(v.boolean ? 2 : 1);
      case json::Kind::Number: return word(3).number(v.number);
      case json::Kind::String: return word(4).string(v.string);
      case json::Kind::Array:
        word(5).word(static_cast<std::uint32_t>(v.items.size()));
        for (const Value& item : v.items) value(item);
        return *this;
      case json::Kind::Object: return word(6);
    }
    return *this;
  }
  Writer& ids(const Value& array) {
    word(static_cast<std::uint32_t>(array.items.size()));
    for (const Value& id : array.items) scalar(&id);
    return *this;
  }

  Writer& message(const Value& m) {
    if (!m.isObject() && !m.isArray()) return word(kNotObject);
    std::uint32_t flags = 0;
    const Value* content = m.find(u"content");
    const Value* calls = m.find(u"tool_calls");
    const Value* callId = m.find(u"tool_call_id");
    const Value* metadata = m.find(u"metadata");
    const Value* original = nullptr;
    const Value* summaryId = nullptr;
    const Value* idList = nullptr;
    std::optional<std::uint32_t> badPart;
    if (content && content->isString()) {
      flags |= kContent;
    } else if (content && content->isArray()) {
      flags |= kContentArray | kContentParts;
      for (std::size_t j = 0; j < content->items.size() && !badPart; ++j) {
        const Value& part = content->items[j];
        const Value* type = part.isObject() ? part.find(u"type") : nullptr;
        if (!type || !type->isString()) badPart = static_cast<std::uint32_t>(j);
      }
      if (badPart) flags |= kBadPart;
    } else if (content && !content->isNull()) {
      flags |= kContentInvalid;
    }
    if (calls && calls->isArray()) flags |= kToolCalls;
    if (callId && !callId->isNull()) flags |= kToolCallId;
    if (metadata && metadata->truthy()) {
      flags |= kMetadataTruthy;
      if (metadata->isObject()) {
        flags |= kMetadataObject;
        original = metadata->find(u"_cce_original");
        if (original && original->truthy()) {
          flags |= kOriginalTruthy;
          summaryId = original->find(u"summary_id");
          idList = original->find(u"ids");
          if (summaryId && summaryId->isString()) flags |= kSummaryId;
          if (idList && idList->isArray()) flags |= kIds;
        }
      }
    }
    word(flags).scalar(m.find(u"id")).scalar(m.find(u"role"));
    if (badPart) word(*badPart);
    if (flags & kContent) string(content->string);
    if (flags & kToolCalls) word(static_cast<std::uint32_t>(calls->items.size()));
    if (flags & kSummaryId) string(summaryId->string);
    if (flags & kIds) ids(*idList);
    if (flags & kContentParts) parts(*content);
    return *this;
  }

  // js/src/engine.ts encodeParts: 0 text part + text, 1 image, 2 other + JSON.stringify(part).
  Writer& parts(const Value& array) {
    word(static_cast<std::uint32_t>(array.items.size()));
    for (const Value& part : array.items) {
      const Value* type = part.isObject() ? part.find(u"type") : nullptr;
      const Value* text = type && type->isString() && type->string == u"text"
                              ? part.find(u"text") : nullptr;
      if (text && text->isString()) {
        word(0).string(text->string);
      } else if (type && type->isString() &&
                 (type->string == u"image_url" || type->string == u"image" ||
                  type->string == u"input_image")) {
        word(1);
      } else {
        word(2).string(js::fromUtf8(js::toJson(part)));
      }
    }
    return *this;
  }

  Writer& compressRequest(const Value* messages, const Value* options) {
    word(utf16 ? kCompressBytesUtf16Magic : kCompressBytesMagic);
    if (!messages || !messages->isArray()) {
      word(kNotAnArray);
    } else {
      word(static_cast<std::uint32_t>(messages->items.size()));
      for (const Value& m : messages->items) message(m);
    }
    const std::size_t count = options && options->isObject() ? options->members.size() : 0;
    word(static_cast<std::uint32_t>(count));
    for (std::size_t i = 0; i < count; ++i) {
      string(options->members[i].key).value(options->members[i].value);
    }
    if (sendToolCalls && messages && messages->isArray() && billsToolCalls(options)) {
      toolCalls(*messages);
    }
    return *this;
  }

  // js/src/engine.ts sends tool-call texts only when the engine's count is the billing estimate
  // (the default mode's script estimate with no tokenCounter).
  static bool billsToolCalls(const Value* options) {
    if (!options || !options->isObject()) return true;
    const Value* compat = options->find(u"compat");
    const Value* estimate = options->find(u"tokenEstimate");
    const Value* counter = options->find(u"tokenCounter");
    return !(compat && compat->isString() && compat->string == u"cce-1.0") &&
           !(estimate && !estimate->isNull() && !(estimate->isString() && estimate->string == u"script")) &&
           !(counter && !counter->isNull());
  }

  // After the (here absent) lowered texts: word n, n x (word index, word calls, calls x (string
  // name, string arguments)), as js/src/token-counter.ts toolCallTexts reads a call.
  Writer& toolCalls(const Value& messages) {
    std::vector<std::size_t> with;
    for (std::size_t i = 0; i < messages.items.size(); ++i) {
      const Value& m = messages.items[i];
      const Value* calls = m.isObject() ? m.find(u"tool_calls") : nullptr;
      if (calls && calls->isArray() && !calls->items.empty()) with.push_back(i);
    }
    if (with.empty()) return *this;
    word(0).word(static_cast<std::uint32_t>(with.size()));
    for (std::size_t i : with) {
      const Value& calls = *messages.items[i].find(u"tool_calls");
      word(static_cast<std::uint32_t>(i)).word(static_cast<std::uint32_t>(calls.items.size()));
      for (const Value& call : calls.items) {
        const Value* fn = call.isObject() ? call.find(u"function") : nullptr;
        if (fn && !fn->isObject()) fn = nullptr;
        const Value* name = fn ? fn->find(u"name") : nullptr;
        const Value* arguments = fn ? fn->find(u"arguments") : nullptr;
        string(name && name->isString() ? name->string : U16());
        string(arguments && arguments->isString() ? arguments->string : U16());
      }
    }
    return *this;
  }

  // Only what uncompress reads: a non-empty `metadata._cce_original.ids`.
  Writer& original(const Value& m, std::uint32_t nullFlag) {
    if (!m.isObject() && !m.isArray()) return word(m.isNull() ? nullFlag : 0);
    const Value* metadata = m.find(u"metadata");
    const Value* o = metadata && metadata->isObject() ? metadata->find(u"_cce_original") : nullptr;
    const Value* list = o && o->isObject() ? o->find(u"ids") : nullptr;
    if (!list || !list->isArray() || list->items.empty()) return word(0);
    return word(kIds).ids(*list);
  }
};

Value parsed(const std::string& text) {
  Result<Value> v = parseJson(text);
  REQUIRE_MESSAGE(v.ok(), text);
  return v.value();
}

// A binary answer of compressBytes / uncompressBytes, decoded.
Value envelopeOf(const std::string& answer) {
  Result<Value> v = test::AnswerReader(answer).read();
  REQUIRE_MESSAGE(v.ok(), (v.ok() ? "" : v.error().message));
  return v.value();
}

std::string messageOf(const Value& e) {
  const Value* error = e.find(u"error");
  REQUIRE(error != nullptr);
  return js::toUtf8(error->find(u"message")->string);
}

// The error message of a binary answer (compressBytes) or of a JSON envelope (compressJson).
std::string errorMessage(const std::string& answer) { return messageOf(envelopeOf(answer)); }
std::string jsonErrorMessage(const std::string& envelope) { return messageOf(parsed(envelope)); }

}  // namespace

TEST_SUITE("request_bytes") {
  TEST_CASE("decodes flags, scalars, WTF-8 content and options into views") {
    Value messages = parsed(
        R"([{"id":7,"role":"user","content":"caf\u00e9 \ud800 \ud83d\ude00","tool_calls":[1,2],)"
        R"("tool_call_id":"c","metadata":{"_cce_original":{"summary_id":"s","ids":["a",1,null]}}},)"
        R"({"id":"b","role":null,"metadata":[1]}])");
    Value options = parsed(R"({"recencyWindow":0,"preserve":["tool"],"compat":"cce-1.0"})");
    Writer w;
    w.compressRequest(&messages, &options);
    Result<BytesCompressRequest> r = readCompressBytes(w.out);
    REQUIRE(r.ok());
    REQUIRE(r->views.size() == 2);
    const Message& m = r->views[0];
    CHECK(m.id.kind == Scalar::Kind::Number);
    CHECK(m.idKey == u"7");
    CHECK(m.role.isString());
    CHECK(m.contentIsString);
    CHECK(m.content == u"caf\u00e9 \xD800 \U0001F600");
    CHECK(m.toolCallsLength == 2.0);
    CHECK(m.hasToolCalls);
    CHECK(m.hasToolCallId);
    CHECK((m.hasMetadata && m.metadataIsObject && m.hasCceOriginal));
    CHECK(m.cceSummaryId == std::optional<U16>(u"s"));
    REQUIRE(m.cceIds.size() == 3);
    CHECK(m.cceIds[1].kind == Scalar::Kind::Number);
    CHECK(m.cceIds[2].kind == Scalar::Kind::Null);
    CHECK(m.cceIds[2].text == u"null");  // as toScalar gives it: String(null)
    const Message& b = r->views[1];
    CHECK(b.role.kind == Scalar::Kind::Null);
    CHECK(!b.contentIsString);
    CHECK((b.hasMetadata && !b.metadataIsObject && !b.hasCceOriginal));
    CompressOptions parsedOptions;
    REQUIRE(parseCompressOptions(r->options, parsedOptions).ok());
    CHECK(parsedOptions.recencyWindow == 0);
    CHECK(parsedOptions.preserve == std::vector<U16>{u"tool"});
    CHECK(parsedOptions.compat == Compat::Cce10);
  }

  TEST_CASE("reports the JSON path's validation errors, first offending message first") {
    struct Case {
      const char* name;
      const char* messages;
      const char* options;
      const char* expected;
    };
    const Case cases[] = {
        {"not an array", R"({"a":1})", "{}", "compress(): messages must be an array"},
        {"not an object", R"([{"id":"a"},3,{"role":"x"}])", "{}",
         "compress(): messages[1] must be an object"},
        {"missing id", R"([{"id":"a"},{"role":"x"},5])", "{}",
         "compress(): messages[1] is missing required field \"id\""},
        {"null id", R"([{"id":null}])", "{}",
         "compress(): messages[0] is missing required field \"id\""},
        {"array element", R"([[1]])", "{}",
         "compress(): messages[0] is missing required field \"id\""},
        {"messages before options", R"([7])", R"({"recencyWindow":"x"})",
         "compress(): messages[0] must be an object"},
        {"bad option", R"([])", R"({"recencyWindow":"x"})",
         "options.recencyWindow must be a finite number"},
        {"bad preserve", R"([])", R"({"preserve":["a",1]})",
         "options.preserve must be an array of role names"},
        {"bad compat", R"([])", R"({"compat":{}})", "options.compat must be \"cce-1.0\""},
        {"nested array in preserve", R"([])", R"({"preserve":["a",["b",[1]]]})",
         "options.preserve must be an array of role names"},
        {"object in preserve", R"([])", R"({"preserve":[{"role":"a"}]})",
         "options.preserve must be an array of role names"},
        {"bad maxInputBytes", R"([])", R"({"maxInputBytes":"1"})",
         "options.maxInputBytes must be a non-negative number (0: no limit)"},
        {"negative maxInputBytes", R"([])", R"({"maxInputBytes":-1})",
         "options.maxInputBytes must be a non-negative number (0: no limit)"},
    };
    for (const Case& c : cases) {
      CAPTURE(c.name);
      Value messages = parsed(c.messages);
      Value options = parsed(c.options);
      Writer w;
      w.compressRequest(&messages, &options);
      std::string viaBytes = errorMessage(compressBytes(w.out, ""));
      CHECK(viaBytes == c.expected);
      std::string json = std::string(R"({"messages":)") + c.messages + R"(,"options":)" +
                         c.options + "}";
      CHECK(jsonErrorMessage(compressJson(json)) == viaBytes);
    }
  }

  TEST_CASE("reads an option given twice as its last value, as a JavaScript object holds it") {
    Value messages = parsed(R"([{"id":"a","content":"hello"}])");
    Value options = Value::object();
    options.members.push_back({u"recencyWindow", Value::fromString(u"x")});
    options.members.push_back({u"recencyWindow", Value::fromNumber(0)});
    Writer w;
    w.compressRequest(&messages, &options);
    Result<BytesCompressRequest> r = readCompressBytes(w.out);
    REQUIRE(r.ok());
    CompressOptions parsedOptions;
    REQUIRE(parseCompressOptions(r->options, parsedOptions).ok());
    CHECK(parsedOptions.recencyWindow == 0);
  }

  TEST_CASE("records maxInputBytes for the size check: a finite number as given, else NaN") {
    for (const auto& [text, expected] : std::vector<std::pair<const char*, double>>{
             {R"({"maxInputBytes":100})", 100}, {R"({"maxInputBytes":"100"})", -1}}) {
      CAPTURE(text);
      Value options = parsed(text);
      CompressOptions parsedOptions;
      REQUIRE(parseCompressOptions(&options, parsedOptions).ok());
      REQUIRE(parsedOptions.maxInputBytes.has_value());
      if (expected < 0) {
        CHECK(std::isnan(*parsedOptions.maxInputBytes));
      } else {
        CHECK(*parsedOptions.maxInputBytes == expected);
      }
    }
    Value none = parsed(R"({"maxInputBytes":null})");
    CompressOptions parsedOptions;
    REQUIRE(parseCompressOptions(&none, parsedOptions).ok());
    CHECK(!parsedOptions.maxInputBytes.has_value());
  }

  TEST_CASE("answers a malformed buffer with an error envelope, never reading past its end") {
    Value messages = parsed(R"([{"id":"a","content":"hello there"}])");
    Writer w;
    w.compressRequest(&messages, nullptr);
    const std::string full = w.out;
    REQUIRE(envelopeOf(compressBytes(full, "")).find(u"ok")->boolean);
    // Every proper prefix is malformed (the last word is the option count).
    for (std::size_t n = 0; n < full.size(); ++n) {
      CAPTURE(n);
      std::string prefix = full.substr(0, n);  // its own allocation: ASan sees any over-read
      CHECK(errorMessage(compressBytes(prefix, "")).rfind("malformed bytes request", 0) == 0);
    }
    // After the options may come the host's lowered texts (word n, n x (word index, string)).
    CHECK(errorMessage(compressBytes(full + "xxxx", "")) ==
          "malformed bytes request (truncated lowered texts)");
    Writer lowered;
    lowered.word(1).word(1).string(u"hello there");  // message 1 of a one-message request
    CHECK(errorMessage(compressBytes(full + lowered.out, "")) ==
          "malformed bytes request (lowered text of no message)");
    Writer empty;
    empty.word(0);
    REQUIRE(envelopeOf(compressBytes(full + empty.out, "")).find(u"ok")->boolean);
    // Then the tool-call texts (word n, n x (word index, word calls, calls x 2 strings)).
    CHECK(errorMessage(compressBytes(full + empty.out + "xxxx", "")) ==
          "malformed bytes request (truncated tool calls)");
    Writer calls;
    calls.word(1).word(0).word(1).string(u"f");  // no arguments string
    CHECK(errorMessage(compressBytes(full + empty.out + calls.out, "")) ==
          "malformed bytes request (truncated tool calls)");
    Writer stray;
    stray.word(1).word(1).word(0);  // message 1 of a one-message request
    CHECK(errorMessage(compressBytes(full + empty.out + stray.out, "")) ==
          "malformed bytes request (tool calls of no message)");
    REQUIRE(envelopeOf(compressBytes(full + empty.out + empty.out, "")).find(u"ok")->boolean);
    CHECK(errorMessage(compressBytes(full + empty.out + empty.out + "xxxx", "")) ==
          "malformed bytes request (trailing bytes)");
    CHECK(errorMessage(compressBytes(full, "\x01")) == "malformed bytes request (truncated host)");
    CHECK(errorMessage(uncompressBytes(full, "")) ==
          "malformed bytes request (not an uncompress request)");
  }

  TEST_CASE("asks the host for summaries and counts, and takes its answers") {
    const std::string prose =
        "The deployment pipeline retries each failed upload after a short pause and records "
        "every attempt in the audit log, so operators can see what happened and when. ";
    std::string text;
    for (int i = 0; i < 4; ++i) text += prose;
    Value messages = Value::array();
    for (const char* id : {"a", "b"}) {
      Value m = Value::object();
      m.set(u"id", Value::fromString(js::fromAscii(id)));
      m.set(u"role", Value::fromString(*id == 'a' ? u"user" : u"assistant"));  // two groups
      m.set(u"content", Value::fromString(js::fromUtf8(text + id)));
      messages.items.push_back(std::move(m));
    }
    Value options = parsed(R"({"recencyWindow":0})");
    Writer request;
    request.compressRequest(&messages, &options);

    Writer host;
    host.word(1).word(0);  // a summarizer, no answers yet
    Value first = envelopeOf(compressBytes(request.out, host.out));
    const Value* pending = first.find(u"pending");
    REQUIRE(pending != nullptr);
    REQUIRE(pending->find(u"summaries")->items.size() == 2);

    Writer answered;
    answered.word(1).word(2).word(1).string(u"short one").word(0);  // second one failed
    Value second = envelopeOf(compressBytes(request.out, answered.out));
    const Value* plan = second.find(u"plan");
    REQUIRE(plan != nullptr);
    const std::vector<Value>& entries = plan->find(u"messages")->items;
    REQUIRE(entries.size() == 2);
    CHECK(entries[0].find(u"c")->string.find(u"short one") != U16::npos);
    CHECK(entries[1].find(u"c")->string.find(u"short one") == U16::npos);
    CHECK(entries[0].find(u"o")->find(u"src")->items[0].number == 0);

    Writer counter;
    counter.word(2).word(1).number(1).word(0);  // one input count for two messages
    CHECK(errorMessage(compressBytes(request.out, counter.out)) ==
          "host.inputCounts must give one count per message");
  }

  TEST_CASE("uncompress asks for store entries lazily and reports missing ids by kind") {
    Value messages = parsed(
        R"([{"id":"s","metadata":{"_cce_original":{"ids":["x",2,true]}}},{"id":"p"},null])");
    Writer request;
    request.word(kUncompressBytesMagic).word(3);
    for (const Value& m : messages.items) request.original(m, 1);
    request.word(1).word(1);
    CHECK(errorMessage(uncompressBytes(request.out, "")) ==
          "uncompress(): messages[2] must be an object");

    Writer ok;
    ok.word(kUncompressBytesMagic).word(2);
    for (std::size_t i = 0; i < 2; ++i) ok.original(messages.items[i], 1);
    Writer badStore = ok;
    ok.word(1).word(1);
    badStore.word(0).word(0);
    CHECK(errorMessage(uncompressBytes(badStore.out, "")) ==
          "uncompress(): store must be a VerbatimMap or lookup function");

    Value first = envelopeOf(uncompressBytes(ok.out, ""));
    CHECK(js::toJson(*first.find(u"pending")) == R"({"ids":["x","2","true"]})");
    Writer store;
    store.word(3).string(u"x").word(0).string(u"2").word(1).string(u"true").word(1);
    Value second = envelopeOf(uncompressBytes(ok.out, store.out));
    CHECK(js::toJson(*second.find(u"plan")) ==
          R"({"messages":[{"k":"x"},1],"messages_expanded":1,"messages_passthrough":1,)"
          R"("missing_ids":[[3,"2"],[2,"true"]]})");

    // A key given twice answers with its last entry, as a repeated key of a JS object would:
    // "x" is falsy first and found last, so it expands as above (the first entry would leave
    // it missing).
    Writer repeated;
    repeated.word(4).string(u"x").word(1).string(u"2").word(1).string(u"true").word(1);
    repeated.string(u"x").word(0);
    Value third = envelopeOf(uncompressBytes(ok.out, repeated.out));
    CHECK(js::toJson(*third.find(u"plan")) == js::toJson(*second.find(u"plan")));
    Writer firstOnly;
    firstOnly.word(3).string(u"x").word(1).string(u"2").word(1).string(u"true").word(1);
    Value fourth = envelopeOf(uncompressBytes(ok.out, firstOnly.out));
    CHECK(js::toJson(*fourth.find(u"plan")) != js::toJson(*second.find(u"plan")));
  }

  TEST_CASE("a validate-only host gets the request's first error, or valid without a plan") {
    Value good = parsed(R"([{"id":"a","role":"user","content":"hello"},)"
                        R"({"id":"b","role":"assistant","content":[{"type":"text","text":"x"}]}])");
    Value bad = parsed(R"([{"id":"a","role":"user","content":"hello"},)"
                       R"({"id":"b","role":"assistant","content":[{"type":"text"},{"t":1}]}])");
    Value compat = parsed(R"({"compat":"cce-1.0"})");
    Writer validateOnly;
    validateOnly.word(4);
    Writer goodRequest, badRequest, badCompat;
    goodRequest.compressRequest(&good, nullptr);
    badRequest.compressRequest(&bad, nullptr);
    badCompat.compressRequest(&bad, &compat);
    CHECK(js::toJson(envelopeOf(compressBytes(goodRequest.out, validateOnly.out))) ==
          R"({"ok":true,"valid":true})");
    CHECK(errorMessage(compressBytes(badRequest.out, validateOnly.out)) ==
          "compress(): messages[1].content[1] must be a content part (an object with a string "
          "\"type\")");
    // cce-1.0 accepts what the reference accepts.
    CHECK(js::toJson(envelopeOf(compressBytes(badCompat.out, validateOnly.out))) ==
          R"({"ok":true,"valid":true})");
  }

  TEST_CASE("a UTF-16 request's contents may view its bytes, and read the same as copies") {
    Value messages = Value::array();
    const std::u16string texts[] = {u"short", u"caf\u00e9 " + std::u16string(300, u'x'), u""};
    for (const std::u16string& text : texts) {
      Value m = Value::object();
      m.set(u"id", Value::fromString(u"m" + text.substr(0, 1)));
      m.set(u"role", Value::fromString(u"user"));
      m.set(u"content", Value::fromString(text));
      messages.items.push_back(m);
    }
    Writer utf16;
    utf16.utf16 = true;
    utf16.compressRequest(&messages, nullptr);
    Result<BytesCompressRequest> copied = readCompressBytes(utf16.out);
    Result<BytesCompressRequest> viewed = readCompressBytes(utf16.out, false, true);
    REQUIRE(copied.ok());
    REQUIRE(viewed.ok());
    const char* begin = utf16.out.data();
    const char* end = begin + utf16.out.size();
    auto inRequest = [&](const Content& c) {
      const char* p = reinterpret_cast<const char*>(c.data());
      return p >= begin && p < end;
    };
    for (std::size_t i = 0; i < 3; ++i) {
      CHECK(viewed->views[i].content == texts[i]);
      CHECK(copied->views[i].content == texts[i]);
      CHECK_FALSE(inRequest(copied->views[i].content));
    }
    CHECK(inRequest(viewed->views[0].content));
    CHECK(inRequest(viewed->views[1].content));
    CHECK(viewed->utf8Size == copied->utf8Size);
    // Copies and moves keep the view; an owned short text (stored inside the string itself)
    // follows its string through moves, as the vector's growth makes them.
    std::vector<Message> grown;
    for (int k = 0; k < 40; ++k) {
      grown.push_back(viewed->views[k % 3]);
      Message own;
      own.content = u"own " + std::u16string(1, static_cast<char16_t>(u'a' + k % 26));
      grown.push_back(std::move(own));
    }
    for (int k = 0; k < 40; ++k) {
      const Message& borrowed = grown[2 * static_cast<std::size_t>(k)];
      CHECK(borrowed.content == texts[k % 3]);
      CHECK(borrowed.content.data() == viewed->views[k % 3].content.data());
      CHECK(grown[2 * static_cast<std::size_t>(k) + 1].content ==
            u"own " + std::u16string(1, static_cast<char16_t>(u'a' + k % 26)));
    }
    // Assigning a text makes it owned again.
    Message m = viewed->views[1];
    m.content = u"replaced";
    CHECK(m.content == u"replaced");
    CHECK_FALSE(inRequest(m.content));
  }

  TEST_CASE("a UTF-16 request reads like its UTF-8 twin, and maxInputBytes weighs it as UTF-8") {
    // Lone surrogates, a pair, 2- and 3-byte units: what WTF-8 and UTF-16 weigh differently.
    const std::u16string text = u"caf\u00e9 \u4e2d\u6587 \xD83D\xDE00 lone " +
                                std::u16string(1, char16_t(0xD800)) + u" low " +
                                std::u16string(1, char16_t(0xDC00)) + u" end";
    Value messages = Value::array();
    Value m = Value::object();
    m.set(u"id", Value::fromString(u"\u00e9t\u00e9"));
    m.set(u"role", Value::fromString(u"user"));
    m.set(u"content", Value::fromString(text));
    messages.items.push_back(m);
    Writer utf8, utf16;
    utf16.utf16 = true;
    utf8.compressRequest(&messages, nullptr);
    utf16.compressRequest(&messages, nullptr);
    Result<BytesCompressRequest> a = readCompressBytes(utf8.out);
    Result<BytesCompressRequest> b = readCompressBytes(utf16.out, true);
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    CHECK(b->views[0].content == text);  // units as they are: the lone surrogates too
    CHECK(b->views[0].id.text == a->views[0].id.text);
    CHECK(b->utf8SizeIsExact);
    CHECK(b->utf8Size == utf8.out.size());
    // The same request at an odd address (a host may hand any buffer over): its units cannot be
    // read in place there, and are copied out instead, with the same result.
    std::string shifted = " " + utf16.out;
    Result<BytesCompressRequest> odd =
        readCompressBytes(std::string_view(shifted).substr(1), true);
    REQUIRE(odd.ok());
    CHECK(odd->views[0].content == text);
    CHECK(odd->views[0].id.text == b->views[0].id.text);
    Result<BytesCompressRequest> bound = readCompressBytes(utf16.out);
    REQUIRE(bound.ok());
    CHECK_FALSE(bound->utf8SizeIsExact);
    CHECK(bound->utf8Size >= utf8.out.size());

    // Around the UTF-8 size, both forms get the same verdict and the same message, although the
    // UTF-16 request is larger and its cheap bound is over every one of these limits.
    for (long long delta : {-1LL, 0LL, 1LL}) {
      const double limit = static_cast<double>(utf8.out.size()) + static_cast<double>(delta);
      Value options = Value::object();
      options.set(u"maxInputBytes", Value::fromNumber(limit));
      Writer u8, u16;
      u16.utf16 = true;
      u8.compressRequest(&messages, &options);
      u16.compressRequest(&messages, &options);
      CAPTURE(delta);
      REQUIRE(u16.out.size() > u8.out.size());
      const std::string expected = compressBytes(u8.out, "");
      CHECK(compressBytes(u16.out, "") == expected);
      const bool over = envelopeOf(expected).find(u"error") != nullptr;
      CHECK(over == (static_cast<double>(u8.out.size()) > limit));
    }
  }

  TEST_CASE("reads the host's lowered texts into their messages, outside what maxInputBytes weighs") {
    Value messages = parsed(R"([{"id":"a","content":"\u039f\u0394\u039f\u03a3 One"},
                                {"id":"b","content":"two"},{"id":"c","content":"Three"}])");
    for (bool utf16 : {false, true}) {
      CAPTURE(utf16);
      Writer plain, helped;
      plain.utf16 = helped.utf16 = utf16;
      plain.compressRequest(&messages, nullptr);
      helped.compressRequest(&messages, nullptr);
      helped.word(2).word(0).string(u"\u03bf\u03b4\u03bf\u03c2 one").word(2).string(u"three");
      Result<BytesCompressRequest> a = readCompressBytes(plain.out, true);
      Result<BytesCompressRequest> b = readCompressBytes(helped.out, true);
      REQUIRE(a.ok());
      REQUIRE(b.ok());
      CHECK_FALSE(a->views[0].lowered);
      REQUIRE(b->views[0].lowered);
      CHECK(*b->views[0].lowered == u"\u03bf\u03b4\u03bf\u03c2 one");
      CHECK_FALSE(b->views[1].lowered);
      REQUIRE(b->views[2].lowered);
      CHECK(*b->views[2].lowered == u"three");
      CHECK(b->views[0].content == a->views[0].content);
      // The same weight, so the same maxInputBytes verdict with and without the host's help.
      CHECK(b->utf8Size == a->utf8Size);
      CHECK(b->utf8SizeIsExact == a->utf8SizeIsExact);
    }
  }

  TEST_CASE("reads the tool calls' names and arguments as the JSON request does") {
    Value messages = parsed(R"([{"id":"a","role":"assistant","content":null,"tool_calls":[
        {"id":"c1","function":{"name":"grep","arguments":"{\"q\":\"\u00e9t\u00e9\"}"}},
        {"id":"c2","function":{"name":7,"arguments":{"x":[1,2]}}}, 5]},
      {"id":"u","role":"user","content":"hi","tool_calls":[]}])");
    Result<ParsedMessages> parsedJson = parseMessages(&messages, "compress");
    REQUIRE(parsedJson.ok());
    const ParsedMessages& json = parsedJson.value();
    // Names and arguments that are not strings are "", and 5 costs its 3.
    const double calls = toolCallTokens(u"grep", u"{\"q\":\"\u00e9t\u00e9\"}") +
                         toolCallTokens(u"", u"") + toolCallTokens(u"", u"");
    CHECK(json.views[0].toolCallTokens == calls);
    Value compat = parsed(R"({"compat":"cce-1.0"})");
    for (bool utf16 : {false, true}) {
      CAPTURE(utf16);
      Writer w;
      w.utf16 = utf16;
      w.compressRequest(&messages, nullptr);
      Result<BytesCompressRequest> r = readCompressBytes(w.out, true);
      REQUIRE(r.ok());
      CHECK(r->views[0].toolCallTokens == calls);
      CHECK(r->views[1].toolCallTokens == 0);
      // Only the billing estimate reads them, so the other modes are sent none.
      Writer reference;
      reference.utf16 = utf16;
      reference.compressRequest(&messages, &compat);
      Result<BytesCompressRequest> c = readCompressBytes(reference.out, true);
      REQUIRE(c.ok());
      CHECK(c->views[0].toolCallTokens == 0);
      // Like the lowered texts, they are the host's help: maxInputBytes does not weigh them.
      Writer bare;
      bare.utf16 = utf16;
      bare.sendToolCalls = false;
      bare.compressRequest(&messages, nullptr);
      Result<BytesCompressRequest> b = readCompressBytes(bare.out, true);
      REQUIRE(b.ok());
      CHECK(b->views[0].toolCallTokens == 0);
      CHECK(bare.out.size() < w.out.size());
      CHECK(r->utf8Size == b->utf8Size);
      CHECK(r->utf8SizeIsExact == b->utf8SizeIsExact);
    }
  }

  TEST_CASE("answers every corpus case exactly as the JSON request does") {
    const std::string dir = test::publicCorpusDir() + "/cases";
    REQUIRE(cli::isDirectory(dir));
    std::vector<std::string> files;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      files.push_back(entry.path().string());
    }
    std::sort(files.begin(), files.end());
    int compared = 0;
    for (const std::string& file : files) {
      std::string text;
      REQUIRE(cli::readFile(file, text));
      Value c = parsed(text);
      const Value* mode = c.find(u"mode");
      const Value* input = c.find(u"input");
      if (!mode || mode->string != u"sync" || !input) continue;
      const Value* messages = input->find(u"messages");
      const Value* options = input->find(u"options");
      if (options && options->find(u"tokenCounter")) continue;  // needs a JS counter
      CAPTURE(file);

      Value jsonRequest = Value::object();
      if (messages) jsonRequest.set(u"messages", *messages);
      if (options) jsonRequest.set(u"options", *options);
      jsonRequest.set(u"plan", Value::fromBool(true));
      Writer bytes;
      bytes.compressRequest(messages, options);
      const std::string viaJson = compressJson(js::toJson(jsonRequest));
      // The binary answer decodes to what the JSON one says, down to the text of every number.
      const std::string viaBytes = compressBytes(bytes.out, "");
      CHECK(js::toJson(envelopeOf(viaBytes)) == viaJson);
      // A request with UTF-16 strings (the Node entry's) gets the very same answer.
      Writer utf16;
      utf16.utf16 = true;
      utf16.compressRequest(messages, options);
      CHECK(compressBytes(utf16.out, "") == viaBytes);
      ++compared;

      // uncompress of the expected output from its verbatim store, looked up lazily.
      const Value* expected = c.find(u"expected");
      const Value* output = expected ? expected->find(u"compress") : nullptr;
      if (!output || !output->find(u"messages") || !output->find(u"verbatim")) continue;
      const Value& outMessages = *output->find(u"messages");
      const Value& verbatim = *output->find(u"verbatim");
      Value uncompressRequest = Value::object();
      uncompressRequest.set(u"messages", outMessages);
      uncompressRequest.set(u"store", verbatim);
      uncompressRequest.set(u"plan", Value::fromBool(true));
      Writer u;
      u.word(kUncompressBytesMagic).word(static_cast<std::uint32_t>(outMessages.items.size()));
      for (const Value& m : outMessages.items) u.original(m, 1);
      u.word(1).word(0);
      std::vector<std::pair<U16, const Value*>> answered;  // key -> the stored value, if any
      std::string answer = uncompressBytes(u.out, "");
      for (int round = 0; round < 20; ++round) {
        Value envelope = envelopeOf(answer);
        const Value* pending = envelope.find(u"pending");
        if (!pending) break;
        for (const Value& id : pending->find(u"ids")->items) {
          answered.emplace_back(id.string, verbatim.find(id.string));
        }
        Writer store;
        store.word(static_cast<std::uint32_t>(answered.size()));
        for (const auto& [key, found] : answered) {
          store.string(key);
          if (found && found->truthy()) {
            store.original(*found, 1);
          } else {
            store.word(1);  // missing
          }
        }
        answer = uncompressBytes(u.out, store.out);
      }
      Value viaJsonPlan = parsed(uncompressJson(js::toJson(uncompressRequest)));
      Value viaBytesPlan = envelopeOf(answer);
      CHECK(js::toJson(viaBytesPlan) == js::toJson(viaJsonPlan));
    }
    CHECK(compared > 400);
  }
}

TEST_SUITE("request") {
  TEST_CASE("the compression object: the reference's key order, optional counts only when set") {
    CompressionStats stats;
    stats.originalVersion = 2;
    stats.ratio = 1.5;
    stats.tokenRatio = 1.25;
    stats.messagesCompressed = 3;
    stats.messagesPreserved = 4;
    CHECK(js::toJson(compressionValue(stats)) ==
          R"({"original_version":2,"ratio":1.5,"token_ratio":1.25,"messages_compressed":3,)"
          R"("messages_preserved":4})");
    stats.messagesFuzzyDeduped = 1;
    stats.messagesOmitted = 5;
    const CompressionFields fields = compressionFields(stats);
    REQUIRE(fields.count == 7);
    CHECK(fields.fields[5].key == AnswerKey::messages_fuzzy_deduped);
    CHECK(fields.fields[6].key == AnswerKey::messages_omitted);
    CHECK(fields.fields[6].value == 5);
    stats.messagesDeduped = 2;
    stats.messagesTruncated = 6;
    CHECK(js::toJson(compressionValue(stats)) ==
          R"({"original_version":2,"ratio":1.5,"token_ratio":1.25,"messages_compressed":3,)"
          R"("messages_preserved":4,"messages_deduped":2,"messages_fuzzy_deduped":1,)"
          R"("messages_truncated":6,"messages_omitted":5})");
  }
}

}  // namespace cce
