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
    json::Value v = value(0);
    if (problem_.empty() && at_ != bytes_.size()) problem_ = "trailing bytes";
    if (!problem_.empty()) return Error{ErrorCode::Internal, problem_, std::to_string(at_)};
    return v;
  }

  /// The tag of the next string read (String or LoneString), for tests of the tagging.
  AnswerTag lastStringTag() const { return lastStringTag_; }

 private:
  bool need(std::size_t n) {
    if (bytes_.size() - at_ >= n) return true;
    if (problem_.empty()) problem_ = "truncated";
    return false;
  }
  std::uint32_t word() {
    std::uint32_t w = 0;
    if (!need(4)) return 0;
    std::memcpy(&w, bytes_.data() + at_, 4);
    at_ += 4;
    return w;
  }
  std::u16string units(AnswerTag tag) {
    lastStringTag_ = tag;
    const std::uint32_t n = word();
    const std::size_t padded = (static_cast<std::size_t>(n) * 2 + 3) / 4 * 4;
    if (!need(padded)) return {};
    std::u16string s(n, u'\0');
    std::memcpy(s.data(), bytes_.data() + at_, static_cast<std::size_t>(n) * 2);
    for (std::size_t i = static_cast<std::size_t>(n) * 2; i < padded; ++i) {
      if (bytes_[at_ + i] != '\0' && problem_.empty()) problem_ = "non-zero padding";
    }
    at_ += padded;
    // The tag must say whether the string is well-formed: the host decodes by it.
    if ((tag == AnswerTag::LoneString) != hasLoneSurrogate(s) && problem_.empty()) {
      problem_ = "string tag does not match its surrogates";
    }
    return s;
  }
  json::Value value(int depth) {
    if (depth > 64) {
      problem_ = "nested too deep";
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
      case AnswerTag::String:
      case AnswerTag::LoneString: return json::Value::fromString(units(tag));
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
          const auto keyTag = static_cast<AnswerTag>(word());
          if (keyTag != AnswerTag::String && keyTag != AnswerTag::LoneString) {
            if (problem_.empty()) problem_ = "object key is not a string";
            break;
          }
          std::u16string key = units(keyTag);
          o.members.push_back({std::move(key), value(depth + 1)});
        }
        return o;
      }
    }
    if (problem_.empty()) problem_ = "unknown tag " + std::to_string(static_cast<std::uint32_t>(tag));
    return json::Value::null();
  }

  std::string_view bytes_;
  std::size_t at_ = 0;
  std::string problem_;
  AnswerTag lastStringTag_ = AnswerTag::String;
};

}  // namespace cce::test
