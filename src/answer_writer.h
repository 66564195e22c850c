// SPDX-License-Identifier: MIT
// The two encodings of an engine answer behind one writing interface, so that every envelope is
// written once: JSON text (compressJson / uncompressJson: the CLI and the native tests) and tagged
// binary (compressBytes / uncompressBytes: the wasm boundary, docs/boundary.md "Bytes answers").
//
// The binary form exists for the JS host's sake: it reads numbers as doubles and strings as UTF-16
// straight from wasm memory, where JSON would cost the engine escaping, UTF-8 encoding and number
// formatting, and the host a TextDecoder pass plus JSON.parse.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "json/value.h"

namespace cce {

/// Tags of the binary answer: every value starts with one word.
enum class AnswerTag : std::uint32_t {
  Null = 0,
  False = 1,
  True = 2,
  Number = 3,       // then a float64
  Index = 4,        // then a word: a non-negative integer below 2^32
  String = 5,       // then a word n and n UTF-16 units, zero-padded to a multiple of 4 bytes
  LoneString = 6,   // the same layout, for a string holding at least one lone surrogate
  Array = 7,        // then a word n and n values
  Object = 8,       // then a word n and n (String or LoneString key, value) pairs
};

/// Writes JSON text exactly as the JS host's JSON.stringify would (json_writer.h).
class JsonAnswer {
 public:
  void null();
  void boolean(bool b);
  void number(double d);
  void index(std::size_t n);
  void string(std::u16string_view s);
  /// A UTF-8 string (error messages and paths).
  void utf8(std::string_view s);
  void key(std::u16string_view k);
  void beginArray();
  void endArray();
  void beginObject();
  void endObject();
  /// Any JSON value, as JSON.stringify writes it (keys in JS enumeration order).
  void value(const json::Value& v);

  std::string take() { return std::move(out_); }

 private:
  void beforeValue();

  std::string out_;
  std::vector<bool> first_;  // per open container: nothing written in it yet
  bool afterKey_ = false;
};

/// Writes the tagged binary form: little-endian words, every value 4-byte aligned.
class BytesAnswer {
 public:
  void null() { tagged(AnswerTag::Null); }
  void boolean(bool b) { tagged(b ? AnswerTag::True : AnswerTag::False); }
  void number(double d);
  void index(std::size_t n);
  void string(std::u16string_view s);
  void utf8(std::string_view s);
  /// A member's key; the member's value follows. Objects count members, not keys and values.
  void key(std::u16string_view k) {
    string(k);
    afterKey_ = true;
  }
  void beginArray() { open(AnswerTag::Array); }
  void endArray() { close(); }
  void beginObject() { open(AnswerTag::Object); }
  void endObject() { close(); }
  void value(const json::Value& v);

  std::string take() { return std::move(out_); }

 private:
  void word(std::uint32_t w);
  void tagged(AnswerTag tag);
  void open(AnswerTag tag);
  void close();

  std::string out_;
  // Per open container: where its count word is and how many values (or members) it holds yet.
  struct Open {
    std::size_t countAt;
    std::uint32_t count;
  };
  std::vector<Open> open_;
  bool afterKey_ = false;
};

/// True when `s` holds a surrogate code unit that is not half of a well-formed pair.
bool hasLoneSurrogate(std::u16string_view s);

}  // namespace cce
