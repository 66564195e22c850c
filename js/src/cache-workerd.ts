// SPDX-License-Identifier: MIT
// `cce-wasm/cache` under Cloudflare workerd: the workerd entry (the wasm as a compiled module
// import, ready on import) plus compressStable and the prompt-cache cost model.
export * from './workerd.js';
export * from './cache.js';
