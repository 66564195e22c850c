// SPDX-License-Identifier: MIT
// The context manager core: budget arithmetic, boundaries, checkpoints, aging, the view.
#include "context/context.h"
#include "context/summary_ledger.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <string_view>
#include <utility>

#include "jscompat/json_writer.h"
#include "jscompat/number.h"
#include "jscompat/string.h"
#include "summarizer.h"
#include "token_estimate.h"
#include "types.h"

namespace cce::context {
namespace {

using U16View = std::u16string_view;

// Header line of a summary section ("[Summary of messages 13-340]\n") in default tokens, for
// estimates made before the summary exists.
constexpr double kSectionHeaderTokens = 12;
constexpr std::size_t kArgumentsInTranscript = 200;
constexpr std::size_t kToolNamesInStats = 8;
// The share of a deterministic summary (after its stats line) the artifacts line may take: the
// replays of scripts/bench-cost.mjs kept far more of what the next call used from a line of the
// range's own strings than from as many units of the summariser's sentences (docs/cache-cost.md);
// 0.95 since the line leaves out items a longer one holds (0.8 before: the line was longer).
constexpr double kArtifactsShare = 0.95;

U16 u16(const std::string& ascii) { return js::fromAscii(ascii); }

// `pattern` with each "{}" replaced by the next of `numbers`, as JavaScript writes them (counts
// are integers far below 2^53, so they read as their decimals). One out-of-line call per text,
// where a chain of operator+ built and freed a temporary string for each number. The pattern is
// a literal, read to its end here: a string_view parameter cost a call at each of the 28 sites.
std::string format(const char* pattern, std::initializer_list<double> numbers) {
  std::string out;
  const double* next = numbers.begin();
  for (const char* c = pattern; *c; ++c) {
    if (c[0] == '{' && c[1] == '}' && next != numbers.end()) {
      out += js::numberToString(*next++);
      ++c;
    } else {
      out += *c;
    }
  }
  return out;
}
double asNumber(std::size_t n) { return static_cast<double>(n); }

std::uint64_t fnv1a(const void* data, std::size_t bytes, std::uint64_t h = 1469598103934665603ull) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < bytes; ++i) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return h;
}

std::string hex(std::uint64_t h) {
  static const char* kDigits = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i, h >>= 4) out[static_cast<std::size_t>(i)] = kDigits[h & 15];
  return out;
}

const U16* stringContent(const Value& m) {
  const Value* c = m.find(u"content");
  return c && c->isString() ? &c->string : nullptr;
}

// Derived facts about the history, shared by every step of one operation.
// The index (group starts, prefix sums) is the state's HistoryIndex, brought up to date here: a
// Frame costs the messages appended since the last one, not the history.
struct Frame {
  const State& st;
  std::size_t n = 0, sysEnd = 0, headEnd = 0, lastStart = 0;
  const std::vector<std::size_t>& starts;
  const std::vector<double>& prefix;
  double system = 0, available = 0, threshold = 0;

  explicit Frame(const State& s)
      : st(s), starts((s.index.update(s.messages, s.tokens), s.index.starts)),
        prefix(s.index.prefix) {
    const Config& c = s.config;
    n = s.messages.size();
    sysEnd = s.index.sysEnd;
    headEnd = c.keepFirst > 0 ? alignDown(std::min(n, sysEnd + c.keepFirst)) : sysEnd;
    lastStart = n > sysEnd ? starts[n - 1] : n;
    if (c.systemPromptTokens) {
      system = *c.systemPromptTokens;
    } else {
      for (std::size_t i = 0; i < sysEnd; ++i) system += s.tokens[i];
    }
    available = c.contextWindow - system - c.promptBudget - c.safetyMargin;
    threshold = thresholdTokens(c.threshold, available);
  }

  double sum(std::size_t a, std::size_t b) const { return prefix[b] - prefix[a]; }
  std::size_t alignDown(std::size_t x) const { return x >= n ? n : starts[x]; }
  std::size_t nextStart(std::size_t x) const {
    std::size_t j = x + 1;
    while (j < n && starts[j] != j) ++j;
    return std::min(j, n);
  }
};

