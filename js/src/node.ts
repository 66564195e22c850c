// SPDX-License-Identifier: MIT
// Default entry under Node and Deno (the "node" export condition): reads cce-fast.wasm, the
// compress module built for speed (-O3, SIMD), from beside this file. Browsers and workers get the
// size-built cce.wasm through index.js and init.js; both builds share the glue and give the same
// bytes out.
import { Buffer } from 'node:buffer';

import { loadSync } from './load.js';
import { usePoolDecoder, useUtf16Strings } from './transport.js';
import { compileWasmFile } from './wasm-file.js';

export * from './api.js';
// Calls the engine would leave unchanged are answered without it (this entry only: the browser
// download stays as it is).
export { compress } from './unchanged.js';

// Buffer's UTF-16 decoding copies the units as they are, lone surrogates included, and is faster
// than TextDecoder('utf-16le') here (1.3 against 2.2 ms for the scale session's 823 K-unit pool;
// 7 ms unit by unit when a lone surrogate rules TextDecoder out).
usePoolDecoder((units) =>
  Buffer.from(units.buffer, units.byteOffset, units.byteLength).toString('utf16le'),
);

// Requests carry their strings as UTF-16 here: Buffer copies a string's units out faster than
// TextEncoder encodes UTF-8 after isWellFormed has looked for lone surrogates (1.6-2.3 against
// 4.3-5.8 ms for the scale session's 5.5 M units), and the engine then copies instead of widening.
// The encoder writes into wasm memory, at a different place on each call: one Buffer view of the
// whole memory, held weakly, so the view goes with the buffer when memory grows.
const views = new WeakMap<ArrayBufferLike, Buffer>();
useUtf16Strings((bytes, at, text) => {
  let view = views.get(bytes.buffer);
  if (view === undefined) {
    view = Buffer.from(bytes.buffer);
    views.set(bytes.buffer, view);
  }
  view.write(text, bytes.byteOffset + at, 'utf16le');
});

// Compiled and instantiated synchronously, without top-level await: a module graph with one
// cannot be require()d, and CommonJS code on Node 20.19+ / 22.12+ can require() this entry.
loadSync(compileWasmFile('cce-fast.wasm', () => new URL('./cce-fast.wasm', import.meta.url), import.meta.url));
