// SPDX-License-Identifier: MIT
// Where the tests find the reference corpus and the data sets: build/testdata, unpacked from the
// repository's compressed copy in tests/corpus by scripts/testdata.mjs (run here on first use, so
// a single test file runs from a fresh clone too).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = new URL('../../../', import.meta.url);
const unpacked = new URL('build/testdata/', root);

function ensureUnpacked() {
  if (existsSync(fileURLToPath(new URL('.stamp', unpacked)))) return;
  const run = spawnSync(process.execPath, [fileURLToPath(new URL('scripts/testdata.mjs', root))],
                        { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`cannot unpack the test data: ${run.stderr}`);
}

/** URL in the test data (the root ends with a slash); `rel` like 'conformance/public/cases/'. */
export function sharedUrl(rel = '') {
  ensureUnpacked();
  return new URL(rel, unpacked);
}

/** File-system path of the same. */
export function sharedPath(rel = '') {
  return fileURLToPath(sharedUrl(rel));
}

/** Every conversation of the JSON files in a data folder (`rel` like 'data/native/anthropic/'),
 * in file order, each named `file#index`. */
export function loadConversations(rel) {
  const dir = sharedPath(rel);
  const all = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
    const list = JSON.parse(readFileSync(dir + file, 'utf8'));
    list.forEach((conversation, i) => all.push({ name: `${file}#${i}`, conversation }));
  }
  return all;
}
