// SPDX-License-Identifier: MIT
// `cce-wasm/compaction` under Node (the "node" export condition): reads cce-compaction.wasm from
// disk.
import { readFile } from 'node:fs/promises';

import createCceCompactionModule from './cce-compaction.mjs';
import { loadSession } from './session-load.js';

export * from './compaction-api.js';
export { CompressError, ERROR_CODES, type ErrorCode } from './errors.js';

await loadSession(createCceCompactionModule, ['compactionJson'], async () =>
  WebAssembly.compile(await readFile(new URL('./cce-compaction.wasm', import.meta.url))),
);
