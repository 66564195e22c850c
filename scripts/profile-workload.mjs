// SPDX-License-Identifier: MIT
// The default workload of scripts/profile-wasm.sh: the scale session in the default mode, two
// warm-up calls and twelve profiled ones (argv[2]: the dist copy to load; argv[3]: options JSON).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

import { sharedPath } from '../js/test/support/shared-data.mjs';

const api = await import(pathToFileURL(resolve(process.argv[2], 'node.js')).href);
const options = JSON.parse(process.argv[3] ?? '{}');
const json = readFileSync(sharedPath('conformance/scale/scale-conversation.json'), 'utf8');
for (let round = 0; round < 14; round++) api.compress(JSON.parse(json), { ...options });
