#!/usr/bin/env node
// SPDX-License-Identifier: MIT
// Speed of the package through its JS API (JS objects in -> JS objects out). Every row runs in both
// modes, interleaved (one compat run, one default-mode run, and so on), beside the reference's
// recorded timing and the ratio: compat 'cce-1.0' is the mode the reference's figures belong to,
// the default mode is what a caller who sets nothing gets. The main process runs the Node entry
// (the speed build, cce-fast.wasm, and its shortcut for unchanged calls); the size build
// (cce.wasm) is timed on the scale session in a child process. Rows: the scale session
// (scale-results.json), every bench scenario (data/bench, oracle-results.json), the oasst1 and
// hh-rlhf conversations and a typical small conversation (µs per call), then the instantiate time
// and the session module. Figures are medians; the 2-core machine is noisy. The default mode's
// time is split at the boundary: encode (JS -> bytes) | copy-in | wasm call (decode + engine +
// plan) | parse | rebuild.
//
//   npm run bench [-- --quick] [-- --runs N]
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { compress } from 'cce-wasm';

import { engineBuild, timings } from '../dist/transport.js';
import { sharedUrl } from '../js/test/support/shared-data.mjs';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const runsArg = args.indexOf('--runs');
const shared = sharedUrl();
const root = fileURLToPath(new URL('..', import.meta.url));

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const fmt = (x, digits = 1) =>
  x === undefined ? '       -' : (digits > 1 && Math.abs(x) < 1 ? x.toFixed(3) : x.toFixed(digits)).padStart(8);
const COMPAT = { compat: 'cce-1.0' };

/** One timed call of `compress(fresh copy, options)` with its boundary split. */
function once(json, options) {
  const messages = JSON.parse(json); // fresh objects, as a caller would have them
  timings.reset();
  timings.enabled = true;
  const t0 = performance.now();
  compress(messages, options);
  const ms = performance.now() - t0;
  timings.enabled = false;
  return { ms, ...timings };
}

/**
 * Medians of `runs` calls in each mode, interleaved so that both see the same machine: the compat
 * run first on even rounds, the default-mode run first on odd ones.
 */
function measurePair(json, options, runs) {
  const modes = [{ ...options, ...COMPAT }, { ...options }];
  const samples = [[], []];
  // Warm-up: V8 runs a process's first two calls partly in its baseline tier (docs/speed.md,
  // fourth pass), so each mode is called twice before it is timed.
  for (let w = 0; w < 2; w++) for (const o of modes) compress(JSON.parse(json), o);
  for (let r = 0; r < runs; r++) {
    for (const k of r % 2 === 0 ? [0, 1] : [1, 0]) samples[k].push(once(json, modes[k]));
  }
  return samples.map((s) => {
    const pick = (key) => median(s.map((x) => x[key]));
    return {
      total: pick('ms'),
      encode: pick('encodeMs'),
      copyIn: pick('copyInMs'),
      wasm: pick('wasmMs'),
      parse: pick('parseMs'),
      rebuild: pick('rebuildMs'),
    };
  });
}

/**
 * Per-call time (µs) over `conversations`, both modes: each conversation's median over `rounds`
 * calls in each mode (the modes alternating call by call), averaged over the conversations. A
 * median per call, not the time of a whole pass: on this shared machine a pass of thousands of
 * calls is preempted by other processes, which a single call rarely is.
 */
function perCall(conversations, options, rounds) {
  const modes = [{ ...options, ...COMPAT }, { ...options }];
  for (let w = 0; w < 5; w++) for (const o of modes) for (const c of conversations) compress(c, o);
  const sums = [0, 0];
  for (const c of conversations) {
    const samples = [[], []];
    for (let r = 0; r < rounds; r++) {
      for (const k of r % 2 === 0 ? [0, 1] : [1, 0]) {
        const t0 = performance.now();
        compress(c, modes[k]);
        samples[k].push(performance.now() - t0);
      }
    }
    for (let k = 0; k < 2; k++) sums[k] += median(samples[k]);
  }
  return sums.map((sum) => (sum * 1000) / conversations.length);
}

