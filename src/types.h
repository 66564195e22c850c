// SPDX-License-Identifier: MIT
// Plain data shared by every stage: the engine's view of a message, options, the result plan, hooks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "callback.h"

namespace cce {

using U16 = std::u16string;

/// A JSON value reduced to what JavaScript's `===` and truthiness need (roles, ids).
/// Objects and arrays are never equal to anything (JS compares them by identity).
struct Scalar {
  enum class Kind { Missing, Null, Bool, Number, String, Composite };
  Kind kind = Kind::Missing;
  U16 text;  // String: the string; Number: JS number-to-string; Bool: "true"/"false"

  bool truthy() const;
  bool strictEquals(const Scalar& other) const;
  bool isString() const { return kind == Kind::String; }
};

/// A message's string content: its own copy, or a view of the request bytes it was read from (the
/// bytes reader of a call that keeps those bytes alive until it returns: compressBytes, whose host
/// wrote the UTF-16 units into memory). Read it as a View; every assignment makes an owned copy.
#ifdef CCE_NO_UTF16_REQUESTS
// The size build (wasm/CMakeLists.txt) reads no UTF-16 request, so it never views request bytes:
// the content is a plain string, as before views (their pointer and length cost 0.45 KB gzip of
// cce.wasm there).
class Content {
 public:
  using View = std::u16string_view;
  using size_type = std::size_t;
  static constexpr size_type npos = View::npos;

  Content() = default;
  explicit Content(U16 text) : own_(std::move(text)) {}
  Content& operator=(U16 text) {
    own_ = std::move(text);
    return *this;
  }
  Content& operator=(const char16_t* text) { return *this = U16(text); }
  /// This build never views request bytes: a copy.
  static Content borrowing(View text) { return Content(U16(text)); }
  /// The string itself, which the bytes reader reads the content into.
  U16& text() { return own_; }

  View view() const { return own_; }
  operator View() const { return own_; }  // NOLINT: read everywhere a view is taken
  size_type size() const { return own_.size(); }
  size_type length() const { return own_.size(); }
  bool empty() const { return own_.empty(); }
  const char16_t* data() const { return own_.data(); }
  char16_t operator[](size_type i) const { return own_[i]; }
  const char16_t* begin() const { return own_.data(); }
  const char16_t* end() const { return own_.data() + own_.size(); }
  char16_t back() const { return own_.back(); }
  size_type find(View what, size_type from = 0) const { return view().find(what, from); }
  size_type find(char16_t what, size_type from = 0) const { return own_.find(what, from); }
  size_type rfind(View what, size_type from = npos) const { return view().rfind(what, from); }
  size_type rfind(char16_t what, size_type from = npos) const { return own_.rfind(what, from); }
  View substr(size_type from, size_type n = npos) const { return view().substr(from, n); }
  int compare(View other) const { return view().compare(other); }
  friend bool operator==(const Content& a, View b) { return a.view() == b; }
  friend bool operator==(View a, const Content& b) { return a == b.view(); }
  friend bool operator==(const Content& a, const Content& b) { return a.own_ == b.own_; }
  friend bool operator==(const Content& a, const U16& b) { return a.own_ == b; }
  friend bool operator==(const Content& a, const char16_t* b) { return a.own_ == b; }
  friend bool operator!=(const Content& a, View b) { return !(a == b); }
  friend bool operator!=(const Content& a, const U16& b) { return !(a == b); }
  friend bool operator!=(const Content& a, const char16_t* b) { return !(a == b); }
  friend bool operator<(const Content& a, const Content& b) { return a.own_ < b.own_; }

  /// An owned copy of the text.
  U16 str() const { return own_; }

 private:
  U16 own_;
};

inline U16& operator+=(U16& to, const Content& text) { return to += text.view(); }
#else
class Content {
 public:
  using View = std::u16string_view;
  using size_type = std::size_t;
  static constexpr size_type npos = View::npos;

