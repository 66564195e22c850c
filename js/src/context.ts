// SPDX-License-Identifier: MIT
// `cce-wasm/context` (browsers, bundlers, Deno): fetches cce-context.wasm (the context manager's
// engine alone) beside this file.
import createCceContextModule from './cce-context.mjs';
import { compileResponse } from './wasm-load.js';
import { loadSession } from './session-load.js';

export * from './context-api.js';
export { CompressError, ERROR_CODES, type ErrorCode } from './errors.js';

// `new URL('./x', import.meta.url)` is the asset pattern bundlers recognise and copy.
await loadSession(createCceContextModule, ['contextJson'], async () =>
  compileResponse(await fetch(new URL('./cce-context.wasm', import.meta.url))),
);
