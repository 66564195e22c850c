// SPDX-License-Identifier: MIT
// Safe mode: the escalation ladder after the budget search and forceConverge (issue 6, item 4).
#include "escalation.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>

#include "budget.h"
#include "callback.h"
#include "clearing.h"
#include "code_split.h"
#include "dedup.h"
#include "entities.h"
#include "jscompat/sort.h"
#include "ledger.h"
#include "jscompat/string.h"
#include "pipeline.h"
#include "pipeline_memo.h"
#include "provenance.h"
#include "summarizer.h"
#include "token_estimate.h"
#include "tool_output.h"

namespace cce {

namespace {

bool hasRole(const Message& m, std::u16string_view role) {
  return m.role.isString() && m.role.text == role;
}

bool isToolResult(const Message& m) { return m.hasToolCallId || hasRole(m, u"tool"); }

bool startsWith(const U16& text, std::u16string_view prefix) {
  return text.size() >= prefix.size() &&
         std::u16string_view(text).substr(0, prefix.size()) == prefix;
}

// The pieces of omissionStub.
constexpr const char16_t* kStubOpen = u"[cce:omitted ";
constexpr const char16_t* kStubOne = u" message \u2014 ";
constexpr const char16_t* kStubMany = u" messages \u2014 ";
constexpr const char16_t* kStubClose = u" chars]";

// Step 2's levels: summary budget and how many entities the suffix keeps.
struct Level {
  std::size_t budget;
  std::size_t entities;
};
constexpr Level kLevels[] = {{200, 10}, {100, 5}, {50, 0}};

// Step 6 cuts only contents longer than this, and keeps at least kCutKeep units of each.
constexpr std::size_t kCutAbove = 600;
constexpr std::size_t kCutKeep = 300;

// A ledger reads at most this many texts from each end of what it covers.
constexpr std::size_t kLedgerMessages = 12;

// The built-in estimate of an output entry, used while a host counter has not answered (so that a
// pass goes on and collects every count it needs in one round) and to size stubs while scanning.
double estimate(const std::vector<Message>& messages, const OutputMessage& m,
                const CompressOptions& options) {
  return estimateMessageTokens(countedOutput(messages, m), options);
}

// A summary written by this run that step 2 may shorten.
struct SummaryEntry {
  std::size_t entry = 0;
  std::size_t begin = 0;  // input range of the group
  std::size_t end = 0;
  bool codeSplit = false;
};

// A stretch of output entries that covers whole atomic groups: the unit step 3 replaces.
struct Unit {
  std::size_t firstEntry = 0, endEntry = 0;
  std::size_t firstInput = 0, endInput = 0;
  bool stubbable = false;              // no protected message inside
  std::optional<std::size_t> carrier;  // first input that can carry a stub
  double tokens = 0;
  std::size_t chars = 0;
};

// Consecutive replaced units: one stub.
struct Run {
  std::size_t firstUnit = 0, endUnit = 0;
  std::optional<std::size_t> carrier;
  double tokens = 0;  // of the entries it replaces
  std::size_t messages = 0;
  std::size_t chars = 0;
  double stubTokens = 0;
  std::optional<OutputMessage> stub;  // built when priced with the configured counter
};

// Step 3's scan: units from the oldest on join the open run (or close it when they may not be
// replaced) while the total is above the budget. A run counts only once it has a carrier.
struct Scan {
  Scan(const std::vector<Unit>& units, double budget, double total)
      : units(units), budget(budget), committed(total) {}

  // An open run counts only once its stub costs less than what it replaces (a stub never makes
  // the output larger; see close()).
  double total() const {
    return committed +
           (open && open->carrier ? std::min(0.0, open->stubTokens - open->tokens) : 0);
  }

  // `price(run)` sets run.stubTokens. (A Callback, not a template: the scan runs with three
  // pricings, and one compiled loop serves them all.)
  void advance(const Callback<void(Run&)>& price) {
    for (; next < units.size() && total() > budget; ++next) {
      const Unit& unit = units[next];
      if (!unit.stubbable) {
        close();
        continue;
      }
      if (!open) open = Run{next, next, std::nullopt, 0, 0, 0, 0, std::nullopt};
      open->endUnit = next + 1;
      open->tokens += unit.tokens;
      open->messages += unit.endInput - unit.firstInput;
      open->chars += unit.chars;
      if (!open->carrier) open->carrier = unit.carrier;
      if (open->carrier) price(*open);
    }
  }

  // A run without a carrier is dropped: its units stay. So is a run whose stub would cost as much
  // as the messages it replaces (a short message or two): no step makes the output larger.
  void close() {
    if (open && open->carrier && open->stubTokens < open->tokens) {
      committed += open->stubTokens - open->tokens;
      runs.push_back(*open);
    }
    open.reset();
  }

  const std::vector<Unit>& units;
  double budget;
  double committed;
  std::vector<Run> runs;
  std::optional<Run> open;
  std::size_t next = 0;
};

class Ladder {
 public:
  Ladder(const std::vector<Message>& messages, const CompressOptions& options, PipelineMemo& memo,
         const ProtectedMessages& protection, CompressResult& result, std::vector<EntryKind>& kinds)
      : messages_(messages),
        options_(options),
        memo_(memo),
        protection_(protection),
        budget_(*options.tokenBudget),
        result_(result),
        kinds_(kinds),
        protected_(messages.size(), false),
        required_(messages.size(), false) {
    for (std::size_t i : protection.indices) protected_[i] = true;
    for (std::size_t i : protection.required) required_[i] = true;
    recount();
  }

