// SPDX-License-Identifier: MIT
// JSON text and tagged binary writers of engine answers (answer_writer.h).
#include "answer_writer.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "jscompat/json_writer.h"
#include "jscompat/number.h"
#include "jscompat/string.h"

namespace cce {

namespace {

// True when one of units[0..4) is a surrogate (D800-DFFF): a 16-bit lane of x is zero
// exactly for a surrogate, and the borrow trick finds a zero lane without a branch per unit.
bool anySurrogateIn4(const char16_t* units) {
  std::uint64_t w;
  std::memcpy(&w, units, 8);
  const std::uint64_t x = (w & 0xF800F800F800F800ull) ^ 0xD800D800D800D800ull;
  return ((x - 0x0001000100010001ull) & ~x & 0x8000800080008000ull) != 0;
}

}  // namespace

bool hasLoneSurrogate(std::u16string_view s) {
  // Most text holds no surrogate at all, and a pool is ~800 K units on the scale session: skip four
  // units at a time, and look unit by unit only where a surrogate is.
  const std::size_t n = s.size();
  std::size_t i = 0;
  while (i < n) {
    if (i + 4 <= n && !anySurrogateIn4(s.data() + i)) {
      i += 4;
      continue;
    }
    const char16_t c = s[i];
    if ((c & 0xF800) != 0xD800) {
      ++i;
    } else if (c <= 0xDBFF && i + 1 < n && (s[i + 1] & 0xFC00) == 0xDC00) {
      i += 2;  // a well-formed pair
    } else {
      return true;
    }
  }
  return false;
}

// ---- JSON ---------------------------------------------------------------------------------------

void JsonAnswer::beforeValue() {
  if (afterKey_) {
    afterKey_ = false;
    return;
  }
  if (first_.empty()) return;
  if (!first_.back()) out_ += ',';
  first_.back() = false;
}

void JsonAnswer::null() {
  beforeValue();
  out_ += "null";
}

void JsonAnswer::boolean(bool b) {
  beforeValue();
  out_ += b ? "true" : "false";
}

void JsonAnswer::number(double d) {
  beforeValue();
  out_ += std::isfinite(d) ? js::numberToString(d) : "null";
}

void JsonAnswer::index(std::size_t n) {
  beforeValue();
  out_ += js::decimalAscii(n);
}

void JsonAnswer::string(std::u16string_view s) {
  beforeValue();
  js::writeJsonString(s, out_);
}

void JsonAnswer::utf8(std::string_view s) { string(js::fromUtf8(s)); }

void JsonAnswer::key(std::u16string_view k) {
  beforeValue();
  js::writeJsonString(k, out_);
  out_ += ':';
  afterKey_ = true;
}

void JsonAnswer::open(char bracket) {
  beforeValue();
  out_ += bracket;
  first_.push_back(true);
}

void JsonAnswer::close(char bracket) {
  first_.pop_back();
  out_ += bracket;
}

void JsonAnswer::value(const json::Value& v) {
  beforeValue();
  js::writeJson(v, out_);
}

// ---- binary -------------------------------------------------------------------------------------

const std::vector<std::u16string_view>& answerKeyNames() {
  static const std::vector<std::u16string_view> names = {
#define CCE_ANSWER_KEY_NAME(name) u## #name,
      CCE_ANSWER_KEYS(CCE_ANSWER_KEY_NAME)
#undef CCE_ANSWER_KEY_NAME
  };
  return names;
}

std::u16string_view answerKeyName(AnswerKey key) {
  return answerKeyNames()[static_cast<std::size_t>(key)];
}

// The tree is written a word at a time (tens of thousands for a large conversation): a store into
// room made ahead, not a string append, whose out-of-line call and memory.copy of four bytes
// showed in the speed build's profile (2.4 % of the scale session's default call; the store is
// 0.97-0.985 of the call's CPU time). The size-built module (wasm/CMakeLists.txt,
// CCE_NO_ANSWER_ROOM) grows the string at every write: 92 B gzip less than the room, 80 B more
// than the appends were.
char* BytesAnswer::room(std::size_t n) {
#ifdef CCE_NO_ANSWER_ROOM
  tree_.resize(treeSize_ + n);
#else
  if (treeSize_ + n > tree_.size()) tree_.resize(std::max(2 * tree_.size(), treeSize_ + n + 240));
#endif
  char* at = &tree_[treeSize_];
  treeSize_ += n;
  return at;
}

void BytesAnswer::word(std::uint32_t w) {
  std::memcpy(room(4), &w, 4);  // wasm and every host this builds on are little-endian
}

void BytesAnswer::tagged(AnswerTag tag) {
  if (afterKey_) {
    afterKey_ = false;
  } else if (!open_.empty()) {
    ++open_.back().count;
  }
  word(static_cast<std::uint32_t>(tag));
}

void BytesAnswer::number(double d) {
  tagged(AnswerTag::Number);
  std::memcpy(room(8), &d, 8);
}

void BytesAnswer::index(std::size_t n) {
  if (n > 0xFFFFFFFFu) return number(static_cast<double>(n));
  tagged(AnswerTag::Index);
  word(static_cast<std::uint32_t>(n));
}

void BytesAnswer::string(std::u16string_view s) {
  tagged(AnswerTag::String);
  word(static_cast<std::uint32_t>(pool_.size()));
  word(static_cast<std::uint32_t>(s.size()));
  pool_.append(s);
}

void BytesAnswer::utf8(std::string_view s) { string(js::fromUtf8(s)); }

void BytesAnswer::key(AnswerKey k) {
  tagged(AnswerTag::Key);
  word(static_cast<std::uint32_t>(k));
  afterKey_ = true;
}

void BytesAnswer::key(std::u16string_view k) {
  const std::vector<std::u16string_view>& names = answerKeyNames();
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] == k) return key(static_cast<AnswerKey>(i));
  }
  string(k);
  afterKey_ = true;
}

