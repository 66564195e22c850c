#!/usr/bin/env node
// SPDX-License-Identifier: MIT
// Two builds of the package side by side in one Node process: each round runs every case once
// through each build, in alternating order, so that the machine's noise (2 shared cores) falls on
// both alike; the figures are medians over the rounds. A build is a copy of dist/ (its node.js,
// the Node entry, loads its own cce-fast.wasm), e.g.
//
//   cp -r dist /tmp/dist-before     # before a change; rebuild; then
//   node scripts/bench-compare.mjs /tmp/dist-before dist [--rounds N] [--only SUBSTR]
//
// Cases: the scale session (defaults; 30 % budget + forceConverge), every conversation of
// oasst1 and hh-rlhf (µs per call, defaults) and the 13-message coding-assistant conversation
// (µs per call), each in the default mode and under compat "cce-1.0". The outputs of the two
// builds are compared too (JSON text): a speed change must not change a byte.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

import { sharedPath } from '../js/test/support/shared-data.mjs';

const args = process.argv.slice(2);
const flag = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args.splice(i, 2)[1] : fallback;
};
const rounds = Number(flag('--rounds', '7'));
const only = flag('--only', '');
if (args.length !== 2) {
  console.error('usage: node scripts/bench-compare.mjs DIST_A DIST_B [--rounds N] [--only SUBSTR]');
  process.exit(2);
}
const builds = [];
for (const dir of args) {
  const api = await import(pathToFileURL(resolve(dir, 'node.js')).href);
  builds.push({ name: dir, compress: api.compress });
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const scaleJson = readFileSync(sharedPath('conformance/scale/scale-conversation.json'), 'utf8');
const scaleRef = JSON.parse(
  readFileSync(sharedPath('conformance/scale/scale-results.json'), 'utf8'),
);
const budgetRun = scaleRef.runs.find((r) => r.engine === 'v1' && r.options.tokenBudget);
const realFile = (name) => JSON.parse(readFileSync(sharedPath(`data/real/${name}`), 'utf8'));
const oasst = realFile('oasst1_en100_best_path.json');
const hh = realFile('hh_rlhf_harmless_base_test.json');
const coding = JSON.parse(
  readFileSync(sharedPath('data/bench/coding-assistant.json'), 'utf8'),
).messages;

/** One case: `run(compress)` does the work once and returns [ms, output text]. */
const cases = [];
for (const [mode, extra] of [
  ['default', {}],
  ['compat', { compat: 'cce-1.0' }],
]) {
  cases.push({
    name: `scale session, defaults (${mode})`,
    unit: 'ms',
    run(compress) {
      const messages = JSON.parse(scaleJson); // fresh objects, as a caller would have them
      const t0 = performance.now();
      const out = compress(messages, { ...extra });
      return [performance.now() - t0, out];
    },
  });
  cases.push({
    name: `scale session, 30 % budget + forceConverge (${mode})`,
    unit: 'ms',
    run(compress) {
      const messages = JSON.parse(scaleJson);
      const t0 = performance.now();
      const out = compress(messages, { ...budgetRun.options, ...extra });
      return [performance.now() - t0, out];
    },
  });
  for (const [label, conversations, repeat] of [
    ['oasst1 (100 conversations)', oasst, 20],
    ['hh-rlhf (2,312 conversations)', hh, 2],
    ['coding assistant (13 messages)', [coding], 2000],
  ]) {
    cases.push({
      name: `${label}, per call (${mode})`,
      unit: 'µs',
      run(compress) {
        const outs = [];
        const t0 = performance.now();
        for (let r = 0; r < repeat; r++) {
          for (const c of conversations) {
            const out = compress(c, { ...extra });
            if (r === 0) outs.push(out);
          }
        }
        const us = ((performance.now() - t0) * 1000) / (repeat * conversations.length);
        return [us, outs];
      },
    });
  }
}

const selected = cases.filter((c) => c.name.includes(only));
console.log(`A = ${builds[0].name}, B = ${builds[1].name}; ${rounds} rounds, medians`);
console.log(`${'case'.padEnd(58)}${'A'.padStart(10)}${'B'.padStart(10)}  B/A   output`);
for (const c of selected) {
  const times = builds.map(() => []);
  const texts = builds.map(() => undefined);
  for (const b of builds) c.run(b.compress); // warm-up
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? [0, 1] : [1, 0];
    for (const k of order) {
      const [t, out] = c.run(builds[k].compress);
      times[k].push(t);
      if (r === 0) texts[k] = JSON.stringify(out);
    }
  }
  const [a, b] = times.map(median);
  const same = texts[0] === texts[1] ? 'same' : 'DIFFERS';
  console.log(
    `${c.name.padEnd(58)}${(a.toFixed(1) + ' ' + c.unit).padStart(10)}${(b.toFixed(1) + ' ' + c.unit).padStart(10)}` +
      `  ${(b / a).toFixed(2)}  ${same}`,
  );
}
