// SPDX-License-Identifier: MIT
// Spec §3: classifyMessage / hasHardReason / isValidJson as linear scanners with JS regex results.
#include "classifier.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string_view>
#include <vector>

#include "jscompat/string.h"
#include "match/api_keys.h"
#include "match/json_syntax.h"
#include "match/sql_keywords.h"

namespace cce {
namespace {

using js::isDigit;
using js::isLineTerminator;
using js::isSpace;
using js::isWord;
using js::isWordBoundary;
using View = std::u16string_view;

constexpr bool isKeyChar(char16_t c) { return isWord(c) || c == u'-'; }  // [\w-]

bool hasAt(View text, std::size_t at, std::string_view ascii) {
  return at <= text.size() && js::startsWithAscii(text.substr(at), ascii);
}

// End of the line starting at `p`: the first line terminator at or after it, or the text end.
std::size_t lineEnd(View text, std::size_t p) {
  while (p < text.size() && !isLineTerminator(text[p])) ++p;
  return p;
}

// ---- structural detectors (§3.1) --------------------------------------------------------------

// /^ {0,3}```\w*\n[\s\S]*?\n\s*```/m. Only the first opening matters: a later opening starts its
// body later, so every closing it could use is also available to the first one.
bool hasCodeFence(View text) {
  const std::size_t n = text.size();
  std::size_t bodyBegin = n + 1;
  for (std::size_t p = 0; p < n;) {
    std::size_t q = p;
    while (q < n && q - p < 4 && text[q] == u' ') ++q;
    if (q - p <= 3 && hasAt(text, q, "```")) {
      std::size_t w = q + 3;
      while (w < n && isWord(text[w])) ++w;
      if (w < n && text[w] == u'\n') {
        bodyBegin = w + 1;
        break;
      }
    }
    p = lineEnd(text, p) + 1;
  }
  // Closing: a `\n` at or after bodyBegin, then only whitespace, then three backticks.
  bool newlineInRun = false;
  for (std::size_t t = bodyBegin; t < n; ++t) {
    char16_t c = text[t];
    if (c == u'`' && newlineInRun && hasAt(text, t, "```")) return true;
    if (c == u'\n') {
      newlineInRun = true;
    } else if (!isSpace(c)) {
      newlineInRun = false;
    }
  }
  return false;
}

// /^( {4}|\t).+\n( {4}|\t).+/m. `.+` stops at any line terminator, and the first line's must be
// `\n`, so CRLF text never matches.
bool hasIndentedCode(View text) {
  const std::size_t n = text.size();
  bool previousOk = false;  // the previous line qualified and ended in '\n'
  for (std::size_t p = 0; p <= n;) {
    std::size_t e = lineEnd(text, p);
    bool ok = (e - p >= 5 && hasAt(text, p, "    ")) || (e - p >= 2 && text[p] == u'\t');
    if (ok && previousOk) return true;
    previousOk = ok && e < n && text[e] == u'\n';
    if (e >= n) break;
    p = e + 1;
  }
  return false;
}

// The 25 symbols of unicode_math, sorted.
constexpr char16_t kMathSymbols[] = {
    0x00AC, 0x00B1, 0x00D7, 0x00F7, 0x2192, 0x2194, 0x2200, 0x2203, 0x2208,
    0x2209, 0x220F, 0x2211, 0x221A, 0x221E, 0x2227, 0x2228, 0x2229, 0x222A,
    0x222B, 0x2248, 0x2260, 0x2264, 0x2265, 0x2286, 0x2287,
};

bool isMathSymbol(char16_t c) {
  if (c < 0xAC || (c > 0xF7 && c < 0x2192) || c > 0x2287) return false;
  return std::binary_search(std::begin(kMathSymbols), std::end(kMathSymbols), c);
}

// /^\s*(\{\s*"|\[\s*[\[{"\d-])/ — no `m`: only at the very start.
bool hasJsonStructure(View text) {
  const std::size_t n = text.size();
  std::size_t i = 0;
  while (i < n && isSpace(text[i])) ++i;
  if (i >= n || (text[i] != u'{' && text[i] != u'[')) return false;
  const bool object = text[i] == u'{';
  ++i;
  while (i < n && isSpace(text[i])) ++i;
  if (i >= n) return false;
  char16_t c = text[i];
  if (object) return c == u'"';
  return c == u'[' || c == u'{' || c == u'"' || isDigit(c) || c == u'-';
}

// The tail `[\w-]+:\s+.+` of the second YAML line, anchored at k. `\s+` may give back units, so
// `.+` can start on any non-terminator inside the whitespace run (after its first unit) or on the
// first non-space after it.
bool yamlSecondLineAt(View text, std::size_t k) {
  const std::size_t n = text.size();
  std::size_t colon = k;
  while (colon < n && isKeyChar(text[colon])) ++colon;
  if (colon == k || colon >= n || text[colon] != u':') return false;
  std::size_t e = colon + 1;
  while (e < n && isSpace(text[e])) ++e;
  if (e < colon + 2) return false;
  if (e < n) return true;
  for (std::size_t x = colon + 2; x < e; ++x) {
    if (!isLineTerminator(text[x])) return true;
  }
  return false;
}

// /^[\w-]+:\s+.+\n[\w-]+:\s+.+/m at the line start p. The first `\s+.+\n` can end on a `\n` inside
// the whitespace run (when the unit before it is a non-terminator space other than the first) or
// on the first terminator after the run; only a `\n` directly before the next key helps, so the
// candidates are the run's last unit and that first terminator.
bool yamlAt(View text, std::size_t p) {
  const std::size_t n = text.size();
  std::size_t colon = p;
  while (colon < n && isKeyChar(text[colon])) ++colon;
  if (colon == p || colon >= n || text[colon] != u':') return false;
  std::size_t e = colon + 1;
  while (e < n && isSpace(text[e])) ++e;
  if (e < colon + 2) return false;
  if (e >= colon + 4 && text[e - 1] == u'\n' && !isLineTerminator(text[e - 2]) &&
      yamlSecondLineAt(text, e)) {
    return true;
  }
  if (e >= n) return false;
  std::size_t m = lineEnd(text, e);
  return m < n && text[m] == u'\n' && yamlSecondLineAt(text, m + 1);
}

bool hasYamlStructure(View text) {
  const std::size_t n = text.size();
  for (std::size_t p = 0; p < n;) {
    if (yamlAt(text, p)) return true;
    p = lineEnd(text, p) + 1;
  }
  return false;
}

// The detectors that look at single characters, gathered in one pass, plus cheap necessary
// conditions for the fence, indented-code and YAML detectors so their own scans run only when they
// could match. Prose then costs one pass here, one for SQL and one for API keys.
struct StructureScan {
  bool latexMath = false;
  bool unicodeMath = false;
  bool versePattern = false;
  bool lineLengthVariance = false;
  bool specialCharRatio = false;
  bool mayHaveFence = false;   // "```" occurs
  bool mayHaveIndent = false;  // a line after a '\n' starts with four spaces or a tab
  bool mayHaveYaml = false;    // two colons each end a `[\w-]+` run that starts a line
};

enum : std::uint8_t {
  kSpecial = 1,  // one of the 23 characters of high_special_char_ratio
  kNewline = 2,
  kVerseStop = 4,  // . ! ?
  kDollar = 8,
  kBacktick = 16,
  kColon = 32,
};

struct AsciiClasses {
  std::uint8_t bits[128] = {};
};

constexpr AsciiClasses makeAsciiClasses() {
  AsciiClasses t{};
  for (char c : std::string_view("{}[]<>|\\;:@#$%^&*()=+`~")) t.bits[int(c)] |= kSpecial;
  t.bits[int('\n')] |= kNewline;
  t.bits[int('.')] |= kVerseStop;
  t.bits[int('!')] |= kVerseStop;
  t.bits[int('?')] |= kVerseStop;
  t.bits[int('$')] |= kDollar;
  t.bits[int('`')] |= kBacktick;
  t.bits[int(':')] |= kColon;
  return t;
}
constexpr AsciiClasses kAscii = makeAsciiClasses();

constexpr std::size_t kNone = static_cast<std::size_t>(-1);

StructureScan scanStructure(View text) {
  const std::size_t n = text.size();
  StructureScan out;
  std::size_t special = 0;
  // latex_math: /\$\$[\s\S]+?\$\$|\$[^$\n]+?\$/ — two `$$` with at least one unit between them
  // (only the first `$$` matters), or two consecutive `$` with no '\n' and at least one unit
  // between.
  std::size_t firstPair = kNone, lastDollar = kNone;
  // verse_pattern: /\n[A-Z][^.!?\n]*\n[A-Z][^.!?\n]*\n[A-Z][^.!?\n]*(\n|$)/ — three consecutive
  // '\n'-separated lines, never the text's first line, each starting A-Z and free of . ! ?
  bool inLaterLine = false, lineOk = false;
  int verseRun = 0;
  // high_line_length_variance works on split('\n').
  std::vector<std::size_t> lineLengths;
  std::size_t lineStart = 0;
  int yamlKeys = 0;
  auto endVerseLine = [&] {
    verseRun = lineOk ? verseRun + 1 : 0;
    if (verseRun >= 3) out.versePattern = true;
  };

  for (std::size_t i = 0; i < n; ++i) {
    const char16_t c = text[i];
    if (c >= 0x80) {
      if (isMathSymbol(c)) out.unicodeMath = true;
      continue;
    }
    const std::uint8_t bits = kAscii.bits[c];
    if (bits == 0) continue;
    if (bits & kSpecial) ++special;
    if (bits & kNewline) {
      lastDollar = kNone;
      if (inLaterLine) endVerseLine();
      inLaterLine = true;
      lineOk = i + 1 < n && js::isUpper(text[i + 1]);
      lineLengths.push_back(i - lineStart);
      lineStart = i + 1;
      if ((i + 1 < n && text[i + 1] == u'\t') || hasAt(text, i + 1, "    ")) {
        out.mayHaveIndent = true;
      }
    } else if (bits & kVerseStop) {
      lineOk = false;
    } else if (bits & kDollar) {
      if (lastDollar != kNone && i - lastDollar >= 2) out.latexMath = true;
      lastDollar = i;
      if (i + 1 < n && text[i + 1] == u'$') {
        if (firstPair == kNone) {
          firstPair = i;
        } else if (i >= firstPair + 3) {
          out.latexMath = true;
        }
      }
    } else if (bits & kBacktick) {
      if (hasAt(text, i, "```")) out.mayHaveFence = true;
    } else if (bits & kColon) {
      // Each key run is walked back once, by the colon that ends it.
      std::size_t p = i;
      while (p > 0 && isKeyChar(text[p - 1])) --p;
      if (p < i && (p == 0 || isLineTerminator(text[p - 1]))) out.mayHaveYaml = ++yamlKeys >= 2;
    }
  }
  if (inLaterLine) endVerseLine();
  lineLengths.push_back(n - lineStart);

  out.specialCharRatio =
      static_cast<double>(special) / static_cast<double>(std::max<std::size_t>(n, 1)) > 0.15;

  // Population coefficient of variation, in the reference's order of double operations.
  const std::size_t lines = lineLengths.size();
  if (lines > 3) {
    const double k = static_cast<double>(lines);
    const double mean = static_cast<double>(n - (lines - 1)) / k;
    double sum = 0;
    for (std::size_t len : lineLengths) {
      const double d = static_cast<double>(len) - mean;
      sum += d * d;
    }
    out.lineLengthVariance = mean != 0 && std::sqrt(sum / k) / mean > 1.2;
  }
  return out;
}

// ---- soft patterns (§3.4) ---------------------------------------------------------------------

// /https?:\/\/\S+/
bool hasUrl(View text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != u'h' || !hasAt(text, i, "http")) continue;
    std::size_t j = i + 4;
    if (j < text.size() && text[j] == u's') ++j;
    if (hasAt(text, j, "://") && j + 3 < text.size() && !isSpace(text[j + 3])) return true;
  }
  return false;
}