  bool pending() const { return pending_; }
  bool fits() const { return total_ <= budget_; }

  // Step 1: continue the search below the window the search settled on, down to the newest user
  // turn, with the same memo (so only groups that were never summarised cost anything), then
  // truncate outside the new window. Returns whether there was anything in the window to do.
  bool summariseWindow() {
    const double turnSize = static_cast<double>(messages_.size() - protection_.turnStart);
    // Windows of n - 1 and more keep everything: no need to search above that.
    const double hi = std::min(std::ceil(result_.budget->recencyWindow) - 1,
                               static_cast<double>(messages_.size()) - 1);
    if (hi < turnSize) return false;
    CompressResult run = searchRecencyWindow(messages_, options_, turnSize, hi, memo_);
    if (run.pending) {
      pending_ = true;
      return true;
    }
    std::vector<EntryKind> kinds = entryKinds(run);
    if (!run.budget->fits) forceConverge(messages_, options_, run, &kinds);
    if (run.pending) {
      pending_ = true;
      return true;
    }
    result_ = std::move(run);
    kinds_ = std::move(kinds);
    recount();
    return true;
  }

  // Step 2: re-summarise this run's summaries with smaller budgets, oldest first, level by level.
  // Returns whether any summary got shorter.
  bool shortenSummaries() {
    std::vector<SummaryEntry> summaries = findSummaries();
    const std::vector<char> doomed = doomedEntries(summaries);
    bool changed = false;
    for (const Level& level : kLevels) {
      for (const SummaryEntry& s : summaries) {
        if (fits()) return changed;
        if (doomed[s.entry]) continue;
        OutputMessage& out = result_.messages[s.entry];
        std::optional<U16> shorter = shortenedSummary(s, out, level);
        if (!shorter || shorter->size() >= out.content->size()) continue;
        out.content = std::move(*shorter);
        replaceTokens(s.entry, count(out));
        changed = true;
      }
    }
    return changed;
  }

  // Step 3: replace units from the oldest on with stubs until the output fits. Stubs are sized
  // with the default estimate while scanning; the stubs finally chosen are counted with the
  // configured counter, and the scan goes on while that exact total is still too large.
  bool omitGroups() {
    std::vector<Unit> units = buildUnits(tokens_);
    Scan scan(units, budget_, total_);
    scan.advance([&](Run& run) { run.stubTokens = estimateStub(run); });
    // Price what the estimate chose with the real counter, then go on only if still needed.
    auto exact = [&](Run& run) {
      run.stub = stubFor(units, run);
      run.stubTokens = count(*run.stub);
    };
    scan.committed = total_;
    std::vector<Run> priced;
    for (Run& run : scan.runs) {
      exact(run);
      if (run.stubTokens >= run.tokens) continue;  // the counter prices this stub no cheaper
      scan.committed += run.stubTokens - run.tokens;
      priced.push_back(std::move(run));
    }
    scan.runs = std::move(priced);
    if (scan.open && scan.open->carrier) exact(*scan.open);
    scan.advance(exact);
    scan.close();
    // A ledger is worth its tokens only when the budget has room for it: stubs are chosen bare,
    // then take their ledger, oldest first, where it still fits.
    for (Run& run : scan.runs) {
      if (scan.committed > budget_) break;
      const std::size_t begin = units[run.firstUnit].firstInput;
      const std::size_t end = units[run.endUnit - 1].endInput;
      // The full ledger, else one of half its size (its most valuable items) where that fits.
      for (std::size_t share : {4, 8}) {
        U16 trail = ledgerOf(begin, end, run.chars / share);
        if (trail.empty()) break;
        OutputMessage withLedger = *run.stub;
        withLedger.content = omissionStub(run.messages, run.chars, trail);
        const double tokens = count(withLedger);
        if (scan.committed + tokens - run.stubTokens > budget_) continue;
        scan.committed += tokens - run.stubTokens;
        run.stubTokens = tokens;
        run.stub = std::move(withLedger);
        break;
      }
    }
    // Applied even when they are not enough: the steps after this one edit the newest turn, which
    // is worth more than old groups.
    if (!scan.runs.empty()) applyRuns(units, scan.runs);
    return !scan.runs.empty();
  }

  // Step 3: clear every tool result but the newest kKeptToolResults, oldest first.
  bool clearOldToolResults() {
    std::vector<std::size_t> results;
    for (std::size_t k = 0; k < result_.messages.size(); ++k) {
      const std::size_t source = result_.messages[k].source;
      if (isToolResult(messages_[source]) && editable(k)) results.push_back(k);
    }
    if (results.size() <= kKeptToolResults) return false;
    results.resize(results.size() - kKeptToolResults);
    bool changed = false;
    for (std::size_t k : results) {
      if (fits()) break;
      if (clearEntry(k)) changed = true;
    }
    bareNotes(results);
    return changed;
  }

  // Step 5: clear the assistant text between the newest user message and the last message.
  bool clearLoopText() {
    bool changed = false;
    std::vector<std::size_t> cleared;
    for (std::size_t k = 0; k + 1 < result_.messages.size() && !fits(); ++k) {
      const std::size_t source = result_.messages[k].source;
      if (source < protection_.turnStart || !hasRole(messages_[source], u"assistant")) continue;
      if (!editable(k)) continue;
      if (clearEntry(k)) {
        changed = true;
        cleared.push_back(k);
      }
    }
    bareNotes(cleared);
    return changed;
  }