  Content() = default;
  // Explicit, so that `cond ? content : someU16` cannot make a temporary Content to view into.
  explicit Content(U16 text) : own_(std::move(text)) { pointAtOwn(); }
  Content(const Content& other) : own_(other.own_), data_(other.data_), size_(other.size_) {
    if (other.owned()) pointAtOwn();
  }
  Content(Content&& other) noexcept { *this = std::move(other); }
  Content& operator=(const Content& other) {
    if (this != &other) {
      own_ = other.own_;
      data_ = other.data_;
      size_ = other.size_;
      if (other.owned()) pointAtOwn();
    }
    return *this;
  }
  Content& operator=(Content&& other) noexcept {
    if (this != &other) {
      const bool owned = other.owned();
      own_ = std::move(other.own_);
      data_ = other.data_;
      size_ = other.size_;
      if (owned) pointAtOwn();
      other.clearView();
    }
    return *this;
  }
  Content& operator=(U16 text) {
    own_ = std::move(text);
    pointAtOwn();
    return *this;
  }
  Content& operator=(const char16_t* text) { return *this = U16(text); }

  /// Views `text` without copying it; the caller keeps `text` alive as long as this content.
  static Content borrowing(View text) {
    Content c;
    c.data_ = text.data();
    c.size_ = text.size();
    return c;
  }

  // Every read is of the view (one pointer and a length, no short-string branch).
  View view() const { return View(data_, size_); }
  operator View() const { return view(); }  // NOLINT: read everywhere a view is taken
  size_type size() const { return size_; }
  size_type length() const { return size_; }
  bool empty() const { return size_ == 0; }
  const char16_t* data() const { return data_; }
  char16_t operator[](size_type i) const { return data_[i]; }
  const char16_t* begin() const { return data_; }
  const char16_t* end() const { return data_ + size_; }
  char16_t back() const { return data_[size_ - 1]; }
  size_type find(View what, size_type from = 0) const { return view().find(what, from); }
  size_type find(char16_t what, size_type from = 0) const { return view().find(what, from); }
  size_type rfind(View what, size_type from = npos) const { return view().rfind(what, from); }
  size_type rfind(char16_t what, size_type from = npos) const { return view().rfind(what, from); }
  View substr(size_type from, size_type n = npos) const { return view().substr(from, n); }
  int compare(View other) const { return view().compare(other); }
  friend bool operator==(const Content& a, View b) { return a.view() == b; }
  friend bool operator==(View a, const Content& b) { return a == b.view(); }
  friend bool operator==(const Content& a, const Content& b) { return a.view() == b.view(); }
  friend bool operator==(const Content& a, const U16& b) { return a.view() == View(b); }
  friend bool operator==(const Content& a, const char16_t* b) { return a.view() == View(b); }
  friend bool operator!=(const Content& a, View b) { return !(a == b); }
  friend bool operator!=(const Content& a, const U16& b) { return !(a == b); }
  friend bool operator!=(const Content& a, const char16_t* b) { return !(a == b); }
  friend bool operator<(const Content& a, const Content& b) { return a.view() < b.view(); }

  /// An owned copy of the text.
  U16 str() const { return U16(view()); }

 private:
  bool owned() const { return !own_.empty() && data_ == own_.data(); }
  void pointAtOwn() {
    data_ = own_.empty() ? nullptr : own_.data();  // an empty text views nothing, owned or not
    size_ = own_.size();
  }
  void clearView() {
    data_ = nullptr;
    size_ = 0;
  }

