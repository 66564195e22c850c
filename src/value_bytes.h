// SPDX-License-Identifier: MIT
// Value bytes: a JSON value as the session modules' JS layer writes it (docs/boundary.md "Value
// bytes"), so that those modules need no JSON reader.
//
// The JS layer holds every request as a JavaScript value already; writing that value's tree
// straight into wasm memory spares it JSON.stringify and a UTF-8 encoding, and spares the module
// a JSON reader (1.9 KB gzip of cce-context.wasm). Layout, in little-endian 32-bit words:
//   the magic word "CCV1", then one value;
//   a value is a tag word (ValueTag), then for Number a float64 (two words), for String a string,
//   for Array a count word and that many values, for Object a count word and that many members,
//   each a key (a string) and a value;
//   a string is a length word in UTF-16 units, the units, and zero padding to a whole word.
// Strings are UTF-16 as JavaScript holds them, lone surrogates included.
#pragma once

#include <cstdint>
#include <string_view>

#include "json/value.h"
#include "status.h"

namespace cce {

/// First word of value bytes ("CCV1" little-endian).
constexpr std::uint32_t kValueBytesMagic = 0x31564343u;

enum class ValueTag : std::uint32_t {
  Null = 0,
  False = 1,
  True = 2,
  Number = 3,
  String = 4,
  Array = 5,
  Object = 6,
};

/// The value `bytes` hold. Nesting deeper than kMaxJsonDepth (json_io.h) is InputTooLarge, as in
/// a JSON text. Bytes that are not value bytes (a short buffer, an unknown tag, bytes after the
/// value, a non-finite number) are InvalidInput: the JS layer never writes them, and reading
/// them stays within `bytes`.
Result<json::Value> readValueBytes(std::string_view bytes);

}  // namespace cce
