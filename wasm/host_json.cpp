// SPDX-License-Identifier: MIT
// parseJsonText (json_io.h) for the session modules: their host's JSON.parse, whose semantics the
// engine's JSON reader reproduces natively. With the requests read from value bytes
// (session_bindings.cpp), this leaves the reader out of the modules.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "json_io.h"
#include "value_bytes.h"

// wasm/host_imports.js: JSON.parse of the `length` UTF-16 units at `text`, written as value bytes
// into a block of malloc'd memory that starts with their length word; 0 when the text is not
// JSON (or holds a number JSON.parse reads as infinite, which the engine's reader refuses).
extern "C" std::uintptr_t cce_host_parse_json(const char16_t* text, std::size_t length);

namespace cce {

Result<json::Value> parseJsonText(std::u16string_view text) {
  const std::uintptr_t block = cce_host_parse_json(text.data(), text.size());
  if (block == 0) return Error{ErrorCode::InvalidInput, "not JSON", ""};
  const char* at = reinterpret_cast<const char*>(block);
  std::uint32_t length;
  std::memcpy(&length, at, 4);
  Result<json::Value> parsed = readValueBytes({at + 4, length});
  std::free(reinterpret_cast<void*>(block));
  return parsed;
}

}  // namespace cce
