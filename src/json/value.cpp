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