// /[\w.+-]+@[\w-]+\.[a-z]{2,}/i: `[\w-]+` cannot give back units, the dot must follow the run.
bool hasEmail(View text) {
  const std::size_t n = text.size();
  for (std::size_t a = 1; a < n; ++a) {
    if (text[a] != u'@') continue;
    char16_t before = text[a - 1];
    if (!(isWord(before) || before == u'.' || before == u'+' || before == u'-')) continue;
    std::size_t d = a + 1;
    while (d < n && isKeyChar(text[d])) ++d;
    if (d > a + 1 && d + 2 < n && text[d] == u'.' && js::isAlpha(text[d + 1]) &&
        js::isAlpha(text[d + 2])) {
      return true;
    }
  }
  return false;
}

bool isPhoneSeparator(char16_t c) { return c == u'-' || c == u'.' || isSpace(c); }

// /\b\d{3}[-.\s]?\d{3}[-.\s]?\d{4}\b/ at a word start: try the four separator choices.
bool phoneAt(View text, std::size_t i) {
  const std::size_t n = text.size();
  auto digitsAt = [&](std::size_t at, std::size_t count) {
    if (at + count > n) return false;
    for (std::size_t k = 0; k < count; ++k) {
      if (!isDigit(text[at + k])) return false;
    }
    return true;
  };
  if (!digitsAt(i, 3)) return false;
  for (int first = 1; first >= 0; --first) {
    std::size_t j = i + 3;
    if (first) {
      if (j >= n || !isPhoneSeparator(text[j])) continue;
      ++j;
    }
    if (!digitsAt(j, 3)) continue;
    for (int second = 1; second >= 0; --second) {
      std::size_t k = j + 3;
      if (second) {
        if (k >= n || !isPhoneSeparator(text[k])) continue;
        ++k;
      }
      if (digitsAt(k, 4) && isWordBoundary(text, k + 4)) return true;
    }
  }
  return false;
}

