// SPDX-License-Identifier: MIT
// Helpers shared by the unit tests: messages from JSON text, the JSON entry points, the test data.
#pragma once

#include <doctest/doctest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cce.h"
#include "json_io.h"
#include "jscompat/json_writer.h"
#include "jscompat/string.h"
#include "request.h"

namespace cce::test {

/// A deterministic generator (xorshift64) for property tests: the same inputs on every run.
struct Rng {
  std::uint64_t state;
  std::uint64_t next() {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  }
  int below(int n) { return static_cast<int>(next() % static_cast<std::uint64_t>(n)); }
};

/// Parses `json` (which must be valid) into message objects and their views.
inline ParsedMessages messagesFrom(const std::string& json) {
  Result<json::Value> value = parseJson(json);
  if (!value) {
    std::fprintf(stderr, "test JSON does not parse: %s\n", value.error().message.c_str());
    std::abort();
  }
  Result<ParsedMessages> parsed = parseMessages(&value.value(), "compress");
  if (!parsed) {
    std::fprintf(stderr, "test messages invalid: %s\n", parsed.error().message.c_str());
    std::abort();
  }
  return parsed.value();
}

/// JSON.stringify of a compress() result plan, materialised the way the CLI does it.
inline std::string resultJson(const CompressResult& result, const ParsedMessages& input) {
  return js::toJson(materializeCompressResult(result, input.objects, input.views));
}

/// The `output` of compressJson() for `messages` and `options` (both JSON text); fails the test,
/// showing the envelope, when compress reports an error.
inline json::Value compressOutput(const std::string& messages, const std::string& options) {
  Result<json::Value> envelope =
      parseJson(compressJson("{\"messages\":" + messages + ",\"options\":" + options + "}"));
  REQUIRE(envelope.ok());
  const json::Value* output = envelope->find(u"output");
  if (!output) FAIL("compress failed: " << js::toJson(envelope.value()));
  return *output;
}

/// JSON.stringify(uncompress(out.messages, out.verbatim).messages) for a compress output.
inline std::string restoredJson(const json::Value& out) {
  json::Value request = json::Value::object();
  request.set(u"messages", *out.find(u"messages"));
  request.set(u"store", *out.find(u"verbatim"));
  Result<json::Value> envelope = parseJson(uncompressJson(js::toJson(request)));
  REQUIRE(envelope.ok());
  const json::Value* output = envelope->find(u"output");
  if (!output) FAIL("uncompress failed: " << js::toJson(envelope.value()));
  return js::toJson(*output->find(u"messages"));
}

/// Reads a whole file; empty string when it cannot be read.
inline std::string readFile(const std::string& path) {
  std::string out;
  if (FILE* f = std::fopen(path.c_str(), "rb")) {
    char buffer[1 << 16];
    std::size_t n;
    while ((n = std::fread(buffer, 1, sizeof buffer, f)) > 0) out.append(buffer, n);
    std::fclose(f);
  }
  return out;
}

/// The test data unpacked from tests/corpus (`build/testdata`, fixed at configure time by CMake).
inline std::string testDataDir() {
#ifdef CCE_TESTDATA_DIR
  return CCE_TESTDATA_DIR;
#else
  return "build/testdata";
#endif
}

}  // namespace cce::test
