// SPDX-License-Identifier: MIT
// The wasm-memory checks of memory.test.mjs (the Node entry's speed build) and
// memory-size-build.test.mjs (the browsers' size build): thousands of consecutive calls keep the
// heap flat, seen as the memory's size and the allocator's top (heapTop). Both compress builds
// have the size-class allocator (wasm/size_class_heap.cpp), whose lists never merge freed
// neighbours, so the allocator's free space cannot be read from outside by probing it with blocks
// of one size: the probes would fragment what they measure (they did so when the speed build took
// it, 2026-11-27); one probe larger than any free block finds the top instead.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

// The live Emscripten module (internal): its heap size and allocator, to measure from outside.
import { currentEngine } from '../../../dist/load.js';

const WARM_UP = 200;

export const PROSE = [
  'The deployment pipeline retried the upload three times before the storage node answered.',
  'Alice reviewed the migration plan and asked Bob to double-check the rollback steps.',
  'We should cache the parsed configuration instead of reading the file on every request.',
  'Memory usage grew slowly over the weekend, which points at the connection pool.',
  '数据库连接在三次重试之后恢复正常，请检查连接池的配置。 🚀',
];

const CODE = '```js\nconst total = items.reduce((a, b) => a + b.price, 0);\n```';

/** About 40 messages and 30 KB: prose, code, JSON, a tool call, a duplicate, astral text. */
function midSizeConversation() {
  const messages = [{ id: 'sys', role: 'system', content: 'You are a careful assistant.' }];
  for (let i = 0; messages.length < 36; i++) {
    const text = Array.from({ length: 6 + (i % 5) }, (_, k) => PROSE[(i + k) % PROSE.length]);
    messages.push({ id: `u${i}`, role: 'user', content: `${text.join(' ')} (${i})` });
    const reply =
      i % 4 === 1
        ? `${text.slice(0, 3).join(' ')}\n\n${CODE}\n\n${text.join(' ')}`
        : i % 4 === 3
          ? JSON.stringify({ step: i, items: text.map((t, k) => ({ k, t })) }, null, 2)
          : `${text.reverse().join(' ')} [${i}]`;
    messages.push({ id: `a${i}`, role: 'assistant', content: reply });
  }
  messages.push({ id: 'dup', role: 'user', content: messages[1].content });
  messages.push({ id: 'call', role: 'assistant', content: '', tool_calls: [{ id: 'c1' }] });
  const output = PROSE.join('\n').repeat(6);
  messages.push({ id: 'res', role: 'tool', tool_call_id: 'c1', content: output });
  messages.push({ id: 'last', role: 'user', content: 'Thanks, that helps.' });
  return messages;
}

export const INPUT = midSizeConversation();
// Every call path: core, budget search with truncation, the reference mode, a custom counter.
export const OPTION_SETS = [
  { recencyWindow: 4 },
  { tokenBudget: 1500 },
  { compat: 'cce-1.0', fuzzyDedup: true, recencyWindow: 2 },
  { recencyWindow: 0, embedSummaryId: true, tokenCounter: (m) => (m.content?.length ?? 0) >> 2 },
];

function heapBytes() {
  return currentEngine().HEAPU8.buffer.byteLength;
}

// Larger than any block these tests' calls free, so never served from a free list.
const TOP_PROBE_BYTES = 2 << 20;

/**
 * Where the allocator's top stands (wasm/size_class_heap.cpp carves new blocks there): a probe
 * block larger than any free one is carved at the top, and freeing it puts the top back, so its
 * address is the top. The memory's size only sees a leak once it outgrows the initial 16 MB; the
 * top sees a lost block a call as soon as the free lists of its class run dry.
 */
export function heapTop() {
  const engine = currentEngine();
  const pointer = engine._malloc(TOP_PROBE_BYTES);
  assert.ok(pointer > 0, 'the top probe got no block');
  engine._free(pointer);
  return pointer;
}

/**
 * The wasm memory's size and the allocator's top after `warmUp` calls of `run` and after `calls`
 * more. Calls that repeat one pattern leave the top where it was when both counts end on the
 * same step of the pattern (a block freed just below the top lowers it).
 */
export function heapGrowth(run, warmUp, calls) {
  for (let i = 0; i < warmUp; i++) run(i);
  const topBefore = heapTop();
  const before = heapBytes();
  for (let i = 0; i < calls; i++) run(i);
  const after = heapBytes();
  return { before, after, topBefore, topAfter: heapTop() };
}

