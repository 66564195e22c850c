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
    // 250: a budget the truncation alone meets (230 tokens); at 10 the ladder would omit it.
    const result = compress(input, { tokenBudget: 250, forceConverge: true });
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
