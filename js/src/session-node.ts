// SPDX-License-Identifier: MIT
// Loads cce-session.wasm beside this file under Node (the "node" condition of the session entries).
import { readFile } from 'node:fs/promises';

import { loadSession } from './session-load.js';

await loadSession(async () =>
  WebAssembly.compile(await readFile(new URL('./cce-session.wasm', import.meta.url))),
);