bool holds(const std::vector<U16>& ids, const U16& id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

// Adds the argument names not yet in `keys`, up to kToolKeysInStats.
void addToolKeys(std::vector<U16>& keys, const std::vector<U16>& more) {
  for (const U16& key : more) {
    if (keys.size() >= kToolKeysInStats) return;
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
  }
}

// ---- counting -----------------------------------------------------------------------------------

// OpenAI's cost of one high-detail 1024x1024 image, as compress's default `imageTokens`.
constexpr double kImagePartTokens = 765;

bool isImagePart(const Value& type) {
  return type.isString() &&
         (type.string == u"image_url" || type.string == u"image" || type.string == u"input_image");
}

// The built-in counts: the reference's length formula over string content, or the script-aware
// estimate, which also prices array content like compress's default mode (text parts by their
// text, images at a flat rate, other parts by their JSON).
double builtInCount(const Config& config, const Value& message) {
  const Value* content = message.find(u"content");
  if (!content) return 0;
  if (!config.scriptEstimate) {
    return content->isString() ? defaultTokenCount(content->string.size()) : 0;
  }
  if (content->isString()) return estimateTokens(content->string);
  if (!content->isArray()) return 0;
  double tokens = 0;
  for (const Value& part : content->items) {
    const Value* type = part.isObject() ? part.find(u"type") : nullptr;
    const Value* text = part.isObject() ? part.find(u"text") : nullptr;
    if (type && type->isString() && type->string == u"text" && text && text->isString()) {
      tokens += estimateTokens(text->string);
    } else if (type && isImagePart(*type)) {
      tokens += kImagePartTokens;
    } else {
      tokens += estimateTokens(js::fromUtf8(js::toJson(part)));
    }
  }
  return tokens;
}

void requestCount(Host& host, std::string key, const Value& message) {
  for (const CountRequest& r : host.pendingCounts) {
    if (r.key == key) return;
  }
  host.pendingCounts.push_back(CountRequest{std::move(key), message});
}

// The host's count for `key` (ASCII), or null.
const Value* hostCount(const Host& host, const std::string& key) {
  if (!host.counts) return nullptr;
  const U16 wanted = js::fromAscii(key);
  const std::vector<json::Member>& members = host.counts->members;
  const std::vector<std::size_t>& order = host.countsByKey;
  std::size_t low = 0, high = order.size();
  while (low < high) {
    const std::size_t middle = low + (high - low) / 2;
    if (members[order[middle]].key < wanted) {
      low = middle + 1;
    } else {
      high = middle;
    }
  }
  if (low == order.size() || members[order[low]].key != wanted) return nullptr;
  return &members[order[low]].value;
}

// A count from the default counter or the host's answers (else pending, 0).
double countMessage(const Config& config, Host& host, const Value& message) {
  if (!config.tokenCounter) return builtInCount(config, message);
  std::string key = countKey(message);
  if (const Value* count = hostCount(host, key)) return count->number;
  requestCount(host, std::move(key), message);
  return 0;
}

Value canonicalSummaryMessage(const U16& content) {
  Value m = Value::object();
  m.appendString(u"role", u"system");
  m.appendString(u"content", content);
  return m;
}

// ---- projection -------------------------------------------------------------------------------

struct Segment {
  bool summary = false;
  std::size_t start = 0, end = 0;       // history range
  std::size_t firstCp = 0, lastCp = 0;  // summary: checkpoint indices [firstCp, lastCp]
  const SummaryRun* run = nullptr;  // summary: its text and count key (in the state's memo, valid
                                    // until the next projection)
  double tokens = 0;
};

U16 sectionText(const Checkpoint& cp) {
  U16 out = u16(format("[Summary of messages {}-{}]\n", {asNumber(cp.start + 1), asNumber(cp.end)}));
  out += cp.summary;
  return out;
}

// The summary message of checkpoints [first, last]: the state's memo of it when its checkpoints
// are unchanged, else built and counted once. Runs used move to `kept` (the memo's next runs).
const SummaryRun* summaryRun(const Frame& f, const std::vector<Checkpoint>& cps, std::size_t first,
                             std::size_t last, std::vector<std::unique_ptr<SummaryRun>>& kept) {
  // Each checkpoint's id, then its numbers as raw units (no text: this runs on every call).
  U16 identity;
  auto put = [&identity](std::uint64_t x) {
    for (int k = 0; k < 4; ++k, x >>= 16) identity += static_cast<char16_t>(x & 0xffff);
  };
  for (std::size_t k = first; k <= last; ++k) {
    const Checkpoint& cp = cps[k];
    put(cp.id.size());
    identity += cp.id;
    put(cp.start);
    put(cp.end);
    put(cp.summary.size());
    put(static_cast<std::uint64_t>(cp.level) * 2 + (cp.hostSummary ? 1 : 0));
  }
  SummaryMemo& memo = f.st.summaryRuns;
  for (std::unique_ptr<SummaryRun>& known : memo.runs) {
    if (known && known->identity == identity) {
      kept.push_back(std::move(known));
      return kept.back().get();
    }
  }
  auto run = std::make_unique<SummaryRun>();
  run->identity = std::move(identity);
  for (std::size_t k = first; k <= last; ++k) {
    if (k > first) run->content += u"\n\n";
    run->content += sectionText(cps[k]);
  }
  Value canonical = canonicalSummaryMessage(run->content);
  if (f.st.config.tokenCounter) {
    run->countKey = countKey(canonical);
  } else {
    run->tokens = builtInCount(f.st.config, canonical);
  }
  run->hash = fnv1a(run->identity.data(), run->identity.size() * sizeof(char16_t));
  run->hash = fnv1a(run->content.data(), run->content.size() * sizeof(char16_t), run->hash);
  ++memo.built;
  kept.push_back(std::move(run));
  return kept.back().get();
}

// The count of a summary message: built in, or the host's (cached in the ledger, else asked).
double runTokens(const Config& config, const Ledger& l, Host& host, const SummaryRun& run) {
  if (!config.tokenCounter) return run.tokens;
  if (const Value* count = l.summaryTokens.find(js::fromAscii(run.countKey))) return count->number;
  if (const Value* count = hostCount(host, run.countKey)) return count->number;
  requestCount(host, run.countKey, canonicalSummaryMessage(run.content));
  return 0;
}

std::vector<Segment> project(const Frame& f, const Ledger& l, Host& host) {
  std::vector<Segment> out;
  // The memo keeps the runs of this projection (a compress's new ledger replaces the old runs).
  std::vector<std::unique_ptr<SummaryRun>> kept;
  std::size_t pos = f.sysEnd;
  const std::vector<Checkpoint>& cps = l.checkpoints;
  for (std::size_t i = 0; i < cps.size(); ++i) {
    if (cps[i].start > pos) {
      Segment raw;
      raw.start = pos;
      raw.end = cps[i].start;
      for (std::size_t k = raw.start; k < raw.end; ++k) raw.tokens += f.st.tokens[k];
      out.push_back(std::move(raw));
    }
    // One summary message per checkpoint: a compress that adds a checkpoint after the others
    // leaves their messages byte-identical, so a provider's prompt cache still holds them
    // (docs/cache-cost.md); one message for a run rewrote every older summary.
    Segment run;
    run.summary = true;
    run.firstCp = i;
    run.lastCp = i;
    run.start = cps[run.firstCp].start;
    run.end = cps[i].end;
    run.run = summaryRun(f, cps, run.firstCp, run.lastCp, kept);
    run.tokens = runTokens(f.st.config, l, host, *run.run);
    out.push_back(std::move(run));
    pos = cps[i].end;
  }
  if (pos < f.n) {
    Segment raw;
    raw.start = pos;
    raw.end = f.n;
    raw.tokens = f.st.index.tailTokens(f.st.tokens, raw.start, raw.end);
    out.push_back(std::move(raw));
  }
  f.st.summaryRuns.runs = std::move(kept);
  return out;
}

// ---- planning ---------------------------------------------------------------------------------

struct Plan {
  bool any = false;
  std::size_t start = 0, end = 0;
  std::size_t keepCut = 0;
  bool extended = false;  // keeps fewer than keepLast recent messages so the view can fit
};

double estimateSummary(const Frame& f, double originalTokens) {
  return summaryBudget(levelForInput(originalTokens), originalTokens, f.available) +
         kSectionHeaderTokens;
}

Plan planCompression(const Frame& f, const Ledger& l) {
  Plan plan;
  if (f.n <= f.sysEnd || f.lastStart <= f.headEnd) return plan;
  const std::size_t keepLast = f.st.config.keepLast;
  std::size_t target = f.n > keepLast ? f.n - keepLast : 0;
  plan.keepCut = std::min(f.alignDown(std::max(target, f.headEnd)), f.lastStart);
  std::size_t pos = f.headEnd;
  for (const Checkpoint& cp : l.checkpoints) {
    if (cp.start > pos && pos < plan.keepCut) {  // a range left uncovered (undo) comes first
      plan.any = true;
      plan.start = pos;
      plan.end = std::min(cp.start, plan.keepCut);
      return plan;
    }
    pos = std::max(pos, cp.end);
  }
  // The trailing range: up to the keepLast cut, further (group by group) while the view would not
  // fit the available tokens.
  double summaries = 0, covered = 0;
  for (const Checkpoint& cp : l.checkpoints) {
    summaries += cp.compressedTokens + kSectionHeaderTokens;
    covered += f.sum(cp.start, cp.end);
  }
  const double raw = f.sum(f.sysEnd, f.n) - covered;
  const std::size_t s = pos;
  std::size_t e = std::max(plan.keepCut, s);
  auto projected = [&](std::size_t end) {
    double t = f.sum(s, end);
    return summaries + raw - t + (end > s ? estimateSummary(f, t) : 0);
  };
  while (projected(e) > f.available && e < f.lastStart) {
    e = f.nextStart(e);
    plan.extended = true;
  }
  if (e > s) {
    plan.any = true;
    plan.start = s;
    plan.end = e;
  }
  return plan;
}

// ---- usage, view, validation --------------------------------------------------------------------

Usage usageOf(const Frame& f, const Ledger& l, const std::vector<Segment>& segments) {
  Usage u;
  u.system = f.system;
  for (const Segment& s : segments) (s.summary ? u.checkpoints : u.recent) += s.tokens;
  u.conversation = u.checkpoints + u.recent;
  u.total = u.system + u.conversation;
  u.available = f.available;
  u.threshold = f.threshold;
  u.percent = f.available > 0 ? std::floor(u.conversation * 1000 / f.available + 0.5) / 10 : 100;
  u.messages = f.n;
  u.activeCheckpoints = l.checkpoints.size();
  u.overThreshold = u.conversation > u.threshold;
  u.canCompress = planCompression(f, l).any;
  u.shouldCompress = u.overThreshold && u.canCompress;
  return u;
}

enum class Side { None, User, Assistant };

Side sideOf(Turn turn) {
  if (turn.role == Turn::Role::User || turn.role == Turn::Role::Tool) return Side::User;
  if (turn.role == Turn::Role::Assistant) return Side::Assistant;
  return Side::None;
}

const char16_t* summaryRole(Side before, Side after) {
  if (before != Side::User && after == Side::Assistant) return u"user";
  if (before == Side::User && after == Side::User) return u"assistant";
  return u"system";
}

Value summaryMessage(const Ledger& l, const Segment& run, const char16_t* role) {
  Value ids = Value::array();
  for (std::size_t k = run.firstCp; k <= run.lastCp; ++k) {
    ids.items.push_back(Value::fromString(l.checkpoints[k].id));
  }
  Value metadata = Value::object();
  metadata.appendNumber(u"covered_until", static_cast<double>(run.end));
  metadata.append(u"checkpoints", std::move(ids));
  Value m = Value::object();
  m.appendString(u"id", u"cce-summary-" + l.checkpoints[run.firstCp].id);
  m.appendString(u"role", role);
  m.appendString(u"content", u"");  // filled when sent (viewOf)
  m.append(u"metadata", std::move(metadata));
  return m;
}

// The view as a list: history messages by pointer (never copied to be validated), summary
// messages owned by `summaries`.
struct ViewList {
  std::vector<const Value*> messages;
  std::vector<Turn> turns;         // of each message (the history index has the history's)
  std::vector<long> sources;       // history index, -1 for a summary message
  std::vector<Value> summaries;    // reserved before use: `messages` points into it
  std::vector<const SummaryRun*> runs;  // each summary's run (its content is filled in last)
  std::uint64_t summaryHash = 1469598103934665603ull;  // of the runs and roles (summaryKey)
};


void buildMessages(const Frame& f, const Ledger& l, const std::vector<Segment>& segments,
                   ViewList& out) {
  const std::vector<Value>& h = f.st.messages;
  const std::vector<Turn>& turns = f.st.index.turns;  // the history's, kept with the index
  std::size_t runs = 0;
  for (const Segment& s : segments) runs += s.summary ? 1 : 0;
  out.summaries.reserve(runs);
  Side last = Side::None;
  auto emit = [&](const Value& m, Turn turn, long source) {
    Side side = sideOf(turn);
    if (side != Side::None) last = side;
    out.messages.push_back(&m);
    out.turns.push_back(turn);
    out.sources.push_back(source);
  };
  for (std::size_t i = 0; i < f.sysEnd; ++i) emit(h[i], turns[i], static_cast<long>(i));
  for (std::size_t k = 0; k < segments.size(); ++k) {
    const Segment& s = segments[k];
    if (!s.summary) {
      for (std::size_t i = s.start; i < s.end; ++i) emit(h[i], turns[i], static_cast<long>(i));
      continue;
    }
    // Adjacent summary messages form a run: its first message takes the role the joint needs
    // and the others are "system", so a checkpoint added at the end of the run changes no older
    // summary message. The run's side after it: the first user/assistant-side message after its
    // last summary, unless another run comes first.
    const bool continuesRun = k > 0 && segments[k - 1].summary && segments[k - 1].end == s.start;
    std::size_t runEnd = k;
    while (runEnd + 1 < segments.size() && segments[runEnd + 1].summary &&
           segments[runEnd + 1].start == segments[runEnd].end) {
      ++runEnd;
    }
    Side after = Side::None;
    for (std::size_t i = segments[runEnd].end; !continuesRun && i < f.n; ++i) {
      if (runEnd + 1 < segments.size() && segments[runEnd + 1].summary &&
          i >= segments[runEnd + 1].start) {
        break;
      }
      Side side = sideOf(turns[i]);
      if (side != Side::None) {
        after = side;
        break;
      }
    }
    const char16_t* role = continuesRun ? u"system" : summaryRole(last, after);
    out.summaries.push_back(summaryMessage(l, s, role));
    out.runs.push_back(s.run);
    Turn turn;
    turn.role = role[0] == u'u'   ? Turn::Role::User
                : role[0] == u'a' ? Turn::Role::Assistant
                                  : Turn::Role::System;
    emit(out.summaries.back(), turn, -1);
    const std::uint64_t parts[2] = {s.run->hash, static_cast<std::uint64_t>(role[0])};
    out.summaryHash = fnv1a(parts, sizeof parts, out.summaryHash);
  }
}

// True when history messages a < b are neighbours once system messages are ignored.
bool adjacentInHistory(const std::vector<Value>& h, long a, long b) {
  if (a < 0 || b < 0 || a >= b) return false;
  for (long i = a + 1; i < b; ++i) {
    if (roleOf(h[static_cast<std::size_t>(i)]) != u"system") return false;
  }
  return true;
}

// Where the run of tool messages before index x of a list starts (x itself when message x - 1 is
// not a tool message), read from the list's turns (turnOf: Role::Tool is the role "tool"), so the
// view's list and the history share one compiled copy. Queries come in increasing order, so the
// run found last is extended forward instead of scanned again: n results of one run cost O(n)
// in all, not O(n^2).
class ToolRunStart {
 public:
  explicit ToolRunStart(const std::vector<Turn>& turns) : m_(turns) {}
  std::size_t operator()(std::size_t x) {
    if (known_ && x >= lo_ && x <= hi_) return lo_;
    if (known_ && x > hi_) {
      std::size_t j = hi_;
      while (j < x && m_[j].role == Turn::Role::Tool) ++j;
      if (j == x) return hi_ = x, lo_;
    }
    std::size_t q = x;
    while (q > 0 && m_[q - 1].role == Turn::Role::Tool) --q;
    known_ = true;
    lo_ = q;
    hi_ = x;
    return q;
  }

 private:
  const std::vector<Turn>& m_;
  bool known_ = false;
  std::size_t lo_ = 0, hi_ = 0;
};

// Structure problems of the view that the history does not have at the same place.
// `turns` are the history's (its index's).
std::vector<StructureIssue> introducedIssues(const std::vector<Value>& h,
                                             const std::vector<Turn>& turns, const ViewList& v) {
  std::vector<StructureIssue> out;
  const auto& src = v.sources;
  ToolRunStart viewRun(v.turns);
  ToolRunStart historyRun(turns);
  for (const StructureIssue& issue : checkStructure(v.messages, v.turns)) {
    const std::size_t i = issue.index;
    bool introduced = src[i] < 0;
    switch (issue.kind) {
      case StructureIssue::Kind::RoleRepeat: {
        std::size_t p = i;
        while (p > 0 && roleOf(*v.messages[p - 1]) == u"system") --p;
        introduced = introduced || p == 0 || !adjacentInHistory(h, src[p - 1], src[i]);
        break;
      }
      case StructureIssue::Kind::FirstNotUser: {
        std::size_t first = 0;
        while (first < h.size() && roleOf(h[first]) == u"system") ++first;
        introduced = introduced || static_cast<std::size_t>(src[i]) != first;
        break;
      }
      case StructureIssue::Kind::OrphanToolResult: {
        std::size_t p = viewRun(i);
        long q = introduced ? 0 : static_cast<long>(historyRun(static_cast<std::size_t>(src[i])));
        long viewCause = p > 0 ? src[p - 1] : -2;
        long historyCause = q > 0 ? q - 1 : -2;
        introduced = introduced || viewCause != historyCause;
        break;
      }
      case StructureIssue::Kind::MissingToolResult: {
        std::size_t next = static_cast<std::size_t>(src[i]) + 1;
        bool historyHasResult = next < h.size() && roleOf(h[next]) == u"tool";
        introduced = introduced || (historyHasResult &&
                                    (i + 1 >= src.size() || src[i + 1] != static_cast<long>(next)));
        break;
      }
    }
    if (introduced) out.push_back(issue);
  }
  return out;
}

Validation validate(const Frame& f, const Ledger& l, const Usage& u, const ViewList& v) {
  Validation val;
  val.tokens = u.conversation;
  val.available = u.available;
  val.fits = u.conversation <= u.available;
  val.underThreshold = u.conversation <= u.threshold;
  if (!val.fits) {
    val.reasons.push_back(
        {"overAvailable", format("the conversation needs {} tokens but only {} are available",
                                 {u.conversation, u.available})});
    if (f.n > f.sysEnd) {
      double last = f.sum(f.lastStart, f.n);
      if (last > u.available) {
        val.reasons.push_back(
            {"lastGroupTooLarge", format("the last atomic group (messages {}-{}) alone needs {} tokens",
                                         {asNumber(f.lastStart + 1), asNumber(f.n), last})});
      }
    }
    std::size_t tail = l.checkpoints.empty() ? f.headEnd : l.checkpoints.back().end;
    double recent = f.sum(tail, f.n);
    if (recent > u.available) {
      val.reasons.push_back(
          {"recentTooLarge", format("the {} messages after the last checkpoint need {} tokens",
                                    {asNumber(f.n - tail), recent})});
    }
    if (u.checkpoints > u.available) {
      val.reasons.push_back(
          {"summariesTooLarge", format("the summaries alone need {} tokens", {u.checkpoints})});
    }
    if (f.headEnd > f.sysEnd && f.sum(f.sysEnd, f.headEnd) > u.available) {
      val.reasons.push_back(
          {"headTooLarge", format("the first {} messages kept by keepFirst need {} tokens",
                                  {asNumber(f.headEnd - f.sysEnd), f.sum(f.sysEnd, f.headEnd)})});
    }
    if (u.canCompress) {
      val.reasons.push_back({"compressAgain", "another compress can summarise more messages"});
    }
  } else if (!val.underThreshold) {
    val.reasons.push_back(
        {"overThreshold",
         format(u.canCompress ? "the conversation fits but is above the threshold of {} tokens"
                              : "the conversation fits but is above the threshold of {} tokens; "
                                "nothing more to compress without breaking keepLast",
                {u.threshold})});
  }
  for (const StructureIssue& issue : introducedIssues(f.st.messages, f.st.index.turns, v)) {
    val.reasons.push_back({"structure", structureIssueName(issue.kind) +
                                            format(" at view message {}", {asNumber(issue.index)})});
  }
  return val;
}

// What viewOf builds besides the usage: nothing, the validation (with the sources and summary
// messages, what a held view answers), or also a copy of every message.
enum class Build { Usage, Validation, Messages };

// `knownSummaryKey`: the caller has these summary messages already (ViewResult::summaryKey), so
// their text is not copied into the result.
ViewResult viewOf(const Frame& f, const Ledger& l, Host& host, Build build,
                  std::string_view knownSummaryKey = {}) {
  ViewResult out;
  std::vector<Segment> segments = project(f, l, host);
  out.usage = usageOf(f, l, segments);
  if (build == Build::Usage) return out;
  ViewList list;
  buildMessages(f, l, segments, list);
  out.validation = validate(f, l, out.usage, list);
  out.sources = std::move(list.sources);
  out.summaryKey = hex(list.summaryHash);
  if (build == Build::Messages || out.summaryKey != knownSummaryKey) {
    for (std::size_t k = 0; k < list.summaries.size(); ++k) {
      list.summaries[k].find(u"content")->string = U16(list.runs[k]->content);
    }
  } else {
    list.summaries.clear();
  }
  if (build == Build::Messages) {
    out.messages.reserve(list.messages.size());
    for (const Value* m : list.messages) out.messages.push_back(*m);
  }
  out.summaries = std::move(list.summaries);
  return out;
}

// The host's count cache keeps exactly the current summary messages.
void refreshSummaryTokens(const Frame& f, Ledger& l, Host& host) {
  if (!f.st.config.tokenCounter) return;
  std::vector<Segment> segments = project(f, l, host);
  Value fresh = Value::object();
  for (const Segment& s : segments) {
    if (s.summary) fresh.set(js::fromAscii(s.run->countKey), Value::fromNumber(s.tokens));
  }
  l.summaryTokens = std::move(fresh);
}

// ---- summaries ----------------------------------------------------------------------------------

// "12 messages (5 user, 4 assistant, 3 tool); tools used: read_file, grep."
U16 statsLine(const RangeStats& s) {
  std::string stats =
      format(s.messages == 1 ? "{} message (" : "{} messages (", {asNumber(s.messages)});
  // The non-zero counts, appended in place (a vector of parts was the module's only
  // std::vector<std::string>).
  const char* separator = "";
  for (const auto& [count, what] : {std::pair<std::size_t, const char*>{s.users, " user"},
                                    {s.assistants, " assistant"},
                                    {s.tools, " tool"},
                                    {s.others, " other"}}) {
    if (!count) continue;
    stats += separator;
    stats += js::numberToString(asNumber(count));
    stats += what;
    separator = ", ";
  }
  U16 header = u16(stats + ")");
  if (!s.toolNames.empty()) {
    header += u"; tools used: ";
    for (std::size_t k = 0; k < s.toolNames.size() && k < kToolNamesInStats; ++k) {
      if (k) header += u", ";
      header += s.toolNames[k];
      // The names of the arguments it was given, as JSON keys: what a later call of the tool
      // writes again (Read {"file_path", "offset", "limit"}).
      if (k < s.toolKeys.size() && !s.toolKeys[k].empty()) {
        header += u" {";
        for (std::size_t j = 0; j < s.toolKeys[k].size(); ++j) {
          std::string quoted;
          js::writeJsonString(s.toolKeys[k][j], quoted);
          header += (j ? u", " : u"") + js::fromUtf8(quoted);
        }
        header += u"}";
      }
    }
    if (s.toolNames.size() > kToolNamesInStats) {
      header += u16(format(" and {} more", {asNumber(s.toolNames.size() - kToolNamesInStats)}));
    }
  }
  header += u".";
  return header;
}

// The stats line, the artifacts line (summary_ledger.h) in up to kArtifactsShare of what the
// budget leaves, then the summariser's selection from `text` in the rest.
U16 withStatsLine(const RangeStats& stats, const std::vector<U16>& artifacts, U16View text,
                  double budget) {
  U16 header = statsLine(stats);
  const std::size_t limit = static_cast<std::size_t>(std::floor(3.5 * std::max(budget, 0.0)));
  if (header.size() >= limit) return header.substr(0, limit);
  std::size_t left = limit - header.size() - 1;
  U16 line = artifactsLine(artifacts, static_cast<std::size_t>(kArtifactsShare * left));
  if (!line.empty()) {
    header += u"\n" + line;
    left -= line.size() + 1;
  }
  U16 body = left > 0 ? summarize(text, left) : U16();
  return body.empty() ? header : header + u"\n" + body;
}

// The candidates for a summary's artifacts line: at most what the largest budget could hold.
std::size_t artifactCandidates(double budget) {
  return static_cast<std::size_t>(std::floor(3.5 * kArtifactsShare * std::max(budget, 0.0)));
}

// A deterministic summary made by `make(budget)`. It sizes by characters (3.5 per token); text
// that costs more per character under the script estimate (CJK: about one token each) is made
// again with a smaller budget to fit. `input` (the summariser's input units) goes to the state's
// work counter once per attempt.
// `make` is called through a pointer: one compiled loop for both kinds of summary.
using MakeSummary = U16 (*)(const void* context, double budget);
U16 fitted(const State& st, double budget, MakeSummary make, const void* context,
           std::size_t input) {
  st.summarised += input;
  U16 text = make(context, budget);
  if (st.config.scriptEstimate && !st.config.tokenCounter) {
    double scale = 1;
    for (int attempt = 0; attempt < 4; ++attempt) {
      const double tokens = estimateTokens(text);
      if (tokens <= budget || tokens == 0) break;
      scale *= budget / tokens * 0.95;
      st.summarised += input;
      text = make(context, budget * scale);
    }
  }
  return text;
}

// The artifacts the view already sends before history index `start`: the items of the
// deterministic summaries of the checkpoints that end by then. A new summary leaves them out, so
// its units go to strings the view does not hold (the older summaries stay in the view, and in a
// provider's cache, unchanged by the compress that adds it).
// In checkpoint order, repeats kept (the collector only asks whether an item is among them).
std::vector<U16> knownArtifacts(const std::vector<Checkpoint>& checkpoints, std::size_t start) {
  std::vector<U16> known;
  for (const Checkpoint& cp : checkpoints) {
    if (cp.end > start || cp.hostSummary) continue;
    for (U16& item : artifactItems(summaryBody(cp))) known.push_back(std::move(item));
  }
  return known;
}

struct Summary {
  bool ready = false;
  U16 text;
  bool fromHost = false;
  std::optional<RangeStats> stats;  // the deterministic summary's
};

Summary summarizeRange(const Frame& f, std::size_t start, std::size_t end, Level level,
                       double budget, Host& host, const std::vector<U16>& known) {
  Summary out;
  if (f.st.config.summarizer) {
    U16 text = renderTranscript(f.st.messages, start, end);
    std::string label = levelName(level) + format("|{}|", {budget});
    std::uint64_t h = fnv1a(label.data(), label.size());
    h = fnv1a(text.data(), text.size() * sizeof(char16_t), h);
    std::string key = "s" + hex(h);
    const Value* answer = host.summaries ? host.summaries->find(js::fromAscii(key)) : nullptr;
    if (!answer) {
      bool known = false;
      for (const SummaryRequest& r : host.pendingSummaries) known = known || r.key == key;
      if (!known) {
        host.pendingSummaries.push_back(
            SummaryRequest{key, std::move(text), budget, level, start, end});
      }
      return out;
    }
    // The engine's rule for host summaries: a non-empty string strictly shorter than the input.
    if (answer->isString() && !js::trimView(answer->string).empty() &&
        answer->string.size() < text.size()) {
      out.ready = true;
      out.text = U16(answer->string);
      out.fromHost = true;
      return out;
    }
  }
  out.ready = true;
  const U16 transcript = renderTranscript(f.st.messages, start, end);
  RangeStats stats = RangeStats::of(f.st.messages, start, end);
  const std::vector<U16> artifacts =
      rangeArtifacts(f.st.messages, start, end, artifactCandidates(budget), nullptr, &known);
  struct Parts {
    const RangeStats& stats;
    const std::vector<U16>& artifacts;
    U16View transcript;
  } parts{stats, artifacts, transcript};
  out.text = fitted(
      f.st, budget,
      [](const void* context, double b) {
        const Parts& p = *static_cast<const Parts*>(context);
        return withStatsLine(p.stats, p.artifacts, p.transcript, b);
      },
      &parts, transcript.size());
  out.stats.emplace(std::move(stats));  // emplace: no RangeStats assignment in the module
  return out;
}

// The part of a ledger an operation changes: its active checkpoints, counters and summary counts,
// with an empty archive and log for what the operation appends (commitChanges).
Ledger changesOf(const Ledger& l) {
  // Copy-constructed members: a copy assignment would instantiate Checkpoint's, for this alone.
  return Ledger{l.checkpoints, {}, {}, l.compressions, l.nextId, l.summaryTokens};
}

void commitChanges(Ledger& l, Ledger&& next) {
  l.checkpoints = std::move(next.checkpoints);
  for (Checkpoint& cp : next.archive) l.archive.push_back(std::move(cp));
  for (Value& ev : next.events) l.events.push_back(std::move(ev));
  l.compressions = next.compressions;
  l.nextId = next.nextId;
  l.summaryTokens = std::move(next.summaryTokens);
}

// `list` with its checkpoints [from, to) replaced by `put` (none when null), rebuilt by moves: a
// vector insert or erase (or swaps) would move-assign checkpoints, whose assignment the module
// then compiles for these three changes alone.
void splice(std::vector<Checkpoint>& list, std::size_t from, std::size_t to, Checkpoint* put) {
  std::vector<Checkpoint> out;
  for (std::size_t k = 0; k <= list.size(); ++k) {
    if (k == from && put) out.push_back(std::move(*put));
    if (k < list.size() && (k < from || k >= to)) out.push_back(std::move(list[k]));
  }
  list = std::move(out);
}

// A checkpoint's RangeStats: kept from its merge, else counted from its messages.
RangeStats statsOf(const Frame& f, const Checkpoint& cp) {
  return cp.stats ? *cp.stats : RangeStats::of(f.st.messages, cp.start, cp.end);
}

// `first` and `second`: the checkpoints a merge replaces (their message ids are the merged
// range's, so they are not looked up again).
Checkpoint newCheckpoint(const Frame& f, Ledger& l, std::size_t start, std::size_t end, Level level,
                         double number, const Value& now, const Checkpoint* first = nullptr,
                         const Checkpoint* second = nullptr) {
  Checkpoint cp;
  cp.id = u16(format("cp-{}", {l.nextId}));
  l.nextId += 1;
  cp.createdAt = now;
  cp.start = start;
  cp.end = end;
  cp.originalTokens = f.sum(start, end);
  cp.level = level;
  cp.compressionNumber = number;
  if (first && second) {
    cp.originalMessageIds.reserve(end - start);
    for (const Checkpoint* part : {first, second}) {
      for (const Value& id : part->originalMessageIds) cp.originalMessageIds.push_back(id);
    }
    return cp;
  }
  for (std::size_t i = start; i < end; ++i) {
    const Value* id = f.st.messages[i].find(u"id");
    cp.originalMessageIds.push_back(id ? *id : Value::null());
  }
  return cp;
}

Value rangeValue(std::size_t start, std::size_t end) {
  Value r = Value::object();
  r.appendNumber(u"start", static_cast<double>(start));
  r.appendNumber(u"end", static_cast<double>(end));
  return r;
}

Value event(const char16_t* type, const U16& id, const Value& now) {
  Value e = Value::object();
  e.appendString(u"type", type);
  e.appendString(u"checkpoint", id);
  e.append(u"at", Value(now));
  return e;
}

std::string rangeText(std::size_t start, std::size_t end) {
  return format("messages {}-{} ({} messages)",
                {asNumber(start + 1), asNumber(end), asNumber(end - start)});
}

void finishWithoutCompressing(const Frame& f, const Ledger& l, Host& host, Reason reason,
                              CompressOutcome& out) {
  ViewResult v = viewOf(f, l, host, Build::Validation);
  out.usage = v.usage;
  out.progress.push_back({"validate", reason.message, 100});
  // `reason` first, then the view's (`out` has none yet): pushes rather than a vector insert,
  // which the module had for this alone.
  out.validation.reasons.push_back(std::move(reason));
  for (Reason& r : v.validation.reasons) out.validation.reasons.push_back(std::move(r));
  out.validation.fits = v.validation.fits;
  out.validation.underThreshold = v.validation.underThreshold;
  out.validation.tokens = v.validation.tokens;
  out.validation.available = v.validation.available;
  out.again = false;
}

}  // namespace

