// SPDX-License-Identifier: MIT
// JavaScript truthiness and `===` for the scalar views of ids and roles; Message's special members.
#include "types.h"

namespace cce {

bool Scalar::truthy() const {
  switch (kind) {
    case Kind::Missing:
    case Kind::Null: return false;
    case Kind::Bool: return text == u"true";
    case Kind::Number: return text != u"0" && text != u"NaN";
    case Kind::String: return !text.empty();
    case Kind::Composite: return true;
  }
  return false;
}

bool Scalar::strictEquals(const Scalar& other) const {
  if (kind != other.kind) return false;
  switch (kind) {
    case Kind::Missing:
    case Kind::Null: return true;
    case Kind::Number: return text == other.text && text != u"NaN";
    case Kind::Bool:
    case Kind::String: return text == other.text;
    case Kind::Composite: return false;  // distinct objects are never === (identity)
  }
  return false;
}

Message::Message() = default;
Message::~Message() = default;
Message::Message(const Message&) = default;
Message::Message(Message&&) noexcept = default;
Message& Message::operator=(const Message&) = default;
Message& Message::operator=(Message&&) noexcept = default;

}  // namespace cce
