// SPDX-License-Identifier: MIT
// Default entry under Node and Deno (the "node" export condition): reads cce-fast.wasm, the
// compress module built for speed (-O3, SIMD), from beside this file. Browsers and workers get the
// size-built cce.wasm through index.js and init.js; both builds share the glue and give the same
// bytes out.
import { Buffer } from 'node:buffer';
import { readFile } from 'node:fs/promises';

import { load } from './load.js';
import { usePoolDecoder } from './transport.js';

export * from './api.js';

// Buffer's UTF-16 decoding copies the units as they are, lone surrogates included, and is faster
// than TextDecoder('utf-16le') here (1.3 against 2.2 ms for the scale session's 823 K-unit pool;
// 7 ms unit by unit when a lone surrogate rules TextDecoder out).
usePoolDecoder((units) =>
  Buffer.from(units.buffer, units.byteOffset, units.byteLength).toString('utf16le'),
);

await load(async () =>
  WebAssembly.compile(await readFile(new URL('./cce-fast.wasm', import.meta.url))),
);
