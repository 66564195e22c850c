// SPDX-License-Identifier: MIT
// Determinism across builds: native CLI and wasm package give byte-identical output on the public
// corpus and on every real conversation in the real transcripts (data/real), in both modes.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';

import { compress } from 'cce-wasm';

import { missingCli, nativeCompressAsync, scratchDir, wasmAnswer } from './support/native.mjs';
import { sharedPath } from './support/shared-data.mjs';

const started = performance.now();
after(() =>
  console.log(`determinism.test.mjs: ${((performance.now() - started) / 1000).toFixed(1)} s`),
);

const shared = sharedPath();
const casesDir = join(shared, 'conformance/public/cases');
const realDir = join(shared, 'data/real');
for (const dir of [casesDir, realDir]) {
  if (!existsSync(dir)) throw new Error(`missing ${dir}: run node scripts/testdata.mjs to unpack the test data`);
}

/** Native processes in flight while the main thread runs the wasm side. */
const PARALLEL = 3;

/**
 * Compares native and wasm on every job ({name, messages, options}); returns the mismatches as
 * readable strings (the first differing character with context).
 */
async function compareAll(jobs, dir) {
  const mismatches = [];
  const inFlight = new Set();
  // One request file per process slot, taken while its process runs and then given back.
  const freeFiles = Array.from({ length: PARALLEL }, (_, k) => join(dir, `request-${k}.json`));
  for (const job of jobs) {
    while (freeFiles.length === 0) await Promise.race(inFlight);
    const file = freeFiles.pop();
    const native = nativeCompressAsync(file, job.messages, job.options);
    const wasm = wasmAnswer(compress, job.messages, job.options);
    const check = native
      .then((answer) => {
        const mismatch = describeMismatch(job.name, answer, wasm);
        if (mismatch) mismatches.push(mismatch);
      })
      .finally(() => {
        freeFiles.push(file);
        inFlight.delete(check);
      });
    inFlight.add(check);
  }
  await Promise.all(inFlight);
  return mismatches;
}

function describeMismatch(name, native, wasm) {
  if (native.ok && wasm.ok) {
    if (native.text === wasm.text) return undefined;
    let i = 0;
    while (native.text[i] === wasm.text[i]) i++;
    const around = (s) => JSON.stringify(s.slice(Math.max(0, i - 80), i + 80));
    return (
      `${name}: first difference at ${i}\n  native: ${around(native.text)}\n` +
      `  wasm:   ${around(wasm.text)}`
    );
  }
  if (!native.ok && !wasm.ok) {
    if (JSON.stringify(native.error) === JSON.stringify(wasm.error)) return undefined;
    const [n, w] = [native.error, wasm.error].map((e) => JSON.stringify(e));
    return `${name}: different errors: native ${n}, wasm ${w}`;
  }
  const describe = (a) => (a.ok ? 'a result' : `error ${JSON.stringify(a.error)}`);
  return `${name}: native gave ${describe(native)}, wasm ${describe(wasm)}`;
}

const MODES = [
  ['safe', {}],
  ['cce-1.0', { compat: 'cce-1.0' }],
];

function corpusJobs() {
  const jobs = [];
  const files = readdirSync(casesDir).filter((f) => f.endsWith('.json')).sort();
  for (const file of files) {
    const c = JSON.parse(readFileSync(join(casesDir, file), 'utf8'));
    // Factory cases call a summarizer factory, not compress; the rest carry compress inputs
    // (edge-error-not-array's messages is an object: both builds must give the same error).
    // Summarizers and custom counters are functions: the JSON options are what both builds get.
    if (c.mode === 'summarizer-factory') continue;
    for (const [mode, extra] of MODES) {
      const options = { ...c.input.options, ...extra };
      jobs.push({ name: `${file} [${mode}]`, messages: c.input.messages, options });
    }
  }
  return { files: files.length, jobs };
}

/** The reference's token estimate (spec §1.8) of a conversation. */
function estimate(messages) {
  let tokens = 0;
  for (const m of messages) {
    tokens += Math.ceil((typeof m.content === 'string' ? m.content.length : 0) / 3.5);
  }
  return tokens;
}

function realJobs() {
  const jobs = [];
  const files = readdirSync(realDir).filter((f) => f.endsWith('.json')).sort();
  let conversations = 0;
  for (const file of files) {
    const data = JSON.parse(readFileSync(join(realDir, file), 'utf8'));
    assert.ok(Array.isArray(data), `${file} is an array of conversations`);
    data.forEach((messages, i) => {
      conversations++;
      for (const [mode, extra] of MODES) {
        jobs.push({ name: `${file}#${i} [${mode}]`, messages, options: { ...extra } });
      }
      // Every 4th also with a budget of 30 % of the reference's estimate: binary search,
      // truncation and the safe mode's escalation (all of them would take a minute more).
      if (i % 4 === 0) {
        const tokenBudget = Math.floor(0.3 * estimate(messages));
        jobs.push({ name: `${file}#${i} [safe, budget]`, messages, options: { tokenBudget } });
      }
    });
  }
  return { files: files.length, conversations, jobs };
}

describe('native build == wasm build, byte for byte', () => {
  const missing = missingCli();

  test('every case of the public conformance corpus, safe mode and cce-1.0', async (t) => {
    if (missing) assert.fail(missing);
    const { dir, remove } = scratchDir();
    t.after(remove);
    const { files, jobs } = corpusJobs();
    assert.equal(files, 495);
    const t0 = performance.now();
    const mismatches = await compareAll(jobs, dir);
    console.log(
      `corpus: ${jobs.length} runs (${jobs.length / 2} compress cases x 2 modes) in ` +
        `${((performance.now() - t0) / 1000).toFixed(1)} s, ${mismatches.length} mismatches`,
    );
    assert.deepEqual(mismatches.slice(0, 10), []);
  });

  test('every real conversation: safe, cce-1.0 and safe with a budget', async (t) => {
    if (missing) assert.fail(missing);
    const { dir, remove } = scratchDir();
    t.after(remove);
    const { files, conversations, jobs } = realJobs();
    assert.ok(conversations >= 3000, `${conversations} conversations in ${files} files`);
    const t0 = performance.now();
    const mismatches = await compareAll(jobs, dir);
    console.log(
      `real data: ${conversations} conversations from ${files} files, ${jobs.length} runs ` +
        `(safe, cce-1.0; every 4th also safe with a 30 % budget) in ` +
        `${((performance.now() - t0) / 1000).toFixed(1)} s, ${mismatches.length} mismatches`,
    );
    assert.deepEqual(mismatches.slice(0, 10), []);
  });
});