const ratio = (reference, t) => (reference === undefined ? undefined : reference / t);

function header(title, unit) {
  console.log(`\n${title}`);
  console.log(
    `${'case'.padEnd(50)}${`ref ${unit}`.padStart(9)}${`compat`.padStart(9)}${'x ref'.padStart(7)}` +
      `${'default'.padStart(9)}${'x ref'.padStart(7)}   default split: encode copyIn  wasm  parse rebuild`,
  );
}

function row(name, reference, [compat, safe], digits = 2) {
  const split = safe.encode === undefined
    ? ''
    : `   ${[safe.encode, safe.copyIn, safe.wasm, safe.parse, safe.rebuild].map((x) => x.toFixed(2).padStart(6)).join(' ')}`;
  console.log(
    `${name.padEnd(50)}${fmt(reference, digits)} ${fmt(compat.total, digits)}${fmt(ratio(reference, compat.total)).slice(1)}x` +
      `${fmt(safe.total, digits)} ${fmt(ratio(reference, safe.total)).slice(1)}x${split}`,
  );
}

// ---- scale session -----------------------------------------------------------------------------
const scaleDir = new URL('conformance/scale/', shared);
const scaleJson = readFileSync(new URL('scale-conversation.json', scaleDir), 'utf8');
const scaleRef = JSON.parse(readFileSync(new URL('scale-results.json', scaleDir), 'utf8'));
console.log(
  `engine: the ${engineBuild()} build (the Node entry loads dist/cce-fast.wasm; browsers get dist/cce.wasm)`,
);
console.log(
  'ref = the reference (context-compression-engine 1.0.0) as recorded with the corpus, on this kind of ' +
    'machine; x ref = how many times faster than it',
);
header(
  `scale session: ${scaleRef.messages} messages, ${(scaleRef.json_bytes / 1e6).toFixed(1)} MB JSON (ms per call)`,
  'ms',
);
const scaleRuns = runsArg >= 0 ? Number(args[runsArg + 1]) : quick ? 2 : 5;
for (const run of scaleRef.runs.filter((r) => r.engine === 'v1')) {
  if (quick && Object.keys(run.options).length > 0 && !run.options.tokenBudget) continue;
  const m = measurePair(scaleJson, run.options, run.options.tokenBudget ? Math.min(scaleRuns, 3) : scaleRuns);
  row(JSON.stringify(run.options), run.median_ms, m, 1);
}

// The size build (cce.wasm, what browsers and workers load), in a fresh process through
// cce-wasm/init, end to end only.
{
  const probe = `import { readFileSync } from 'node:fs';
    const { init, compress } = await import('cce-wasm/init');
    await init({ wasmBinary: readFileSync('dist/cce.wasm') });
    const json = readFileSync(process.argv[1], 'utf8');
    const times = { compat: [], default: [] };
    const modes = [['compat', { compat: 'cce-1.0' }], ['default', {}]];
    for (const [, options] of modes) compress(JSON.parse(json), options);
    for (let i = 0; i < ${scaleRuns}; i++) {
      for (const [label, options] of i % 2 ? [...modes].reverse() : modes) {
        const messages = JSON.parse(json);
        const t0 = performance.now();
        compress(messages, options);
        times[label].push(performance.now() - t0);
      }
    }
    const med = (t) => t.sort((a, b) => a - b)[Math.floor(t.length / 2)];
    console.log(JSON.stringify({ compat: med(times.compat), default: med(times.default) }));`;
  const out = JSON.parse(
    execFileSync(
      process.execPath,
      ['--input-type=module', '-e', probe, fileURLToPath(new URL('scale-conversation.json', scaleDir))],
      { cwd: root, encoding: 'utf8', maxBuffer: 1 << 26 },
    ),
  );
  const reference = scaleRef.runs.find((r) => r.engine === 'v1' && Object.keys(r.options).length === 0).median_ms;
  row('{} size build (cce.wasm, browsers)', reference, [{ total: out.compat }, { total: out.default }], 1);
}