  // Step 6: cut the longest contents to their head and tail, each by what the budget still needs
  // (in proportion to its tokens), largest first.
  bool cutOversized() {
    std::vector<std::size_t> longest;
    for (std::size_t k = 0; k < result_.messages.size(); ++k) {
      if (editable(k) && contentOf(result_.messages[k]).size() > kCutAbove) longest.push_back(k);
    }
    js::stableSort(longest, [&](std::size_t a, std::size_t b) {
      return contentOf(result_.messages[a]).size() > contentOf(result_.messages[b]).size();
    });
    bool changed = false;
    for (std::size_t k : longest) {
      if (fits()) break;
      const U16 text(contentOf(result_.messages[k]));
      const double share = tokens_[k] > 0 ? std::max(0.0, 1 - (total_ - budget_) / tokens_[k]) : 0;
      const std::size_t scaled = static_cast<std::size_t>(std::floor(text.size() * share));
      const std::size_t note = cutNoteLength(text.size());
      const std::size_t keep = std::max(kCutKeep, scaled > note ? scaled - note : 0);
      if (keep >= text.size()) continue;
      if (replaceContent(k, headAndTail(text, keep))) changed = true;
    }
    return changed;
  }

  // Step 7: clear what is left, oldest first, with the note where that is shorter, then with an
  // empty content where a provider accepts one (a tool result; an assistant message whose tool
  // calls remain, whose emptied text block the format adapters drop) and with the bare marker
  // elsewhere: an empty user text is a request Anthropic rejects, and a request that does not fit
  // is better than one that cannot be sent.
  bool clearRest() {
    bool changed = false;
    for (std::size_t k = 0; k < result_.messages.size() && !fits(); ++k) {
      if (editable(k) && clearEntry(k)) changed = true;
    }
    for (std::size_t k = 0; k < result_.messages.size() && !fits(); ++k) {
      if (!editable(k)) continue;
      const Message& m = messages_[result_.messages[k].source];
      const bool mayBeEmpty = isToolResult(m) || m.hasToolCalls;
      if (replaceContent(k, mayBeEmpty ? U16() : U16(u"[cce:cleared]"))) changed = true;
    }
    return changed;
  }

  // Step 8: when even the bare markers do not fit (a budget a few tokens above the required
  // messages), plain messages leave the output altogether, oldest first: each is folded into the
  // provenance of the nearest kept message after it (else before it), whose text stays as it was,
  // so `uncompress` still restores it and nothing that costs a token is left in its place. Only
  // messages without tool calls or results are folded (no pair is split) and never a required one.
  bool foldRest() {
    // Also for a budget the required messages alone exceed: the ladder keeps its smallest plan,
    // so that a smaller budget never gives more tokens than a larger, feasible one.
    const std::size_t n = result_.messages.size();
    std::vector<char> folded(n, false);
    double total = total_;
    bool any = false;
    for (std::size_t k = 0; k < n && total > budget_; ++k) {
      if (tokens_[k] <= 0 || !foldable(k)) continue;
      folded[k] = true;
      total -= tokens_[k];
      any = true;
    }
    if (!any) return false;
    // Each run of folded entries goes to the kept entry right after it, else the one right before
    // it (so that every message stands for a contiguous range); a run neither can carry stays. A
    // run that opens the conversation goes only to a user message (Anthropic's first message is
    // the user's): the next one, taking the plain entries before it along, else the run's own
    // first user message, which stays.
    std::vector<std::size_t> receiver(n, n);
    bool opened = false;  // a kept entry other than a leading preserved one came before
    for (std::size_t begin = 0; begin < n;) {
      if (!folded[begin]) {
        const std::size_t source = result_.messages[begin].source;
        if (!protected_[source] || source >= protection_.turnStart) opened = true;
        ++begin;
        continue;
      }
      std::size_t end = begin;
      while (end < n && folded[end]) ++end;
      if (!opened) {
        // An opening run extends over plain entries up to a user message that can carry it.
        std::size_t reach = end;
        while (reach < n && !(isUser(reach) && canReceive(reach)) && foldable(reach)) ++reach;
        if (reach < n && isUser(reach) && canReceive(reach)) {
          for (; end < reach; ++end) folded[end] = true;
        }
      }
      std::size_t to = n;
      if (end < n && canReceive(end) && (opened || isUser(end))) {
        to = end;
      } else if (opened && canReceive(begin - 1)) {
        to = begin - 1;
      } else if (!opened) {
        for (std::size_t k = begin; k < end && to == n; ++k) {
          if (isUser(k) && canReceive(k)) to = k;
        }
        if (to != n) folded[to] = false;
      }
      for (std::size_t k = begin; k < end; ++k) {
        if (to == n) folded[k] = false;  // nothing can carry it: it stays
        if (folded[k]) receiver[k] = to;
      }
      opened = true;
      begin = end;
    }
    std::vector<std::vector<std::size_t>> gained(n);
    for (std::size_t k = 0; k < n; ++k) {
      if (folded[k]) gained[receiver[k]].push_back(k);
    }
    for (std::size_t k = 0; k < n; ++k) {
      if (folded[k]) {
        release(k);
        const OutputMessage& out = result_.messages[k];
        result_.compression.messagesOmitted += out.provenance ? out.provenance->sources.size() : 1;
      }
      if (!gained[k].empty()) absorb(k, gained[k]);
    }
    std::vector<OutputMessage> out;
    std::vector<EntryKind> kinds;
    for (std::size_t k = 0; k < n; ++k) {
      if (folded[k]) continue;
      out.push_back(std::move(result_.messages[k]));
      kinds.push_back(kinds_[k]);
    }
    result_.messages = std::move(out);
    kinds_ = std::move(kinds);
    recount();
    return true;
  }

