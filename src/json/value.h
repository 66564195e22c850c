// SPDX-License-Identifier: MIT
// json::Value: a JavaScript-shaped JSON document model (strings are UTF-16, objects keep insertion order).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace cce::json {

// The model mirrors what JSON.parse produces in JavaScript, because the engine must reproduce
// JavaScript's view of its input: strings are sequences of UTF-16 code units (lone surrogates
// included), numbers are doubles, and objects remember the order in which keys were inserted.
// JavaScript's own enumeration rule (integer-like keys first) is applied by the writer, not here,
// so that "spread then overwrite" logic can be written exactly as the reference does it.
enum class Kind { Null, Bool, Number, String, Array, Object };

struct Member;

struct Value {
  Kind kind = Kind::Null;
  bool boolean = false;
  double number = 0;
  std::u16string string;
  std::vector<Value> items;     // Kind::Array
  std::vector<Member> members;  // Kind::Object, insertion order, keys unique

#ifdef CCE_OUT_OF_LINE_JSON_VALUE
  // The size builds (wasm/CMakeLists.txt) define the special members in value.cpp instead of
  // inline: a Value holds a string and two vectors, and their destructors and moves inlined at
  // every use were 3.5 KB gzip of the session module (docs/boundary.md "The session module").
  Value();
  Value(const Value&);
  Value(Value&&) noexcept;
  Value& operator=(const Value&);
  Value& operator=(Value&&) noexcept;
  ~Value();
#endif

  static Value null() { return Value{}; }
  static Value fromBool(bool b) {
    Value v;
    v.kind = Kind::Bool;
    v.boolean = b;
    return v;
  }
  static Value fromNumber(double d) {
    Value v;
    v.kind = Kind::Number;
    v.number = d;
    return v;
  }
  static Value fromString(std::u16string s) {
    Value v;
    v.kind = Kind::String;
    v.string = std::move(s);
    return v;
  }
  static Value array() {
    Value v;
    v.kind = Kind::Array;
    return v;
  }
  static Value object() {
    Value v;
    v.kind = Kind::Object;
    return v;
  }

  bool isNull() const { return kind == Kind::Null; }
  bool isString() const { return kind == Kind::String; }
  bool isNumber() const { return kind == Kind::Number; }
  bool isBool() const { return kind == Kind::Bool; }
  bool isArray() const { return kind == Kind::Array; }
  bool isObject() const { return kind == Kind::Object; }

  /// Object member lookup; nullptr when absent or when this is not an object.
  const Value* find(std::u16string_view key) const;
  Value* find(std::u16string_view key);
  // A literal key. The size builds take its length inside, not at each of the many call sites
  // (-0.6 KB gzip of the context module); elsewhere the compiler folds it at the site.
#ifdef CCE_OUT_OF_LINE_JSON_VALUE
  const Value* find(const char16_t* key) const;
  Value* find(const char16_t* key);
#else
  const Value* find(const char16_t* key) const { return find(std::u16string_view(key)); }
  Value* find(const char16_t* key) { return find(std::u16string_view(key)); }
#endif

  /// JavaScript assignment `obj[key] = v`: overwrites in place (keeping the key's position) or
  /// appends. Precondition: isObject().
  void set(std::u16string_view key, Value v);

  /// Appends a member whose key this object does not have yet (the builders of answers).
  /// Out of line, with the common kinds built inside: one call at each of the builders' many
  /// sites instead of a key string, a member and their destructors (-0.3 KB gzip of the context
  /// module). A copy is written out, Value(v), at the sites that keep theirs: a by-value or a
  /// const& form made every site bigger (+0.4 KB and +44 bytes).
  void append(const char16_t* key, Value&& v);
  void appendNumber(const char16_t* key, double d);
  void appendBool(const char16_t* key, bool b);
  void appendString(const char16_t* key, std::u16string s);

  /// JavaScript truthiness of this value (objects and arrays are truthy; "" / 0 / NaN / null / false
  /// are not).
  bool truthy() const;
};

struct Member {
  std::u16string key;
  Value value;
};

/// Messages are shared, immutable JSON objects: the engine hands back the caller's own objects for
/// everything it leaves unchanged, and a shared pointer is the native equivalent of that identity.
using ValuePtr = std::shared_ptr<const Value>;

}  // namespace cce::json
