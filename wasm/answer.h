// SPDX-License-Identifier: MIT
// The answer of the last call of a wasm module, read by JS straight from memory as
// {pointer, length}: embind's std::string return would scan every byte for NULs in JS, twice, and
// the session modules have no embind at all. Only an output buffer: it is replaced by the next
// call and no call reads it. Each module includes this once (wasm/bindings.cpp,
// wasm/session_bindings.cpp), so each has one buffer of its own.
#pragma once

#include <cstdint>
#include <string>

namespace cce::wasm {

inline std::string answer;
inline std::uint32_t answerView[2];

/// Keeps `envelope` until the next call and returns the address of its {pointer, length}.
inline std::uintptr_t keep(std::string envelope) {
  answer = std::move(envelope);
  answerView[0] = static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(answer.data()));
  answerView[1] = static_cast<std::uint32_t>(answer.size());
  return reinterpret_cast<std::uintptr_t>(answerView);
}

}  // namespace cce::wasm
