// SPDX-License-Identifier: MIT
// A JSON text held in a string value, read by the engine's own JSON reader. The wasm session
// modules define parseJsonText themselves (wasm/host_json.cpp: the host's JSON.parse), so this
// file, and with it the reader, stays out of them.
#include "jscompat/string.h"
#include "json_io.h"

namespace cce {

Result<json::Value> parseJsonText(std::u16string_view text) { return parseJson(js::toUtf8(text)); }

}  // namespace cce
