// SPDX-License-Identifier: MIT
// `cce-wasm/context` under Node (the "node" export condition): reads cce-context.wasm from disk.
import createCceContextModule from './cce-context.mjs';
import { loadSessionSync } from './session-load.js';
import { compileWasmFile } from './wasm-file.js';

export * from './context-api.js';
export { CompressError, ERROR_CODES, type ErrorCode } from './errors.js';

// Synchronously, without top-level await, so that CommonJS code can require() this entry.
loadSessionSync(
  createCceContextModule,
  ['contextJson'],
  compileWasmFile('cce-context.wasm', () => new URL('./cce-context.wasm', import.meta.url), import.meta.url),
);
