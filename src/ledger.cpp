// SPDX-License-Identifier: MIT
// Safe mode (issue 18, item 4): the artifact ledger of omitted and cleared messages.
#include "ledger.h"

#include <algorithm>
#include <string_view>

#include "match/identifiers.h"

namespace cce {

namespace {

using View = std::u16string_view;

bool isDigit(char16_t c) { return c >= u'0' && c <= u'9'; }
bool isLower(char16_t c) { return c >= u'a' && c <= u'z'; }
bool isUpper(char16_t c) { return c >= u'A' && c <= u'Z'; }
bool isLetter(char16_t c) { return isLower(c) || isUpper(c); }
bool isAlnum(char16_t c) { return isLetter(c) || isDigit(c); }
bool isHex(char16_t c) {
  return isDigit(c) || (c >= u'a' && c <= u'f') || (c >= u'A' && c <= u'F');
}
bool isBlank(char16_t c) { return c == u' ' || c == u'\t' || c == u'\r'; }

// Characters a token may contain: ASCII letters, digits and the punctuation of paths, URLs,
// versions and identifiers. Everything else (spaces, quotes, brackets, commas) separates tokens.
constexpr bool isTokenUnit(char16_t c) {
  return (c >= u'a' && c <= u'z') || (c >= u'A' && c <= u'Z') || (c >= u'0' && c <= u'9') ||
         c == u'_' || c == u'.' || c == u'/' || c == u'-' || c == u':' || c == u'#' || c == u'?' ||
         c == u'=' || c == u'&' || c == u'%' || c == u'~' || c == u'@' || c == u'+';
}
#ifdef CCE_NO_DIGIT_DRIVEN_SCAN
bool inToken(char16_t c) { return isTokenUnit(c); }
#else
struct TokenUnits {
  bool in[128] = {};
  constexpr TokenUnits() {
    for (char16_t c = 0; c < 128; ++c) in[c] = isTokenUnit(c);
  }
};
constexpr TokenUnits kTokenUnits{};
// One look-up instead of sixteen comparisons: the token walks around digits read many units (the
// size build keeps the comparisons).
bool inToken(char16_t c) { return c < 128 && kTokenUnits.in[c]; }
#endif

// Trailing characters that end a sentence or a clause rather than the token.
bool trailing(char16_t c) { return c == u'.' || c == u':' || c == u'?' || c == u'-' || c == u'#'; }

bool startsWith(View s, View p) { return s.size() >= p.size() && s.substr(0, p.size()) == p; }
bool endsWith(View s, View p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

bool equalsAscii(View s, std::string_view a) {
  if (s.size() != a.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (s[i] != static_cast<char16_t>(a[i])) return false;
  }
  return true;
}

// Whether `s` is one of the space-separated ASCII words of `list`.
bool oneOf(View s, const char* list) {
  for (const char* p = list; *p;) {
    const char* end = p;
    while (*end && *end != ' ') ++end;
    if (equalsAscii(s, std::string_view(p, static_cast<std::size_t>(end - p)))) return true;
    p = *end ? end + 1 : end;
  }
  return false;
}

View trimBlank(View s) {
  while (!s.empty() && isBlank(s.front())) s.remove_prefix(1);
  while (!s.empty() && isBlank(s.back())) s.remove_suffix(1);
  return s;
}

// A run of 8+ hex digits containing a digit and a letter (a hash), or a UUID's shape.
bool hexRun(View t) {
  std::size_t run = 0, best = 0;
  bool digit = false, letter = false;
  for (char16_t c : t) {
    if (isHex(c)) {
      ++run;
      if (isDigit(c)) digit = true;
      else letter = true;
      if (run > best) best = run;
    } else if (c == u'-') {
      run = 0;
    } else {
      return false;
    }
  }
  return best >= 8 && digit && letter;
}

// A key- or base64-like run: long, of letters, digits and + = _ - only, with several digits and
// both cases (an identifier rarely has four digits and two capitals).
bool keyLike(View t) {
  if (t.size() < 20) return false;
  std::size_t digits = 0, upper = 0, lower = 0;
  for (char16_t c : t) {
    if (isDigit(c)) ++digits;
    else if (isUpper(c)) ++upper;
    else if (isLower(c)) ++lower;
    else if (c != u'+' && c != u'=' && c != u'_' && c != u'-') return false;
  }
  return digits >= 4 && upper >= 2 && lower >= 2;
}

// Units of "number with a unit"; case as written (MB is not mb). Ambiguous single letters other
// than s, h, k, K, M and x are left out.
// Space-separated: one string costs less in the module than a table of views.
constexpr char kUnits[] =
    "ms s sec secs second seconds min mins minute minutes h hr hrs hour hours day days ns us "
    "B KB kB MB GB TB KiB MiB GiB TiB Kb Mb Gb bytes bits Hz kHz MHz GHz px pt em rem % "
    "tokens lines chars files tests rows requests req/s rps qps fps k K M x ms/op ops/s "
    "cores threads GB/s MB/s KB/s Gbps Mbps USD EUR";

// The length of a leading decimal number (digits, optionally one . and digits), else 0.
std::size_t numberLength(View t) {
  std::size_t i = 0;
  while (i < t.size() && isDigit(t[i])) ++i;
  if (i == 0) return 0;
  if (i + 1 < t.size() && t[i] == u'.' && isDigit(t[i + 1])) {
    ++i;
    while (i < t.size() && isDigit(t[i])) ++i;
  }
  return i;
}

// A file name's extension: 1-4 lower-case letters or digits after the last dot, at least one a
// letter (`README.md`, `app.ts`, `mp4`); a longer or capitalised tail is a member (`cfg.maxRetry`).
bool fileExtension(View t) {
  const std::size_t dot = t.rfind(u'.');
  if (dot == View::npos || dot == 0) return false;
  View ext = t.substr(dot + 1);
  if (ext.empty() || ext.size() > 4) return false;
  bool letter = false;
  for (char16_t c : ext) {
    if (isLower(c)) letter = true;
    else if (!isDigit(c)) return false;
  }
  return letter;
}

// The kind of a token-shaped artifact, or false (plain words, numbers, dates).
bool tokenKind(View t, ArtifactKind& kind) {
  if (t.size() < 4 || t.size() > 120) return false;
  kind = ArtifactKind::Reference;
  if (startsWith(t, u"http://") || startsWith(t, u"https://")) return true;
  if (isHighEntropy(t)) return true;
  bool slash = false, dot = false, underscore = false, camel = false, letter = false;
  bool digitDotDigit = false;
  std::size_t dots = 0;
  for (std::size_t i = 0; i < t.size(); ++i) {
    const char16_t c = t[i];
    if (c == u'/') slash = true;
    if (c == u'_') underscore = true;
    if (isLetter(c)) letter = true;
    if (c == u'.') {
      dot = true;
      ++dots;
      if (i > 0 && i + 1 < t.size() && isDigit(t[i - 1]) && isDigit(t[i + 1])) digitDotDigit = true;
    }
    if (i > 0 && isLower(t[i - 1]) && isUpper(c)) camel = true;
  }
  if (!letter && !digitDotDigit) return false;
  // A version (1.2.3, v2.14) rather than a decimal: two dots, or a leading v.
  if (digitDotDigit && (dots >= 2 || t[0] == u'v')) {
    kind = ArtifactKind::Quantity;
    return true;
  }
  if (slash && (dot || t[0] == u'/' || t[0] == u'~')) return true;  // paths
  if (dot) {
    // name.ext, module.member: a letter on both sides of some dot.
    for (std::size_t i = 1; i + 1 < t.size(); ++i) {
      if (t[i] == u'.' && isLetter(t[i + 1]) &&
          (isLetter(t[i - 1]) || isDigit(t[i - 1]) || t[i - 1] == u'_')) {
        kind = fileExtension(t) ? ArtifactKind::Reference : ArtifactKind::Identifier;
        return true;
      }
    }
  }
  kind = ArtifactKind::Identifier;
  return underscore || camel;
}

// A word that starts a shell command line. Prose starting with one of them ("make sure …", "find
// the …") is told apart by its second word (kNotArguments) and its sentence punctuation.
// Space-separated: one string costs less in the module than a table of views.
constexpr char kCommands[] =
    "npm npx yarn pnpm bun deno node git pip pip3 python python3 pytest cargo rustc go make "
    "cmake ctest docker kubectl helm curl wget ls cd cat grep rg sed awk rm mkdir cp mv "
    "chmod sudo apt apt-get brew tsc gcc g++ clang uv poetry ruby bundle rake gradle mvn "
    "java javac dotnet terraform ssh scp tar unzip export source bash sh conda jest vitest "
    "eslint prettier black ruff mypy swift xcodebuild flutter composer php emcc emcmake "
    "ninja bazel";
// Space-separated: one string costs less in the module than a table of views.
constexpr char kNotArguments[] =
    "a an the is are was were be it its that this and or to of in on for with you i we they "
    "sure code out up me us them all some what how why if so but not can will my your";

View firstWord(View s) {
  std::size_t end = 0;
  while (end < s.size() && !isBlank(s[end])) ++end;
  return s.substr(0, end);
}

// The command of a trimmed line: after a `$ ` prompt, or a line that starts with a command word
// and reads like arguments (no sentence punctuation); else empty.
View commandOf(View line) {
  if (startsWith(line, u"$ ")) return trimBlank(line.substr(2));
  if (line.size() > 160) return {};
  View word = firstWord(line);
  if (!oneOf(word, kCommands) || word.size() == line.size()) return {};
  View rest = trimBlank(line.substr(word.size()));
  if (rest.empty()) return {};
  const char16_t c = rest[0];
  if (!(isLetter(c) || c == u'-' || c == u'.' || c == u'/' || c == u'~' || c == u'"' ||
        c == u'\'')) {
    return {};
  }
  if (oneOf(firstWord(rest), kNotArguments)) return {};
  const char16_t last = line.back();
  if (last == u'.' || last == u'?' || last == u'!' || last == u',' || last == u':') return {};
  if (line.find(u". ") != View::npos) return {};
  return line;
}

// Whether a trimmed line reports an error: its first words (within 80 units) hold a word that is
// or ends in Error / Exception / error / ERROR / fatal / panic directly followed by ':' or '['
// (`TypeError: x`, `error[E0308]: …`, `src/a.ts:3 - error TS2322: …` reads `TS2322:`, so
// ` error ` before a code also counts), `npm ERR!`, or a test runner's FAILED / FAIL line.
bool isErrorLine(View line) {
  if (startsWith(line, u"FAILED ") || startsWith(line, u"FAIL ") || startsWith(line, u"npm ERR!")) {
    return true;
  }
  const std::size_t scan = std::min<std::size_t>(line.size(), 80);
  std::size_t i = 0;
  while (i < scan) {
    if (!isAlnum(line[i]) && line[i] != u'_' && line[i] != u'.') {
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < line.size() && (isAlnum(line[end]) || line[end] == u'_' || line[end] == u'.')) {
      ++end;
    }
    View word = line.substr(i, end - i);
    while (!word.empty() && word.back() == u'.') word.remove_suffix(1);
    const char16_t next = end < line.size() ? line[end] : u'\0';
    const bool errorWord = endsWith(word, u"Error") || endsWith(word, u"Exception") ||
                           equalsAscii(word, "error") || equalsAscii(word, "ERROR") ||
                           equalsAscii(word, "fatal") || equalsAscii(word, "panic");
    // A colon ending the line introduces what follows ("I get this error:", `except E as error:`).
    if (errorWord && (next == u'[' || (next == u':' && !trimBlank(line.substr(end + 1)).empty()))) {
      return true;
    }
    // `error TS2322:` / `error CS0103:`: the word error, a space, a code of capitals and digits.
    if (equalsAscii(word, "error") && next == u' ' && end + 1 < line.size() &&
        isUpper(line[end + 1])) {
      std::size_t k = end + 1;
      while (k < line.size() && (isUpper(line[k]) || isDigit(line[k]))) ++k;
      if (k < line.size() && line[k] == u':') return true;
    }
    i = end;
  }
  return false;
}

// `text` ending at a space at most `limit` units in, with "…"; `text` itself when short enough;
// empty when its first word alone is longer (a token is never cut).
U16 shortened(View text, std::size_t limit) {
  if (text.size() <= limit) return U16(text);
  std::size_t cut = limit - 1;
  while (cut > 0 && !isBlank(text[cut])) --cut;
  while (cut > 0 && isBlank(text[cut - 1])) --cut;
  if (cut == 0) return U16();
  U16 out(text.substr(0, cut));
  out += u'\u2026';
  return out;
}

// `s` between `mark`s (quotes for requests and error lines, backticks for commands).
U16 enclosed(const U16& s, char16_t mark) {
  U16 out;
  out.reserve(s.size() + 2);
  out += mark;
  out += s;
  out += mark;
  return out;
}

// The first sentence of a user message: up to the first . ! or ? followed by whitespace or the
// end, or the first line break.
View firstSentence(View text) {
  std::size_t i = 0;
  while (i < text.size() && (isBlank(text[i]) || text[i] == u'\n')) ++i;
  const std::size_t start = i;
  for (; i < text.size(); ++i) {
    const char16_t c = text[i];
    if (c == u'\n') break;
    if ((c == u'.' || c == u'!' || c == u'?') &&
        (i + 1 == text.size() || isBlank(text[i + 1]) || text[i + 1] == u'\n')) {
      ++i;
      break;
    }
  }
  return trimBlank(text.substr(start, i - start));
}

// A hex-dump line's run: 4+ consecutive groups of 2-8 hex digits (`7f45 4c46 0201 0100`,
// `de ad be ef`) with a digit and a letter among them (a row of numbers is no dump), from its first
// group through its last, at most 80 units of whole groups; else empty.
View hexDumpRun(View line) {
  std::size_t runStart = 0, runEnd = 0, groups = 0, bestStart = 0, bestEnd = 0, best = 0;
  bool runDigit = false, runLetter = false;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && isBlank(line[i])) ++i;
    std::size_t e = i;
    while (e < line.size() && !isBlank(line[e])) ++e;
    View group = line.substr(i, e - i);
    bool hex = group.size() >= 2 && group.size() <= 8;
    for (std::size_t k = 0; hex && k < group.size(); ++k) hex = isHex(group[k]);
    if (hex) {
      if (groups == 0) {
        runStart = i;
        runDigit = runLetter = false;
      }
      for (char16_t ch : group) (isDigit(ch) ? runDigit : runLetter) = true;
      runEnd = e;
      ++groups;
      if (groups > best && runDigit && runLetter) {
        best = groups;
        bestStart = runStart;
        bestEnd = runEnd;
      }
    } else {
      groups = 0;
    }
    i = e;
  }
  if (best < 4) return {};
  View run = line.substr(bestStart, bestEnd - bestStart);
  if (run.size() <= 80) return run;
  std::size_t cut = 80;
  while (cut > 0 && !isBlank(run[cut])) --cut;
  while (cut > 0 && isBlank(run[cut - 1])) --cut;
  return run.substr(0, cut);
}

// The number of hex groups (hexDumpRun's groups: 2-8 hex digits between blanks) in a row that
// the hex group [b, e) of `line` belongs to, counting at most three on each side of it. Reads
// the blanks between those groups and at most nine units of each group.
std::size_t hexGroupsAround(View line, std::size_t b, std::size_t e) {
  std::size_t groups = 1;
  for (std::size_t at = b, side = 0; side < 3 && at > 0; ++side) {  // backwards from b
    std::size_t k = at;
    while (k > 0 && isBlank(line[k - 1])) --k;
    std::size_t s = k;
    while (s > 0 && k - s <= 8 && isHex(line[s - 1])) --s;
    if (k - s < 2 || k - s > 8 || (s > 0 && !isBlank(line[s - 1]))) break;
    ++groups;
    at = s;
  }
  for (std::size_t at = e, side = 0; side < 3 && at < line.size(); ++side) {  // forwards from e
    std::size_t k = at;
    while (k < line.size() && isBlank(line[k])) ++k;
    std::size_t t = k;
    while (t < line.size() && t - k <= 8 && isHex(line[t])) ++t;
    if (t - k < 2 || t - k > 8 || (t < line.size() && !isBlank(line[t]))) break;
    ++groups;
    at = t;
  }
  return groups;
}

// Collects one source's artifacts with their positions, at most `limit` of each kind, without
// repeats.
struct Collector {
  struct Found {
    std::size_t at;
    Artifact artifact;
  };
  std::size_t limit;
  std::vector<Found> found;  // at most 6 * limit: the repeat check below stays bounded
  std::size_t perKind[6] = {};

