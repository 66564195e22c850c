// SPDX-License-Identifier: MIT
// Byte-exact JSON.stringify of a json::Value (spec §12.8-9).
//
// Escapes exactly as JavaScript: \" \\ \b \f \n \r \t, other controls as lower-case \u00xx, lone
// surrogates as \udxxx, everything else raw UTF-8. Numbers use JS number-to-string (non-finite
// numbers become null). Object keys are written in JS enumeration order: integer-like keys
// (canonical decimal 0..2^32-2) first in ascending numeric order, then the rest in insertion order.
#pragma once

#include <string>

#include "json/value.h"

namespace cce::js {

/// Appends JSON.stringify(value) to `out`.
void writeJson(const json::Value& value, std::string& out);
std::string toJson(const json::Value& value);

/// Appends a JSON string literal (with quotes) for a UTF-16 string.
void writeJsonString(std::u16string_view s, std::string& out);

/// True for canonical array-index keys ("0", "17", "4294967294"; not "01", not "4294967295").
bool isIntegerLikeKey(std::u16string_view key);

}  // namespace cce::js