  // The inputs of the entries that still cost tokens and the required messages: what no step
  // could reduce further.
  std::vector<std::size_t> irreducible() const {
    std::vector<char> marked(messages_.size(), false);
    for (std::size_t i = 0; i < messages_.size(); ++i) marked[i] = required_[i];
    for (std::size_t k = 0; k < result_.messages.size(); ++k) {
      if (tokens_[k] > 0) marked[result_.messages[k].source] = true;
    }
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < messages_.size(); ++i) {
      if (marked[i]) out.push_back(i);
    }
    return out;
  }

  // Statistics and token count of the final plan.
  void finish() {
    bool pending = false;
    result_.budget->tokenCount = countOutputTokens(messages_, result_, options_, pending);
    result_.budget->fits = result_.budget->tokenCount <= budget_;
    computeRatios(messages_, options_, &memo_, result_);
    if (pending || result_.pending) pending_ = true;
  }

 private:
  double count(const OutputMessage& m) {
    TokenCount c = countTokens(countedOutput(messages_, m), options_);
    if (c.pending) {
      pending_ = true;
      return estimate(messages_, m, options_);
    }
    return c.value;
  }

  void recount() {
    tokens_.assign(result_.messages.size(), 0);
    total_ = 0;
    for (std::size_t k = 0; k < result_.messages.size(); ++k) {
      tokens_[k] = count(result_.messages[k]);
      total_ += tokens_[k];
    }
  }

  void replaceTokens(std::size_t entry, double value) {
    total_ += value - tokens_[entry];
    tokens_[entry] = value;
  }

  // The text an entry shows: its replacement, else its source's string content (else "").
  std::u16string_view contentOf(const OutputMessage& m) const {
    if (m.content) return *m.content;
    const Message& source = messages_[m.source];
    return source.contentIsString ? source.content.view() : std::u16string_view();
  }

  // Steps 3 and 5-7 edit an entry with text whose messages are all editable.
  bool editable(std::size_t k) const {
    const OutputMessage& out = result_.messages[k];
    if (contentOf(out).empty()) return false;
    if (out.provenance) {
      for (std::size_t i : out.provenance->sources) {
        if (required_[i]) return false;
      }
      return true;
    }
    return !required_[out.source];
  }

  // The input length an entry stands for.
  std::size_t originalChars(std::size_t k) const {
    const OutputMessage& out = result_.messages[k];
    if (!out.provenance) return messages_[out.source].length();
    std::size_t chars = 0;
    for (std::size_t i : out.provenance->sources) chars += messages_[i].length();
    return chars;
  }

  // The ledger of inputs [begin, end): of at most the first and the last kLedgerMessages texts,
  // so that pricing a long run stays linear; at most `maxChars` units (a quarter of what it stands
  // for, or less), so that a stub or note stays much cheaper than what it replaces.
  U16 ledgerOf(std::size_t begin, std::size_t end, std::size_t maxChars) const {
    std::vector<LedgerSource> texts;
    for (std::size_t i = begin; i < end; ++i) {
      if (i - begin >= kLedgerMessages && end - i > kLedgerMessages) {
        i = end - kLedgerMessages - 1;
        continue;
      }
      if (messages_[i].contentIsString) {
        const Scalar& role = messages_[i].role;
        texts.push_back({messages_[i].content, role.isString() && role.text == u"user"});
      }
    }
    return ledger(texts, maxChars);
  }

  // Clears entry k: a note with the ledger of what it stood for, else (when that costs as much
  // as the entry) the bare note.
  bool clearEntry(std::size_t k) {
    const OutputMessage& out = result_.messages[k];
    const std::size_t begin = out.provenance ? out.provenance->sources.front() : out.source;
    const std::size_t end = out.provenance ? out.provenance->sources.back() + 1 : out.source + 1;
    U16 withLedger = clearedNote(originalChars(k), ledgerOf(begin, end, originalChars(k) / 4));
    if (replaceContent(k, withLedger)) return true;
    return replaceContent(k, clearedNote(originalChars(k)));
  }

  // When the notes of a step do not fit with their ledgers, they give them up, oldest first,
  // before the ladder goes on to costlier steps (the newest content is worth more than a ledger);
  // addLedgers gives them back where the final plan has room.
  void bareNotes(const std::vector<std::size_t>& entries) {
    for (std::size_t k : entries) {
      if (fits()) return;
      if (result_.messages[k].content) replaceContent(k, clearedNote(originalChars(k)));
    }
  }

