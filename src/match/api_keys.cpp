// SPDX-License-Identifier: MIT
// API-key scanners (spec §3.3): the provider patterns and the generic token in one pass.
#include "match/api_keys.h"

#include <cstddef>
#include <cstdint>

#include "jscompat/string.h"

namespace cce::match {
namespace {

using js::isAlnum;
using js::isWord;
using js::isWordBoundary;

enum : std::uint8_t { kAlnumBit = 1, kUnderscoreBit = 2, kDashBit = 4, kDotBit = 8 };

struct AsciiClasses {
  std::uint8_t bits[128] = {};
};

constexpr AsciiClasses makeAsciiClasses() {
  AsciiClasses t{};
  for (int c = 0; c < 128; ++c) {
    if (isAlnum(char16_t(c))) t.bits[c] |= kAlnumBit;
  }
  t.bits[int('_')] |= kUnderscoreBit;
  t.bits[int('-')] |= kDashBit;
  t.bits[int('.')] |= kDotBit;
  return t;
}
constexpr AsciiClasses kAscii = makeAsciiClasses();

constexpr bool inClass(char16_t c, std::uint8_t bits) { return c < 128 && (kAscii.bits[c] & bits); }
constexpr bool isKeyChar(char16_t c) {  // [A-Za-z0-9_-]
  return inClass(c, kAlnumBit | kUnderscoreBit | kDashBit);
}
constexpr bool isAlnumDash(char16_t c) { return inClass(c, kAlnumBit | kDashBit); }  // [A-Za-z0-9-]
constexpr bool isKeyOrDot(char16_t c) {  // [A-Za-z0-9_.-]
  return inClass(c, kAlnumBit | kUnderscoreBit | kDashBit | kDotBit);
}
constexpr bool isUpperDigit(char16_t c) { return js::isUpper(c) || js::isDigit(c); }

constexpr std::size_t kShortestKey = ApiKeyRunScanner::kMinRunLength;

template <typename Pred>
std::size_t runEnd(std::u16string_view text, std::size_t from, Pred pred) {
  while (from < text.size() && pred(text[from])) ++from;
  return from;
}

bool hasAt(std::u16string_view text, std::size_t at, std::string_view ascii) {
  return at <= text.size() && js::startsWithAscii(text.substr(at), ascii);
}

// A greedy run [begin, end) of at least `minLength` followed by `\b`: some length in
// [minLength, end - begin] must end on a boundary (backtracking tries them all).
bool runEndsOnBoundary(std::u16string_view text, std::size_t begin, std::size_t end,
                       std::size_t minLength) {
  for (std::size_t p = begin + minLength; p <= end; ++p) {
    if (isWordBoundary(text, p)) return true;
  }
  return false;
}

// `[A-Za-z0-9]{min,}\b` from `begin`: shorter lengths end between two alphanumerics, so only the
// maximal run can be followed by `\b`, and only if the next character is not `_`.
bool alnumRunThenBoundary(std::u16string_view text, std::size_t begin, std::size_t minLength) {
  std::size_t end = runEnd(text, begin, isAlnum);
  return end - begin >= minLength && isWordBoundary(text, end);
}

std::uint32_t bit(ApiKeyKind kind) { return std::uint32_t{1} << static_cast<unsigned>(kind); }

// ScanState::generic
constexpr std::uint8_t kGenericUndecided = 0, kGenericRejected = 1, kGenericAccepted = 2;

using ScanState = detail::ApiKeyScanState;

// Tries every provider pattern at every position of the [A-Za-z0-9_.-] run [runBegin, runStop)
// (any provider match lies inside one such run). Returns true to stop: `stopAtFirst` and a provider
// matched.
bool scanProviders(std::u16string_view text, std::size_t runBegin, std::size_t runStop,
                   ScanState* st, bool stopAtFirst) {
  const std::size_t n = text.size();
  auto record = [&](ApiKeyKind kind) {
    st->providers |= bit(kind);
    return stopAtFirst;
  };
  std::size_t& skipOpenAi = st->skipOpenAi;
  std::size_t& skipSlack = st->skipSlack;
  std::size_t& skipGitLab = st->skipGitLab;
  for (std::size_t i = runBegin; i < runStop; ++i) {
    const char16_t c = text[i];
    // Every provider prefix but `sk-` starts with `\b` before a letter.
    const bool atWordStart = i == 0 || !isWord(text[i - 1]);
    switch (c) {
      case u's':
      case u'r':
        if (c == u's' && i >= skipOpenAi && hasAt(text, i + 1, "k-") &&
            (i == 0 || !isAlnumDash(text[i - 1]))) {
          std::size_t end = runEnd(text, i + 3, isKeyChar);
          if (end - (i + 3) >= 20) {
            if (record(ApiKeyKind::kOpenAi)) return true;
          } else {
            skipOpenAi = end;
          }
        }
        if (atWordStart && hasAt(text, i + 1, "k_") &&
            (hasAt(text, i + 3, "live_") || hasAt(text, i + 3, "test_")) &&
            alnumRunThenBoundary(text, i + 8, 24)) {
          if (record(ApiKeyKind::kStripe)) return true;
        }
        break;
      case u'A':
        if (!atWordStart) break;
        if (hasAt(text, i + 1, "KIA") && i + 20 <= n) {
          bool ok = true;
          for (std::size_t k = i + 4; k < i + 20 && ok; ++k) ok = isUpperDigit(text[k]);
          if (ok && isWordBoundary(text, i + 20) && record(ApiKeyKind::kAwsAccessKey)) return true;
        }
        if (hasAt(text, i + 1, "Iza") && i + 39 <= n) {
          // Exactly 35: no backtracking choice, the boundary must sit right after them.
          bool ok = true;
          for (std::size_t k = i + 4; k < i + 39 && ok; ++k) ok = isKeyChar(text[k]);
          if (ok && isWordBoundary(text, i + 39) && record(ApiKeyKind::kGoogle)) return true;
        }
        break;
      case u'g':
        if (!atWordStart) break;
        if (i + 3 < n && text[i + 1] == u'h' && text[i + 3] == u'_') {
          char16_t t = text[i + 2];
          if ((t == u'p' || t == u'o' || t == u's' || t == u'r' || t == u't') &&
              alnumRunThenBoundary(text, i + 4, 36) && record(ApiKeyKind::kGitHubToken)) {
            return true;
          }
        }
        // `\w` run: its maximal end is always a boundary, shorter ends never are.
        if (hasAt(text, i + 1, "ithub_pat_") && runEnd(text, i + 11, isWord) - (i + 11) >= 36 &&
            record(ApiKeyKind::kGitHubPat)) {
          return true;
        }
        if (i >= skipGitLab && hasAt(text, i + 1, "lpat-")) {
          std::size_t end = runEnd(text, i + 6, isKeyChar);
          if (end - (i + 6) >= 20 && runEndsOnBoundary(text, i + 6, end, 20)) {
            if (record(ApiKeyKind::kGitLab)) return true;
          } else {
            skipGitLab = end;
          }
        }
        break;
      case u'x':
        if (atWordStart && i >= skipSlack && hasAt(text, i + 1, "ox") && i + 4 < n &&
            text[i + 4] == u'-') {
          char16_t t = text[i + 3];
          if (t == u'b' || t == u'p' || t == u'r' || t == u'a') {
            std::size_t end = runEnd(text, i + 5, isAlnumDash);
            if (end - (i + 5) >= 20 && runEndsOnBoundary(text, i + 5, end, 20)) {
              if (record(ApiKeyKind::kSlack)) return true;
            } else {
              skipSlack = end;
            }
          }
        }
        break;
      case u'S':
        if (atWordStart && hasAt(text, i + 1, "G.")) {
          // The first run cannot give back characters: `.` must follow it directly.
          std::size_t mid = runEnd(text, i + 3, isKeyChar);
          if (mid - (i + 3) >= 20 && mid < n && text[mid] == u'.') {
            std::size_t end = runEnd(text, mid + 1, isKeyChar);
            if (end - (mid + 1) >= 20 && runEndsOnBoundary(text, mid + 1, end, 20) &&
                record(ApiKeyKind::kSendGrid)) {
              return true;
            }
          }
        }
        break;
      case u'n':
        if (atWordStart && hasAt(text, i + 1, "pm_") && alnumRunThenBoundary(text, i + 4, 36) &&
            record(ApiKeyKind::kNpm)) {
          return true;
        }
        break;
      default:
        break;
    }
  }
  return false;
}

// `([a-z]{2,}-){2,}` anywhere in body: two dash-terminated segments, the second made only of
// (at least two) lower-case letters and starting right after the first dash, the first ending in
// at least two lower-case letters.
bool hasTwoLowerDashSegments(std::u16string_view body) {
  std::size_t lowerRun = 0;
  bool havePrevious = false;  // a qualifying dash ends the previous segment
  std::size_t previousDash = 0;
  for (std::size_t i = 0; i < body.size(); ++i) {
    char16_t c = body[i];
    if (js::isLower(c)) {
      ++lowerRun;
      continue;
    }
    if (c == u'-' && lowerRun >= 2) {
      if (havePrevious && previousDash + 1 + lowerRun == i) return true;
      havePrevious = true;
      previousDash = i;
    }
    lowerRun = 0;
  }
  return false;
}

// The generic token rule:
//   \b[A-Za-z](?=[A-Za-z0-9]{0,13}[g-zG-Z])[A-Za-z0-9]{1,14}[-_]
//   (?=[A-Za-z0-9_-]*[0-9])(?=[A-Za-z0-9_-]*[A-Za-z])[A-Za-z0-9_-]{20,}\b
// A match lies inside one maximal `[A-Za-z0-9_-]` run; the body's run always ends where that run
// ends, so its look-aheads and its greedy `\b` end depend only on the run: a digit or letter at or
// after the body start, and the run's last boundary (the greedy choice) at least 20 past it.
// Decides `st->generic` at the first match inside [runBegin, runStop), if there is one.
void findGenericToken(std::u16string_view text, std::size_t runBegin, std::size_t runStop,
                      ScanState* st) {
  // Two prefix units, the separator and 20 body units.
  if (runStop - runBegin < 23) return;
  std::size_t lastDigit = 0, lastLetter = 0, lastBoundary = 0;  // positions + 1; 0 = none
  for (std::size_t k = runBegin; k < runStop; ++k) {
    char16_t c = text[k];
    if (js::isDigit(c)) lastDigit = k + 1;
    if (js::isAlpha(c)) lastLetter = k + 1;
    if (k > runBegin && isWordBoundary(text, k)) lastBoundary = k;
  }
  if (isWordBoundary(text, runStop)) lastBoundary = runStop;

  for (std::size_t s = runBegin; s < runStop; ++s) {
    // `\b[A-Za-z]`: inside the run only a letter right after `-` starts a word.
    if (!js::isAlpha(text[s]) || (s > runBegin && text[s - 1] != u'-')) continue;
    std::size_t sep = s + 1;
    bool outsideHex = false;
    while (sep < runStop && sep - s <= 15 && isAlnum(text[sep])) {
      char16_t lower = js::asciiLower(text[sep]);
      if (lower >= u'g' && lower <= u'z') outsideHex = true;
      ++sep;
    }
    // `[A-Za-z0-9]{1,14}[-_]`: the prefix cannot give back characters, the separator must follow.
    if (sep - s < 2 || sep - s > 15 || sep >= runStop || !outsideHex) continue;
    if (text[sep] != u'-' && text[sep] != u'_') continue;
    const std::size_t bodyBegin = sep + 1;
    if (lastDigit <= bodyBegin || lastLetter <= bodyBegin) continue;
    if (lastBoundary < bodyBegin + 20) continue;
    // The first match decides, accepted or not.
    st->generic = hasTwoLowerDashSegments(text.substr(bodyBegin, lastBoundary - bodyBegin))
                      ? kGenericRejected
                      : kGenericAccepted;
    return;
  }
}

// Scans one maximal [A-Za-z0-9_.-] run of at least kShortestKey units: the provider patterns at
// every position, and the generic token in its `.`-free parts until the token's first match.
// Returns true to stop: `stopAtFirst` and the yes/no answer is known.
bool scanRun(std::u16string_view text, std::size_t runBegin, std::size_t runStop, ScanState* st,
             bool stopAtFirst) {
  if (scanProviders(text, runBegin, runStop, st, stopAtFirst)) return true;
  for (std::size_t k = runBegin; k < runStop && st->generic == kGenericUndecided;) {
    std::size_t partStop = runEnd(text, k, isKeyChar);
    findGenericToken(text, k, partStop, st);
    k = partStop + 1;  // past the '.'
  }
  return stopAtFirst && st->generic == kGenericAccepted;
}

// One pass over the runs long enough to hold a key (ordinary words are skipped by a tight loop).
ScanState scan(std::u16string_view text, bool stopAtFirst) {
  const std::size_t n = text.size();
  ScanState st;
  std::size_t i = 0;
  while (i < n) {
    if (!isKeyOrDot(text[i])) {
      ++i;
      continue;
    }
    const std::size_t runBegin = i;
    const std::size_t runStop = runEnd(text, i, isKeyOrDot);
    i = runStop;
    if (runStop - runBegin >= kShortestKey && scanRun(text, runBegin, runStop, &st, stopAtFirst)) {
      return st;
    }
  }
  return st;
}

}  // namespace

ApiKeyKind findApiKey(std::u16string_view text) {
  const ScanState st = scan(text, /*stopAtFirst=*/false);
  for (unsigned k = 1; k < 32; ++k) {
    if (st.providers & (std::uint32_t{1} << k)) return static_cast<ApiKeyKind>(k);
  }
  return st.generic == kGenericAccepted ? ApiKeyKind::kGeneric : ApiKeyKind::kNone;
}

bool hasApiKey(std::u16string_view text) {
  const ScanState st = scan(text, /*stopAtFirst=*/true);
  return st.providers != 0 || st.generic == kGenericAccepted;
}

bool ApiKeyRunScanner::run(std::u16string_view text, std::size_t begin, std::size_t end) {
  return scanRun(text, begin, end, &state_, /*stopAtFirst=*/true);
}

}  // namespace cce::match
