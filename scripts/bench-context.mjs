// SPDX-License-Identifier: MIT
// Context manager benchmark (issue 20, item 2): a session replayed turn by turn.
//
//   node scripts/bench-context.mjs [--dist DIR] [--turns 10000] [--adds 500,1000,2000,4000]
//
// Two figures, both in Node:
//   adds    n messages added one at a time to a manager with a window large enough that nothing is
//           compressed (the history the engine keeps grows to n): total time per n.
//   replay  a synthetic agent session of `turns` messages (user, assistant, tool calls with one to
//           three parallel results), each turn add + shouldCompress (compress while due) + view;
//           total time, the per-turn median and the process's CPU time over the replay (on a
//           busy machine the wall-clock figures include time spent waiting for a core).
// --dist runs another build (e.g. a copy of an earlier dist/) for before/after figures.
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import path from 'node:path';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const dist = path.resolve(option('dist', new URL('../dist', import.meta.url).pathname));
const turns = Number(option('turns', '10000'));
const adds = option('adds', '500,1000,2000,4000').split(',').map(Number);

const { createContextManager } = await import(pathToFileURL(path.join(dist, 'context-node.js')));

// Deterministic text of about `words` words.
const WORDS = 'the parser reads a token stream and builds the syntax tree while the lexer keeps '
  .concat('line numbers so that error messages point at the right place in the source file')
  .split(' ');
function text(seed, words) {
  const out = [];
  let x = seed * 2654435761;
  for (let i = 0; i < words; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out.push(WORDS[x % WORDS.length]);
  }
  return out.join(' ');
}

/** A session of `n` messages: user turns, assistant answers and tool-call rounds. */
function session(n) {
  const out = [];
  let i = 0;
  while (out.length < n) {
    out.push({ role: 'user', content: text(i++, 20 + (i % 40)) });
    if (i % 3 === 0) {
      const calls = [];
      for (let k = 0; k <= i % 3; k++) {
        calls.push({
          id: `call-${i}-${k}`,
          type: 'function',
          function: { name: 'read_file', arguments: JSON.stringify({ path: `src/f${i}.c` }) },
        });
      }
      out.push({ role: 'assistant', content: '', tool_calls: calls });
      for (const call of calls) {
        out.push({ role: 'tool', tool_call_id: call.id, content: text(i++, 60 + (i % 100)) });
      }
    }
    out.push({ role: 'assistant', content: text(i++, 30 + (i % 80)) });
  }
  return out.slice(0, n);
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

console.log(`dist: ${dist}`);
const messages = session(Math.max(turns, ...adds));
for (const n of adds) {
  const chat = createContextManager({ contextWindow: 1e9, keepLast: 6 });
  const t0 = performance.now();
  for (let i = 0; i < n; i++) chat.add(messages[i]);
  const ms = performance.now() - t0;
  console.log(`adds     ${String(n).padStart(6)} messages: ${(ms / 1000).toFixed(2)} s total`);
}

const chat = createContextManager({
  contextWindow: 16000,
  promptBudget: 2000,
  safetyMargin: 1000,
  keepLast: 6,
});
const perTurn = [];
const spent = { add: 0, compress: 0, view: 0 };
let compressions = 0;
const cpu0 = process.cpuUsage();
const t0 = performance.now();
for (let i = 0; i < turns; i++) {
  const start = performance.now();
  chat.add(messages[i]);
  const added = performance.now();
  while (chat.shouldCompress()) {
    const outcome = chat.compress();
    compressions++;
    if (!outcome.compressed) break;
  }
  const compressed = performance.now();
  chat.view();
  const end = performance.now();
  spent.add += added - start;
  spent.compress += compressed - added;
  spent.view += end - compressed;
  perTurn.push(end - start);
}
const total = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
const s = (ms) => `${(ms / 1000).toFixed(2)} s`;
console.log(
  `replay   ${turns} turns (add + shouldCompress + view, ${compressions} compressions): ` +
    `${s(total)} total, median ${(median(perTurn) * 1000).toFixed(0)} µs/turn ` +
    `(add ${s(spent.add)}, compress ${s(spent.compress)}, view ${s(spent.view)}); ` +
    `CPU ${s((cpu.user + cpu.system) / 1000)}`,
);
