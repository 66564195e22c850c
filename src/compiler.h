// SPDX-License-Identifier: MIT
// Inlining hints. The wasm build inlines with a low threshold (wasm/CMakeLists.txt) to stay small;
// a per-unit helper it leaves out of line then costs a call for every UTF-16 unit. The other way
// round, error constructors called from many checks are kept out of line (CCE_COLD): inlined, each
// check carried its own copy of the string building.
#pragma once

#if defined(__GNUC__) || defined(__clang__)
#define CCE_ALWAYS_INLINE inline __attribute__((always_inline))
#define CCE_NOINLINE __attribute__((noinline))
#define CCE_COLD __attribute__((noinline, cold))
#else
#define CCE_ALWAYS_INLINE inline
#define CCE_NOINLINE
#define CCE_COLD
#endif
