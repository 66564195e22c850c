// SPDX-License-Identifier: MIT
// Default entry under Node and Deno (the "node" export condition): reads cce-fast.wasm, the
// compress module built for speed (-O3, SIMD), from beside this file. Browsers and workers get the
// size-built cce.wasm through index.js and init.js; both builds share the glue and give the same
// bytes out.
import { readFile } from 'node:fs/promises';

import { load } from './load.js';

export * from './api.js';

await load(async () =>
  WebAssembly.compile(await readFile(new URL('./cce-fast.wasm', import.meta.url))),
);
