// SPDX-License-Identifier: MIT
// Default entry under Node (the "node" export condition): reads cce.wasm beside this file.
import { readFile } from 'node:fs/promises';

import { load } from './load.js';

export * from './api.js';

await load(async () => WebAssembly.compile(await readFile(new URL('./cce.wasm', import.meta.url))));
