// SPDX-License-Identifier: MIT
// Bad input in the default mode: typed errors with a JSON pointer, and the next call still works.
#include "validation.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "cce.h"
#include "json_io.h"
#include "jscompat/json_writer.h"
#include "jscompat/string.h"
#include "request.h"

namespace {

using cce::ErrorCode;
using cce::json::Value;

const std::string kProse =
    "The service retries the upload after a short pause and logs every failed attempt. ";

std::string repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

// What compressJson answers, as a Result: its error envelope, or true for any successful answer.
cce::Result<bool> validate(const std::string& request) {
  cce::Result<Value> envelope = cce::parseJson(cce::compressJson(request));
  if (!envelope) return envelope.error();
  const Value* ok = envelope->find(u"ok");
  if (ok && ok->isBool() && ok->boolean) return true;
  const Value* error = envelope->find(u"error");
  auto text = [error](const char16_t* key) {
    const Value* v = error ? error->find(key) : nullptr;
    return v && v->isString() ? cce::js::toUtf8(v->string) : std::string();
  };
  cce::Error e;
  e.code = ErrorCode::Internal;
  for (ErrorCode code : cce::allErrorCodes()) {
    if (text(u"code") == cce::errorCodeName(code)) e.code = code;
  }
  e.message = text(u"message");
  e.path = text(u"path");
  return e;
}

std::string request(const std::string& messages, const std::string& options = "{}") {
  return "{\"messages\":" + messages + ",\"options\":" + options + "}";
}

const std::string kValidMessages =
    "[{\"id\":\"s\",\"role\":\"system\",\"content\":\"Be brief.\"},"
    "{\"id\":\"u\",\"role\":\"user\",\"content\":\"" + repeat(kProse, 3) + "\"},"
    "{\"id\":\"a\",\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"c1\"}]},"
    "{\"id\":\"t\",\"role\":\"tool\",\"tool_call_id\":\"c1\",\"content\":[{\"type\":\"text\","
    "\"text\":\"done\"}]}]";

struct Case {
  const char* name;
  std::string request;
  ErrorCode code;
  std::string message;
  std::string path;
  bool messageIsPrefix = false;  // the rest is a byte offset chosen by the parser
};

// One row per error class. Messages mirroring a reference TypeError use its text (spec §1.3).
std::vector<Case> errorCases() {
  const std::string m = "[{\"id\":\"a\",\"role\":\"user\",\"content\":\"hi\"}]";
  return {
      {"messages not an array", request("{\"0\":{}}"), ErrorCode::InvalidInput,
       "compress(): messages must be an array", "/messages"},
      {"messages missing", "{\"options\":{}}", ErrorCode::InvalidInput,
       "compress(): messages must be an array", "/messages"},
      {"an element that is not an object",
       request("[{\"id\":\"a\",\"content\":\"x\"},\"hello\"]"), ErrorCode::InvalidInput,
       "compress(): messages[1] must be an object", "/messages/1"},
      {"an element that is null", request("[null]"), ErrorCode::InvalidInput,
       "compress(): messages[0] must be an object", "/messages/0"},
      {"an element that is an array (passes typeof, then lacks an id)", request("[[1]]"),
       ErrorCode::InvalidInput, "compress(): messages[0] is missing required field \"id\"",
       "/messages/0/id"},
      {"a missing id", request("[{\"role\":\"user\",\"content\":\"x\"}]"),
       ErrorCode::InvalidInput, "compress(): messages[0] is missing required field \"id\"",
       "/messages/0/id"},
      {"a null id", request("[{\"id\":\"a\",\"content\":\"x\"},{\"id\":null,\"content\":\"y\"}]"),
       ErrorCode::InvalidInput, "compress(): messages[1] is missing required field \"id\"",
       "/messages/1/id"},
      {"the reference's checks come before the safe mode's",
       request("[{\"id\":1,\"content\":7},{\"content\":\"y\"}]"), ErrorCode::InvalidInput,
       "compress(): messages[1] is missing required field \"id\"", "/messages/1/id"},
      {"a numeric id", request("[{\"id\":\"a\",\"content\":\"x\"},{\"id\":2,\"content\":\"y\"}]"),
       ErrorCode::InvalidInput, "compress(): messages[1].id must be a string", "/messages/1/id"},
      {"a boolean id", request("[{\"id\":true,\"content\":\"x\"}]"), ErrorCode::InvalidInput,
       "compress(): messages[0].id must be a string", "/messages/0/id"},
      {"an object id", request("[{\"id\":{\"k\":1},\"content\":\"x\"}]"), ErrorCode::InvalidInput,
       "compress(): messages[0].id must be a string", "/messages/0/id"},
      {"a duplicate id",
       request("[{\"id\":\"a\",\"content\":\"x\"},{\"id\":\"b\",\"content\":\"y\"},"
               "{\"id\":\"a\",\"content\":\"z\"}]"),
       ErrorCode::InvalidInput,
       "compress(): messages[2].id duplicates messages[0].id (ids must be unique: they key the "
       "verbatim store)",
       "/messages/2/id"},
      {"numeric content", request("[{\"id\":\"a\",\"content\":42}]"), ErrorCode::InvalidInput,
       "compress(): messages[0].content must be a string or an array of content parts",
       "/messages/0/content"},
      {"a bare object as content", request("[{\"id\":\"a\",\"content\":{\"text\":\"hi\"}}]"),
       ErrorCode::InvalidInput,
       "compress(): messages[0].content must be a string or an array of content parts",
       "/messages/0/content"},
      {"boolean content", request("[{\"id\":\"a\",\"content\":false}]"), ErrorCode::InvalidInput,
       "compress(): messages[0].content must be a string or an array of content parts",
       "/messages/0/content"},
      {"a content part that is a string",
       request("[{\"id\":\"a\",\"content\":[{\"type\":\"text\",\"text\":\"x\"},\"y\"]}]"),
       ErrorCode::InvalidInput,
       "compress(): messages[0].content[1] must be a content part (an object with a string "
       "\"type\")",
       "/messages/0/content/1"},
      {"a content part without a type", request("[{\"id\":\"a\",\"content\":[{\"text\":\"x\"}]}]"),
       ErrorCode::InvalidInput,
       "compress(): messages[0].content[0] must be a content part (an object with a string "
       "\"type\")",
       "/messages/0/content/0"},
      {"a content part with a numeric type",
       request("[{\"id\":\"a\",\"content\":[{\"type\":1}]}]"), ErrorCode::InvalidInput,
       "compress(): messages[0].content[0] must be a content part (an object with a string "
       "\"type\")",
       "/messages/0/content/0"},
      {"null content without tool_calls",
       request("[{\"id\":\"a\",\"role\":\"assistant\",\"content\":null}]"),
       ErrorCode::InvalidInput,
       "compress(): messages[0].content may be null or missing only on a message with tool_calls",
       "/messages/0/content"},
      {"null content with an empty tool_calls array",
       request("[{\"id\":\"a\",\"role\":\"assistant\",\"content\":null,\"tool_calls\":[]}]"),
       ErrorCode::InvalidInput,
       "compress(): messages[0].content may be null or missing only on a message with tool_calls",
       "/messages/0/content"},
      {"missing content without tool_calls", request("[{\"id\":\"a\",\"role\":\"user\"}]"),
       ErrorCode::InvalidInput,
       "compress(): messages[0].content may be null or missing only on a message with tool_calls",
       "/messages/0/content"},
      {"a negative recencyWindow", request(m, "{\"recencyWindow\":-1}"), ErrorCode::InvalidInput,
       "options.recencyWindow must not be negative", "/options/recencyWindow"},
      {"a negative tokenBudget", request(m, "{\"tokenBudget\":-0.5}"), ErrorCode::InvalidInput,
       "options.tokenBudget must not be negative", "/options/tokenBudget"},
      {"a negative minRecencyWindow", request(m, "{\"tokenBudget\":10,\"minRecencyWindow\":-2}"),
       ErrorCode::InvalidInput, "options.minRecencyWindow must not be negative",
       "/options/minRecencyWindow"},
      {"a fuzzyThreshold above 1", request(m, "{\"fuzzyThreshold\":1.01}"),
       ErrorCode::InvalidInput, "options.fuzzyThreshold must be between 0 and 1",
       "/options/fuzzyThreshold"},
      {"a negative fuzzyThreshold", request(m, "{\"fuzzyDedup\":true,\"fuzzyThreshold\":-0.1}"),
       ErrorCode::InvalidInput, "options.fuzzyThreshold must be between 0 and 1",
       "/options/fuzzyThreshold"},
      {"a non-numeric option", request(m, "{\"recencyWindow\":\"4\"}"), ErrorCode::InvalidInput,
       "options.recencyWindow must be a finite number", "/options/recencyWindow"},
      {"preserve that is not an array", request(m, "{\"preserve\":\"system\"}"),
       ErrorCode::InvalidInput, "options.preserve must be an array of role names",
       "/options/preserve"},
      {"preserve with a non-string entry", request(m, "{\"preserve\":[\"system\",3]}"),
       ErrorCode::InvalidInput, "options.preserve must be an array of role names",
       "/options/preserve/1"},
      {"a negative maxInputBytes", request(m, "{\"maxInputBytes\":-1}"), ErrorCode::InvalidInput,
       "options.maxInputBytes must be a non-negative number (0: no limit)",
       "/options/maxInputBytes"},
      // JSON cannot spell NaN or Infinity; a literal that overflows a double is the closest.
      {"an infinite number", request(m, "{\"tokenBudget\":1e999}"), ErrorCode::InvalidJson,
       "Invalid JSON: number out of range", "", true},
      {"a request over maxInputBytes", request(m, "{\"maxInputBytes\":80}"),
       ErrorCode::InputTooLarge,
       "the request is 85 bytes, over the limit of 80 (options.maxInputBytes; 0 disables it)", ""},
      // Requests are whole bytes: 80.5 allows what 80 allows, and the message says 80.
      {"a request over a fractional maxInputBytes", request(m, "{\"maxInputBytes\":80.5}"),
       ErrorCode::InputTooLarge,
       "the request is 87 bytes, over the limit of 80 (options.maxInputBytes; 0 disables it)", ""},
  };
}

bool sameMessage(const std::string& actual, const Case& c) {
  return c.messageIsPrefix ? actual.rfind(c.message, 0) == 0 : actual == c.message;
}

std::string nested(std::size_t depth) {
  std::string text =
      "{\"messages\":[{\"id\":\"a\",\"role\":\"user\",\"content\":\"hi\",\"metadata\":";
  text.reserve(text.size() + depth * 6 + 16);
  for (std::size_t i = 0; i < depth; ++i) text += "{\"k\":";
  text += "1";
  for (std::size_t i = 0; i < depth; ++i) text += "}";
  return text + "}]}";
}

// The envelope of compressJson, parsed.
Value envelopeOf(const std::string& text) {
  cce::Result<Value> parsed = cce::parseJson(text);
  REQUIRE(parsed.ok());
  return parsed.value();
}

std::string field(const Value& envelope, const char16_t* a, const char16_t* b) {
  const Value* outer = envelope.find(a);
  const Value* inner = outer ? outer->find(b) : nullptr;
  return inner && inner->isString() ? cce::js::toUtf8(inner->string) : std::string("<absent>");
}

const char16_t* const kOk = u"ok";

bool isOk(const Value& envelope) {
  const Value* ok = envelope.find(kOk);
  return ok && ok->isBool() && ok->boolean;
}

}  // namespace

