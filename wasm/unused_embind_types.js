// SPDX-License-Identifier: MIT
// A JS library (--js-library) for the session module, which links all of libembind: it replaces
// the glue of the built-in types its bindings never use with no-ops. libembind registers every
// built-in type at start-up; the glue of std::wstring, std::u16string and std::u32string
// (UTF-16/32 codecs), emscripten::val (the handle table) and the typed-array memory views is
// 0.7 KB gzip that no call of ours can reach: every binding takes and returns integers, doubles or
// std::string. Binding one of these types would throw embind's "unbound types" error when called,
// which the tests that call every binding would report. (The compress modules register only their
// own types: embind_types.cpp.)
mergeInto(LibraryManager.library, {
  _embind_register_std_wstring: function() {},
  _embind_register_emval: function() {},
  _emval_decref: function() {},
  _embind_register_memory_view: function() {},
});
