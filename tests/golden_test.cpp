// SPDX-License-Identifier: MIT
// Golden tests: the oracle corpus and tests/golden byte for byte, plus the runner's own tooling.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "cli/conformance.h"
#include "cli/mocks.h"
#include "json_io.h"
#include "jscompat/json_writer.h"
#include "jscompat/string.h"
#include "test_util.h"

namespace cce {
namespace {

using json::Value;

std::string utf8(std::u16string_view s) { return js::toUtf8(s); }

// The JSON shape the corpus records for one summarizer reply (README "summarizer-factory").
Value replyJson(const cli::JsReply& r) {
  Value out = Value::object();
  const char* via = nullptr;
  switch (r.kind) {
    case cli::JsReply::Kind::String:
    case cli::JsReply::Kind::NonString:
      via = r.async ? "resolve" : "return";
      break;
    case cli::JsReply::Kind::Throw:
      via = "throw";
      break;
    case cli::JsReply::Kind::Reject:
      via = "reject";
      break;
  }
  out.set(u"via", Value::fromString(js::fromAscii(via)));
  if (r.kind == cli::JsReply::Kind::String) {
    out.set(u"value", Value::fromString(r.text));
  } else if (r.kind == cli::JsReply::Kind::NonString) {
    out.set(u"value", Value::fromNumber(r.number));
  } else {
    Value error = Value::object();
    error.set(u"name", Value::fromString(u"Error"));
    error.set(u"message", Value::fromString(r.text));
    out.set(u"error", std::move(error));
  }
  return out;
}

}  // namespace

TEST_SUITE("golden") {
  TEST_CASE("reproduces every public oracle case byte for byte") {
    std::string dir = test::publicCorpusDir();
    if (!cli::isDirectory(dir)) {
      FAIL("test data not unpacked: run `node scripts/testdata.mjs` (looked for " << dir << ")");
    }
    std::size_t ran = test::checkConformanceDir(dir);
    if (test::goldenFilter().empty()) CHECK(ran > 400);
  }

  TEST_CASE("reproduces every case of the project's own golden set") {
    std::string dir = test::projectGoldenDir();
    // Git does not keep empty directories: no tests/golden means no project cases yet.
    if (!cli::isDirectory(dir)) {
      MESSAGE("no " << dir << " directory: no project golden cases");
      return;
    }
    test::checkConformanceDir(dir);
  }

  TEST_CASE("builds the reference's prompts and replies for every summarizer-factory case") {
    // The conformance runner skips these cases (no compress()); they pin the factory prompts and
    // the LLM mocks that the factory-run cases rely on.
    std::string dir = test::publicCorpusDir() + "/cases";
    if (!cli::isDirectory(dir)) FAIL("test data not unpacked: run `node scripts/testdata.mjs`");
    std::vector<std::string> files;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      std::string file = entry.path().filename().string();
      if (file.rfind("factory-create-", 0) == 0 || file.rfind("factory-escalating-", 0) == 0) {
        files.push_back(file);
      }
    }
    std::sort(files.begin(), files.end());
    CHECK(files.size() == 26);
    const std::string filter = test::goldenFilter();
    for (const std::string& file : files) {
      if (!filter.empty() && file.find(filter) == std::string::npos) continue;
      std::string text;
      REQUIRE(cli::readFile(dir + "/" + file, text));
      Result<Value> doc = parseJson(text);
      REQUIRE(doc.ok());
      std::string name = utf8(doc->find(u"name")->string);
      CAPTURE(name);
      const Value* factory = doc->find(u"summarizer_factory");
      const Value* input = doc->find(u"input");
      const Value* expected = doc->find(u"expected");
      REQUIRE(factory != nullptr);
      REQUIRE(input != nullptr);
      REQUIRE(expected != nullptr);
      bool escalating = factory->find(u"factory")->string == u"createEscalatingSummarizer";
      cli::FactoryOptions options = cli::parseFactoryOptions(factory->find(u"options"));
      cli::LlmMock llm(utf8(doc->find(u"llm_mock")->find(u"name")->string));
      Value results = Value::array();
      Value perText = Value::array();
      for (const Value& t : input->find(u"texts")->items) {
        std::size_t before = llm.prompts().size();
        results.items.push_back(replyJson(cli::callFactorySummarizer(escalating, options, llm,
                                                                      t.string)));
        perText.items.push_back(
            Value::fromNumber(static_cast<double>(llm.prompts().size() - before)));
      }
      Value prompts = Value::array();
      for (const std::u16string& p : llm.prompts()) prompts.items.push_back(Value::fromString(p));
      CHECK(cli::firstJsonDiff(*expected->find(u"llm_calls"), prompts, "/llm_calls") == "");
      CHECK(cli::firstJsonDiff(*expected->find(u"results"), results, "/results") == "");
      CHECK(cli::firstJsonDiff(*expected->find(u"llm_calls_per_text"), perText) == "");
    }
  }

  TEST_CASE("hashes bytes with SHA-256 as FIPS 180-4 specifies") {
    struct Case {
      std::string input;
      const char* hex;
    };
    const Case cases[] = {
        {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",  // 56 bytes: two blocks
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
        {std::string(1000000, 'a'),
         "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"},
    };
    for (const Case& c : cases) {
      CAPTURE(c.input.size());
      CHECK(cli::sha256Hex(c.input) == c.hex);
    }
  }

  TEST_CASE("finds ok, output and error at the top level of an envelope") {
    struct Case {
      const char* envelope;
      bool valid;
      bool ok;
      const char* output;
      const char* error;
    };
    const Case cases[] = {
        {R"({"ok":true,"output":{"a":"}\"{","b":[1,{"c":null}]},"version":"1.0.0"})", true, true,
         R"({"a":"}\"{","b":[1,{"c":null}]})", ""},
        {R"({"ok":false,"error":{"code":"InvalidJson","message":"x","path":""}})", true, false, "",
         R"({"code":"InvalidJson","message":"x","path":""})"},
        {R"({"ok":true,"pending":[{"key":"k"}]})", true, true, "", ""},
        {R"({"output":1})", false, false, "", ""},
        {R"({"ok":true,"output":{"a":1})", false, true, "", ""},
        {"[]", false, false, "", ""},
    };
    for (const Case& c : cases) {
      CAPTURE(c.envelope);
      cli::Envelope env;
      bool valid = cli::splitEnvelope(c.envelope, env);
      CHECK(valid == c.valid);
      if (!c.valid) continue;
      CHECK(env.ok == c.ok);
      CHECK(std::string(env.output) == c.output);
      CHECK(std::string(env.error) == c.error);
    }
  }

  TEST_CASE("names the first differing field with the message id in the path") {
    Result<Value> a =
        parseJson(R"({"messages":[{"id":"m1","content":"same"},{"id":"m2","content":"abc"}]})");
    Result<Value> b =
        parseJson(R"({"messages":[{"id":"m1","content":"same"},{"id":"m2","content":"abd"}]})");
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    std::string diff = cli::firstJsonDiff(a.value(), b.value());
    CHECK(diff.rfind("/messages/1[id=\"m2\"]/content: strings differ at UTF-16 index 2", 0) == 0);
    CHECK(cli::firstJsonDiff(a.value(), a.value()) == "");
  }
}

}  // namespace cce