TEST_SUITE("validation") {
  TEST_CASE("each class of bad input is a typed error with its message and JSON pointer") {
    for (const Case& c : errorCases()) {
      CAPTURE(c.name);
      CAPTURE(c.request);
      cce::Result<bool> result = validate(c.request);
      REQUIRE_FALSE(result.ok());
      CHECK(cce::errorCodeName(result.error().code) == std::string(cce::errorCodeName(c.code)));
      CHECK(sameMessage(result.error().message, c));
      CHECK(result.error().path == c.path);
      CHECK(validate(request(kValidMessages)).ok());  // nothing is left behind
    }
  }

  TEST_CASE("accepts what chat APIs accept") {
    struct Ok {
      const char* name;
      std::string request;
    };
    const Ok cases[] = {
        {"a typical conversation", request(kValidMessages)},
        {"no messages", request("[]")},
        {"missing content on a message with tool calls",
         request("[{\"id\":\"a\",\"role\":\"assistant\",\"tool_calls\":[{\"id\":\"c\"}]}]")},
        {"an empty array of content parts", request("[{\"id\":\"a\",\"content\":[]}]")},
        {"an empty id", request("[{\"id\":\"\",\"content\":\"x\"}]")},
        {"ids that differ only in case", request("[{\"id\":\"a\",\"content\":\"x\"},"
                                                 "{\"id\":\"A\",\"content\":\"x\"}]")},
        {"zero windows and budget", request("[]", "{\"recencyWindow\":0,\"tokenBudget\":0,"
                                                  "\"minRecencyWindow\":0}")},
        {"fuzzyThreshold at both ends", request("[]", "{\"fuzzyThreshold\":0}")},
        {"fuzzyThreshold 1", request("[]", "{\"fuzzyThreshold\":1}")},
        {"null options keep their defaults",
         request("[]", "{\"recencyWindow\":null,\"maxInputBytes\":null}")},
        {"maxInputBytes 0 disables the limit", request(kValidMessages, "{\"maxInputBytes\":0}")},
        {"a request exactly at maxInputBytes", request("[]", "{\"maxInputBytes\":46}")},
        {"cce-1.0 keeps the reference's acceptance",
         request("[{\"id\":1,\"content\":7},{\"id\":1,\"content\":{\"a\":1}},{\"id\":\"n\"}]",
                 "{\"compat\":\"cce-1.0\",\"recencyWindow\":-3,\"fuzzyThreshold\":2}")},
    };
    for (const Ok& c : cases) {
      CAPTURE(c.name);
      cce::Result<bool> result = validate(c.request);
      CHECK_MESSAGE(result.ok(), result.error().message);
    }
  }

  TEST_CASE("finds maxInputBytes in the request text without parsing it") {
    struct Scan {
      const char* name;
      std::string text;
      double expected;  // -1: not found
    };
    const Scan cases[] = {
        {"plain", "{\"messages\":[],\"options\":{\"maxInputBytes\":123}}", 123},
        {"after messages with look-alike strings",
         "{\"messages\":[{\"id\":\"a\",\"content\":\"\\\"options\\\":{\\\"maxInputBytes\\\":1}\","
         "\"options\":{\"maxInputBytes\":2}}],\"options\":{\"dedup\":true,\"maxInputBytes\":1e3}}",
         1000},
        {"escaped key", "{\"opti\\u006fns\":{\"max\\u0049nputBytes\":7}}", 7},
        {"backslashes before a quote", "{\"a\":\"x\\\\\",\"options\":{\"maxInputBytes\":5}}", 5},
        {"nested deeper is not the option", "{\"options\":{\"x\":{\"maxInputBytes\":5}}}", -1},
        {"inside an array is not the option", "{\"options\":[{\"maxInputBytes\":5}]}", -1},
        {"the last duplicate wins", "{\"options\":{\"maxInputBytes\":5,\"maxInputBytes\":6}}", 6},
        {"a later options replaces the whole value",
         "{\"options\":{\"maxInputBytes\":5},\"options\":{\"dedup\":false}}", -1},
        {"whitespace around the colon", "{ \"options\" : { \"maxInputBytes\" :\n 9 } }", 9},
        {"a string value", "{\"options\":{\"maxInputBytes\":\"9\"}}", -1},
        {"null", "{\"options\":{\"maxInputBytes\":null}}", -1},
        {"absent", "{\"messages\":[]}", -1},
        {"not an object", "[{\"options\":{\"maxInputBytes\":5}}]", -1},
        {"unterminated string", "{\"options\":{\"maxInputBytes\":5},\"x\":\"abc", 5},
        {"a key that only starts like it", "{\"options\":{\"maxInputBytesX\":5}}", -1},
    };
    for (const Scan& c : cases) {
      CAPTURE(c.name);
      std::optional<double> found = cce::scanMaxInputBytes(c.text);
      CHECK(found.value_or(-1) == c.expected);
    }
  }

  TEST_CASE("a request over the default limit of 64 MiB is rejected before parsing") {
    std::string text = "{\"messages\":[],\"pad\":\"";
    text.append(64u * 1024 * 1024 - text.size() - 1, 'x');
    text += "\"}";
    cce::Result<bool> result = cce::checkRequestSize(text);
    REQUIRE_FALSE(result.ok());
    CHECK(result.error().code == ErrorCode::InputTooLarge);
    CHECK(result.error().message ==
          "the request is 67108865 bytes, over the limit of 67108864 (options.maxInputBytes; 0 "
          "disables it)");
    CHECK(result.error().path == "");
    text.pop_back();
    text.back() = '}';
    CHECK(cce::checkRequestSize(text).ok());  // exactly at the limit
  }

  TEST_CASE("metadata nested 100,000 levels deep is InputTooLarge, without a stack overflow") {
    for (bool reference : {false, true}) {
      CAPTURE(reference);
      std::string text = nested(100000);
      if (reference) text.insert(text.size() - 1, ",\"options\":{\"compat\":\"cce-1.0\"}");
      Value envelope = envelopeOf(cce::compressJson(text));
      CHECK_FALSE(isOk(envelope));
      CHECK(field(envelope, u"error", u"code") == "InputTooLarge");
      CHECK(field(envelope, u"error", u"message")
                .rfind("JSON nesting is deeper than the limit of 512 levels", 0) == 0);
      CHECK(field(envelope, u"error", u"path") == "");
      CHECK(isOk(envelopeOf(cce::compressJson(request(kValidMessages)))));
    }
    // Well inside the limit it is ordinary data and comes back unchanged.
    const std::string shallow = nested(400);
    Value envelope = envelopeOf(cce::compressJson(shallow));
    REQUIRE(isOk(envelope));
    CHECK(cce::js::toJson(*envelope.find(u"output")->find(u"messages")) ==
          shallow.substr(std::string("{\"messages\":").size(),
                         shallow.size() - std::string("{\"messages\":}").size()));
  }

  TEST_CASE("__proto__, constructor and prototype keys are kept as data through the round trip") {
    const std::string metadata =
        "{\"__proto__\":{\"polluted\":true},\"constructor\":{\"prototype\":{\"x\":1}},"
        "\"prototype\":\"p\"}";
    const std::string messages =
        "[{\"id\":\"__proto__\",\"role\":\"user\",\"content\":\"" + repeat(kProse, 3) +
        "\",\"metadata\":" + metadata + "},{\"id\":\"constructor\",\"role\":\"assistant\","
        "\"content\":\"" + repeat("Another observation about the cache and its eviction policy. ", 3) +
        "\",\"__proto__\":{\"role\":\"system\"}},{\"id\":\"prototype\",\"role\":\"user\","
        "\"content\":\"ok\",\"metadata\":" + metadata + "}]";
    Value envelope = envelopeOf(cce::compressJson(request(messages, "{\"recencyWindow\":1}")));
    REQUIRE(isOk(envelope));
    const Value& output = *envelope.find(u"output");
    const Value& out = *output.find(u"messages");
    REQUIRE(out.items.size() == 3);
    // Both long messages are summarised: the __proto__ member did not make one a system message.
    CHECK(out.items[0].find(u"content")->string.rfind(u"[summary: ", 0) == 0);
    CHECK(out.items[1].find(u"content")->string.rfind(u"[summary: ", 0) == 0);
    const Value* meta = out.items[0].find(u"metadata");
    REQUIRE(meta != nullptr);
    CHECK(cce::js::toJson(*meta->find(u"__proto__")) == "{\"polluted\":true}");
    CHECK(cce::js::toJson(*meta->find(u"constructor")) == "{\"prototype\":{\"x\":1}}");
    CHECK(meta->find(u"_cce_original") != nullptr);
    const Value& verbatim = *output.find(u"verbatim");
    CHECK(verbatim.find(u"__proto__") != nullptr);
    CHECK(verbatim.find(u"constructor") != nullptr);

    const std::string restore = "{\"messages\":" + cce::js::toJson(out) +
                                ",\"store\":" + cce::js::toJson(verbatim) + "}";
    Value restored = envelopeOf(cce::uncompressJson(restore));
    REQUIRE(isOk(restored));
    CHECK(cce::js::toJson(*restored.find(u"output")->find(u"messages")) == messages);
  }

  TEST_CASE("compressJson answers bad input with a typed error envelope and keeps working") {
    for (const Case& c : errorCases()) {
      CAPTURE(c.name);
      CAPTURE(c.request);
      Value envelope = envelopeOf(cce::compressJson(c.request));
      CHECK_FALSE(isOk(envelope));
      CHECK(field(envelope, u"error", u"code") == cce::errorCodeName(c.code));
      CHECK(sameMessage(field(envelope, u"error", u"message"), c));
      CHECK(field(envelope, u"error", u"path") == c.path);
      CHECK(isOk(envelopeOf(cce::compressJson(request(kValidMessages)))));
    }
  }
}