  bool full(ArtifactKind kind) const { return perKind[static_cast<int>(kind)] >= limit; }
  void add(std::size_t at, U16 text, ArtifactKind kind) {
    if (text.empty() || full(kind)) return;
    for (const Found& f : found) {
      if (f.artifact.text == text) return;
    }
    ++perKind[static_cast<int>(kind)];
    found.push_back({at, Artifact{std::move(text), kind}});
  }
};

// Errors, commands and `backtick spans`, one line at a time.
void scanLines(View text, Collector& c, std::size_t& steps) {
  bool dumped = false;  // a dump's first run stands for it; its other lines would crowd the rest
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find(u'\n', start);
    if (end == View::npos) end = text.size();
    steps += end - start + 1;
    View line = trimBlank(text.substr(start, end - start));
    if (!line.empty()) {
      View dump = hexDumpRun(line);
      if (!dump.empty()) {
        if (!dumped) c.add(start, U16(dump), ArtifactKind::Reference);
        dumped = true;
      } else if (!c.full(ArtifactKind::Error) && isErrorLine(line)) {
        c.add(start, enclosed(shortened(line, kLedgerPhraseChars), u'"'), ArtifactKind::Error);
      } else if (!c.full(ArtifactKind::Command)) {
        View command = commandOf(line);
        if (!command.empty() && command.find(u'`') == View::npos) {
          U16 s = shortened(command, kLedgerPhraseChars);
          if (!s.empty()) c.add(start, enclosed(s, u'`'), ArtifactKind::Command);
        }
      }
      // Inline code spans, 3 to 60 units (a fence's ``` is no span).
      for (std::size_t i = 0; i < line.size() && !c.full(ArtifactKind::Command); ++i) {
        if (line[i] != u'`') continue;
        if (i + 1 < line.size() && line[i + 1] == u'`') {
          while (i + 1 < line.size() && line[i + 1] == u'`') ++i;
          continue;
        }
        const std::size_t close = line.find(u'`', i + 1);
        if (close == View::npos) break;
        View inner = line.substr(i + 1, close - i - 1);
        // A span of digits (`344`) is a number, not code.
        const bool letter = std::any_of(inner.begin(), inner.end(), isLetter);
        if (letter && inner.size() >= 3 && inner.size() <= 60 && inner.front() != u' ' &&
            inner.back() != u' ') {
          c.add(start, U16(line.substr(i, close - i + 1)), ArtifactKind::Command);
        }
        i = close;
      }
    }
    start = end + 1;
  }
}