  U16 own_;                        // the text when owned (an empty own_ may be either)
  const char16_t* data_ = nullptr;  // the text: own_'s units or the request bytes
  size_type size_ = 0;
};

inline U16& operator+=(U16& to, const Content& text) { return to.append(text.data(), text.size()); }
#endif


/// One element of an array `content` (OpenAI `text`/`image_url`, Anthropic `text`/`image`/
/// `tool_use`/`tool_result`/`thinking` blocks). Only the safe mode reads them; compat mode counts
/// array content as "" like the reference.
struct ContentPart {
  enum class Kind : std::uint8_t { Text, Image, Other };
  Kind kind = Kind::Other;
  /// Text: the part's `text`; Other: JSON.stringify(part), which its token estimate is taken over;
  /// Image (`image_url`, `image`, `input_image`): empty, it costs options.imageTokens.
  U16 text;
  /// Image: its price by pixel size, when the host read it from the inline data's header
  /// (js/src/engine.ts encodeParts); negative: unknown, options.imageTokens.
  double imageTokens = -1;
};

/// What the engine reads from one input message (spec §1.2). Everything else about the message
/// stays with the host, which rebuilds output objects from the plan (see OutputMessage): the JSON
/// layer from its parsed objects, the JS layer from the caller's own objects.
struct Message {
  Scalar id;                 // required (non-null); `idKey` is String(id), the verbatim/lookup key
  U16 idKey;
  Scalar role;
  bool contentIsString = false;
  Content content;           // only when contentIsString
  /// What `content` is, for the default mode's validation (chat APIs accept a string, an array of
  /// content parts, or null/nothing beside tool calls).
  enum class ContentKind : std::uint8_t { Absent, String, Array, Other };
  ContentKind contentKind = ContentKind::Absent;  // Absent: null, undefined or no field
  std::optional<std::size_t> badPart;  // first element of an array `content` that is not a part
  bool hasToolCalls = false;          // `tool_calls` is an array with length > 0
  std::optional<double> toolCallsLength;  // `tool_calls.length` when it is an array
  bool hasMetadata = false;           // `metadata` is truthy
  bool metadataIsObject = false;      // `metadata` is a non-null, non-array object
  bool hasCceOriginal = false;        // `metadata._cce_original` is truthy
  std::optional<U16> cceSummaryId;    // `metadata._cce_original.summary_id` when it is a string
  std::vector<Scalar> cceIds;         // `metadata._cce_original.ids` when it is an array
  bool cceIdsIsArray = false;
  bool hasToolCallId = false;         // a `tool_call_id` field is present (an answer to a tool call)
  /// What the default mode's billing estimate adds for `tool_calls`: toolCallTokens (pipeline.h)
  /// of every element, summed by the request readers. The bytes request carries the texts only
  /// when that estimate is the counter (docs/boundary.md); otherwise it stays 0, unread.
  double toolCallTokens = 0;

  /// The elements of an array `content`, in order (filled by the request readers).
  std::vector<ContentPart> parts;
  /// Safe mode, set on the engine's working copy only (see textOfParts in pipeline.h): `content`
  /// holds the text parts joined with "\n" and `contentIsString` is true, so every stage treats it
  /// as text; the host puts a replaced text back into the parts.
  bool multimodal = false;
  /// `content` (or, for an array content, its text parts joined with "\n") as the host's
  /// String.prototype.toLowerCase returned it. The wasm size build has no case tables
  /// (CCE_NO_CASE_TABLES), so the JS layer sends this for fuzzy dedup (docs/boundary.md); elsewhere
  /// it is absent and dedup lower-cases itself. Lower-casing the whole text and then splitting and
  /// trimming its lines gives the lines fuzzy dedup lower-cases one by one (tests/dedup_test.cpp).
  std::optional<U16> lowered;

  std::size_t length() const { return contentIsString ? content.size() : 0; }

  /// Script estimate of the content, filled on first use: a budget search counts every unchanged
  /// message once per run, which must not cost a pass over its text each time.
  mutable std::optional<double> scriptTokens;
  /// Script estimate of the Other parts of a multimodal message, filled on first use.
  mutable std::optional<double> otherPartsScriptTokens;

