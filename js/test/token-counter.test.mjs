// SPDX-License-Identifier: MIT
// Custom token counters: called in JS on whole message objects, the ones the result returns.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';

import { compress, CompressError, defaultTokenCounter, estimateTokens } from 'cce-wasm';
import { sharedUrl } from './support/shared-data.mjs';

const cases = sharedUrl('conformance/public/cases/');
// Corpus cases are the reference's outputs: run them in its mode (the default is the safe mode).
const loadCase = (name) => {
  const c = JSON.parse(readFileSync(new URL(`${name}.json`, cases), 'utf8'));
  c.input.options = { ...c.input.options, compat: 'cce-1.0' };
  return c;
};
const len = (m) => (typeof m.content === 'string' ? m.content.length : 0);
const structureAware = (m) => {
  let n = Math.ceil(len(m) / 4);
  if (m.metadata !== null && typeof m.metadata === 'object' && m.metadata._cce_original) n += 3;
  if (Array.isArray(m.tool_calls)) n += 2 * m.tool_calls.length;
  return n;
};

describe('tokenCounter', () => {
  test('sees whole messages, and every returned message is an object it counted', () => {
    const c = loadCase('counter-structure-aware-budget-search-5014');
    const seen = new Set();
    const result = compress(c.input.messages, {
      ...c.input.options,
      tokenCounter: (m) => (seen.add(m), structureAware(m)),
    });
    assert.equal(JSON.stringify(result), JSON.stringify(c.expected.compress));
    assert.ok(
      result.messages.some((m) => !c.input.messages.includes(m)),
      'some messages were rebuilt',
    );
    for (const m of c.input.messages)
      assert.ok(seen.has(m), `input ${m.id} counted as the caller object`);
    for (const m of result.messages)
      assert.ok(seen.has(m), `output ${m.id} counted as the returned object`);
  });

  test('counts forceConverge truncations on the returned objects', () => {
    const c = loadCase('counter-structure-aware-budget-force-5021');
    const seen = new Set();
    const result = compress(c.input.messages, {
      ...c.input.options,
      tokenCounter: (m) => (seen.add(m), structureAware(m)),
    });
    assert.equal(JSON.stringify(result), JSON.stringify(c.expected.compress));
    const truncated = result.messages.filter((m) => m.content?.startsWith('[truncated'));
    assert.ok(truncated.length > 0);
    for (const m of truncated)
      assert.ok(seen.has(m), `truncated ${m.id} counted as the returned object`);
  });

  test('drives the budget search (corpus counter-words-budget-search)', () => {
    const c = loadCase('counter-words-budget-search-5002');
    const words = (m) => {
      const text = typeof m.content === 'string' ? m.content.trim() : '';
      return 4 + (text ? text.split(/\s+/).length : 0);
    };
    const result = compress(c.input.messages, { ...c.input.options, tokenCounter: words });
    assert.equal(JSON.stringify(result), JSON.stringify(c.expected.compress));
    assert.notEqual(
      JSON.stringify(compress(c.input.messages, c.input.options)),
      JSON.stringify(c.expected.compress),
      'the default counter would give another result',
    );
  });

  test('keeps non-integer counts exact (float-div-3.5 incremental tokenCount)', () => {
    const c = loadCase('counter-float-div-3.5-tiny-force-5012');
    const result = compress(c.input.messages, {
      ...c.input.options,
      tokenCounter: (m) => len(m) / 3.5,
    });
    assert.equal(result.tokenCount, 929.9999999999998);
    assert.equal(JSON.stringify(result), JSON.stringify(c.expected.compress));
  });

  test('takes the fast path with a zero counter and tokenBudget 0', () => {
    const input = [{ id: 'a', role: 'user', content: 'x'.repeat(5000) }];
    const result = compress(input, { tokenBudget: 0, tokenCounter: () => 0 });
    assert.equal(result.messages, input);
    assert.deepEqual([result.fits, result.tokenCount, result.recencyWindow], [true, 0, 1]);
  });

  test('sees the fields the engine never reads (name, tool_calls entries, metadata)', () => {
    const input = [
      {
        id: 'a',
        role: 'user',
        content: 'A sentence that is long enough to be summarised. '.repeat(6),
        name: 'ann',
        metadata: { k: 1 },
      },
      { id: 'b', role: 'assistant', content: 'done', tool_calls: [{ function: { name: 'f' } }] },
    ];
    const seen = [];
    compress(input, { recencyWindow: 0, tokenCounter: (m) => (seen.push(m), 1) });
    assert.ok(seen.some((m) => m.name === 'ann' && m.metadata.k === 1));
    assert.ok(seen.some((m) => m.tool_calls?.[0]?.function?.name === 'f'));
  });

  test('passing defaultTokenCounter equals passing none', () => {
    const c = loadCase('seed-3-unicode');
    const plain = JSON.stringify(
      compress(c.input.messages, { ...c.input.options, tokenBudget: 500 }),
    );
    const explicit = JSON.stringify(
      compress(c.input.messages, {
        ...c.input.options,
        tokenBudget: 500,
        tokenCounter: defaultTokenCounter,
      }),
    );
    const wrapped = JSON.stringify(
      compress(c.input.messages, {
        ...c.input.options,
        tokenBudget: 500,
        tokenCounter: (m) => defaultTokenCounter(m),
      }),
    );
    assert.equal(explicit, plain);
    assert.equal(wrapped, plain);
  });

  test('works together with an async summarizer (corpus counter-*-async)', async () => {
    const c = loadCase('counter-const-7-budget-search-5038-async-first-half');
    const calls = [];
    const result = await compress(c.input.messages, {
      ...c.input.options,
      tokenCounter: () => 7,
      summarizer: (t) => (calls.push(t), t.slice(0, Math.floor(t.length / 2))),
    });
    assert.equal(JSON.stringify(result), JSON.stringify(c.expected.compress));
    assert.deepEqual(calls, c.expected.summarizer_calls);
  });
});

describe('estimateTokens: the default mode\'s estimate, for your own displays', () => {
  const texts = [
    'hello world',
    'The importer commits after every row; batching 500 rows at a time fixes it.',
    '什么是上下文窗口？它决定了模型一次能读多少内容。'.repeat(6),
    'emoji 😀👍🏽 and a lone \ud800 surrogate',
    '```ts\nconst retryConfig = { maxAttempts: 3 };\n```',
  ];

  test('is what compress budgets a message\'s text with (plus 4 tokens a message)', () => {
    for (const text of texts) {
      const { tokenCount } = compress([{ id: 'm', role: 'user', content: text }], {
        tokenBudget: 1e9,
      });
      assert.equal(estimateTokens(text) + 4, tokenCount, text);
    }
  });

  test('counts CJK text at least twice what length / 3.5 says', () => {
    const han = texts[2];
    assert.ok(estimateTokens(han) >= 2 * defaultTokenCounter({ id: 'h', content: han }));
  });

  test('is 0 for the empty string and a typed error for a non-string', () => {
    assert.equal(estimateTokens(''), 0);
    assert.throws(
      () => estimateTokens(42),
      (e) => e instanceof CompressError && e.code === 'InvalidInput' && e.path === '/text',
    );
    assert.equal(estimateTokens('hello world'), estimateTokens('hello world'));
  });
});