bool atWordStart(View text, std::size_t i) { return i == 0 || !isWord(text[i - 1]); }

bool hasPhone(View text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (isDigit(text[i]) && atWordStart(text, i) && phoneAt(text, i)) return true;
  }
  return false;
}

std::size_t digitRunEnd(View text, std::size_t i) {
  while (i < text.size() && isDigit(text[i])) ++i;
  return i;
}

// /\b(v\d+\.\d+(\.\d+)?|version\s+\d+)\b/i. Digit runs cannot give back units. The optional
// group never decides: it can only start on a '.', and a '.' after `\d+\.\d+` is already a
// boundary.
bool hasVersionNumber(View text) {
  const std::size_t n = text.size();
  for (std::size_t i = 0; i < n; ++i) {
    char16_t c = js::asciiLower(text[i]);
    if (c != u'v' || !atWordStart(text, i)) continue;
    std::size_t a = digitRunEnd(text, i + 1);
    if (a > i + 1 && a < n && text[a] == u'.') {
      std::size_t b = digitRunEnd(text, a + 1);
      if (b > a + 1 && isWordBoundary(text, b)) return true;
    }
    if (js::startsWithAsciiNoCase(text.substr(i), "version")) {
      std::size_t s = i + 7;
      while (s < n && isSpace(text[s])) ++s;
      std::size_t d = digitRunEnd(text, s);
      if (s > i + 7 && d > s && isWordBoundary(text, d)) return true;
    }
  }
  return false;
}