  // Out of line (types.cpp): a message has a dozen members with storage, and inlined copies of
  // their construction and destruction at every early return of the request readers made those
  // several KB of wasm larger.
  Message();
  ~Message();
  Message(const Message&);
  Message(Message&&) noexcept;
  Message& operator=(const Message&);
  Message& operator=(Message&&) noexcept;
};

/// Which behaviour the engine follows.
///  * Safe (the default): the reference's pipeline with its known defects fixed — tool results are
///    never merged (no orphaned tool calls), forceConverge leaves untouched messages alone (exact
///    round trip), and statistics describe the final output.
///  * Cce10 (`compat: "cce-1.0"`): context-compression-engine 1.0.0 byte for byte.
enum class Compat { Safe, Cce10 };

/// The built-in token estimate, used when no tokenCounter is given (`options.tokenEstimate`).
///  * Script: estimateTokens (token_estimate.h), aware of CJK and other scripts; the safe default.
///  * Chars: the reference's ceil(len / 3.5) over UTF-16 units; the compat default.
enum class TokenEstimate { Script, Chars };

// ---- hooks: work the host may do on the engine's behalf ------------------------------------------

/// The host's answer to one summarization request (spec §10.1).
struct SummaryAnswer {
  enum class Kind { Accepted, Fallback, Pending };
  Kind kind = Kind::Fallback;
  U16 text;  // Accepted only: the summarizer's string result, as returned. The engine itself
             // applies the reference's rule (non-empty and strictly shorter, else deterministic).
};

/// Called once per request, in the reference's call order. Returning Pending means "not known yet":
/// the engine finishes the current pass (collecting every request of it) and then stops with
/// `CompressResult::pending` set, so a host can supply answers asynchronously and re-run.
using SummarizeFn = Callback<SummaryAnswer(const U16& text)>;

/// A message as the token counter sees it: an input message, or the output built from it.
struct CountedMessage {
  const Message* source = nullptr;    // the input message the output is built from
  std::size_t sourceIndex = 0;
  const U16* content = nullptr;       // replacement content, or nullptr for the source's own
#ifndef CCE_NO_REMEMBERED_ESTIMATES
  std::optional<double>* contentScriptTokens = nullptr;  // its remembered estimate, if it has one
#endif
  bool hasNewOriginal = false;        // carries a freshly written metadata._cce_original
  const struct Provenance* provenance = nullptr;  // that _cce_original, when hasNewOriginal
  bool ensureMetadata = false;        // forceConverge clone: `metadata: {}` added when missing
  /// A multimodal source counted by a host counter: the counter sees its text as a string
  /// `content` (the text parts joined, or the replacement); non-text parts are estimated apart.
  bool textView = false;
};

struct TokenCount {
  double value = 0;
  bool pending = false;  // like SummaryAnswer::Pending
};
using TokenCountFn = Callback<TokenCount(const CountedMessage&)>;

// ---- options ---------------------------------------------------------------------------------

struct CompressOptions {
  std::vector<U16> preserve = {u"system"};
  double recencyWindow = 4;
  double sourceVersion = 0;
  std::optional<double> tokenBudget;
  double minRecencyWindow = 0;
  bool dedup = true;
  bool fuzzyDedup = false;
  double fuzzyThreshold = 0.85;
  bool embedSummaryId = false;
  /// Unset: on in the safe mode when tokenBudget is set (the search is followed by truncation and
  /// the escalation ladder), off in compat mode. An explicit false keeps the plain search.
  std::optional<bool> forceConverge;
  Compat compat = Compat::Safe;
  /// Unset: Script in the safe mode, Chars in compat mode.
  std::optional<TokenEstimate> tokenEstimate;
  /// Safe mode, built-in estimates: the cost of one image part of an array content. 765 is what
  /// OpenAI charges for a 1024 x 1024 image in high detail (85 + 4 tiles x 170).
  double imageTokens = 765;
  /// `options.maxInputBytes` as given (the request size limit, validation.h): unset when absent or
  /// null, NaN when not a finite number (the default mode reports that; the reference mode, like
  /// the size check, then keeps the default limit).
  std::optional<double> maxInputBytes;
  SummarizeFn summarizer;     // empty: deterministic only (the reference's sync mode)
  TokenCountFn tokenCounter;  // empty: defaultTokenCounter
};

// ---- result: a plan the host materialises --------------------------------------------------------

/// `metadata._cce_original` written onto a replaced message (spec §1.6).
struct Provenance {
  std::vector<std::size_t> sources;  // input indices, in group order (ids are taken from these)
  U16 summaryId;
  std::vector<U16> parentIds;        // written only when non-empty
  double version = 0;
};

/// One output message. `content` unset: the source's own object (unchanged, or only cloned by
/// forceConverge). `provenance` set: `{...source, content, metadata: {...source.metadata,
/// _cce_original}}`. Content set without provenance: forceConverge truncating a message that already
/// carries `_cce_original`, where only `content` is replaced.
///
/// A replaced text remembers its script-aware token estimate until the text changes (every
/// assignment forgets it): a budget search counts the same summaries on every run, twice per run.
/// The size-built module (wasm/CMakeLists.txt) estimates them again each time: 0.35 KB gzip.
#ifdef CCE_NO_REMEMBERED_ESTIMATES
using ReplacementContent = std::optional<U16>;
#else
class ReplacementContent {
 public:
  ReplacementContent() = default;
  ReplacementContent& operator=(U16 text) {
    text_ = std::move(text);
    scriptTokens_.reset();
    return *this;
  }
  /// Back to "unset": the source's own content (forgets the estimate too).
  void reset() {
    text_.reset();
    scriptTokens_.reset();
  }
  explicit operator bool() const { return text_.has_value(); }
  bool has_value() const { return text_.has_value(); }
  const U16& operator*() const { return *text_; }
  const U16* operator->() const { return &*text_; }
  /// The remembered estimate of the text (see estimateMessageTokens), filled on first use.
  std::optional<double>& scriptTokens() const { return scriptTokens_; }

