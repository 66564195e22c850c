// SPDX-License-Identifier: MIT
// `cce-wasm/formats` in browsers, bundlers and Deno: the default entry (which loads the wasm) plus
// compress / uncompress / validate for every provider's message format.
import './index.js';

export * from './formats.js';
