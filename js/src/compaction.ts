// SPDX-License-Identifier: MIT
// `cce-wasm/compaction` (browsers, bundlers, Deno): fetches cce-session.wasm beside this file.
import { compileResponse } from './wasm-load.js';
import { loadSession } from './session-load.js';

export * from './compaction-api.js';
export { CompressError, ERROR_CODES, type ErrorCode } from './errors.js';

// `new URL('./x', import.meta.url)` is the asset pattern bundlers recognise and copy.
await loadSession(async () =>
  compileResponse(await fetch(new URL('./cce-session.wasm', import.meta.url))),
);
