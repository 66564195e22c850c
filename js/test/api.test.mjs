// SPDX-License-Identifier: MIT
// The public API against the built package: shapes, identity, spread semantics, lone surrogates.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { compress, defaultTokenCounter, uncompress } from 'cce-wasm';
import { sharedUrl } from './support/shared-data.mjs';

// Spec §13 example 1: one sentence repeated five times (350 chars), recencyWindow 0.
const SENTENCE = 'This is a long message about general topics that could be compressed.';
const LONG = `${SENTENCE} `.repeat(5);
const SUMMARY = `[summary: ${SENTENCE}]`;
// Comparisons with the reference pin its mode (the engine's default is its safe mode).
const REF = { compat: 'cce-1.0' };

describe('compress', () => {
  test('reproduces the reference result of the spec worked example 1', () => {
    const input = [{ id: '1', role: 'user', content: LONG }];
    const result = compress(input, { ...REF, recencyWindow: 0 });
    assert.equal(
      JSON.stringify(result),
      JSON.stringify({
        messages: [
          {
            id: '1',
            role: 'user',
            content: SUMMARY,
            metadata: { _cce_original: { ids: ['1'], summary_id: 'cce_sum_3t1y', version: 0 } },
          },
        ],
        compression: {
          original_version: 0,
          ratio: 4.375,
          token_ratio: 4.3478260869565215,
          messages_compressed: 1,
          messages_preserved: 0,
        },
        verbatim: { 1: input[0] },
      }),
    );
    assert.equal(result.verbatim['1'], input[0], 'verbatim holds the caller object itself');
  });

  test('builds a compressed message as {...source, content, metadata: {...metadata, _cce_original}}', () => {
    const source = {
      id: '1',
      role: 'user',
      content: LONG,
      name: 'bob',
      metadata: { trace: 't-1' },
      extra: [1],
    };
    const result = compress([source], { ...REF, recencyWindow: 0 });
    const out = result.messages[0];
    assert.notEqual(out, source);
    assert.deepEqual(Object.keys(out), ['id', 'role', 'content', 'name', 'metadata', 'extra']);
    assert.equal(out.extra, source.extra, 'unknown fields are carried by reference (shallow copy)');
    assert.deepEqual(out.metadata, {
      trace: 't-1',
      _cce_original: { ids: ['1'], summary_id: 'cce_sum_3t1y', version: 0 },
    });
    assert.equal(out.content, SUMMARY);
    assert.deepEqual(source.metadata, { trace: 't-1' }, 'the input is not mutated');
    assert.equal(source.content, LONG);
  });

  test('returns unchanged messages as the caller objects themselves', () => {
    const input = [
      { id: 's', role: 'system', content: LONG },
      { id: 'u', role: 'user', content: LONG },
      { id: 'a', role: 'assistant', content: 'short answer' },
    ];
    const result = compress(input, { recencyWindow: 1 });
    assert.equal(result.messages[0], input[0], 'preserved role');
    assert.notEqual(result.messages[1], input[1], 'compressed');
    assert.equal(result.messages[2], input[2], 'recency window');
    assert.equal(result.compression.messages_preserved, 2);
  });

  test('takes the fast path with the input array itself (spec §13 example 12)', () => {
    const input = [{ id: 'x', role: 'user', content: 'hi' }];
    const result = compress(input, { ...REF, tokenBudget: 100 });
    assert.equal(result.messages, input);
    assert.equal(
      JSON.stringify(result),
      '{"messages":[{"id":"x","role":"user","content":"hi"}],"compression":{"original_version":0,' +
        '"ratio":1,"token_ratio":1,"messages_compressed":0,"messages_preserved":1},"verbatim":{},' +
        '"fits":true,"tokenCount":1,"recencyWindow":1}',
    );
  });

  test('returns the empty-input result of spec §1.5', () => {
    assert.equal(
      JSON.stringify(compress([], REF)),
      '{"messages":[],"compression":{"original_version":0,"ratio":1,"token_ratio":1,' +
        '"messages_compressed":0,"messages_preserved":0},"verbatim":{}}',
    );
  });

  test('accepts compat "cce-1.0" and rejects other modes', () => {
    const input = [{ id: '1', role: 'user', content: LONG }];
    assert.equal(
      compress(input, { recencyWindow: 0, compat: 'cce-1.0' }).messages[0].content,
      SUMMARY,
    );
    assert.throws(
      () => compress(input, { compat: 'cce-2.0' }),
      (e) => e.code === 'InvalidInput' && e.path === '/options/compat',
    );
  });

  test('leaves untouched messages alone under forceConverge in the default (safe) mode', () => {
    const input = [
      { id: 't', role: 'assistant', content: 'y'.repeat(700), tool_calls: [{ id: 'call' }] },
      { id: 'u', role: 'user', content: 'short reply' },
    ];
    // 100: a budget the truncation meets (35 tokens); at 10 the ladder would clear the message.
    const result = compress(input, { tokenBudget: 100, forceConverge: true });
    assert.equal(result.messages[1], input[1], 'not cloned with metadata: {}');
    assert.match(result.messages[0].content, /^\[truncated \u2014 700 chars: y{512}\]$/);
    const restored = uncompress(result.messages, result.verbatim).messages;
    assert.deepEqual(restored, input, 'exact round trip');
    assert.equal(restored[0], input[0]);
  });

  test('is synchronous without a summarizer', () => {
    const result = compress([{ id: '1', content: 'x' }]);
    assert.ok(!(result instanceof Promise));
    assert.ok(Array.isArray(result.messages));
  });

  test('keeps lone surrogates and split pairs exact through forceConverge truncation', () => {
    // A tool_calls message is kept by the pipeline but eligible for forceConverge (spec §9.3),
    // whose tag is `[truncated — <len> chars: <first 512 code units>]`.
    const content = `${'x'.repeat(100)}\ud800${'y'.repeat(410)}\ud83d\ude00${'z'.repeat(200)}\udc00 end`;
    const input = [
      { id: 't', role: 'assistant', content, tool_calls: [{ id: 'call' }] },
      { id: 'u', role: 'user', content: 'short reply' },
      { id: 'v', role: 'user', content: 'another short one' },
    ];
    const result = compress(input, { ...REF, tokenBudget: 10, forceConverge: true });
    const expected = `[truncated \u2014 ${content.length} chars: ${content.slice(0, 512)}]`;
    assert.ok(
      expected.includes('\ud800y') && expected.endsWith('\ud83d]'),
      'the cut splits the pair',
    );
    assert.equal(result.messages[0].content, expected);
    assert.equal(result.fits, false);
    assert.deepEqual(result.verbatim.t, { ...input[0], metadata: {} });
    const restored = uncompress(result.messages, result.verbatim).messages;
    assert.equal(restored[0].content, content);
    assert.ok(JSON.stringify(result).includes('\\ud83d]'), 'JSON.stringify escapes the lone half');
  });

  test('passes lone surrogates of input messages through the engine', () => {
    const input = [
      { id: 'a', role: 'user', content: `lone \ud800 high and \udfff low` },
      { id: 'b', role: 'assistant', content: `[summary: earlier \udbff summary]` },
    ];
    const result = compress(input, { recencyWindow: 0 });
    assert.equal(result.messages[0], input[0]);
    assert.equal(result.messages[1], input[1]);
    assert.equal(result.compression.messages_compressed, 0);
  });

  test('matches the reference on a conversation with odd shapes (corpus seed-1)', async () => {
    const { readFileSync } = await import('node:fs');
    const c = JSON.parse(
      readFileSync(
        sharedUrl('conformance/public/cases/seed-1-recompress.json'),
        'utf8',
      ),
    );
    const result = compress(c.input.messages, { ...c.input.options, ...REF });
    assert.equal(JSON.stringify(result), JSON.stringify(c.expected.compress));
  });
});

