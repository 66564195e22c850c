// SPDX-License-Identifier: MIT
// compress with a summarizer: real Promises, sequential calls, per-request fallback (spec §10.1).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';

import { compress, CompressError } from 'cce-wasm';
import { sharedUrl } from './support/shared-data.mjs';

const cases = sharedUrl('conformance/public/cases/');
const loadCase = (name) => JSON.parse(readFileSync(new URL(`${name}.json`, cases), 'utf8'));

// A corpus conversation with several summarisation requests (expected calls recorded by the oracle).
const rw1 = loadCase('async-first-half-rw1');
// The corpus is the reference's output: pin its mode (the engine's default is its safe mode).
rw1.input.options.compat = 'cce-1.0';
const fresh = () => JSON.parse(JSON.stringify(rw1.input.messages));
const firstHalf = (text) => text.slice(0, Math.floor(text.length / 2));

describe('compress with a summarizer', () => {
  test('returns a Promise even for a synchronous summarizer', async () => {
    const calls = [];
    const pending = compress(fresh(), {
      ...rw1.input.options,
      summarizer: (t) => (calls.push(t), firstHalf(t)),
    });
    assert.ok(pending instanceof Promise);
    const result = await pending;
    assert.equal(JSON.stringify(result), JSON.stringify(rw1.expected.compress));
    assert.deepEqual(calls, rw1.expected.summarizer_calls);
  });

  test('awaits an async summarizer one request at a time, in the reference order', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const calls = [];
    const summarizer = async (text) => {
      calls.push(text);
      maxInFlight = Math.max(maxInFlight, ++inFlight);
      await new Promise((r) => setTimeout(r, 2));
      inFlight--;
      return firstHalf(text);
    };
    const result = await compress(fresh(), { ...rw1.input.options, summarizer });
    assert.equal(maxInFlight, 1);
    assert.deepEqual(calls, rw1.expected.summarizer_calls);
    assert.equal(JSON.stringify(result), JSON.stringify(rw1.expected.compress));
  });

  // Spec §10.1: without usable summaries the async path produces exactly the sync output.
  const fallbacks = {
    throws: () => {
      throw new Error('sync failure');
    },
    rejects: async () => {
      throw new Error('async failure');
    },
    'returns a number': () => 42,
    'resolves undefined': async () => undefined,
    'returns an empty string': () => '',
    'returns a longer string': (t) => `${t}!`,
    'returns the text itself': (t) => t,
    'is not a function (but truthy)': 'not callable',
  };
  for (const [name, summarizer] of Object.entries(fallbacks)) {
    test(`falls back to the deterministic summary when the summarizer ${name}`, async () => {
      const sync = compress(fresh(), rw1.input.options);
      const viaAsync = await compress(fresh(), { ...rw1.input.options, summarizer });
      assert.equal(JSON.stringify(viaAsync), JSON.stringify(sync));
    });
  }

  test('applies the fallback per request', async () => {
    const sync = compress(fresh(), rw1.input.options);
    const input = fresh();
    let n = 0;
    const result = await compress(input, {
      ...rw1.input.options,
      summarizer: (text) => {
        if (n++ === 0) throw new Error('only the first request fails');
        return 'SHORT SUMMARY';
      },
    });
    assert.ok(n >= 2, 'several requests were made');
    const summarised = result.messages
      .map((m, i) => [m, sync.messages[i]])
      .filter(([m]) => !input.includes(m) && m.content.startsWith('[summary'));
    const viaSummarizer = summarised.filter(([m]) =>
      m.content.startsWith('[summary: SHORT SUMMARY'),
    );
    const fellBack = summarised.filter(([m]) => !m.content.startsWith('[summary: SHORT SUMMARY'));
    assert.equal(fellBack.length, 1, 'exactly the failed request fell back');
    assert.equal(fellBack[0][0].content, fellBack[0][1].content, 'to the deterministic summary');
    assert.equal(viaSummarizer.length, n - 1);
  });

  test('rejects (not throws) when the token counter fails in async mode', async () => {
    const boom = new Error('counter failed');
    let returned;
    assert.doesNotThrow(() => {
      returned = compress(fresh(), {
        summarizer: firstHalf,
        tokenCounter: () => {
          throw boom;
        },
      });
    });
    await assert.rejects(returned, (e) => e.code === 'CallbackFailed' && e.cause === boom);
  });

  test('repeats the calls of every budget-search step (corpus async-fixed-budget-1)', async () => {
    const c = loadCase('async-fixed-budget-1');
    const calls = [];
    const result = await compress(c.input.messages, {
      ...c.input.options,
      compat: 'cce-1.0',
      summarizer: (t) => (calls.push(t), 'MOCK SUMMARY'),
    });
    assert.equal(JSON.stringify(result), JSON.stringify(c.expected.compress));
    assert.deepEqual(calls, c.expected.summarizer_calls);
    assert.ok(calls.length > new Set(calls).size, 'texts were asked again in later steps');
  });

  test('runs interleaved compressions independently (the boundary keeps no state)', async () => {
    const slow = async (text) => {
      await new Promise((r) => setTimeout(r, 1));
      return firstHalf(text);
    };
    const options = { ...rw1.input.options, summarizer: slow };
    const results = await Promise.all([compress(fresh(), options), compress(fresh(), options)]);
    for (const r of results) assert.equal(JSON.stringify(r), JSON.stringify(rw1.expected.compress));
  });

  test('lets callbacks call compress again (the engine never calls back into JS)', async () => {
    const nested = (text) =>
      compress([{ id: 'n', role: 'user', content: text }]).messages[0].content.slice(0, 10);
    const result = await compress(fresh(), {
      ...rw1.input.options,
      summarizer: nested,
      tokenCounter: (m) => compress([m]).messages.length,
    });
    assert.equal(result.messages.length, rw1.expected.compress.messages.length);
  });

  test('validation errors are synchronous CompressErrors', () => {
    assert.throws(() => compress('x', { summarizer: firstHalf }), CompressError);
  });
});