 public:
  // The cleared notes take their ledger, oldest first, while the output still fits: a ledger is
  // worth its tokens only when it does not cost the budget (a bare note that fits beats a ledger
  // that does not).
  void addLedgers() {
    for (std::size_t k = 0; k < result_.messages.size() && fits(); ++k) {
      OutputMessage& out = result_.messages[k];
      if (!out.content || !out.provenance) continue;
      const std::size_t chars = originalChars(k);
      if (*out.content != clearedNote(chars)) continue;
      const std::vector<std::size_t>& sources = out.provenance->sources;
      U16 trail = ledgerOf(sources.front(), sources.back() + 1, chars / 4);
      if (trail.empty()) continue;
      OutputMessage withLedger = out;
      withLedger.content = clearedNote(chars, trail);
      const double tokens = count(withLedger);
      if (total_ - tokens_[k] + tokens > budget_) continue;
      out = std::move(withLedger);
      replaceTokens(k, tokens);
    }
  }

 private:

  // Replaces entry k's content with `text` when that costs fewer tokens (never more: issue 18). A
  // message replaced for the first time gets its own provenance and its original goes to verbatim,
  // as forceConverge does; a summary, stub or earlier edit keeps the provenance it has.
  bool replaceContent(std::size_t k, U16 text) {
    OutputMessage candidate = result_.messages[k];
    const std::size_t source = candidate.source;
    const Message& m = messages_[source];
    const bool fresh = !candidate.provenance;
    if (fresh) {
      Provenance p;
      p.sources = {source};
      p.summaryId = makeSummaryId({&m.id});
      if (m.cceSummaryId) p.parentIds.push_back(*m.cceSummaryId);
      p.version = options_.sourceVersion;
      candidate.provenance = std::move(p);
    }
    candidate.content = std::move(text);
    const double tokens = count(candidate);
    if (tokens >= tokens_[k]) return false;
    if (fresh) {
      result_.verbatim.push_back({m.idKey, source});
      --result_.compression.messagesPreserved;
      ++result_.compression.messagesTruncated;
      kinds_[k] = EntryKind::Truncated;
    }
    result_.messages[k] = std::move(candidate);
    replaceTokens(k, tokens);
    return true;
  }

  // Step 8 folds an entry that stands for plain messages only, none of them required, or for
  // whole atomic groups (an omission stub).
  bool foldable(std::size_t k) const {
    const OutputMessage& out = result_.messages[k];
    auto plain = [&](std::size_t i) {
      const Message& m = messages_[i];
      return !required_[i] && !m.hasToolCalls && !isToolResult(m);
    };
    if (!out.provenance) return plain(out.source);
    // An omission stub stands for whole atomic groups and is carried by a plain message.
    if (kinds_[k] == EntryKind::Omitted) return true;
    for (std::size_t i : out.provenance->sources) {
      if (!plain(i)) return false;
    }
    return true;
  }

  bool isUser(std::size_t k) const { return hasRole(messages_[result_.messages[k].source], u"user"); }

  // A kept entry that can stand for folded ones: its text is a string it keeps (parts are not
  // rewritten) and it is not a preserved message before the newest turn (a system prompt is never
  // rewritten).
  bool canReceive(std::size_t k) const {
    const OutputMessage& out = result_.messages[k];
    if (!out.content && !messages_[out.source].contentIsString) return false;
    return !protected_[out.source] || out.source >= protection_.turnStart;
  }

  // Takes an entry that leaves the output out of the statistics; its original goes to verbatim
  // when no earlier step stored it (summaries, dedups and truncations stored theirs).
  void release(std::size_t k) {
    const OutputMessage& out = result_.messages[k];
    const EntryKind kind = kinds_[k];
    if (kind == EntryKind::Preserved) {
      result_.verbatim.push_back({messages_[out.source].idKey, out.source});
    }
    const bool several = kind == EntryKind::Compressed || kind == EntryKind::Omitted;
    uncount(kind, several && out.provenance ? out.provenance->sources.size() : 1,
            result_.compression);
  }

  // Entry k keeps its text and now also stands for the folded entries `from` (in input order).
  void absorb(std::size_t k, const std::vector<std::size_t>& from) {
    OutputMessage& out = result_.messages[k];
    const std::size_t source = out.source;
    if (!out.provenance) {
      out.content = U16(contentOf(out));
      Provenance p;
      p.sources = {source};
      if (messages_[source].cceSummaryId) p.parentIds.push_back(*messages_[source].cceSummaryId);
      p.version = options_.sourceVersion;
      out.provenance = std::move(p);
      if (kinds_[k] == EntryKind::Preserved) {
        result_.verbatim.push_back({messages_[source].idKey, source});
      }
    }
    std::vector<std::size_t> sources;
    std::vector<U16> parents;
    auto take = [&](const OutputMessage& entry) {
      if (entry.provenance) {
        for (std::size_t i : entry.provenance->sources) sources.push_back(i);
        for (const U16& id : entry.provenance->parentIds) parents.push_back(id);
      } else {
        sources.push_back(entry.source);
        if (messages_[entry.source].cceSummaryId) {
          parents.push_back(*messages_[entry.source].cceSummaryId);
        }
      }
    };
    bool own = false;
    for (std::size_t f : from) {
      if (!own && f > k) {
        take(out);
        own = true;
      }
      take(result_.messages[f]);
    }
    if (!own) take(out);
    std::vector<const Scalar*> ids;
    ids.reserve(sources.size());
    for (std::size_t i : sources) ids.push_back(&messages_[i].id);
    out.provenance->sources = std::move(sources);
    out.provenance->parentIds = std::move(parents);
    out.provenance->summaryId = makeSummaryId(ids);
  }

