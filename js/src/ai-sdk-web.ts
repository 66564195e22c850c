// SPDX-License-Identifier: MIT
// `cce-wasm/ai-sdk` in browsers, bundlers and Deno: the default entry (which loads the wasm) first.
import './index.js';

export * from './ai-sdk.js';
