// SPDX-License-Identifier: MIT
// JSON text -> json::Value: a small recursive-descent reader (RFC 8259, as JSON.parse reads it).
//
// Written for the engine instead of RapidJSON's reader: it builds JavaScript's view directly
// (UTF-16 strings with lone-surrogate escapes kept, duplicate keys folded), reads numbers with
// js::decimalToDouble (exact, no strtod), and is a tenth of RapidJSON's code in the session
// module (docs/boundary.md "Session module size").
#include "json_io.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "jscompat/number.h"
#include "jscompat/sort.h"
#include "jscompat/string.h"

namespace cce {
namespace {

using json::Kind;
using json::Member;
using json::Value;

// JSON.parse keeps the first position and the last value of a repeated key. Objects are built
// with every member appended; this folds the repeats afterwards, in O(n log n) for large objects.
void foldDuplicateKeys(std::vector<Member>& members) {
  const std::size_t n = members.size();
  if (n < 2) return;
  bool duplicates = false;
  std::vector<std::size_t> order;
  if (n <= 8) {
    for (std::size_t i = 1; i < n && !duplicates; ++i) {
      for (std::size_t j = 0; j < i; ++j) {
        if (members[i].key == members[j].key) {
          duplicates = true;
          break;
        }
      }
    }
    if (!duplicates) return;
  }
  order.resize(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = i;
  js::stableSort(order, [&members](std::size_t a, std::size_t b) {
    return members[a].key < members[b].key;
  });
  // Within a run of equal keys (in position order), the first member takes the last one's value.
  // drop[i] = 1: folded into an earlier member (size_t, a vector type the modules have code for).
  std::vector<std::size_t> drop;
  drop.resize(n);
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i + 1;
    while (j < n && members[order[j]].key == members[order[i]].key) ++j;
    if (j - i > 1) {
      duplicates = true;
      members[order[i]].value = std::move(members[order[j - 1]].value);
      for (std::size_t k = i + 1; k < j; ++k) drop[order[k]] = 1;
    }
    i = j;
  }
  if (!duplicates) return;
  std::size_t kept = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (drop[i]) continue;
    if (kept != i) members[kept] = std::move(members[i]);
    ++kept;
  }
  // Shortened by pops (a resize of members would be code of its own for this alone).
  while (members.size() > kept) members.pop_back();
}

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool isDigit(char c) { return c >= '0' && c <= '9'; }

class Reader {
 public:
  explicit Reader(std::string_view text) : begin_(text.data()), p_(begin_), end_(p_ + text.size()) {}

  Result<Value> document() {
    Value root;
    skipSpace();
    if (!value(root, 0)) return std::move(error_);
    skipSpace();
    if (p_ != end_) {
      fail(*p_ == '\0' ? "unexpected NUL byte" : "the document root must not be followed by other values");
      return std::move(error_);
    }
    return root;
  }

 private:
  const char* begin_;
  const char* p_;
  const char* end_;
  Error error_;
  std::string digits_;  // scratch for numbers

  bool fail(const char* what) {
    error_ = Error{ErrorCode::InvalidJson,
                   std::string("Invalid JSON: ") + what + " (at byte offset " +
                       js::decimalAscii(static_cast<std::uint64_t>(p_ - begin_)) + ")",
                   ""};
    return false;
  }