// ---- bench scenarios ---------------------------------------------------------------------------
const benchDir = new URL('data/bench/', shared);
const oracle = JSON.parse(readFileSync(new URL('oracle-results.json', benchDir), 'utf8'));
header('bench scenarios (data/bench), {recencyWindow: 0} and defaults (ms per call)', 'ms');
for (const file of readdirSync(benchDir)
  .filter((f) => f.endsWith('.json') && f !== 'oracle-results.json')
  .sort()) {
  const scenario = JSON.parse(readFileSync(new URL(file, benchDir), 'utf8'));
  const json = JSON.stringify(scenario.messages);
  const ref = oracle.scenarios.find((s) => s.file === file)?.v1;
  for (const [label, options, refKey] of [
    ['rw0', { recencyWindow: 0 }, 'bench_main_rw0'],
    ['defaults', {}, 'defaults'],
  ]) {
    const m = measurePair(json, options, quick ? 50 : 300);
    row(`${scenario.name} (${scenario.messages.length}) ${label}`, ref?.[refKey]?.median_ms, m, 3);
  }
}

// ---- many small conversations, and a typical one ---------------------------------------------------
// The reference's per-call times of oasst1 and hh-rlhf are not in the corpus: these are issue 22's,
// measured side by side with it in one Node process on this kind of machine.
const REFERENCE_PER_CALL_US = {
  'oasst1_en100_best_path.json': 18,
  'hh_rlhf_harmless_base_test.json': 28,
};
header('real conversations and a typical small one, defaults (µs per call)', 'µs');
const realDir = new URL('data/real/', shared);
for (const file of ['oasst1_en100_best_path.json', 'hh_rlhf_harmless_base_test.json']) {
  const conversations = JSON.parse(readFileSync(new URL(file, realDir), 'utf8'));
  const [compat, safe] = perCall(conversations, {}, quick ? 5 : 15);
  row(`${file.replace('.json', '').replace('_harmless_base_test', '').replace('_en100_best_path', '')} (${conversations.length} conversations)`, REFERENCE_PER_CALL_US[file], [{ total: compat }, { total: safe }], 1);
}
{
  const scenario = JSON.parse(readFileSync(new URL('coding-assistant.json', benchDir), 'utf8'));
  const reference = oracle.scenarios.find((s) => s.file === 'coding-assistant.json')?.v1?.defaults?.median_ms;
  const [compat, safe] = perCall([scenario.messages], {}, quick ? 201 : 2001);
  row(
    `typical: ${scenario.name} (${scenario.messages.length} messages)`,
    reference === undefined ? undefined : reference * 1000,
    [{ total: compat }, { total: safe }],
    1,
  );
}

// ---- instantiate ---------------------------------------------------------------------------------
{
  const probe = `import { readFileSync } from 'node:fs';
    const bytes = readFileSync(process.argv[1]);
    let t = performance.now();
    const module = await WebAssembly.compile(bytes);
    const compileMs = performance.now() - t;
    const { init } = await import('cce-wasm/init');
    t = performance.now();
    await init({ wasmModule: module });
    const instantiateMs = performance.now() - t;
    const { compress } = await import('cce-wasm/init');
    t = performance.now();
    compress([{ id: '1', content: 'hi' }]);
    const firstCallMs = performance.now() - t;
    console.log(JSON.stringify({ compileMs, instantiateMs, firstCallMs }));`;
  for (const file of ['dist/cce.wasm', 'dist/cce-fast.wasm']) {
    const samples = [];
    for (let i = 0; i < (quick ? 3 : 7); i++) {
      samples.push(
        JSON.parse(
          execFileSync(process.execPath, ['--input-type=module', '-e', probe, file], {
            cwd: root,
            encoding: 'utf8',
          }),
        ),
      );
    }
    const pick = (k) => median(samples.map((s) => s[k])).toFixed(2);
    console.log(
      `instantiate ${file}: compile ${pick('compileMs')} ms, instantiate + embind registration ${pick('instantiateMs')} ms, first call ${pick('firstCallMs')} ms (medians of ${samples.length} fresh processes)`,
    );
  }
}

