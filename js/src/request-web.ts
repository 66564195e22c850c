// SPDX-License-Identifier: MIT
// `cce-wasm/request` in browsers, bundlers and Deno: the default entry (which loads the wasm) first.
import './index.js';

export * from './request.js';
