#!/usr/bin/env node
// SPDX-License-Identifier: MIT
// Runs oracle cases through the JS API of the built package and compares bytes with the reference.
//
//   npm run conformance -- DIR [--filter SUBSTRING] [--verbose]   every DIR/cases/*.json
//   npm run conformance:scale [-- DIR]                            the scale session (DIR/scale-*.json)
//   ... --wasm dist/cce.wasm    through cce-wasm/init with that build instead of the Node entry's
//                               (cce-fast.wasm); the line before the count names the build used
//
// Every case runs with `compat: 'cce-1.0'`. Async cases run through real Promises with the README's mock summarizers, token-counter cases
// through JS counters, factory cases through createSummarizer / createEscalatingSummarizer and the
// LLM mocks. Ends with the line `N passed, M failed` (exit code 1 when M > 0).
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gunzipSync } from 'node:zlib';

// ---- mocks of shared/conformance/public/README.md ----------------------------------------------

/** Mock summarizers of the async cases, by name. */
export const MOCK_SUMMARIZERS = {
  'first-half': (text) => text.slice(0, Math.floor(text.length / 2)),
  'async-first-half': async (text) => text.slice(0, Math.floor(text.length / 2)),
  'first-40': (text) => text.slice(0, 40),
  'all-but-last': (text) => text.slice(0, -1),
  throws: () => {
    throw new Error('mock summarizer failure');
  },
  rejects: () => Promise.reject(new Error('mock summarizer rejection')),
  longer: (text) => text + text,
  empty: () => '',
  'non-string': () => 42,
  fixed: () => 'MOCK SUMMARY',
};

// JS `\s` and trim() whitespace: what the `words` counter splits on (native JS semantics).
const contentLength = (m) => (typeof m.content === 'string' ? m.content.length : 0);

/** Custom token counters of the counter-* cases, by name. */
export const TOKEN_COUNTERS = {
  'chars-div-4': (m) => Math.ceil(contentLength(m) / 4),
  words: (m) => {
    const text = typeof m.content === 'string' ? m.content.trim() : '';
    return 4 + (text ? text.split(/\s+/).length : 0);
  },
  'const-7': () => 7,
  'role-weighted': (m) => Math.ceil(contentLength(m) / (m.role === 'tool' ? 3 : 5)),
  'float-div-3.5': (m) => contentLength(m) / 3.5,
  zero: () => 0,
  'structure-aware': (m) => {
    let n = Math.ceil(contentLength(m) / 4);
    if (m.metadata !== null && typeof m.metadata === 'object' && m.metadata._cce_original) n += 3;
    if (Array.isArray(m.tool_calls)) n += 2 * m.tool_calls.length;
    return n;
  },
};

/** LLM mocks of the factory cases: `make(prompts)` returns a fresh callLlm recording its prompts. */
export const LLM_MOCKS = {
  'echo-tail-30': (prompts) => (p) => (prompts.push(p), p.slice(-30)),
  'async-echo-tail-30': (prompts) => async (p) => (prompts.push(p), p.slice(-30)),
  'payload-half': (prompts) => async (p) => {
    prompts.push(p);
    const text = p.slice(p.indexOf('\n\nText:\n') + 8);
    return text.slice(0, Math.floor(text.length / 2));
  },
  'too-long': (prompts) => (p) => (prompts.push(p), p),
  'terse-only': (prompts) => (p) => (
    prompts.push(p),
    p.includes('terse bullet points') ? 'TERSE SUMMARY' : p
  ),
  'fail-first': (prompts) => {
    let calls = 0;
    return async (p) => {
      prompts.push(p);
      if (calls++ === 0) throw new Error('mock LLM failure (first call)');
      return 'OK SUMMARY';
    };
  },
  throws: (prompts) => (p) => {
    prompts.push(p);
    throw new Error('mock LLM failure');
  },
  rejects: (prompts) => async (p) => {
    prompts.push(p);
    throw new Error('mock LLM rejection');
  },
  empty: (prompts) => (p) => (prompts.push(p), ''),
  'non-string': (prompts) => (p) => (prompts.push(p), 42),
};

// ---- running one case ---------------------------------------------------------------------------

const sha256 = (text) => createHash('sha256').update(text, 'utf8').digest('hex');

/** Where two strings first differ, for failure messages. */
function firstDifference(actual, expected) {
  let i = 0;
  while (i < actual.length && i < expected.length && actual[i] === expected[i]) i++;
  const from = Math.max(0, i - 60);
  return (
    `at char ${i}:\n      got      ${JSON.stringify(actual.slice(from, i + 80))}\n` +
    `      expected ${JSON.stringify(expected.slice(from, i + 80))}`
  );
}

