// SPDX-License-Identifier: MIT
// `cce-wasm/cache` in browsers, bundlers and Deno: the default entry (which loads the wasm) plus
// compressStable and the prompt-cache cost model.
export * from './index.js';
export * from './cache.js';
