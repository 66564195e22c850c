// SPDX-License-Identifier: MIT
// `cce-wasm/compaction` (browsers, bundlers, Deno): fetches cce-compaction.wasm (compaction's
// engine alone) beside this file.
import createCceCompactionModule from './cce-compaction.mjs';
import { compileResponse } from './wasm-load.js';
import { loadSession } from './session-load.js';

export * from './compaction-api.js';
export { CompressError, ERROR_CODES, type ErrorCode } from './errors.js';

// `new URL('./x', import.meta.url)` is the asset pattern bundlers recognise and copy.
await loadSession(createCceCompactionModule, ['compactionJson'], async () =>
  compileResponse(await fetch(new URL('./cce-compaction.wasm', import.meta.url))),
);