// ---- the history index ----------------------------------------------------------------------------

void HistoryIndex::update(const std::vector<Value>& messages, const std::vector<double>& tokens) {
  // One count per message is checkState's invariant; index only what both cover.
  const std::size_t n = std::min(messages.size(), tokens.size());
  if (n == count) return;
  if (n < count) {
    // Messages were taken back (an add whose answer was pending): the entries before n were
    // computed as for a history of n messages, since appending never changes earlier group starts.
    count = n;
    sysEnd = std::min(sysEnd, n);
    // Shortened by pops: no resize of a double or Turn vector in the module for this alone.
    starts.resize(n);
    while (prefix.size() > n + 1) prefix.pop_back();
    while (turns.size() > n) turns.pop_back();
    return;
  }
  // Leading system messages can only grow while every indexed message is one.
  const bool allSystem = sysEnd == count;
  while (allSystem && sysEnd < n && roleOf(messages[sysEnd]) == u"system") ++sysEnd;
  // The last indexed group may grow with the new messages, so it is scanned again; the groups
  // before it never change.
  const std::size_t resume = allSystem ? count : starts[count - 1];
  extendGroupStarts(messages, sysEnd, resume, starts);
  for (std::size_t i = count; i < n; ++i) prefix.push_back(prefix[i] + tokens[i]);
  for (std::size_t i = count; i < n; ++i) turns.push_back(turnOf(messages[i]));
  work += (messages.size() - resume) + (n - count);
  count = n;
}

