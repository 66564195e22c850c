// SPDX-License-Identifier: MIT
// The Node entry answers calls the engine leaves unchanged without entering wasm
// (js/src/unchanged.ts). Those answers must be what the engine gives, byte for byte and object for
// object: every call here runs through both, the Node entry's compress and the engine's own
// (dist/engine.js), over the real data sets and generated conversations.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';

import { compress, CompressError, estimateTokens } from 'cce-wasm';

import { compress as engineCompress } from '../../dist/engine.js';
import { unchangedAnswers } from '../../dist/unchanged.js';
import { sharedUrl } from './support/shared-data.mjs';

const json = (x) => JSON.stringify(x);

/** Runs `options` on `messages` through both paths; returns whether the Node entry answered. */
function same(messages, options, label) {
  const before = json(messages);
  const counted = unchangedAnswers.count;
  const engine = engineCompress(messages, options === undefined ? undefined : { ...options });
  const fast = compress(messages, options === undefined ? undefined : { ...options });
  const answered = unchangedAnswers.count > counted;
  assert.equal(json(fast), json(engine), `${label}: the same result`);
  assert.equal(json(messages), before, `${label}: input not mutated`);
  // The same objects: the caller's own where the engine returns them (the array itself with a
  // budget the input meets), in the same order.
  assert.equal(fast.messages === messages, engine.messages === messages, `${label}: array identity`);
  for (let i = 0; i < engine.messages.length; i++) {
    assert.equal(
      fast.messages[i] === messages[i],
      engine.messages[i] === messages[i],
      `${label}: message ${i} identity`,
    );
  }
  assert.deepEqual(Object.keys(fast), Object.keys(engine), `${label}: result keys`);
  assert.deepEqual(
    Object.keys(fast.compression),
    Object.keys(engine.compression),
    `${label}: stats keys`,
  );
  return answered;
}

/** The error a call throws (or undefined), as code, message and path. */
function failure(run) {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof CompressError, `a CompressError, got ${error}`);
    return { code: error.code, message: error.message, path: error.path };
  }
  return undefined;
}

// Deterministic pseudo-random numbers (mulberry32), so a failure names a reproducible case.
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const realDir = sharedUrl('data/real/');
const realFiles = readdirSync(realDir)
  .filter((f) => f.endsWith('.json'))
  .sort();
const loadReal = (file) => JSON.parse(readFileSync(new URL(file, realDir), 'utf8'));

