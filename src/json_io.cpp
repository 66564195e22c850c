// SPDX-License-Identifier: MIT
// JSON text -> json::Value through RapidJSON's SAX reader (the only file that includes RapidJSON).
#include "json_io.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

// RapidJSON's own invariant checks: a failure is a bug in how we drive it, so stop at once rather
// than continue with undefined behaviour (STYLE §5.7).
#define RAPIDJSON_ASSERT(x) ((x) ? static_cast<void>(0) : std::abort())
// Vector scanning of unescaped string runs and whitespace where the target has SSE2 (every
// x86-64). It reads whole aligned 16-byte blocks, so the parse buffer carries 16 bytes of slack.
#if defined(__SSE2__) && !defined(RAPIDJSON_SSE2)
#define RAPIDJSON_SSE2
#endif
#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>
#include <rapidjson/stream.h>

#include "jscompat/sort.h"
#include "jscompat/string.h"

namespace cce {
namespace {

using json::Kind;
using json::Member;
using json::Value;

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The code unit of a `\uXXXX` escape starting at p (p[0] == '\\'), or -1.
long escapedUnit(const char* p, const char* end) {
  if (end - p < 6 || p[1] != 'u') return -1;
  long unit = 0;
  for (int k = 2; k < 6; ++k) {
    int h = hexValue(p[k]);
    if (h < 0) return -1;
    unit = unit * 16 + h;
  }
  return unit;
}

// The next `\uD800`-`\uDBFF` escape in [p, end) that is not immediately followed by a
// `\uDC00`-`\uDFFF` escape, or end. In valid JSON every backslash starts an escape inside a
// string and escapes never overlap, so jumping from backslash to backslash, consuming each escape
// whole, sees exactly the escapes.
const char* findLoneHighEscape(const char* p, const char* end) {
  while (p < end) {
    const char* slash =
        static_cast<const char*>(std::memchr(p, '\\', static_cast<std::size_t>(end - p)));
    if (slash == nullptr) return end;
    long unit = escapedUnit(slash, end);
    if (unit < 0) {
      p = slash + 2;  // a one-letter escape (or an invalid one, which RapidJSON will report)
    } else if (unit < 0xD800 || unit > 0xDBFF) {
      p = slash + 6;
    } else {
      long next = slash + 6 < end && slash[6] == '\\' ? escapedUnit(slash + 6, end) : -1;
      if (next < 0xDC00 || next > 0xDFFF) return slash;
      p = slash + 12;
    }
  }
  return end;
}

constexpr std::size_t kSimdSlack = 16;

// The mutable, NUL-terminated copy that in-situ parsing needs, with one change: RapidJSON rejects
// a high-surrogate escape that is not followed by a low-surrogate escape, but JSON.stringify writes
// exactly that for a lone surrogate, and JSON.parse accepts it. Such escapes are replaced by the
// surrogate's raw WTF-8 bytes, which RapidJSON copies through and fromUtf8 decodes back to the same
// code unit. `shrunkAt` records where each 6-byte escape became 3 bytes, for error offsets. Text
// without lone surrogates (almost all of it) is copied in one piece.
void copyForParsing(std::string_view text, std::string& buffer,
                    std::vector<std::size_t>& shrunkAt) {
  buffer.clear();
  buffer.reserve(text.size() + kSimdSlack);
  const char* p = text.data();
  const char* const end = p + text.size();
  while (p < end) {
    const char* escape = findLoneHighEscape(p, end);
    buffer.append(p, escape);
    if (escape == end) break;
    long unit = escapedUnit(escape, end);
    shrunkAt.push_back(buffer.size());
    buffer.push_back(static_cast<char>(0xE0 | (unit >> 12)));
    buffer.push_back(static_cast<char>(0x80 | ((unit >> 6) & 0x3F)));
    buffer.push_back(static_cast<char>(0x80 | (unit & 0x3F)));
    p = escape + 6;
  }
}

std::size_t originalOffset(std::size_t offset, const std::vector<std::size_t>& shrunkAt) {
  auto before = std::lower_bound(shrunkAt.begin(), shrunkAt.end(), offset) - shrunkAt.begin();
  return offset + 3 * static_cast<std::size_t>(before);
}

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
  std::vector<char> drop(n, false);
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i + 1;
    while (j < n && members[order[j]].key == members[order[i]].key) ++j;
    if (j - i > 1) {
      duplicates = true;
      members[order[i]].value = std::move(members[order[j - 1]].value);
      for (std::size_t k = i + 1; k < j; ++k) drop[order[k]] = true;
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
  members.resize(kept);
}

enum class Failure { None, TooDeep, OutOfRange };

// Builds the document from SAX events. Open containers live on an explicit stack (RapidJSON's
// iterative mode keeps its own side iterative too), so depth costs heap, not native stack.
class Builder {
 public:
  Failure failure = Failure::None;
  Value root;

