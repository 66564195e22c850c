// SPDX-License-Identifier: MIT
// A JS library (--js-library) for the compress module only (cce.wasm, cce-fast.wasm): no-ops for
// the glue of std::string and bool, which none of its bindings take or return (wasm/bindings.cpp:
// numbers in, numbers out; texts come back located in memory like the envelopes). embind's
// std::string codec is 0.7 KB gzip of glue. The session module passes JSON as std::string and
// keeps it. Binding either type here would fail at start-up with embind's "unbound type" error.
mergeInto(LibraryManager.library, {
  _embind_register_std_string: function() {},
  _embind_register_bool: function() {},
});
