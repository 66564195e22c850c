// SPDX-License-Identifier: MIT
// Iterative JSON syntax check with JSON.parse acceptance (RFC 8259 over UTF-16 code units).
#include "match/json_syntax.h"

#include <cstddef>
#include <vector>

#include "jscompat/string.h"

namespace cce::match {
namespace {

class Validator {
 public:
  explicit Validator(std::u16string_view text) : s_(text) {}

  bool run() {
    // Each container on the stack is '{' or '['; after a value we look at the innermost one.
    std::vector<char> stack;
    skipWhitespace();
    for (;;) {
      // Expecting a value.
      if (pos_ >= s_.size()) return false;
      char16_t c = s_[pos_];
      if (c == u'{') {
        ++pos_;
        skipWhitespace();
        if (peek(u'}')) {
          ++pos_;
        } else {
          if (!member()) return false;
          stack.push_back('{');
          continue;
        }
      } else if (c == u'[') {
        ++pos_;
        skipWhitespace();
        if (peek(u']')) {
          ++pos_;
        } else {
          stack.push_back('[');
          continue;
        }
      } else if (!scalar()) {
        return false;
      }
      // After a complete value: close containers or move to the next element.
      for (;;) {
        skipWhitespace();
        if (stack.empty()) return pos_ == s_.size();
        if (pos_ >= s_.size()) return false;
        char16_t d = s_[pos_++];
        if (d == u',') {
          skipWhitespace();
          if (stack.back() == '{' && !member()) return false;
          break;
        }
        if (d != (stack.back() == '{' ? u'}' : u']')) return false;
        stack.pop_back();
      }
    }
  }

 private:
  bool peek(char16_t c) const { return pos_ < s_.size() && s_[pos_] == c; }

  void skipWhitespace() {
    while (pos_ < s_.size()) {
      char16_t c = s_[pos_];
      if (c != u' ' && c != u'\t' && c != u'\n' && c != u'\r') return;
      ++pos_;
    }
  }

  // `"key" ws :` ws — leaves pos_ at the member's value.
  bool member() {
    if (!peek(u'"') || !string()) return false;
    skipWhitespace();
    if (!peek(u':')) return false;
    ++pos_;
    skipWhitespace();
    return true;
  }

  bool scalar() {
    char16_t c = s_[pos_];
    if (c == u'"') return string();
    if (c == u'-' || js::isDigit(c)) return number();
    if (c == u't') return literal("true");
    if (c == u'f') return literal("false");
    if (c == u'n') return literal("null");
    return false;
  }

  bool literal(std::string_view word) {
    if (!js::startsWithAscii(s_.substr(pos_), word)) return false;
    pos_ += word.size();
    return true;
  }

  static bool isHex(char16_t c) {
    return js::isDigit(c) || (c >= u'a' && c <= u'f') || (c >= u'A' && c <= u'F');
  }

  bool string() {
    ++pos_;  // opening quote
    while (pos_ < s_.size()) {
      char16_t c = s_[pos_++];
      if (c == u'"') return true;
      if (c < 0x20) return false;
      if (c != u'\\') continue;
      if (pos_ >= s_.size()) return false;
      char16_t e = s_[pos_++];
      if (e == u'u') {
        for (int k = 0; k < 4; ++k, ++pos_) {
          if (pos_ >= s_.size() || !isHex(s_[pos_])) return false;
        }
      } else if (std::u16string_view(u"\"\\/bfnrt").find(e) == std::u16string_view::npos) {
        return false;
      }
    }
    return false;
  }

  std::size_t digits() {
    std::size_t start = pos_;
    while (pos_ < s_.size() && js::isDigit(s_[pos_])) ++pos_;
    return pos_ - start;
  }

  bool number() {
    if (peek(u'-')) ++pos_;
    if (peek(u'0')) {
      ++pos_;
    } else if (digits() == 0) {
      return false;
    }
    if (peek(u'.')) {
      ++pos_;
      if (digits() == 0) return false;
    }
    if (peek(u'e') || peek(u'E')) {
      ++pos_;
      if (peek(u'+') || peek(u'-')) ++pos_;
      if (digits() == 0) return false;
    }
    return true;
  }

  std::u16string_view s_;
  std::size_t pos_ = 0;
};

}  // namespace

bool isJsonText(std::u16string_view text) { return Validator(text).run(); }

}  // namespace cce::match
