// SPDX-License-Identifier: MIT
// embind registrations of the stateless JSON entry points of cce.h; no logic lives here.
#include <emscripten/bind.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "cce.h"

namespace {

// The byte variants read a UTF-8 request that JS wrote into the heap with TextEncoder.encodeInto
// (JS owns and frees the buffer); they exist only because embind's own std::string copy is slow.
std::string_view bytes(std::uintptr_t pointer, std::size_t length) {
  return {reinterpret_cast<const char*>(pointer), length};
}

}  // namespace

EMSCRIPTEN_BINDINGS(cce) {
  emscripten::function("compressJson",
                       +[](const std::string& request) { return cce::compressJson(request); });
  emscripten::function("uncompressJson",
                       +[](const std::string& request) { return cce::uncompressJson(request); });
  emscripten::function("compressBytes", +[](std::uintptr_t pointer, std::size_t length) {
    return cce::compressJson(bytes(pointer, length));
  });
  emscripten::function("uncompressBytes", +[](std::uintptr_t pointer, std::size_t length) {
    return cce::uncompressJson(bytes(pointer, length));
  });
  emscripten::function("errorCodesJson", &cce::errorCodesJson);
  emscripten::function("version", +[] { return std::string(cce::version()); });
  // Executes `unreachable`, so the JS tests can check recovery from a real trap.
  emscripten::function("debugTrap", +[] { __builtin_trap(); });
}