  std::vector<SummaryEntry> findSummaries() {
    std::vector<SummaryEntry> found;
    for (std::size_t k = 0; k < result_.messages.size(); ++k) {
      const OutputMessage& out = result_.messages[k];
      if (kinds_[k] != EntryKind::Compressed || !out.provenance || !out.content) continue;
      // A summary forceConverge truncated afterwards starts with `[truncated`: left as it is.
      if (!startsWith(*out.content, u"[summary")) continue;
      const std::vector<std::size_t>& sources = out.provenance->sources;
      SummaryEntry s;
      s.entry = k;
      s.begin = sources.front();
      s.end = sources.back() + 1;
      s.codeSplit =
          sources.size() == 1 &&
          memo_.contentClass(s.begin, messages_[s.begin].content) == MessageClass::CodeSplit;
      found.push_back(s);
    }
    return found;
  }

  // Summaries step 3 replaces whatever step 2 does to them: even with every summary at its
  // smallest possible form the output does not fit, and the scan over those smallest sizes already
  // replaces them (the real scan, over sizes at least as large, goes at least as far and forms the
  // same runs up to there). Skipping them leaves the final plan unchanged. Only with the built-in
  // estimates, for which smallestTokens is a true lower bound.
  std::vector<char> doomedEntries(const std::vector<SummaryEntry>& summaries) {
    std::vector<char> doomed(result_.messages.size(), false);
    if (options_.tokenCounter || summaries.empty()) return doomed;
    // Step 3 (clearing old tool results) comes before omission and may make it unnecessary: the
    // shortcut holds only when there is nothing for it to clear.
    std::size_t toolResults = 0;
    for (std::size_t k = 0; k < result_.messages.size(); ++k) {
      if (isToolResult(messages_[result_.messages[k].source]) && editable(k)) ++toolResults;
    }
    if (toolResults > kKeptToolResults) return doomed;
    std::vector<double> least = tokens_;
    double total = total_;
    for (const SummaryEntry& s : summaries) {
      const double smallest = smallestTokens(s, result_.messages[s.entry]);
      if (smallest < least[s.entry]) {
        total -= least[s.entry] - smallest;
        least[s.entry] = smallest;
      }
    }
    if (total <= budget_) return doomed;
    std::vector<Unit> units = buildUnits(least);
    Scan scan(units, budget_, total);
    scan.advance([&](Run& run) { run.stubTokens = estimateStub(run); });
    auto mark = [&](const Run& run) {
      const std::size_t end = units[run.endUnit - 1].endEntry;
      for (std::size_t k = units[run.firstUnit].firstEntry; k < end; ++k) doomed[k] = true;
    };
    for (const Run& run : scan.runs) mark(run);
    if (scan.open && scan.open->carrier) mark(*scan.open);
    return doomed;
  }

  // A lower bound of the estimate of any shortened form. By length: the wrapper around an empty
  // text (and the code fences). The script estimate never decreases when a code point is appended,
  // and every form starts with the wrapper's opening, so that opening's estimate bounds them all.
  double smallestTokens(const SummaryEntry& s, const OutputMessage& out) const {
    if (tokenEstimateOf(options_) == TokenEstimate::Chars) {
      return defaultTokenCount(smallestLength(s, out));
    }
    U16 opening = u"[summary: ";
    if (options_.embedSummaryId) opening = u"[summary#" + out.provenance->summaryId + u": ";
    return estimateTokens(opening);
  }

  // The shortest any shortened form can be: the wrapper around an empty text (and the fences).
  std::size_t smallestLength(const SummaryEntry& s, const OutputMessage& out) const {
    const U16* embedded = options_.embedSummaryId ? &out.provenance->summaryId : nullptr;
    if (!s.codeSplit) return formatSummary(U16(), s.end - s.begin, {}, embedded).size();
    CodeSplit split = splitCodeAndProse(messages_[s.begin].content);
    std::size_t length = formatSummary(U16(), 0, {}, embedded).size() + 2;
    for (std::size_t f = 0; f < split.fences.size(); ++f) {
      length += split.fences[f].size() + (f > 0 ? 2 : 0);
    }
    return length;
  }

  std::optional<U16> shortenedSummary(const SummaryEntry& s, const OutputMessage& out,
                                      const Level& level) {
    const U16* embedded = options_.embedSummaryId ? &out.provenance->summaryId : nullptr;
    if (s.codeSplit) {
      const Message& m = messages_[s.begin];
      CodeSplit split = splitCodeAndProse(m.content);
      // A deterministic summary is already at most this long when the pipeline used this budget.
      const std::size_t used = split.prose.size() < 600 ? 200 : 400;
      if (!options_.summarizer && level.budget >= used) return std::nullopt;
      U16 content = formatSummary(
          summarize(split.prose, level.budget, summarizeRules(options_)), 0, {}, embedded);
      content += u"\n\n";
      for (std::size_t f = 0; f < split.fences.size(); ++f) {
        if (f > 0) content += u"\n\n";
        content += split.fences[f];
      }
      return content;
    }
    std::size_t joined = s.end - s.begin - 1;
    for (std::size_t i = s.begin; i < s.end; ++i) joined += messages_[i].length();
    const std::size_t used = joined < 600 ? 200 : 400;
    if (!options_.summarizer && level.budget >= used) return std::nullopt;
    U16 all;
    all.reserve(joined);
    for (std::size_t i = s.begin; i < s.end; ++i) {
      if (i > s.begin) all.push_back(u' ');
      all += messages_[i].content;
    }
    U16 text = isStructuredOutput(all)
                   ? summarizeStructured(all, level.budget)
                   : summarize(all, level.budget, summarizeRules(options_));
    std::vector<U16> entities;
    if (level.entities > 0) entities = extractEntities(all, level.entities);
    return formatSummary(text, s.end - s.begin, entities, embedded);
  }