double HistoryIndex::tailTokens(const std::vector<double>& tokens, std::size_t from,
                                std::size_t to) {
  if (!tailValid || tailFrom != from || tailTo > to) {
    tailValid = true;
    tailFrom = tailTo = from;
    tailSum = 0;
  }
  work += to - tailTo;
  for (; tailTo < to; ++tailTo) tailSum += tokens[tailTo];
  return tailSum;
}

// ---- levels and arithmetic ----------------------------------------------------------------------

const char* levelName(Level level) {
  switch (level) {
    case Level::Compact: return "compact";
    case Level::Moderate: return "moderate";
    case Level::Detailed: return "detailed";
  }
  return "compact";
}

std::optional<Level> levelFromName(std::u16string_view name) {
  if (name == u"compact") return Level::Compact;
  if (name == u"moderate") return Level::Moderate;
  if (name == u"detailed") return Level::Detailed;
  return std::nullopt;
}

Level levelForInput(double originalTokens) {
  if (originalTokens >= kDetailedFromTokens) return Level::Detailed;
  if (originalTokens >= kModerateFromTokens) return Level::Moderate;
  return Level::Compact;
}

double summaryBudget(Level level, double originalTokens, double available) {
  double ratio = 0.10, share = 0.04;
  if (level == Level::Moderate) ratio = 0.15, share = 0.07;
  if (level == Level::Detailed) ratio = 0.20, share = 0.10;
  double budget = std::floor(std::min(ratio * originalTokens, share * std::max(available, 0.0)));
  return std::min(std::floor(originalTokens), std::max(kMinSummaryTokens, budget));
}