// Tokens: references, versions, identifiers, and numbers with a unit (`512 MB`, `30s`, `80%`,
// `$12.50`).
void scanTokens(View text, Collector& c, std::size_t& steps) {
  std::size_t i = 0;
  while (i < text.size() && !(c.full(ArtifactKind::Reference) &&
                              c.full(ArtifactKind::Quantity) && c.full(ArtifactKind::Identifier))) {
    while (i < text.size() && !inToken(text[i])) ++i;
    std::size_t end = i;
    while (end < text.size() && inToken(text[end])) ++end;
    steps += end - i + 1;
    View token = text.substr(i, end - i);
    while (!token.empty() && trailing(token.back())) token.remove_suffix(1);
    const std::size_t number = numberLength(token);
    const bool dollar = i > 0 && text[i - 1] == u'$';
    if (number > 0 && (number == token.size() || oneOf(token.substr(number), kUnits))) {
      if (dollar) {
        c.add(i - 1, U16(text.substr(i - 1, token.size() + 1)), ArtifactKind::Quantity);
      } else if (number < token.size()) {
        c.add(i, U16(token), ArtifactKind::Quantity);
      } else if (end + 1 < text.size() && text[end] == u' ' && token.size() == end - i) {
        // `512 MB`: a unit word after one space, ending at a word boundary.
        std::size_t u = end + 1;
        while (u < text.size() && (isLetter(text[u]) || text[u] == u'%' || text[u] == u'/')) ++u;
        View unit = text.substr(end + 1, u - end - 1);
        while (!unit.empty() && unit.back() == u'/') unit.remove_suffix(1);
        const bool boundary = end + 1 + unit.size() == text.size() ||
                              !isAlnum(text[end + 1 + unit.size()]);
        if (!unit.empty() && boundary && oneOf(unit, kUnits)) {
          c.add(i, U16(text.substr(i, end + 1 + unit.size() - i)), ArtifactKind::Quantity);
        }
      }
    } else {
      ArtifactKind kind;
      if (tokenKind(token, kind)) c.add(i, U16(token), kind);
    }
    i = end;
  }
}