 private:
  std::optional<U16> text_;
  mutable std::optional<double> scriptTokens_;
};
#endif

struct OutputMessage {
  std::size_t source = 0;
  ReplacementContent content;
  std::optional<Provenance> provenance;
  bool ensureMetadata = false;  // forceConverge clone: `metadata: m.metadata ? {...m.metadata} : {}`
};

/// One `verbatim` entry: `verbatim[key] = input[source]` (cloned with `metadata: {}` by forceConverge).
struct VerbatimEntry {
  U16 key;
  std::size_t source = 0;
  bool ensureMetadata = false;
};

struct CompressionStats {
  double originalVersion = 0;
  double ratio = 1;
  double tokenRatio = 1;
  std::size_t messagesCompressed = 0;
  std::size_t messagesPreserved = 0;
  std::size_t messagesDeduped = 0;       // written only when > 0
  std::size_t messagesFuzzyDeduped = 0;  // written only when > 0
  std::size_t messagesTruncated = 0;     // safe mode only, written only when > 0
  std::size_t messagesOmitted = 0;       // safe mode only (omission stubs), written only when > 0
};

struct BudgetOutcome {
  bool fits = false;
  double tokenCount = 0;
  double recencyWindow = 0;
  /// Safe mode, when the budget cannot be met: input indices of the messages no compression step
  /// may replace (preserved roles, the newest user turn, tool-call groups with no room for a
  /// stub), in input order. Written as `blockingIds` (their ids) only when non-empty.
  std::vector<std::size_t> blocking;
};

struct CompressResult {
  std::vector<OutputMessage> messages;
  CompressionStats compression;
  /// Insertion order with JS overwrite semantics: a repeated key keeps its first position and takes
  /// the later value (the JSON writer then lists integer-like keys first, as JS does).
  std::vector<VerbatimEntry> verbatim;
  std::optional<BudgetOutcome> budget;  // present exactly on tokenBudget runs
  /// Budget fast path: the reference returns the input array itself as `messages`.
  bool fastPath = false;
  /// True when a hook answered Pending: the plan is incomplete and must not be used.
  bool pending = false;
};

/// Spec §1.8: ceil(len / 3.5) over the UTF-16 length of string content, else 0.
inline double defaultTokenCount(std::size_t contentLength) {
  return static_cast<double>((2 * contentLength + 6) / 7);
}

}  // namespace cce
