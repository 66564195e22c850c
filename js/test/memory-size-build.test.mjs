// SPDX-License-Identifier: MIT
// Memory of the size build (dist/cce.wasm, what browsers and workers load): the flat-heap checks of
// memory.test.mjs through cce-wasm/init.
// A file of its own, since each test file runs in its own process and the default entry would load
// the speed build first.
import { readFileSync } from 'node:fs';

import { compress, init, uncompress } from 'cce-wasm/init';
import { engineBuild } from '../../dist/transport.js';

import { describeFlatHeap } from './support/memory.mjs';

await init({ wasmBinary: readFileSync(new URL('../../dist/cce.wasm', import.meta.url)) });
if (engineBuild() !== 'size') throw new Error(`expected the size build, got ${engineBuild()}`);

describeFlatHeap(
  { compress, uncompress },
  Number(process.env.CCE_MEMORY_CALLS ?? 3000),
  'the size build, through cce-wasm/init',
);
