// SPDX-License-Identifier: MIT
// Memory: thousands of consecutive calls keep the wasm heap flat (no leak in engine or transport).
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';

import { compress, uncompress } from 'cce-wasm';

// The live Emscripten module (internal): its heap size and allocator, to measure from outside.
import { currentEngine } from '../../dist/load.js';

const started = performance.now();
after(() => console.log(`memory.test.mjs: ${((performance.now() - started) / 1000).toFixed(1)} s`));

const CALLS = Number(process.env.CCE_MEMORY_CALLS ?? 10_000);
const WARM_UP = 200;
const LEAK_CALLS = 2000;
const PROBE_BLOCK = 4096;

const PROSE = [
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

const INPUT = midSizeConversation();
// Every call path: core, budget search with truncation, the reference mode, a custom counter.
const OPTION_SETS = [
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
function keptBytes(run, shortCalls, calls) {
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

const mb = (bytes) => `${(bytes / 2 ** 20).toFixed(2)} MB`;

describe('wasm memory stays flat', () => {
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
    const m = keptBytes(run, 50, 1000);
    console.log(
      `uncompress x1000: ${(m.ms / 1000).toFixed(2)} s; heap ${mb(m.heapBefore)} -> ` +
        `${mb(m.heapAfter)}; kept: ${m.short} bytes by 50 calls, ${m.long} by 1000`,
    );
    assert.equal(m.heapAfter, m.heapBefore, 'the heap grew during the calls');
    assert.ok(m.long - m.short <= 2 * PROBE_BLOCK, `the calls kept ${m.long - m.short} bytes`);
  });
});

// Requests are encoded straight into wasm memory (transport.ts HeapEncoder): a failure half-way
// through, or a caller's getter that itself compresses meanwhile, must not lose or share a block.
describe('requests written into wasm memory', () => {
  const TEXT = 'a long enough text to be worth compressing. '.repeat(20);

  /**
   * A message whose content getter throws when the request encoder reads it (found by its stack:
   * the checks before encoding read it too). By then half the request is in wasm memory.
   */
  function failingMessage() {
    return {
      id: 'late',
      role: 'user',
      get content() {
        if (new Error().stack.includes('encodeMessage')) throw new Error('content unreadable');
        return TEXT;
      },
    };
  }

  test('a request whose encoding throws part-way keeps no memory and the next call works', () => {
    const messages = [...INPUT.slice(0, 20), failingMessage(), ...INPUT.slice(20)];
    const run = () =>
      assert.throws(
        () => compress(messages, { recencyWindow: 0 }),
        (error) => error instanceof Error && error.message === 'content unreadable',
      );
    for (let i = 0; i < 20; i++) run();
    const m = keptBytes(run, 50, 1000);
    console.log(`failed encodes x1000: kept ${m.short} bytes by 50, ${m.long} by 1000`);
    assert.equal(m.heapAfter, m.heapBefore, 'the heap grew during the calls');
    assert.ok(m.long - m.short <= 2 * PROBE_BLOCK, `the calls kept ${m.long - m.short} bytes`);
    const plain = [...INPUT.slice(0, 20), { id: 'late', role: 'user', content: TEXT }];
    const expected = JSON.stringify(compress(structuredClone(plain), { recencyWindow: 4 }));
    assert.equal(JSON.stringify(compress(plain, { recencyWindow: 4 })), expected);
  });

  test('a request is written into one block, sized from the request before it', () => {
    // About 300 KB as a request: past the first block's 64 KB, so the first call grows it.
    const big = Array.from({ length: 400 }, (_, i) => ({
      id: `m${i}`,
      role: i % 2 ? 'assistant' : 'user',
      content: `${PROSE[i % PROSE.length].repeat(4)} (${i})`,
    }));
    const raw = currentEngine();
    const malloc = raw._malloc;
    const calls = (run) => {
      const sizes = [];
      raw._malloc = (n) => {
        sizes.push(n);
        return malloc(n);
      };
      try {
        run();
      } finally {
        raw._malloc = malloc;
      }
      return sizes;
    };
    compress(INPUT.slice(0, 3), {}); // a small request: the next block starts small again
    const first = calls(() => compress(big, { recencyWindow: 4 }));
    const again = calls(() => compress(big, { recencyWindow: 4 }));
    assert.ok(first.length >= 2, `the first request grew its block: ${first}`);
    assert.equal(again.length, 1, `the same request again: ${again}`);
    assert.ok(again[0] >= 256 * 1024, `a block of ${again[0]} bytes`);
  });

  test('a content getter that calls compress while the request is written', () => {
    const inner = INPUT.slice(0, 6);
    const innerExpected = JSON.stringify(compress(inner, { recencyWindow: 0 }));
    const text = 'The nested call must not write into the outer request. '.repeat(30);
    const plain = { id: 'nested', role: 'user', content: text };
    const expected = JSON.stringify(compress([...INPUT, plain], { recencyWindow: 0 }));
    let nestedCalls = 0;
    const nesting = {
      id: 'nested',
      role: 'user',
      get content() {
        nestedCalls += 1;
        assert.equal(JSON.stringify(compress(inner, { recencyWindow: 0 })), innerExpected);
        return text;
      },
    };
    const run = () => {
      const out = compress([...INPUT, nesting], { recencyWindow: 0 });
      // The getter's object is the caller's own; the rest must equal the plain message's run.
      assert.equal(JSON.stringify(out), expected);
    };
    run();
    assert.ok(nestedCalls >= 2, `the getter ran ${nestedCalls} times`);
    const m = keptBytes(run, 10, 200);
    assert.ok(m.long - m.short <= 2 * PROBE_BLOCK, `the calls kept ${m.long - m.short} bytes`);
  });
});