bool isHexDigit(char16_t c) {
  char16_t l = js::asciiLower(c);
  return isDigit(c) || (l >= u'a' && l <= u'f');
}

// /[a-f0-9]{40,64}/i — no boundaries, so any run of 40 hex digits.
bool hasHashOrSha(View text) {
  std::size_t run = 0;
  for (char16_t c : text) {
    run = isHexDigit(c) ? run + 1 : 0;
    if (run >= 40) return true;
  }
  return false;
}

bool isPathChar(char16_t c) { return isWord(c) || c == u'.' || c == u'-'; }

// /(?:\/[\w.-]+){2,}/: a '/', a non-empty run, a '/', one more path unit.
bool hasFilePath(View text) {
  const std::size_t n = text.size();
  for (std::size_t a = 0; a < n; ++a) {
    if (text[a] != u'/') continue;
    std::size_t b = a + 1;
    while (b < n && isPathChar(text[b])) ++b;
    if (b > a + 1 && b + 1 < n && text[b] == u'/' && isPathChar(text[b + 1])) return true;
  }
  return false;
}

// /\b\d+(\.\d+){1,5}\b/: with two or more groups available, stopping after the first leaves a '.'
// (a boundary), so it is enough that `\d+\.\d+` is followed by a non-word unit.
bool hasIpOrSemver(View text) {
  const std::size_t n = text.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (!isDigit(text[i]) || !atWordStart(text, i)) continue;
    std::size_t a = digitRunEnd(text, i);
    if (a < n && text[a] == u'.') {
      std::size_t b = digitRunEnd(text, a + 1);
      if (b > a + 1 && isWordBoundary(text, b)) return true;
    }
    i = a - 1;
  }
  return false;
}

