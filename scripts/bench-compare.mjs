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
// Cases: the scale session (defaults; 30 % budget + forceConverge; medians over the rounds), every
// conversation of oasst1 and hh-rlhf and the 13-message coding-assistant conversation (µs per
// call: each conversation's median, averaged), each in the default mode and under compat
// "cce-1.0". The outputs of the two
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

/** The cases: `run(compress)` does the work once and returns [ms, output]; a per-call case lists
 * its conversations instead. */
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
  for (const [label, conversations] of [
    ['oasst1 (100 conversations)', oasst],
    ['hh-rlhf (2,312 conversations)', hh],
    ['coding assistant (13 messages)', [coding]],
  ]) {
    cases.push({
      name: `${label}, per call (${mode})`,
      unit: 'µs',
      perConversation: conversations,
      options: extra,
    });
  }
}
const selected = cases.filter((c) => c.name.includes(only));
console.log(`A = ${builds[0].name}, B = ${builds[1].name}; ${rounds} rounds, medians`);
console.log(`${'case'.padEnd(58)}${'A'.padStart(10)}${'B'.padStart(10)}  B/A   output`);
/**
 * A per-call case: each conversation's median over the rounds (the builds alternating call by
 * call), averaged over the conversations. A median per call, not the time of a whole pass: on
 * this shared machine a pass of thousands of calls is preempted by other processes, which a
 * single call rarely is.
 */
function perCall(c) {
  const rounds = c.perConversation.length === 1 ? 2001 : 15;
  const sums = builds.map(() => 0);
  const texts = builds.map(() => []);
  for (let w = 0; w < 5; w++) {
    for (const b of builds) for (const m of c.perConversation) b.compress(m, { ...c.options });
  }
  for (const messages of c.perConversation) {
    const samples = builds.map(() => []);
    for (let r = 0; r < rounds; r++) {
      for (const k of r % 2 === 0 ? [0, 1] : [1, 0]) {
        const t0 = performance.now();
        const out = builds[k].compress(messages, { ...c.options });
        samples[k].push(performance.now() - t0);
        if (r < 2) texts[k].push(JSON.stringify(out));
      }
    }
    samples.forEach((s, k) => (sums[k] += median(s)));
  }
  return [
    sums.map((sum) => (sum * 1000) / c.perConversation.length),
    texts.map((t) => t.join('\n')),
  ];
}

for (const c of selected) {
  let a;
  let b;
  let same;
  if (c.perConversation) {
    const [times, texts] = perCall(c);
    [a, b] = times;
    same = texts[0] === texts[1] ? 'same' : 'DIFFERS';
  } else {
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
    [a, b] = times.map(median);
    same = texts[0] === texts[1] ? 'same' : 'DIFFERS';
  }
  console.log(
    `${c.name.padEnd(58)}${(a.toFixed(1) + ' ' + c.unit).padStart(10)}${(b.toFixed(1) + ' ' + c.unit).padStart(10)}` +
      `  ${(b / a).toFixed(2)}  ${same}`,
  );
}
