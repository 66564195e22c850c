#!/usr/bin/env node
// SPDX-License-Identifier: MIT
// Whether two builds of the package give the same bytes: every conversation of the real data sets
// (data/real) and the scale session, in the default mode and under compat "cce-1.0", with the
// default window, window 0 and a budget of 30 % of the conversation's tokens, compressed by both
// (each build's Node entry, so the speed build) and compared as JSON text. A change made for speed
// must print "0 differ".
//
//   cp -r dist /tmp/dist-before     # before the change; rebuild; then
//   node scripts/compare-outputs.mjs /tmp/dist-before dist
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

import { sharedPath } from '../js/test/support/shared-data.mjs';

const [dirA, dirB] = process.argv.slice(2);
if (!dirA || !dirB) {
  console.error('usage: node scripts/compare-outputs.mjs DIST_A DIST_B');
  process.exit(2);
}
// The engines' own compress (dist/engine.js), so that the Node entry's shortcut for unchanged
// calls (js/src/unchanged.ts) does not hide an engine difference; each entry is imported first to
// load its wasm.
const load = async (dir) => {
  await import(pathToFileURL(resolve(dir, 'node.js')).href);
  return (await import(pathToFileURL(resolve(dir, 'engine.js')).href)).compress;
};
const a = await load(dirA);
const b = await load(dirB);

const realDir = sharedPath('data/real/');
const sets = readdirSync(realDir)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => [f, JSON.parse(readFileSync(resolve(realDir, f), 'utf8'))]);
sets.push([
  'scale-conversation.json',
  [JSON.parse(readFileSync(sharedPath('conformance/scale/scale-conversation.json'), 'utf8'))],
]);

const chars = (messages) =>
  messages.reduce((n, m) => n + (typeof m.content === 'string' ? m.content.length : 0), 0);

let calls = 0;
let differ = 0;
for (const [file, conversations] of sets) {
  let fileDiffer = 0;
  for (let k = 0; k < conversations.length; k++) {
    const messages = conversations[k];
    const budget = Math.floor((0.3 * chars(messages)) / 3.5);
    for (const mode of [{}, { compat: 'cce-1.0' }]) {
      for (const options of [{}, { recencyWindow: 0 }, { tokenBudget: budget }]) {
        const o = { ...options, ...mode };
        const outA = JSON.stringify(a(messages, { ...o }));
        const outB = JSON.stringify(b(messages, { ...o }));
        calls++;
        if (outA !== outB) {
          differ++;
          fileDiffer++;
          if (fileDiffer <= 3) console.log(`DIFFERS: ${file}[${k}] ${JSON.stringify(o)}`);
        }
      }
    }
  }
  console.log(`${file}: ${conversations.length} conversations, ${fileDiffer} calls differ`);
}
console.log(`${calls} calls, ${differ} differ`);
process.exitCode = differ === 0 ? 0 : 1;
