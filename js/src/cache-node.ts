// SPDX-License-Identifier: MIT
// `cce-wasm/cache` under Node: the Node entry (which loads the speed build) plus compressStable and
// the prompt-cache cost model.
export * from './node.js';
export * from './cache.js';
