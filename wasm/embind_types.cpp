// SPDX-License-Identifier: MIT
// The embind types of the compress module (cce.wasm, cce-fast.wasm), registered here in place of
// Emscripten's libembind. Its start-up function registers every built-in type (all integer widths,
// bool, std::string and the wide strings, emscripten::val, eighteen memory views) with their RTTI
// objects and names: 1.5 KB gzip of wasm and 0.2 KB of glue that no call of ours uses, since
// every binding in bindings.cpp takes and returns numbers only. embind's JS runtime (embind.js,
// linked with --js-library) and EMSCRIPTEN_BINDINGS are unchanged. A binding that takes or
// returns a type not registered here throws embind's "due to unbound types" error when called,
// and the JS tests call every binding. The session module passes JSON as std::string and links
// the whole libembind (-lembind).
#include <emscripten/bind.h>
#include <emscripten/emscripten.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

namespace {

using emscripten::internal::TypeID;

// The types bindings.cpp passes: void results, pointers and lengths (std::uintptr_t and
// std::size_t are both unsigned long here).
static_assert(std::is_same_v<std::uintptr_t, unsigned long>);
static_assert(std::is_same_v<std::size_t, unsigned long>);

__attribute__((constructor)) void registerBindingTypes() {
  using namespace emscripten::internal;
  _embind_register_void(TypeID<void>::get(), "void");
  _embind_register_integer(TypeID<unsigned long>::get(), "unsigned long", sizeof(unsigned long),
                           std::numeric_limits<unsigned long>::min(),
                           std::numeric_limits<unsigned long>::max());
}

}  // namespace

// embind.js asks for a type's name when it reports an unbound type (and frees the copy). These
// modules identify types without RTTI (EMSCRIPTEN_HAS_UNBOUND_TYPE_NAMES=0, set by
// wasm/CMakeLists.txt), so a type has no name to give: RTTI would bring libc++abi's type_info
// classes and their virtual functions (0.8 KB gzip) for an error message.
extern "C" EMSCRIPTEN_KEEPALIVE const char* __getTypeName(const void*) {
  return strdup("a type wasm/embind_types.cpp does not register");
}