void BytesAnswer::open(AnswerTag tag) {
  tagged(tag);
  open_.push_back({treeSize_, 0});
  word(0);  // the count, patched by close()
}

void BytesAnswer::close() {
  const Open& o = open_.back();
  std::memcpy(&tree_[o.countAt], &o.count, 4);
  open_.pop_back();
}

void BytesAnswer::value(const json::Value& v) {
  switch (v.kind) {
    case json::Kind::Null: return null();
    case json::Kind::Bool: return boolean(v.boolean);
    // JSON has no non-finite numbers: JSON.stringify writes null, and so does the JSON form.
    case json::Kind::Number: return std::isfinite(v.number) ? number(v.number) : null();
    case json::Kind::String: return string(v.string);
    case json::Kind::Array:
      beginArray();
      for (const json::Value& item : v.items) value(item);
      return endArray();
    case json::Kind::Object:
      beginObject();
      for (const json::Member& m : v.members) {
        key(m.key);
        value(m.value);
      }
      return endObject();
  }
}

std::string bytesErrorAnswer(const Error& error) {
  BytesAnswer w;
  w.beginObject();
  w.key(AnswerKey::ok);
  w.boolean(false);
  w.key(AnswerKey::error);
  w.beginObject();
  w.key(AnswerKey::code);
  w.utf8(errorCodeName(error.code));
  w.key(AnswerKey::message);
  w.utf8(error.message);
  w.key(AnswerKey::path);
  w.utf8(error.path);
  w.endObject();
  w.endObject();
  return w.take();
}

std::string BytesAnswer::take() {
  // One scan of the whole pool decides how the host decodes it: with a UTF-16 decoder when the
  // pool is well-formed (a pair that spans two strings decodes to the same two units, which the
  // slices then split again), unit by unit when a lone surrogate would become U+FFFD.
  const std::uint32_t header[2] = {static_cast<std::uint32_t>(pool_.size()),
                                   hasLoneSurrogate(pool_) ? kAnswerPoolHasLoneSurrogate : 0};
  const std::size_t poolBytes = pool_.size() * 2;
  const std::size_t padding = poolBytes % 4;
  std::string out;
  out.reserve(sizeof header + poolBytes + padding + treeSize_);
  out.append(reinterpret_cast<const char*>(header), sizeof header);
  out.append(reinterpret_cast<const char*>(pool_.data()), poolBytes);
  out.append(padding, '\0');
  out.append(tree_.data(), treeSize_);
  return out;
}

}  // namespace cce
