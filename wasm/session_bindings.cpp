// SPDX-License-Identifier: MIT
// The session module's exports (context manager, compaction); no logic lives here.
//
// Built three times (wasm/CMakeLists.txt): cce-session.wasm with both entry points
// (cce-wasm/session/init), cce-context.wasm with contextRequest only (cce-wasm/context) and
// cce-compaction.wasm with compactionRequest only (cce-wasm/compaction), so that each entry
// downloads only the engine it runs. Plain C exports that take and return numbers, not embind:
// js/src/session-load.ts writes the request as value bytes (src/value_bytes.h) into memory it
// allocates with malloc and reads the UTF-8 JSON answer located by the two words the call
// returns. Without embind's JS runtime and string marshalling the glue is about half as large,
// and without JSON requests the module has no JSON reader.
#include <emscripten/emscripten.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "answer.h"
#include "cce.h"
#include "compaction/compaction_json.h"
#include "context/context_json.h"
#include "envelope.h"
#include "value_bytes.h"

#if !defined(CCE_SESSION_CONTEXT) || !defined(CCE_SESSION_COMPACTION)
#error "CCE_SESSION_CONTEXT and CCE_SESSION_COMPACTION (0 or 1) say which entry points to build"
#endif

namespace {

using cce::Result;
using cce::wasm::keep;  // answer.h
namespace json = cce::json;

// The request's value bytes, read; an error envelope when they are not value bytes (the JS layer
// writes nothing else) or nest too deeply.
Result<json::Value> request(const char* pointer, std::size_t length) {
  return cce::readValueBytes({pointer, length});
}

}  // namespace

extern "C" {

#if CCE_SESSION_CONTEXT
// One context-manager request (value bytes, `length` bytes at `pointer`) in; the address of
// {pointer, length} of its UTF-8 JSON envelope out (never fails: errors are envelopes).
EMSCRIPTEN_KEEPALIVE std::uintptr_t contextRequest(const char* pointer, std::size_t length) {
  Result<json::Value> read = request(pointer, length);
  if (!read) return keep(cce::errorEnvelope(read.error()));
  // Without "fold" and "unfold": the JS layer does them (js/src/tool-chains.ts), and they were
  // 3.9 KB gzip of cce-context.wasm and of cce-session.wasm.
  return keep(cce::contextRequest(std::move(read.value()), {nullptr, nullptr}));
}
#endif

#if CCE_SESSION_COMPACTION
// The same for one compaction request.
EMSCRIPTEN_KEEPALIVE std::uintptr_t compactionRequest(const char* pointer, std::size_t length) {
  Result<json::Value> read = request(pointer, length);
  if (!read) return keep(cce::errorEnvelope(read.error()));
  return keep(cce::compactionRequest(std::move(read.value())));
}
#endif

// The engine version (ASCII), located the same way.
EMSCRIPTEN_KEEPALIVE std::uintptr_t version() { return keep(cce::version()); }

// Executes `unreachable`, so the JS tests can check recovery from a real trap.
EMSCRIPTEN_KEEPALIVE void debugTrap() { __builtin_trap(); }

}  // extern "C"
