// SPDX-License-Identifier: MIT
// `cce-wasm/compaction` under Node (the "node" export condition): reads cce-compaction.wasm from
// disk.
import createCceCompactionModule from './cce-compaction.mjs';
import { loadSessionSync } from './session-load.js';
import { compileWasmFile } from './wasm-file.js';

export * from './compaction-api.js';
export { CompressError, ERROR_CODES, type ErrorCode } from './errors.js';

// Synchronously, without top-level await, so that CommonJS code can require() this entry.
loadSessionSync(
  createCceCompactionModule,
  ['compactionJson'],
  compileWasmFile('cce-compaction.wasm', () => new URL('./cce-compaction.wasm', import.meta.url), import.meta.url),
);
