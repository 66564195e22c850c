// SPDX-License-Identifier: MIT
// `cce-wasm/langchain` in browsers, bundlers and Deno: the default entry (which loads the wasm) first.
import './index.js';

export * from './langchain.js';
