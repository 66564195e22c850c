// SPDX-License-Identifier: MIT
// A strict JSON text validator over UTF-16 with exactly the acceptance of JavaScript `JSON.parse`.
//
// RFC 8259 / ECMA-404: whitespace between tokens is only space, tab, LF and CR; strings reject raw
// code units below U+0020 but accept any other unit, lone surrogates included; duplicate keys are
// fine; numbers are `-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?`. The parser keeps its nesting on a heap
// stack, so arbitrarily deep input cannot overflow the (small, in wasm) call stack.
#pragma once

#include <string_view>

namespace cce::match {

/// True when `JSON.parse(text)` would succeed (one value, optional JSON whitespace around it).
bool isJsonText(std::u16string_view text);

}  // namespace cce::match
