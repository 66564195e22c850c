// SPDX-License-Identifier: MIT
// The corpus' named mocks (summarizers, token counters, LLMs) and the LLM helper factories.
#include "cli/mocks.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

#include "jscompat/number.h"
#include "jscompat/string.h"
#include "request.h"

namespace cce::cli {
namespace {

U16 u16(std::string_view ascii) { return js::fromAscii(ascii); }

JsReply stringReply(U16 text, bool async = false) {
  JsReply r;
  r.kind = JsReply::Kind::String;
  r.text = std::move(text);
  r.async = async;
  return r;
}

JsReply errorReply(bool async, std::string_view message) {
  JsReply r;
  r.kind = async ? JsReply::Kind::Reject : JsReply::Kind::Throw;
  r.text = u16(message);
  r.async = async;
  return r;
}

JsReply numberReply(double n) {
  JsReply r;
  r.kind = JsReply::Kind::NonString;
  r.number = n;
  return r;
}

// JS `s.slice(-n)` for n > 0.
U16 sliceTail(const U16& s, std::size_t n) { return s.size() <= n ? s : s.substr(s.size() - n); }

const char* const kBaseTerms[] = {
    "code references", "file paths",     "function/variable names", "URLs",
    "API keys",        "error messages", "numbers",                 "technical decisions",
};

// The length the corpus' counters use: UTF-16 length of string content, else 0.
std::size_t countedLength(const CountedMessage& m) {
  if (m.content != nullptr) return m.content->size();
  return m.source->contentIsString ? m.source->content.size() : 0;
}

std::optional<js::U16View> countedContent(const CountedMessage& m) {
  if (m.content != nullptr) return js::U16View(*m.content);
  if (!m.source->contentIsString) return std::nullopt;
  return m.source->content.view();
}

// `4 + content.trim().split(/\s+/).length` (W = 0 when the trimmed content is empty).
double wordsCount(const CountedMessage& m) {
  const std::optional<js::U16View> content = countedContent(m);
  if (!content) return 4;
  js::U16View t = js::trimView(*content);
  if (t.empty()) return 4;
  // After trim the text starts and ends with non-space, so words = 1 + inner whitespace runs.
  double words = 1;
  bool inSpace = false;
  for (char16_t c : t) {
    bool space = js::isSpace(c);
    if (space && !inSpace) words += 1;
    inSpace = space;
  }
  return 4 + words;
}

}  // namespace

SummaryAnswer toSummaryAnswer(const JsReply& reply) {
  SummaryAnswer a;
  if (reply.kind == JsReply::Kind::String) {
    a.kind = SummaryAnswer::Kind::Accepted;
    a.text = reply.text;
  } else {
    a.kind = SummaryAnswer::Kind::Fallback;
  }
  return a;
}

bool isMockSummarizer(std::string_view name) {
  static const char* const kNames[] = {"first-half", "async-first-half", "first-40",
                                       "all-but-last", "throws",          "rejects",
                                       "longer",       "empty",           "non-string",
                                       "fixed"};
  for (const char* n : kNames) {
    if (name == n) return true;
  }
  return false;
}

JsReply callMockSummarizer(std::string_view name, const U16& text) {
  std::size_t n = text.size();
  if (name == "first-half") return stringReply(text.substr(0, n / 2));
  if (name == "async-first-half") return stringReply(text.substr(0, n / 2), true);
  if (name == "first-40") return stringReply(text.substr(0, 40));
  if (name == "all-but-last") return stringReply(text.substr(0, n == 0 ? 0 : n - 1));
  if (name == "throws") return errorReply(false, "mock summarizer failure");
  if (name == "rejects") return errorReply(true, "mock summarizer rejection");
  if (name == "longer") return stringReply(text + text);
  if (name == "empty") return stringReply(U16());
  if (name == "non-string") return numberReply(42);
  if (name == "fixed") return stringReply(u16("MOCK SUMMARY"));
  return errorReply(false, "unknown mock summarizer");
}

SummarizeFn makeMockSummarizer(std::string name, std::vector<U16>* calls) {
  return [name = std::move(name), calls](const U16& text) {
    if (calls != nullptr) calls->push_back(text);
    return toSummaryAnswer(callMockSummarizer(name, text));
  };
}

TokenCountFn makeTokenCounter(std::string_view name, std::size_t* calls) {
  using Fn = double (*)(const CountedMessage&);
  Fn fn = nullptr;
  if (name == "chars-div-4") {
    fn = [](const CountedMessage& m) { return std::ceil(double(countedLength(m)) / 4); };
  } else if (name == "words") {
    fn = wordsCount;
  } else if (name == "const-7") {
    fn = [](const CountedMessage&) { return 7.0; };
  } else if (name == "role-weighted") {
    fn = [](const CountedMessage& m) {
      bool tool = m.source->role.isString() && m.source->role.text == u"tool";
      return std::ceil(double(countedLength(m)) / (tool ? 3 : 5));
    };
  } else if (name == "float-div-3.5") {
    fn = [](const CountedMessage& m) { return double(countedLength(m)) / 3.5; };
  } else if (name == "zero") {
    fn = [](const CountedMessage&) { return 0.0; };
  } else if (name == "structure-aware") {
    fn = [](const CountedMessage& m) {
      double n = std::ceil(double(countedLength(m)) / 4);
      // A fresh provenance, or one carried over from the source's own metadata object.
      if (m.hasNewOriginal || m.source->hasCceOriginal) n += 3;
      if (m.source->toolCallsLength) n += 2 * *m.source->toolCallsLength;
      return n;
    };
  }
  if (fn == nullptr) return {};
  return [fn, calls](const CountedMessage& m) {
    if (calls != nullptr) ++*calls;
    TokenCount t;
    t.value = fn(m);
    return t;
  };
}

bool LlmMock::known(std::string_view name) {
  static const char* const kNames[] = {"echo-tail-30", "async-echo-tail-30", "payload-half",
                                       "too-long",     "terse-only",         "fail-first",
                                       "throws",       "rejects",            "empty",
                                       "non-string"};
  for (const char* n : kNames) {
    if (name == n) return true;
  }
  return false;
}

JsReply LlmMock::call(const U16& prompt) {
  prompts_.push_back(prompt);
  const std::string& n = name_;
  if (n == "echo-tail-30") return stringReply(sliceTail(prompt, 30));
  if (n == "async-echo-tail-30") return stringReply(sliceTail(prompt, 30), true);
  if (n == "payload-half") {
    // prompt.slice(prompt.indexOf("\n\nText:\n") + 8): indexOf's -1 makes it slice(7).
    std::size_t at = prompt.find(u"\n\nText:\n");
    std::size_t start = at == U16::npos ? 7 : at + 8;
    U16 p = start < prompt.size() ? prompt.substr(start) : U16();
    return stringReply(p.substr(0, p.size() / 2), true);
  }
  if (n == "too-long") return stringReply(prompt);
  if (n == "terse-only") {
    if (prompt.find(u"terse bullet points") != U16::npos) return stringReply(u16("TERSE SUMMARY"));
    return stringReply(prompt);
  }
  if (n == "fail-first") {
    if (prompts_.size() == 1) return errorReply(true, "mock LLM failure (first call)");
    return stringReply(u16("OK SUMMARY"), true);
  }
  if (n == "throws") return errorReply(false, "mock LLM failure");
  if (n == "rejects") return errorReply(true, "mock LLM rejection");
  if (n == "empty") return stringReply(U16());
  if (n == "non-string") return numberReply(42);
  return errorReply(false, "unknown LLM mock");
}

FactoryOptions parseFactoryOptions(const json::Value* options) {
  FactoryOptions out;
  if (options == nullptr || !options->isObject()) return out;
  // `maxResponseTokens ?? 300`: only null/absent take the default. Non-number values are outside
  // the TypeScript types and not in the corpus; they keep the default here.
  if (const json::Value* v = options->find(u"maxResponseTokens"); v != nullptr && v->isNumber()) {
    out.maxResponseTokens = v->number;
  }
  if (const json::Value* v = options->find(u"systemPrompt"); v != nullptr && v->truthy()) {
    out.systemPrompt = jsString(*v);
  }
  if (const json::Value* v = options->find(u"mode"); v != nullptr && v->isString()) {
    out.aggressive = v->string == u"aggressive";
  }
  if (const json::Value* v = options->find(u"preserveTerms"); v != nullptr && v->isArray()) {
    for (const json::Value& term : v->items) out.preserveTerms.push_back(jsString(term));
  }
  return out;
}

U16 buildFactoryPrompt(const U16& text, const FactoryOptions& options, bool aggressive) {
  std::vector<U16> terms;
  for (const char* base : kBaseTerms) terms.push_back(u16(base));
  for (const U16& extra : options.preserveTerms) {
    bool isBase = false;
    for (const char* base : kBaseTerms) isBase = isBase || js::equalsAscii(extra, base);
    if (!isBase) terms.push_back(extra);
  }
  U16 joined;
  for (std::size_t i = 0; i < terms.size(); ++i) {
    if (i > 0) joined += (i + 1 == terms.size()) ? u", and " : u", ";
    joined += terms[i];
  }

  double budget = options.maxResponseTokens;
  if (aggressive) {
    double half = std::floor(budget / 2);
    // Math.max(1, NaN) is NaN.
    budget = std::isnan(half) ? half : std::max(1.0, half);
  }

  U16 prompt;
  if (!options.systemPrompt.empty()) prompt += options.systemPrompt + u"\n\n";
  prompt += aggressive ? u"Summarize the following conversation message as terse bullet points."
                       : u"Summarize the following conversation message concisely.";
  prompt += u"\nKeep the summary under ";
  prompt += u16(js::numberToString(budget));
  prompt += u" tokens.\n\nRules:\n- Preserve all: ";
  prompt += joined;
  prompt += u"\n- Remove filler, pleasantries, and redundant explanations\n"
            u"- Keep the same technical register \u2014 do not simplify terminology\n"
            u"- Output ONLY the summary, no preamble\n\nText:\n";
  prompt += text;
  return prompt;
}

JsReply callFactorySummarizer(bool escalating, const FactoryOptions& options, LlmMock& llm,
                              const U16& text) {
  if (!escalating) return llm.call(buildFactoryPrompt(text, options, options.aggressive));
  // An async function: every outcome is a Promise, and a synchronous throw becomes a rejection.
  JsReply first = llm.call(buildFactoryPrompt(text, options, false));
  if (first.kind == JsReply::Kind::String && !first.text.empty() &&
      first.text.size() < text.size()) {
    first.async = true;
    return first;
  }
  JsReply second = llm.call(buildFactoryPrompt(text, options, true));
  if (second.kind == JsReply::Kind::Throw) second.kind = JsReply::Kind::Reject;
  second.async = true;
  return second;
}

SummarizeFn makeFactorySummarizer(bool escalating, FactoryOptions options, LlmMock* llm,
                                  std::vector<U16>* calls) {
  return [escalating, options = std::move(options), llm, calls](const U16& text) {
    if (calls != nullptr) calls->push_back(text);
    return toSummaryAnswer(callFactorySummarizer(escalating, options, *llm, text));
  };
}

}  // namespace cce::cli
