// SPDX-License-Identifier: MIT
// Runs the oracle corpus (and the scale session) through the native engine and reports differences.
#include "cli/conformance.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <system_error>
#include <utility>

#include "cce.h"
#include "cli/mocks.h"
#include "json_io.h"
#include "jscompat/json_writer.h"
#include "jscompat/number.h"
#include "jscompat/string.h"
#include "request.h"
#include "uncompress.h"

namespace cce::cli {
namespace {

namespace fs = std::filesystem;
using json::Value;

constexpr const char* kFactorySkip = "summarizer-factory: covered by the JS runner";
constexpr std::size_t kClip = 160;

// ---- small helpers ------------------------------------------------------------------------------

std::string utf8(std::u16string_view s) { return js::toUtf8(s); }

std::string stringOf(const Value* v) {
  return v != nullptr && v->isString() ? utf8(v->string) : std::string();
}

const Value* field(const Value* v, std::u16string_view key) {
  return v != nullptr ? v->find(key) : nullptr;
}

double numberOf(const Value* v) { return v != nullptr && v->isNumber() ? v->number : 0; }

// Cuts at a UTF-8 boundary so a clipped excerpt stays printable.
std::string clip(const std::string& s, std::size_t max = kClip) {
  if (s.size() <= max) return s;
  std::size_t cut = max;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return s.substr(0, cut) + "...(" + std::to_string(s.size()) + " bytes)";
}

std::string show(const Value& v) { return clip(js::toJson(v)); }

std::string quote(std::u16string_view s) {
  std::string out;
  js::writeJsonString(s, out);
  return out;
}

std::string num(double d) { return js::numberToString(d); }

// JS enumeration order of an object's keys: integer-like keys ascending, then insertion order.
std::vector<const json::Member*> jsOrder(const Value& object) {
  std::vector<std::pair<std::uint64_t, const json::Member*>> indexed;
  std::vector<const json::Member*> rest;
  for (const json::Member& m : object.members) {
    if (js::isIntegerLikeKey(m.key)) {
      std::uint64_t n = 0;
      for (char16_t c : m.key) n = n * 10 + static_cast<std::uint64_t>(c - u'0');
      indexed.emplace_back(n, &m);
    } else {
      rest.push_back(&m);
    }
  }
  std::sort(indexed.begin(), indexed.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<const json::Member*> out;
  out.reserve(object.members.size());
  for (const auto& p : indexed) out.push_back(p.second);
  out.insert(out.end(), rest.begin(), rest.end());
  return out;
}

std::string stringDiff(const std::u16string& e, const std::u16string& a) {
  std::size_t i = 0;
  std::size_t n = std::min(e.size(), a.size());
  while (i < n && e[i] == a[i]) ++i;
  std::size_t from = i > 40 ? i - 40 : 0;
  std::string s = "strings differ at UTF-16 index " + std::to_string(i) + " (lengths " +
                  std::to_string(e.size()) + " vs " + std::to_string(a.size()) + "): expected " +
                  clip(quote(std::u16string_view(e).substr(from, 120))) + ", got " +
                  clip(quote(std::u16string_view(a).substr(from, 120)));
  if (from > 0) s += " (excerpts from index " + std::to_string(from) + ")";
  return s;
}

std::string segment(const Value& item, std::size_t index) {
  std::string s = "/" + std::to_string(index);
  if (item.isObject()) {
    if (const Value* id = item.find(u"id"); id != nullptr && (id->isString() || id->isNumber())) {
      s += "[id=" + clip(js::toJson(*id), 40) + "]";
    }
  }
  return s;
}

bool diffInto(const Value& e, const Value& a, const std::string& path, std::string& out) {
  const std::string where = path.empty() ? "/" : path;
  if (e.kind != a.kind) {
    out = where + ": expected " + show(e) + ", got " + show(a);
    return true;
  }
  switch (e.kind) {
    case json::Kind::Null:
      return false;
    case json::Kind::Bool:
      if (e.boolean == a.boolean) return false;
      out = where + ": expected " + show(e) + ", got " + show(a);
      return true;
    case json::Kind::Number: {
      if (e.number == a.number) return false;
      double scale = std::max(1.0, std::fabs(e.number));
      bool close = std::fabs(e.number - a.number) <= 1e-12 * scale;
      out = where + ": expected " + num(e.number) + ", got " + num(a.number) +
            (close ? " (within 1e-12: last-bit arithmetic order)" : "");
      return true;
    }
    case json::Kind::String:
      if (e.string == a.string) return false;
      out = where + ": " + stringDiff(e.string, a.string);
      return true;
    case json::Kind::Array: {
      std::size_t n = std::min(e.items.size(), a.items.size());
      for (std::size_t i = 0; i < n; ++i) {
        if (diffInto(e.items[i], a.items[i], path + segment(e.items[i], i), out)) return true;
      }
      if (e.items.size() == a.items.size()) return false;
      out = where + ": array length expected " + std::to_string(e.items.size()) + ", got " +
            std::to_string(a.items.size()) + "; first unmatched item: " +
            (e.items.size() > n ? "expected " + show(e.items[n]) : "got " + show(a.items[n]));
      return true;
    }
    case json::Kind::Object: {
      std::vector<const json::Member*> eo = jsOrder(e);
      std::vector<const json::Member*> ao = jsOrder(a);
      for (const json::Member* m : eo) {
        const Value* other = a.find(m->key);
        std::string sub = path + "/" + utf8(m->key);
        if (other == nullptr) {
          out = sub + ": missing (expected " + show(m->value) + ")";
          return true;
        }
        if (diffInto(m->value, *other, sub, out)) return true;
      }
      for (const json::Member* m : ao) {
        if (e.find(m->key) == nullptr) {
          out = path + "/" + utf8(m->key) + ": unexpected key (got " + show(m->value) + ")";
          return true;
        }
      }
      bool sameOrder = true;
      for (std::size_t i = 0; i < eo.size(); ++i) sameOrder = sameOrder && eo[i]->key == ao[i]->key;
      if (sameOrder) return false;
      std::string ek;
      std::string ak;
      for (std::size_t i = 0; i < eo.size(); ++i) {
        ek += (i ? "," : "") + utf8(eo[i]->key);
        ak += (i ? "," : "") + utf8(ao[i]->key);
      }
      out = where + ": key order expected [" + clip(ek) + "], got [" + clip(ak) + "]";
      return true;
    }
  }
  return false;
}

// Bytes that differ although the values are equal: number formatting or escaping in the writer.
std::string byteDiff(const std::string& e, const std::string& a) {
  std::size_t i = 0;
  std::size_t n = std::min(e.size(), a.size());
  while (i < n && e[i] == a[i]) ++i;
  std::size_t from = i > 40 ? i - 40 : 0;
  return "bytes differ at offset " + std::to_string(i) + " (sizes " + std::to_string(e.size()) +
         " vs " + std::to_string(a.size()) + "): expected ..." + clip(e.substr(from, 100), 100) +
         "..., got ..." + clip(a.substr(from, 100), 100) + "...";
}

// Compares our bytes with the expected value; "" when identical.
std::string compareBytes(const Value& expected, const std::string& expectedBytes,
                         const Value& actual, const std::string& actualBytes,
                         const std::string& rootPath) {
  if (expectedBytes == actualBytes) return "";
  std::string diff = firstJsonDiff(expected, actual, rootPath);
  return diff.empty() ? byteDiff(expectedBytes, actualBytes) : diff;
}

std::string compareCalls(const Value* expected, const std::vector<U16>& actual) {
  if (expected == nullptr || !expected->isArray()) return "";
  const std::vector<Value>& e = expected->items;
  std::size_t n = std::min(e.size(), actual.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (!e[i].isString()) return "expected call " + std::to_string(i) + " is not a string";
    if (e[i].string != actual[i]) {
      return "call " + std::to_string(i) + ": " + stringDiff(e[i].string, actual[i]);
    }
  }
  if (e.size() == actual.size()) return "";
  std::string s = "expected " + std::to_string(e.size()) + " calls, got " +
                  std::to_string(actual.size()) + "; first unmatched: ";
  return s + (e.size() > n ? "expected " + show(e[n]) : "got " + clip(quote(actual[n])));
}

// ---- uncompress over our own output ------------------------------------------------------------

// A missing id as JSON: strings as strings, numbers as numbers (Scalar keeps JS String(x)).
Value scalarToJson(const Scalar& s) {
  switch (s.kind) {
    case Scalar::Kind::String:
      return Value::fromString(s.text);
    case Scalar::Kind::Number:
      return Value::fromNumber(std::strtod(utf8(s.text).c_str(), nullptr));
    case Scalar::Kind::Bool:
      return Value::fromBool(s.text == u"true");
    default:
      return Value::null();
  }
}

// The property key `store[id]` uses: JS String(id).
std::u16string propertyKey(const Scalar& s) {
  switch (s.kind) {
    case Scalar::Kind::Null:
      return u"null";
    case Scalar::Kind::Missing:
      return u"undefined";
    default:
      return s.text;
  }
}

// Owns every object uncompress may hand back; handles are indices into `pool`.
struct UncompressFixture {
  std::vector<Value> pool;
  std::vector<Message> views;
  std::vector<std::size_t> outputHandles;
  std::map<std::u16string, std::size_t> store;           // result.verbatim
  std::map<std::u16string, std::size_t> recursiveStore;  // {...prior_verbatim, ...verbatim}

  std::size_t add(Value v) {
    views.push_back(describeMessage(v));
    pool.push_back(std::move(v));
    return pool.size() - 1;
  }

  Value run(const std::map<std::u16string, std::size_t>& map, bool recursive) const {
    UncompressHost host;
    host.describe = [this](std::size_t h) -> const Message& { return views[h]; };
    host.lookup = [this, &map](const Scalar& id) -> std::optional<std::size_t> {
      auto it = map.find(propertyKey(id));
      // A lookup counts as found iff its value is truthy.
      if (it == map.end() || !pool[it->second].truthy()) return std::nullopt;
      return it->second;
    };
    UncompressResult r = uncompress(outputHandles, host, recursive);
    Value out = Value::object();
    Value messages = Value::array();
    messages.items.reserve(r.messages.size());
    for (std::size_t h : r.messages) messages.items.push_back(pool[h]);
    out.set(u"messages", std::move(messages));
    out.set(u"messages_expanded", Value::fromNumber(static_cast<double>(r.messagesExpanded)));
    out.set(u"messages_passthrough", Value::fromNumber(static_cast<double>(r.messagesPassthrough)));
    Value missing = Value::array();
    for (const Scalar& id : r.missingIds) missing.items.push_back(scalarToJson(id));
    out.set(u"missing_ids", std::move(missing));
    return out;
  }
};

// Takes the compress output apart (it is not needed afterwards) into an uncompress fixture.
UncompressFixture buildFixture(Value&& output, const Value* priorVerbatim) {
  UncompressFixture f;
  if (Value* messages = output.find(u"messages"); messages != nullptr && messages->isArray()) {
    for (Value& m : messages->items) f.outputHandles.push_back(f.add(std::move(m)));
  }
  if (priorVerbatim != nullptr && priorVerbatim->isObject()) {
    for (const json::Member& m : priorVerbatim->members) f.recursiveStore[m.key] = f.add(m.value);
  }
  if (Value* verbatim = output.find(u"verbatim"); verbatim != nullptr && verbatim->isObject()) {
    for (json::Member& m : verbatim->members) {
      std::size_t h = f.add(std::move(m.value));
      f.store[m.key] = h;
      f.recursiveStore[m.key] = h;  // the result's verbatim wins on key clashes
    }
  }
  return f;
}

// ---- the JSON API path -------------------------------------------------------------------------

struct EnvelopeCheck {
  bool ok = false;
  std::string problem;  // set when the envelope itself is unusable
  Value output;
  std::string outputBytes;
  std::string errorMessage;
};

EnvelopeCheck readEnvelope(const std::string& envelope) {
  EnvelopeCheck c;
  Envelope env;
  if (!splitEnvelope(envelope, env)) {
    c.problem = "not an envelope: " + clip(envelope);
    return c;
  }
  c.ok = env.ok;
  if (env.ok) {
    if (env.output.empty()) {
      c.problem = "ok envelope without output: " + clip(envelope);
      return c;
    }
    c.outputBytes = std::string(env.output);
    Result<Value> parsed = parseJson(env.output);
    if (!parsed) {
      c.problem = "output is not JSON: " + parsed.error().message;
      return c;
    }
    c.output = std::move(parsed.value());
  } else {
    Result<Value> parsed = parseJson(env.error);
    if (parsed) c.errorMessage = stringOf(parsed->find(u"message"));
  }
  return c;
}

Value uncompressRequest(const Value& messages, const Value& store, bool recursive) {
  Value req = Value::object();
  req.set(u"messages", messages);
  req.set(u"store", store);
  Value opts = Value::object();
  opts.set(u"recursive", Value::fromBool(recursive));
  req.set(u"options", std::move(opts));
  return req;
}

void checkUncompressJson(const Value& expectedCompress, const Value* priorVerbatim,
                         const Value* expectedPlain, const Value* expectedRecursive,
                         std::vector<std::string>& problems) {
  const Value* messages = expectedCompress.find(u"messages");
  const Value* verbatim = expectedCompress.find(u"verbatim");
  if (messages == nullptr || verbatim == nullptr) return;
  Value merged = Value::object();
  if (priorVerbatim != nullptr && priorVerbatim->isObject()) merged = *priorVerbatim;
  for (const json::Member& m : verbatim->members) merged.set(m.key, m.value);

  struct Run {
    const char* label;
    const Value* store;
    bool recursive;
    const Value* expected;
  };
  const Run runs[] = {{"uncompressJson", verbatim, false, expectedPlain},
                      {"uncompressJson recursive", &merged, true, expectedRecursive}};
  for (const Run& run : runs) {
    if (run.expected == nullptr) continue;
    EnvelopeCheck c = readEnvelope(
        uncompressJson(js::toJson(uncompressRequest(*messages, *run.store, run.recursive))));
    std::string label = std::string(run.label) + ": ";
    if (!c.problem.empty()) {
      problems.push_back(label + c.problem);
    } else if (!c.ok) {
      problems.push_back(label + "error envelope: " + c.errorMessage);
    } else if (std::string d = compareBytes(*run.expected, js::toJson(*run.expected), c.output,
                                            c.outputBytes, "");
               !d.empty()) {
      problems.push_back(label + d);
    }
  }
}

// ---- one corpus case ---------------------------------------------------------------------------

struct Hooks {
  std::vector<U16> summarizerCalls;
  std::unique_ptr<LlmMock> llm;
  std::size_t counterCalls = 0;
  bool any = false;
};

// Installs the hooks the case names; "" on success, else why the case cannot run.
std::string installHooks(const Value& doc, CompressOptions& options, Hooks& hooks) {
  if (const Value* mock = doc.find(u"mock")) {
    std::string name = stringOf(mock->find(u"name"));
    if (!isMockSummarizer(name)) return "unknown mock summarizer '" + name + "'";
    options.summarizer = makeMockSummarizer(name, &hooks.summarizerCalls);
    hooks.any = true;
  }
  if (const Value* factory = doc.find(u"summarizer_factory")) {
    std::string kind = stringOf(factory->find(u"factory"));
    std::string llmName = stringOf(field(doc.find(u"llm_mock"), u"name"));
    if (kind != "createSummarizer" && kind != "createEscalatingSummarizer") {
      return "unknown factory '" + kind + "'";
    }
    if (!LlmMock::known(llmName)) return "unknown LLM mock '" + llmName + "'";
    hooks.llm = std::make_unique<LlmMock>(llmName);
    options.summarizer =
        makeFactorySummarizer(kind == "createEscalatingSummarizer",
                              parseFactoryOptions(factory->find(u"options")), hooks.llm.get(),
                              &hooks.summarizerCalls);
    hooks.any = true;
  }
  if (const Value* counter = doc.find(u"token_counter")) {
    std::string name = stringOf(counter->find(u"name"));
    options.tokenCounter = makeTokenCounter(name, &hooks.counterCalls);
    if (!options.tokenCounter) return "unknown token counter '" + name + "'";
    hooks.any = true;
  }
  if (stringOf(doc.find(u"mode")) == "async" && !options.summarizer) {
    return "async case without a known summarizer";
  }
  return "";
}

void checkCompressJson(const Value* messages, const Value* options, const Value* expected,
                       const Value* expectedError, bool pinCompat,
                       std::vector<std::string>& problems) {
  Value req = Value::object();
  if (messages != nullptr) req.set(u"messages", *messages);
  // The corpus pins the reference's behaviour; an options value the reference would reject keeps
  // its shape so that the expected error still comes from the same check.
  Value pinned = options != nullptr ? *options : Value::object();
  if (pinCompat && pinned.isObject()) pinned.set(u"compat", Value::fromString(u"cce-1.0"));
  req.set(u"options", pinned);
  EnvelopeCheck c = readEnvelope(compressJson(js::toJson(req)));
  if (!c.problem.empty()) {
    problems.push_back("compressJson: " + c.problem);
    return;
  }
  if (expectedError != nullptr) {
    std::string want = stringOf(expectedError->find(u"message"));
    if (c.ok) {
      problems.push_back("compressJson: expected error \"" + want + "\", got success");
    } else if (c.errorMessage != want) {
      problems.push_back("compressJson: expected error \"" + want + "\", got \"" +
                         c.errorMessage + "\"");
    }
    return;
  }
  if (!c.ok) {
    problems.push_back("compressJson: error envelope: " + c.errorMessage);
    return;
  }
  if (expected == nullptr) return;
  std::string d = compareBytes(*expected, js::toJson(*expected), c.output, c.outputBytes, "");
  if (!d.empty()) problems.push_back("compressJson: " + d);
}

// Cases in a directory named `safe` (tests/golden/safe) exercise the default (safe) mode: their
// options are used as written instead of being pinned to compat "cce-1.0".
bool isSafeModeDir(const std::string& dir) {
  fs::path p = fs::path(dir).lexically_normal();
  if (!p.has_filename()) p = p.parent_path();
  if (p.filename() == "cases") p = p.parent_path();
  return p.filename() == "safe";
}

CaseOutcome runCase(const Value& doc, const ConformanceOptions& runOptions, bool pinCompat) {
  CaseOutcome oc;
  oc.name = stringOf(doc.find(u"name"));
  std::vector<std::string>& problems = oc.problems;
  auto fail = [&](std::string why) {
    problems.push_back(std::move(why));
    oc.status = CaseStatus::Failed;
    return oc;
  };

  if (stringOf(doc.find(u"mode")) == "summarizer-factory") {
    oc.status = CaseStatus::Skipped;
    oc.skipReason = kFactorySkip;
    return oc;
  }
  const Value* input = doc.find(u"input");
  const Value* expected = doc.find(u"expected");
  if (input == nullptr || expected == nullptr) return fail("case has no input/expected");
  const Value* messagesIn = input->find(u"messages");
  const Value* optionsIn = input->find(u"options");
  const Value* expectedError = expected->find(u"error");
  const Value* expectedCompress = expected->find(u"compress");

  CompressOptions options;
  Hooks hooks;
  if (std::string why = installHooks(doc, options, hooks); !why.empty()) return fail(why);
  if (runOptions.checkJsonApi && !hooks.any) {
    checkCompressJson(messagesIn, optionsIn, expectedCompress, expectedError, pinCompat,
                      problems);
  }

  Result<ParsedMessages> parsed = parseMessages(messagesIn, "compress");
  if (expectedError != nullptr) {
    std::string want = stringOf(expectedError->find(u"message"));
    if (parsed) {
      problems.push_back("compress: expected error \"" + want + "\", got success");
    } else if (parsed.error().message != want) {
      problems.push_back("compress: expected error \"" + want + "\", got \"" +
                         parsed.error().message + "\"");
    }
    oc.status = problems.empty() ? CaseStatus::Passed : CaseStatus::Failed;
    return oc;
  }
  if (!parsed) return fail("compress: unexpected error: " + parsed.error().message);
  if (Result<bool> r = parseCompressOptions(optionsIn, options); !r) {
    return fail("compress: options rejected: " + r.error().message);
  }
  if (pinCompat) options.compat = Compat::Cce10;  // the corpus pins the reference's behaviour
  if (expectedCompress == nullptr) return fail("case has no expected.compress");

  auto t0 = std::chrono::steady_clock::now();
  CompressResult result = compress(parsed->views, options);
  auto t1 = std::chrono::steady_clock::now();
  oc.note = "compress " +
            std::to_string(std::chrono::duration<double, std::milli>(t1 - t0).count()) + " ms";
  if (result.pending) return fail("compress: result is pending although every hook answered");

  Value output = materializeCompressResult(result, parsed->objects, parsed->views);
  std::string bytes = js::toJson(output);
  std::string expectedBytes = js::toJson(*expectedCompress);
  if (std::string d = compareBytes(*expectedCompress, expectedBytes, output, bytes, "");
      !d.empty()) {
    problems.push_back("compress: " + d);
  }
  if (const Value* sha = expected->find(u"compress_json_sha256"); sha != nullptr) {
    std::string want = stringOf(sha);
    if (sha256Hex(expectedBytes) != want) {
      problems.push_back("sha256: expected.compress does not re-serialise to "
                         "compress_json_sha256 (edited case, or a JSON reader/writer bug)");
    } else if (bytes == expectedBytes) {
      // Equal bytes imply equal hashes; hash ours anyway so the hash path stays exercised.
      if (sha256Hex(bytes) != want) problems.push_back("sha256: mismatch on identical bytes");
    }
  }
  if (std::string d = compareCalls(expected->find(u"summarizer_calls"), hooks.summarizerCalls);
      !d.empty()) {
    problems.push_back("summarizer_calls: " + d);
  }
  if (hooks.llm) {
    if (std::string d = compareCalls(expected->find(u"llm_calls"), hooks.llm->prompts());
        !d.empty()) {
      problems.push_back("llm_calls: " + d);
    }
  }
  if (doc.find(u"token_counter") != nullptr) {
    oc.note += ", token counter calls " + std::to_string(hooks.counterCalls);
  }

  const Value* prior = input->find(u"prior_verbatim");
  if (runOptions.checkJsonApi) {
    checkUncompressJson(*expectedCompress, prior, expected->find(u"uncompress"),
                        expected->find(u"uncompress_recursive"), problems);
  }
  UncompressFixture fixture = buildFixture(std::move(output), prior);
  struct Run {
    const char* label;
    const std::map<std::u16string, std::size_t>* store;
    bool recursive;
  };
  const Run runs[] = {{"uncompress", &fixture.store, false},
                      {"uncompress_recursive", &fixture.recursiveStore, true}};
  for (const Run& run : runs) {
    const Value* want = expected->find(js::fromUtf8(run.label));
    if (want == nullptr) continue;
    Value got = fixture.run(*run.store, run.recursive);
    std::string d = compareBytes(*want, js::toJson(*want), got, js::toJson(got), "");
    if (!d.empty()) problems.push_back(std::string(run.label) + ": " + d);
  }
  oc.status = problems.empty() ? CaseStatus::Passed : CaseStatus::Failed;
  return oc;
}

// ---- the scale session -------------------------------------------------------------------------

// Decompresses with the system's gzip: the product must not link zlib, and this is test tooling.
bool gunzipFile(const std::string& path, std::string& out) {
  std::string quoted = "'";
  for (char c : path) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  quoted += "'";
  std::string cmd = "gzip -dc " + quoted;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (pipe == nullptr) return false;
  out.clear();
  char buf[1 << 16];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
  return pclose(pipe) == 0;
}

// The expected output of the defaults run: plain in the unpacked test data (scripts/testdata.mjs),
// gzip'd in the shared corpus it was vendored from.
bool readExpectedDefaults(const std::string& dir, std::string& out) {
  return readFile(dir + "/expected-v1-defaults.json", out) ||
         gunzipFile(dir + "/expected-v1-defaults.json.gz", out);
}

void runScale(const std::string& dir, const ConformanceOptions& runOptions,
              ConformanceReport& report) {
  std::string conversationText;
  std::string resultsText;
  if (!readFile(dir + "/scale-conversation.json", conversationText) ||
      !readFile(dir + "/scale-results.json", resultsText)) {
    report.error = "cannot read the scale session files in " + dir;
    return;
  }
  Result<Value> conversation = parseJson(conversationText);
  Result<Value> results = parseJson(resultsText);
  if (!conversation || !results) {
    report.error = "scale session files are not JSON";
    return;
  }
  Result<ParsedMessages> parsed = parseMessages(&conversation.value(), "compress");
  if (!parsed) {
    report.error = "scale conversation rejected: " + parsed.error().message;
    return;
  }
  const std::string inputBytes = js::toJson(conversation.value());
  const Value* runs = results->find(u"runs");
  if (runs == nullptr || !runs->isArray()) {
    report.error = "scale-results.json has no runs";
    return;
  }
  for (const Value& run : runs->items) {
    if (stringOf(run.find(u"engine")) != "v1") continue;
    const Value* opts = run.find(u"options");
    CaseOutcome oc;
    oc.name = "scale-v1 " + (opts != nullptr ? js::toJson(*opts) : std::string("{}"));
    if (!runOptions.filter.empty() && oc.name.find(runOptions.filter) == std::string::npos) {
      continue;
    }
    bool defaults = opts == nullptr || (opts->isObject() && opts->members.empty());
    CompressOptions options;
    if (Result<bool> r = parseCompressOptions(opts, options); !r) {
      oc.problems.push_back("options rejected: " + r.error().message);
    } else {
      options.compat = Compat::Cce10;
      auto t0 = std::chrono::steady_clock::now();
      CompressResult result = compress(parsed->views, options);
      auto t1 = std::chrono::steady_clock::now();
      Value output = materializeCompressResult(result, parsed->objects, parsed->views);
      std::string bytes = js::toJson(output);
      double ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
      oc.note = "compress " + std::to_string(ms) + " ms (reference median " +
                num(numberOf(run.find(u"median_ms"))) + " ms)";
      std::string want = stringOf(run.find(u"result_json_sha256"));
      std::string got = sha256Hex(bytes);
      if (got != want) {
        const CompressionStats& s = result.compression;
        std::string figures =
            "sha256 differs (" + std::to_string(bytes.size()) + " bytes, expected " +
            num(numberOf(run.find(u"result_json_bytes"))) +
            "); ours: ratio " + num(s.ratio) + " token_ratio " + num(s.tokenRatio) +
            " compressed " + std::to_string(s.messagesCompressed) + " preserved " +
            std::to_string(s.messagesPreserved) + " deduped " +
            std::to_string(s.messagesDeduped) + " fuzzy " +
            std::to_string(s.messagesFuzzyDeduped) + "; reference: ratio " +
            num(numberOf(run.find(u"ratio"))) + " compressed " +
            num(numberOf(run.find(u"messages_compressed")));
        if (result.budget) {
          figures += "; ours fits " + std::string(result.budget->fits ? "true" : "false") +
                     " tokenCount " + num(result.budget->tokenCount) + " recencyWindow " +
                     num(result.budget->recencyWindow);
        }
        oc.problems.push_back(figures);
        if (defaults) {
          std::string expectedText;
          if (!readExpectedDefaults(dir, expectedText)) {
            oc.problems.push_back("cannot read expected-v1-defaults.json(.gz)");
          } else if (Result<Value> e = parseJson(expectedText); !e) {
            oc.problems.push_back("expected-v1-defaults.json is not JSON");
          } else {
            oc.problems.push_back(compareBytes(e.value(), expectedText, output, bytes, ""));
          }
        }
      } else if (defaults) {
        // The hash matched; the gzip'd bytes are compared too so a wrong hash table cannot hide.
        std::string expectedText;
        if (readExpectedDefaults(dir, expectedText) &&
            expectedText != bytes) {
          oc.problems.push_back("bytes differ from expected-v1-defaults.json: " +
                                byteDiff(expectedText, bytes));
        }
      }
      // Round trip, as the reference's `roundtrip_ok` defines it.
      if (const Value* rt = run.find(u"roundtrip_ok"); rt != nullptr && rt->isBool()) {
        UncompressFixture f = buildFixture(std::move(output), nullptr);
        Value restored = f.run(f.store, false);
        const Value* missing = restored.find(u"missing_ids");
        bool ok = js::toJson(*restored.find(u"messages")) == inputBytes && missing != nullptr &&
                  missing->items.empty();
        if (ok != rt->boolean) {
          oc.problems.push_back(std::string("roundtrip_ok expected ") +
                                (rt->boolean ? "true" : "false") + ", got " +
                                (ok ? "true" : "false"));
        }
      }
    }
    oc.status = oc.problems.empty() ? CaseStatus::Passed : CaseStatus::Failed;
    if (runOptions.onCase) runOptions.onCase(oc);
    report.cases.push_back(std::move(oc));
  }
}

// ---- SHA-256 -----------------------------------------------------------------------------------

constexpr std::uint32_t kSha256K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

std::uint32_t rotr(std::uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

void sha256Block(std::uint32_t h[8], const unsigned char* p) {
  std::uint32_t w[64];
  for (int i = 0; i < 16; ++i) {
    w[i] = (std::uint32_t(p[4 * i]) << 24) | (std::uint32_t(p[4 * i + 1]) << 16) |
           (std::uint32_t(p[4 * i + 2]) << 8) | std::uint32_t(p[4 * i + 3]);
  }
  for (int i = 16; i < 64; ++i) {
    std::uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
    std::uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  std::uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
  for (int i = 0; i < 64; ++i) {
    std::uint32_t t1 = k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) +
                       kSha256K[i] + w[i];
    std::uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    k = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  h[0] += a;
  h[1] += b;
  h[2] += c;
  h[3] += d;
  h[4] += e;
  h[5] += f;
  h[6] += g;
  h[7] += k;
}

// ---- envelope scanning -------------------------------------------------------------------------

std::size_t skipSpace(std::string_view s, std::size_t i) {
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) ++i;
  return i;
}

// Index just past the JSON string starting at s[i] == '"', or npos.
std::size_t skipString(std::string_view s, std::size_t i) {
  for (++i; i < s.size(); ++i) {
    if (s[i] == '\\') {
      ++i;
    } else if (s[i] == '"') {
      return i + 1;
    }
  }
  return std::string_view::npos;
}

// Index just past the JSON value starting at s[i], or npos. Linear: strings are skipped whole.
std::size_t skipValue(std::string_view s, std::size_t i) {
  if (i >= s.size()) return std::string_view::npos;
  if (s[i] == '"') return skipString(s, i);
  if (s[i] == '{' || s[i] == '[') {
    std::size_t depth = 0;
    while (i < s.size()) {
      char c = s[i];
      if (c == '"') {
        i = skipString(s, i);
        if (i == std::string_view::npos) return i;
        continue;
      }
      if (c == '{' || c == '[') ++depth;
      if (c == '}' || c == ']') {
        if (--depth == 0) return i + 1;
      }
      ++i;
    }
    return std::string_view::npos;
  }
  while (i < s.size() && s[i] != ',' && s[i] != '}' && s[i] != ']' && s[i] != ' ' &&
         s[i] != '\n' && s[i] != '\r' && s[i] != '\t') {
    ++i;
  }
  return i;
}

}  // namespace

// ---- public ------------------------------------------------------------------------------------

bool readFile(const std::string& path, std::string& out) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return false;
  out.clear();
  char buf[1 << 16];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  bool ok = std::ferror(f) == 0;
  std::fclose(f);
  return ok;
}

bool isDirectory(const std::string& path) {
  std::error_code ec;
  return fs::is_directory(path, ec);
}

bool isRegularFile(const std::string& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec);
}

std::string sha256Hex(std::string_view bytes) {
  std::uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                        0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  std::size_t n = bytes.size();
  std::size_t full = n / 64;
  for (std::size_t i = 0; i < full; ++i) sha256Block(h, p + 64 * i);
  unsigned char tail[128] = {};
  std::size_t rest = n - 64 * full;
  std::memcpy(tail, p + 64 * full, rest);
  tail[rest] = 0x80;
  std::size_t tailLen = rest + 9 <= 64 ? 64 : 128;
  std::uint64_t bits = static_cast<std::uint64_t>(n) * 8;
  for (int i = 0; i < 8; ++i) tail[tailLen - 1 - i] = static_cast<unsigned char>(bits >> (8 * i));
  sha256Block(h, tail);
  if (tailLen == 128) sha256Block(h, tail + 64);
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (std::uint32_t word : h) {
    for (int shift = 28; shift >= 0; shift -= 4) out += kHex[(word >> shift) & 0xF];
  }
  return out;
}

bool splitEnvelope(std::string_view s, Envelope& out) {
  out = Envelope();
  bool sawOk = false;
  std::size_t i = skipSpace(s, 0);
  if (i >= s.size() || s[i] != '{') return false;
  i = skipSpace(s, i + 1);
  if (i < s.size() && s[i] == '}') return false;
  while (i < s.size()) {
    if (s[i] != '"') return false;
    std::size_t keyEnd = skipString(s, i);
    if (keyEnd == std::string_view::npos) return false;
    std::string_view key = s.substr(i + 1, keyEnd - i - 2);
    i = skipSpace(s, keyEnd);
    if (i >= s.size() || s[i] != ':') return false;
    i = skipSpace(s, i + 1);
    std::size_t end = skipValue(s, i);
    if (end == std::string_view::npos || end == i) return false;
    std::string_view value = s.substr(i, end - i);
    if (key == "ok") {
      if (value != "true" && value != "false") return false;
      out.ok = value == "true";
      sawOk = true;
    } else if (key == "output") {
      out.output = value;
    } else if (key == "error") {
      out.error = value;
    }
    i = skipSpace(s, end);
    if (i < s.size() && s[i] == ',') {
      i = skipSpace(s, i + 1);
      continue;
    }
    if (i < s.size() && s[i] == '}') return sawOk;
    return false;
  }
  return false;
}

std::string firstJsonDiff(const json::Value& expected, const json::Value& actual,
                          const std::string& rootPath) {
  std::string out;
  diffInto(expected, actual, rootPath, out);
  return out;
}

ConformanceReport runConformance(const std::string& dir, const ConformanceOptions& options) {
  ConformanceReport report;
  if (!isDirectory(dir)) {
    report.error = "not a directory: " + dir;
    return report;
  }
  if (isRegularFile(dir + "/scale-conversation.json") &&
      isRegularFile(dir + "/scale-results.json")) {
    runScale(dir, options, report);
  } else {
    std::string casesDir = isDirectory(dir + "/cases") ? dir + "/cases" : dir;
    const bool safeMode = isSafeModeDir(casesDir);
    std::vector<std::string> files;
    std::error_code ec;
    for (fs::directory_iterator it(casesDir, ec), end; !ec && it != end; it.increment(ec)) {
      const fs::path& p = it->path();
      if (p.extension() == ".json" && isRegularFile(p.string())) {
        files.push_back(p.filename().string());
      }
    }
    std::sort(files.begin(), files.end());
    for (const std::string& file : files) {
      std::string text;
      CaseOutcome oc;
      oc.name = file.substr(0, file.size() - 5);
      if (!readFile(casesDir + "/" + file, text)) {
        oc.status = CaseStatus::Failed;
        oc.problems.push_back("cannot read " + casesDir + "/" + file);
      } else if (Result<Value> doc = parseJson(text); !doc) {
        oc.status = CaseStatus::Failed;
        oc.problems.push_back("case file is not JSON: " + doc.error().message);
      } else {
        std::string name = stringOf(doc->find(u"name"));
        if (name.empty()) name = oc.name;
        if (!options.filter.empty() && name.find(options.filter) == std::string::npos) continue;
        oc = runCase(doc.value(), options, !safeMode);
        oc.name = name;
      }
      if (!options.filter.empty() && oc.name.find(options.filter) == std::string::npos) continue;
      if (options.onCase) options.onCase(oc);
      report.cases.push_back(std::move(oc));
    }
  }
  for (const CaseOutcome& oc : report.cases) {
    if (oc.status == CaseStatus::Passed) ++report.passed;
    if (oc.status == CaseStatus::Failed) ++report.failed;
    if (oc.status != CaseStatus::Skipped) continue;
    ++report.skipped;
    auto it = std::find_if(report.skippedBy.begin(), report.skippedBy.end(),
                           [&](const auto& p) { return p.first == oc.skipReason; });
    if (it == report.skippedBy.end()) {
      report.skippedBy.emplace_back(oc.skipReason, 1);
    } else {
      ++it->second;
    }
  }
  return report;
}

int conformanceMain(const std::vector<std::string>& args) {
  std::string dir;
  ConformanceOptions options;
  bool verbose = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--filter" && i + 1 < args.size()) {
      options.filter = args[++i];
    } else if (args[i] == "--verbose" || args[i] == "-v") {
      verbose = true;
    } else if (args[i] == "--no-json-api") {
      options.checkJsonApi = false;
    } else if (dir.empty() && !args[i].empty() && args[i][0] != '-') {
      dir = args[i];
    } else {
      std::fprintf(stderr, "cce conformance: unexpected argument '%s'\n", args[i].c_str());
      return 2;
    }
  }
  if (dir.empty()) {
    std::fprintf(stderr, "usage: cce conformance DIR [--filter SUBSTR] [--verbose]\n");
    return 2;
  }
  options.onCase = [verbose](const CaseOutcome& oc) {
    if (oc.status == CaseStatus::Failed) {
      std::printf("FAIL %s\n", oc.name.c_str());
      for (const std::string& p : oc.problems) std::printf("  %s\n", p.c_str());
      if (verbose && !oc.note.empty()) std::printf("  (%s)\n", oc.note.c_str());
    } else if (verbose) {
      std::printf("%s %s%s%s\n", oc.status == CaseStatus::Passed ? "ok  " : "skip",
                  oc.name.c_str(), oc.note.empty() ? "" : "  ", oc.note.c_str());
    }
    std::fflush(stdout);
  };
  ConformanceReport report = runConformance(dir, options);
  if (!report.error.empty()) {
    std::fprintf(stderr, "cce conformance: %s\n", report.error.c_str());
    std::printf("0 passed, 1 failed\n");
    return 1;
  }
  if (report.skipped > 0) {
    std::string line = "skipped: " + std::to_string(report.skipped) + " (";
    for (std::size_t i = 0; i < report.skippedBy.size(); ++i) {
      if (i > 0) line += "; ";
      line += report.skippedBy[i].first;
      if (report.skippedBy.size() > 1) line += ": " + std::to_string(report.skippedBy[i].second);
    }
    std::printf("%s)\n", line.c_str());
  }
  std::printf("%zu passed, %zu failed\n", report.passed, report.failed);
  return report.failed == 0 ? 0 : 1;
}

std::string findTestDataDir(const char* argv0) {
  std::vector<fs::path> candidates;
  std::error_code ec;
  fs::path cwd = fs::current_path(ec);
  if (!ec) candidates.push_back(cwd / "build" / "testdata");  // run from the project's root
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec && argv0 != nullptr) {
    ec.clear();
    exe = fs::absolute(argv0, ec);
  }
  if (!ec && !exe.empty()) {
    fs::path exeDir = exe.parent_path();
    candidates.push_back(exeDir / "testdata");                    // <project>/build/cce
    candidates.push_back(exeDir / ".." / "build" / "testdata");  // another build folder
  }
  for (const fs::path& c : candidates) {
    if (isDirectory((c / "conformance").string()) || isDirectory((c / "data").string())) {
      fs::path canonical = fs::weakly_canonical(c, ec);
      return ec ? c.string() : canonical.string();
    }
  }
  return "";
}

}  // namespace cce::cli
