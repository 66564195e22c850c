// SPDX-License-Identifier: MIT
// The wasm-memory checks of memory.test.mjs (the Node entry's speed build) and
// memory-size-build.test.mjs (the browsers' size build, with its own allocator): thousands of
// consecutive calls keep the heap flat, seen both as the memory's size and as the allocator's free
// space (probes).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

// The live Emscripten module (internal): its heap size and allocator, to measure from outside.
import { currentEngine } from '../../../dist/load.js';

const WARM_UP = 200;
const LEAK_CALLS = 2000;
export const PROBE_BLOCK = 4096;

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

/**
 * Free heap found by allocating PROBE_BLOCK-byte blocks until the heap has to grow (the last block
 * is the one that grew it); everything is freed again. Returns the free bytes below the old top
 * and how much the heap grew.
 */
function probe() {
  const raw = currentEngine();
  const start = heapBytes();
  const blocks = [];
  let free = 0;
  for (;;) {
    const p = raw._malloc(PROBE_BLOCK);
    assert.notEqual(p, 0, 'the probe reached the maximum heap');
    blocks.push(p);
    if (raw.HEAPU8.buffer.byteLength !== start) break;
    free += PROBE_BLOCK;
  }
  for (const p of blocks) raw._free(p);
  return { free, grown: heapBytes() - start };
}

/**
 * Heap bytes that `calls` calls of `run` keep: free heap before and after, from probes. A probe
 * itself moves the heap top, which costs a little (more as the heap grows), so the figure for
 * `calls` is compared with the same measurement over a short run of `shortCalls`.
 */
export function keptBytes(run, shortCalls, calls) {
  const p0 = probe();
  for (let i = 0; i < shortCalls; i++) run(i);
  const p1 = probe();
  const heapBefore = heapBytes();
  const t0 = performance.now();
  for (let i = 0; i < calls; i++) run(i);
  const ms = performance.now() - t0;
  const heapAfter = heapBytes();
  const p2 = probe();
  return {
    ms,
    heapBefore,
    heapAfter,
    free: p2.free,
    short: p0.free + p0.grown - p1.free,
    long: p1.free + p1.grown - p2.free,
  };
}

export const mb = (bytes) => `${(bytes / 2 ** 20).toFixed(2)} MB`;

/**
 * The flat-heap tests over `api` ({ compress, uncompress }), `calls` compress calls long. With
 * `probes`, the allocator's free space is measured too (free-space probes: blocks of 4 KB until
 * the memory grows), which catches leaks far smaller than the free heap; that reading assumes an
 * allocator that merges freed neighbours (dlmalloc, emmalloc). The size build's size-class lists
 * never merge, so there the probes would read the calls' fragmentation of the probe blocks as
 * kept bytes: it is checked by the memory's size alone (and by bindings.test.mjs's malloc/free
 * test).
 */
export function describeFlatHeap(api, calls, label, { probes = true } = {}) {
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
      const heapAfterWarmUp = heapBytes();
      const t0 = performance.now();
      for (let i = 0; i < CALLS; i++) run(i);
      const ms = performance.now() - t0;
      const heapAfterCalls = heapBytes();
      if (!probes) {
        console.log(
          `compress x${CALLS}: ${(ms / 1000).toFixed(1)} s (${(ms / CALLS).toFixed(2)} ms/call); ` +
            `heap after ${WARM_UP} warm-up calls ${mb(heapAfterWarmUp)}, after ${CALLS} more ` +
            `${mb(heapAfterCalls)}`,
        );
        assert.equal(heapAfterCalls, heapAfterWarmUp, 'the heap grew during the calls');
        return;
      }
      // Then the allocator's view: free heap before and after 2,000 more calls (a leak smaller than
      // the free heap would never grow memory).
      const m = keptBytes(run, WARM_UP, LEAK_CALLS);
      console.log(
        `compress x${CALLS}: ${(ms / 1000).toFixed(1)} s (${(ms / CALLS).toFixed(2)} ms/call, ` +
          `${size} bytes, ${INPUT.length} messages); heap after ${WARM_UP} warm-up calls ` +
          `${mb(heapAfterWarmUp)}, after ${CALLS} more ${mb(heapAfterCalls)}; free heap ` +
          `${mb(m.free)}; heap kept (free-space probes): ${m.short} bytes after ${WARM_UP} calls, ` +
          `${m.long} after ${LEAK_CALLS}`,
      );
      assert.equal(heapAfterCalls, heapAfterWarmUp, 'the heap grew during the calls');
      assert.equal(m.heapAfter, m.heapBefore, 'the heap grew during the probed calls');
      // The probes count whole 4 KB blocks and each one moves the heap top, so both figures carry
      // a block or two of noise; a leak of 16 bytes per call would add 29 KB to the second one.
      assert.ok(m.long - m.short <= 2 * PROBE_BLOCK, `the calls kept ${m.long - m.short} bytes`);
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
      for (let i = 0; i < 50; i++) run(i);
      if (!probes) {
        const before = heapBytes();
        for (let i = 0; i < 1000; i++) run(i);
        console.log(`uncompress x1000: heap ${mb(before)} -> ${mb(heapBytes())}`);
        assert.equal(heapBytes(), before, 'the heap grew during the calls');
        return;
      }
      const m = keptBytes(run, 50, 1000);
      console.log(
        `uncompress x1000: ${(m.ms / 1000).toFixed(2)} s; heap ${mb(m.heapBefore)} -> ` +
          `${mb(m.heapAfter)}; kept: ${m.short} bytes by 50 calls, ${m.long} by 1000`,
      );
      assert.equal(m.heapAfter, m.heapBefore, 'the heap grew during the calls');
      assert.ok(m.long - m.short <= 2 * PROBE_BLOCK, `the calls kept ${m.long - m.short} bytes`);
    });
  });
}