bool containsIn(const std::vector<const Artifact*>& phrases, const U16& token) {
  for (const Artifact* p : phrases) {
    if (p->text.find(token) != U16::npos) return true;
  }
  return false;
}

}  // namespace

// isHighEntropy is false for shorter tokens (each shape below needs at least 8 units).
constexpr std::size_t kShortestHighEntropy = 8;

bool isHighEntropy(View t) {
  if (t.size() >= 8 && hexRun(t)) return true;
  if (t.size() >= 8 && (startsWith(t, u"0x") || startsWith(t, u"0X"))) {
    for (std::size_t i = 2; i < t.size(); ++i) {
      if (!isHex(t[i])) return keyLike(t);
    }
    return true;
  }
  return keyLike(t);
}

namespace {

// A source's artifacts, at most `perKind` of each kind, in order of appearance.
std::vector<Collector::Found> collect(const LedgerSource& source, std::size_t perKind,
                                      std::size_t* steps) {
  Collector c{perKind, {}, {}};
  std::size_t read = 0;
  if (source.user && !startsWith(trimBlank(source.text), u"[cce:")) {
    View sentence = firstSentence(source.text);
    read += sentence.size();
    // One word is no request ("Thanks!", "continue").
    if (sentence.find(u' ') != View::npos) {
      c.add(0, enclosed(shortened(sentence, kLedgerPhraseChars), u'"'), ArtifactKind::Request);
    }
  }
  scanLines(source.text, c, read);
  const std::size_t lines = c.found.size();
  scanTokens(source.text, c, read);
  if (steps) *steps += read;
  // Each scan finds in text order (a line's items share its start): merge the two by position.
  std::vector<Collector::Found> merged;
  merged.reserve(c.found.size());
  std::size_t a = 0, b = lines;
  while (a < lines || b < c.found.size()) {
    const bool takeLine = b == c.found.size() || (a < lines && c.found[a].at <= c.found[b].at);
    merged.push_back(std::move(c.found[takeLine ? a++ : b++]));
  }
  return merged;
}

}  // namespace