double thresholdTokens(double threshold, double available) {
  return std::floor(threshold * available + 1e-9);
}

std::string countKey(const Value& message) {
  std::string json = js::toJson(message);
  return "c" + hex(fnv1a(json.data(), json.size()));
}

// ---- transcripts and deterministic summaries ----------------------------------------------------

U16 renderTranscript(const std::vector<Value>& messages, std::size_t start, std::size_t end) {
  U16 out;
  auto paragraph = [&out](U16View text) {
    if (!out.empty()) out += u"\n\n";
    out += text;
  };
  for (std::size_t i = start; i < end; ++i) {
    const Value& m = messages[i];
    U16 role(roleOf(m));
    if (role.empty()) role = u"message";
    if (const U16* content = stringContent(m)) {
      paragraph(role + u": " + *content);
    } else if (const Value* parts = m.find(u"content"); parts && parts->isArray()) {
      U16 text;
      for (const Value& part : parts->items) {
        const Value* t = part.isObject() ? part.find(u"text") : nullptr;
        if (t && t->isString()) text += (text.empty() ? u"" : u"\n") + t->string;
      }
      if (!text.empty()) paragraph(role + u": " + text);
    }
    if (!hasToolCalls(m)) continue;
    for (const Value& call : m.find(u"tool_calls")->items) {
      const U16* name = callFunctionString(call, u"name");
      const U16* args = callFunctionString(call, u"arguments");
      U16 line = role + u" called " + (name ? *name : U16(u"a tool"));
      if (args) {
        U16View a = *args;
        line += u"(";
        line += a.substr(0, kArgumentsInTranscript);
        if (a.size() > kArgumentsInTranscript) line += u"...";
        line += u")";
      }
      paragraph(line);
    }
  }
  return out;
}

