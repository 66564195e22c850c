// SPDX-License-Identifier: MIT
// Loads cce-session.wasm (both session engines) beside this file under Node. The Node session
// entries load their own module each (context-node.ts, compaction-node.ts); this file is kept for
// code that imported it for that side effect.
import createCceSessionModule from './cce-session.mjs';
import { loadSessionSync } from './session-load.js';
import { compileWasmFile } from './wasm-file.js';

// Synchronously, without top-level await, so that CommonJS code can require() this entry.
loadSessionSync(
  createCceSessionModule,
  ['contextJson', 'compactionJson'],
  compileWasmFile('cce-session.wasm', () => new URL('./cce-session.wasm', import.meta.url), import.meta.url),
);
