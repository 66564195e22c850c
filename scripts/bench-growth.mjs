#!/usr/bin/env node
// SPDX-License-Identifier: MIT
// How the native engine's time grows on the inputs that once made it quadratic (issue 21 item 6):
// fuzzy dedup over near-duplicates, messages sharing their first five lines, lines with a 10 KB
// common prefix. Prints CPU seconds of `build/cce compress` at n, 2n and 4n (user + system, the
// best of --runs): a linear path doubles, a quadratic one quadruples. Figures only; the tests
// assert growth by operation counts (tests/dedup_test.cpp, tests/growth.h).
//
//   node scripts/bench-growth.mjs [--cli build/cce] [--runs 3] [--compat]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const cli = option('--cli', 'build/cce');
const runs = Number(option('--runs', 3));
const compat = args.includes('--compat');

const lines = (count, line) => Array.from({ length: count }, (_, j) => line(j));
const message = (i, content) => ({ id: `m${i}`, role: 'user', content });

const scenarios = [
  {
    name: 'fuzzy dedup, near-duplicates (19 of 20 lines shared)',
    sizes: [4000, 8000, 16000],
    messages: (n) =>
      Array.from({ length: n }, (_, i) =>
        message(i, [...lines(19, (j) => `build step ${j} finished cleanly`), `item ${i}`].join('\n')),
      ),
  },
  {
    name: 'fuzzy dedup, first five lines shared, the rest distinct',
    sizes: [4000, 8000, 16000],
    messages: (n) =>
      Array.from({ length: n }, (_, i) =>
        message(
          i,
          [
            ...lines(5, (j) => `header line ${j} of the shared report template`),
            ...lines(15, (j) => `line ${j} of message ${i}: w${(i * 7919 + j * 104729) % 1000003}`),
          ].join('\n'),
        ),
      ),
  },
  {
    name: 'lines with a 10 KB common prefix (two per message)',
    sizes: [500, 1000, 2000],
    messages: (n) => {
      const prefix = 'x'.repeat(10000);
      return Array.from({ length: n }, (_, i) =>
        message(i, `${prefix}${i}${'z'.repeat(40)}\n${prefix}${i}${'y'.repeat(40)}`),
      );
    },
  },
];

/** CPU seconds (user + system) of one run of the CLI, as /usr/bin/time reports the child's. */
function cpuSeconds(file) {
  const run = spawnSync('/usr/bin/time', ['-f', '%U %S', cli, 'compress', file], {
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`${cli} compress failed: ${run.stderr}`);
  const [user, system] = run.stderr.trim().split('\n').at(-1).split(' ').map(Number);
  return user + system;
}

const dir = mkdtempSync(join(tmpdir(), 'cce-growth-'));
try {
  for (const scenario of scenarios) {
    const cells = [];
    for (const n of scenario.sizes) {
      const file = join(dir, 'request.json');
      const options = { recencyWindow: 0, fuzzyDedup: true };
      if (compat) options.compat = 'cce-1.0';
      writeFileSync(file, JSON.stringify({ messages: scenario.messages(n), options }));
      // CPU time, not the wall clock, which would count other processes on a shared machine.
      let best = Infinity;
      for (let r = 0; r < runs; r++) best = Math.min(best, cpuSeconds(file));
      cells.push(`${n}: ${best.toFixed(2)} s`);
    }
    console.log(`${scenario.name}\n  ${cells.join('   ')}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