function check(failures, what, actual, expected) {
  if (actual !== expected) failures.push(`${what} differs ${firstDifference(actual, expected)}`);
}

function buildFactorySummarizer(api, spec, callLlm) {
  const factory = api[spec.factory];
  if (typeof factory !== 'function') throw new Error(`unknown factory ${spec.factory}`);
  return 'options' in spec ? factory(callLlm, spec.options) : factory(callLlm);
}

async function runFactoryCase(api, c, failures) {
  const prompts = [];
  const summarizer = buildFactorySummarizer(
    api,
    c.summarizer_factory,
    LLM_MOCKS[c.llm_mock.name](prompts),
  );
  const results = [];
  const perText = [];
  for (const text of c.input.texts) {
    const before = prompts.length;
    let returned;
    try {
      returned = summarizer(text);
    } catch (e) {
      results.push({ via: 'throw', error: { name: e.name, message: e.message } });
      perText.push(prompts.length - before);
      continue;
    }
    if (returned instanceof Promise) {
      try {
        results.push({ via: 'resolve', value: await returned });
      } catch (e) {
        results.push({ via: 'reject', error: { name: e.name, message: e.message } });
      }
    } else {
      results.push({ via: 'return', value: returned });
    }
    perText.push(prompts.length - before);
  }
  check(failures, 'results', JSON.stringify(results), JSON.stringify(c.expected.results));
  check(failures, 'llm_calls', JSON.stringify(prompts), JSON.stringify(c.expected.llm_calls));
  check(
    failures,
    'llm_calls_per_text',
    JSON.stringify(perText),
    JSON.stringify(c.expected.llm_calls_per_text),
  );
}

async function runCompressCase(api, c, failures) {
  const input = JSON.parse(JSON.stringify(c.input)); // the oracle's own first step
  // The oracle is context-compression-engine 1.0.0: pin its mode (the engine's default is safe mode).
  const options = { ...input.options, compat: 'cce-1.0' };
  const summarizerCalls = [];
  const llmCalls = [];
  if (c.token_counter) {
    const counter = TOKEN_COUNTERS[c.token_counter.name];
    if (!counter) throw new Error(`unknown token counter ${c.token_counter.name}`);
    options.tokenCounter = counter;
  }
  if (c.summarizer_factory) {
    const built = buildFactorySummarizer(
      api,
      c.summarizer_factory,
      LLM_MOCKS[c.llm_mock.name](llmCalls),
    );
    options.summarizer = (text) => (summarizerCalls.push(text), built(text));
  } else if (c.mock) {
    const mock = MOCK_SUMMARIZERS[c.mock.name];
    if (!mock) throw new Error(`unknown mock ${c.mock.name}`);
    options.summarizer = (text) => (summarizerCalls.push(text), mock(text));
  }

  let result;
  try {
    const returned = api.compress(input.messages, options);
    const isPromise = returned instanceof Promise;
    if (isPromise !== (c.mode === 'async')) {
      failures.push(
        `compress() returned ${isPromise ? 'a Promise' : 'a value'} in a ${c.mode} case`,
      );
    }
    result = await returned;
  } catch (e) {
    if (!c.expected.error) throw e;
    // The reference's TypeError becomes a CompressError with the same message text.
    check(failures, 'error message', String(e.message), c.expected.error.message);
    if (!(e instanceof api.CompressError) || e.code !== 'InvalidInput') {
      failures.push(`expected CompressError InvalidInput, got ${e.name} ${e.code}`);
    }
    return;
  }
  if (c.expected.error) {
    failures.push(`expected ${c.expected.error.name}: ${c.expected.error.message}, got a result`);
    return;
  }
  const json = JSON.stringify(result);
  if (sha256(json) !== c.expected.compress_json_sha256) {
    check(failures, 'compress', json, JSON.stringify(c.expected.compress));
    if (json === JSON.stringify(c.expected.compress)) failures.push('compress sha256 differs');
  }
  const restored = api.uncompress(result.messages, result.verbatim);
  check(failures, 'uncompress', JSON.stringify(restored), JSON.stringify(c.expected.uncompress));
  const store = { ...(input.prior_verbatim ?? {}), ...result.verbatim };
  const recursive = api.uncompress(result.messages, store, { recursive: true });
  check(
    failures,
    'uncompress_recursive',
    JSON.stringify(recursive),
    JSON.stringify(c.expected.uncompress_recursive),
  );
  if (c.expected.summarizer_calls) {
    check(
      failures,
      'summarizer_calls',
      JSON.stringify(summarizerCalls),
      JSON.stringify(c.expected.summarizer_calls),
    );
  }
  if (c.expected.llm_calls) {
    check(failures, 'llm_calls', JSON.stringify(llmCalls), JSON.stringify(c.expected.llm_calls));
  }
}

