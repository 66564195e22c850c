// SPDX-License-Identifier: MIT
// Lets `import ... from './cce.mjs'` (the Emscripten glue copied into dist/) type-check.
export * from '../../wasm/cce_wasm.js';
export { default } from '../../wasm/cce_wasm.js';
