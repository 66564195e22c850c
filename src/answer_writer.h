// SPDX-License-Identifier: MIT
// The two encodings of an engine answer behind one writing interface, so that every envelope is
// written once: JSON text (compressJson / uncompressJson: the CLI and the native tests) and binary
// (compressBytes / uncompressBytes: the wasm boundary, docs/boundary.md "Bytes answers").
//
// The binary form exists for the JS host's sake. JSON costs the engine escaping, UTF-8 encoding
// and number formatting, and the host a TextDecoder pass plus JSON.parse. In the binary form
// numbers are doubles, every string is a slice of one UTF-16 pool that the host decodes in a single
// call, and object keys are indices into a vocabulary both sides know, so the host's objects get
// their keys as constants (as JSON.parse's do) instead of as freshly decoded strings.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "json/value.h"
#include "status.h"

namespace cce {

/// Tags of the binary answer: every value starts with one word.
enum class AnswerTag : std::uint32_t {
  Null = 0,
  False = 1,
  True = 2,
  Number = 3,  // then a float64
  Index = 4,   // then a word: a non-negative integer below 2^32
  String = 5,  // then two words: offset and length in the pool, in UTF-16 units
  Array = 7,   // then a word n and n values
  Object = 8,  // then a word n and n (key, value) pairs; a key is a Key or a String
  Key = 9,     // then a word: an AnswerKey (only as an object key)
};

/// Bit 0 of the answer's flags word: the pool is not well-formed UTF-16 (some string holds a lone
/// surrogate), so the host must decode it unit by unit rather than with a UTF-16 decoder.
constexpr std::uint32_t kAnswerPoolHasLoneSurrogate = 1;

// The key vocabulary of every answer, in the order of its indices. js/src/transport.ts
// ANSWER_KEYS lists the same names in the same order (tests/answer_writer_test.cpp checks).
#define CCE_ANSWER_KEYS(X)                                                                      \
  X(ok) X(error) X(code) X(message) X(path) X(plan) X(pending) X(valid) X(messages)            \
  X(compression) X(verbatim) X(fits) X(tokenCount) X(recencyWindow) X(blocking) X(fastPath)   \
  X(s) X(c) X(o) X(m) X(t) X(src) X(summary_id) X(parent_ids) X(version) X(summaries) X(text) \
  X(counts) X(key) X(ids) X(k) X(messages_expanded) X(messages_passthrough) X(missing_ids)    \
  X(original_version) X(ratio) X(token_ratio) X(messages_compressed) X(messages_preserved)    \
  X(messages_deduped) X(messages_fuzzy_deduped) X(messages_truncated) X(messages_omitted)

enum class AnswerKey : std::uint32_t {
#define CCE_ANSWER_KEY_ENUM(name) name,
  CCE_ANSWER_KEYS(CCE_ANSWER_KEY_ENUM)
#undef CCE_ANSWER_KEY_ENUM
};

/// The key's text ("summary_id" for AnswerKey::summary_id).
std::u16string_view answerKeyName(AnswerKey key);
/// Every key, in index order.
const std::vector<std::u16string_view>& answerKeyNames();

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
  void key(AnswerKey k) { key(answerKeyName(k)); }
  void key(std::u16string_view k);
  void beginArray() { open('['); }
  void endArray() { close(']'); }
  void beginObject() { open('{'); }
  void endObject() { close('}'); }
  /// Any JSON value, as JSON.stringify writes it (keys in JS enumeration order).
  void value(const json::Value& v);

  std::string take() { return std::move(out_); }

 private:
  void beforeValue();
  void open(char bracket);
  void close(char bracket);

  std::string out_;
  std::vector<char> first_;  // per open container: nothing written in it yet
  bool afterKey_ = false;
};

/// Writes the binary form: word poolLength, word flags, the pool (UTF-16 units, zero-padded to a
/// multiple of 4 bytes), then one value. Little-endian words, every value 4-byte aligned.
class BytesAnswer {
 public:
  void null() { tagged(AnswerTag::Null); }
  void boolean(bool b) { tagged(b ? AnswerTag::True : AnswerTag::False); }
  void number(double d);
  void index(std::size_t n);
  void string(std::u16string_view s);
  void utf8(std::string_view s);
  void key(AnswerKey k);
  /// A key outside the vocabulary is sent as a string; one inside it as its index.
  void key(std::u16string_view k);
  void beginArray() { open(AnswerTag::Array); }
  void endArray() { close(); }
  void beginObject() { open(AnswerTag::Object); }
  void endObject() { close(); }
  void value(const json::Value& v);

  std::string take();

 private:
  char* room(std::size_t n);
  void word(std::uint32_t w);
  void tagged(AnswerTag tag);
  void open(AnswerTag tag);
  void close();

  std::u16string pool_;
  std::string tree_;  // its first treeSize_ bytes are written; the rest is room
  std::size_t treeSize_ = 0;
  // Per open container: where its count word is and how many values (or members) it holds yet.
  struct Open {
    std::size_t countAt;
    std::uint32_t count;
  };
  std::vector<Open> open_;
  bool afterKey_ = false;
};

/// {"ok":false,"error":{"code","message","path"}}, the bytes entry points' error answer. Its JSON
/// twin, errorEnvelope (envelope.h), stays hand-written: writing it through JsonAnswer would add
/// 1.5 KB gzip of writer and key vocabulary to the session module, which answers only in JSON.
/// request_bytes_test checks that both forms carry the same errors.
std::string bytesErrorAnswer(const Error& error);

/// True when `s` holds a surrogate code unit that is not half of a well-formed pair.
bool hasLoneSurrogate(std::u16string_view s);

}  // namespace cce