  bool Null() { return add(Value::null()); }
  bool Bool(bool b) { return add(Value::fromBool(b)); }
  bool Int(int i) { return add(Value::fromNumber(i)); }
  bool Uint(unsigned u) { return add(Value::fromNumber(u)); }
  bool Int64(std::int64_t i) { return add(Value::fromNumber(static_cast<double>(i))); }
  bool Uint64(std::uint64_t u) { return add(Value::fromNumber(static_cast<double>(u))); }
  bool Double(double d) {
    if (!std::isfinite(d)) {
      failure = Failure::OutOfRange;
      return false;
    }
    return add(Value::fromNumber(d));
  }
  bool RawNumber(const char*, rapidjson::SizeType, bool) { return false; }  // not requested
  bool String(const char* s, rapidjson::SizeType length, bool) {
    return add(Value::fromString(js::fromUtf8(std::string_view(s, length))));
  }
  bool Key(const char* s, rapidjson::SizeType length, bool) {
    open_.back().members.push_back(Member{js::fromUtf8(std::string_view(s, length)), Value{}});
    return true;
  }
  bool StartObject() { return push(Value::object()); }
  bool StartArray() { return push(Value::array()); }
  bool EndObject(rapidjson::SizeType) {
    foldDuplicateKeys(open_.back().members);
    return pop();
  }
  bool EndArray(rapidjson::SizeType) { return pop(); }

 private:
  std::vector<Value> open_;

  bool push(Value container) {
    if (open_.size() >= kMaxJsonDepth) {
      failure = Failure::TooDeep;
      return false;
    }
    open_.push_back(std::move(container));
    return true;
  }

  bool pop() {
    Value done = std::move(open_.back());
    open_.pop_back();
    return add(std::move(done));
  }

  // An object's slot is its last member, whose key arrived just before the value.
  bool add(Value v) {
    if (open_.empty()) {
      root = std::move(v);
    } else if (open_.back().kind == Kind::Array) {
      open_.back().items.push_back(std::move(v));
    } else {
      open_.back().members.back().value = std::move(v);
    }
    return true;
  }
};

Error invalidJson(std::string what, std::size_t offset) {
  return Error{ErrorCode::InvalidJson,
               "Invalid JSON: " + what + " (at byte offset " + js::decimalAscii(offset) + ")", ""};
}

}  // namespace

Result<json::Value> parseJson(std::string_view utf8Text) {
  std::string buffer;
  std::vector<std::size_t> shrunkAt;
  copyForParsing(utf8Text, buffer, shrunkAt);

  Builder builder;
  rapidjson::Reader reader;
  rapidjson::InsituStringStream stream(buffer.data());
  constexpr unsigned kFlags = rapidjson::kParseInsituFlag | rapidjson::kParseIterativeFlag |
                              rapidjson::kParseFullPrecisionFlag;
  rapidjson::ParseResult ok = reader.Parse<kFlags>(stream, builder);
  if (!ok) {
    std::size_t offset = originalOffset(ok.Offset(), shrunkAt);
    switch (builder.failure) {
      case Failure::TooDeep:
        return Error{ErrorCode::InputTooLarge,
                     "JSON nesting is deeper than the limit of " + js::decimalAscii(kMaxJsonDepth) +
                         " levels (at byte offset " + js::decimalAscii(offset) + ")",
                     ""};
      case Failure::OutOfRange:
        return invalidJson("number out of range", offset);
      case Failure::None:
        break;
    }
    if (ok.Code() == rapidjson::kParseErrorNumberTooBig) {
      return invalidJson(
          std::string("number out of range: ") + rapidjson::GetParseError_En(ok.Code()), offset);
    }
    return invalidJson(rapidjson::GetParseError_En(ok.Code()), offset);
  }
  // The stream reads the NUL terminator as the end of the text, so a NUL byte inside the text
  // would silently end it early; JSON has no place for a raw NUL, so reject it.
  if (stream.Tell() != buffer.size()) {
    return invalidJson("unexpected NUL byte", originalOffset(stream.Tell(), shrunkAt));
  }
  return std::move(builder.root);
}

}  // namespace cce
