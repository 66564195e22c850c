// SPDX-License-Identifier: MIT
// Inlining hints for hot helpers. The wasm build inlines with a low threshold (wasm/CMakeLists.txt)
// to stay small; a per-unit helper it leaves out of line then costs a call for every UTF-16 unit.
#pragma once

#if defined(__GNUC__) || defined(__clang__)
#define CCE_ALWAYS_INLINE inline __attribute__((always_inline))
#define CCE_NOINLINE __attribute__((noinline))
#else
#define CCE_ALWAYS_INLINE inline
#define CCE_NOINLINE
#endif