RangeStats RangeStats::of(const std::vector<Value>& messages, std::size_t start,
                          std::size_t end) {
  RangeStats out;
  out.messages = end - start;
  for (std::size_t i = start; i < end; ++i) {
    U16View role = roleOf(messages[i]);
    if (role == u"user") {
      ++out.users;
    } else if (role == u"assistant") {
      ++out.assistants;
    } else if (role == u"tool") {
      ++out.tools;
    } else {
      ++out.others;
    }
    if (!hasToolCalls(messages[i])) continue;
    for (const Value& call : messages[i].find(u"tool_calls")->items) {
      const U16* name = callFunctionString(call, u"name");
      if (!name) continue;
      // The names seen so far are toolNames itself (a few distinct names: searched in order).
      const std::size_t k = static_cast<std::size_t>(
          std::find(out.toolNames.begin(), out.toolNames.end(), *name) -
          out.toolNames.begin());
      if (k == out.toolNames.size()) {
        out.toolNames.push_back(*name);
        out.toolKeys.emplace_back();
      }
      addToolKeys(out.toolKeys[k], callArgumentNames(call));
    }
  }
  return out;
}

void RangeStats::append(const RangeStats& later) {
  messages += later.messages;
  users += later.users;
  assistants += later.assistants;
  tools += later.tools;
  others += later.others;
  for (std::size_t j = 0; j < later.toolNames.size(); ++j) {
    const U16& name = later.toolNames[j];
    auto at = std::find(toolNames.begin(), toolNames.end(), name);
    const std::size_t k = static_cast<std::size_t>(at - toolNames.begin());
    if (at == toolNames.end()) {
      toolNames.push_back(name);
      toolKeys.emplace_back();
    }
    if (j < later.toolKeys.size()) addToolKeys(toolKeys[k], later.toolKeys[j]);
  }
}

U16 deterministicSummary(const std::vector<Value>& messages, std::size_t start, std::size_t end,
                         double budget, const std::vector<U16>& known) {
  return withStatsLine(RangeStats::of(messages, start, end),
                       rangeArtifacts(messages, start, end, artifactCandidates(budget), nullptr,
                                      &known),
                       renderTranscript(messages, start, end), budget);
}

U16 mergedSummary(const RangeStats& stats, const std::vector<U16View>& bodies, double budget) {
  U16 text;
  for (U16View body : bodies) {
    body = withoutArtifacts(body);
    if (body.empty()) continue;
    if (!text.empty()) text += u"\n\n";
    text += body;
  }
  return withStatsLine(stats, mergedArtifacts(bodies, artifactCandidates(budget)), text, budget);
}

U16View summaryBody(const Checkpoint& cp) {
  U16View text = cp.summary;
  if (cp.hostSummary) return text;
  const std::size_t lineEnd = text.find(u'\n');
  return lineEnd == U16View::npos ? U16View() : text.substr(lineEnd + 1);
}

// ---- checks -------------------------------------------------------------------------------------

namespace {
// Out of line and over pointers: checkConfig names a setting and its rule at eight checks.
Error badSetting(const char* field, const char* rule) {
  return invalid(std::string("config.") + field + " " + rule, std::string("/config/") + field);
}
}  // namespace

Result<bool> checkConfig(const Config& c) {
  auto finite = [](double d) { return std::isfinite(d); };
  if (!finite(c.contextWindow) || c.contextWindow <= 0) {
    return badSetting("contextWindow", "must be a positive number");
  }
  if (c.systemPromptTokens && (!finite(*c.systemPromptTokens) || *c.systemPromptTokens < 0)) {
    return badSetting("systemPromptTokens", "must be a non-negative number");
  }
  if (!finite(c.promptBudget) || c.promptBudget < 0) {
    return badSetting("promptBudget", "must be a non-negative number");
  }
  if (!finite(c.safetyMargin) || c.safetyMargin < 0) {
    return badSetting("safetyMargin", "must be a non-negative number");
  }
  if (!finite(c.threshold) || c.threshold <= 0 || c.threshold > 1) {
    return badSetting("threshold", "must be in (0, 1]");
  }
  if (c.summaryInputTokens && (!finite(*c.summaryInputTokens) || *c.summaryInputTokens <= 0)) {
    return badSetting("summaryInputTokens", "must be a positive number");
  }
  if (c.maxCheckpoints < 1) return badSetting("maxCheckpoints", "must be at least 1");
  if (c.ageAfter < 1) return badSetting("ageAfter", "must be at least 1");
  double available =
      c.contextWindow - c.systemPromptTokens.value_or(0) - c.promptBudget - c.safetyMargin;
  if (available <= 0) {
    return Error{ErrorCode::BudgetTooSmall,
                 format("contextWindow - systemPromptTokens - promptBudget - safetyMargin = {}: "
                        "nothing is left for the conversation",
                        {available}),
                 "/config"};
  }
  return true;
}

