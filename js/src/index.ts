// SPDX-License-Identifier: MIT
// Default entry (browsers, bundlers, Deno): fetches cce.wasm beside this file at import time.
import { compileResponse, load } from './load.js';

export * from './api.js';

// `new URL('./x', import.meta.url)` is the asset pattern bundlers recognise and copy.
await load(async () => compileResponse(await fetch(new URL('./cce.wasm', import.meta.url))));