// /"[^"]{3,}"\s*[,:]/: each quote opens at most one candidate, closed by the next quote.
bool hasQuotedKey(View text) {
  const std::size_t n = text.size();
  std::size_t a = 0;
  while (a < n && text[a] != u'"') ++a;
  while (a < n) {
    std::size_t b = a + 1;
    while (b < n && text[b] != u'"') ++b;
    if (b >= n) return false;
    if (b - a - 1 >= 3) {
      std::size_t k = b + 1;
      while (k < n && isSpace(text[k])) ++k;
      if (k < n && (text[k] == u',' || text[k] == u':')) return true;
    }
    a = b;
  }
  return false;
}

// /\b(shall|may not|notwithstanding|whereas|hereby)\b/i over whole words.
bool hasLegalTerm(View text) {
  const std::size_t n = text.size();
  auto wordIs = [&](std::size_t b, std::size_t e, std::string_view w) {
    return e - b == w.size() && js::startsWithAsciiNoCase(text.substr(b), w);
  };
  std::size_t i = 0;
  while (i < n) {
    if (!isWord(text[i])) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < n && isWord(text[j])) ++j;
    if (wordIs(i, j, "shall") || wordIs(i, j, "notwithstanding") || wordIs(i, j, "whereas") ||
        wordIs(i, j, "hereby")) {
      return true;
    }
    if (wordIs(i, j, "may") && j < n && text[j] == u' ') {
      std::size_t k = j + 1;
      while (k < n && isWord(text[k])) ++k;
      if (wordIs(j + 1, k, "not")) return true;
    }
    i = j;
  }
  return false;
}

// /["\u201c][^\u201c\u201d]{10,}["\u201d]|"[^"]{10,}"/. For the first alternative the text falls
// into stretches between curly quotes; the earliest opener of a stretch is the best one, and it may
// close on any later straight quote of the stretch or on a closing curly quote that ends it.
bool hasDirectQuote(View text) {
  const std::size_t n = text.size();
  constexpr char16_t kOpen = 0x201C, kClose = 0x201D;
  std::size_t previousStraight = n;  // second alternative: the previous '"'
  std::size_t opener = n;            // first alternative: earliest opener of the current stretch
  for (std::size_t i = 0; i < n; ++i) {
    char16_t c = text[i];
    if (c == u'"') {
      if (previousStraight != n && i - previousStraight > 10) return true;
      previousStraight = i;
      if (opener != n && i >= opener + 11) return true;
      if (opener == n) opener = i;
    } else if (c == kOpen || c == kClose) {
      if (c == kClose && opener != n && i >= opener + 11) return true;
      opener = c == kOpen ? i : n;
    }
  }
  return false;
}

// µ under non-unicode `i`: U+00B5, U+03BC and U+039C all canonicalise to U+039C.
bool isMicro(char16_t c) { return c == 0xB5 || c == 0x3BC || c == 0x39C; }

