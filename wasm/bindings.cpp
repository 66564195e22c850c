// SPDX-License-Identifier: MIT
// embind registrations of the stateless entry points of cce.h; no logic lives here.
#include <emscripten/bind.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "answer.h"
#include "cce.h"
#include "token_estimate.h"

namespace {

// Both compress builds load through one glue, which names the module's exports in the order the
// linker first meets their symbols. The speed build's free (dlmalloc's) was first met in RapidJSON's
// allocator; with RapidJSON gone from the engine, this reference keeps it ahead of malloc and the
// function table, the order of the size build (size_class_heap.cpp), so the glues stay identical.
__attribute__((used)) void (*const freeFirst)(void*) = &std::free;

// Requests are binary (docs/boundary.md "Bytes requests"), written by the JS layer straight into
// wasm memory, which it owns and frees. Only the bytes entry points are bound: the JSON request
// path (and with it the JSON parser) stays out of the module.
std::string_view bytes(std::uintptr_t pointer, std::size_t length) {
  return {reinterpret_cast<const char*>(pointer), length};
}

// Every binding of this module takes and returns numbers only: embind_types.cpp registers just
// those types; answers go back through cce::wasm::keep (answer.h).
using cce::wasm::keep;

}  // namespace

EMSCRIPTEN_BINDINGS(cce) {
  emscripten::function("compressBytes", +[](std::uintptr_t pointer, std::size_t length,
                                            std::uintptr_t extra, std::size_t extraLength) {
    return keep(cce::compressBytes(bytes(pointer, length), bytes(extra, extraLength)));
  });
  emscripten::function("uncompressBytes", +[](std::uintptr_t pointer, std::size_t length,
                                              std::uintptr_t extra, std::size_t extraLength) {
    return keep(cce::uncompressBytes(bytes(pointer, length), bytes(extra, extraLength)));
  });
  // The default mode's estimate of a UTF-16 text the JS layer wrote into memory. A whole number
  // (estimateTokens rounds up), at most a few per unit of a text that fits in wasm32 memory, so it
  // crosses as an unsigned long: no double type for embind to register and convert.
  emscripten::function("estimateTokensUtf16", +[](std::uintptr_t pointer, std::size_t length) {
    return static_cast<unsigned long>(
        cce::estimateTokens({reinterpret_cast<const char16_t*>(pointer), length}));
  });
  // Texts, located like the envelopes (ASCII).
  emscripten::function("version", +[] { return keep(cce::version()); });
  // "size" (cce.wasm) or "speed" (cce-fast.wasm): which build of the same engine is loaded.
  emscripten::function("build", +[] { return keep(CCE_WASM_BUILD); });
}