describe('uncompress', () => {
  const g = {
    id: 'g',
    content: '[summary: g]',
    metadata: { _cce_original: { ids: ['a', 'b', 'c'] } },
  };
  const h = { id: 'h', content: '[summary: h]', metadata: { _cce_original: { ids: ['zz'] } } };
  const b = { id: 'b', role: 'user', content: 'the original b' };

  test('expands with a map as in the verified example of spec §11', () => {
    const result = uncompress([g, h], { b });
    assert.deepEqual(result, {
      messages: [b, h],
      messages_expanded: 1,
      messages_passthrough: 1,
      missing_ids: ['a', 'c', 'zz'],
    });
    assert.equal(result.messages[0], b, 'originals come back by reference');
    assert.equal(result.messages[1], h, 'unexpanded messages are the caller objects');
    assert.deepEqual(Object.keys(result), [
      'messages',
      'messages_expanded',
      'messages_passthrough',
      'missing_ids',
    ]);
  });

  test('re-reports missing ids on the recursive pass (spec §11)', () => {
    const result = uncompress([g, h], { b }, { recursive: true });
    assert.deepEqual(result, {
      messages: [b, h],
      messages_expanded: 1,
      messages_passthrough: 2,
      missing_ids: ['a', 'c', 'zz', 'zz'],
    });
  });

  test('accepts a lookup function and calls it with the ids', () => {
    const asked = [];
    const result = uncompress([g, h], (id) => (asked.push(id), id === 'b' ? b : undefined));
    assert.deepEqual(result, {
      messages: [b, h],
      messages_expanded: 1,
      messages_passthrough: 1,
      missing_ids: ['a', 'c', 'zz'],
    });
    assert.equal(result.messages[0], b);
    assert.deepEqual([...new Set(asked)].sort(), ['a', 'b', 'c', 'zz']);
  });

  test('counts only truthy lookup results as found', () => {
    const result = uncompress([h], () => 0);
    assert.deepEqual(result.missing_ids, ['zz']);
    assert.equal(result.messages[0], h);
  });

  test('follows chains recursively through a lookup function', () => {
    const level2 = { id: 'x', content: 'original x' };
    const level1 = {
      id: 'y',
      content: '[summary: y]',
      metadata: { _cce_original: { ids: ['x'] } },
    };
    const top = { id: 'z', content: '[summary: z]', metadata: { _cce_original: { ids: ['y'] } } };
    const store = new Map([
      ['x', level2],
      ['y', level1],
    ]);
    const result = uncompress([top], (id) => store.get(id), { recursive: true });
    assert.equal(result.messages[0], level2);
    assert.equal(result.messages_expanded, 2);
  });

  test('round-trips a compression with the verbatim map and with a lookup function', () => {
    const input = [
      { id: 'a', role: 'user', content: LONG },
      { id: 'b', role: 'user', content: LONG.replace('general', 'specific') },
      { id: 'c', role: 'assistant', content: 'ok' },
    ];
    const result = compress(input, { recencyWindow: 1, dedup: false });
    for (const store of [result.verbatim, (id) => result.verbatim[id]]) {
      const restored = uncompress(result.messages, store);
      assert.equal(restored.messages.length, 3);
      restored.messages.forEach((m, i) => assert.equal(m, input[i]));
      assert.deepEqual(restored.missing_ids, []);
    }
  });

  test('treats an object store by its own keys only', () => {
    const m = {
      id: 'm',
      content: '[summary]',
      metadata: { _cce_original: { ids: ['constructor'] } },
    };
    assert.deepEqual(uncompress([m], {}).missing_ids, ['constructor']);
  });
});

describe('defaultTokenCounter', () => {
  test('is ceil(UTF-16 length / 3.5) on string content and 0 otherwise (spec §1.8)', () => {
    const cases = [
      ['', 0],
      ['a', 1],
      ['abcdefg', 2],
      ['abcdefgh', 3],
      ['😀', 1],
      ['x'.repeat(350), 100],
    ];
    for (const [content, tokens] of cases)
      assert.equal(defaultTokenCounter({ id: '1', content }), tokens, content);
    assert.equal(defaultTokenCounter({ id: '1', content: ['parts'] }), 0);
    assert.equal(defaultTokenCounter({ id: '1' }), 0);
  });
});