export const mb = (bytes) => `${(bytes / 2 ** 20).toFixed(2)} MB`;

/**
 * The flat-heap tests over `api` ({ compress, uncompress }), `calls` compress calls long: the
 * memory's size, and bindings.test.mjs's malloc/free test for the allocator itself.
 */
export function describeFlatHeap(api, calls, label) {
  const { compress, uncompress } = api;
  const CALLS = calls;
  describe(`wasm memory stays flat (${label})`, () => {
    test(`${CALLS} compress calls in a row on a 41-message, 29 KB conversation grow nothing`, () => {
      assert.ok(INPUT.length >= 40, `${INPUT.length} messages`);
      const size = JSON.stringify(INPUT).length;
      assert.ok(size >= 25_000 && size <= 40_000, `${size} bytes`);
      const expected = OPTION_SETS.map((o) => JSON.stringify(compress(INPUT, o)));
      const run = (i) => {
        const k = i % OPTION_SETS.length;
        const r = compress(INPUT, OPTION_SETS[k]);
        if (i % 997 === 0) assert.equal(JSON.stringify(r), expected[k], `call ${i} changed output`);
      };
      for (let i = 0; i < WARM_UP; i++) run(i);
      const topAfterWarmUp = heapTop();
      const heapAfterWarmUp = heapBytes();
      const t0 = performance.now();
      for (let i = 0; i < CALLS; i++) run(i);
      const ms = performance.now() - t0;
      const heapAfterCalls = heapBytes();
      const topAfterCalls = heapTop();
      console.log(
        `compress x${CALLS}: ${(ms / 1000).toFixed(1)} s (${(ms / CALLS).toFixed(2)} ms/call, ` +
          `${size} bytes, ${INPUT.length} messages); heap after ${WARM_UP} warm-up calls ` +
          `${mb(heapAfterWarmUp)}, after ${CALLS} more ${mb(heapAfterCalls)}`,
      );
      assert.equal(heapAfterCalls, heapAfterWarmUp, 'the heap grew during the calls');
      assert.equal(CALLS % OPTION_SETS.length, WARM_UP % OPTION_SETS.length, 'both end on one step');
      assert.equal(topAfterCalls, topAfterWarmUp, 'the allocator\'s top rose during the calls');
    });

    test('the top check fails on a lost 8-byte block a call', () => {
      // The leak the check above must catch, made from outside: one block a call never freed.
      const engine = currentEngine();
      const run = (i) => {
        compress(INPUT, OPTION_SETS[i % OPTION_SETS.length]);
        engine._malloc(8);
      };
      // The lost blocks first use up the free lists (a small request takes any larger free
      // block), then come from the top: by a few hundred calls in the speed build, about 2,500 in
      // the size build, whose calls leave more free blocks behind.
      const topBefore = heapTop();
      const heapBefore = heapBytes();
      let calls = 0;
      let topNow = topBefore;
      while (calls < 8000 && topNow <= topBefore) {
        for (let k = 0; k < 500; k++) run(calls++);
        topNow = heapTop();
      }
      assert.ok(topNow > topBefore, `the top stayed at ${topBefore} over ${calls} calls`);
      assert.equal(heapBytes(), heapBefore, 'the memory itself does not show a leak this small');
      console.log(`an 8-byte leak a call: the top rose by ${topNow - topBefore} bytes in ${calls} calls`);
    });

    test('1,000 uncompress calls in a row grow nothing', () => {
      const r = compress(INPUT, { recencyWindow: 0 });
      const expected = JSON.stringify(uncompress(r.messages, r.verbatim).messages);
      assert.equal(expected, JSON.stringify(INPUT));
      const lookup = (id) => r.verbatim[id];
      const run = (i) => {
        const out = uncompress(r.messages, i % 2 ? lookup : r.verbatim, { recursive: i % 3 === 0 });
        if (i % 97 === 0) assert.equal(JSON.stringify(out.messages), expected);
      };
      const m = heapGrowth(run, 50, 1000);
      console.log(`uncompress x1000: heap ${mb(m.before)} -> ${mb(m.after)}`);
      assert.equal(m.after, m.before, 'the heap grew during the calls');
      assert.equal(m.topAfter, m.topBefore, 'the allocator\'s top rose during the calls');
    });
  });
}