  std::vector<Unit> buildUnits(const std::vector<double>& tokens) {
    const std::size_t n = messages_.size();
    std::vector<std::size_t> groupEnd(n);
    for (const auto& [begin, end] : atomicGroups(messages_)) {
      for (std::size_t i = begin; i < end; ++i) groupEnd[i] = end;
    }
    auto coverage = [&](std::size_t k) {
      const OutputMessage& out = result_.messages[k];
      if (out.provenance && !out.provenance->sources.empty()) {
        return std::make_pair(out.provenance->sources.front(), out.provenance->sources.back() + 1);
      }
      return std::make_pair(out.source, out.source + 1);
    };
    std::vector<Unit> units;
    const std::size_t entries = result_.messages.size();
    std::size_t k = 0;
    while (k < entries) {
      Unit unit;
      unit.firstEntry = k;
      auto [first, end] = coverage(k);
      unit.firstInput = first;
      std::size_t need = groupEnd[end - 1];
      unit.tokens += tokens[k];
      ++k;
      while (end < need && k < entries) {
        end = coverage(k).second;
        need = std::max(need, groupEnd[end - 1]);
        unit.tokens += tokens[k];
        ++k;
      }
      unit.endEntry = k;
      unit.endInput = end;
      unit.stubbable = true;
      for (std::size_t i = first; i < end; ++i) {
        if (protected_[i]) unit.stubbable = false;
        // A stub replaces the whole content: a message with content parts does not carry one.
        if (!unit.carrier && canCarryStub(messages_[i]) && !messages_[i].multimodal) {
          unit.carrier = i;
        }
        unit.chars += messages_[i].length();
      }
      units.push_back(unit);
    }
    return units;
  }

  // The built-in estimate of omissionStub(run.messages, run.chars); by length without building it.
  double estimateStub(const Run& run) const {
    if (tokenEstimateOf(options_) == TokenEstimate::Script) {
      return estimateTokens(omissionStub(run.messages, run.chars));
    }
    auto digits = [](std::size_t v) {
      std::size_t d = 1;
      for (; v >= 10; v /= 10) ++d;
      return d;
    };
    const std::size_t length =
        std::char_traits<char16_t>::length(kStubOpen) + digits(run.messages) +
        std::char_traits<char16_t>::length(run.messages == 1 ? kStubOne : kStubMany) +
        digits(run.chars) + std::char_traits<char16_t>::length(kStubClose);
    return defaultTokenCount(length);
  }

  OutputMessage stubFor(const std::vector<Unit>& units, const Run& run) const {
    const std::size_t begin = units[run.firstUnit].firstInput;
    const std::size_t end = units[run.endUnit - 1].endInput;
    OutputMessage out;
    out.source = *run.carrier;
    out.content = omissionStub(run.messages, run.chars);
    Provenance p;
    std::vector<const Scalar*> ids;
    p.sources.reserve(end - begin);
    ids.reserve(end - begin);
    for (std::size_t i = begin; i < end; ++i) {
      p.sources.push_back(i);
      ids.push_back(&messages_[i].id);
      if (messages_[i].cceSummaryId) p.parentIds.push_back(*messages_[i].cceSummaryId);
    }
    p.summaryId = makeSummaryId(ids);
    p.version = options_.sourceVersion;
    out.provenance = std::move(p);
    return out;
  }

  void applyRuns(const std::vector<Unit>& units, std::vector<Run>& runs) {
    CompressionStats& stats = result_.compression;
    std::vector<OutputMessage> out;
    std::vector<EntryKind> kinds;
    out.reserve(result_.messages.size());
    kinds.reserve(result_.messages.size());
    std::size_t k = 0;
    for (Run& run : runs) {
      const std::size_t firstEntry = units[run.firstUnit].firstEntry;
      const std::size_t endEntry = units[run.endUnit - 1].endEntry;
      for (; k < firstEntry; ++k) {
        out.push_back(std::move(result_.messages[k]));
        kinds.push_back(kinds_[k]);
      }
      for (; k < endEntry; ++k) release(k);
      stats.messagesOmitted += run.messages;
      out.push_back(run.stub ? std::move(*run.stub) : stubFor(units, run));
      kinds.push_back(EntryKind::Omitted);
    }
    for (; k < result_.messages.size(); ++k) {
      out.push_back(std::move(result_.messages[k]));
      kinds.push_back(kinds_[k]);
    }
    result_.messages = std::move(out);
    kinds_ = std::move(kinds);
    recount();
  }

  const std::vector<Message>& messages_;
  const CompressOptions& options_;
  PipelineMemo& memo_;
  const ProtectedMessages& protection_;
  const double budget_;
  CompressResult& result_;
  std::vector<EntryKind>& kinds_;
  std::vector<char> protected_;  // per input message
  std::vector<char> required_;   // per input message: never edited (ProtectedMessages::required)
  std::vector<double> tokens_;   // per output entry
  double total_ = 0;
  bool pending_ = false;
};

}  // namespace

