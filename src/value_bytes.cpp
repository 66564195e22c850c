// SPDX-License-Identifier: MIT
// Value bytes -> json::Value (layout in value_bytes.h).
#include "value_bytes.h"

#include <cmath>
#include <cstddef>
#include <cstring>
#include <string>
#include <utility>

#include "jscompat/string.h"
#include "json_io.h"

namespace cce {
namespace {

class ValueReader {
 public:
  explicit ValueReader(std::string_view bytes) : data_(bytes) {}

  bool word(std::uint32_t& out) {
    if (data_.size() - at_ < 4) return false;
    std::memcpy(&out, data_.data() + at_, 4);
    at_ += 4;
    return true;
  }

  bool string(std::u16string& out) {
    std::uint32_t units;
    if (!word(units)) return false;
    const std::size_t left = data_.size() - at_;
    if (units > left / 2) return false;
    const std::size_t padded = (static_cast<std::size_t>(units) * 2 + 3) & ~std::size_t{3};
    if (padded > left) return false;
    out.resize(units);
    std::memcpy(&out[0], data_.data() + at_, static_cast<std::size_t>(units) * 2);
    at_ += padded;
    return true;
  }

  // Recursion bounded by kMaxJsonDepth, as the JSON reader's.
  bool value(json::Value& out, std::size_t depth) {
    std::uint32_t tag;
    if (!word(tag)) return false;
    switch (static_cast<ValueTag>(tag)) {
      case ValueTag::Null:
        return true;
      case ValueTag::False:
      case ValueTag::True:
        out = json::Value::fromBool(tag == static_cast<std::uint32_t>(ValueTag::True));
        return true;
      case ValueTag::Number: {
        if (data_.size() - at_ < 8) return false;
        out.kind = json::Kind::Number;
        std::memcpy(&out.number, data_.data() + at_, 8);
        at_ += 8;
        return std::isfinite(out.number);
      }
      case ValueTag::String:
        out.kind = json::Kind::String;
        return string(out.string);
      case ValueTag::Array:
      case ValueTag::Object: {
        if (depth >= kMaxJsonDepth) {
          tooDeep_ = true;
          return false;
        }
        const bool object = tag == static_cast<std::uint32_t>(ValueTag::Object);
        out.kind = object ? json::Kind::Object : json::Kind::Array;
        std::uint32_t count;
        // Every entry takes at least one word: a larger count cannot be in the bytes.
        if (!word(count) || count > (data_.size() - at_) / 4) return false;
        for (std::uint32_t i = 0; i < count; ++i) {
          if (object) {
            out.members.emplace_back();
            if (!string(out.members.back().key) || !value(out.members.back().value, depth + 1)) {
              return false;
            }
          } else {
            out.items.emplace_back();
            if (!value(out.items.back(), depth + 1)) return false;
          }
        }
        return true;
      }
    }
    return false;
  }

  bool atEnd() const { return at_ == data_.size(); }
  bool tooDeep() const { return tooDeep_; }

 private:
  std::string_view data_;
  std::size_t at_ = 0;
  bool tooDeep_ = false;
};

}  // namespace

Result<json::Value> readValueBytes(std::string_view bytes) {
  ValueReader reader(bytes);
  std::uint32_t magic = 0;
  json::Value out;
  if (reader.word(magic) && magic == kValueBytesMagic && reader.value(out, 0) && reader.atEnd()) {
    return out;
  }
  if (reader.tooDeep()) {
    return Error{ErrorCode::InputTooLarge,
                 "JSON nesting is deeper than the limit of " + js::decimalAscii(kMaxJsonDepth) +
                     " levels",
                 ""};
  }
  return Error{ErrorCode::InvalidInput, "malformed value bytes", ""};
}

}  // namespace cce
