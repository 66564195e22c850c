// SPDX-License-Identifier: MIT
// JSON text and tagged binary writers of engine answers (answer_writer.h).
#include "answer_writer.h"

#include <cmath>
#include <cstring>

#include "jscompat/json_writer.h"
#include "jscompat/number.h"
#include "jscompat/string.h"

namespace cce {

bool hasLoneSurrogate(std::u16string_view s) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char16_t c = s[i];
    if ((c & 0xF800) != 0xD800) continue;
    if (c <= 0xDBFF && i + 1 < s.size() && (s[i + 1] & 0xFC00) == 0xDC00) {
      ++i;  // a well-formed pair
      continue;
    }
    return true;
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
  out_ += std::to_string(n);
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

void JsonAnswer::beginArray() {
  beforeValue();
  out_ += '[';
  first_.push_back(true);
}

void JsonAnswer::endArray() {
  first_.pop_back();
  out_ += ']';
}

void JsonAnswer::beginObject() {
  beforeValue();
  out_ += '{';
  first_.push_back(true);
}

void JsonAnswer::endObject() {
  first_.pop_back();
  out_ += '}';
}

void JsonAnswer::value(const json::Value& v) {
  beforeValue();
  js::writeJson(v, out_);
}

// ---- binary -------------------------------------------------------------------------------------

void BytesAnswer::word(std::uint32_t w) {
  char bytes[4];
  std::memcpy(bytes, &w, 4);  // wasm and every host this builds on are little-endian
  out_.append(bytes, 4);
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
  char bytes[8];
  std::memcpy(bytes, &d, 8);
  out_.append(bytes, 8);
}

void BytesAnswer::index(std::size_t n) {
  if (n > 0xFFFFFFFFu) return number(static_cast<double>(n));
  tagged(AnswerTag::Index);
  word(static_cast<std::uint32_t>(n));
}

void BytesAnswer::string(std::u16string_view s) {
  tagged(hasLoneSurrogate(s) ? AnswerTag::LoneString : AnswerTag::String);
  word(static_cast<std::uint32_t>(s.size()));
  const std::size_t bytes = s.size() * 2;
  out_.append(reinterpret_cast<const char*>(s.data()), bytes);
  if (bytes % 4 != 0) out_.append(2, '\0');
}

void BytesAnswer::utf8(std::string_view s) { string(js::fromUtf8(s)); }

void BytesAnswer::open(AnswerTag tag) {
  tagged(tag);
  open_.push_back({out_.size(), 0});
  word(0);  // the count, patched by close()
}

void BytesAnswer::close() {
  const Open& o = open_.back();
  std::memcpy(&out_[o.countAt], &o.count, 4);
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

}  // namespace cce
