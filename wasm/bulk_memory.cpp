// SPDX-License-Identifier: MIT
// memcpy, memmove and memset of every wasm module, as the bulk-memory instructions memory.copy
// and memory.fill (this file is compiled with -mbulk-memory; wasm/CMakeLists.txt). Emscripten's
// libc ships them compiled for wasm without that feature: unrolled loops of loads and stores,
// and a call out to JS (copyWithin) for large copies, 1.2 KB of wasm and an import, where one
// instruction each does the same work natively. Defined here, they take the place of libc's
// (the linker takes a symbol from an archive only when no object defines it): -0.5 KB gzip of
// cce.wasm, at the same speed. Every runtime the package supports has had bulk memory since
// 2020-2021 (Chrome 75, Firefox 79, Safari 15, Node 12.5, Deno, workerd).
#include <cstddef>

extern "C" {

// memmove's instruction serves memcpy too: memory.copy allows overlap, and costs nothing more.
void* memcpy(void* __restrict to, const void* __restrict from, std::size_t n) {
  __builtin_memmove(to, from, n);
  return to;
}

void* memmove(void* to, const void* from, std::size_t n) {
  __builtin_memmove(to, from, n);
  return to;
}

void* memset(void* to, int value, std::size_t n) {
  __builtin_memset(to, value, n);
  return to;
}

// And strlen as a plain loop: libc's reads a word at a time, four times the code, for the few
// short strings measured here (embind's names at start-up, error texts). The file is compiled
// with -fno-builtin, so the loop is not recognised as strlen and turned back into a call to it.
std::size_t strlen(const char* s) {
  const char* end = s;
  while (*end != '\0') ++end;
  return static_cast<std::size_t>(end - s);
}

}  // extern "C"
