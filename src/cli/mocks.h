// SPDX-License-Identifier: MIT
// Native stand-ins for the corpus' JS mocks: summarizers, token counters, LLM mocks, LLM factories.
//
// The conformance corpus (shared/conformance/public/README.md) names every hook a case ran with.
// These are exact re-implementations of those named JS functions over UTF-16 strings, so a native
// run can reproduce the reference's output and its call sequences. Test tooling, not product code.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "json/value.h"
#include "types.h"

namespace cce::cli {

/// What a JS function returned or threw: the four shapes the corpus distinguishes.
struct JsReply {
  enum class Kind { String, NonString, Throw, Reject };
  Kind kind = Kind::String;
  U16 text;            // String: the value; Throw/Reject: the error message
  double number = 0;   // NonString: every non-string mock returns a number (42)
  bool async = false;  // the value came as a Promise (resolve / reject)
};

/// The engine-side answer for a summarizer reply: any string is offered (the engine applies the
/// non-empty / strictly-shorter rule itself, spec §10.1); anything else falls back.
SummaryAnswer toSummaryAnswer(const JsReply& reply);

/// The async-case mock summarizers by name (`first-half`, `fixed`, ...). False for an unknown name.
bool isMockSummarizer(std::string_view name);
JsReply callMockSummarizer(std::string_view name, const U16& text);

/// A hook that records every text it is called with into `calls` and answers like mock `name`.
/// Precondition: isMockSummarizer(name). `calls` must outlive the hook.
SummarizeFn makeMockSummarizer(std::string name, std::vector<U16>* calls);

/// The named token counters (`chars-div-4`, `words`, ...). An empty function for an unknown name.
/// `calls` (optional) counts invocations, for information only.
TokenCountFn makeTokenCounter(std::string_view name, std::size_t* calls = nullptr);

/// One LLM mock instance of a case (`fail-first` is stateful per instance); records its prompts.
class LlmMock {
 public:
  static bool known(std::string_view name);
  explicit LlmMock(std::string name) : name_(std::move(name)) {}
  JsReply call(const U16& prompt);
  const std::vector<U16>& prompts() const { return prompts_; }

 private:
  std::string name_;
  std::vector<U16> prompts_;
};

/// `CreateSummarizerOptions` as the reference reads them (spec §10.3).
struct FactoryOptions {
  double maxResponseTokens = 300;
  U16 systemPrompt;  // empty: no prefix
  bool aggressive = false;
  std::vector<U16> preserveTerms;
};

/// Reads the JSON options argument of a factory call (nullptr: the factory got no options).
FactoryOptions parseFactoryOptions(const json::Value* options);

/// The prompt the factories send for `text`, in normal or aggressive mode.
U16 buildFactoryPrompt(const U16& text, const FactoryOptions& options, bool aggressive);

/// One call of the summarizer a factory built around `llm`: createSummarizer (escalating = false)
/// or createEscalatingSummarizer (escalating = true).
JsReply callFactorySummarizer(bool escalating, const FactoryOptions& options, LlmMock& llm,
                              const U16& text);

/// A hook over callFactorySummarizer that records the texts into `calls`. `llm` and `calls` must
/// outlive the hook.
SummarizeFn makeFactorySummarizer(bool escalating, FactoryOptions options, LlmMock* llm,
                                  std::vector<U16>* calls);

}  // namespace cce::cli