Result<bool> checkState(const State& st) {
  if (Result<bool> ok = checkConfig(st.config); !ok) return ok;
  if (st.tokens.size() != st.messages.size()) {
    return invalid("state.tokens must give one count per message", "/state/tokens");
  }
  for (std::size_t i = 0; i < st.tokens.size(); ++i) {
    if (!std::isfinite(st.tokens[i]) || st.tokens[i] < 0) {
      return invalid("state.tokens must be non-negative numbers",
                     format("/state/tokens/{}", {asNumber(i)}));
    }
  }
  const std::size_t n = st.messages.size();
  const std::size_t sysEnd = leadingSystemCount(st.messages);
  std::vector<std::size_t> starts = groupStarts(st.messages, sysEnd);
  auto atGroupStart = [&](std::size_t x) {
    return x == n || (x >= sysEnd && x < n && starts[x] == x);
  };
  std::size_t pos = sysEnd;
  for (std::size_t k = 0; k < st.ledger.checkpoints.size(); ++k) {
    const Checkpoint& cp = st.ledger.checkpoints[k];
    std::string path = format("/state/checkpoints/{}", {asNumber(k)});
    if (cp.start < pos || cp.end <= cp.start || cp.end > n || !atGroupStart(cp.start) ||
        !atGroupStart(cp.end)) {
      return invalid(format("state.checkpoints[{}].messageRange must be ordered, disjoint and at "
                            "atomic-group starts",
                            {asNumber(k)}),
                     path + "/messageRange");
    }
    if (cp.originalMessageIds.size() != cp.end - cp.start) {
      return invalid(format("state.checkpoints[{}].originalMessageIds does not match its range",
                            {asNumber(k)}),
                     path + "/originalMessageIds");
    }
    // Against the earlier ids in order: the views of a state already compare its checkpoints
    // pairwise (their summary runs), so this adds no cost of a higher order, and no tree code.
    for (std::size_t j = 0; j < k; ++j) {
      if (st.ledger.checkpoints[j].id == cp.id) {
        return invalid("state.checkpoints ids must be unique", path + "/id");
      }
    }
    pos = cp.end;
  }
  return true;
}

// ---- operations ---------------------------------------------------------------------------------

Result<bool> addMessages(State& st, std::vector<Value> messages, Host& host) {
  std::vector<double> counts;
  counts.reserve(messages.size());
  for (std::size_t i = 0; i < messages.size(); ++i) {
    if (!messages[i].isObject()) {
      return invalid(format("add(): messages[{}] must be an object", {asNumber(i)}),
                     format("/messages/{}", {asNumber(i)}));
    }
    const Value* role = messages[i].find(u"role");
    if (!role || !role->isString()) {
      return invalid(format("add(): messages[{}].role must be a string", {asNumber(i)}),
                     format("/messages/{}/role", {asNumber(i)}));
    }
    counts.push_back(countMessage(st.config, host, messages[i]));
  }
  if (host.pending()) return true;
  for (std::size_t i = 0; i < messages.size(); ++i) {
    st.messages.push_back(std::move(messages[i]));
    st.tokens.push_back(counts[i]);
  }
  return true;
}

Usage usage(const State& st, Host& host) {
  Frame f(st);
  return viewOf(f, st.ledger, host, Build::Usage).usage;
}

ViewResult view(const State& st, Host& host, bool copyMessages,
                std::string_view knownSummaryKey) {
  Frame f(st);
  return viewOf(f, st.ledger, host, copyMessages ? Build::Messages : Build::Validation,
                knownSummaryKey);
}

