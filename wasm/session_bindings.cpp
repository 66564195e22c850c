// SPDX-License-Identifier: MIT
// The session module's exports (context manager, compaction); no logic lives here.
//
// Built three times (wasm/CMakeLists.txt): cce-session.wasm with both entry points
// (cce-wasm/session/init), cce-context.wasm with contextJson only (cce-wasm/context) and
// cce-compaction.wasm with compactionJson only (cce-wasm/compaction), so that each entry downloads
// only the engine it runs. Modules beside cce.wasm: these entry points take JSON requests, which the compress
// module leaves out to keep every compress user's download small. Plain C exports that take and
// return numbers, not embind: js/src/session-load.ts writes the UTF-8 request into memory it
// allocates with malloc and reads the answer located by the two words the call returns. Without
// embind's JS runtime and string marshalling the glue is about half as large.
#include <emscripten/emscripten.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "answer.h"
#include "cce.h"
#include "compaction/compaction_json.h"
#include "context/context_json.h"

#if !defined(CCE_SESSION_CONTEXT) || !defined(CCE_SESSION_COMPACTION)
#error "CCE_SESSION_CONTEXT and CCE_SESSION_COMPACTION (0 or 1) say which entry points to build"
#endif

namespace {

using cce::wasm::keep;  // answer.h

std::string_view request(const char* pointer, std::size_t length) { return {pointer, length}; }

}  // namespace

extern "C" {

#if CCE_SESSION_CONTEXT
// One context-manager request (UTF-8 JSON, `length` bytes at `pointer`) in; the address of
// {pointer, length} of its UTF-8 JSON envelope out (never fails: errors are envelopes).
EMSCRIPTEN_KEEPALIVE std::uintptr_t contextJson(const char* pointer, std::size_t length) {
  // Without "fold" and "unfold": the JS layer does them (js/src/tool-chains.ts), and they were
  // 3.9 KB gzip of cce-context.wasm and of cce-session.wasm.
  return keep(cce::contextJson(request(pointer, length), {nullptr, nullptr}));
}

#endif

#if CCE_SESSION_COMPACTION
// The same for one compaction request.
EMSCRIPTEN_KEEPALIVE std::uintptr_t compactionJson(const char* pointer, std::size_t length) {
  return keep(cce::compactionJson(request(pointer, length)));
}
#endif

// The engine version (ASCII), located the same way.
EMSCRIPTEN_KEEPALIVE std::uintptr_t version() { return keep(cce::version()); }

// Executes `unreachable`, so the JS tests can check recovery from a real trap.
EMSCRIPTEN_KEEPALIVE void debugTrap() { __builtin_trap(); }

}  // extern "C"
