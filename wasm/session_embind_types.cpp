// SPDX-License-Identifier: MIT
// The binding types of the session module, registered here instead of by libembind, which
// registers every built-in type at start-up (with their type-name strings and, in the glue, the
// UTF-16/32 codecs, the emval table and the memory views): the session bindings take and return
// std::string only, and void. -2.2 KB gzip of cce-session.wasm, -0.6 KB of its glue. Built with
// EMSCRIPTEN_HAS_UNBOUND_TYPE_NAMES=0, as embind_types.cpp is for the compress modules.
#include <emscripten/bind.h>
#include <emscripten/emscripten.h>

#include <cstring>
#include <string>

namespace {

__attribute__((constructor)) void registerSessionBindingTypes() {
  using namespace emscripten::internal;
  _embind_register_void(TypeID<void>::get(), "void");
  _embind_register_std_string(TypeID<std::string>::get(), "std::string");
}

}  // namespace

// embind names an unregistered type through this when a binding uses one: a binding added with
// another type fails when called ("unbound types"), so register its type above.
extern "C" EMSCRIPTEN_KEEPALIVE const char* __getTypeName(const void*) {
  return strdup("a type wasm/session_embind_types.cpp does not register");
}
