// SPDX-License-Identifier: MIT
// `cce-wasm/context` under Node (the "node" export condition): reads cce-context.wasm from disk.
import { readFile } from 'node:fs/promises';

import createCceContextModule from './cce-context.mjs';
import { loadSession } from './session-load.js';

export * from './context-api.js';
export { CompressError, ERROR_CODES, type ErrorCode } from './errors.js';

await loadSession(createCceContextModule, ['contextJson'], async () =>
  WebAssembly.compile(await readFile(new URL('./cce-context.wasm', import.meta.url))),
);