CompressOutcome compress(State& st, const Value& now, Host& host) {
  CompressOutcome out;
  const Frame f(st);
  const Config& c = st.config;
  Plan plan = planCompression(f, st.ledger);
  if (!plan.any) {
    out.progress.push_back({"identify", "nothing to compress", 10});
    finishWithoutCompressing(
        f, st.ledger, host,
        {"nothingToCompress",
         format("no uncovered messages before the {} most recent (keepFirst {})",
                {asNumber(c.keepLast), asNumber(c.keepFirst)})},
        out);
    return out;
  }
  std::size_t s = plan.start, e = plan.end;
  out.progress.push_back({"identify",
                          rangeText(s, e) +
                              format(", {} tokens; keeping {} recent messages",
                                     {f.sum(s, e), asNumber(f.n - e)}) +
                              (plan.extended ? " (fewer than keepLast, to fit the window)" : ""),
                          10});

  // prepare: trim the newest groups until the summarizer's input window holds the range.
  std::size_t trimmedGroups = 0;
  if (c.summaryInputTokens) {
    while (e > s && f.sum(s, e) > *c.summaryInputTokens) {
      e = f.starts[e - 1];
      ++trimmedGroups;
    }
    if (e == s) {
      std::size_t firstEnd = f.nextStart(s);
      finishWithoutCompressing(
          f, st.ledger, host,
          {"summaryInputTooSmall",
           "the oldest atomic group to summarise (" + rangeText(s, firstEnd) +
               format(", {} tokens) exceeds summaryInputTokens {}",
                      {f.sum(s, firstEnd), *c.summaryInputTokens})},
          out);
      return out;
    }
  }
  const double originalTokens = f.sum(s, e);
  const Level level = levelForInput(originalTokens);
  out.progress.push_back(
      {"prepare",
       "level " + (levelName(level) +
                   format(trimmedGroups ? ", budget {} tokens; {} newest groups left for the next "
                                          "compress (summarizer input)"
                                        : ", budget {} tokens",
                          {summaryBudget(level, originalTokens, f.available),
                           asNumber(trimmedGroups)})),
       25});

  // Plan the new ledger: the new checkpoint, merges, aging. Summaries are filled in afterwards
  // (a deterministic merge's when it is made). `next` starts with an empty archive and log: what
  // it gains is appended to the state's at the end (copying them would cost the session so far).
  Ledger next = changesOf(st.ledger);
  const double number = next.compressions + 1;
  Checkpoint created = newCheckpoint(f, next, s, e, level, number, now);
  const U16 createdId = created.id;
  // In start order.
  std::vector<Checkpoint>& cps = next.checkpoints;
  const std::size_t place = static_cast<std::size_t>(
      std::lower_bound(cps.begin(), cps.end(), s,
                       [](const Checkpoint& cp, std::size_t x) { return cp.start < x; }) -
      cps.begin());
  splice(cps, place, place, &created);
  // Ids, a few per compress, each held once: vectors searched in order (a std::set here was the
  // module's one tree erase besides the handle table's).
  std::vector<U16> resummarise = {createdId};
  std::vector<U16> summarised;  // merged already, from their parts' summaries
  std::vector<Value> events;
  {
    Value ev = event(u"create", createdId, now);
    ev.appendNumber(u"compressionNumber", number);
    ev.append(u"messageRange", rangeValue(s, e));
    ev.appendString(u"level", u16(levelName(level)));
    if (trimmedGroups) {
      ev.appendNumber(u"trimmedGroups", static_cast<double>(trimmedGroups));
    }
    events.push_back(std::move(ev));
  }
  while (next.checkpoints.size() > c.maxCheckpoints) {
    std::size_t pair = next.checkpoints.size();
    for (std::size_t i = 0; i + 1 < next.checkpoints.size(); ++i) {
      const Checkpoint& a = next.checkpoints[i];
      const Checkpoint& b = next.checkpoints[i + 1];
      if (a.end != b.start || a.id == createdId || b.id == createdId) continue;
      if (c.summaryInputTokens && f.sum(a.start, b.end) > *c.summaryInputTokens) continue;
      pair = i;
      break;
    }
    if (pair == next.checkpoints.size()) break;
    Checkpoint a = next.checkpoints[pair];
    Checkpoint b = next.checkpoints[pair + 1];
    Checkpoint merged =
        newCheckpoint(f, next, a.start, b.end, Level::Compact, number, now, &a, &b);
    merged.mergedFrom.push_back(a.id);
    merged.mergedFrom.push_back(b.id);
    if (!c.summarizer) {
      // The deterministic rule for merges (context.h): from the two summaries, not the range.
      RangeStats stats = statsOf(f, a);
      stats.append(statsOf(f, b));
      const std::vector<U16View> bodies = {summaryBody(a), summaryBody(b)};
      struct Parts {
        const RangeStats& stats;
        const std::vector<U16View>& bodies;
      } parts{stats, bodies};
      merged.summary = fitted(
          st, summaryBudget(Level::Compact, merged.originalTokens, f.available),
          [](const void* context, double budget) {
            const Parts& p = *static_cast<const Parts*>(context);
            return mergedSummary(p.stats, p.bodies, budget);
          },
          &parts, bodies[0].size() + bodies[1].size());
      merged.stats.emplace(std::move(stats));
      summarised.push_back(merged.id);
    }
    for (Checkpoint* old : {&a, &b}) {
      if (auto it = std::find(resummarise.begin(), resummarise.end(), old->id);
          it != resummarise.end()) {
        resummarise.erase(it);
      }
      old->status = u"merged";
      old->replacedBy = U16(merged.id);
      next.archive.push_back(*old);
    }
    Value ev = event(u"merge", merged.id, now);
    Value from = Value::array();
    from.items.push_back(Value::fromString(a.id));
    from.items.push_back(Value::fromString(b.id));
    ev.append(u"from", std::move(from));
    ev.append(u"messageRange", rangeValue(merged.start, merged.end));
    events.push_back(std::move(ev));
    resummarise.push_back(merged.id);
    out.merged.push_back(merged.id);
    splice(next.checkpoints, pair, pair + 2, &merged);
  }
  for (Checkpoint& cp : next.checkpoints) {
    if (holds(resummarise, cp.id) || cp.level == Level::Compact ||
        number - cp.compressionNumber < static_cast<double>(c.ageAfter)) {
      continue;
    }
    Level lower = static_cast<Level>(static_cast<int>(cp.level) - 1);
    Value ev = event(u"age", cp.id, now);
    ev.appendString(u"from", u16(levelName(cp.level)));
    ev.appendString(u"to", u16(levelName(lower)));
    events.push_back(std::move(ev));
    cp.level = lower;
    resummarise.push_back(cp.id);
    out.aged.push_back(cp.id);
  }

  // summarize: every new or lowered checkpoint (and a merge for the host), from the raw messages
  // of its range.
  std::size_t fromHost = 0;
  for (Checkpoint& cp : next.checkpoints) {
    if (!holds(resummarise, cp.id) || holds(summarised, cp.id)) continue;
    Summary summary = summarizeRange(f, cp.start, cp.end, cp.level,
                                     summaryBudget(cp.level, cp.originalTokens, f.available), host,
                                     knownArtifacts(next.checkpoints, cp.start));
    cp.summary = std::move(summary.text);
    cp.hostSummary = summary.fromHost;
    if (summary.stats) cp.stats.emplace(std::move(*summary.stats));
    fromHost += summary.fromHost ? 1 : 0;
  }
  if (!host.pendingSummaries.empty()) return out;
  out.progress.push_back({"summarize",
                          format("{} summaries ({} aged, {} merged, {} from the host summarizer)",
                                 {asNumber(resummarise.size()), asNumber(out.aged.size()),
                                  asNumber(out.merged.size()), asNumber(fromHost)}),
                          60});

  // createCheckpoint: counts and ratios.
  for (Checkpoint& cp : next.checkpoints) {
    if (!holds(resummarise, cp.id)) continue;
    cp.compressedTokens = countMessage(c, host, canonicalSummaryMessage(cp.summary));
    cp.compressionRatio =
        cp.compressedTokens > 0 ? cp.originalTokens / cp.compressedTokens : cp.originalTokens;
  }
  for (const Checkpoint& cp : next.checkpoints) {
    if (cp.id == createdId) out.checkpoint.emplace(cp);
  }
  out.progress.push_back({"createCheckpoint",
                          js::toUtf8(createdId) +
                              format(": {} -> {} tokens",
                                     {originalTokens,
                                      out.checkpoint ? out.checkpoint->compressedTokens : 0}),
                          75});

  // updateContext: the ledger takes the new checkpoints and the log its events.
  next.compressions = number;
  for (Value& ev : events) next.events.push_back(std::move(ev));
  refreshSummaryTokens(f, next, host);
  out.progress.push_back({"updateContext",
                          format("{} active checkpoints, {} archived",
                                 {asNumber(next.checkpoints.size()),
                                  asNumber(st.ledger.archive.size() + next.archive.size())}),
                          90});

  // validate: the new view must fit.
  ViewResult v = viewOf(f, next, host, Build::Validation);
  if (host.pending()) return out;
  out.compressed = true;
  out.usage = v.usage;
  out.validation = std::move(v.validation);
  if (trimmedGroups) {
    out.validation.reasons.push_back(
        {"summaryInputTrimmed", format("{} newest groups (", {asNumber(trimmedGroups)}) +
                                    rangeText(e, plan.end) +
                                    ") did not fit the summarizer input and stay visible"});
  }
  out.again = v.usage.shouldCompress;  // a view that does not fit is over the threshold too
  out.progress.push_back({"validate",
                          out.validation.fits
                              ? format("view fits: {} of {} tokens ({}%)",
                                       {v.usage.conversation, v.usage.available, v.usage.percent})
                              : out.validation.reasons.front().message,
                          100});
  commitChanges(st.ledger, std::move(next));
  return out;
}

Result<UndoOutcome> undo(State& st, std::u16string_view id, const Value& now, Host& host) {
  Ledger next = changesOf(st.ledger);
  auto it = std::find_if(next.checkpoints.begin(), next.checkpoints.end(),
                         [id](const Checkpoint& cp) { return cp.id == id; });
  if (it == next.checkpoints.end()) {
    std::string why = "no checkpoint has this id";
    for (const Checkpoint& cp : st.ledger.archive) {
      if (cp.id != id) continue;
      why = cp.status == u"merged" ? "it was merged into " + js::toUtf8(cp.replacedBy)
                                   : "it was already undone";
    }
    return invalid("undo(): checkpoint \"" + js::toUtf8(id) + "\" is not active: " + why,
                   "/checkpoint");
  }
  UndoOutcome out{*it, {}};
  out.checkpoint.status = u"undone";
  next.archive.push_back(out.checkpoint);
  splice(next.checkpoints, static_cast<std::size_t>(it - next.checkpoints.begin()),
         static_cast<std::size_t>(it - next.checkpoints.begin()) + 1, nullptr);
  Value ev = event(u"undo", out.checkpoint.id, now);
  ev.append(u"messageRange", rangeValue(out.checkpoint.start, out.checkpoint.end));
  next.events.push_back(std::move(ev));
  const Frame f(st);
  refreshSummaryTokens(f, next, host);
  out.usage = viewOf(f, next, host, Build::Usage).usage;
  if (host.pending()) return out;
  commitChanges(st.ledger, std::move(next));
  return out;
}

double defaultCount(const Config& config, const Value& message) {
  return builtInCount(config, message);
}

}  // namespace cce::context
