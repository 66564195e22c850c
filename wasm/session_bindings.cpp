// SPDX-License-Identifier: MIT
// embind registrations of the session module (context manager, compaction); no logic lives here.
//
// A second module beside cce.wasm: these entry points take JSON requests and so link RapidJSON,
// which the compress module leaves out to keep every compress user's download small.
#include <emscripten/bind.h>

#include <string>

#include "cce.h"
#include "compaction/compaction_json.h"
#include "context/context_json.h"

EMSCRIPTEN_BINDINGS(cce_session) {
  emscripten::function("contextJson",
                       +[](const std::string& request) { return cce::contextJson(request); });
  emscripten::function("compactionJson",
                       +[](const std::string& request) { return cce::compactionJson(request); });
  emscripten::function("version", +[] { return std::string(cce::version()); });
  // Executes `unreachable`, so the JS tests can check recovery from a real trap.
  emscripten::function("debugTrap", +[] { __builtin_trap(); });
}