// /\b\d+\.?\d*\s*(km|m|kg|s|°C|°F|Hz|MHz|GHz|ms|µs|ns|MB|GB|TB)\b/i. No unit starts with a digit,
// '.' or a space, so the number and the spaces are taken whole; every unit ends in a letter, so
// `\b` after it needs a non-word unit next.
bool numericUnitAt(View text, std::size_t i) {
  const std::size_t n = text.size();
  std::size_t j = digitRunEnd(text, i);
  if (j < n && text[j] == u'.') j = digitRunEnd(text, j + 1);
  while (j < n && isSpace(text[j])) ++j;
  static constexpr std::string_view kUnits[] = {"km",  "m",  "kg", "s",  "Hz", "MHz",
                                                "GHz", "ms", "ns", "MB", "GB", "TB"};
  for (std::string_view unit : kUnits) {
    if (js::startsWithAsciiNoCase(text.substr(j), unit) && isWordBoundary(text, j + unit.size())) {
      return true;
    }
  }
  if (j + 1 < n) {
    char16_t u = js::asciiLower(text[j + 1]);
    bool degree = text[j] == 0xB0 && (u == u'c' || u == u'f');
    bool micro = isMicro(text[j]) && u == u's';
    if ((degree || micro) && isWordBoundary(text, j + 2)) return true;
  }
  return false;
}

bool hasNumericWithUnits(View text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (isDigit(text[i]) && atWordStart(text, i) && numericUnitAt(text, i)) return true;
  }
  return false;
}

// `split(/\s+/).length`: one more than the number of whitespace runs.
std::size_t spaceSplitCount(View text) {
  std::size_t count = 1;
  bool inRun = false;
  for (char16_t c : text) {
    bool space = isSpace(c);
    if (space && !inRun) ++count;
    inRun = space;
  }
  return count;
}

struct Detector {
  const char* reason;
  bool (*test)(View);
};

constexpr Detector kSoft[] = {
    {"url", hasUrl},
    {"email", hasEmail},
    {"phone", hasPhone},
    {"version_number", hasVersionNumber},
    {"hash_or_sha", hasHashOrSha},
    {"file_path", hasFilePath},
    {"ip_or_semver", hasIpOrSemver},
    {"quoted_key", hasQuotedKey},
    {"legal_term", hasLegalTerm},
    {"direct_quote", hasDirectQuote},
    {"numeric_with_units", hasNumericWithUnits},
};

}  // namespace

Classification classifyMessage(std::u16string_view content) {
  Classification out;
  const StructureScan scan = scanStructure(content);
  auto add = [&](bool present, const char* reason) {
    if (present) out.reasons.emplace_back(reason);
  };
  // The reference's push order: structural detectors, SQL, API key, then the soft patterns.
  add(scan.mayHaveFence && hasCodeFence(content), "code_fence");
  add(scan.mayHaveIndent && hasIndentedCode(content), "indented_code");
  add(scan.latexMath, "latex_math");
  add(scan.unicodeMath, "unicode_math");
  add(hasJsonStructure(content), "json_structure");
  add(scan.mayHaveYaml && hasYamlStructure(content), "yaml_structure");
  add(scan.versePattern, "verse_pattern");
  add(scan.lineLengthVariance, "high_line_length_variance");
  add(scan.specialCharRatio, "high_special_char_ratio");
  add(match::hasSqlContent(content), "sql_content");
  add(match::hasApiKey(content), "api_key");
  for (const Detector& d : kSoft) add(d.test(content), d.reason);

  if (!out.reasons.empty()) {
    out.decision = Tier::T0;
    out.confidence = std::min(0.95, 0.7 + 0.05 * static_cast<double>(out.reasons.size()));
  } else {
    out.decision = spaceSplitCount(content) < 20 ? Tier::T2 : Tier::T3;
    out.confidence = 0.65;
  }
  return out;
}

bool hasHardReason(std::u16string_view content) {
  if (hasJsonStructure(content)) return true;
  const StructureScan scan = scanStructure(content);
  if (scan.latexMath || scan.unicodeMath || scan.versePattern || scan.lineLengthVariance ||
      scan.specialCharRatio) {
    return true;
  }
  if (scan.mayHaveIndent && hasIndentedCode(content)) return true;
  if (scan.mayHaveYaml && hasYamlStructure(content)) return true;
  if (scan.mayHaveFence && hasCodeFence(content)) return true;
  return match::hasSqlContent(content) || match::hasApiKey(content);
}

bool isValidJson(std::u16string_view text) {
  View t = js::trimView(text);
  if (t.empty() || (t[0] != u'{' && t[0] != u'[')) return false;
  return match::isJsonText(t);
}

}  // namespace cce