// ---- session module: compaction projection and context-manager replay (issues 7 and 8) ----------
// Through cce-wasm/compaction and cce-wasm/context over ../shared/data/real. Projection: per file,
// fromOpenAI once, a `default` compaction (keepLast 3; conversations with too few turns are
// projected without one), then the median over runs of projecting every conversation to OpenAI
// messages. Replay: the longest conversations of the agent files added turn by turn to a manager
// with a small window (add, compress while due, view), as time per turn.
{
  const { compact, fromOpenAI, project } = await import('cce-wasm/compaction');
  const { createContextManager } = await import('cce-wasm/context');
  const realDir = new URL('data/real/', shared);
  const files = readdirSync(realDir).filter((f) => f.endsWith('.json')).sort();
  const runs = quick ? 2 : 5;
  console.log('\nsession: projection of the real transcripts (ms per file, all conversations)');
  console.log('file                                  convs   msgs  fromOpenAI  compact  project  tokens raw -> default');
  for (const file of files) {
    const data = JSON.parse(readFileSync(new URL(file, realDir), 'utf8'));
    const messages = data.reduce((n, c) => n + c.length, 0);
    let t = performance.now();
    const conversations = data.map((m) => fromOpenAI(m));
    const fromMs = performance.now() - t;
    t = performance.now();
    const compacted = conversations.map((c) =>
      c.turns.length > 3 ? compact(c, { profile: 'default' }).conversation : c,
    );
    const compactMs = performance.now() - t;
    let raw = 0;
    let after = 0;
    for (let i = 0; i < compacted.length; i++) {
      raw += project(conversations[i]).tokens;
      after += project(compacted[i]).tokens;
    }
    const times = [];
    for (let r = 0; r < runs; r++) {
      t = performance.now();
      for (const c of compacted) project(c, { format: 'openai' });
      times.push(performance.now() - t);
    }
    console.log(
      `${file.padEnd(36)} ${String(data.length).padStart(6)} ${String(messages).padStart(6)}` +
        `${fmt(fromMs)}    ${fmt(compactMs)} ${fmt(median(times))}  ${raw} -> ${after}`,
    );
  }

  console.log('\nsession: context-manager replay, turn by turn (small window)');
  const replayFiles = [
    ['claude_code_ccviewer.json', 3],
    ['swe_agent_trajectories.json', 3],
    ['claude_code_mclaude.json', quick ? 1 : 2],
  ];
  const count = (m) => (typeof m.content === 'string' ? Math.ceil(m.content.length / 3.5) : 0);
  for (const [file, take] of replayFiles) {
    const data = JSON.parse(readFileSync(new URL(file, realDir), 'utf8'));
    const longest = [...data].sort((a, b) => b.length - a.length).slice(0, take);
    for (const conversation of longest) {
      // Window: twice the largest message plus the reserves, so compressions happen often.
      const largest = Math.max(...conversation.map(count));
      const manager = createContextManager({
        contextWindow: Math.max(4000, 2 * largest + 2500),
        promptBudget: 1000,
        safetyMargin: 500,
        keepLast: 5,
      });
      let compressions = 0;
      const turnMs = [];
      for (const message of conversation) {
        const t = performance.now();
        manager.add(message);
        for (let guard = 0; guard < 8 && manager.shouldCompress(); guard++) {
          if (manager.compress().compressed) compressions++;
        }
        manager.view();
        turnMs.push(performance.now() - t);
      }
      const mean = turnMs.reduce((a, b) => a + b, 0) / turnMs.length;
      console.log(
        `${file.padEnd(30)} ${String(conversation.length).padStart(5)} msgs  ` +
          `${compressions} compressions  per turn: mean ${mean.toFixed(2)} ms, median ` +
          `${median(turnMs).toFixed(2)} ms, last ${turnMs.at(-1).toFixed(2)} ms`,
      );
    }
  }
}