  void skipSpace() {
    while (p_ != end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
  }

  bool literal(const char* word) {
    for (; *word != '\0'; ++word, ++p_) {
      if (p_ == end_ || *p_ != *word) return fail("invalid value");
    }
    return true;
  }

  bool value(Value& out, std::size_t depth) {
    if (p_ == end_) return fail(depth == 0 ? "the document is empty" : "invalid value");
    switch (*p_) {
      case '{':
      case '[':
        return container(out, depth + 1);
      case '"':
        out.kind = Kind::String;
        return string(out.string);
      case 't':
        out = Value::fromBool(true);
        return literal("true");
      case 'f':
        out = Value::fromBool(false);
        return literal("false");
      case 'n':
        return literal("null");
      default:
        return number(out);
    }
  }

  // Objects and arrays nest by recursion, bounded by kMaxJsonDepth (a few hundred bytes of
  // native stack per level).
  bool container(Value& out, std::size_t depth) {
    if (depth > kMaxJsonDepth) {
      error_ = Error{ErrorCode::InputTooLarge,
                     "JSON nesting is deeper than the limit of " + js::decimalAscii(kMaxJsonDepth) +
                         " levels (at byte offset " +
                         js::decimalAscii(static_cast<std::uint64_t>(p_ - begin_)) + ")",
                     ""};
      return false;
    }
    const bool object = *p_++ == '{';
    const char close = object ? '}' : ']';
    out.kind = object ? Kind::Object : Kind::Array;
    skipSpace();
    if (p_ != end_ && *p_ == close) {
      ++p_;
      return true;
    }
    for (;;) {
      Value* slot;
      if (object) {
        if (p_ == end_ || *p_ != '"') return fail("missing a name for an object member");
        out.members.emplace_back();
        if (!string(out.members.back().key)) return false;
        skipSpace();
        if (p_ == end_ || *p_ != ':') return fail("missing a colon after an object member's name");
        ++p_;
        skipSpace();
        slot = &out.members.back().value;
      } else {
        out.items.emplace_back();
        slot = &out.items.back();
      }
      if (!value(*slot, depth)) return false;
      skipSpace();
      if (p_ != end_ && *p_ == ',') {
        ++p_;
        skipSpace();
        continue;
      }
      if (p_ != end_ && *p_ == close) {
        ++p_;
        if (object) foldDuplicateKeys(out.members);
        return true;
      }
      return fail(object ? "missing a comma or '}' after an object member"
                         : "missing a comma or ']' after an array element");
    }
  }

  // A string at p_ (the opening quote). Runs of raw bytes are decoded as TextDecoder would
  // (invalid UTF-8 becomes U+FFFD); each \u escape is one UTF-16 code unit, so lone surrogates
  // survive as JSON.parse keeps them.
  bool string(std::u16string& out) {
    ++p_;
    for (;;) {
      const char* run = p_;
      while (p_ != end_ && *p_ != '"' && *p_ != '\\' && static_cast<unsigned char>(*p_) >= 0x20) ++p_;
      if (p_ != run) {
        std::u16string decoded = js::fromUtf8(std::string_view(run, static_cast<std::size_t>(p_ - run)));
        if (out.empty()) {
          out = std::move(decoded);  // a string without escapes: no second copy
        } else {
          out += decoded;
        }
      }
      if (p_ == end_) return fail("missing a closing quotation mark in a string");
      if (*p_ == '"') {
        ++p_;
        return true;
      }
      if (*p_ != '\\') return fail("a control character in a string");
      if (end_ - p_ < 2) return fail("invalid escape in a string");
      const char e = p_[1];
      char16_t unit;
      switch (e) {
        case '"': unit = u'"'; break;
        case '\\': unit = u'\\'; break;
        case '/': unit = u'/'; break;
        case 'b': unit = u'\b'; break;
        case 'f': unit = u'\f'; break;
        case 'n': unit = u'\n'; break;
        case 'r': unit = u'\r'; break;
        case 't': unit = u'\t'; break;
        case 'u': {
          if (end_ - p_ < 6) return fail("incorrect hex digit after \\u in a string");
          unsigned code = 0;
          for (int k = 2; k < 6; ++k) {
            const int h = hexValue(p_[k]);
            if (h < 0) return fail("incorrect hex digit after \\u in a string");
            code = code * 16 + static_cast<unsigned>(h);
          }
          unit = static_cast<char16_t>(code);
          p_ += 4;
          break;
        }
        default:
          return fail("invalid escape in a string");
      }
      out.push_back(unit);
      p_ += 2;
    }
  }

  // -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?, read exactly (js::decimalToDouble).
  bool number(Value& out) {
    const bool negative = *p_ == '-';
    if (negative) ++p_;
    if (p_ == end_ || !isDigit(*p_)) return fail("invalid value");
    digits_.clear();
    long exponent = 0;
    if (*p_ == '0') {
      ++p_;
    } else {
      while (p_ != end_ && isDigit(*p_)) digits_.push_back(*p_++);
    }
    if (p_ != end_ && *p_ == '.') {
      ++p_;
      if (p_ == end_ || !isDigit(*p_)) return fail("missing the fraction part of a number");
      while (p_ != end_ && isDigit(*p_)) {
        // Leading zeros of the fraction only move the exponent.
        if (!digits_.empty() || *p_ != '0') digits_.push_back(*p_);
        ++p_;
        --exponent;
      }
    }
    if (p_ != end_ && (*p_ == 'e' || *p_ == 'E')) {
      ++p_;
      const bool negativeExponent = p_ != end_ && *p_ == '-';
      if (p_ != end_ && (*p_ == '-' || *p_ == '+')) ++p_;
      if (p_ == end_ || !isDigit(*p_)) return fail("missing the exponent of a number");
      long written = 0;
      // Past a million the value is 0 or out of range whatever the digits; stop counting there.
      for (; p_ != end_ && isDigit(*p_); ++p_) {
        if (written < 1000000) written = written * 10 + (*p_ - '0');
      }
      exponent += negativeExponent ? -written : written;
    }
    const double magnitude = js::decimalToDouble(digits_, static_cast<int>(exponent));
    if (magnitude == HUGE_VAL) return fail("number out of range");
    out = Value::fromNumber(negative ? -magnitude : magnitude);
    return true;
  }
};

}  // namespace

Result<json::Value> parseJson(std::string_view utf8Text) { return Reader(utf8Text).document(); }

}  // namespace cce
