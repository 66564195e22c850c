// SPDX-License-Identifier: MIT
// json::Value member lookup, JavaScript-style assignment and truthiness.
#include "json/value.h"

#include <cmath>

namespace cce::json {

#ifdef CCE_OUT_OF_LINE_JSON_VALUE
Value::Value() = default;
Value::Value(const Value&) = default;
Value::Value(Value&&) noexcept = default;
// A copy, then a move: the size builds then have no copy assignment of the vectors and strings
// inside (their copy constructors and moves are there anyway): -0.2 KB gzip of the context module.
Value& Value::operator=(const Value& other) {
  if (this != &other) *this = Value(other);
  return *this;
}
Value& Value::operator=(Value&&) noexcept = default;
Value::~Value() = default;

const Value* Value::find(const char16_t* key) const { return find(std::u16string_view(key)); }

Value* Value::find(const char16_t* key) { return find(std::u16string_view(key)); }
#endif

const Value* Value::find(std::u16string_view key) const {
  if (kind != Kind::Object) return nullptr;
  for (const Member& m : members) {
    if (m.key == key) return &m.value;
  }
  return nullptr;
}

Value* Value::find(std::u16string_view key) {
  return const_cast<Value*>(static_cast<const Value*>(this)->find(key));
}

void Value::set(std::u16string_view key, Value v) {
  if (Value* existing = find(key)) {
    *existing = std::move(v);
    return;
  }
  members.push_back(Member{std::u16string(key), std::move(v)});
}

void Value::append(const char16_t* key, Value&& v) {
  members.push_back(Member{std::u16string(key), std::move(v)});
}

void Value::appendNumber(const char16_t* key, double d) { append(key, fromNumber(d)); }

void Value::appendBool(const char16_t* key, bool b) { append(key, fromBool(b)); }

void Value::appendString(const char16_t* key, std::u16string s) {
  append(key, fromString(std::move(s)));
}

bool Value::truthy() const {
  switch (kind) {
    case Kind::Null:
      return false;
    case Kind::Bool:
      return boolean;
    case Kind::Number:
      return number != 0 && !std::isnan(number);
    case Kind::String:
      return !string.empty();
    case Kind::Array:
    case Kind::Object:
      return true;
  }
  return false;
}

}  // namespace cce::json
