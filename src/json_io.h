// SPDX-License-Identifier: MIT
// JSON text -> json::Value, with the engine's own reader (json_io.cpp).
//
// Strings become UTF-16 exactly as JSON.parse would produce them: escaped lone surrogates
// (`\ud83d` without its pair, as JSON.stringify writes them) survive, as JSON.parse keeps them.
// Duplicate keys keep the first position and the last value, as in JavaScript. Numbers are read
// exactly (the nearest double, js::decimalToDouble); values that overflow to +-Infinity are
// rejected (JSON.parse would accept them, but the engine refuses non-finite numbers). Nesting
// deeper than `kMaxJsonDepth` is rejected with InputTooLarge instead of exhausting the stack.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "json/value.h"
#include "status.h"

namespace cce {

constexpr std::size_t kMaxJsonDepth = 512;

Result<json::Value> parseJson(std::string_view utf8Text);

/// A JSON text held in a string value (a tool call's `arguments`), read as JSON.parse reads it;
/// an error when it is not JSON. Natively parseJson over its UTF-8 (json_text.cpp); the wasm
/// session modules ask their host's JSON.parse (wasm/host_json.cpp), which has no depth limit
/// of its own, so their value bytes reader applies kMaxJsonDepth. Objects come back with their
/// keys in JavaScript's enumeration order there (integer-like keys first), in the text's order
/// here.
Result<json::Value> parseJsonText(std::u16string_view text);

}  // namespace cce