describe('calls the engine leaves unchanged (Node entry)', () => {
  test('the real data sets: every conversation, both modes, with and without budgets', () => {
    let answered = 0;
    let calls = 0;
    for (const file of realFiles) {
      const conversations = loadReal(file);
      // The long agent transcripts cost the engine most; a sample of each file keeps this quick.
      const step = Math.max(1, Math.floor(conversations.length / 150));
      for (let k = 0; k < conversations.length; k += step) {
        const messages = conversations[k];
        const tokens = messages.reduce(
          (sum, m) => sum + (typeof m.content === 'string' ? estimateTokens(m.content) : 0),
          0,
        );
        const chars = messages.reduce(
          (sum, m) => sum + (typeof m.content === 'string' ? Math.ceil(m.content.length / 3.5) : 0),
          0,
        );
        for (const options of [
          undefined,
          {},
          { compat: 'cce-1.0' },
          { recencyWindow: 2 },
          { recencyWindow: 0, compat: 'cce-1.0' },
          { preserve: ['system', 'user'], recencyWindow: 1 },
          { tokenBudget: tokens },
          { tokenBudget: tokens - 1 },
          { tokenBudget: chars, compat: 'cce-1.0' },
          { tokenBudget: chars, tokenEstimate: 'chars' },
          { tokenBudget: Math.floor(chars / 2), compat: 'cce-1.0', forceConverge: true },
        ]) {
          calls++;
          if (same(messages, options, `${file}[${k}] ${json(options)}`)) answered++;
        }
      }
    }
    // The short conversations (oasst1, hh-rlhf) are mostly answered without the engine.
    assert.ok(answered > calls / 4, `${answered} of ${calls} calls answered without the engine`);
  });

  test('generated conversations around every rule of the shortcut', () => {
    const next = random(20260522);
    const pick = (xs) => xs[Math.floor(next() * xs.length)];
    const text = (length) => {
      let s = '';
      while (s.length < length) s += pick(['word ', 'the ', 'function ', '東京 ', '😀 ', '\n', '12 ']);
      return s.slice(0, length);
    };
    let answered = 0;
    const total = 3000;
    for (let c = 0; c < total; c++) {
      const n = Math.floor(next() * 9);
      const shared = text(pick([200, 300]));
      const messages = [];
      for (let i = 0; i < n; i++) {
        const m = { id: `m${c}-${i}`, role: pick(['system', 'user', 'assistant', 'tool', '', undefined]) };
        if (m.role === undefined) delete m.role;
        const length = pick([0, 5, 119, 119, 120, 121, 250, 600]);
        m.content = next() < 0.15 ? shared : text(length); // exact duplicates for dedup
        if (next() < 0.1) m.tool_calls = next() < 0.5 ? [] : [{ id: 't', type: 'function' }];
        if (next() < 0.05) m.metadata = { note: 1 };
        if (next() < 0.03) m.metadata = { _cce_original: { ids: ['x'], summary_id: 's', version: 0 } };
        if (next() < 0.02) m.content = null;
        if (next() < 0.01) m.id = i; // not a string
        if (next() < 0.01 && i > 0) m.id = messages[0].id; // a repeated id
        messages.push(m);
      }
      const options = {};
      if (next() < 0.5) options.recencyWindow = pick([0, 1, 2, 2.5, 4, 6, 20]);
      if (next() < 0.4) options.compat = 'cce-1.0';
      if (next() < 0.2) options.preserve = pick([[], ['system'], ['user', 'tool'], ['']]);
      if (next() < 0.3) options.tokenBudget = pick([0, 10, 50, 100, 200, 400, 10000]);
      if (next() < 0.2) options.tokenEstimate = pick(['script', 'chars']);
      if (next() < 0.1) options.dedup = false;
      if (next() < 0.1) options.fuzzyDedup = true;
      if (next() < 0.1) options.sourceVersion = pick([0, 3, 1.5]);
      if (next() < 0.05) options.forceConverge = pick([true, false]);
      if (next() < 0.05) options.maxInputBytes = pick([0, 100, 2000]);
      const label = `case ${c}: ${json({ messages, options })}`;
      const error = failure(() => engineCompress(messages, { ...options }));
      if (error) {
        assert.deepEqual(failure(() => compress(messages, { ...options })), error, label);
        continue;
      }
      if (same(messages, options, label)) answered++;
    }
    assert.ok(answered > total / 5, `${answered} of ${total} answered without the engine`);
    assert.ok(answered < total, 'and some went to the engine');
  });

  test('bad input still gets the engine\'s typed errors', () => {
    const ok = { id: 'a', role: 'user', content: 'hi' };
    const cases = [
      [[{ id: 'a', content: 'x' }, { id: 'a', content: 'y' }], {}],
      [[{ id: 1, content: 'x' }], {}],
      [[{ id: 'a' }], {}],
      [[{ id: 'a', content: 5 }], {}],
      [[ok, null], {}],
      [[ok, { content: 'x' }], { compat: 'cce-1.0' }],
      ['not an array', {}],
      [[ok], { recencyWindow: -1 }],
      [[ok], { recencyWindow: '4' }],
      [[ok], { recencyWindow: Number.NaN }],
      [[ok], { tokenBudget: -5 }],
      [[ok], { fuzzyThreshold: 2 }],
      [[ok], { preserve: 'system' }],
      [[ok], { preserve: ['system', 3] }],
      [[ok], { compat: 'cce-2.0' }],
      [[ok], { tokenEstimate: 'words' }],
      [[ok], { dedup: 'yes' }],
      [[ok], { tokenCounter: 'x' }],
      [[ok], { summarizerTimeoutMs: -1 }],
      [[ok], { imageTokens: -1 }],
      [[{ id: 'a', content: 'x'.repeat(300) }], { maxInputBytes: 200 }],
      [[ok], { maxInputBytes: 20 }],
    ];
    for (const [messages, options] of cases) {
      const expected = failure(() => engineCompress(messages, options));
      assert.ok(expected, `the engine rejects ${json({ messages, options })}`);
      assert.deepEqual(failure(() => compress(messages, options)), expected, json(options));
    }
  });

  test('a small call the engine cannot change is answered without it', () => {
    const messages = [
      { id: '1', role: 'system', content: 'You are helpful. '.repeat(20) },
      { id: '2', role: 'user', content: 'A question that is short.' },
      { id: '3', role: 'assistant', content: 'An answer, long enough to summarise. '.repeat(10) },
    ];
    const counted = unchangedAnswers.count;
    const result = compress(messages);
    assert.equal(unchangedAnswers.count, counted + 1, 'answered without the engine');
    assert.deepEqual(result.compression, {
      original_version: 0,
      ratio: 1,
      token_ratio: 1,
      messages_compressed: 0,
      messages_preserved: 3,
    });
    assert.ok(result.messages.every((m, i) => m === messages[i]));
    // With the window at 0 the assistant turn is summarised: the engine's work.
    const window0 = compress(messages, { recencyWindow: 0 });
    assert.equal(unchangedAnswers.count, counted + 1, 'this one went to the engine');
    assert.equal(window0.compression.messages_compressed, 1);
  });
});
