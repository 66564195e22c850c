#!/usr/bin/env node
// SPDX-License-Identifier: MIT
// Speed of the package through its JS API (JS objects in -> JS objects out), with the boundary split:
//   encode (JS -> bytes) | copy-in (into wasm memory) | wasm call (decode + engine + plan) | parse | rebuild
// All runs use compat 'cce-1.0', the mode the reference timings belong to, except the scale
// session's "default mode" rows. The main process runs the Node entry (the speed build,
// cce-fast.wasm); the size build (cce.wasm) is timed on the scale session in a child process.
// Prints the scale session, every bench scenario (data/bench), a typical small conversation
// (µs per call) and the instantiate time. Figures are medians; the 2-core machine is noisy.
//
//   npm run bench [-- --quick] [-- --runs N]
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { compress } from 'cce-wasm';

import { engineBuild, timings } from '../dist/transport.js';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const runsArg = args.indexOf('--runs');
const shared = new URL('../build/testdata/', import.meta.url);  // scripts/testdata.mjs unpacks it
const root = fileURLToPath(new URL('..', import.meta.url));

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const fmt = (x, digits = 1) =>
  (digits > 1 && Math.abs(x) < 1 ? x.toFixed(3) : x.toFixed(digits)).padStart(8);

/** Median end-to-end time of `compress(parse(json), options)` and the median split of one call. */
function measure(json, options, runs) {
  const totals = [];
  const splits = [];
  compress(JSON.parse(json), options); // warm-up
  for (let i = 0; i < runs; i++) {
    const messages = JSON.parse(json); // fresh objects, as a caller would have them
    timings.reset();
    timings.enabled = true;
    const t0 = performance.now();
    compress(messages, options);
    const ms = performance.now() - t0;
    timings.enabled = false;
    totals.push(ms);
    splits.push({ ...timings });
  }
  const pick = (key) => median(splits.map((s) => s[key]));
  const total = median(totals);
  const wasm = pick('wasmMs');
  return {
    total,
    wasm,
    encode: pick('encodeMs'),
    copyIn: pick('copyInMs'),
    parse: pick('parseMs'),
    rebuild: pick('rebuildMs'),
    marshalShare: Math.max(0, (total - wasm) / total),
  };
}

function row(name, bytes, m, reference) {
  const mbps = bytes / 1e6 / (m.total / 1000);
  console.log(
    `${name.padEnd(34)}${fmt(m.total, 2)}${fmt(mbps)}${fmt(m.encode, 2)}${fmt(m.copyIn, 2)}${fmt(m.wasm, 2)}` +
      `${fmt(m.parse, 2)}${fmt(m.rebuild, 2)}${fmt(100 * m.marshalShare)}%${reference === undefined ? '' : fmt(reference, 2)}`,
  );
}

function header(title) {
  console.log(`\n${title}`);
  console.log(
    `${'case'.padEnd(34)}${'ms'.padStart(8)}${'MB/s'.padStart(8)}${'encode'.padStart(8)}${'copyIn'.padStart(8)}` +
      `${'wasm'.padStart(8)}${'parse'.padStart(8)}${'rebuild'.padStart(8)}${'marsh'.padStart(9)}${'ref ms'.padStart(8)}`,
  );
}

// ---- scale session -----------------------------------------------------------------------------
const scaleDir = new URL('conformance/scale/', shared);
const scaleJson = readFileSync(new URL('scale-conversation.json', scaleDir), 'utf8');
const scaleRef = JSON.parse(readFileSync(new URL('scale-results.json', scaleDir), 'utf8'));
console.log(
  `engine: the ${engineBuild()} build (the Node entry loads dist/cce-fast.wasm; browsers get dist/cce.wasm)`,
);
header(
  `scale session: ${scaleRef.messages} messages, ${(scaleRef.json_bytes / 1e6).toFixed(1)} MB JSON`,
);
const scaleRuns = runsArg >= 0 ? Number(args[runsArg + 1]) : quick ? 2 : 5;
for (const run of scaleRef.runs.filter((r) => r.engine === 'v1')) {
  if (quick && Object.keys(run.options).length > 0) continue;
  const options = { ...run.options, compat: 'cce-1.0' }; // the reference's mode, as it was timed
  const m = measure(
    scaleJson,
    options,
    run.options.tokenBudget ? Math.min(scaleRuns, 3) : scaleRuns,
  );
  row(JSON.stringify(run.options), Buffer.byteLength(scaleJson), m, run.median_ms);
}

