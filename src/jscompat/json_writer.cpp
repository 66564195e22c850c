// SPDX-License-Identifier: MIT
// JSON.stringify byte for byte: escapes, number formatting and JavaScript's key order.
#include "jscompat/json_writer.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "jscompat/number.h"
#include "jscompat/sort.h"

namespace cce::js {
namespace {

constexpr char kHex[] = "0123456789abcdef";

// For each ASCII unit: 0 = written raw, 'u' = \u00xx, otherwise the letter after the backslash.
constexpr char escapeFor(unsigned c) {
  switch (c) {
    case '\b':
      return 'b';
    case '\f':
      return 'f';
    case '\n':
      return 'n';
    case '\r':
      return 'r';
    case '\t':
      return 't';
    case '"':
      return '"';
    case '\\':
      return '\\';
    default:
      return c < 0x20 ? 'u' : 0;
  }
}

struct EscapeTable {
  char entries[128];
  constexpr EscapeTable() : entries() {
    for (unsigned c = 0; c < 128; ++c) entries[c] = escapeFor(c);
  }
};
constexpr EscapeTable kEscapes;

void writeNumber(double d, std::string& out) {
  if (!std::isfinite(d)) {
    out += "null";
    return;
  }
  out += numberToString(d);
}

// Keys of `members` in JavaScript enumeration order: array indices ascending, then the rest in
// insertion order. Most objects have no index keys, and they are written without this.
std::vector<std::size_t> enumerationOrder(const std::vector<json::Member>& members) {
  std::vector<std::size_t> order;
  order.reserve(members.size());
  // The array index each integer-like key names, sorted with the engine's one sort (jscompat/
  // sort.h) rather than a std::sort of (index, position) pairs, which added five functions
  // (1.3 KB of wasm) to the session modules. Stable over positions collected in ascending order,
  // so equal indices keep their positions' order, as the pairs' sort did. (Array indices fit 32
  // bits; size_t vectors are the ones the engine has code for.)
  std::vector<std::size_t> index;
  index.resize(members.size());
  for (std::size_t i = 0; i < members.size(); ++i) {
    const std::u16string& key = members[i].key;
    if (isIntegerLikeKey(key)) {
      std::size_t n = 0;
      for (char16_t c : key) n = n * 10 + (c - u'0');
      index[i] = n;
      order.push_back(i);
    }
  }
  stableSort(order, [&index](std::size_t a, std::size_t b) { return index[a] < index[b]; });
  for (std::size_t i = 0; i < members.size(); ++i) {
    if (!isIntegerLikeKey(members[i].key)) order.push_back(i);
  }
  return order;
}

bool hasIntegerLikeKey(const std::vector<json::Member>& members) {
  for (const json::Member& m : members) {
    if (!m.key.empty() && m.key[0] >= u'0' && m.key[0] <= u'9' && isIntegerLikeKey(m.key)) {
      return true;
    }
  }
  return false;
}

// A slightly generous guess at the output size (a unit is at least one byte, plus room for some
// escapes and multi-byte characters), walking nodes, not text. Reserving it up front replaces the
// string's repeated doubling, which on multi-megabyte output copies and first-touches about twice
// the final size.
std::size_t estimatedJsonSize(const json::Value& value) {
  auto text = [](const std::u16string& s) { return s.size() + s.size() / 8 + 2; };
  switch (value.kind) {
    case json::Kind::Null:
    case json::Kind::Bool:
      return 5;
    case json::Kind::Number:
      return 24;
    case json::Kind::String:
      return text(value.string);
    case json::Kind::Array: {
      std::size_t size = 2;
      for (const json::Value& item : value.items) size += 1 + estimatedJsonSize(item);
      return size;
    }
    case json::Kind::Object: {
      std::size_t size = 2;
      for (const json::Member& m : value.members) {
        size += 2 + text(m.key) + estimatedJsonSize(m.value);
      }
      return size;
    }
  }
  return 0;
}

}  // namespace

bool isIntegerLikeKey(std::u16string_view key) {
  if (key.empty() || key.size() > 10) return false;
  if (key[0] == u'0') return key.size() == 1;
  std::uint64_t n = 0;
  for (char16_t c : key) {
    if (c < u'0' || c > u'9') return false;
    n = n * 10 + (c - u'0');
  }
  return n <= 4294967294ULL;  // 2^32 - 2: the largest array index
}

void writeJsonString(std::u16string_view s, std::string& out) {
  // Encoded through a stack buffer appended in blocks: one append per 4 KB rather than per byte,
  // and no sizing pass. Each block takes as many units as are sure to fit (one unit writes at most
  // 6 bytes, a pair 4), so the inner loop has no bounds check. (4 KB keeps wasm stacks small.)
  constexpr std::size_t kBufferSize = 4096;
  constexpr std::size_t kMaxBytesPerUnit = 6;
  char buf[kBufferSize];
  char* p = buf;
  *p++ = '"';
  const std::size_t n = s.size();
  std::size_t i = 0;
  while (i < n) {
    std::size_t room = (kBufferSize - 1 - static_cast<std::size_t>(p - buf)) / kMaxBytesPerUnit;
    if (room == 0) {
      out.append(buf, p);
      p = buf;
      continue;
    }
    const std::size_t stop = std::min(n, i + room);
    for (; i < stop; ++i) {
      char16_t c = s[i];
      if (c < 0x80) {
        char e = kEscapes.entries[c];
        if (e == 0) {
          *p++ = static_cast<char>(c);
        } else if (e == 'u') {
          *p++ = '\\';
          *p++ = 'u';
          *p++ = '0';
          *p++ = '0';
          *p++ = kHex[c >> 4];
          *p++ = kHex[c & 0xF];
        } else {
          *p++ = '\\';
          *p++ = e;
        }
      } else if (c < 0x800) {
        *p++ = static_cast<char>(0xC0 | (c >> 6));
        *p++ = static_cast<char>(0x80 | (c & 0x3F));
      } else if (c < 0xD800 || c > 0xDFFF) {
        *p++ = static_cast<char>(0xE0 | (c >> 12));
        *p++ = static_cast<char>(0x80 | ((c >> 6) & 0x3F));
        *p++ = static_cast<char>(0x80 | (c & 0x3F));
      } else if (c <= 0xDBFF && i + 1 < n && s[i + 1] >= 0xDC00 && s[i + 1] <= 0xDFFF) {
        // May step one past `stop`: two units, four bytes, still within the room reserved.
        char32_t cp = 0x10000 + ((char32_t(c) - 0xD800) << 10) + (char32_t(s[i + 1]) - 0xDC00);
        ++i;
        *p++ = static_cast<char>(0xF0 | (cp >> 18));
        *p++ = static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        *p++ = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        *p++ = static_cast<char>(0x80 | (cp & 0x3F));
      } else {
        // A lone surrogate: well-formed JSON.stringify (ES2019) escapes it in lower-case hex.
        *p++ = '\\';
        *p++ = 'u';
        *p++ = kHex[c >> 12];
        *p++ = kHex[(c >> 8) & 0xF];
        *p++ = kHex[(c >> 4) & 0xF];
        *p++ = kHex[c & 0xF];
      }
    }
  }
  *p++ = '"';  // the room computation kept one byte for it
  out.append(buf, p);
}

void writeJson(const json::Value& value, std::string& out) {
  switch (value.kind) {
    case json::Kind::Null:
      out += "null";
      return;
    case json::Kind::Bool:
      out += value.boolean ? "true" : "false";
      return;
    case json::Kind::Number:
      writeNumber(value.number, out);
      return;
    case json::Kind::String:
      writeJsonString(value.string, out);
      return;
    case json::Kind::Array: {
      out.push_back('[');
      bool first = true;
      for (const json::Value& item : value.items) {
        if (!first) out.push_back(',');
        first = false;
        writeJson(item, out);
      }
      out.push_back(']');
      return;
    }
    case json::Kind::Object: {
      out.push_back('{');
      auto writeMember = [&out](const json::Member& m, bool first) {
        if (!first) out.push_back(',');
        writeJsonString(m.key, out);
        out.push_back(':');
        writeJson(m.value, out);
      };
      if (!hasIntegerLikeKey(value.members)) {
        for (std::size_t i = 0; i < value.members.size(); ++i)
          writeMember(value.members[i], i == 0);
      } else {
        std::vector<std::size_t> order = enumerationOrder(value.members);
        for (std::size_t i = 0; i < order.size(); ++i) writeMember(value.members[order[i]], i == 0);
      }
      out.push_back('}');
      return;
    }
  }
}

std::string toJson(const json::Value& value) {
  std::string out;
  out.reserve(estimatedJsonSize(value));
  writeJson(value, out);
  return out;
}

}  // namespace cce::js
