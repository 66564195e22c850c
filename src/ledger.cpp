// SPDX-License-Identifier: MIT
// Safe mode (issue 18, item 4): the artifact ledger of omitted and cleared messages.
#include "ledger.h"

namespace cce {

namespace {

bool isDigit(char16_t c) { return c >= u'0' && c <= u'9'; }
bool isLower(char16_t c) { return c >= u'a' && c <= u'z'; }
bool isUpper(char16_t c) { return c >= u'A' && c <= u'Z'; }
bool isLetter(char16_t c) { return isLower(c) || isUpper(c); }
bool isHex(char16_t c) { return isDigit(c) || (c >= u'a' && c <= u'f') || (c >= u'A' && c <= u'F'); }

// Characters a token may contain: ASCII letters, digits and the punctuation of paths, URLs,
// versions and identifiers. Everything else (spaces, quotes, brackets, commas) separates tokens.
bool inToken(char16_t c) {
  return isLetter(c) || isDigit(c) || c == u'_' || c == u'.' || c == u'/' || c == u'-' ||
         c == u':' || c == u'#' || c == u'?' || c == u'=' || c == u'&' || c == u'%' || c == u'~' ||
         c == u'@' || c == u'+';
}

// Trailing characters that end a sentence or a clause rather than the token.
bool trailing(char16_t c) { return c == u'.' || c == u':' || c == u'?' || c == u'-' || c == u'#'; }

bool startsWith(std::u16string_view s, std::u16string_view p) {
  return s.size() >= p.size() && s.substr(0, p.size()) == p;
}

// A run of 8+ hex digits containing a digit and a letter (a hash), or a UUID's shape.
bool highEntropy(std::u16string_view t) {
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

bool isArtifact(std::u16string_view t) {
  if (t.size() < 4 || t.size() > 120) return false;
  if (startsWith(t, u"http://") || startsWith(t, u"https://")) return true;
  if (highEntropy(t)) return true;
  bool slash = false, dot = false, underscore = false, camel = false, letter = false;
  bool digitDotDigit = false;
  for (std::size_t i = 0; i < t.size(); ++i) {
    const char16_t c = t[i];
    if (c == u'/') slash = true;
    if (c == u'_') underscore = true;
    if (isLetter(c)) letter = true;
    if (c == u'.') {
      dot = true;
      if (i > 0 && i + 1 < t.size() && isDigit(t[i - 1]) && isDigit(t[i + 1])) digitDotDigit = true;
    }
    if (i > 0 && isLower(t[i - 1]) && isUpper(c)) camel = true;
  }
  if (!letter && !digitDotDigit) return false;  // plain numbers, dates, times
  if (digitDotDigit) {
    // A version (1.2.3, v2.14) rather than a decimal: two dots, or a leading v.
    std::size_t dots = 0;
    for (char16_t c : t) dots += c == u'.' ? 1 : 0;
    if (dots >= 2 || t[0] == u'v') return true;
  }
  if (slash && (dot || t[0] == u'/' || t[0] == u'~')) return true;  // paths
  if (dot) {
    // name.ext, module.member: a letter on both sides of some dot.
    for (std::size_t i = 1; i + 1 < t.size(); ++i) {
      if (t[i] == u'.' && isLetter(t[i + 1]) && (isLetter(t[i - 1]) || isDigit(t[i - 1]) ||
                                                 t[i - 1] == u'_')) {
        return true;
      }
    }
  }
  return underscore || camel;
}

}  // namespace

std::vector<U16> artifacts(std::u16string_view text, std::size_t limit) {
  std::vector<U16> found;
  std::size_t i = 0;
  while (i < text.size() && found.size() < limit) {
    while (i < text.size() && !inToken(text[i])) ++i;
    std::size_t end = i;
    while (end < text.size() && inToken(text[end])) ++end;
    std::u16string_view token = text.substr(i, end - i);
    while (!token.empty() && trailing(token.back())) token.remove_suffix(1);
    if (isArtifact(token)) {
      bool seen = false;
      for (const U16& f : found) {
        if (f == token) {
          seen = true;
          break;
        }
      }
      if (!seen) found.emplace_back(token);
    }
    i = end;
  }
  return found;
}

U16 ledger(const std::vector<std::u16string_view>& texts) {
  U16 out;
  std::vector<U16> kept;
  for (std::u16string_view text : texts) {
    for (U16& a : artifacts(text, kLedgerItems)) {
      if (kept.size() >= kLedgerItems) break;
      bool seen = false;
      for (const U16& k : kept) seen = seen || k == a;
      if (seen) continue;
      const std::size_t add = a.size() + (kept.empty() ? 3 : 2);
      if (out.size() + add > kLedgerChars) continue;
      out += kept.empty() ? u" | " : u", ";
      out += a;
      kept.push_back(std::move(a));
    }
    if (kept.size() >= kLedgerItems) break;
  }
  return out;
}

}  // namespace cce