{
  // The default mode (no compat), which validates, keeps identifiers whole and counts with the
  // script-aware estimate: what a caller who sets nothing gets.
  const m = measure(scaleJson, {}, scaleRuns);
  row('{} default mode', Buffer.byteLength(scaleJson), m);
}

// The size build (cce.wasm, what browsers and workers load), in a fresh process through
// cce-wasm/init, end to end only.
{
  const probe = `import { readFileSync } from 'node:fs';
    const { init, compress } = await import('cce-wasm/init');
    await init({ wasmBinary: readFileSync('dist/cce.wasm') });
    const json = readFileSync(process.argv[1], 'utf8');
    const out = {};
    for (const [label, options] of [['compat', { compat: 'cce-1.0' }], ['default', {}]]) {
      compress(JSON.parse(json), options);
      const times = [];
      for (let i = 0; i < ${scaleRuns}; i++) {
        const messages = JSON.parse(json);
        const t0 = performance.now();
        compress(messages, options);
        times.push(performance.now() - t0);
      }
      out[label] = times.sort((a, b) => a - b)[Math.floor(times.length / 2)];
    }
    console.log(JSON.stringify(out));`;
  const out = JSON.parse(
    execFileSync(
      process.execPath,
      ['--input-type=module', '-e', probe, fileURLToPath(new URL('scale-conversation.json', scaleDir))],
      { cwd: root, encoding: 'utf8', maxBuffer: 1 << 26 },
    ),
  );
  console.log(
    `size build (dist/cce.wasm, browsers and workers), scale session end to end: ` +
      `{} ${out.compat.toFixed(1)} ms, default mode ${out.default.toFixed(1)} ms`,
  );
}

// ---- bench scenarios ---------------------------------------------------------------------------
const benchDir = new URL('data/bench/', shared);
const oracle = JSON.parse(readFileSync(new URL('oracle-results.json', benchDir), 'utf8'));
header("bench scenarios (shared/data/bench), compat 'cce-1.0', {recencyWindow: 0} and defaults");
for (const file of readdirSync(benchDir)
  .filter((f) => f.endsWith('.json') && f !== 'oracle-results.json')
  .sort()) {
  const scenario = JSON.parse(readFileSync(new URL(file, benchDir), 'utf8'));
  const json = JSON.stringify(scenario.messages);
  const ref = oracle.scenarios.find((s) => s.file === file)?.v1;
  for (const [label, options, refKey] of [
    ['rw0', { recencyWindow: 0, compat: 'cce-1.0' }, 'bench_main_rw0'],
    ['defaults', { compat: 'cce-1.0' }, 'defaults'],
  ]) {
    const m = measure(json, options, quick ? 50 : 300);
    row(
      `${scenario.name} (${scenario.messages.length}) ${label}`,
      Buffer.byteLength(json),
      m,
      ref?.[refKey]?.median_ms,
    );
  }
}

// ---- a typical 10-50 message conversation --------------------------------------------------------
{
  const scenario = JSON.parse(readFileSync(new URL('coding-assistant.json', benchDir), 'utf8'));
  const messages = scenario.messages;
  const calls = quick ? 500 : 5000;
  const options = { compat: 'cce-1.0' };
  for (let i = 0; i < 200; i++) compress(messages, options); // warm-up
  const times = [];
  for (let i = 0; i < calls; i++) {
    const t0 = performance.now();
    compress(messages, options);
    times.push(performance.now() - t0);
  }
  const sorted = times.sort((a, b) => a - b);
  const us = (q) =>
    (sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] * 1000).toFixed(1);
  const mean = ((times.reduce((a, b) => a + b, 0) / calls) * 1000).toFixed(1);
  console.log(
    `\ntypical conversation (${scenario.name}, ${messages.length} messages, defaults), µs per call over ${calls} calls: ` +
      `median ${us(0.5)}, p90 ${us(0.9)}, mean ${mean} (the mean includes preemption by other processes)`,
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
