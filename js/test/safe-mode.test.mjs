// SPDX-License-Identifier: MIT
// The default (safe) mode through the package, next to the reference behaviour it replaces.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { compress, uncompress } from 'cce-wasm';

const PROSE = 'The service retries the upload after a short pause and logs every failed attempt. ';
const OTHER = 'Another observation about the build cache and its eviction policy follows here. ';

const toolPair = () => [
  { id: 'a', role: 'assistant', content: '', tool_calls: [{ id: 'c1' }, { id: 'c2' }] },
  { id: 't1', role: 'tool', tool_call_id: 'c1', name: 'read', content: PROSE.repeat(3) },
  { id: 't2', role: 'tool', tool_call_id: 'c2', name: 'grep', content: OTHER.repeat(3) },
  { id: 'u', role: 'user', content: 'thanks' },
];

describe('safe mode', () => {
  test('every tool call keeps its own answer', () => {
    const safe = compress(toolPair(), { recencyWindow: 0 });
    assert.deepEqual(safe.messages.map((m) => m.tool_call_id ?? null), [null, 'c1', 'c2', null]);
    assert.ok(safe.messages[1].content.startsWith('[summary: '));
    const reference = compress(toolPair(), { recencyWindow: 0, compat: 'cce-1.0' });
    assert.equal(reference.messages.length, 3, 'the reference merges the two answers');
  });

  test('forceConverge leaves untouched messages alone, so uncompress restores the input', () => {
    const input = [
      { id: '0', role: 'user', content: JSON.stringify({ items: Array.from({ length: 120 }, (_, k) => ({ k })) }) },
      { id: '1', role: 'assistant', content: 'short reply' },
      { id: '2', role: 'user', content: 'another short one' },
    ];
    // 275: a budget the truncation alone meets (269 tokens); at 10 the ladder would omit it.
    const result = compress(input, { tokenBudget: 275, forceConverge: true });
    assert.ok(result.messages[0].content.startsWith('[truncated \u2014 '));
    assert.equal(result.messages[1], input[1], 'an untouched message is the caller\'s own object');
    assert.equal(result.compression.messages_truncated, 1);
    const restored = uncompress(result.messages, result.verbatim);
    assert.equal(JSON.stringify(restored.messages), JSON.stringify(input));
  });

  test('a budget the protected messages alone exceed names them in blockingIds', () => {
    const input = [
      { id: 'sys', role: 'system', content: 'Follow the house rules. '.repeat(80) },
      { id: 'q', role: 'user', content: 'What changed?' },
    ];
    const result = compress(input, { tokenBudget: 20 });
    assert.equal(result.fits, false);
    assert.ok(result.blockingIds.includes('sys'), JSON.stringify(result.blockingIds));
  });

  test('many short messages converge to the budget with stubs that uncompress restores', () => {
    const input = [{ id: 's', role: 'system', content: 'You are terse.' }];
    for (let i = 0; i < 400; i++) {
      input.push({ id: `m${i}`, role: i % 2 ? 'assistant' : 'user', content: `message number ${i} of a long chat` });
    }
    const result = compress(input, { tokenBudget: 600 });
    assert.equal(result.fits, true);
    assert.ok(result.tokenCount <= 600);
    assert.ok(result.compression.messages_omitted > 0);
    const restored = uncompress(result.messages, result.verbatim);
    assert.equal(JSON.stringify(restored.messages), JSON.stringify(input));
  });
});

// Issue 21 item 1: inputs that already carry `_cce_original` from an earlier round, or naming ids
// that are also present as originals, come back as themselves.
describe('safe mode: messages that arrive carrying _cce_original', () => {
  const LONG = PROSE.repeat(3);
  const stale = (id, ids, content = 'ok') => ({
    id,
    role: 'user',
    content,
    metadata: { _cce_original: { ids, summary_id: 's', version: 0 } },
  });

  test('a stale _cce_original naming a compressed input restores as itself, not as [x, x]', () => {
    const input = [{ id: 'x', role: 'user', content: LONG }, stale('y', ['x'])];
    const result = compress(input, { recencyWindow: 0 });
    assert.ok(result.messages[0].content.startsWith('[summary: '));
    assert.equal(result.messages[1].content, 'ok');
    assert.deepEqual(result.messages[1].metadata._cce_original.ids, ['y']);
    assert.deepEqual(result.messages[1].metadata._cce_original.parent_ids, ['s']);
    assert.equal(result.verbatim.y, input[1], 'the stand-in\'s original is the caller\'s object');
    assert.deepStrictEqual(uncompress(result.messages, result.verbatim).messages, input);
    // The reference's behaviour, pinned under compat: y expands into x.
    const reference = compress(input, { recencyWindow: 0, compat: 'cce-1.0' });
    const restored = uncompress(reference.messages, reference.verbatim).messages;
    assert.deepEqual(restored.map((m) => m.id), ['x', 'x']);
  });

  test('a round-1 summary of [a, b] next to the original b restores [a, b, d], not [b, b, d]', () => {
    const first = compress(
      [
        { id: 'a', role: 'user', content: LONG },
        { id: 'b', role: 'user', content: OTHER.repeat(3) },
        { id: 'c', role: 'user', content: 'ok' },
      ],
      { recencyWindow: 1 },
    );
    const summary = first.messages[0];
    assert.deepEqual(summary.metadata._cce_original.ids, ['a', 'b']);
    const input = [summary, first.verbatim.b, { id: 'd', role: 'user', content: 'ok' }];
    const second = compress(input, { recencyWindow: 1 });
    assert.ok(second.messages[1].content.startsWith('[summary: '), 'b is compressed again');
    const restored = uncompress(second.messages, second.verbatim).messages;
    assert.deepEqual(restored.map((m) => m.id), ['a', 'b', 'd']);
    assert.deepStrictEqual(restored, input);
  });

  test('provenance that names nothing stored leaves the message the caller\'s own object', () => {
    const input = [{ id: 'x', role: 'user', content: LONG }, stale('y', ['ghost']), stale('z', ['z'])];
    const result = compress(input, { recencyWindow: 0 });
    assert.equal(result.messages[1], input[1]);
    assert.equal(result.messages[2], input[2]);
    assert.deepEqual(Object.keys(result.verbatim), ['x']);
    assert.deepStrictEqual(uncompress(result.messages, result.verbatim).messages, input);
  });
});