std::vector<Artifact> artifactsOf(const LedgerSource& source, std::size_t limit,
                                  std::size_t* steps) {
  std::vector<Artifact> out;
  for (Collector::Found& f : collect(source, limit, steps)) {
    if (out.size() >= limit) break;
    out.push_back(std::move(f.artifact));
  }
  return out;
}

namespace {

// highEntropyRuns' result: runs kept in order, without repeats, while they fit in `maxUnits`.
struct KeptRuns {
  explicit KeptRuns(std::size_t max) : maxUnits(max) {}
  void keep(View s) {
    if (used + s.size() + 1 > maxUnits) return;
    for (const U16& o : out) {
      if (o == s) return;
    }
    used += s.size() + 1;
    out.emplace_back(s);
  }
  bool full() const { return used >= maxUnits; }
  struct Mark {
    std::size_t runs, used;
  };
  Mark mark() const { return {out.size(), used}; }
  void rollBack(Mark m) {
    out.resize(m.runs);
    used = m.used;
  }
  std::size_t maxUnits;
  std::size_t used = 0;
  std::vector<U16> out;  // at most maxUnits / 9 runs: the repeat check stays bounded
};

}  // namespace

// The size-built module (wasm/CMakeLists.txt) reads every line and token: the digit-driven scan
// below cost 0.45 KB gzip of cce.wasm. Other builds keep the line scan (every line, its blank
// groups for a dump, then every token) for tests to compare with.
#ifdef CCE_NO_DIGIT_DRIVEN_SCAN
std::vector<U16> highEntropyRuns(View text, std::size_t maxUnits) {
#else
std::vector<U16> detail::highEntropyRunsByLines(View text, std::size_t maxUnits) {
#endif
  KeptRuns runs(maxUnits);
  for (std::size_t start = 0; start < text.size() && !runs.full();) {
    const std::size_t end = match::findUnit(text, start, u'\n');
    const View line = trimBlank(text.substr(start, end - start));
    const View dump = hexDumpRun(line);
    if (!dump.empty()) {
      runs.keep(dump);
    } else {
      for (std::size_t t = 0; t < line.size();) {
        while (t < line.size() && !inToken(line[t])) ++t;
        std::size_t e = t;
        while (e < line.size() && inToken(line[e])) ++e;
        View token = line.substr(t, e - t);
        while (!token.empty() && trailing(token.back())) token.remove_suffix(1);
        if (isHighEntropy(token)) runs.keep(token);
        t = e;
      }
    }
    start = end + 1;
  }
  return std::move(runs.out);
}

#ifndef CCE_NO_DIGIT_DRIVEN_SCAN
std::vector<U16> highEntropyRuns(View text, std::size_t maxUnits) {
  KeptRuns runs(maxUnits);
  // Every run holds a digit: a dump's run has a group with one, and each isHighEntropy shape
  // needs one (a hash's digit, the 0 of 0x, a key's four). Most units of a conversation are in
  // lines or tokens without any, so the scan goes from digit to digit (eight units per step in the
  // speed build): a line without one is skipped, and only the blank-separated group and the token
  // around each digit are looked at.
  const std::size_t n = text.size();
  std::size_t start = 0;  // of the line the scan is in
  for (std::size_t at = 0; at < n && !runs.full();) {
    const std::size_t digit = match::findDigit<true>(text, at);
    if (digit == n) break;
    if (text[digit] == u'\n') {
      start = at = digit + 1;
      continue;
    }
    const std::size_t end = match::findUnit(text, digit, u'\n');
    const View line = trimBlank(text.substr(start, end - start));
    start = at = end + 1;
    // One walk over the line's tokens that hold a digit: each token's first digit also stands for
    // its blank group (a group's first digit is always a token's first one), which may start a
    // dump. A dump needs a group of 2-8 hex digits holding a digit among four or more such groups
    // in a row (a lone number is no dump); only then is the line read whole, and its run replaces
    // the line's tokens. High-entropy tokens have 8 units or more, so shorter ones are not tested.
    bool dumpLike = false;
    std::size_t groupEnd = 0;
    const KeptRuns::Mark beforeLine = runs.mark();
    // The scan started at the line's start, so `digit` is its first digit.
    for (std::size_t d = digit - static_cast<std::size_t>(line.data() - text.data());
         d < line.size();) {
      if (!dumpLike && d >= groupEnd) {
        std::size_t b = d, e = d + 1;
        while (b > 0 && !isBlank(line[b - 1])) --b;
        while (e < line.size() && !isBlank(line[e])) ++e;
        if (e - b >= 2 && e - b <= 8 && std::all_of(line.begin() + b, line.begin() + e, isHex)) {
          dumpLike = hexGroupsAround(line, b, e) >= 4;
        }
        groupEnd = e;
      }
      std::size_t t = d, e = d + 1;
      while (t > 0 && inToken(line[t - 1])) --t;
      while (e < line.size() && inToken(line[e])) ++e;
      View token = line.substr(t, e - t);
      while (!token.empty() && trailing(token.back())) token.remove_suffix(1);
      if (token.size() >= kShortestHighEntropy && isHighEntropy(token)) runs.keep(token);
      d = match::findDigit(line, e);
    }
    const View dump = dumpLike ? hexDumpRun(line) : View();
    if (!dump.empty()) {
      // The line's run replaces its tokens, which were kept as they were found.
      runs.rollBack(beforeLine);
      runs.keep(dump);
    }
  }
  return std::move(runs.out);
}
#endif  // CCE_NO_DIGIT_DRIVEN_SCAN

U16 ledger(const std::vector<LedgerSource>& sources, std::size_t maxChars) {
  const std::size_t cap = std::min(kLedgerChars, maxChars);
  // At most 4 * kLedgerItems candidates of each kind (in order of the sources), so that the
  // repeat check and the choice below read a bounded list however many sources there are.
  constexpr std::size_t kCandidates = 4 * kLedgerItems;
  std::vector<Artifact> all;
  std::size_t perKind[6] = {};
  for (const LedgerSource& source : sources) {
    for (Collector::Found& f : collect(source, kLedgerItems, nullptr)) {
      Artifact& a = f.artifact;
      std::size_t& n = perKind[static_cast<int>(a.kind)];
      if (n >= kCandidates) continue;
      bool seen = false;
      for (const Artifact& b : all) seen = seen || b.text == a.text;
      if (seen) continue;
      ++n;
      all.push_back(std::move(a));
    }
  }
  U16 out;
  std::vector<const Artifact*> phrases;
  std::size_t items = 0, requests = 0, errors = 0;
  // Kind by kind (the priority order), each in order of appearance.
  for (int kind = 0; kind < 6 && items < kLedgerItems; ++kind) {
    for (const Artifact& a : all) {
      if (static_cast<int>(a.kind) != kind) continue;
      if (items >= kLedgerItems) break;
      if (a.kind == ArtifactKind::Request && requests >= kLedgerRequests) continue;
      if (a.kind == ArtifactKind::Error && errors >= kLedgerErrors) continue;
      const bool phrase = a.kind == ArtifactKind::Request || a.kind == ArtifactKind::Error;
      if (!phrase && containsIn(phrases, a.text)) continue;
      const std::size_t add = a.text.size() + (items == 0 ? 3 : 2);
      if (out.size() + add > cap) continue;
      out += items == 0 ? u" | " : u", ";
      out += a.text;
      ++items;
      if (a.kind == ArtifactKind::Request) ++requests;
      if (a.kind == ArtifactKind::Error) ++errors;
      if (phrase) phrases.push_back(&a);
    }
  }
  return out;
}

}  // namespace cce
