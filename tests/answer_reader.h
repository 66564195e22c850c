// SPDX-License-Identifier: MIT
// A strict reader of binary answers (answer_writer.h) for the tests: what js/src/transport.ts
// decodes, as a json::Value, failing on anything the format does not allow.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "answer_writer.h"
#include "json/value.h"
#include "status.h"

namespace cce::test {

class AnswerReader {
 public:
  explicit AnswerReader(std::string_view bytes) : bytes_(bytes) {}

  /// The one value the answer holds; an error when it is malformed or followed by more bytes.
  Result<json::Value> read() {
    const std::uint32_t poolLength = word();
    flags_ = word();
    const std::size_t poolBytes = (static_cast<std::size_t>(poolLength) * 2 + 3) / 4 * 4;
    if (need(poolBytes)) {
      pool_.assign(poolLength, u'\0');
      std::memcpy(pool_.data(), bytes_.data() + at_, static_cast<std::size_t>(poolLength) * 2);
      for (std::size_t i = static_cast<std::size_t>(poolLength) * 2; i < poolBytes; ++i) {
        if (bytes_[at_ + i] != '\0') fail("non-zero padding");
      }
      at_ += poolBytes;
    }
    // The flag must say whether the pool is well-formed: the host picks its decoder by it.
    if (((flags_ & kAnswerPoolHasLoneSurrogate) != 0) != hasLoneSurrogate(pool_)) {
      fail("pool flag does not match the pool");
    }
    if ((flags_ & ~kAnswerPoolHasLoneSurrogate) != 0) fail("unknown flags");
    json::Value v = value(0);
    if (at_ != bytes_.size()) fail("trailing bytes");
    if (!problem_.empty()) return Error{ErrorCode::Internal, problem_, std::to_string(at_)};
    return v;
  }

  std::uint32_t flags() const { return flags_; }
  const std::u16string& pool() const { return pool_; }

 private:
  void fail(const char* problem) {
    if (problem_.empty()) problem_ = problem;
  }
  bool need(std::size_t n) {
    if (bytes_.size() - at_ >= n) return true;
    fail("truncated");
    return false;
  }
  std::uint32_t word() {
    std::uint32_t w = 0;
    if (!need(4)) return 0;
    std::memcpy(&w, bytes_.data() + at_, 4);
    at_ += 4;
    return w;
  }
  std::u16string string() {
    const std::uint32_t offset = word();
    const std::uint32_t length = word();
    if (offset > pool_.size() || length > pool_.size() - offset) {
      fail("string outside the pool");
      return {};
    }
    return pool_.substr(offset, length);
  }
  json::Value value(int depth) {
    if (depth > 64) {
      fail("nested too deep");
      return json::Value::null();
    }
    const auto tag = static_cast<AnswerTag>(word());
    switch (tag) {
      case AnswerTag::Null: return json::Value::null();
      case AnswerTag::False: return json::Value::fromBool(false);
      case AnswerTag::True: return json::Value::fromBool(true);
      case AnswerTag::Number: {
        double d = 0;
        if (need(8)) {
          std::memcpy(&d, bytes_.data() + at_, 8);
          at_ += 8;
        }
        return json::Value::fromNumber(d);
      }
      case AnswerTag::Index: return json::Value::fromNumber(word());
      case AnswerTag::String: return json::Value::fromString(string());
      case AnswerTag::Array: {
        json::Value a = json::Value::array();
        const std::uint32_t n = word();
        for (std::uint32_t i = 0; i < n && problem_.empty(); ++i) a.items.push_back(value(depth + 1));
        return a;
      }
      case AnswerTag::Object: {
        json::Value o = json::Value::object();
        const std::uint32_t n = word();
        for (std::uint32_t i = 0; i < n && problem_.empty(); ++i) {
          std::u16string key;
          const auto keyTag = static_cast<AnswerTag>(word());
          if (keyTag == AnswerTag::Key) {
            const std::uint32_t k = word();
            if (k >= answerKeyNames().size()) {
              fail("unknown key");
              break;
            }
            key = answerKeyNames()[k];
          } else if (keyTag == AnswerTag::String) {
            key = string();
          } else {
            fail("object key is neither a Key nor a String");
            break;
          }
          o.members.push_back({std::move(key), value(depth + 1)});
        }
        return o;
      }
      case AnswerTag::Key: break;  // only as an object key
    }
    fail("unknown tag");
    return json::Value::null();
  }

  std::string_view bytes_;
  std::size_t at_ = 0;
  std::uint32_t flags_ = 0;
  std::u16string pool_;
  std::string problem_;
};

}  // namespace cce::test
