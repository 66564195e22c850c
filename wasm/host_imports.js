// SPDX-License-Identifier: MIT
// The session modules' imports: the JavaScript engine's own Number(), String() and JSON.parse,
// which the C++ reproduces for native builds (src/jscompat/number.cpp under CCE_HOST_NUMBERS,
// wasm/host_json.cpp). Linked with --js-library; HEAPU8 is the glue's current view of memory (it
// is replaced when memory grows), Module the module object the JS layer created.
mergeInto(LibraryManager.library, {
  // digits x 10^exponent as Number() reads it: `length` ASCII digits at `digits` (none: zero).
  cce_host_decimal_to_double: function (digits, length, exponent) {
    var text = '0';
    for (var i = 0; i < length; i++) text += String.fromCharCode(HEAPU8[digits + i]);
    return Number(text + 'e' + exponent);
  },
  // String(x) written as ASCII at `out` (room for 32 bytes); returns its length.
  cce_host_number_to_string: function (x, out) {
    var text = String(x);
    for (var i = 0; i < text.length; i++) HEAPU8[out + i] = text.charCodeAt(i);
    return text.length;
  },
  // JSON.parse of a UTF-16 text as value bytes in a malloc'd block (wasm/host_json.cpp): the JS
  // layer's writer, which it sets on the module (js/src/session-load.ts, parseJsonText).
  cce_host_parse_json: function (text, length) {
    return Module['parseJsonText'](text, length);
  },
});
