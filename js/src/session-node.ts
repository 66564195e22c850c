// SPDX-License-Identifier: MIT
// Loads cce-session.wasm (both session engines) beside this file under Node. The Node session
// entries load their own module each (context-node.ts, compaction-node.ts); this file is kept for
// code that imported it for that side effect.
import { readFile } from 'node:fs/promises';

import createCceSessionModule from './cce-session.mjs';
import { loadSession } from './session-load.js';

await loadSession(createCceSessionModule, ['contextJson', 'compactionJson'], async () =>
  WebAssembly.compile(await readFile(new URL('./cce-session.wasm', import.meta.url))),
);