void uncount(EntryKind kind, std::size_t messages, CompressionStats& stats) {
  switch (kind) {
    case EntryKind::Preserved:
      stats.messagesPreserved -= messages;
      break;
    case EntryKind::Compressed:
      stats.messagesCompressed -= messages;
      break;
    case EntryKind::Deduped:
      stats.messagesDeduped -= messages;
      break;
    case EntryKind::FuzzyDeduped:
      stats.messagesFuzzyDeduped -= messages;
      break;
    case EntryKind::Truncated:
      stats.messagesTruncated -= messages;
      break;
    case EntryKind::Omitted:
      stats.messagesOmitted -= messages;
      break;
  }
}

std::vector<EntryKind> entryKinds(const CompressResult& run) {
  std::vector<EntryKind> kinds;
  kinds.reserve(run.messages.size());
  for (const OutputMessage& out : run.messages) {
    if (!out.content) {
      kinds.push_back(EntryKind::Preserved);
    } else if (startsWith(*out.content, u"[cce:dup of ")) {
      kinds.push_back(EntryKind::Deduped);
    } else if (startsWith(*out.content, u"[cce:near-dup of ")) {
      kinds.push_back(EntryKind::FuzzyDeduped);
    } else {
      kinds.push_back(EntryKind::Compressed);  // a group summary or a code-split message
    }
  }
  return kinds;
}

std::size_t newestTurnStart(const std::vector<Message>& messages) {
  for (std::size_t i = messages.size(); i-- > 0;) {
    if (hasRole(messages[i], u"user")) return i;
  }
  return messages.size();
}

std::vector<std::pair<std::size_t, std::size_t>> atomicGroups(
    const std::vector<Message>& messages) {
  std::vector<std::pair<std::size_t, std::size_t>> groups;
  const std::size_t n = messages.size();
  std::size_t i = 0;
  while (i < n) {
    std::size_t end = i + 1;
    if (messages[i].hasToolCalls) {
      while (end < n && isToolResult(messages[end])) ++end;
      if (end < n && hasRole(messages[end], u"assistant") && canCarryStub(messages[end])) ++end;
    }
    groups.emplace_back(i, end);
    i = end;
  }
  return groups;
}

bool canCarryStub(const Message& message) {
  return !message.hasToolCalls && !message.hasToolCallId;
}

U16 omissionStub(std::size_t messages, std::size_t chars) {
  return omissionStub(messages, chars, U16());
}

U16 omissionStub(std::size_t messages, std::size_t chars, const U16& ledger) {
  U16 stub = kStubOpen;
  js::appendDecimal(stub, messages);
  stub += messages == 1 ? kStubOne : kStubMany;
  js::appendDecimal(stub, chars);
  stub += u" chars";
  stub += ledger;
  stub += u']';
  return stub;
}

ProtectedMessages findProtected(const std::vector<Message>& messages,
                                const CompressOptions& options) {
  ProtectedMessages p;
  p.turnStart = newestTurnStart(messages);
  for (std::size_t i = 0; i < messages.size(); ++i) {
    const bool preserved = isPreservedRole(messages[i].role, options.preserve);
    if (i < p.turnStart && !preserved) continue;
    p.indices.push_back(i);
    CountedMessage counted;
    counted.source = &messages[i];
    counted.sourceIndex = i;
    TokenCount c = countTokens(counted, options);
    if (c.pending) p.pending = true;
    p.tokens += c.value;
    if (preserved || i == p.turnStart) {
      p.required.push_back(i);
      p.requiredTokens += c.value;
    }
  }
  p.fits = p.tokens <= *options.tokenBudget;
  p.requiredFits = p.requiredTokens <= *options.tokenBudget;
  return p;
}

EscalationStep escalate(const std::vector<Message>& messages, const CompressOptions& options,
                        PipelineMemo& memo, const ProtectedMessages& protection,
                        CompressResult& result, std::vector<EntryKind>& kinds) {
  Ladder ladder(messages, options, memo, protection, result, kinds);
  EscalationStep step = EscalationStep::None;
  auto attempt = [&](bool (Ladder::*run)(), EscalationStep reached) {
    if (!ladder.pending() && !ladder.fits() && (ladder.*run)()) step = reached;
  };
  if (!ladder.pending() && ladder.summariseWindow()) step = EscalationStep::WindowSummaries;
  attempt(&Ladder::shortenSummaries, EscalationStep::ShorterSummaries);
  attempt(&Ladder::clearOldToolResults, EscalationStep::ClearedToolResults);
  attempt(&Ladder::omitGroups, EscalationStep::Omission);
  attempt(&Ladder::clearLoopText, EscalationStep::ClearedLoopText);
  attempt(&Ladder::cutOversized, EscalationStep::Cut);
  attempt(&Ladder::clearRest, EscalationStep::ClearedAll);
  attempt(&Ladder::foldRest, EscalationStep::Folded);
  if (!ladder.pending() && ladder.fits()) ladder.addLedgers();
  std::vector<std::size_t> irreducible;
  if (!ladder.pending() && !ladder.fits()) irreducible = ladder.irreducible();
  if (!ladder.pending()) ladder.finish();
  if (ladder.pending()) {
    result.pending = true;
    return step;
  }
  // A plan that still does not fit is kept as the ladder left it, the smallest it could reach: a
  // smaller budget then never gives more tokens than a larger one.
  if (!result.budget->fits) result.budget->blocking = std::move(irreducible);
  return step;
}

}  // namespace cce