/** Runs one case file's object; returns the list of failure descriptions (empty = pass). */
export async function runCase(api, c) {
  const failures = [];
  try {
    if (c.mode === 'summarizer-factory') await runFactoryCase(api, c, failures);
    else await runCompressCase(api, c, failures);
  } catch (e) {
    failures.push(`threw ${e?.stack ?? e}`);
  }
  return failures;
}

// ---- the scale session ----------------------------------------------------------------------------

async function runScale(api, dir, verbose) {
  const text = readFileSync(join(dir, 'scale-conversation.json'), 'utf8');
  const results = JSON.parse(readFileSync(join(dir, 'scale-results.json'), 'utf8'));
  // Plain in the unpacked test data; gzip'd in the shared corpus it was vendored from.
  const plain = join(dir, 'expected-v1-defaults.json');
  const expectedDefaults = existsSync(plain)
    ? readFileSync(plain, 'utf8')
    : gunzipSync(readFileSync(`${plain}.gz`)).toString('utf8');
  let passed = 0;
  let failed = 0;
  for (const run of results.runs.filter((r) => r.engine === 'v1')) {
    const messages = JSON.parse(text);
    const options = { ...run.options, compat: 'cce-1.0' };
    const label = `scale ${JSON.stringify(run.options)}`;
    const failures = [];
    const t0 = performance.now();
    let ms = 0;
    try {
      const result = api.compress(messages, options);
      ms = performance.now() - t0;
      const json = JSON.stringify(result);
      if (sha256(json) !== run.result_json_sha256)
        failures.push(`sha256 ${sha256(json)} != ${run.result_json_sha256}`);
      if (Object.keys(run.options).length === 0)
        check(failures, 'compress', json, expectedDefaults);
      const restored = api.uncompress(result.messages, result.verbatim);
      const roundtrip =
        JSON.stringify(restored.messages) === text.trim() && restored.missing_ids.length === 0;
      if (roundtrip !== run.roundtrip_ok)
        failures.push(`roundtrip ${roundtrip}, expected ${run.roundtrip_ok}`);
    } catch (e) {
      failures.push(`threw ${e?.stack ?? e}`);
    }
    report(label, failures, verbose, `${ms.toFixed(1)} ms (reference ${run.median_ms} ms)`);
    if (failures.length) failed++;
    else passed++;
  }
  return { passed, failed };
}

function report(name, failures, verbose, note = '') {
  if (failures.length) {
    console.log(`FAIL ${name}${note ? `  ${note}` : ''}`);
    for (const f of failures) console.log(`    ${f}`);
  } else if (verbose || note) {
    console.log(`ok   ${name}${note ? `  ${note}` : ''}`);
  }
}

async function main(argv) {
  let dir;
  let filter = '';
  let scale = false;
  let verbose = false;
  let wasm;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--filter') filter = argv[++i] ?? '';
    else if (arg === '--scale') scale = true;
    else if (arg === '--verbose' || arg === '-v') verbose = true;
    else if (arg === '--wasm') wasm = argv[++i];
    else dir = arg;
  }
  if (!dir) {
    console.error(
      'usage: conformance.mjs DIR [--filter SUBSTRING] [--verbose] [--wasm FILE] | --scale DIR',
    );
    process.exit(2);
  }
  dir = resolve(dir);
  let api;
  if (wasm) {
    api = await import('cce-wasm/init');
    await api.init({ wasmBinary: readFileSync(wasm) });
  } else {
    api = await import('cce-wasm');
  }
  const { engineBuild } = await import('../dist/transport.js');
  console.log(`engine: the ${engineBuild()} build (${wasm ?? 'dist/cce-fast.wasm, the Node entry'})`);
  let passed = 0;
  let failed = 0;
  if (scale) {
    ({ passed, failed } = await runScale(api, dir, verbose));
  } else {
    const files = readdirSync(join(dir, 'cases'))
      .filter((f) => f.endsWith('.json') && f.includes(filter))
      .sort();
    for (const file of files) {
      const c = JSON.parse(readFileSync(join(dir, 'cases', file), 'utf8'));
      const failures = await runCase(api, c);
      report(c.name ?? file, failures, verbose);
      if (failures.length) failed++;
      else passed++;
    }
  }
  console.log(`${passed} passed, ${failed} failed`);
  process.exitCode = failed ? 1 : 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href)
  await main(process.argv.slice(2));
